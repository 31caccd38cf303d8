# SPDX-License-Identifier: GPL-2.0
# Our client against our server over a matrix of inline thresholds:
# client 1/4/64/256 KiB, server 4/16/64 KiB. Each mount moves data
# checked by md5, and the kernel client negotiates min() each way
# (RFC 8797 section 4.2), as rpcrdma:xprtrdma_inline_thresh and the
# mount's rpcrdma_cm debugfs file show. Every Receive the client posts
# has the Receive Size it advertised, even at 256 KiB.
T=/sys/kernel/tracing
sys=/proc/sys/sunrpc
local_nfsd
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail "no tracepoint"
dd if=/dev/urandom of=/tmp/src bs=64k count=16 2>/dev/null
sum=$(md5sum </tmp/src)
for server in 4096 16384 65536; do
	echo $server >$sys/svc_rdma/max_req_size || fail "server max_req_size $server"
	for client in 1024 4096 65536 262144; do
		echo $client >$sys/rdma_max_inline_read || fail "client read $client"
		echo $client >$sys/rdma_max_inline_write || fail "client write $client"
		want=$client
		[ $server -lt $want ] && want=$server
		echo >$T/trace
		nfs_mount 4.1 /mnt/sizes
		run dd if=/tmp/src of=/mnt/sizes/f bs=64k conv=fsync 2>/dev/null
		echo 3 >/proc/sys/vm/drop_caches
		expect_eq "client $client, server $server: md5" "$(md5sum </mnt/sizes/f)" "$sum"
		line=$(grep -m1 xprtrdma_inline_thresh $T/trace)
		neg=$(echo "$line" | sed -n 's/.*neg send\/recv=\([0-9]*\/[0-9]*\).*/\1/p')
		expect_eq "client $client, server $server: negotiated send/recv" "$neg" "$want/$want"
		f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file"
		expect_eq "client $client, server $server: rpcrdma_cm thresholds" \
			"$(field client_to_server <"$f")/$(field server_to_client <"$f")" "$want/$want"
		# Every Receive posted has the Receive Size advertised
		expect_eq "client $client, server $server: tracepoint recv wanted" \
			"$(echo "$line" | sed -n 's/.*client recv wanted=\([0-9]*\).*/\1/p')" $client
		expect_eq "client $client, server $server: wanted/advertised/posted min/posted max" \
			"$(field client_recv_wanted <"$f")/$(field client_recv_size <"$f")/$(field client_recv_posted_min <"$f")/$(field client_recv_posted_max <"$f")" \
			"$client/$client/$client/$client"
		rm /mnt/sizes/f
		run umount /mnt/sizes
	done
done
echo 4096 >$sys/svc_rdma/max_req_size
echo 4096 >$sys/rdma_max_inline_read
echo 4096 >$sys/rdma_max_inline_write
