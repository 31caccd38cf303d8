#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [RUN...]
#
# Boot Debian's 6.12 or 7.3 kernel in qemu (TCG, no NIC to the outside)
# with our rpcrdma.ko or the stock one, and run NFS-over-soft-RoCE
# scenarios in it. The runs are listed in the file "runs" beside this
# script; with no argument all of them run. Prints KTAP: one test per
# run, whose cases are its scenarios (each with its checks nested, as the
# guest reported them), "kernel-log" (no kernel splat in the VMs'
# consoles) and, for a run with wire-capture, "wire-dissector"; a failed
# case's reason is on its "not ok" line; a scenario that lacks what it
# needs in a run says so with "ok N NAME # SKIP WHY". The last line is
# "# e2e: N passed, N skipped, N failed", counting cases.
#
# A run's TOPOLOGY is "single" (one VM, both ends) or "two-host" (two
# VMs on a socket link), over soft-RoCE; "single/siw" and "two-host/siw"
# run over soft-iWARP instead (siw.ko, scripts/siw-module.sh).
# A run's CLIENT and SERVER are "ours" or "stock", booting E2E_KERNEL, or
# "KERNEL:ours" / "KERNEL:stock" to name the kernel of that VM (6.12 or
# 7.3; 6.12-arm64 or 7.3-arm64 for Debian's arm64 kernel of that base,
# booted with qemu-system-aarch64, -arm64-16k for its 16 KiB-page
# flavour), so the two VMs of a two-host run may
# boot different kernels, even of different architectures.
#
# Environment:
#   E2E_SCENARIO_TIMEOUT  limit of one scenario in the guest, seconds
#                   (default 600)
#   E2E_VM_TIMEOUT  limit of one boot, seconds (default: 600 plus the
#                   scenario limit for each scenario of the run)
#   E2E_QUIET       seconds a client's console may stay silent before the
#                   guest counts as hung (default: the scenario limit,
#                   or 600 if that is less, plus 300)
#   E2E_OUT         work directory (scripts/e2e.sh: build/e2e/KERNEL)
#   E2E_APPEND      more words for the guests' kernel command line
#   E2E_QEMU_ARGS   more arguments for qemu (the bench's cost mode: its
#                   instruction counter and -icount)
#   E2E_GUEST_BIN   host programs to put in the guests' /usr/bin (static
#                   ones: no library is copied with them)
#   E2E_SERVER_SYSCTL  KEY=VALUE,... sysctls the server VM of a two-host
#                   run sets before nfsd starts (sunrpc.svc_rdma.max_req_size=32768)
#   E2E_KERNEL      the kernel of runs that name none (default 6.12)
#   E2E_CAPTURE     0: do not record two-host links (the bench's runs)
#   E2E_KEEP_CAPTURE  1: keep the capture of a run that passed too
#   NFS_UTILS_BUILD  where make nfs-utils-mountstats left mountstats
#                   (build/nfs-utils), for the runs with a scenario that
#                   needs python3
#   KVER_<K>, MODROOT_<K>, RPCRDMA_OURS_<K>  for each kernel K (6_12,
#                   7_3, 6_12_arm64...): its release, the root of its
#                   lib/modules, our rpcrdma.ko for it; RPCRDMA_CM,
#                   RPCRDMA_CALL, RPCRDMA_SERVE, and for arm64 guests
#                   ARM64_SYSROOT, RPCRDMA_CM_arm64, RPCRDMA_CALL_arm64,
#                   RPCRDMA_SERVE_arm64. scripts/lib-harness.sh
#                   harness_env sets them all.

set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "$0")" && pwd)
: "${RPCRDMA_CM:?}" "${RPCRDMA_CALL:?}" "${RPCRDMA_SERVE:?}"
OUTDIR=${E2E_OUT:?}
DEFAULT_KERNEL=${E2E_KERNEL:-6.12}
SCENARIO_TIMEOUT=${E2E_SCENARIO_TIMEOUT:-600}
# (a two-host client's wait for its server, up to 600 s, is silent too)
QUIET=${E2E_QUIET:-$(((SCENARIO_TIMEOUT > 600 ? SCENARIO_TIMEOUT : 600) + 300))}
CAPTURE=${E2E_CAPTURE:-1}
# Octets of each frame the capture keeps: a CM MAD over RoCEv2 is 322
# with Ethernet, all of it; data frames are cut, which keeps a capture
# of an NFS run small
CAPTURE_SNAPLEN=512
TOP=$(cd "$HERE/../../.." && pwd)
WIRESHARK_PLUGIN_DIR=$TOP/tools/net/sunrpc/wireshark
NFS_UTILS_BUILD=${NFS_UTILS_BUILD:-$TOP/build/nfs-utils}
# KTAP goes out through tools/testing/ktap.sh only
# shellcheck source=../ktap.sh
. "$TOP/tools/testing/ktap.sh"

