# SPDX-License-Identifier: GPL-2.0
# A mount shows what its connection negotiated: at the end of the
# "xprt: rdma" line of /proc/self/mountstats, in the
# xprtrdma_inline_thresh tracepoint and in its rpcrdma_cm debugfs file. Against nfsd at its defaults (ours or stock 6.12, which
# both send 4096/4096), our client at its defaults gets 4096 each way.
# Our server sets R on rxe, so Send With Invalidate is in force; stock
# 6.12 never sets R, so it is not.
local_nfsd
r=0 yn=no
[ "$E2E_SERVER_RPCRDMA" = ours ] && r=1 yn=yes
mount_traced /mnt/vis
case "$THRESH_EVENT" in
*"neg send/recv=4096/4096,"*"client send/recv=4096/4096 remote_inv=1, server valid send/recv=4096/4096 remote_inv=$r, send_with_inv=$r"*) ;;
*) fail "tracepoint does not show the expected negotiation: $THRESH_EVENT" ;;
esac
f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
cat "$f"
expect_eq "server_private_data_offset" "$(field server_private_data_offset <"$f")" 0
expect_eq "client_send_size" "$(field client_send_size <"$f")" 4096
expect_eq "client_remote_inv" "$(field client_remote_inv <"$f")" yes
expect_eq "server_private_data_status" "$(field server_private_data_status <"$f")" valid
expect_eq "server_send_size" "$(field server_send_size <"$f")" 4096
expect_eq "server_recv_size" "$(field server_recv_size <"$f")" 4096
expect_eq "server_remote_inv" "$(field server_remote_inv <"$f")" $yn
expect_eq "client_to_server" "$(field client_to_server <"$f")" 4096
expect_eq "server_to_client" "$(field server_to_client <"$f")" 4096
expect_eq "send_with_inv" "$(field send_with_inv <"$f")" $yn

# mountstats: after "xprt: rdma" and the 27 stock counters come four
# fields: both thresholds, Send With Invalidate, and Replies that
# arrived remotely invalidated
run dd if=/dev/urandom of=/mnt/vis/v bs=64k count=4 oflag=direct 2>/dev/null
run dd if=/mnt/vis/v of=/dev/null bs=64k iflag=direct 2>/dev/null
xprt=$(awk '$1 == "device" { m = ($5 == "/mnt/vis") }
	    m && $1 == "xprt:" && $2 == "rdma" { print; exit }' /proc/self/mountstats)
echo "$xprt"
expect_eq "mountstats: fields on the xprt line" "$(echo "$xprt" | wc -w)" 33
set -- $xprt
shift 29
expect_eq "mountstats: client-to-server" "$1" 4096
expect_eq "mountstats: server-to-client" "$2" 4096
expect_eq "mountstats: send with invalidate" "$3" $r
f4=$4
if [ $r = 1 ]; then
	[ "$f4" -gt 0 ] || fail "mountstats: no remotely invalidated Reply with R on both ends"
fi
expect_eq "mountstats: remotely invalidated = debugfs count" "$f4" \
	"$(field replies_with_inv <"$f")"
run umount /mnt/vis
