#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-rpcrdma-cm.sh [PATH-TO-rpcrdma-cm]
#
# Black-box tests of the rpcrdma-cm command: the RFC 8797 examples,
# the JSON contract scripts depend on, and the handling of bad input.
# Prints KTAP (test-lib.sh), its plan at the end; exits non-zero on
# failure. rpcrdma-call has its own (tools/testing/rpcrdma-call).

set -u
CM=${1:-$(dirname "$0")/rpcrdma-cm}
. "$(dirname "$0")/test-lib.sh"


# --- decode: the examples every RFC 8797 reader must get right ---
expect_json "decode: version 1 message at offset 0" \
	'found=true offset=0 version=1 remote_inv=true send_size=4096 recv_size=16384' \
	-- decode f6ab0e18 01 01 03 0f
expect_json "decode: same message at offset 5 of 56 octets" \
	'found=true offset=5 version=1 remote_inv=true send_size=4096 recv_size=16384 length=56' \
	-- decode deadbeef00 f6ab0e18 01 01 03 0f "$(zeros 43)"
expect_json "decode: version 2 is not usable" \
	'found=false offset=0 version=2 remote_inv=false send_size=1024 recv_size=1024 status="bad-version"' \
	-- decode f6ab0e18 02 01 03 0f
expect_json "decode: 6 octets are truncated" \
	'found=false offset=0 version=null send_size=1024 recv_size=1024 status="truncated"' \
	-- decode f6ab0e18 01 01
expect_json "decode: no identifier means RFC defaults" \
	'found=false offset=null version=null remote_inv=false send_size=1024 recv_size=1024 status="absent"' \
	-- decode 0102030405060708
expect_json "decode: stock server's padded 196-octet accept data" \
	'found=true offset=0 remote_inv=false send_size=4096 recv_size=4096 length=196' \
	-- decode f6ab0e18 01 00 03 03 "$(zeros 188)"
expect_json "decode: reserved bits are ignored" \
	'found=true remote_inv=false send_size=8192' \
	-- decode f6ab0e18 01 fe 07 07
expect_json "decode: a version 2 message does not hide a version 1 one" \
	'found=true offset=8 version=1 send_size=16384' \
	-- decode f6ab0e18 02 00 00 00 f6ab0e18 01 01 0f 0f
expect_json "decode: empty buffer" \
	'found=false status="absent" length=0' -- decode ""
expect_json "decode: colons and 0x prefixes" \
	'found=true offset=1 send_size=262144 recv_size=1024' \
	-- decode 0x00f6:ab:0e:18 01:00:ff:00
expect_json "decode: 256 octets with the message at the very end" \
	'found=true offset=248' -- decode "$(zeros 248)" f6ab0e1801010000
expect_json "decode: identifier cut by the end" \
	'found=false offset=null' -- decode 0000f6ab0e
# text output: one "key: value" line per field
text_field() { "$CM" "${@:2}" 2>/dev/null | sed -n "s/^$1: *//p"; }
got=$(text_field status decode f6ab0e180101)
if [ "$got" = truncated ]; then ktap_test_pass "decode: text output names the status"
else ktap_test_fail "decode: text output names the status" "status: '$got'"; fi
got=$(text_field send_size decode f6ab0e18 01 01 03 0f)
if [ "$got" = 4096 ]; then ktap_test_pass "decode: text output of a valid message"
else ktap_test_fail "decode: text output of a valid message" "send_size: '$got'"; fi
got=$(text_field server_to_client negotiate --role client --send 8K --recv 2K --peer f6ab0e1801010f0f)
if [ "$got" = 2048 ]; then ktap_test_pass "negotiate: text output"
else ktap_test_fail "negotiate: text output" "server_to_client: '$got'"; fi

# --- encode ---
expect_out "encode: 4 KiB / 16 KiB with R" "f6ab0e18 01 01 03 0f" \
	-- encode --send 4096 --recv 16K
expect_out "encode: without R" "f6ab0e18 01 00 00 ff" \
	-- encode --send 1024 --recv 262144 --no-remote-invalidate
expect_json "encode: JSON" \
	'hex="f6ab0e1801010707" send_size=8192 recv_size=8192 remote_inv=true adjusted=false' \
	-- encode --send 8192 --recv 8192
expect_json "encode: too small clamps up" \
	'hex="f6ab0e1801010000" send_size=1024 adjusted=true' -- encode --send 10 --recv 0
