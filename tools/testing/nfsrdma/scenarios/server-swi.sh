# SPDX-License-Identifier: GPL-2.0
# Send With Invalidate only when both ends set R (RFC 8797 Section 4.1).
# What each end sets is read off the wire: nfsd's accept through
# rpcrdma-cm probe, the kernel client's connect request through
# rpcrdma-cm listen. nfsd's Sends are read from the
# rpcrdma:svcrdma_post_send tracepoint, which stock kernels have too:
# a Send With Invalidate carries a non-zero inv_rkey. The first case
# runs at the defaults, so stock nfsd is judged by what it does there:
# it advertises R clear, yet invalidates for a client that set R.
# Ours is then also run with each end's R switched off, and its own
# counters must agree with the decision: nfsd's connections file counts
# Sends by kind, the client's rpcrdma_cm file the replies that arrived
# invalidated.
# After each unmount, the connection leaves nfsd's file.
C=/sys/kernel/debug/sunrpc/svc_rdma/connections
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
port=20080
local_nfsd
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
echo 1 >$T/events/rpcrdma/svcrdma_post_send/enable || fail "no svcrdma_post_send tracepoint"
# The next scenario starts from the defaults, even after a failure here
trap 'umount /mnt/swi 2>/dev/null
      echo 0 >$T/events/rpcrdma/svcrdma_post_send/enable
      echo 1 >$S/remote_invalidate; echo 1 >$R/rdma_remote_invalidate' EXIT

# swi NAME [SERVER-SWITCH CLIENT-SWITCH]: the sysctls (ours), then check
swi() {
	local f out ev s_r c_r want inv plain n_inv n_plain n_seen_inv
	if [ $# = 3 ]; then
		run sh -c "echo $2 >$S/remote_invalidate"
		run sh -c "echo $3 >$R/rdma_remote_invalidate"
	fi
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT") || fail "$1: probe exited with status $?"
	s_r=$(echo "$out" | jget remote_inv)
	port=$((port + 1))
	ev=$(client_pdata $port)
	c_r=$(echo "$ev" | jget remote_inv)
	[ -n "$s_r" ] && [ -n "$c_r" ] || fail "$1: R not read off the wire (server '$s_r', client '$c_r')"
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
		fail "$1: $n_inv Sends With Invalidate while nfsd advertised R=$s_r and the client R=$c_r (Section 4.1 allows none)"
	fi

	if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
		f=$(xprt_cm_file "$E2E_PORT") || fail "$1: no rpcrdma_cm file"
		cat "$f" $C
		expect_eq "$1: connections listed" "$(grep -c '^peer: ' $C)" 1
		expect_eq "$1: server R" "$(field server_remote_inv <$C)" \
			"$([ "$s_r" = true ] && echo yes || echo no)"
		expect_eq "$1: client R seen by nfsd" "$(field client_remote_inv <$C)" \
			"$([ "$c_r" = true ] && echo yes || echo no)"
		expect_eq "$1: nfsd send_with_inv" "$(field send_with_inv <$C)" "$want"
		expect_eq "$1: client send_with_inv" "$(field send_with_inv <"$f")" "$want"
		# Each view must agree with the decision. The counts are not
		# compared with each other or with the trace: on 7.3 an earlier
		# mount's transport lingers and was seen adding a Send or a
		# reply to one view and not the other.
		inv=$(field sends_with_inv <$C)
		n_seen_inv=$(field replies_with_inv <"$f")
		plain=$(field sends_plain <$C)
		expect_ge "$1: plain Sends counted" "$plain" 1
		if [ "$want" = yes ]; then
			expect_ge "$1: Sends With Invalidate counted by nfsd" "$inv" 1
			expect_ge "$1: replies the client saw invalidated" "$n_seen_inv" 1
		else
			expect_eq "$1: Sends With Invalidate counted by nfsd" "$inv" 0
			expect_eq "$1: replies the client saw invalidated" "$n_seen_inv" 0
		fi
		expect_eq "$1: replies_too_large" "$(field replies_too_large <$C)" 0
	fi
	run rm /mnt/swi/swi
	run umount /mnt/swi
	if [ "$E2E_SERVER_RPCRDMA" = ours ]; then
		wait_for "nfsd to drop the connection from $C" 20 sh -c "! grep -q '^peer: ' $C"
	fi
}

swi defaults
[ "$E2E_SERVER_RPCRDMA" = ours ] || exit 0
swi both-R        1 1
swi server-off    0 1
swi client-no-R   1 0
run sh -c "echo 1 >$S/remote_invalidate"
run sh -c "echo 1 >$R/rdma_remote_invalidate"
