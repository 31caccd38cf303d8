# SPDX-License-Identifier: GPL-2.0
# nfsd records what the client's connect Private Data says, exactly as
# RFC 8797 reads it, for well-formed, crafted and missing data, and
# keeps serving, setting R only for a client that set R. The
# svcrdma_cm_accept tracepoint shows the record.
T=/sys/kernel/tracing
local_nfsd
echo 4096 >/proc/sys/sunrpc/svc_rdma/max_req_size
echo 1 >$T/events/rpcrdma/svcrdma_cm_accept/enable ||
	fail_scenario "no svcrdma_cm_accept tracepoint"

# check NAME PROBE-OPTIONS EXPECTED-TRACE-TEXT
check() {
	local line i
	echo >$T/trace
	# shellcheck disable=SC2086
	rpcrdma-cm probe "$E2E_SERVER" "$E2E_PORT" $2 >/dev/null ||
		fail_scenario "$1: nfsd did not accept (probe status $?)"
	i=0
	until line=$(grep -m1 svcrdma_cm_accept $T/trace); do
		i=$((i + 1))
		[ $i -lt 20 ] || fail_scenario "$1: no svcrdma_cm_accept event"
		sleep 0.1
	done
	echo "$line"
	# The event ends with the Receive Size nfsd wanted: all it got here
	case "$line" in
	*"client status=$3 recv_wanted=4096") ;;
	*) fail_scenario "$1: expected 'client status=$3 recv_wanted=4096' in: $line" ;;
	esac
}

# nfsd's own R echoes the client's (RFC 8797 Section 4.1)
S1="server send/recv=4096/4096 remote_inv=1"
S0="server send/recv=4096/4096 remote_inv=0"
#     name           probe options                    what nfsd must record
check well-formed   "--send 8K --recv 16K"            "valid offset=0 version=1 send/recv=8192/16384 remote_inv=1, $S1, c2s/s2c=4096/4096 send_with_inv=1"
check no-R          "--send 1K --recv 2K --no-remote-invalidate" "valid offset=0 version=1 send/recv=1024/2048 remote_inv=0, $S0, c2s/s2c=1024/2048 send_with_inv=0"
check none          "--none"                          "absent offset=-1 version=0 send/recv=1024/1024 remote_inv=0, $S0, c2s/s2c=1024/1024 send_with_inv=0"
check foreign       "--raw 0102030405060708"          "absent offset=-1 version=0 send/recv=1024/1024 remote_inv=0, $S0, c2s/s2c=1024/1024 send_with_inv=0"
check offset-7      "--raw 00000000000000f6ab0e1801010f3f" "valid offset=7 version=1 send/recv=16384/65536 remote_inv=1, $S1, c2s/s2c=4096/4096 send_with_inv=1"
check version-2     "--raw f6ab0e1802010f0f"          "bad-version offset=0 version=2 send/recv=1024/1024 remote_inv=0, $S0, c2s/s2c=1024/1024 send_with_inv=0"
check reserved-R    "--raw f6ab0e1801ff0303"          "valid offset=0 version=1 send/recv=4096/4096 remote_inv=1, $S1, c2s/s2c=4096/4096 send_with_inv=1"
check reserved-noR  "--raw f6ab0e1801fe0303"          "valid offset=0 version=1 send/recv=4096/4096 remote_inv=0, $S0, c2s/s2c=4096/4096 send_with_inv=0"
check sizes-0-255   "--raw f6ab0e18010000ff"          "valid offset=0 version=1 send/recv=1024/262144 remote_inv=0, $S0, c2s/s2c=1024/4096 send_with_inv=0"
check sizes-255-0   "--raw f6ab0e180100ff00"          "valid offset=0 version=1 send/recv=262144/1024 remote_inv=0, $S0, c2s/s2c=4096/1024 send_with_inv=0"
# Six octets: the connect request carries at least the CM's minimum of
# Private Data, so the IB CM pads the message with zeroes: sizes 1024.
# iWARP hands nfsd exactly the six: a message cut short, so none.
if [ "$E2E_RDMA" = siw ]; then
check six-octets    "--raw f6ab0e180101"              "truncated offset=0 version=0 send/recv=1024/1024 remote_inv=0, $S0, c2s/s2c=1024/1024 send_with_inv=0"
else
check six-octets    "--raw f6ab0e180101"              "valid offset=0 version=1 send/recv=1024/1024 remote_inv=1, $S1, c2s/s2c=1024/1024 send_with_inv=1"
fi
# Octets after the message, as a peer may send: the message is read
check trailing      "--raw f6ab0e1801010303deadbeef" "valid offset=0 version=1 send/recv=4096/4096 remote_inv=1, $S1, c2s/s2c=4096/4096 send_with_inv=1"

still_serves "after crafted peers"