log() { printf '>>> %s\n' "$*" >&2; }
die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }

# --- kernels ---

# kernel_of SPEC, module_of SPEC: "7.3:ours" -> 7.3, ours; "ours" -> the
# default kernel, ours
kernel_of() {
	case "$1" in
	*:*) echo "${1%%:*}" ;;
	*) echo "$DEFAULT_KERNEL" ;;
	esac
}
module_of() { echo "${1##*:}"; }

# builder_of K: the make target that builds our rpcrdma.ko for kernel K
builder_of() {
	case "$1" in
	7.3) echo "make modules-mainline" ;;
	7.3-debug) echo "make debug-kernel" ;;
	6.12-fixes) echo "make modules-fixes" ;;
	*-arm64*) echo "make modules-arm64" ;;
	*) echo "make modules" ;;
	esac
}

# kernel_vars K: K_VER, K_ROOT, K_OURS, K_IMAGE, K_ARCH, K_CM, K_CALL
# and K_SERVE of kernel K (6.12, 7.3, 7.3-debug: the debug kernel of
# scripts/debug-kernel.sh, whose own rpcrdma.ko has the series;
# 6.12-fixes: 6.12, whose "ours" is the 6.12 series' stable fixes
# alone; or 6.12-arm64, 7.3-arm64)
kernel_vars() {
	local v=${1//[.-]/_} n
	case "$1" in
	6.12|6.12-fixes|7.3|7.3-debug)
		K_ARCH=amd64 K_CM=$RPCRDMA_CM K_CALL=$RPCRDMA_CALL K_SERVE=$RPCRDMA_SERVE ;;
	6.12-arm64|7.3-arm64|6.12-arm64-16k|7.3-arm64-16k)
		K_ARCH=arm64 K_CM=${RPCRDMA_CM_arm64:-} K_CALL=${RPCRDMA_CALL_arm64:-}
		K_SERVE=${RPCRDMA_SERVE_arm64:-}
		[ -n "${ARM64_SYSROOT:-}" ] && [ -x "$K_CM" ] && [ -x "$K_CALL" ] && [ -x "$K_SERVE" ] ||
			die "kernel $1: no arm64 user space or tools (make deps-arm64 tools-arm64)" ;;
	*) die "unknown kernel '$1': use 6.12, 6.12-fixes, 7.3, 7.3-debug, or 6.12 or 7.3 with -arm64 or -arm64-16k" ;;
	esac
	n=KVER_$v; K_VER=${!n:-}
	n=MODROOT_$v; K_ROOT=${!n:-}
	n=RPCRDMA_OURS_$v; K_OURS=${!n:-}
	[ -n "$K_VER" ] && [ -n "$K_ROOT" ] && [ -n "$K_OURS" ] ||
		die "kernel $1: KVER_$v, MODROOT_$v and RPCRDMA_OURS_$v must be set (scripts/lib-harness.sh harness_env)"
	[ -f "$K_OURS" ] ||
		die "no $K_OURS: build our rpcrdma.ko for $1 ($(builder_of "$1"))"
	# soft-iWARP for this kernel, if scripts/siw-module.sh built it
	n=SIW_KO_$v; K_SIW=${!n:-}
	[ -f "$K_SIW" ] || K_SIW=
	K_IMAGE=$K_ROOT/boot/vmlinuz-$K_VER
	[ -r "$K_IMAGE" ] || K_IMAGE=${K_ROOT%/}/lib/modules/$K_VER/vmlinuz
	[ -r "$K_IMAGE" ] || die "kernel $1: no vmlinuz for $K_VER under $K_ROOT"
}

# --- initramfs: a cached base archive per kernel plus the guest scripts ---

