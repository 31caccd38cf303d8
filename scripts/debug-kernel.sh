#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: build the debug kernel of the NFS/RDMA harness from
# the mainline tree with the series applied (build/linux-7.3.<n>, branch
# series): x86_64_defconfig plus kvm_guest.config plus
# tools/testing/nfsrdma/debug-kernel/debug.config (KASAN with
# KASAN_VMALLOC, DEBUG_SG, DEBUG_VIRTUAL, PROVE_LOCKING,
# DEBUG_ATOMIC_SLEEP, DMA_API_DEBUG), built in the trixie root with its
# gcc-14. Its own modules, rpcrdma.ko with the series among them, go
# under $BUILD/debug-kernel/root/lib/modules/KVER, its image to
# root/boot/vmlinuz-KVER, and $BUILD/debug-kernel.env says where, for
# the harness (E2E_KERNEL=7.3-debug).
#
# The build is cached by its inputs: the tree's commit, the fragment and
# this script. A rebuild of the same inputs does nothing; a new commit
# rebuilds incrementally (the sources are copied by content).

SERIES_BASE=mainline
. "$(dirname "$0")/lib.sh"
load_base

DIR=$BUILD/debug-kernel
FRAGMENT=$TOP/tools/testing/nfsrdma/debug-kernel/debug.config
ENV_FILE=$BUILD/debug-kernel.env
JOBS=${DEBUG_KERNEL_JOBS:-$(nproc)}

inputs() {
	{
		tgit rev-parse HEAD
		sha256sum <"$FRAGMENT"
		sha256sum <"$0"
	} | sha256sum | cut -c1-16
}

# Every option the fragment sets must be in the final .config as set:
# a dependency Kconfig did not meet would silently drop a check.
check_config() {
	local config=$1 line opt want bad=0
	while read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} want=$line ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} want="" ;;
		*) continue ;;
		esac
		if [ -n "$want" ]; then
			grep -qx "$want" "$config" || { warn "$opt: wanted ${want#*=}, got $(grep "^$opt=" "$config" || echo 'not set')"; bad=1; }
		else
			! grep -q "^$opt=" "$config" || { warn "$opt: wanted unset, got $(grep "^$opt=" "$config")"; bad=1; }
		fi
	done <"$FRAGMENT"
	return $bad
}

main() {
	local key kver cc=x86_64-linux-gnu-gcc-14 tmp
	[ -d "$TREE/.git" ] || die "no $TREE: run 'make tree-mainline'"
	key=$(inputs)
	if [ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$key" ] && [ -r "$ENV_FILE" ]; then
		log "debug kernel up to date ($DIR)"
		return 0
	fi
	mkdir -p "$DIR/src" "$DIR/obj"
	log "debug kernel: copying $TREE ($(tgit rev-parse --short HEAD)) to $DIR/src"
	tmp=$(mktemp -d)
	tgit archive HEAD | tar -x -C "$tmp"
	rsync -rlc --delete "$tmp/" "$DIR/src/"
	rm -rf "$tmp"
	cp "$FRAGMENT" "$DIR/debug.config"

	log "debug kernel: configuring and building with $JOBS jobs (tens of minutes)"
	"$TOP/scripts/trixie-root.sh" run "$DIR" sh -ec '
		cd /work-out/src
		m="make -s O=/work-out/obj CC='"$cc"' HOSTCC='"$cc"' -j'"$JOBS"'"
		$m x86_64_defconfig >/dev/null
		KCONFIG_CONFIG=/work-out/obj/.config scripts/kconfig/merge_config.sh -m -O /work-out/obj \
			/work-out/obj/.config kernel/configs/kvm_guest.config /work-out/debug.config >/dev/null
		$m olddefconfig
		$m bzImage modules
		rm -rf /work-out/root
		$m INSTALL_MOD_PATH=/work-out/root INSTALL_MOD_STRIP=1 modules_install >/dev/null
		kver=$($m -s kernelrelease)
		mkdir -p /work-out/root/boot
		cp /work-out/obj/arch/x86/boot/bzImage /work-out/root/boot/vmlinuz-$kver
		echo "$kver" >/work-out/kver' ||
		die "the debug kernel's build failed"
	check_config "$DIR/obj/.config" ||
		die "the debug kernel's .config lacks options of $FRAGMENT (see above)"
	kver=$(cat "$DIR/kver")
	[ -r "$DIR/root/lib/modules/$kver/kernel/net/sunrpc/xprtrdma/rpcrdma.ko" ] ||
		die "the debug kernel has no rpcrdma.ko"
	printf 'DEBUG_KVER=%s\nDEBUG_ROOT=%s\n' "$kver" "$DIR/root" >"$ENV_FILE"
	echo "$key" >"$DIR/stamp"
	log "debug kernel ready: $kver ($DIR/root)"
}

main "$@"
