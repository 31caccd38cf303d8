# A mount's rpcrdma_cm debugfs file shows what its connection
# negotiated. Against nfsd at its defaults (ours or stock 6.12, which
# both send 4096/4096), our client at its defaults gets 4096 each way.
# Our server sets R on rxe, so Send With Invalidate is in force; stock
# 6.12 never sets R, so it is not.
T=/sys/kernel/tracing
local_nfsd
r=0 yn=no
[ "$E2E_SERVER_RPCRDMA" = ours ] && r=1 yn=yes
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail "no tracepoint"
echo >$T/trace
nfs_mount 4.1 /mnt/vis
line=$(grep -m1 xprtrdma_inline_thresh $T/trace)
echo "$line"
case "$line" in
*"neg send/recv=4096/4096,"*"client send/recv=4096/4096 R=1, server valid send/recv=4096/4096 R=$r, send_with_inv=$r"*) ;;
*) fail "tracepoint does not show the expected negotiation: $line" ;;
esac
f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
cat "$f"
expect_eq "negotiated" "$(field negotiated <"$f")" yes
expect_eq "client_send_size" "$(field client_send_size <"$f")" 4096
expect_eq "client_remote_invalidate" "$(field client_remote_invalidate <"$f")" yes
expect_eq "server_private_data_status" "$(field server_private_data_status <"$f")" valid
expect_eq "server_send_size" "$(field server_send_size <"$f")" 4096
expect_eq "server_recv_size" "$(field server_recv_size <"$f")" 4096
expect_eq "server_remote_invalidate" "$(field server_remote_invalidate <"$f")" $yn
expect_eq "client_to_server" "$(field client_to_server <"$f")" 4096
expect_eq "server_to_client" "$(field server_to_client <"$f")" 4096
expect_eq "send_with_invalidate" "$(field send_with_invalidate <"$f")" $yn
run umount /mnt/vis