# base_initramfs K: the base archive of kernel K, built when its inputs
# changed
base_initramfs() {
	local key base
	kernel_vars "$1"
	key=$( {
		echo "$K_VER"
		sha256sum "$K_OURS" "$K_CM" "$K_CALL" "$K_SERVE" "$HERE/initramfs.sh" \
			"${K_ROOT%/}/lib/modules/$K_VER/modules.dep" "$K_IMAGE"
		sha256sum "$(dirname "$K_OURS")/nfsrdma_fragment.ko" 2>/dev/null || true
		[ -z "$K_SIW" ] || sha256sum "$K_SIW"
		dpkg-query -W busybox-static rdma-core ibverbs-providers iproute2 e2fsprogs 2>/dev/null || true
		[ "$K_ARCH" = amd64 ] || cat "$ARM64_SYSROOT.debs" 2>/dev/null || true
	} | sha256sum | cut -c1-16)
	base=$OUTDIR/base-$1-$key.cpio
	if [ ! -s "$base" ]; then
		log "building the base initramfs of $1 ($base)"
		rm -f "$OUTDIR/base-$1-"????????????????.cpio
		KVER=$K_VER MODROOT=$K_ROOT RPCRDMA_OURS=$K_OURS DEBS=$OUTDIR/debs \
			RPCRDMA_CM=$K_CM RPCRDMA_CALL=$K_CALL RPCRDMA_SERVE=$K_SERVE GUEST_ARCH=$K_ARCH SIW_KO=$K_SIW \
			SYSROOT=${ARM64_SYSROOT:-} "$HERE/initramfs.sh" "$base" >&2
	fi
	echo "$base"
}

