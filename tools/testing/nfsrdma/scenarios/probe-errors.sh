# SPDX-License-Identifier: GPL-2.0
# rpcrdma-cm probe tells connection failures apart by exit code: 4 when
# nothing listens on the port (the CM rejects the request; on iWARP the
# TCP connection is refused, which rdma_connect() itself returns). For an
# address nobody holds: on a real link ARP fails, which is 3 (no route);
# the single VM's dummy link needs no ARP, so the connect request goes
# unanswered, which is 6 (timeout) when probe's own --timeout (4 s)
# runs out. The other limits are far above what a rejection or the
# kernel's 2 s address resolution takes, so that a slow guest still gets
# those answers.
local_nfsd
rpcrdma-cm --json probe "$E2E_SERVER" 20999 --timeout 60 >/tmp/rej.out 2>/tmp/rej.err
expect_eq "probe of a closed port: exit status" "$?" 4
cat /tmp/rej.out /tmp/rej.err
expect_eq "probe of a closed port: error" "$(jget error </tmp/rej.out)" rejected

if [ "$E2E_ROLE" = client ]; then
	want_rc=3 want_error=no-route limit=30
elif [ "$E2E_RDMA" = siw ]; then
	# soft-iWARP opens the TCP connection inside rdma_connect(), which
	# waits for TCP's SYN timeout: one retry makes that about 3 s, and
	# the timed-out connect is "unreachable", as iw_cm reports it
	syn=$(cat /proc/sys/net/ipv4/tcp_syn_retries)
	trap 'echo $syn >/proc/sys/net/ipv4/tcp_syn_retries' EXIT
	echo 1 >/proc/sys/net/ipv4/tcp_syn_retries
	want_rc=5 want_error=unreachable limit=4
else
	want_rc=6 want_error=timeout limit=4
fi
rpcrdma-cm --json probe 192.0.2.99 --timeout $limit >/tmp/nr.out 2>/tmp/nr.err
rc=$?
cat /tmp/nr.out /tmp/nr.err
expect_eq "probe of an absent host: exit status" "$rc" "$want_rc"
expect_eq "probe of an absent host: error" "$(jget error </tmp/nr.out)" "$want_error"
