# SPDX-License-Identifier: GPL-2.0
# Send With Invalidate only when both ends set R (RFC 8797 Section 4.1).
# What each end sets is read off the wire: the kernel client's connect
# request through rpcrdma-cm listen, then nfsd's accept to a client of
# that R through rpcrdma-cm probe (ours echoes the client's R). nfsd's Sends are read from the
# rpcrdma:svcrdma_post_send tracepoint, which stock kernels have too:
# a Send With Invalidate carries a non-zero inv_rkey. The first case
# runs at the defaults, so stock nfsd is judged by what it does there:
# it advertises R clear, yet invalidates for a client that set R.
# Ours is then also run with each end's R switched off, and each end's
# own record must agree with the decision: nfsd's svcrdma_cm_accept
# and the client's xprtrdma_inline_thresh event, and the Replies the
# client saw arrive invalidated (one xprtrdma_mr_reminv event each).
# nfsd holds that one connection, sends no Reply too large, and frees
# the connection after the unmount (sunrpc:svc_xprt_accept and
# svc_xprt_free, lib.sh's conns_live).
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
port=20080
local_nfsd
# Ours has more to show; stock's first case must fail for its Sends
# alone, so only ours turns on the events stock lacks
events="svcrdma_post_send"
[ "$E2E_SERVER_RPCRDMA" = ours ] &&
	events="$events svcrdma_cm_accept svcrdma_reply_too_large xprtrdma_inline_thresh xprtrdma_mr_reminv"
trap 'umount /mnt/swi 2>/dev/null' EXIT
for e in $events; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no $e tracepoint"
done

# swi NAME [SERVER-SWITCH CLIENT-SWITCH]: the sysctls (ours), then check
swi() {
	local out ev s_r c_r want w n_inv n_plain n_seen_inv
	if [ $# = 3 ]; then
		run sh -c "echo $2 >$S/remote_invalidate"
		run sh -c "echo $3 >$R/rdma_remote_invalidate"
	fi
	port=$((port + 1))
	ev=$(client_pdata $port)
	c_r=$(echo "$ev" | jget remote_inv)
	# What nfsd answers a client with the kernel client's R (ours
	# echoes it, RFC 8797 Section 4.1)
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT" \
		$([ "$c_r" = false ] && echo --no-remote-invalidate)) ||
		fail_scenario "$1: probe exited with status $?"
	s_r=$(echo "$out" | jget remote_inv)
	# The probe's connection is gone before the mount's is counted
	[ "$E2E_SERVER_RPCRDMA" != ours ] || wait_conns 0 20 "$1: after the probe"
	[ -n "$s_r" ] && [ -n "$c_r" ] || fail_scenario "$1: R not read off the wire (server '$s_r', client '$c_r')"
	want=no
	[ "$s_r" = true ] && [ "$c_r" = true ] && want=yes
	say "$1: nfsd advertises R=$s_r, the client R=$c_r: Send With Invalidate $want"

	echo >$T/trace
	nfs_mount 4.1 /mnt/swi
	# O_DIRECT reads and writes of 64 KiB use chunks, whose R_keys
	# a server may invalidate
	run dd if=/dev/urandom of=/tmp/swi bs=64k count=16 2>/dev/null
	run dd if=/tmp/swi of=/mnt/swi/swi bs=64k oflag=direct 2>/dev/null
	run dd if=/mnt/swi/swi of=/tmp/swi.back bs=64k iflag=direct 2>/dev/null
	expect_eq "$1: checksum" "$(md5sum </tmp/swi.back)" "$(md5sum </tmp/swi)"
	n_inv=$(grep svcrdma_post_send $T/trace | grep -vc 'inv_rkey=0x00000000')
	n_plain=$(grep svcrdma_post_send $T/trace | grep -c 'inv_rkey=0x00000000')
	say "$1: traced Sends: $n_plain plain, $n_inv with invalidate"
	expect_ge "$1: plain Sends traced" "$n_plain" 1
	if [ "$want" = yes ]; then
		expect_ge "$1: Sends With Invalidate traced" "$n_inv" 1
	elif [ "$n_inv" != 0 ]; then
		fail_scenario "$1: $n_inv Sends With Invalidate while nfsd advertised R=$s_r and the client R=$c_r (Section 4.1 allows none)"
	fi

	if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
		# R as 1 or 0, as the events print it
		s_r=$([ "$s_r" = true ] && echo 1 || echo 0)
		c_r=$([ "$c_r" = true ] && echo 1 || echo 0)
		w=$([ "$want" = yes ] && echo 1 || echo 0)
		expect_eq "$1: connections nfsd accepted for the mount" \
			"$(grep -c 'svcrdma_cm_accept:' $T/trace)" 1
		expect_tp "$1: nfsd" "$(grep -m1 'svcrdma_cm_accept:' $T/trace)" \
			server_remote_inv=$s_r client_remote_inv=$c_r send_with_inv=$w
		expect_tp "$1: client" "$(grep -m1 'xprtrdma_inline_thresh:' $T/trace)" \
			client_remote_inv=$c_r server_remote_inv=$s_r send_with_inv=$w
		n_seen_inv=$(grep -c 'xprtrdma_mr_reminv:' $T/trace)
		if [ "$want" = yes ]; then
			expect_ge "$1: Replies the client saw invalidated" "$n_seen_inv" 1
		else
			expect_eq "$1: Replies the client saw invalidated" "$n_seen_inv" 0
		fi
		expect_eq "$1: connections nfsd holds" "$(conns_live)" 1
		expect_eq "$1: Replies too large for the client" \
			"$(grep -c 'svcrdma_reply_too_large:' $T/trace)" 0
	fi
	run rm /mnt/swi/swi
	nfs_umount /mnt/swi
	if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
		wait_conns 0 20 "$1: after the unmount"
	fi
}

swi defaults
[ "$E2E_SERVER_RPCRDMA" = ours ] || skip "the rest needs our module on the server (its remote_invalidate sysctl)"
swi both-R        1 1
swi server-off    0 1
swi client-no-R   1 0
run sh -c "echo 1 >$S/remote_invalidate"
run sh -c "echo 1 >$R/rdma_remote_invalidate"