# The guest scripts and scenarios, shared by every kernel
guest_initramfs() {
	local stage
	stage=$(mktemp -d)
	mkdir -p "$stage/e2e/scenarios"
	cp "$HERE/guest/init" "$stage/init"
	cp "$HERE/guest/lib.sh" "$HERE/guest/ctl.cgi" "$HERE/../ktap.sh" "$stage/e2e/"
	if [ -n "${E2E_GUEST_BIN:-}" ]; then
		mkdir -p "$stage/usr/bin"
		# shellcheck disable=SC2086 # a list of paths
		cp $E2E_GUEST_BIN "$stage/usr/bin/"
	fi
	cp "$HERE"/scenarios/*.sh "$stage/e2e/scenarios/"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$OUTDIR/guest.cpio"
	rm -rf "$stage"
}

# fio_layer: an archive of fio and every library it loads (Debian's fio
# links the Ceph and Gluster clients: about 80 MB), cached by fio's hash
fio_layer() {
	local fio key out stage lib libs
	fio=$(command -v fio) || die "no fio (make deps)"
	libs=$(ldd "$fio" | awk '/=> \// { print $3 } /^\t\/lib64\// { print $1 }')
	# keyed by fio and every library it loads
	key=$(sha256sum "$fio" $libs | sha256sum | cut -c1-16)
	out=$OUTDIR/fio-$key.cpio
	if [ ! -s "$out" ]; then
		rm -f "$OUTDIR"/fio-*.cpio
		stage=$(mktemp -d)
		mkdir -p "$stage/usr/bin"
		cp "$fio" "$stage/usr/bin/fio"
		for lib in $libs; do
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
		(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp"
		mv "$out.tmp" "$out"
		rm -rf "$stage"
	fi
	echo "$out"
}

# python_layer: an archive of the host's python3, the part of its
# library that mountstats loads, and three mountstats: /usr/sbin/mountstats
# with patches/nfs-utils (make nfs-utils-mountstats), mountstats-stock,
# the same nfs-utils without them, and mountstats-bookworm, the one of
# the nfs-common .deb the base archive took its nfs-utils from
# (python-layer.sh); cached by their hashes. Call it after
# base_initramfs, which fetches that .deb.
python_layer() {
	local ms=$NFS_UTILS_BUILD deb key out stage
	[ -s "$ms/mountstats" ] && [ -s "$ms/mountstats.orig" ] ||
		die "no $ms/mountstats: make nfs-utils-mountstats"
	deb=$(compgen -G "$OUTDIR/debs/nfs-common_*.deb" | head -n 1) ||
		die "no nfs-common .deb in $OUTDIR/debs"
	key=$(sha256sum "$HERE/python-layer.sh" "$(readlink -f /usr/bin/python3)" \
		"$ms/mountstats" "$ms/mountstats.orig" "$deb" | sha256sum | cut -c1-16)
	out=$OUTDIR/python3-$key.cpio
	if [ ! -s "$out" ]; then
		rm -f "$OUTDIR"/python3-*.cpio
		stage=$(mktemp -d)
		dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/sbin/mountstats >"$stage/mountstats-bookworm" ||
			{ rm -rf "$stage"; die "no /usr/sbin/mountstats in $deb"; }
		"$HERE/python-layer.sh" "$out" mountstats="$ms/mountstats" \
			mountstats-stock="$ms/mountstats.orig" \
			mountstats-bookworm="$stage/mountstats-bookworm" ||
			{ rm -rf "$stage"; die "python-layer.sh failed"; }
		rm -rf "$stage"
	fi
	echo "$out"
}

# needs WHAT "SCENARIO...": whether one of them says "# e2e-needs: WHAT"
# (fio, python3)
needs() {
	local s
	for s in $2; do
		grep -qx "# e2e-needs: $1" "$HERE/scenarios/$s.sh" 2>/dev/null && return 0
	done
	return 1
}

# boot_initramfs K SCENARIOS: sets BOOT_CPIO, what a VM of kernel K
# boots to run SCENARIOS: $OUTDIR/boot-K.cpio, or boot-K-fio.cpio,
# boot-K-python3.cpio, boot-K-fio-python3.cpio with fio and python3 in
# it when a scenario needs them (each layer only where needed: a boot
# unpacks all it is given)
boot_initramfs() {
	local base what suffix='' layers=()
	for what in fio python3; do
		needs "$what" "$2" || continue
		# (the harness takes them from the host: no arm64 ones)
		[[ "$1" != *-arm64* ]] || die "kernel $1: a scenario of '$2' needs $what, which arm64 guests lack"
		suffix=$suffix-$what
	done
	BOOT_CPIO=$OUTDIR/boot-$1$suffix.cpio
	[ -s "$BOOT_CPIO" ] && return 0
	base=$(base_initramfs "$1")
	[[ "$suffix" != *-fio* ]] || layers+=("$(fio_layer)")
	[[ "$suffix" != *-python3* ]] || layers+=("$(python_layer)")
	# The kernel unpacks concatenated archives in order
	cat "$base" "${layers[@]}" "$OUTDIR/guest.cpio" >"$BOOT_CPIO"
}

# --- VMs ---

# start_vm KERNEL LOG SMP MEM APPEND SCENARIOS [QEMU ARGS...]: qemu
# booting KERNEL (6.12, 7.3) in the background, with fio or python3 in
# its initramfs if one of SCENARIOS needs it; its pid in VM_PID. Keep SMP at 1: with
# two vCPUs under multi-threaded TCG, a boot was seen to die on an int3
# left by kernel text patching.
#
# The guest's clock is the host's, so on a busy 2-core host TCG can make
# the CPU-stall detectors fire on code that is only slow to emulate: CI
# once saw an RCU stall report from the boot-time ECDSA self-test on a
# stock server. Guests skip the crypto self-tests (nothing here uses
# their algorithms) and report an RCU stall or a soft lockup after 120 s
# instead of 21 and 20: still well inside a scenario's time limit, so a
# real lockup is a failed run with its splat.
GUEST_KERNEL_ARGS="console=ttyS0 panic=-1 loglevel=5 mitigations=off cryptomgr.notests rcupdate.rcu_cpu_stall_timeout=120 watchdog_thresh=60"
#
# The limits are hang guards, never budgets: the guest's clock is the
# host's, and on a host whose cores are shared a scenario can take
# several times its time alone.
# - The guest ends a scenario SCENARIO_TIMEOUT seconds after it started
#   and reports it as that scenario.
# - run_single and run_two_host end a client VM whose console has been
#   silent for QUIET seconds (quiet_too_long): the guest prints at least
#   when a scenario starts and ends, so that is a hung guest (its setup,
#   or the whole kernel).
# - vm_limit SCENARIOS sets VM_LIMIT, the last resort for a run's boots,
#   counted from the boot: 600 s for boot, setup and a two-host client's
#   wait for its server, plus each scenario's limit. The server VM of a
#   two-host run, booted first, gets 120 s more than its client.
vm_limit() {
	VM_LIMIT=${E2E_VM_TIMEOUT:-$((600 + $(wc -w <<<"$1") * SCENARIO_TIMEOUT))}
}

# quiet_too_long LOG: whether the console LOG has not grown for QUIET
# seconds (call it every few seconds; QUIET_SIZE= starts afresh)
QUIET_SIZE=
QUIET_SINCE=0
quiet_too_long() {
	local size
	size=$(stat -c %s "$1" 2>/dev/null || echo 0)
	if [ "$size" != "$QUIET_SIZE" ]; then
		QUIET_SIZE=$size
		QUIET_SINCE=$SECONDS
		return 1
	fi
	[ $((SECONDS - QUIET_SINCE)) -ge "$QUIET" ]
}

# silenced PID LOG: end the VM PID if its console LOG has been silent
# for QUIET seconds; whether it did (VM_SILENT says so to vm_trouble)
silenced() {
	quiet_too_long "$2" || return 1
	VM_SILENT=1
	kill "$1" 2>/dev/null || true
}
start_vm() {
	local kernel=$1 logf=$2 smp=$3 mem=$4 append=$5 scenarios=$6
	shift 6
	local qemu=(qemu-system-x86_64 -accel tcg) args=$GUEST_KERNEL_ARGS cpu
	kernel_vars "$kernel"
	[ "$RUN_RDMA" != siw ] || [ -n "$K_SIW" ] ||
		die "kernel $kernel: no siw.ko for a soft-iWARP run (make modules-siw)"
	boot_initramfs "$kernel" "$scenarios"
	if [ "$K_ARCH" = arm64 ]; then
		# qemu's "virt" board, PCIe for the virtio devices; a
		# Cortex-A72 is what TCG emulates fastest here (-cpu max adds
		# pointer authentication, which is slow to emulate). It has
		# no 16 KiB translation granule; "max" without pointer
		# authentication does.
		cpu=cortex-a72
		[[ "$kernel" != *-16k ]] || cpu=max,pauth=off
		qemu=(qemu-system-aarch64 -accel tcg -M virt -cpu "$cpu")
		args=${args/console=ttyS0/console=ttyAMA0}
	fi
	# shellcheck disable=SC2086 # E2E_QEMU_ARGS: words
	timeout --kill-after=10 "$VM_LIMIT" \
		"${qemu[@]}" -smp "$smp" -m "$mem" \
		-nographic -no-reboot -kernel "$K_IMAGE" -initrd "$BOOT_CPIO" \
		-append "$args $append" \
		${E2E_QEMU_ARGS:-} "$@" </dev/null >"$logf" 2>&1 &
	VM_PID=$!
	VM_PIDS+=("$VM_PID")
}

# Leave no VM behind, whatever ends this script
stop_vms() {
	local pid
	for pid in "${VM_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	rm -f "$OUTDIR"/*.sock "$OUTDIR"/*.disk
}
VM_PIDS=()
VM_SILENT=
trap stop_vms EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A kernel splat, even in a run whose scenarios passed. The stall and
# hung-task headers are matched too: they come before the trace in a log,
# so the line reported names the kind of splat, not only "Call Trace:".
# The stacks a timed-out scenario prints (E2E-STUCK lines, guest/init's
# show_stuck) and the daemon logs a failed scenario prints (E2E-LOG) are
# not a splat.
KERNEL_TROUBLE='Kernel panic|BUG:|Oops|WARNING:|rcu: INFO:|INFO: task .* blocked|Call Trace:'
# console_lines LOG: the console without the guest's marked dumps
console_lines() {
	grep -v -E '^E2E-(STUCK|LOG) ' "$1" || true
}
kernel_trouble() {
	console_lines "$1" | tr -d '\r' | grep -m1 -E "$KERNEL_TROUBLE" || true
}

# append_for ROLE SPEC SCENARIOS SERVER-SPEC: the guest's command line
# (RUN_RDMA: the run's RDMA device kind, rxe or siw)
append_for() {
	echo "e2e.role=$1 e2e.rpcrdma=$(module_of "$2") e2e.server_rpcrdma=$(module_of "$4") e2e.server_kernel=$(kernel_of "$4") e2e.scenarios=$(echo "$3" | tr ' ' ,) e2e.timeout=$SCENARIO_TIMEOUT e2e.rdma=$RUN_RDMA${E2E_APPEND:+ $E2E_APPEND}"
}

# What went wrong with a VM that did not finish, from its console log
vm_trouble() {
	local logf=$1 rc=$2 line
	line=$(tr -d '\r' <"$logf" | grep -m1 -E 'Kernel panic|BUG:|Oops' || true)
	if [ -n "$line" ]; then
		echo "VM crashed: $line"
	elif [ -n "$VM_SILENT" ]; then
		echo "VM hung: its console was silent for ${QUIET}s"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "VM timed out after ${VM_LIMIT}s"
	else
		echo "VM ended before reporting (qemu status $rc)"
	fi
}

# Console lines as KTAP diagnostics: a guest's own KTAP lines among
# them must not be read as results of this one
show_tail() {
	echo "# ---- last lines of $1 ----"
	tail -n 25 "$1" | tr -d '\r' | sed 's/^/#     /'
	echo "# ----"
}

# The "REPORT:" lines a scenario printed for a person (the demo's)
show_report() {
	tr -d '\r' <"$1" | sed -n 's/^REPORT: \{0,1\}/  # /p'
}

# A run's cases, as a KTAP subtest (ktap.sh): ktap_subtest_begin and
# its plan, then ktap_test_pass NAME, ktap_test_skip NAME WHY or
# ktap_test_fail NAME REASON for each case, then ktap_subtest_end RUN;
# KTAP_FAIL counts the run's failed cases meanwhile

# cases_of SCENARIOS TOPOLOGY: how many cases a run of them has: one
# per scenario, kernel-log, and wire-dissector for a two-host run with
# wire-capture
cases_of() {
	local n
	n=$(($(wc -w <<<"$1") + 1))
	[ "$2" != two-host ] || [[ " $1 " != *" wire-capture "* ]] || n=$((n + 1))
	echo $n
}

# guest_checks LOG SCENARIO: the checks the guest nested in SCENARIO's
# result, one level deeper here
# (awk reads the whole file: stopping early would end a "tr |" in front
# with SIGPIPE, and pipefail the run)
guest_checks() {
	awk -v s="$2" '
		{ sub(/\r$/, "") }
		$0 == "E2E-BEGIN " s { on = 1; next }
		on && /^(not )?ok [0-9]+ / { on = 0 }
		on && /^  (KTAP version 1|1\.\.[0-9]+|(not )?ok [0-9]+( .*)?)$/ { print "  " $0 }' "$1"
}

# report RUN SCENARIOS LOG QEMU-STATUS [EXTRA-LOG]: the run's subtest
# up to its kernel-log case (run_two_host may add one more)
report() {
	local scenarios=$2 logf=$3 rc=$4 extra=${5:-} s f line trouble=
	ktap_subtest_begin
	ktap_set_plan "$(cases_of "$scenarios" "$([ -n "$extra" ] && echo two-host || echo single)")"
	show_report "$logf"
	for s in $scenarios; do
		guest_checks "$logf" "$s"
		line=$(tr -d '\r' <"$logf" | grep -m1 -E "^(not )?ok [0-9]+ $s( #|\$)" || true)
		case "$line" in
		"ok "*" # SKIP"*)
			ktap_test_skip "$s" "${line#* # SKIP }" ;;
		"ok "*)
			ktap_test_pass "$s" ;;
		"not ok "*)
			ktap_test_fail "$s" "${line#* # }" ;;
		*)
			[ -n "$trouble" ] || trouble=$(vm_trouble "$logf" "$rc")
			ktap_test_fail "$s" "$trouble" ;;
		esac
	done
	[ "$KTAP_FAIL" = 0 ] || show_tail "$logf"
	# The consoles hold no kernel splat
	line=
	for f in $logf $extra; do
		line=$(kernel_trouble "$f")
		[ -z "$line" ] || break
	done
	if [ -n "$line" ]; then
		ktap_test_fail kernel-log "the kernel reported a problem in ${f##*/}: $line"
		# -m1 ends console_lines' grep with SIGPIPE on a long log;
		# its "|| true" keeps that from failing the run (pipefail)
		console_lines "$f" | grep -m1 -A20 -E "$KERNEL_TROUBLE" | tr -d '\r' |
			sed 's/^/#     /'
	else
		ktap_test_pass kernel-log
	fi
	# A client done before the server's init got as far as saying it
	# is ready (7.3's nfsd start can take longer than a short run) is
	# no trouble; it is worth showing only when something failed
	if [ -n "$extra" ] && [ "$KTAP_FAIL" -gt 0 ] &&
	   ! grep -q '^E2E-SERVER-READY' "$extra"; then
		echo "# the server VM never became ready: $(grep -m1 '^E2E-SERVER-FAILED' "$extra" |
			tr -d '\r' | grep . || echo 'no reason in its log')"
		show_tail "$extra"
	fi
}

