# SPDX-License-Identifier: GPL-2.0
# Our client against rpcrdma-cm listen answering with crafted Private
# Data. For each answer, the rpcrdma:xprtrdma_inline_thresh tracepoint
# must show exactly what RFC 8797 demands of a client that advertises
# 4096/4096 with R set: where the server's message was found (offset),
# its Version, what it says and what the client negotiated from it.
# The IB CM pads an accept reply to 196 octets with zeroes, so six
# octets "f6ab0e18 01 01" arrive as a valid message of 1024/1024.
T=/sys/kernel/tracing
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail_scenario "no tracepoint"
port=20060

# check NAME LISTEN-OPTIONS STATUS OFFSET VERSION S_SEND S_RECV S_R C2S S2C SWI
check() {
	local name=$1 opts=$2 line lpid i=0
	port=$((port + 1))
	echo >$T/trace
	# shellcheck disable=SC2086
	rpcrdma-cm --json listen $port --count 1 --hold 4 --timeout 120 $opts \
		>/tmp/peer.out 2>&1 &
	lpid=$!
	listening /tmp/peer.out $lpid
	mkdir -p /mnt/peer
	mount.nfs "$E2E_SERVER:/" /mnt/peer \
		-o "proto=rdma,port=$port,vers=4.1,soft,timeo=100,retrans=1" >/dev/null 2>&1 &
	# The event of the connection to this port, once it is established
	until line=$(grep -m1 "xprtrdma_inline_thresh: .* -> [^ ]*:$port " $T/trace); do
		i=$((i + 1))
		[ $i -lt 240 ] || fail_scenario "$name: no xprtrdma_inline_thresh event for port $port in 60 s"
		sleep 0.25
	done
	expect_tp "$name" "$line" server_status="$3" server_offset="$4" server_version="$5" \
		server_send="$6" server_recv="$7" server_remote_inv="$8" \
		neg_send="$9" neg_recv="${10}" c2s="$9" s2c="${10}" send_with_inv="${11}" \
		client_send=4096 client_recv=4096 client_remote_inv=1
	killall -q -9 mount.nfs rpcrdma-cm 2>/dev/null
	wait
}

#     name          listen options                         status      off ver send   recv   R c2s  s2c  swi
check none         "--none"                                absent      -1  0   1024   1024   0 1024 1024 0
check foreign      "--raw 0102030405060708"                absent      -1  0   1024   1024   0 1024 1024 0
check version-2    "--raw f6ab0e1802010f0f"                bad-version 0   2   1024   1024   0 1024 1024 0
check six-octets   "--raw f6ab0e180101"                    valid       0   1   1024   1024   1 1024 1024 1
check offset-3     "--raw 000000f6ab0e1801010703"          valid       3   1   8192   4096   1 4096 4096 1
check 1k-256k-R    "--send 1K --recv 256K"                 valid       0   1   1024   262144 1 4096 1024 1
check 256k-1k-noR  "--send 256K --recv 1K --no-remote-invalidate" valid 0 1 262144 1024   0 1024 4096 0
