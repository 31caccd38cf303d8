# SPDX-License-Identifier: GPL-2.0
# Every connection negotiates afresh: the server's max_req_size and the
# client's thresholds change between two connections of one mount (nfsd
# is restarted in between), and the mount's rpcrdma_cm file follows.
sys=/proc/sys/sunrpc
T=/sys/kernel/tracing
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail "no tracepoint"
echo >$T/trace
local_nfsd
nfs_mount 4.1 /mnt/rc
f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
expect_eq "first connection: client_to_server" "$(field client_to_server <"$f")" 4096
# New values apply to the next connection, which the restart forces
echo 16384 >$sys/svc_rdma/max_req_size
echo 8192 >$sys/rdma_max_inline_read
echo 65536 >$sys/rdma_max_inline_write
nfsd_restart
nfsd_end_grace
run ls -l /mnt/rc
i=0
until [ "$(field server_send_size <"$f")" = 16384 ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "the client never reconnected with new values"
	ls /mnt/rc >/dev/null 2>&1
	sleep 1
done
cat "$f"
grep xprtrdma_inline_thresh $T/trace
line=$(grep xprtrdma_inline_thresh $T/trace | tail -n 1)
case "$line" in
*"neg send/recv=16384/8192,"*"client send/recv=65536/8192 remote_inv=1, server valid send/recv=16384/16384"*) ;;
*) fail "the last tracepoint line does not show the second connection: $line" ;;
esac
expect_eq "second connection: client_send_size" "$(field client_send_size <"$f")" 65536
expect_eq "second connection: client_recv_size" "$(field client_recv_size <"$f")" 8192
expect_eq "second connection: client_to_server" "$(field client_to_server <"$f")" 16384
expect_eq "second connection: server_to_client" "$(field server_to_client <"$f")" 8192
run umount /mnt/rc
echo 4096 >$sys/svc_rdma/max_req_size
echo 4096 >$sys/rdma_max_inline_read
echo 4096 >$sys/rdma_max_inline_write