run_single() {
	local name=$1 spec=$2 scenarios=$3 logf=$OUTDIR/$1.log rc=0
	log "run $name: one VM, kernel $(kernel_of "$spec"), rpcrdma=$(module_of "$spec") (log $logf)"
	vm_limit "$scenarios"
	# A blank disk for the scenarios that export a block device
	# (nfsd-direct-write), sparse and made afresh for each boot
	rm -f "$OUTDIR/$name.disk"
	truncate -s 256M "$OUTDIR/$name.disk"
	start_vm "$(kernel_of "$spec")" "$logf" 1 1024 \
		"$(append_for single "$spec" "$scenarios" "$spec")" "$scenarios" -nic none \
		-drive "file=$OUTDIR/$name.disk,if=virtio,format=raw,cache=unsafe"
	QUIET_SIZE= VM_SILENT=
	while kill -0 "$VM_PID" 2>/dev/null; do
		! silenced "$VM_PID" "$logf" || break
		sleep 2
	done
	wait "$VM_PID" || rc=$?
	VM_PIDS=()
	rm -f "$OUTDIR/$name.disk"
	report "$name" "$scenarios" "$logf" "$rc"
	ktap_subtest_end "$name"
}

# wire_check RUN PCAP CLIENT-LOG: the Wireshark dissector's reading of
# the capture against both kernels' views (wire-check.py), as one more
# result of the run, RUN/wire-dissector
wire_check() {
	local out rc=0
	if ! out=$(make -s -C "$WIRESHARK_PLUGIN_DIR" 2>&1); then
		ktap_test_fail wire-dissector "the plugin did not build: $out"
		return
	fi
	out=$(python3 "$HERE/wire-check.py" "$2" "$3" "$WIRESHARK_PLUGIN_DIR/rpcrdma_cm.so" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		ktap_test_pass wire-dissector
	else
		ktap_test_fail wire-dissector "$(grep -m1 -e '^# first mismatch: ' <<<"$out" |
			sed 's/^# first mismatch: //' | grep . || tail -n 1 <<<"$out")"
	fi
	grep -v '^ok ' <<<"$out" | sed 's/^/#     /' || true
}

