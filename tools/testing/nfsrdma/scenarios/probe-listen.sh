# SPDX-License-Identifier: GPL-2.0
# Our two peers on the wire: listen answers with Private Data behind four
# foreign octets, and probe must still find it (RFC 8797 section 5.2);
# probe sends nothing at all, and listen must see no message.
port=20051
rpcrdma-cm --json listen "$port" --raw "deadbeef f6ab0e18 01 01 07 03" \
	--count 1 --timeout 60 >/tmp/l.out &
lpid=$!
listening /tmp/l.out $lpid
out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$port" --none) || fail_scenario "probe exited with status $?"
wait $lpid || fail_scenario "listen exited with status $?"
echo "$out"
cat /tmp/l.out
expect_eq "probe: found" "$(echo "$out" | jget found)" true
expect_eq "probe: offset" "$(echo "$out" | jget offset)" 4
expect_eq "probe: send_size" "$(echo "$out" | jget send_size)" 8192
expect_eq "probe: recv_size" "$(echo "$out" | jget recv_size)" 4096
expect_eq "probe: remote_inv" "$(echo "$out" | jget remote_inv)" true
# We sent nothing, so we are a legacy client: 1024 both ways
expect_eq "probe: client_to_server" "$(echo "$out" | jget client_to_server)" 1024
expect_eq "probe: server_to_client" "$(echo "$out" | jget server_to_client)" 1024
req=$(grep '"connect-request"' /tmp/l.out)
expect_eq "listen: found" "$(echo "$req" | jget found)" false
expect_eq "listen: status" "$(echo "$req" | jget status)" absent
