# The kernel NFS client mounts rpcrdma-cm listen, which shows the
# client's connect Private Data: version 1, R set, and the client's
# default inline thresholds of 4096 both ways.
port=20050
rpcrdma-cm --json listen "$port" --count 1 --hold 2 --timeout 60 >/tmp/listen.out &
lpid=$!
sleep 1
mkdir -p /mnt/listen
# listen answers no RPC, so this mount cannot succeed; it only has to try
mount.nfs "$E2E_SERVER:/" /mnt/listen \
	-o "proto=rdma,port=$port,vers=4.1,soft,timeo=10,retrans=1" >/dev/null 2>&1 &
mpid=$!
wait $lpid
rc=$?
kill -9 $mpid 2>/dev/null
cat /tmp/listen.out
expect_eq "listen: exit status" "$rc" 0
req=$(grep '"connect-request"' /tmp/listen.out | head -n 1)
[ -n "$req" ] || fail "listen saw no connect request from the kernel client"
expect_eq "client: found" "$(echo "$req" | jget found)" true
expect_eq "client: version" "$(echo "$req" | jget version)" 1
expect_eq "client: remote_invalidate" "$(echo "$req" | jget remote_invalidate)" true
expect_eq "client: send_size" "$(echo "$req" | jget send_size)" 4096
expect_eq "client: recv_size" "$(echo "$req" | jget recv_size)" 4096
