#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-rpcrdma-call.sh [PATH-TO-rpcrdma-call]
#
# Black-box tests of rpcrdma-call that need no RDMA device: every bad
# argument is refused with status 2 and says why, and without a device
# the program fails as "local" or "no-route". What it reports of a real
# server is tested by the qemu scenarios that run it against nfsd
# (server-sizes, server-legacy-client, server-err-chunk in
# tools/testing/nfsrdma). Prints KTAP; exits non-zero on failure.

set -u
CM=${1:-$(dirname "$0")/rpcrdma-call}
. "$(dirname "$0")/../../net/sunrpc/rpcrdma-cm/test-lib.sh"

expect_exit "no host" 2 'give HOST' --
expect_exit "bad port, named by the program alone" 2 "^rpcrdma-call: port '65536': expected 1..65535" \
	-- 192.0.2.1 65536
expect_exit "stray argument" 2 'give HOST' -- 192.0.2.1 20049 x
expect_exit "unknown --proc" 2 "--proc 'getattr': expected readdir, create, null or write" \
	-- 192.0.2.1 --proc getattr
expect_exit "--reply-size over 1 MiB" 2 "--reply-size '1025K': expected 0..1048576" \
	-- 192.0.2.1 --reply-size 1025K
expect_exit "--reply-size not a size" 2 'expected a number of bytes' \
	-- 192.0.2.1 --reply-size 4KB
expect_exit "--reply-size with --proc null" 2 'applies to --proc readdir and create only' \
	-- 192.0.2.1 --proc null --reply-size 4K
expect_exit "--post-size 0" 2 "--post-size '0': expected 1..1048576" \
	-- 192.0.2.1 --post-size 0
expect_exit "--post-size over 1 MiB" 2 "--post-size '1048577': expected 1..1048576" \
	-- 192.0.2.1 --post-size 1048577
expect_exit "--reply-chunk 0" 2 "--reply-chunk '0': expected 1..128 segments" \
	-- 192.0.2.1 --reply-chunk 0
expect_exit "--reply-chunk over 128" 2 "--reply-chunk '129': expected 1..128 segments" \
	-- 192.0.2.1 --reply-chunk 129
expect_exit "--reply-chunk not a number" 2 'expected a whole number' \
	-- 192.0.2.1 --reply-chunk many
expect_exit "--reply-chunk with R set" 2 'needs --no-remote-invalidate' \
	-- 192.0.2.1 --reply-chunk 4
expect_exit "--read-chunks 0" 2 "--read-chunks '0': expected 1..16 chunks" \
	-- 192.0.2.1 --proc null --none --read-chunks 0
expect_exit "--read-chunks over 16" 2 "--read-chunks '17': expected 1..16 chunks" \
	-- 192.0.2.1 --proc null --none --read-chunks 17
expect_exit "--read-chunks with --proc readdir" 2 'apply to --proc null only' \
	-- 192.0.2.1 --none --read-chunks 2
expect_exit "--read-chunks with R set" 2 'needs --no-remote-invalidate' \
	-- 192.0.2.1 --proc null --read-chunks 2
expect_exit "--inline-pad not a multiple of 4" 2 "--inline-pad '6': expected 0..262144 octets, a multiple of 4" \
	-- 192.0.2.1 --proc null --inline-pad 6
expect_exit "--inline-pad over 256 KiB" 2 "--inline-pad '262148': expected 0..262144 octets" \
	-- 192.0.2.1 --proc null --inline-pad 262148
expect_exit "--rdma-version negative" 2 "--rdma-version '-1': expected 0..4294967295" \
	-- 192.0.2.1 --proc null --rdma-version -1
expect_exit "--rdma-version over 32 bits" 2 "--rdma-version '4294967296': expected 0..4294967295" \
	-- 192.0.2.1 --proc null --rdma-version 4294967296
expect_exit "--rdma-proc not a number" 2 "--rdma-proc 'x': expected 0..4294967295" \
	-- 192.0.2.1 --proc null --rdma-proc x
expect_exit "--read-skew without --read-chunks" 2 'apply to --read-chunks only' \
	-- 192.0.2.1 --proc null --none --read-skew 4
expect_exit "--read-skew 0" 2 "--read-skew '0': expected -65536..65536 octets, not 0" \
	-- 192.0.2.1 --proc null --none --read-chunks 1 --read-skew 0
expect_exit "--read-skew over 64 KiB" 2 "--read-skew '65537': expected -65536..65536 octets, not 0" \
	-- 192.0.2.1 --proc null --none --read-chunks 1 --read-skew 65537
expect_exit "--read-chunk-len over 64" 2 "--read-chunk-len '65': expected 1..64 octets" \
	-- 192.0.2.1 --proc null --none --read-chunks 1 --read-chunk-len 65
expect_exit "--pzrc with --read-chunks" 2 'goes without --read-chunks' \
	-- 192.0.2.1 --proc null --none --pzrc --read-chunks 1
expect_exit "--pzrc with R set" 2 '--pzrc needs --no-remote-invalidate' \
	-- 192.0.2.1 --proc null --pzrc
expect_exit "--write 0" 2 "--write '0': expected 1..262144 octets" \
	-- 192.0.2.1 --proc write --write 0
expect_exit "--write over 256 KiB" 2 "--write '262145': expected 1..262144 octets" \
	-- 192.0.2.1 --proc write --write 262145
expect_exit "--lookups over 23" 2 "--lookups '24': expected 0..23 pairs" \
	-- 192.0.2.1 --proc write --lookups 24
expect_exit "--lookups not a number" 2 'expected a whole number' \
	-- 192.0.2.1 --proc write --lookups some
expect_exit "--write with --proc null" 2 'apply to --proc write only' \
	-- 192.0.2.1 --proc null --write 100
expect_exit "--lookups with --proc readdir" 2 'apply to --proc write only' \
	-- 192.0.2.1 --lookups 0
expect_exit "--reply-size with --proc write" 2 'applies to --proc readdir and create only' \
	-- 192.0.2.1 --proc write --reply-size 4K
expect_exit "--none with --recv" 2 'only one of' -- 192.0.2.1 --none --recv 64K
expect_exit "--raw over 56 octets" 2 'at most 56' -- 192.0.2.1 --raw "$(zeros 57)"
expect_exit "--timeout 0" 2 'at least 1 second' -- 192.0.2.1 --timeout 0
expect_exit "--count 0" 2 'takes 1..1024' -- 192.0.2.1 --count 0
expect_exit "--count over 1024" 2 'takes 1..1024' -- 192.0.2.1 --count 1025
expect_exit "--write-copy with --count" 2 'goes with one connection' \
	-- 192.0.2.1 --proc write --write-copy /dev/null --count 2
expect_exit "--hold not a number" 2 'expected a whole number' -- 192.0.2.1 --hold soon
no_device_case "no RDMA device" 192.0.2.1 --timeout 2
fd_limit_case "--count beyond the hard limit on open files" 100 \
	'100 connections need about 216 open files; the limit is 100' -- 192.0.2.1 --count 100
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	fd_limit_case "--count raises the soft limit on open files" 1024 \
		'cannot open the RDMA CM' -- 192.0.2.1 --count 100 --timeout 2
else
	ktap_test_skip "--count raises the soft limit on open files" "this host has an RDMA device"
fi
if "$CM" --help | tr '\n' ' ' | grep -q 'HOST \[PORT\].*--proc readdir|create|null|write'; then
	ktap_test_pass "--help describes the options"
else
	ktap_test_fail "--help describes the options" "no synopsis with --proc"
fi

ktap_finished rpcrdma-call
