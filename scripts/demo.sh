#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: make demo. One VM boots Debian's 6.12 kernel with this
# series' rpcrdma.ko on both ends (tools/testing/nfsrdma/demo.runs) and
# mounts over soft-RoCE. What a person reads comes first: the report the
# demo scenario wrote (what each end advertised, what each end
# negotiated, what the workload showed), then one line, "demo: passed"
# or "demo: FAILED: WHY". The run's KTAP goes to build/demo/demo.ktap,
# which make check's fresh-root step reads; the VM's console is
# build/e2e/6.12/demo.log. Progress goes to standard error.

. "$(dirname "$0")/lib.sh"

DEMO_OUT=$BUILD/demo
KTAP=$DEMO_OUT/demo.ktap
CONSOLE=$BUILD/e2e/${E2E_KERNEL:-6.12}/demo.log
mkdir -p "$DEMO_OUT"
rm -f "$KTAP" "$CONSOLE"

rc=0
E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/demo.runs "$TOP/scripts/e2e.sh" demo >"$KTAP" || rc=$?

echo
if [ -s "$CONSOLE" ]; then
	tr -d '\r' <"$CONSOLE" | sed -n 's/^REPORT: \{0,1\}//p'
else
	echo "(the VM left no console log)"
fi
echo

read -r passed skipped failed complete < <(awk -f "$TOP/scripts/ktap-count.awk" "$KTAP")
if [ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$complete" = 1 ] && [ "$passed" -gt 0 ]; then
	echo "demo: passed ($passed checks; KTAP in ${KTAP#"$TOP"/})"
	exit 0
fi
why=$(grep -m1 -E '^ *not ok [0-9]+ ' "$KTAP" | sed -E 's/^ *not ok [0-9]+ //' || true)
[ -n "$why" ] || why="the run ended early (exit status $rc, $passed passed, $skipped skipped)"
echo "demo: FAILED: $why (KTAP in ${KTAP#"$TOP"/}, console in ${CONSOLE#"$TOP"/})"
exit 1
