# SPDX-License-Identifier: GPL-2.0
# nfsd's accept Private Data and the sysctls behind it. Ours echoes
# the client's R on rxe (and siw) unless sunrpc.svc_rdma.remote_invalidate
# is 0: R only when the client set R (RFC 8797 Section 4.1: a server's R
# means nothing without the client's, and a client that clears R may
# refuse a server that sets it), never to a client without Private
# Data. It advertises
# max_req_size both ways over the whole RFC 8797 range. A size between
# multiples of 1024 is rounded down with one dmesg line saying so; a
# value out of range, or not a number, is refused and changes nothing.
S=/proc/sys/sunrpc/svc_rdma
local_nfsd

# accept WHAT SIZE R [PROBE-OPTIONS...]: probe nfsd (with the client's
# Private Data of PROBE-OPTIONS) and check its accept Private Data
accept() {
	local out what=$1 size=$2 r=$3
	shift 3
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT" "$@") ||
		fail_scenario "$what: probe exited with status $?"
	echo "$out"
	expect_eq "$what: found" "$(echo "$out" | jget found)" true
	expect_eq "$what: send_size" "$(echo "$out" | jget send_size)" "$size"
	expect_eq "$what: recv_size" "$(echo "$out" | jget recv_size)" "$size"
	expect_eq "$what: remote_inv" "$(echo "$out" | jget remote_inv)" "$r"
}

# refused FILE VALUE: a write of VALUE fails and leaves FILE as it was
refused() {
	local before after
	before=$(cat "$1")
	if echo "$2" >"$1" 2>/dev/null; then
		fail_scenario "$1: '$2' was accepted"
	fi
	after=$(cat "$1")
	expect_eq "$1 after '$2'" "$after" "$before"
}

accept default 4096 true
accept "client R=0" 4096 false --no-remote-invalidate
accept "client without Private Data" 4096 false --none
run sh -c "echo 0 >$S/remote_invalidate"
accept "remote_invalidate=0" 4096 false
run sh -c "echo 1 >$S/remote_invalidate"
for size in 1024 262144 8192; do
	run sh -c "echo $size >$S/max_req_size"
	# soft-iWARP's 6 Receive SGEs hold 6 blocks of 32 KiB: there nfsd
	# advertises 196608 for 262144 (transport-move checks its dmesg line)
	want=$size
	[ "$E2E_RDMA" != siw ] || [ $size -le 196608 ] || want=196608
	accept "max_req_size=$size" $want true
done
# Values between steps, which stock kernels took, are rounded down
# and said once in dmesg
run sh -c "echo 16000 >$S/max_req_size"
dmesg -c >/dev/null
for v in 5000 ' 8192' 1025 16384; do
	run sh -c "printf '%s\\n' '$v' >$S/max_req_size"
done
expect_eq "max_req_size after 16384" "$(cat $S/max_req_size)" 16384
n=$(dmesg | grep -c 'rpcrdma: max_req_size: 5000 is not a multiple of 1024; using 4096')
expect_eq "dmesg lines for 5000" "$n" 1
n=$(dmesg | grep -c 'rpcrdma: max_req_size: 1025 is not a multiple of 1024; using 1024')
expect_eq "dmesg lines for 1025" "$n" 1
n=$(dmesg | grep -c 'rpcrdma: max_req_size: ')
expect_eq "dmesg lines in all (none for 8192 or 16384)" "$n" 2
run sh -c "echo 5000 >$S/max_req_size"
accept "max_req_size=5000" 4096 true
run sh -c "echo 16384 >$S/max_req_size"

for v in 0 512 1023 262145 300000 4294967296 -1 -4096 4096x abc; do
	refused $S/max_req_size "$v"
done
for v in abc 1x; do
	refused $S/remote_invalidate "$v"
done
accept "after refused writes" 16384 true
run sh -c "echo 4096 >$S/max_req_size"
