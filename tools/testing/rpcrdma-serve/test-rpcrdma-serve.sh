#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-rpcrdma-serve.sh [PATH-TO-rpcrdma-serve]
#
# Black-box tests of rpcrdma-serve that need no RDMA device: every bad
# argument is refused with status 2 and says why, and without a device
# the program fails as "local". What it does to a real client is tested
# by the qemu scenarios that mount the kernel's NFS client on it
# (client-dup-reply, client-reply-flush in tools/testing/nfsrdma).
# Prints KTAP; exits non-zero on failure.

set -u
CM=${1:-$(dirname "$0")/rpcrdma-serve}
. "$(dirname "$0")/../../net/sunrpc/rpcrdma-cm/test-lib.sh"

expect_exit "bad port" 2 "^rpcrdma-serve: port '65536': expected 1..65535" -- 65536
expect_exit "port not a number" 2 "port 'nfs': expected 1..65535" -- nfs
expect_exit "stray argument" 2 "unexpected argument 'x'" -- 20049 x
expect_exit "unknown option" 2 "unknown option '--thrice'" -- --thrice
expect_exit "option of another program" 2 "'--hold' does not apply" -- --hold 1
expect_exit "--twice and --disconnect-after-reply" 2 'only one of --twice, --disconnect-after-reply, --break-after-reply and --error' \
	-- --twice --disconnect-after-reply
expect_exit "--break-after-reply and --twice" 2 'only one of' -- --break-after-reply --twice
expect_exit "--twice and --error" 2 'only one of' -- --error chunk --twice
expect_exit "--error of no such kind" 2 "--error 'len': expected vers or chunk" -- --error len
expect_exit "--times 0" 2 '--times must be at least 1' -- --twice --times 0
expect_exit "--times not a number" 2 'expected a whole number' -- --twice --times few
expect_exit "--times alone" 2 '--times applies to --twice' -- --times 3
expect_exit "--after over 1000" 2 "--after '1001': expected 0..1000" -- --twice --after 1001
expect_exit "--after alone" 2 '--after applies to --twice' -- --after 1
expect_exit "--compound alone" 2 '--compound applies to --twice, --disconnect-after-reply and --break-after-reply' \
	-- --compound delay
expect_exit "--compound with --error" 2 '--compound and --error exclude each other' \
	-- --error chunk --compound delay
expect_exit "--compound 0" 2 "--compound '0': expected delay, resource" -- --twice --compound 0
expect_exit "--compound of no such name" 2 "--compound 'later': expected delay" -- --twice --compound later
expect_exit "--credits 0" 2 "--credits '0': expected 1..32" -- --credits 0
expect_exit "--credits over 32" 2 "--credits '33': expected 1..32" -- --credits 33
expect_exit "--count 0" 2 '--count must be at least 1' -- --count 0
expect_exit "--timeout 0" 2 'at least 1 second' -- --timeout 0
expect_exit "--none with --send" 2 'only one of' -- --none --send 1K
expect_exit "--raw over 196 octets" 2 'at most 196' -- --raw "$(zeros 197)"
expect_exit "--send not a size" 2 'expected a number of bytes' -- --send 1KB
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	ktap_test_skip "no RDMA device" "this host has an RDMA device"
else
	out=$("$CM" --json 20049 --timeout 2 --twice 2>/dev/null)
	rc=$?
	got=$(jfield "$out" error)
	# No RDMA CM at all: local (7); the CM without a device listens on
	# nothing, and nobody connects before --timeout (6)
	case "$rc:$got" in
	7:'"local"'|6:'"timeout"') ktap_test_pass "no RDMA device" ;;
	*) ktap_test_fail "no RDMA device" "exit $rc, error $got, want 7 local or 6 timeout" ;;
	esac
fi
if "$CM" --help | tr '\n' ' ' | grep -q -- '--twice | --disconnect-after-reply | --break-after-reply | *--error vers|chunk'; then
	ktap_test_pass "--help describes the options"
else
	ktap_test_fail "--help describes the options" "no synopsis with --twice"
fi
if "$CM" --version | grep -q '^rpcrdma-serve '; then
	ktap_test_pass "--version"
else
	ktap_test_fail "--version" "no version line"
fi

ktap_finished rpcrdma-serve
