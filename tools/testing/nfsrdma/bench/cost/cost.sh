#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cost.sh --cost|--cost-quick OUTDIR: the cost mode of the benchmark
# (bench.sh --cost): the bench workload in one VM under qemu's -icount,
# with insn-count.so counting the instructions each step executes, by
# granule of the guest's modules' area; then cost.py turns the counts into
# instructions per RPC by layer (OUTDIR/cost.md, cost.csv) and checks
# them (the gate).
#
# Environment: as run.sh, set by scripts/bench.sh; COST_RUNS: how many
# boots (default 1; the report compares them as it compares repeats);
# COST_SHIFT: count the modules' code by 1 << COST_SHIFT octets (4, the
# default, tells their functions apart; 12 counts by page);
# COST_NCONNECT: the measured mount's connections (nconnect; default 1).

set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "$0")" && pwd)
MODE=${1#--}
OUTDIR=$2
: "${E2E_OUT:?}"
[ "$(uname -m)" = x86_64 ] || { echo "cost.sh: x86-64 guests only" >&2; exit 2; }
make -s -C "$HERE"
mkdir -p "$E2E_OUT" "$OUTDIR"

# shellcheck source=../../../ktap.sh
. "$HERE/../../../ktap.sh"
boots=${COST_RUNS:-1}
ktap_set_plan $((boots + 1))
logs=()
for b in $(seq 1 "$boots"); do
	runs=$E2E_OUT/cost-$b.runs
	printf '# NAME TOPOLOGY CLIENT SERVER SCENARIOS\ncost-%s single ours ours bench\n' "$b" >"$runs"
	counts=$E2E_OUT/cost-$b.counts
	rm -f "$counts"
	start=$(date +%s)
	rc=0
	# -icount shift=0: the guest's clock advances 1 ns per instruction
	# executed; sleep=off: an idle guest's clock jumps to its next timer
	# at once instead of waiting for the host's. The RTC starts at a
	# fixed date and KASLR is off, so that boots begin alike.
	E2E_RUNS_FILE=$runs E2E_APPEND="e2e.bench=$MODE nokaslr${COST_NCONNECT:+ e2e.nconnect=$COST_NCONNECT}" \
	E2E_QEMU_ARGS="-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm -plugin $HERE/insn-count.so,out=$counts,shift=${COST_SHIFT:-4}" \
	E2E_GUEST_BIN=$HERE/mark \
	E2E_SCENARIO_TIMEOUT=${E2E_SCENARIO_TIMEOUT:-5400} E2E_VM_TIMEOUT=${E2E_VM_TIMEOUT:-6000} \
		"$HERE/../../run.sh" 2>&1 | sed 's/^/  /' || rc=$?
	ktap_print_msg "cost: boot $b took $(($(date +%s) - start)) s"
	if [ "$rc" != 0 ]; then
		ktap_test_fail "workload-$b" "it failed (logs in $E2E_OUT)"
		for b in $(seq $((b + 1)) "$boots"); do
			ktap_test_skip "workload-$b" "an earlier boot failed"
		done
		ktap_test_skip report "no workload to report on"
		exit 1
	fi
	ktap_test_pass "workload-$b"
	logs+=("$E2E_OUT/cost-$b.log" "$counts")
done
rc=0
gate=()
[ "$MODE" != cost ] || gate=(--gate)
"$HERE/cost.py" --mode "$MODE" "${gate[@]}" "$OUTDIR" "${logs[@]}" 2>&1 | sed 's/^/  /' || rc=$?
if [ "$rc" = 0 ]; then
	ktap_test_pass report
else
	ktap_test_fail report "the gate failed, or the counts are not what the guest sent"
	exit 1
fi