run_two_host() {
	local name=$1 cmod=$2 smod=$3 scenarios=$4
	local clog=$OUTDIR/$name-client.log slog=$OUTDIR/$name-server.log
	local sock=$OUTDIR/$name.sock pcap=$OUTDIR/$name.pcap spid cpid rc=0 i=0
	local capture=()
	log "run $name: client $(kernel_of "$cmod")/$(module_of "$cmod"), server $(kernel_of "$smod")/$(module_of "$smod") (logs $clog, $slog)"
	rm -f "$sock" "$pcap"
	vm_limit "$scenarios"
	VM_LIMIT=$((VM_LIMIT + 120))
	# The link, both ways, as the server's end sees it
	[ "$CAPTURE" = 0 ] ||
		capture=(-object "filter-dump,id=cap0,netdev=n0,file=$pcap,maxlen=$CAPTURE_SNAPLEN")
	# The VMs' only link: a qemu stream netdev over a Unix socket
	start_vm "$(kernel_of "$smod")" "$slog" 1 768 \
		"$(append_for server "$smod" "" "$smod")${E2E_SERVER_SYSCTL:+ e2e.sysctl=$E2E_SERVER_SYSCTL}" "" \
		-nic none -netdev "stream,id=n0,server=on,addr.type=unix,addr.path=$sock" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:01 "${capture[@]}"
	spid=$VM_PID
	VM_LIMIT=$((VM_LIMIT - 120))
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	start_vm "$(kernel_of "$cmod")" "$clog" 1 768 \
		"$(append_for client "$cmod" "$scenarios" "$smod")${E2E_SERVER_SYSCTL:+ e2e.server_sysctl=$E2E_SERVER_SYSCTL}" "$scenarios" \
		-nic none -netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02
	cpid=$VM_PID
	# A server that crashes leaves the client waiting for it until the
	# VM timeout: stop the client as soon as the server's console says so
	QUIET_SIZE= VM_SILENT=
	while kill -0 "$cpid" 2>/dev/null; do
		! silenced "$cpid" "$clog" || break
		if [ -n "$(kernel_trouble "$slog" | grep -E 'Kernel panic|BUG:|Oops' || true)" ] ||
		   ! kill -0 "$spid" 2>/dev/null; then
			sleep 2
			kill "$cpid" 2>/dev/null || true
			break
		fi
		sleep 2
	done
	wait "$cpid" || rc=$?
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	rm -f "$sock"
	VM_PIDS=()
	report "$name" "$scenarios" "$clog" "$rc" "$slog"
	if [[ " $scenarios " == *" wire-capture "* ]]; then
		if awk '{ sub(/\r$/, "") } /^ok [0-9]+ wire-capture$/ { f = 1 } END { exit !f }' "$clog"; then
			wire_check "$name" "$pcap" "$clog"
		elif awk '{ sub(/\r$/, "") } /^ok [0-9]+ wire-capture # SKIP/ { f = 1 } END { exit !f }' "$clog"; then
			ktap_test_skip wire-dissector "wire-capture was skipped"
		else
			ktap_test_fail wire-dissector "no views of the connects: wire-capture failed"
		fi
	fi
	if [ -f "$pcap" ]; then
		if [ "$KTAP_FAIL" -gt 0 ]; then
			echo "# the capture of the link between the VMs: $pcap"
		elif [ "${E2E_KEEP_CAPTURE:-0}" != 1 ]; then
			rm -f "$pcap"
		fi
	fi
	ktap_subtest_end "$name"
}

