# SPDX-License-Identifier: GPL-2.0
# Our client against rpcrdma-cm listen answering with crafted Private
# Data. For each answer, the rpcrdma_cm debugfs file and the
# rpcrdma:xprtrdma_inline_thresh tracepoint must show exactly what
# RFC 8797 demands of a client that advertises 4096/4096 with R set.
# The IB CM pads an accept reply to 196 octets with zeroes, so six
# octets "f6ab0e18 01 01" arrive as a valid message of 1024/1024.
T=/sys/kernel/tracing
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail "no tracepoint"
port=20060

# check NAME LISTEN-OPTIONS STATUS OFFSET S_SEND S_RECV S_R C2S S2C SWI
check() {
	local name=$1 opts=$2 f line lpid i=0
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
	until f=$(xprt_cm_file $port) && [ -n "$(field client_to_server <"$f")" ]; do
		i=$((i + 1))
		[ $i -lt 240 ] || fail "$name: no negotiated rpcrdma_cm file for port $port in 60 s"
		sleep 0.25
	done
	cat "$f"
	expect_eq "$name: server_private_data_status" "$(field server_private_data_status <"$f")" "$3"
	expect_eq "$name: server_private_data_offset" "$(field server_private_data_offset <"$f")" "$4"
	expect_eq "$name: server_send_size" "$(field server_send_size <"$f")" "$5"
	expect_eq "$name: server_recv_size" "$(field server_recv_size <"$f")" "$6"
	expect_eq "$name: server_remote_inv" "$(field server_remote_inv <"$f")" "$7"
	expect_eq "$name: client_to_server" "$(field client_to_server <"$f")" "$8"
	expect_eq "$name: server_to_client" "$(field server_to_client <"$f")" "$9"
	expect_eq "$name: send_with_inv" "$(field send_with_inv <"$f")" "${10}"
	line=$(grep -m1 xprtrdma_inline_thresh $T/trace)
	echo "$line"
	case "$line" in
	*"neg send/recv=$8/$9,"*"server $3 send/recv=$5/$6"*) ;;
	*) fail "$name: tracepoint does not show $8/$9 and server $3 $5/$6: $line" ;;
	esac
	killall -q -9 mount.nfs rpcrdma-cm 2>/dev/null
	wait
}

#     name          listen options                         status      off send   recv   R   c2s  s2c  swi
check none         "--none"                                absent      -1  1024   1024   no  1024 1024 no
check foreign      "--raw 0102030405060708"                absent      -1  1024   1024   no  1024 1024 no
check version-2    "--raw f6ab0e1802010f0f"                bad-version 0   1024   1024   no  1024 1024 no
check six-octets   "--raw f6ab0e180101"                    valid       0   1024   1024   yes 1024 1024 yes
check offset-3     "--raw 000000f6ab0e1801010703"          valid       3   8192   4096   yes 4096 4096 yes
check 1k-256k-R    "--send 1K --recv 256K"                 valid       0   1024   262144 yes 4096 1024 yes
check 256k-1k-noR  "--send 256K --recv 1K --no-remote-invalidate" valid 0 262144 1024   no  1024 4096 no
