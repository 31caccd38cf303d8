# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The helpers of the black-box tests of rpcrdma-cm and rpcrdma-call
# (tools/testing/rpcrdma-call): source it with CM set to the program
# under test, make the checks, then call ktap_finished WHO. Each check
# is a KTAP case (tools/testing/ktap.sh prints them); the plan comes
# last, since the count depends on the examples.

# shellcheck source=../../../testing/ktap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../testing/ktap.sh"

# JSON field of the decode object in $1 (nested with dots: peer.found)
jfield() {
	python3 -c '
import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2].split("."):
    v = v[k]
print(json.dumps(v))' "$1" "$2" 2>/dev/null || echo "<no ${2} in: $1>"
}

# expect_json NAME 'field=value ...' -- ARGS...
expect_json() {
	local name=$1 want=$2 out f got rc bad=
	shift 3
	out=$("$CM" --json "$@" 2>/dev/null)
	rc=$?
	if [ "$rc" != 0 ]; then
		ktap_test_fail "$name" "exit status $rc for: $(basename "$CM") --json $*"
		return
	fi
	for f in $want; do
		got=$(jfield "$out" "${f%%=*}")
		[ "$got" = "${f#*=}" ] || bad+="${f%%=*}: want ${f#*=}, got $got; "
	done
	if [ -n "$bad" ]; then ktap_test_fail "$name" "$bad"; else ktap_test_pass "$name"; fi
}

# expect_exit NAME CODE PATTERN -- ARGS...: exit code and a stderr match
expect_exit() {
	local name=$1 code=$2 pattern=$3 err rc
	shift 4
	if [ "${*: -1}" = ">/dev/full" ]; then
		err=$("$CM" "${@:1:$#-1}" 2>&1 >/dev/full)
	else
		err=$("$CM" "$@" 2>&1 >/dev/null)
	fi
	rc=$?
	if [ "$rc" != "$code" ]; then
		ktap_test_fail "$name" "exit $rc, want $code: $(basename "$CM") $*"
	elif ! grep -qiE -- "$pattern" <<<"$err"; then
		ktap_test_fail "$name" "stderr lacks /$pattern/: $err"
	else
		ktap_test_pass "$name"
	fi
}

# expect_out NAME EXPECTED -- ARGS...: exact standard output
expect_out() {
	local name=$1 want=$2 got
	shift 3
	got=$("$CM" "$@" 2>/dev/null)
	if [ "$got" = "$want" ]; then ktap_test_pass "$name"; else ktap_test_fail "$name" "want '$want', got '$got'"; fi
}

zeros() { printf '00%.0s' $(seq "$1"); }

# no_device_case NAME ARGS...: without an RDMA device the program fails
# as "local" (7: no RDMA CM at all) or "no-route" (3: the CM is there,
# no device has the address); on a host with a device it may reach
# something, and the case does not apply
# fd_limit_case NAME HARD PATTERN -- ARGS...: under a soft limit of 50
# open files and a hard one of HARD, exit 7 with PATTERN on stderr:
# --count's descriptors are checked, and the soft limit raised, before
# any RDMA device is opened
fd_limit_case() {
	local name=$1 hard=$2 pattern=$3 err rc=0
	shift 4
	err=$( (ulimit -Sn 50 && ulimit -Hn "$hard" && exec "$CM" "$@") 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 7 ]; then
		ktap_test_fail "$name" "exit $rc, want 7: $(basename "$CM") $*"
	elif ! grep -qiE -- "$pattern" <<<"$err"; then
		ktap_test_fail "$name" "stderr lacks /$pattern/: $err"
	else
		ktap_test_pass "$name"
	fi
}

no_device_case() {
	local name=$1 out rc got
	shift
	if ls /sys/class/infiniband/* >/dev/null 2>&1; then
		ktap_test_skip "$name" "this host has an RDMA device"
		return
	fi
	out=$("$CM" --json "$@" 2>/dev/null)
	rc=$?
	got=$(jfield "$out" error)
	case "$rc:$got" in
	7:'"local"'|3:'"no-route"') ktap_test_pass "$name" ;;
	*) ktap_test_fail "$name" "exit $rc, error $got, want 7 local or 3 no-route" ;;
	esac
}
