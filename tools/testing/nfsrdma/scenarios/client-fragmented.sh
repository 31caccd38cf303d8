# SPDX-License-Identifier: GPL-2.0
# Large inline thresholds need no high-order memory. nfsrdma_fragment.ko
# (a test-only module of this harness) keeps the guest with no free
# block of order 4 (64 KiB) or more, yet most memory free in smaller
# blocks: it takes each such block as it forms, every 10 ms. Then, at 256 KiB on both ends, each of 8 mounts connects once,
# moves 4 MiB of 128 KiB inline O_DIRECT I/O checked by md5, and both
# ends advertise the Receive Size they wanted (xprtrdma_inline_thresh,
# svcrdma_cm_accept), so their Receive buffers hold it. Stock (at 64 KiB, the most it takes) kmallocs each
# Receive buffer whole, an order-4 block: its nfsd cannot accept the
# connection and the mount fails.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
size=262144 io=128k
[ "$E2E_RPCRDMA" = stock ] && size=65536 io=32k
local_nfsd
trap 'umount /mnt/frag 2>/dev/null; rmmod nfsrdma_fragment 2>/dev/null' EXIT
run sh -c "echo $size >$S/max_req_size"
run sh -c "echo $size >$R/rdma_max_inline_read"
run sh -c "echo $size >$R/rdma_max_inline_write"
dd if=/dev/urandom of=/tmp/frag bs=$io count=$((4194304 / ${io%k} / 1024)) 2>/dev/null
sum=$(md5sum </tmp/frag)
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail_scenario "no xprtrdma_inline_thresh tracepoint"
echo 1 >$T/events/rpcrdma/xprtrdma_disconnect/enable || fail_scenario "no xprtrdma_disconnect tracepoint"
# Stock has no svcrdma_cm_accept; its mount fails before it is needed
[ "$E2E_RPCRDMA" = stock ] || echo 1 >$T/events/rpcrdma/svcrdma_cm_accept/enable ||
	fail_scenario "no svcrdma_cm_accept tracepoint"

# Fragment: columns 5 onwards of /proc/buddyinfo count free blocks of
# order 4 and up. ZONE_DMA (the first 16 MiB) is left out: the
# allocator keeps it for allocations that need it.
fragment || fail_scenario "cannot load nfsrdma_fragment.ko"
# A block can form whole between two sweeps (its last page freed), and
# lasts until the next; one reading of fifty in a row, over five
# seconds, must find none (a slow guest runs the sweeps late)
high_blocks() {
	awk '$4 != "DMA" { for (i = 9; i <= NF; i++) n += $i } END { print n + 0 }' /proc/buddyinfo
}
no_high_blocks() {
	local t=0
	while [ $t -lt 50 ]; do
		high=$(high_blocks)
		[ "$high" = 0 ] && return 0
		t=$((t + 1))
		sleep 0.1
	done
	return 1
}
no_high_blocks || true
cat /proc/buddyinfo
expect_eq "free blocks of order >= 4 after fragmenting" "$high" 0
free=$(awk '$4 != "DMA" { w = 1; for (i = 5; i <= NF; i++) { n += $i * w; w *= 2 } } END { printf "%d\n", n * 4 / 1024 }' /proc/buddyinfo)
expect_ge "MiB still free in blocks of order 0-3" "$free" 256

i=0
while [ $i -lt 8 ]; do
	echo >$T/trace
	mkdir -p /mnt/frag
	rc=0
	mount.nfs "$E2E_SERVER:/" /mnt/frag -o "proto=rdma,port=$E2E_PORT,vers=4.1,retry=0" || rc=$?
	if [ $rc != 0 ]; then
		why=$(dmesg | grep -o '[a-z_]*: page allocation failure: order:[0-9]*' | head -n 1)
		fail_scenario "mount $i: mount.nfs exited with status $rc${why:+ after $why}"
	fi
	run dd if=/tmp/frag of=/mnt/frag/f bs=$io oflag=direct 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	run dd if=/mnt/frag/f of=/tmp/back bs=$io iflag=direct 2>/dev/null
	expect_eq "mount $i: md5" "$(md5sum </tmp/back)" "$sum"
	expect_tp "mount $i: client" "$(grep -m1 'xprtrdma_inline_thresh:' $T/trace)" \
		recv_wanted=$size client_recv=$size c2s=$size s2c=$size
	expect_tp "mount $i: nfsd" "$(grep -m1 'svcrdma_cm_accept:' $T/trace)" \
		recv_wanted=$size server_recv=$size c2s=$size s2c=$size
	run rm /mnt/frag/f
	expect_eq "mount $i: connections made" "$(grep -c 'xprtrdma_inline_thresh:' $T/trace)" 1
	expect_eq "mount $i: connections lost" "$(grep -c 'xprtrdma_disconnect:' $T/trace)" 0
	nfs_umount /mnt/frag
	wait_conns 0 20 "mount $i: after the unmount"
	no_high_blocks || true
	expect_eq "mount $i: free blocks of order >= 4 still" "$high" 0
	i=$((i + 1))
done
