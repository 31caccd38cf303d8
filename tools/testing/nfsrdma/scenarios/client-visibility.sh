# SPDX-License-Identifier: GPL-2.0
# A mount shows what its connection negotiated: at the end of the
# "xprt: rdma" line of /proc/self/mountstats, and in the
# xprtrdma_inline_thresh tracepoint, which also shows each end's Private
# Data as the client read it. Against nfsd at its defaults (ours or
# stock, which both send 4096/4096), our client at its defaults gets
# 4096 each way. Our server sets R on rxe, so Send With Invalidate is in
# force, and Replies arrive remotely invalidated; stock never sets R, so
# it is not.
T=/sys/kernel/tracing
local_nfsd
r=0
[ "$E2E_SERVER_RPCRDMA" = ours ] && r=1
mount_traced /mnt/vis
expect_tp "tracepoint" "$THRESH_EVENT" neg_send=4096 neg_recv=4096 \
	client_send=4096 client_recv=4096 client_remote_inv=1 \
	server_status=valid server_offset=0 server_version=1 \
	server_send=4096 server_recv=4096 server_remote_inv=$r \
	c2s=4096 s2c=4096 send_with_inv=$r recv_wanted=4096

# mountstats: after "xprt: rdma" and the 27 stock counters come three
# fields: both thresholds and Send With Invalidate
xprt=$(awk '$1 == "device" { m = ($5 == "/mnt/vis") }
	    m && $1 == "xprt:" && $2 == "rdma" { print; exit }' /proc/self/mountstats)
echo "$xprt"
expect_eq "mountstats: fields on the xprt line" "$(echo "$xprt" | wc -w)" 32
set -- $xprt
shift 29
expect_eq "mountstats: client-to-server" "$1" 4096
expect_eq "mountstats: server-to-client" "$2" 4096
expect_eq "mountstats: send with invalidate" "$3" $r

# Replies that arrive remotely invalidated: one rpcrdma:xprtrdma_mr_reminv
# event each (O_DIRECT I/O of 64 KiB uses chunks, whose R_keys the
# server may invalidate)
echo 1 >$T/events/rpcrdma/xprtrdma_mr_reminv/enable || fail_scenario "no xprtrdma_mr_reminv tracepoint"
echo >$T/trace
run dd if=/dev/urandom of=/mnt/vis/v bs=64k count=4 oflag=direct 2>/dev/null
run dd if=/mnt/vis/v of=/dev/null bs=64k iflag=direct 2>/dev/null
n=$(grep -c 'xprtrdma_mr_reminv:' $T/trace)
say "Replies remotely invalidated: $n"
# (stock nfsd invalidates even with R clear: that is server-swi's matter)
[ $r = 0 ] || expect_ge "Replies remotely invalidated with R on both ends" "$n" 1
run rm /mnt/vis/v
nfs_umount /mnt/vis
