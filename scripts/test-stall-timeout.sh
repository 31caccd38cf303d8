#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hang guard make check's builds run under (scripts/stall-timeout):
# it ends a command that uses no CPU, never one that is only starved or
# stopped, and passes exit statuses and signals through. Prints KTAP
# (make check's step stall-timeout-test). About 60 s, most of it
# waiting; one case keeps every core busy for 20 s.

. "$(dirname "$0")/lib.sh"

ST=$TOP/scripts/stall-timeout
ERR=$(mktemp)
HOGS=()
cleanup() {
	local p
	for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -f "$ERR"
}
trap cleanup EXIT

# expect NAME WANT-STATUS WANT-STDERR-RE CMD...: run CMD, check its exit
# status and that its standard error matches WANT-STDERR-RE ("" for
# nothing at all)
expect() {
	local name=$1 want=$2 re=$3 rc=0
	shift 3
	"$@" 2>"$ERR" || rc=$?
	if [ "$rc" != "$want" ]; then
		ktap_not_ok "$name" "exit status $rc, not $want: $(head -c 200 "$ERR")"
	elif [ -z "$re" ] && [ -s "$ERR" ]; then
		ktap_not_ok "$name" "unexpected output: $(head -c 200 "$ERR")"
	elif [ -n "$re" ] && ! grep -qE -- "$re" "$ERR"; then
		ktap_not_ok "$name" "no /$re/ in: $(head -c 200 "$ERR")"
	else
		ktap_ok "$name"
	fi
}

# A loop that needs about a second of CPU time, however long it waits
# for it
BUSY='i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done'

ktap_plan 9
expect "the command's exit status passes through" 7 "" "$ST" 5 sh -c 'exit 7'
expect "a command that uses no CPU is ended (124)" 124 \
	'^stall-timeout: sleep 30: no CPU time used for 2 s, ended$' "$ST" 2 sleep 30
expect "a command that uses CPU now and then is not" 0 "" \
	"$ST" 4 sh -c "sleep 2; $BUSY; sleep 2; $BUSY"

# Starved: at nice 19 beside one busy process per core at nice 0, the
# loop gets a sliver of CPU for as long as they run, and must not be
# ended for it
for _ in $(seq "$(nproc)"); do
	timeout 20 sh -c 'while :; do :; done' &
	HOGS+=($!)
done
t0=$SECONDS
expect "a starved command at nice 19 is not ended" 0 "" nice -n 19 "$ST" 3 sh -c "$BUSY"
echo "# the starved loop took $((SECONDS - t0)) s"
wait "${HOGS[@]}" 2>/dev/null || true
HOGS=()

expect "a stopped command is not ended" 0 "" bash -c "
	'$ST' 4 sleep 13 & p=\$!
	sleep 1; pkill -STOP -P \$p -x sleep
	sleep 10; pkill -CONT -P \$p -x sleep
	wait \$p"
expect "--wall ends a command that spins (124)" 124 \
	'still running after 2 s \(--wall\), ended$' "$ST" --wall 2 60 sh -c 'while :; do :; done'

# A TERM to stall-timeout alone reaches its whole tree, and it dies of it
rc=0
bash -c "'$ST' 60 sh -c 'sleep 41 & sleep 42' & p=\$!; sleep 1; kill -TERM \$p; wait \$p" || rc=$?
sleep 0.5
left=$(pgrep -f '^sleep 4[12]$' || true)
if [ "$rc" = 143 ] && [ -z "$left" ]; then
	ktap_ok "TERM reaches the whole tree, and ends stall-timeout as it ended the command"
else
	ktap_not_ok "TERM reaches the whole tree, and ends stall-timeout as it ended the command" \
		"exit status $rc (want 143), still running: ${left:-none}"
	pkill -f '^sleep 4[12]$' || true
fi

expect "a command not found is 127" 127 'stall-timeout: /nonexistent: ' "$ST" 2 /nonexistent
expect "a bad limit is a usage error (125)" 125 '^usage: ' "$ST" 0 true
ktap_finish stall-timeout-test
