# SPDX-License-Identifier: GPL-2.0
# Our client against our server over a matrix of inline thresholds:
# client 1/4/64/256 KiB, server 4/16/64 KiB. Each mount moves data
# checked by md5, and the kernel client negotiates min() each way
# (RFC 8797 section 4.2), as rpcrdma:xprtrdma_inline_thresh and the
# mount's line in /proc/self/mountstats show. The client advertises the
# Receive Size it wanted, even at 256 KiB.
T=/sys/kernel/tracing
sys=/proc/sys/sunrpc
local_nfsd
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail_scenario "no tracepoint"
dd if=/dev/urandom of=/tmp/src bs=64k count=16 2>/dev/null
sum=$(md5sum </tmp/src)
for server in 4096 16384 65536; do
	echo $server >$sys/svc_rdma/max_req_size || fail_scenario "server max_req_size $server"
	for client in 1024 4096 65536 262144; do
		echo $client >$sys/rdma_max_inline_read || fail_scenario "client read $client"
		echo $client >$sys/rdma_max_inline_write || fail_scenario "client write $client"
		want=$client
		[ $server -lt $want ] && want=$server
		echo >$T/trace
		nfs_mount 4.1 /mnt/sizes
		run dd if=/tmp/src of=/mnt/sizes/f bs=64k conv=fsync 2>/dev/null
		echo 3 >/proc/sys/vm/drop_caches
		expect_eq "client $client, server $server: md5" "$(md5sum </mnt/sizes/f)" "$sum"
		line=$(grep -m1 xprtrdma_inline_thresh $T/trace)
		expect_tp "client $client, server $server" "$line" \
			neg_send=$want neg_recv=$want c2s=$want s2c=$want \
			client_recv=$client recv_wanted=$client server_recv=$server
		expect_eq "client $client, server $server: mountstats = tracepoint" \
			"$(negotiated /mnt/sizes)" "$want/$want/$(echo "$line" | tp_get send_with_inv)"
		rm /mnt/sizes/f
		nfs_umount /mnt/sizes
	done
done
echo 4096 >$sys/svc_rdma/max_req_size
echo 4096 >$sys/rdma_max_inline_read
echo 4096 >$sys/rdma_max_inline_write