expect_json "encode: too large clamps down, never wraps" \
	'hex="f6ab0e180101ffff" send_size=262144 recv_size=262144 adjusted=true' \
	-- encode --send 263168 --recv 99999999999999999999
expect_json "encode: rounds down to a multiple of 1024" \
	'hex="f6ab0e1801010203" send_size=3072 recv_size=4096' -- encode --send 4095 --recv 4097
expect_exit "encode: clamping warns" 0 'above the RFC 8797 maximum' \
	-- encode --send 300K --recv 4096
expect_exit "encode: rounding warns" 0 'not a multiple of 1024' \
	-- encode --send 5000 --recv 4096
out=$("$CM" encode --send 4096 --recv 8192 2>/dev/null)
expect_json "encode output decodes back" \
	'found=true send_size=4096 recv_size=8192 remote_inv=true' -- decode $out

# --- negotiate ---
expect_json "negotiate: client with a legacy server" \
	'client_to_server=1024 server_to_client=1024 send_with_inv=false peer.found=false' \
	-- negotiate --role client --send 16K --recv 16K --peer none
expect_json "negotiate: client with a stock 4 KiB server" \
	'client_to_server=4096 server_to_client=4096 send_with_inv=false' \
	-- negotiate --role client --send 16K --recv 16K --peer f6ab0e1801000303
expect_json "negotiate: server uses the client's Receive Size" \
	'client_to_server=8192 server_to_client=2048 send_with_inv=true' \
	-- negotiate --role server --send 16K --recv 16K --peer f6ab0e1801010701
expect_json "negotiate: server without R" \
	'send_with_inv=false' \
	-- negotiate --role server --send 4K --recv 4K --no-remote-invalidate --peer f6ab0e1801010303
expect_json "negotiate: peer with bad version gets defaults" \
	'client_to_server=1024 server_to_client=1024 peer.status="bad-version"' \
	-- negotiate --role server --send 4K --recv 4K --peer f6ab0e1802010303

# --- bad arguments: a clear message and exit code 2 ---
expect_exit "no command" 2 'no command' --
expect_exit "unknown command" 2 "unknown command 'frobnicate'" -- frobnicate
expect_exit "decode: no input" 2 'give the Private Data' -- decode
expect_exit "decode: not hex" 2 "'g' is not a hex digit" -- decode f6ab0e1g
expect_exit "decode: odd digits" 2 'odd number of hex digits' -- decode f6ab0e1
expect_exit "decode: over 256 octets" 2 'more than 256 octets' -- decode "$(zeros 257)"
expect_exit "encode: missing --recv" 2 '--recv BYTES is required' -- encode --send 4096
expect_exit "encode: negative size" 2 'expected a number of bytes' -- encode --send -1 --recv 4096
expect_exit "encode: junk size" 2 'expected a number of bytes' -- encode --send 4KB --recv 4096
expect_exit "encode: stray argument" 2 "unexpected argument 'x'" -- encode --send 4096 --recv 4096 x
expect_exit "encode: option of another command" 2 'does not apply' -- encode --send 4096 --recv 4096 --role client
expect_exit "negotiate: bad role" 2 "expected client or server" \
	-- negotiate --role both --send 4096 --recv 4096 --peer none
expect_exit "negotiate: missing --peer" 2 '--peer HEX\|none is required' \
	-- negotiate --role client --send 4096 --recv 4096
expect_exit "unknown option" 2 "unknown option '--frob'" -- decode --frob 00
expect_exit "option without its argument" 2 "'--send' needs an argument" -- encode --recv 4096 --send
expect_exit "decode: bare 0x" 2 "'0x' holds no hex digits" -- decode 0x
expect_exit "output error is reported" 1 'cannot write' -- decode f6ab0e1801010303 ">/dev/full"
expect_exit "probe: no host" 2 'give HOST' -- probe
expect_exit "probe: bad port" 2 "port '0': expected 1..65535" -- probe 192.0.2.1 0
expect_exit "probe: --raw over 56 octets" 2 'at most 56' -- probe 192.0.2.1 --raw "$(zeros 57)"
expect_exit "probe: --none with --send" 2 'only one of' -- probe 192.0.2.1 --none --send 4096
expect_exit "listen: bad port" 2 "port 'x': expected" -- listen x
expect_exit "listen: --count 0" 2 'at least 1' -- listen --count 0
expect_exit "listen: --hold not a number" 2 'expected a whole number' -- listen --hold soon
expect_exit "an option's argument is not named as the option" 2 "'--hold' does not apply" \
	-- encode --send 4096 --recv 4096 --hold 1
