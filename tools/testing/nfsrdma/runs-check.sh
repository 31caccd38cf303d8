#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runs-check.sh: every scenario (scenarios/*.sh) is run somewhere. A
# scenario is listed when a runs file beside this script (runs,
# *.runs) names it, or when bench/bench.sh or bench/scale.sh, which
# write their runs files as they go, name it in one of the run lines
# they echo. Prints KTAP:
# one case per scenario, "not ok" for one that nothing runs, and one
# case per name a runs file gives that has no scenario file.

. "$(dirname "$0")/../../../scripts/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)

# listed: the scenario names of every run line, one a line
listed() {
	awk '!/^#/ && NF > 4 { for (i = 5; i <= NF; i++) print $i }' \
		"$HERE/runs" "$HERE"/*.runs
	# bench.sh's lines: echo "NAME TOPOLOGY CLIENT SERVER SCENARIO..."
	sed -n 's/.*echo "\([^"$]*\)".*/\1/p' "$HERE/bench/bench.sh" "$HERE/bench/scale.sh" |
		awk '$2 ~ /^(single|two-host)(\/siw)?$/ && NF > 4 { for (i = 5; i <= NF; i++) print $i }'
}

names=$(listed | sort -u)
files=$(cd "$HERE/scenarios" && ls -- *.sh | sed 's/\.sh$//' | sort)
ktap_set_plan "$(( $(wc -w <<<"$files") + $(comm -23 <(echo "$names") <(echo "$files") | grep -c .) ))"
for s in $files; do
	if grep -qx -- "$s" <<<"$names"; then
		ktap_test_pass "scenario $s" "in a runs file"
	else
		ktap_test_fail "scenario $s" "no runs file names it, so nothing runs it"
	fi
done
for s in $(comm -23 <(echo "$names") <(echo "$files")); do
	ktap_test_fail "run of $s" "a runs file names it, but there is no scenarios/$s.sh"
done
ktap_finished runs-check
