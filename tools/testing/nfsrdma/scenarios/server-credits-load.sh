# SPDX-License-Identifier: GPL-2.0
# A server that grants few credits, kept at its limit: nfsd's
# max_requests at 16 (so 16 credits, and Receive buffers for 16 Calls
# plus the backchannel's), 64 KiB Receives, and far more RPCs wanting to
# be sent than that: fio at iodepth 64 (libaio, O_DIRECT, 4 to 64 KiB
# random writes, each block verified by crc32c as read back) beside 500
# creates and unlinks, NFSv4.1 and NFSv3. A Call holds its Receive
# buffer only until its Reply is about to be sent, and must have posted
# it again by then: a client that Sends on a returned credit and finds
# no Receive posted gets an RNR NAK, which ends the connection
# (xprtrdma asks for no RNR retries). So no RNR NAK may be counted by
# the RDMA device (hw_counters rcvd_rnr_err, send_rnr_err), the mount
# must keep its first connection, and no data may differ. The client
# makes Receive buffers for one credit when it connects and the rest
# once a Reply grants 16: its first Reply uses one credit, and it must
# reach all 16 (rpcrdma:xprtrdma_reply shows the credits it uses), or,
# where nfsd shares a pool of Receive buffers among its connections,
# grow past 1 and stay within 16.
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
mnt=/mnt/cl
restore() {
	umount $mnt 2>/dev/null
	rm -f /tmp/cl.fio
}
trap restore EXIT

# reply_credits: the credits each traced Reply let the client use
reply_credits() {
	sed -n 's/.*xprtrdma_reply:.* credits=\([0-9]*\).*/\1/p' $T/trace
}

rnr_counted ||
	fail_scenario "the RDMA device counts no RNR NAKs (hw_counters/send_rnr_err)"
local_nfsd
echo 16 >$S/max_requests
echo 65536 >$S/max_req_size
echo 65536 >$R/rdma_max_inline_read
echo 65536 >$R/rdma_max_inline_write
nfsd_restart
nfsd_end_grace

echo 1 >$T/events/rpcrdma/xprtrdma_reply/enable || fail_scenario "no tracepoint xprtrdma_reply"
for vers in 4.1 3; do
	echo >$T/trace
	nfs_mount $vers $mnt
	first=$(reply_credits | head -n 1)
	echo >$T/trace
	before=$(rnr_naks)
	fio --name=cl --filename=$mnt/fio --rw=randwrite --bsrange=4k-64k \
		--randrepeat=0 --size=8m --ioengine=libaio --iodepth=64 --direct=1 \
		--verify=crc32c --do_verify=1 --minimal >/tmp/cl.fio 2>&1 &
	fpid=$!
	run mkdir $mnt/d
	i=0
	while [ $i -lt 500 ]; do
		: >$mnt/d/f$i || fail_scenario "create $i"
		i=$((i + 1))
	done
	expect_eq "v$vers: entries after 500 creates" "$(ls $mnt/d | wc -l)" 500
	run rm -r $mnt/d
	frc=0
	wait $fpid || frc=$?
	expect_fio_ok "v$vers: fio at iodepth 64, every block verified" $frc /tmp/cl.fio
	expect_eq "v$vers: RNR NAKs under load at 16 credits" "$(($(rnr_naks) - before))" 0
	expect_eq "v$vers: connections the mount made" \
		"$(rdma_stats $mnt | sed -n 's/.*connect_count=\([0-9]*\).*/\1/p')" 1
	expect_eq "v$vers: credits the first Reply let the client use" "$first" 1
	most=$(reply_credits | sort -n | tail -n 1)
	if [ "$(kernel_srqs)" -gt 0 ]; then
		# On nfsd's shared pool a client is granted what it keeps
		# busy: doubled from 1 while it holds more than half, at
		# most max_requests. A slow guest may not need all 16.
		# (nfsd_restart closed every connection, and the 64 KiB pool
		# this mount's connection made or took retired any other,
		# which went then, with no connection left on it.)
		expect_eq "v$vers: most credits the client used under load, from a pool: $most (2 to 16)" \
			"$([ "$most" -ge 2 ] && [ "$most" -le 16 ] && echo yes)" yes
	else
		expect_eq "v$vers: most credits the client used under load" "$most" 16
	fi
	run rm -f $mnt/fio
	nfs_umount $mnt
done
