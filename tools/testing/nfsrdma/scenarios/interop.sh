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
# them: the xprtrdma_inline_thresh tracepoint (ours and stock; ours
# with both advertisements and Send With Invalidate), our client's
# mountstats line, and our server's svcrdma_cm_accept event (through
# the server VM's control channel), which must also show no Reply too
# large for the client. Data goes both ways under an md5 check.
R=/proc/sys/sunrpc
SELF=192.0.2.2
[ "$E2E_ROLE" = client ] || fail_scenario "interop needs a two-host run"
say "client: kernel $(uname -r), rpcrdma=$E2E_RPCRDMA; server: kernel ${E2E_SERVER_KERNEL:-?}, rpcrdma=$E2E_SERVER_RPCRDMA"

run sh -c "echo 8192 >$R/rdma_max_inline_write"
run sh -c "echo 16384 >$R/rdma_max_inline_read"

# The server's accept, as the wire carries it
out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT") || fail_scenario "probe exited with status $?"
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
	fail_scenario "rpcrdma-cm negotiate failed"
echo "$want"
c2s=$(echo "$want" | jget client_to_server)
s2c=$(echo "$want" | jget server_to_client)
swi=$(echo "$want" | jget send_with_inv)
say "predicted: client_to_server=$c2s server_to_client=$s2c send_with_inv=$swi"

# The mount, and the client's views of it; the server records its
# accepts from here on (the probes' connects above are not the mount's)
accepts=$(ctl accepts-on)
mount_traced /mnt/io
case "$THRESH_EVENT" in
*"neg send/recv=$c2s/$s2c,"*) pass "client tracepoint: $c2s/$s2c" ;;
*) fail_scenario "client tracepoint: expected neg send/recv=$c2s/$s2c, got: ${THRESH_EVENT:-no event}" ;;
esac
r01() { [ "$1" = true ] && echo 1 || echo 0; }
if [ "$E2E_RPCRDMA" = ours ]; then
	expect_tp "client tracepoint" "$THRESH_EVENT" \
		client_send="$c_send" client_recv="$c_recv" client_remote_inv="$(r01 "$c_r")" \
		server_status=valid server_send="$s_send" server_recv="$s_recv" \
		server_remote_inv="$(r01 "$s_r")" c2s="$c2s" s2c="$s2c" send_with_inv="$(r01 "$swi")"
	expect_eq "client mountstats" "$(negotiated /mnt/io)" "$c2s/$s2c/$(r01 "$swi")"
fi

workload /mnt/io

# The server's view, through the control channel
if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
	[ "$accepts" = ok ] || fail_scenario "the server VM did not record its accepts: ${accepts:-no answer}"
	ctl accepts >/tmp/accepts
	cat /tmp/accepts
	expect_eq "the server's accepts from this client" \
		"$(grep -cE "svcrdma_cm_accept: addr=${SELF}[: ]" /tmp/accepts)" 1
	expect_tp "server" "$(grep -m1 -E "svcrdma_cm_accept: addr=${SELF}[: ]" /tmp/accepts)" \
		client_status=valid client_send="$c_send" client_recv="$c_recv" \
		client_remote_inv="$(r01 "$c_r")" server_send="$s_send" server_recv="$s_recv" \
		server_remote_inv="$(r01 "$s_r")" c2s="$c2s" s2c="$s2c" send_with_inv="$(r01 "$swi")"
	ctl too-large >/tmp/too-large || fail_scenario "ctl too-large: the server did not answer"
	expect_eq "the server's Replies too large for this client" \
		"$(grep -c 'svcrdma_reply_too_large:' /tmp/too-large)" 0
else
	# Stock nfsd has no per-connection view; its accept (above) is
	# all it reports
	say "stock server: no per-connection view to compare (accepts-on: $accepts)"
fi
nfs_umount /mnt/io
