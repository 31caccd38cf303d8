# SPDX-License-Identifier: GPL-2.0
# Our client against a server that breaks the connection right after
# each answer, so that the LocalInv the client posts for the Call's
# Reply chunk is flushed and the Reply dropped, over and over: the
# Receive buffer that carried each dropped Reply must go back to the
# transport's free list (xprtrdma: "Return the Receive buffers that a
# lost connection drops"). The kernel NFS client mounts rpcrdma-serve,
# which advertises a 1 KiB Send Size and clears R, so EXCHANGE_ID
# carries a Reply chunk. The first 20 EXCHANGE_IDs are answered
# (NFS4ERR_DELAY) and, right behind each answer, rpcrdma-serve Sends a
# message larger than the client's Receive Size (--break-after-reply):
# the client's next Receive fails and its QP goes to error while it
# still handles the answer, so the LocalInv flushes or cannot be
# posted. (A plain rdma_disconnect after the answer reaches the client
# through the CM well after its LocalInv has completed: on soft-RoCE
# it flushed none of 20.) The client reconnects and sends its Call
# again (the same XID when its Reply was dropped, a new one after 1 s
# when it took the DELAY); the 21st gets PROC_UNAVAIL, which ends the
# mount.
#
# What shows a lost Receive buffer from user space: a rep the client
# drops stays counted in rb_reps_count but never comes back to the free
# list, so each connect (rpcrdma_reps_fill()) makes a new one in its
# place. A kprobe on rpcrdma_rep_create counts the reps made between
# one connect (rpcrdma:xprtrdma_connect) and the next: after the first
# connection's credit grant they are all made, and from the third
# connect on none may be made.
T=/sys/kernel/tracing
port=20071
cycles=20
KP=rpcrdma_serve/rep_create
echo "-:$KP" >>$T/kprobe_events 2>/dev/null
echo "p:$KP rpcrdma:rpcrdma_rep_create" >>$T/kprobe_events ||
	skip "a kprobe on rpcrdma_rep_create (CONFIG_KPROBE_EVENTS)"
[ -e $T/events/$KP/enable ] || fail_scenario "no kprobe event $KP"
for e in xprtrdma_connect xprtrdma_reply xprtrdma_wc_li_done xprtrdma_post_linv_err; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no rpcrdma:$e tracepoint"
done
echo 8192 >$T/buffer_size_kb
bad0=$(bad_kernel_lines)

# late_drops: Replies dropped (their LocalInv flushed or not posted) on
# the second connection or a later one: a Receive buffer lost there is
# made anew at a connect that the count of late reps below sees
late_drops() {
	awk '/ xprtrdma_connect: / { c++ }
	     c >= 2 && (/ xprtrdma_post_linv_err: / ||
			(/ xprtrdma_wc_li_done: / && !/status=SUCCESS/)) { n++ }
	     END { print n + 0 }' $T/trace
}

# Whether a LocalInv is still pending when the QP breaks is a race the
# client mostly wins (on 7.3 over soft-RoCE, 1 to 3 Replies of 20 are
# dropped): a mount of 20 cycles is tried up to 5 times, until one
# drops a Reply after its first connection, and that mount is the one
# checked
for round in 1 2 3 4 5; do
	echo >$T/trace
	echo 1 >$T/events/$KP/enable || fail_scenario "cannot enable the kprobe $KP"
	serve_mount $port soft,timeo=600,retrans=2,retry=0 \
		--send 1K --break-after-reply --times $cycles --compound delay --timeout 300
	echo 0 >$T/events/$KP/enable
	grep -v '"event": "connect-request"' /tmp/serve.out
	[ "$MOUNT_STATUS" != 0 ] || fail_scenario "the mount succeeded against a server that answers no Call with what it needs"
	dropped=$(late_drops)
	echo "mount $round: $dropped Replies dropped after the first connection"
	[ "$dropped" = 0 ] || break
done

# The server: every answer followed by its oversized Send (the
# disconnect event comes only when the client has not closed the
# connection first), and the client back each time
expect_eq "answers followed by a Send the client cannot receive" \
	"$(grep '"event": "answer"' /tmp/serve.out | grep -c '"misbehaved": true')" $cycles
expect_ge "connections established" "$(grep -c '"event": "established"' /tmp/serve.out)" $((cycles + 1))
calls=$(grep '"event": "call"' /tmp/serve.out | grep '"reply_chunk": true')
expect_ge "Calls with a Reply chunk (EXCHANGE_ID)" "$(echo "$calls" | grep -c '"nfs_first_op": 42')" $((cycles + 1))
expect_eq "Calls whose RPC XID differs from the transport header's" \
	"$(grep '"event": "call"' /tmp/serve.out | grep -c '"xid_match": false')" 0

# The client: how many Replies it dropped because their LocalInv was
# flushed (or could not be posted), and the server's view of the same:
# each dropped Reply's Call is sent again, with its XID
flushed=$(grep 'xprtrdma_wc_li_done:' $T/trace | grep -vc 'status=SUCCESS')
unposted=$(grep -c 'xprtrdma_post_linv_err:' $T/trace)
retrans=$(echo "$calls" | grep -c '"retransmission": true')
echo "Replies dropped: $flushed LocalInvs flushed, $unposted not posted; Calls the server saw again: $retrans"
expect_ge "Replies dropped for a flushed LocalInv after the first connection" "$(late_drops)" 1
expect_eq "Calls sent again, one per Reply dropped" "$retrans" $((flushed + unposted))

# The reps made, connection by connection
per_conn=$(awk -v kp="${KP#*/}:" '
	/ xprtrdma_connect: / { c++ }
	index($0, " " kp) { n[c]++ }
	END { for (i = 0; i <= c; i++) printf "%d ", n[i] + 0; printf "\n" }' $T/trace)
echo "reps made before the 1st connect, then after each connect: $per_conn"
late=$(echo "$per_conn" | awk '{ for (i = 4; i <= NF; i++) n += $i; print n + 0 }')
expect_ge "reps made after the 1st connect (the kprobe counts them)" "$(echo "$per_conn" | awk '{ print $2 + 0 }')" 1
expect_ge "connects traced" "$(grep -c ' xprtrdma_connect: ' $T/trace)" $((cycles + 1))
expect_eq "reps made after the 3rd connect (Receive buffers lost)" "$late" 0
bad=$(bad_kernel_lines)
[ "$bad" = "$bad0" ] || dmesg | grep -E 'WARNING:|BUG[: ]|Oops|KASAN|UBSAN|general protection|corruption|refcount_t: |double free' | tail -n 5
expect_eq "kernel bug reports in dmesg" $((bad - bad0)) 0
echo "-:$KP" >>$T/kprobe_events
