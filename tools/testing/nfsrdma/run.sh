#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [RUN...]
#
# Boot Debian's 6.12 kernel in qemu (TCG, no NIC to the outside) with our
# rpcrdma.ko or the stock one, and run NFS-over-soft-RoCE scenarios in
# it. The runs are listed in the file "runs" beside this script; with no
# argument all of them run. Each scenario is reported as PASS or FAIL
# with its reason; the last line is "e2e: N passed, N failed".
#
# Environment:
#   E2E_VM_TIMEOUT  wall-clock limit of one boot, seconds (default 900)
#   E2E_SCENARIO_TIMEOUT  limit of one scenario in the guest (default 300)
#   E2E_OUT         work directory (default build/e2e of the repository)
#   E2E_EXTRA_CPIO  an archive to add to the initramfs (bench: fio)
#   E2E_APPEND      more words for the guests' kernel command line
#   KVER, RPCRDMA_OURS, RPCRDMA_CM  set by the Makefile

set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "$0")" && pwd)
: "${KVER:?}" "${RPCRDMA_OURS:?}" "${RPCRDMA_CM:?}"
OUTDIR=${E2E_OUT:?}
VM_TIMEOUT=${E2E_VM_TIMEOUT:-900}
SCENARIO_TIMEOUT=${E2E_SCENARIO_TIMEOUT:-300}
KERNEL=/boot/vmlinuz-$KVER
PASSED=0
FAILED=0

log() { printf '>>> %s\n' "$*" >&2; }
die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }

# --- initramfs: a cached base archive plus the guest scripts ---

base_initramfs() {
	local key base
	key=$( {
		echo "$KVER"
		sha256sum "$RPCRDMA_OURS" "$RPCRDMA_CM" "$HERE/initramfs.sh"
		dpkg-query -W busybox-static rdma-core ibverbs-providers iproute2 \
			"linux-image-$KVER" 2>/dev/null || true
	} | sha256sum | cut -c1-16)
	base=$OUTDIR/base-$key.cpio
	if [ ! -s "$base" ]; then
		log "building the base initramfs ($base)"
		rm -f "$OUTDIR"/base-*.cpio
		DEBS=$OUTDIR/debs "$HERE/initramfs.sh" "$base" >&2
	fi
	echo "$base"
}

boot_initramfs() {
	local base=$1 stage
	stage=$(mktemp -d)
	mkdir -p "$stage/e2e/scenarios"
	cp "$HERE/guest/init" "$stage/init"
	cp "$HERE/guest/lib.sh" "$stage/e2e/"
	cp "$HERE"/scenarios/*.sh "$stage/e2e/scenarios/"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$OUTDIR/guest.cpio"
	rm -rf "$stage"
	# The kernel unpacks concatenated archives in order
	cat "$base" ${E2E_EXTRA_CPIO:+"$E2E_EXTRA_CPIO"} "$OUTDIR/guest.cpio" >"$OUTDIR/boot.cpio"
}

# --- VMs ---

# start_vm LOG SMP MEM APPEND [QEMU ARGS...]: qemu in the background;
# its pid in VM_PID. Keep SMP at 1: with two vCPUs under multi-threaded
# TCG, a boot was seen to die on an int3 left by kernel text patching.
start_vm() {
	local logf=$1 smp=$2 mem=$3 append=$4
	shift 4
	timeout --kill-after=10 "$VM_TIMEOUT" \
		qemu-system-x86_64 -accel tcg -smp "$smp" -m "$mem" \
		-nographic -no-reboot -kernel "$KERNEL" -initrd "$OUTDIR/boot.cpio" \
		-append "console=ttyS0 panic=-1 loglevel=5 mitigations=off $append" \
		"$@" </dev/null >"$logf" 2>&1 &
	VM_PID=$!
	VM_PIDS+=("$VM_PID")
}

# Leave no VM behind, whatever ends this script
stop_vms() {
	local pid
	for pid in "${VM_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	rm -f "$OUTDIR"/*.sock
}
VM_PIDS=()
trap stop_vms EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A kernel splat, even in a run whose scenarios passed
KERNEL_TROUBLE='Kernel panic|BUG:|Oops|WARNING:|Call Trace:'
kernel_trouble() {
	tr -d '\r' <"$1" | grep -m1 -E "$KERNEL_TROUBLE" || true
}

append_for() { # ROLE RPCRDMA SCENARIOS SERVER-RPCRDMA
	echo "e2e.role=$1 e2e.rpcrdma=$2 e2e.server_rpcrdma=$4 e2e.scenarios=$(echo "$3" | tr ' ' ,) e2e.timeout=$SCENARIO_TIMEOUT${E2E_APPEND:+ $E2E_APPEND}"
}

# What went wrong with a VM that did not finish, from its console log
vm_trouble() {
	local logf=$1 rc=$2 line
	line=$(tr -d '\r' <"$logf" | grep -m1 -E 'Kernel panic|BUG:|Oops' || true)
	if [ -n "$line" ]; then
		echo "VM crashed: $line"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "VM timed out after ${VM_TIMEOUT}s"
	else
		echo "VM ended before reporting (qemu status $rc)"
	fi
}

show_tail() {
	echo "---- last lines of $1 ----"
	tail -n 25 "$1" | tr -d '\r' | sed 's/^/    /'
	echo "----"
}

# The "REPORT:" lines a scenario printed for a person (the demo's)
show_report() {
	tr -d '\r' <"$1" | sed -n 's/^REPORT: \{0,1\}/    /p'
}

# report RUN SCENARIOS LOG QEMU-STATUS [EXTRA-LOG]: PASS/FAIL lines
report() {
	local run=$1 scenarios=$2 logf=$3 rc=$4 extra=${5:-} s f line trouble=
	show_report "$logf"
	for s in $scenarios; do
		line=$(tr -d '\r' <"$logf" | grep -m1 "^E2E-RESULT $s " || true)
		case "$line" in
		"E2E-RESULT $s PASS"*)
			echo "PASS $run/$s"
			PASSED=$((PASSED + 1)) ;;
		"E2E-RESULT $s FAIL"*)
			echo "FAIL $run/$s: ${line#E2E-RESULT $s FAIL }"
			FAILED=$((FAILED + 1)) ;;
		*)
			[ -n "$trouble" ] || trouble=$(vm_trouble "$logf" "$rc")
			echo "FAIL $run/$s: $trouble"
			FAILED=$((FAILED + 1)) ;;
		esac
	done
	if grep -q 'FAIL' <<<"$(tr -d '\r' <"$logf" | grep '^E2E-RESULT')" || [ -n "$trouble" ]; then
		show_tail "$logf"
	fi
	# (a crash already failed the scenarios above)
	[ -n "$trouble" ] && logf=
	for f in $logf $extra; do
		line=$(kernel_trouble "$f")
		[ -n "$line" ] || continue
		echo "FAIL $run: the kernel reported a problem in ${f##*/}: $line"
		FAILED=$((FAILED + 1))
		# grep reads the file itself: with "tr |" in front, -m1
		# would end tr with SIGPIPE on a long log, and pipefail the run
		grep -m1 -A20 -E "$KERNEL_TROUBLE" "$f" | tr -d '\r' | sed 's/^/    /'
	done
	if [ -n "$extra" ] && ! grep -q '^E2E-SERVER-READY' "$extra"; then
		echo "     the server VM never became ready: $(grep -m1 '^E2E-SERVER-FAILED' "$extra" |
			tr -d '\r' | grep . || echo 'no reason in its log')"
		show_tail "$extra"
	fi
}