expect_exit "probe: --count 0" 2 'takes 1..1024' -- probe 192.0.2.1 --count 0
expect_exit "probe: --count over 1024" 2 'takes 1..1024' -- probe 192.0.2.1 --count 1025
expect_exit "probe: --hold not a number" 2 'expected a whole number' -- probe 192.0.2.1 --hold soon
# rpcrdma-call's own options are not rpcrdma-cm's, on any command
for o in "--proc null" "--reply-size 8192" "--post-size 4096" --then-null "--reply-chunk 4"; do
	# shellcheck disable=SC2086 # an option and its argument
	expect_exit "probe: rpcrdma-call's ${o%% *} is unknown here" 2 "unknown option '${o%% *}'" \
		-- probe 192.0.2.1 $o
done

no_device_case "probe: no RDMA device" probe 192.0.2.1 --timeout 2
fd_limit_case "probe: --count beyond the hard limit on open files" 100 \
	'100 connections need about 316 open files; the limit is 100' -- probe 192.0.2.1 --count 100
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	fd_limit_case "probe: --count raises the soft limit on open files" 1024 \
		'cannot open the RDMA CM' -- probe 192.0.2.1 --count 100 --timeout 2
else
	ktap_test_skip "probe: --count raises the soft limit on open files" "this host has an RDMA device"
fi
if "$CM" --help | grep -q 'negotiate --role client|server'; then
	ktap_test_pass "--help describes every command"
else
	ktap_test_fail "--help describes every command" "no negotiate synopsis"
fi
if "$CM" --help | grep -q 'rpcrdma-cm(8)'; then
	ktap_test_pass "--help points at the manual page"
else
	ktap_test_fail "--help points at the manual page" "no rpcrdma-cm(8) in --help"
fi
expect_exit "call is not a command of rpcrdma-cm" 2 "unknown command 'call'" -- call 192.0.2.1

# --- README.md's examples, run as they are written ---
# An example is a "    $ rpcrdma-cm ARGS" line followed by the output
# it shows, indented the same, up to a blank line, a "#" comment line or
# the next "$" line.
# Each one that shows output must print exactly that. The live-peer
# lines show none (they need an RDMA device and a peer): each must at
# least not be a usage error.
readme_examples() {
	awk '
		function flush() {
			if (cmd != "")
				printf "%s\037%s\036", cmd, out
			cmd = ""; out = ""
		}
		/^    \$ rpcrdma-cm / { flush(); cmd = substr($0, 18); next }
		cmd != "" && /^    [^ #]/ && !/^    \$/ { out = out substr($0, 5) "\n"; next }
		{ flush() }
		END { flush() }' "$(dirname "$0")/README.md"
}
n_examples=0
while IFS=$'\037' read -r -d $'\036' args want; do
	eval "set -- $args"
	args=$(printf '%s' "${args%%#*}" | sed 's/ *$//')
	if [ -z "$want" ]; then
		# a live-peer example: it needs a device and a peer, but its
		# options must still be ones the program takes
		rc=0
		timeout 10 "$CM" "$@" >/dev/null 2>&1 || rc=$?
		if [ "$rc" != 2 ]; then
			ktap_test_pass "README example takes its options: rpcrdma-cm $args" "exit $rc"
		else
			ktap_test_fail "README example takes its options: rpcrdma-cm $args" \
				"usage error: $("$CM" "$@" 2>&1 >/dev/null | head -n 1)"
		fi
		continue
	fi
	n_examples=$((n_examples + 1))
	got=$("$CM" "$@" 2>&1)
	if [ "$got" = "${want%$'\n'}" ]; then
		ktap_test_pass "README example: rpcrdma-cm $args"
	else
		ktap_test_fail "README example: rpcrdma-cm $args" \
			"prints$(diff <(echo "${want%$'\n'}") <(echo "$got") | sed -n 's/^[<>]/&/p' | tr '\n' ' ')"
	fi
done < <(readme_examples)
if [ "$n_examples" -ge 4 ]; then
	ktap_test_pass "README.md has its examples ($n_examples with output)"
else
	ktap_test_fail "README.md has its examples" "found $n_examples with output, expected at least 4"
fi

ktap_finished rpcrdma-cm