# run_times RUN SECONDS: how long the run and each of its scenarios took
# (guest seconds, under TCG), so that a slow one is plain to see
run_times() {
	local f per
	per=$(for f in "$OUTDIR/$1.log" "$OUTDIR/$1-client.log"; do
		[ ! -f "$f" ] || tr -d '\r' <"$f" | awk '$1 == "E2E-TIME" { printf " %s %ss", $2, $3 }'
	done)
	echo "# run $1: ${2}s${per:+;$per}"
}

# selected_runs " RUN... ": the names of the runs of the runs file that
# main runs (all of them for "  "), one a line
selected_runs() {
	awk -v want="$1" '$1 !~ /^#/ && NF && (want == "  " || index(want, " " $1 " ")) { print $1 }' \
		"${E2E_RUNS_FILE:-$HERE/runs}"
}

main() {
	local name topo cmod smod scenarios want=" $* " found=0 t0
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (make deps)"
	for name in "$@"; do
		grep -qE "^${name}[[:space:]]" "${E2E_RUNS_FILE:-$HERE/runs}" ||
			die "no run named '$name' in ${E2E_RUNS_FILE:-$HERE/runs}"
	done
	mkdir -p "$OUTDIR"
	rm -f "$OUTDIR"/boot-*.cpio
	guest_initramfs
	log "default kernel: $DEFAULT_KERNEL"

	ktap_set_plan "$(selected_runs "$want" | wc -l)"
	while read -r name topo cmod smod scenarios; do
		case "$name" in ''|'#'*) continue ;; esac
		[ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
		found=$((found + 1))
		t0=$SECONDS
		# "single/siw", "two-host/siw": over soft-iWARP
		RUN_RDMA=rxe
		case "$topo" in
		*/siw) RUN_RDMA=siw topo=${topo%/siw} ;;
		*/*) die "run $name: unknown link '${topo#*/}' (only /siw)" ;;
		esac
		case "$topo" in
		single)
			[ "$(kernel_of "$cmod"):$(module_of "$cmod")" = "$(kernel_of "$smod"):$(module_of "$smod")" ] ||
				die "run $name: a single VM has one kernel and one rpcrdma.ko"
			run_single "$name" "$cmod" "$scenarios" ;;
		two-host)
			run_two_host "$name" "$cmod" "$smod" "$scenarios" ;;
		*) die "run $name: unknown topology '$topo'" ;;
		esac
		run_times "$name" $((SECONDS - t0))
	done <"${E2E_RUNS_FILE:-$HERE/runs}"
	[ "$found" -gt 0 ] || die "no runs in ${E2E_RUNS_FILE:-$HERE/runs}"
	ktap_print_msg "e2e: $KTAP_ALL_PASS passed, $KTAP_ALL_SKIP skipped, $KTAP_ALL_FAIL failed"
	[ "$KTAP_ALL_FAIL" = 0 ]
}

main "$@"