run_single() {
	local name=$1 mod=$2 scenarios=$3 logf=$OUTDIR/$1.log pid rc=0
	log "run $name: one VM, rpcrdma=$mod (log $logf)"
	start_vm "$logf" 1 1024 "$(append_for single "$mod" "$scenarios" "$mod")" -nic none
	wait "$VM_PID" || rc=$?
	VM_PIDS=()
	report "$name" "$scenarios" "$logf" "$rc"
}

run_two_host() {
	local name=$1 cmod=$2 smod=$3 scenarios=$4
	local clog=$OUTDIR/$name-client.log slog=$OUTDIR/$name-server.log
	local sock=$OUTDIR/$name.sock spid cpid rc=0 i=0
	log "run $name: client rpcrdma=$cmod, server rpcrdma=$smod (logs $clog, $slog)"
	rm -f "$sock"
	# The VMs' only link: a qemu stream netdev over a Unix socket
	start_vm "$slog" 1 768 "$(append_for server "$smod" "" "$smod")" \
		-nic none -netdev "stream,id=n0,server=on,addr.type=unix,addr.path=$sock" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:01
	spid=$VM_PID
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	start_vm "$clog" 1 768 "$(append_for client "$cmod" "$scenarios" "$smod")" \
		-nic none -netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02
	cpid=$VM_PID
	# A server that crashes leaves the client waiting for it until the
	# VM timeout: stop the client as soon as the server's console says so
	while kill -0 "$cpid" 2>/dev/null; do
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
}

main() {
	local base name topo cmod smod scenarios want=" $* " found=0
	[ -r "$KERNEL" ] || die "no $KERNEL: install linux-image-$KVER (make deps)"
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (make deps)"
	for name in "$@"; do
		grep -qE "^$name[[:space:]]" "${E2E_RUNS_FILE:-$HERE/runs}" ||
			die "no run named '$name' in ${E2E_RUNS_FILE:-$HERE/runs}"
	done
	mkdir -p "$OUTDIR"
	base=$(base_initramfs)
	boot_initramfs "$base"

	while read -r name topo cmod smod scenarios; do
		case "$name" in ''|'#'*) continue ;; esac
		[ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
		found=$((found + 1))
		case "$topo" in
		single)
			[ "$cmod" = "$smod" ] || die "run $name: a single VM has one rpcrdma.ko"
			run_single "$name" "$cmod" "$scenarios" ;;
		two-host)
			run_two_host "$name" "$cmod" "$smod" "$scenarios" ;;
		*) die "run $name: unknown topology '$topo'" ;;
		esac
	done <"${E2E_RUNS_FILE:-$HERE/runs}"
	[ "$found" -gt 0 ] || die "no runs in ${E2E_RUNS_FILE:-$HERE/runs}"
	echo "e2e: $PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

main "$@"
