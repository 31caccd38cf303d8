# SPDX-License-Identifier: GPL-2.0
# (temporary diagnosis, not committed) nfs41-io with every rpcrdma and
# rdma_cma event traced; on a reconnect, print the trace around it
T=/sys/kernel/tracing
local_nfsd
echo 65536 >$T/buffer_size_kb
echo 1 >$T/events/rpcrdma/enable
echo 1 >$T/events/rdma_cma/enable 2>/dev/null
echo >$T/trace
k=0
while [ $k -lt 4 ]; do
	nfs_mount 4.1 /mnt/nfs41
	workload /mnt/nfs41
	cc=$(rdma_stats /mnt/nfs41 | sed 's/.*connect_count=//')
	say "round $k: $(rdma_stats /mnt/nfs41)"
	if [ "$cc" != 1 ]; then
		echo 0 >$T/tracing_on
		n=$(grep -n 'xprtrdma_disconnect\|svcrdma_qp_err\|_err:\|cm_event_handler.*DISCONN\|flush' $T/trace | head -n 1 | cut -d: -f1)
		say "first trouble at trace line $n of $(wc -l <$T/trace)"
		grep -n 'xprtrdma_disconnect\|svcrdma_qp_err\|_err:\|DISCONN\|ESTABLISHED\|svcrdma_wc_recv_flush\|wc_receive.*status=[1-9]' $T/trace | head -n 40
		sed -n "$((n > 150 ? n - 150 : 1)),$((n + 40))p" $T/trace
		fail_scenario "round $k: connect_count $cc"
	fi
	umount /mnt/nfs41
	echo >$T/trace
	k=$((k + 1))
done
pass "4 rounds, one connection each"
