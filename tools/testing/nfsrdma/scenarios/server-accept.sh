# nfsd's accept Private Data and the tunables behind it. Ours sets R
# on rxe unless sunrpc.svc_rdma.remote_invalidate is 0, and advertises
# max_req_size both ways over the whole RFC 8797 range. Anything
# else written to a tunable is refused and changes nothing.
S=/proc/sys/sunrpc/svc_rdma
P=/sys/module/rpcrdma/parameters
local_nfsd

# accept WHAT SIZE R: probe nfsd and check its accept Private Data
accept() {
	local out
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT") ||
		fail "$1: probe exited with status $?"
	echo "$out"
	expect_eq "$1: found" "$(echo "$out" | jget found)" true
	expect_eq "$1: send_size" "$(echo "$out" | jget send_size)" "$2"
	expect_eq "$1: recv_size" "$(echo "$out" | jget recv_size)" "$2"
	expect_eq "$1: remote_invalidate" "$(echo "$out" | jget remote_invalidate)" "$3"
}

# refused FILE VALUE: a write of VALUE fails and leaves FILE as it was
refused() {
	local before after
	before=$(cat "$1")
	if echo "$2" >"$1" 2>/dev/null; then
		fail "$1: '$2' was accepted"
	fi
	after=$(cat "$1")
	expect_eq "$1 after '$2'" "$after" "$before"
}

accept default 4096 true
run sh -c "echo 0 >$S/remote_invalidate"
accept "remote_invalidate=0" 4096 false
run sh -c "echo 1 >$S/remote_invalidate"
for size in 1024 262144 8192; do
	run sh -c "echo $size >$S/max_req_size"
	accept "max_req_size=$size" $size true
done
# The module parameter is the same setting
run sh -c "echo 16384 >$P/svcrdma_max_req_size"
expect_eq "sysctl after the module parameter" "$(cat $S/max_req_size)" 16384
accept "svcrdma_max_req_size=16384" 16384 true
run sh -c "echo 0 >$P/svcrdma_remote_invalidate"
expect_eq "sysctl after the switch parameter" "$(cat $S/remote_invalidate)" 0
accept "svcrdma_remote_invalidate=0" 16384 false
run sh -c "echo 1 >$P/svcrdma_remote_invalidate"

dmesg -c >/dev/null
for v in 0 512 1023 1025 5000 262145 300000 -1 -4096 4096x abc; do
	refused $S/max_req_size "$v"
	refused $P/svcrdma_max_req_size "$v"
done
for v in 2 -1 abc; do
	refused $S/remote_invalidate "$v"
done
for msg in 'svcrdma_max_req_size=5000 refused' 'sysctl max_req_size=5000 refused'; do
	dmesg | grep -q "rpcrdma: $msg: use a multiple of 1024 from 1024 to 262144" ||
		fail "no message 'rpcrdma: $msg: ...' in dmesg"
done
accept "after refused writes" 16384 true
run sh -c "echo 4096 >$S/max_req_size"
