#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh SECONDS [SEED]: build the fuzzer, seed its corpus from the
# KUnit vectors and run it for SECONDS (with SEED: a fixed-seed run, as
# make check does). Work files in $FUZZ_OUT (default build/fuzz of the
# repository); a crash leaves its input there as crash-*. Prints KTAP:
# one test, the run.

set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
SECONDS_WANTED=${1:?usage: run.sh SECONDS [SEED]}
SEED=${2:-0}
OUT=${FUZZ_OUT:-$TOP/build/fuzz}
# shellcheck source=../ktap.sh
. "$TOP/tools/testing/ktap.sh"

case "$SECONDS_WANTED$SEED" in
*[!0-9]*) echo "run.sh: SECONDS and SEED are numbers" >&2; exit 2 ;;
esac
mkdir -p "$OUT/corpus" "$OUT/seeds"
make -s -C "$HERE"
"$HERE/seeds.py" "$TOP/net/sunrpc/xprtrdma/tests/rpcrdma_cm_kunit.c" "$OUT/seeds"

rc=0
(cd "$OUT" && "$HERE/fuzz_cm" -seed="$SEED" -max_total_time="$SECONDS_WANTED" \
	-max_len=256 -print_final_stats=1 -artifact_prefix="$OUT/" \
	corpus seeds) >"$OUT/fuzz.log" 2>&1 || rc=$?
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$OUT/fuzz.log" || true
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz.log")
ktap_set_plan 1
if [ "$rc" = 0 ]; then
	ktap_print_msg "fuzz: ${execs:-?} executions in ${SECONDS_WANTED}s (seed $SEED), no invariant broken"
	ktap_test_pass "fuzz_cm seed $SEED for ${SECONDS_WANTED}s"
else
	grep -m5 -E 'fuzz_cm:|ERROR: (Address|Undefined)|runtime error' "$OUT/fuzz.log" |
		sed 's/^/# /' || tail -n 20 "$OUT/fuzz.log" | sed 's/^/# /'
	ktap_print_msg "fuzz: the crashing input is in $OUT/crash-*; full log $OUT/fuzz.log"
	ktap_test_fail "fuzz_cm seed $SEED for ${SECONDS_WANTED}s" "an invariant broke or the harness crashed"
	exit 1
fi
