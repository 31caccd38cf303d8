# Client tunables over the whole RFC 8797 range (1024..262144, in steps
# of 1024): bad module parameters (the server's too) stop the module
# from loading with a readable dmesg line, bad sysctl writes get EINVAL,
# and what is set is what the client advertises. Runs before anything uses rpcrdma.
[ "$E2E_RPCRDMA" = ours ] || fail "this scenario needs our rpcrdma.ko"
mod=/lib/modules/e2e/rpcrdma-ours.ko
sys=/proc/sys/sunrpc
par=/sys/module/rpcrdma/parameters

reload() {
	wait_for "rpcrdma to be unused" 30 rmmod rpcrdma
	run insmod "$mod" "$@"
}

wait_for "rpcrdma to be unused" 30 rmmod rpcrdma
for bad in max_inline_read=5000 max_inline_write=512 max_inline_read=263168 \
	   max_inline_write=0 max_inline_read=4k max_inline_read=-4096 \
	   remote_invalidate=10 remote_invalidate=nonsense \
	   svcrdma_max_req_size=1025 svcrdma_remote_invalidate=2; do
	dmesg -c >/dev/null
	if insmod "$mod" "$bad" 2>/dev/null; then
		fail "insmod rpcrdma $bad was accepted"
	fi
	msg=$(dmesg | grep -m1 "rpcrdma: ${bad%%=*}=")
	[ -n "$msg" ] || fail "insmod rpcrdma $bad: no dmesg line names it"
	echo "E2E-CHECK: ok $bad refused: ${msg#*] }"
done

run insmod "$mod" max_inline_read=262144 max_inline_write=1024
expect_eq "sysctl rdma_max_inline_read" "$(cat $sys/rdma_max_inline_read)" 262144
expect_eq "parameter max_inline_write" "$(cat $par/max_inline_write)" 1024
for bad in 5000 263168 0 -1024; do
	if echo "$bad" >$sys/rdma_max_inline_write 2>/dev/null; then
		fail "sysctl rdma_max_inline_write accepted $bad"
	fi
done
expect_eq "rdma_max_inline_write after refused writes" "$(cat $sys/rdma_max_inline_write)" 1024
echo 65536 >$sys/rdma_max_inline_write || fail "sysctl refused 65536"

req=$(client_pdata 20052) || exit 1
expect_eq "advertised send_size" "$(echo "$req" | jget send_size)" 65536
expect_eq "advertised recv_size" "$(echo "$req" | jget recv_size)" 262144
expect_eq "advertised remote_invalidate" "$(echo "$req" | jget remote_invalidate)" true

echo N >$par/remote_invalidate || fail "cannot clear remote_invalidate"
req=$(client_pdata 20053) || exit 1
expect_eq "advertised remote_invalidate when cleared" "$(echo "$req" | jget remote_invalidate)" false

# Back to the defaults for the scenarios that follow
reload
expect_eq "default rdma_max_inline_read" "$(cat $sys/rdma_max_inline_read)" 4096
