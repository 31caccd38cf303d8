# SPDX-License-Identifier: GPL-2.0
# nfsd closes a connection while RDMA Reads it posted to pull a WRITE's
# data are still waiting for their responses: each of those Reads must
# complete (flushed) before the connection's QP is destroyed, so that
# what it holds (the Call's Receive buffer and pages, and on iWARP the
# MRs of its rdma_rw context) goes back. A Read that never completes
# leaks all that, and ib_destroy_qp() WARNs that MRs are still in use.
#
# The client's WRITEs of 64 KiB at a 16 KiB inline threshold carry Read
# chunks. Every segment the server sends (TCP source port 20049: RDMA
# Read Requests, Replies, its FIN) is held back 30 seconds on lo by
# netem; the client's Calls reach nfsd at once. Once nfsd has posted a
# Read, it is stopped: its graceful disconnect comes while the Read
# Request has not reached the client. NFSv3, so that nothing else (an
# NFSv4.1 backchannel) keeps the transport, which is then freed at
# once; the file is made and opened for writing once beforehand (its
# ACCESS answered) and the mount caches its attributes (nocto), so that
# the WRITE is the only Call the delay holds up. Then
# the delay goes, nfsd starts again, the client reconnects, retransmits,
# and the file reads back the same on the server. The WARN is
# WARN_ON_ONCE: the Read's completion is what fails every time.
#
# soft-iWARP only: soft-RoCE loops a packet to its own address back
# inside the driver, past any qdisc. Fails with stock siw, whose QP
# went from Closing to Error without flushing its ORQ when no WQE was
# in transmission (patches/siw/0003): the Read never completes, and
# ib_destroy_qp() WARNs (mrs_used).
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
[ "$E2E_ROLE" = single ] || fail_scenario "server-close-reads needs one VM"
[ "$E2E_RDMA" = siw ] ||
	skip "soft-RoCE loops packets to its own address back past the qdiscs"
# iproute2's: busybox sh would run its own applet for a bare "tc"
tc=/usr/sbin/tc
[ -x $tc ] || fail_scenario "no iproute2 tc in this VM"
restore() {
	$tc qdisc del dev lo root 2>/dev/null
	umount -f /mnt/cr 2>/dev/null
}
trap restore EXIT

events="svcrdma_post_read_chunk svcrdma_wc_read svcrdma_wc_read_flush svcrdma_wc_read_err"
count() { grep -c " $1:" $T/trace; }

local_nfsd
echo 16384 >$R/rdma_max_inline_write || fail_scenario "sysctl refused"
run dd if=/dev/urandom of=/tmp/cr.src bs=64k count=8 2>/dev/null
nfs_mount 3 /mnt/cr nocto,actimeo=600
run dd if=/dev/null of=/mnt/cr/f 2>/dev/null
run dd if=/dev/null of=/mnt/cr/f conv=notrunc 2>/dev/null
for e in $events; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no tracepoint $e"
done
echo 1 >$T/events/sunrpc/svc_xprt_free/enable || fail_scenario "no tracepoint svc_xprt_free"
echo >$T/trace
w0=$(kernel_warnings)

# the server's segments held back 30 s: band 3 of a prio qdisc
run $tc qdisc add dev lo root handle 1: prio
run $tc qdisc add dev lo parent 1:3 handle 30: netem delay 30s
run $tc filter add dev lo parent 1: protocol ip prio 1 u32 \
	match ip protocol 6 0xff match ip sport $E2E_PORT 0xffff flowid 1:3

dd if=/tmp/cr.src of=/mnt/cr/f bs=64k oflag=direct conv=notrunc 2>/tmp/cr.dd &
ddpid=$!
wait_for "nfsd to post an RDMA Read" 120 sh -c "grep -q ' svcrdma_post_read_chunk:' $T/trace"
run sh -c 'echo 0 >/proc/fs/nfsd/threads'
posted=$(count svcrdma_post_read_chunk)
say "nfsd stopped with $posted Read(s) posted"
# The connection's svc_rdma_free() drains its QP, then destroys it: a
# Read still posted completes in that drain, flushed. Give it 30 s.
done_reads() {
	echo $(($(count svcrdma_wc_read) + $(count svcrdma_wc_read_flush) + $(count svcrdma_wc_read_err)))
}
wait_for "the connection to be freed" 60 \
	sh -c "grep -q 'svc_xprt_free: server=[^ ]*:$E2E_PORT client=[^ ]* flags=.*TEMP' $T/trace"
i=0
while [ "$(done_reads)" -lt "$posted" ] && [ $i -lt 30 ]; do
	sleep 1
	i=$((i + 1))
done
# and what follows the drain: the QP destroyed
sleep 2
expect_eq "Reads posted, and completed by the drain (done, flushed, failed)" \
	"$posted $(count svcrdma_wc_read) $(count svcrdma_wc_read_flush) $(count svcrdma_wc_read_err)" \
	"$posted 0 $posted 0"
expect_eq "WARNINGs in the kernel log (ib_destroy_qp: MRs still in use)" \
	"$(($(kernel_warnings) - w0))" 0

run $tc qdisc del dev lo root
nfsd_up
nfsd_end_grace
wait $ddpid || fail_scenario "the WRITEs failed across the close: $(cat /tmp/cr.dd)"
expect_eq "512 KiB written across the close, as the server has it" \
	"$(cmp /tmp/cr.src /export/f 2>&1)" ""
run rm /mnt/cr/f
nfs_umount /mnt/cr 2
