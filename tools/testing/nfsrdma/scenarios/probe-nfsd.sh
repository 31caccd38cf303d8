# SPDX-License-Identifier: GPL-2.0
# rpcrdma-cm probe against nfsd: the server's accept Private Data.
# Both advertise their max_req_size of 4096 both ways; ours sets R on
# rxe (it can Send With Invalidate), stock 6.12 never does.
local_nfsd
r=false
[ "$E2E_SERVER_RPCRDMA" = ours ] && r=true
out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT") || fail_scenario "probe exited with status $?"
echo "$out"
expect_eq "probe: found" "$(echo "$out" | jget found)" true
expect_eq "probe: offset" "$(echo "$out" | jget offset)" 0
expect_eq "probe: version" "$(echo "$out" | jget version)" 1
expect_eq "probe: remote_inv" "$(echo "$out" | jget remote_inv)" $r
expect_eq "probe: send_size" "$(echo "$out" | jget send_size)" 4096
expect_eq "probe: recv_size" "$(echo "$out" | jget recv_size)" 4096
expect_eq "probe: client_to_server" "$(echo "$out" | jget client_to_server)" 4096
expect_ge "probe: private_data_len" "$(echo "$out" | jget private_data_len)" 8
