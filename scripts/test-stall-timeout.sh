#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hang guard make check's builds run under (scripts/stall-timeout):
# it ends a command that uses no CPU, never one that is only starved or
# stopped, and passes exit statuses and signals through. Prints KTAP
# (make check's step stall-timeout-test). About 90 s, most of it
# waiting; one case keeps every core busy for 30 s. Each case has a
# limit of its own (timeout(1), far above what it takes), so that a
# broken guard fails its case rather than hanging make check.

. "$(dirname "$0")/lib.sh"

ST=$TOP/scripts/stall-timeout
ERR=$(mktemp)
DIED=$(mktemp)
HOGS=()
cleanup() {
	local p
	for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -f "$ERR" "$DIED"
}
trap cleanup EXIT

# expect NAME WANT-STATUS WANT-STDERR-RE CMD...: run CMD, check its exit
# status and that its standard error matches WANT-STDERR-RE ("" for
# nothing at all)
expect() {
	local name=$1 want=$2 re=$3 rc=0
	shift 3
	timeout -k 5 120 "$@" 2>"$ERR" || rc=$?
	if [ "$rc" != "$want" ]; then
		ktap_test_fail "$name" "exit status $rc, not $want: $(head -c 200 "$ERR")"
	elif [ -z "$re" ] && [ -s "$ERR" ]; then
		ktap_test_fail "$name" "unexpected output: $(head -c 200 "$ERR")"
	elif [ -n "$re" ] && ! grep -qE -- "$re" "$ERR"; then
		ktap_test_fail "$name" "no /$re/ in: $(head -c 200 "$ERR")"
	else
		ktap_test_pass "$name"
	fi
}

# ended_all NAME STATUS WANT-STATUS PATTERN: the verdict on a case that
# must end with WANT-STATUS and leave no process whose command line
# matches PATTERN (left ones are killed, for the next case)
ended_all() {
	local left
	left=$(pgrep -f "$4" || true)
	if [ "$2" = "$3" ] && [ -z "$left" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "exit status $2 (want $3), still running: ${left:-none}"
		pkill -f "$4" || true
	fi
}

# A loop that needs about a second of CPU time, however long it waits
# for it
BUSY='i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done'

ktap_set_plan 12
expect "the command's exit status passes through" 7 "" "$ST" 5 sh -c 'exit 7'
expect "a command that uses no CPU is ended (124)" 124 \
	'^stall-timeout: sleep 30: no CPU time used for 2 s, ended$' "$ST" 2 sleep 30
# The CPU is used by a grandchild only: the whole tree counts
expect "a command whose tree uses CPU now and then is not" 0 "" \
	"$ST" 4 sh -c "sh -c 'sleep 3; $BUSY; sleep 3; $BUSY; sleep 3; $BUSY'; :"

# Starved: at nice 19 beside one busy process per core at nice 0, the
# loop gets a sliver of CPU for as long as they run, and must not be
# ended for it. A limit of three polls, so that one poll's sliver (a
# tick or more in 5 s even with a few more busy processes) is enough.
for _ in $(seq "$(nproc)"); do
	timeout 30 sh -c 'while :; do :; done' &
	HOGS+=($!)
done
t0=$SECONDS
expect "a starved command at nice 19 is not ended" 0 "" nice -n 19 "$ST" 15 sh -c "$BUSY"
echo "# the starved loop took $((SECONDS - t0)) s"
wait "${HOGS[@]}" 2>/dev/null || true
HOGS=()

# Stopped for three times the limit, then continued: it ends at once
expect "a stopped command is not ended" 0 "" bash -c "
	'$ST' 4 sh -c 'kill -STOP \$\$' & p=\$!
	until grep -q '^State:.*T' /proc/\$(pgrep -P \$p -x sh)/status 2>/dev/null; do
		sleep 0.2
	done
	sleep 12; pkill -CONT -P \$p -x sh
	wait \$p"
expect "--wall ends a command that spins (124)" 124 \
	'still running after 2 s \(--wall\), ended$' "$ST" --wall 2 60 sh -c 'while :; do :; done'

# python3 $DIED SIG CMD...: run CMD; exit 0 if a signal SIG ended it
# (bash's $? cannot tell that from an exit with 128+SIG), else 1
printf '%s\n' 'import subprocess, sys' \
	'sys.exit(subprocess.run(sys.argv[2:]).returncode != -int(sys.argv[1]))' >"$DIED"

# A TERM to stall-timeout alone reaches its whole tree two seconds
# later, and stall-timeout dies of it as the command did
tag=$$
rc=0
timeout -k 5 120 bash -c "
	python3 '$DIED' 15 '$ST' 60 sh -c 'sleep 41.$tag & sleep 42.$tag' & p=\$!
	until pgrep -f '^sleep 42\.$tag\$' >/dev/null; do sleep 0.1; done
	kill -TERM \$(pgrep -P \$p -f stall-timeout)
	wait \$p" || rc=$?
ended_all "TERM reaches the whole tree, and ends stall-timeout as it ended the command" \
	"$rc" 0 "^sleep 4[12]\.$tag\$"
expect "a command killed by SIGKILL: stall-timeout too, without a traceback" 0 "" \
	python3 "$DIED" 9 "$ST" 5 sh -c 'kill -KILL $$'
# A process that outlives its parent is still the guard's: its CPU time
# counts, and it is ended with the command
expect "an orphan's CPU time counts" 0 "" "$ST" 4 sh -c "(sh -c '$BUSY' &); sleep 7"
rc=0
timeout -k 5 120 "$ST" 2 sh -c "(sleep 31.$tag &); sleep 32.$tag" 2>"$ERR" || rc=$?
ended_all "an orphan of the command is ended with it" "$rc" 124 "^sleep 3[12]\.$tag\$"
expect "a command not found is 127" 127 'stall-timeout: /nonexistent: ' "$ST" 2 /nonexistent
expect "a bad limit is a usage error (125)" 125 '^usage: ' "$ST" 0 true
ktap_finished stall-timeout-test
