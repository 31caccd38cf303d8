# SPDX-License-Identifier: GPL-2.0
# The kernel NFS client mounts rpcrdma-cm listen, which shows the
# client's connect Private Data: version 1, R set, and the client's
# default inline thresholds of 4096 both ways.
req=$(client_pdata 20050) || exit 1
cat /tmp/listen.out
expect_eq "client: found" "$(echo "$req" | jget found)" true
expect_eq "client: version" "$(echo "$req" | jget version)" 1
expect_eq "client: remote_inv" "$(echo "$req" | jget remote_inv)" true
expect_eq "client: send_size" "$(echo "$req" | jget send_size)" 4096
expect_eq "client: recv_size" "$(echo "$req" | jget recv_size)" 4096
