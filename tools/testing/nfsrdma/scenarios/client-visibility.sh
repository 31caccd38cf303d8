# A mount's rpcrdma_cm debugfs file shows what its connection
# negotiated. Against nfsd at its defaults (ours or stock 6.12, which
# both send 4096/4096 with R clear), our client at its defaults gets
# 4096 each way and no Send With Invalidate.
local_nfsd
nfs_mount 4.1 /mnt/vis
f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
cat "$f"
expect_eq "negotiated" "$(field negotiated <"$f")" yes
expect_eq "client_send_size" "$(field client_send_size <"$f")" 4096
expect_eq "client_remote_invalidate" "$(field client_remote_invalidate <"$f")" yes
expect_eq "server_private_data" "$(field server_private_data <"$f")" valid
expect_eq "server_send_size" "$(field server_send_size <"$f")" 4096
expect_eq "server_recv_size" "$(field server_recv_size <"$f")" 4096
expect_eq "server_remote_invalidate" "$(field server_remote_invalidate <"$f")" no
expect_eq "client_to_server" "$(field client_to_server <"$f")" 4096
expect_eq "server_to_client" "$(field server_to_client <"$f")" 4096
expect_eq "send_with_invalidate" "$(field send_with_invalidate <"$f")" no
run umount /mnt/vis
