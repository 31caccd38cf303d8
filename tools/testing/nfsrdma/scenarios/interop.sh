# SPDX-License-Identifier: GPL-2.0
# Two hosts that may run different kernels (6.12, 7.3) and different
# rpcrdma.ko (ours, stock) agree on what RFC 8797 makes of their
# Private Data. The client runs with 8 KiB / 16 KiB inline sizes (Debian
# builds both kernels with CONFIG_SUNRPC_DEBUG, so stock takes them too)
# and the server with the max_req_size the host passed (E2E_SERVER_SYSCTL).
# What each end puts on the wire is read there: the server's accept
# through rpcrdma-cm probe, the client's connect request through
# rpcrdma-cm listen on the client's own address. rpcrdma-cm negotiate
# turns the two into the thresholds and the Send With Invalidate
# decision, and every view a kernel gives of the connection must equal
# them: the xprtrdma_inline_thresh tracepoint (ours and stock), our
# client's rpcrdma_cm file, our server's connections file (published
# by the server VM under /export/.e2e). Data goes both ways under an
# md5 check.
R=/proc/sys/sunrpc
SELF=192.0.2.2
[ "$E2E_ROLE" = client ] || fail "interop needs a two-host run"
say "client: kernel $(uname -r), rpcrdma=$E2E_RPCRDMA; server: kernel ${E2E_SERVER_KERNEL:-?}, rpcrdma=$E2E_SERVER_RPCRDMA"

run sh -c "echo 8192 >$R/rdma_max_inline_write"
run sh -c "echo 16384 >$R/rdma_max_inline_read"

# The server's accept, as the wire carries it
out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT") || fail "probe exited with status $?"
echo "$out"
expect_eq "server Private Data found" "$(echo "$out" | jget found)" true
s_send=$(echo "$out" | jget send_size)
s_recv=$(echo "$out" | jget recv_size)
s_r=$(echo "$out" | jget remote_inv)
# Stock or ours, nfsd advertises its max_req_size both ways
want_size=$(echo " $E2E_SERVER_SYSCTL " | sed -n 's/.* sunrpc\.svc_rdma\.max_req_size=\([0-9]*\) .*/\1/p')
expect_eq "server Send Size on the wire" "$s_send" "${want_size:-4096}"
expect_eq "server Receive Size on the wire" "$s_recv" "${want_size:-4096}"
s_hex=$(rpcrdma-cm --json encode --send "$s_send" --recv "$s_recv" \
	$([ "$s_r" = true ] || echo --no-remote-invalidate) | jget hex)

# The client's connect request, as the wire carries it
ev=$(E2E_SERVER=$SELF client_pdata 20070)
echo "$ev"
expect_eq "client Private Data found" "$(echo "$ev" | jget found)" true
c_send=$(echo "$ev" | jget send_size)
c_recv=$(echo "$ev" | jget recv_size)
c_r=$(echo "$ev" | jget remote_inv)
expect_eq "client Send Size on the wire" "$c_send" 8192
expect_eq "client Receive Size on the wire" "$c_recv" 16384

# What RFC 8797 makes of the two
want=$(rpcrdma-cm --json negotiate --role client --send "$c_send" --recv "$c_recv" \
	$([ "$c_r" = true ] || echo --no-remote-invalidate) --peer "$s_hex") ||
	fail "rpcrdma-cm negotiate failed"
echo "$want"
c2s=$(echo "$want" | jget client_to_server)
s2c=$(echo "$want" | jget server_to_client)
swi=$(echo "$want" | jget send_with_inv)
yn=no
[ "$swi" = true ] && yn=yes
say "predicted: client_to_server=$c2s server_to_client=$s2c send_with_inv=$yn"

# The mount, and the client's views of it
mount_traced /mnt/io
case "$THRESH_EVENT" in
*"neg send/recv=$c2s/$s2c,"*) pass "client tracepoint: $c2s/$s2c" ;;
*) fail "client tracepoint: expected neg send/recv=$c2s/$s2c, got: ${THRESH_EVENT:-no event}" ;;
esac
if [ "$E2E_RPCRDMA" = ours ]; then
	f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
	cat "$f"
	expect_eq "client client_to_server" "$(field client_to_server <"$f")" "$c2s"
	expect_eq "client server_to_client" "$(field server_to_client <"$f")" "$s2c"
	expect_eq "client send_with_inv" "$(field send_with_inv <"$f")" "$yn"
fi

workload /mnt/io

# The server's view, through the control channel
if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
	# (a probe's connection from this host may take a moment to go)
	v=/tmp/server-view i=0
	until ctl conns >$v.all && [ "$(grep -c "^peer: $SELF:" $v.all)" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 10 ] || break
		sleep 1
	done
	cat $v.all
	expect_eq "the server's connections from this client" "$(grep -c "^peer: $SELF:" $v.all)" 1
	awk -v p="peer: $SELF:" 'index($0, p) == 1 { on = 1 } on && $0 == "" { exit } on' $v.all >$v
	expect_eq "server client_send_size" "$(field client_send_size <$v)" "$c_send"
	expect_eq "server client_recv_size" "$(field client_recv_size <$v)" "$c_recv"
	expect_eq "server client_to_server" "$(field client_to_server <$v)" "$c2s"
	expect_eq "server server_to_client" "$(field server_to_client <$v)" "$s2c"
	expect_eq "server send_with_inv" "$(field send_with_inv <$v)" "$yn"
	expect_eq "server replies_too_large" "$(field replies_too_large <$v)" 0
else
	# Stock nfsd keeps no per-connection view; its accept (above) is
	# all it reports
	ctl conns
	say "stock server: no per-connection view to compare"
fi
run umount /mnt/io
