# SPDX-License-Identifier: GPL-2.0
# Every connection negotiates afresh: the server's max_req_size and the
# client's thresholds change between two connections of one mount (nfsd
# is restarted in between), and the mount's xprtrdma_inline_thresh
# events and its mountstats line follow.
sys=/proc/sys/sunrpc
T=/sys/kernel/tracing
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail_scenario "no tracepoint"
echo >$T/trace
local_nfsd
nfs_mount 4.1 /mnt/rc
first=$(grep -m1 'xprtrdma_inline_thresh:' $T/trace)
expect_tp "first connection" "$first" c2s=4096 s2c=4096
expect_eq "first connection: mountstats" "$(negotiated /mnt/rc)" "4096/4096/$(echo "$first" | tp_get send_with_inv)"
# New values apply to the next connection, which the restart forces
echo 16384 >$sys/svc_rdma/max_req_size
echo 8192 >$sys/rdma_max_inline_read
echo 65536 >$sys/rdma_max_inline_write
nfsd_restart
nfsd_end_grace
run ls -l /mnt/rc
# The second connection's event: the first whose server advertises 16384
i=0
until [ "$(grep 'xprtrdma_inline_thresh:' $T/trace | tail -n 1 | tp_get server_send)" = 16384 ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail_scenario "the client never reconnected with new values: $(grep -c 'xprtrdma_inline_thresh:' $T/trace) connections traced"
	ls /mnt/rc >/dev/null 2>&1
	sleep 1
done
grep xprtrdma_inline_thresh $T/trace
line=$(grep xprtrdma_inline_thresh $T/trace | tail -n 1)
expect_tp "second connection" "$line" neg_send=16384 neg_recv=8192 \
	client_send=65536 client_recv=8192 client_remote_inv=1 \
	server_status=valid server_send=16384 server_recv=16384 \
	c2s=16384 s2c=8192 recv_wanted=8192
expect_eq "second connection: mountstats" "$(negotiated /mnt/rc)" "16384/8192/$(echo "$line" | tp_get send_with_inv)"
nfs_umount /mnt/rc 2
echo 4096 >$sys/svc_rdma/max_req_size
echo 4096 >$sys/rdma_max_inline_read
echo 4096 >$sys/rdma_max_inline_write
