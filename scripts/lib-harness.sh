# SPDX-License-Identifier: GPL-2.0
#
# lib-harness.sh: the environment of the qemu harness
# (tools/testing/nfsrdma/run.sh) for the scripts that start it (e2e.sh,
# bench.sh, dkms.sh, demo.sh through e2e.sh). Source it after lib.sh.

# harness_env OUTDIR: export what tools/testing/nfsrdma needs: for each
# kernel the VMs can boot, its release, the root its modules are under
# and our rpcrdma.ko for it (6.12: the installed Debian kernel and the
# 6.12 series; 7.3: the image mainline-deps.sh unpacked and the mainline
# series), rpcrdma-cm, the patched mountstats (build/nfs-utils) and the
# work directory OUTDIR. E2E_KERNEL (6.12 or 7.3, default 6.12) is what
# a run boots unless it names a kernel.
harness_env() {
	SERIES_BASE=6.12 load_base
	export E2E_KERNEL=${E2E_KERNEL:-6.12}
	case $E2E_KERNEL in
	6.12|6.12-fixes|7.3|7.3-debug|6.12-arm64|7.3-arm64|6.12-arm64-16k|7.3-arm64-16k) ;;
	*) die "E2E_KERNEL=$E2E_KERNEL: use 6.12, 6.12-fixes, 7.3, 7.3-debug, or 6.12 or 7.3 with -arm64 or -arm64-16k" ;;
	esac
	export KVER_6_12=$KVER MODROOT_6_12=/ RPCRDMA_OURS_6_12=$BUILD/module/rpcrdma.ko
	# 6.12 with the stable fixes posting alone (make modules-fixes)
	export KVER_6_12_fixes=$KVER MODROOT_6_12_fixes=/
	export RPCRDMA_OURS_6_12_fixes=$BUILD/module-fixes/rpcrdma.ko
	if [ -r "$MAINLINE_ENV" ]; then
		# shellcheck source=/dev/null
		. "$MAINLINE_ENV"
		export KVER_7_3=$MAINLINE_KVER MODROOT_7_3=$MAINLINE_IMAGE
		export RPCRDMA_OURS_7_3=$BUILD/module-mainline/rpcrdma.ko
	elif [ "$E2E_KERNEL" = 7.3 ]; then
		die "$MAINLINE_ENV is missing: run 'make deps-mainline'"
	fi
	if [ -r "$BUILD/debug-kernel.env" ]; then
		# shellcheck source=/dev/null
		. "$BUILD/debug-kernel.env"
		export KVER_7_3_debug=$DEBUG_KVER MODROOT_7_3_debug=$DEBUG_ROOT
		export RPCRDMA_OURS_7_3_debug=$DEBUG_ROOT/lib/modules/$DEBUG_KVER/kernel/net/sunrpc/xprtrdma/rpcrdma.ko
	elif [ "$E2E_KERNEL" = 7.3-debug ]; then
		die "$BUILD/debug-kernel.env is missing: run 'make debug-kernel'"
	fi
	# The arm64 lane (arm64-deps.sh, arm64-build.sh): Debian's arm64
	# kernels of both bases, our rpcrdma.ko and the tools for them
	if [ -r "$BUILD/arm64.env" ]; then
		# shellcheck source=/dev/null
		. "$BUILD/arm64.env"
		export KVER_6_12_arm64=$ARM64_KVER_6_12 MODROOT_6_12_arm64=$ARM64_ROOT_6_12
		export RPCRDMA_OURS_6_12_arm64=$BUILD/module-arm64/rpcrdma.ko
		export KVER_7_3_arm64=$ARM64_KVER_7_3 MODROOT_7_3_arm64=$ARM64_ROOT_7_3
		export RPCRDMA_OURS_7_3_arm64=$BUILD/module-mainline-arm64/rpcrdma.ko
		export KVER_6_12_arm64_16k=${ARM64_KVER_6_12_16k:-} MODROOT_6_12_arm64_16k=${ARM64_ROOT_6_12_16k:-}
		export RPCRDMA_OURS_6_12_arm64_16k=$BUILD/module-arm64-16k/rpcrdma.ko
		export KVER_7_3_arm64_16k=${ARM64_KVER_7_3_16k:-} MODROOT_7_3_arm64_16k=${ARM64_ROOT_7_3_16k:-}
		export RPCRDMA_OURS_7_3_arm64_16k=$BUILD/module-mainline-arm64-16k/rpcrdma.ko
		export ARM64_SYSROOT
		export RPCRDMA_CM_arm64=$BUILD/arm64/tools/rpcrdma-cm/rpcrdma-cm
		export RPCRDMA_CALL_arm64=$BUILD/arm64/tools/rpcrdma-call/rpcrdma-call
		export RPCRDMA_SERVE_arm64=$BUILD/arm64/tools/rpcrdma-serve/rpcrdma-serve
	fi
	# soft-iWARP (make modules-siw), where built
	export SIW_KO_6_12=$BUILD/siw-6.12/siw.ko SIW_KO_7_3=$BUILD/siw-7.3/siw.ko
	export RPCRDMA_CM=$TOP/tools/net/sunrpc/rpcrdma-cm/rpcrdma-cm
	export RPCRDMA_CALL=$TOP/tools/testing/rpcrdma-call/rpcrdma-call
	export RPCRDMA_SERVE=$TOP/tools/testing/rpcrdma-serve/rpcrdma-serve
	# nfs-utils' mountstats with patches/nfs-utils (make nfs-utils-mountstats)
	export NFS_UTILS_BUILD=$BUILD/nfs-utils
	export E2E_OUT=$1
	[ -x "$RPCRDMA_CM" ] || die "no $RPCRDMA_CM: run 'make tools'"
	[ -x "$RPCRDMA_CALL" ] || die "no $RPCRDMA_CALL: run 'make tools'"
	[ -x "$RPCRDMA_SERVE" ] || die "no $RPCRDMA_SERVE: run 'make tools'"
}
