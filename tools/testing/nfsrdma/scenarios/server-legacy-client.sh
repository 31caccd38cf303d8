# SPDX-License-Identifier: GPL-2.0
# RFC 8797 Section 4.2: a server never Sends more than the client's
# Receive Size. rpcrdma-call plays the client: it posts Receives of
# exactly the size its Private Data implies and sends a READDIR whose
# reply is about 3000 octets, with no Reply chunk to put it in. A legacy
# client (no Private Data: 1024 octets) and one that advertises 1 KiB
# must get RDMA_ERROR ERR_CHUNK instead, and their connection must
# still work: a NULL call right after it succeeds. A client that
# advertises 64 KiB gets the same reply inline.
# The stock server fails here: it Sends up to its own 4 KiB whatever the
# client advertised, and the client's Receive completes in error.

local_nfsd
fill_root 300

# With nfsd in this VM, its svcrdma_reply_too_large tracepoint must
# name each refused reply
T=/sys/kernel/tracing
traced=false
if [ "$E2E_ROLE" != client ] &&
   echo 1 >$T/events/rpcrdma/svcrdma_reply_too_large/enable 2>/dev/null; then
	traced=true
fi

for client in "--none" "--recv 1K"; do
	$traced && echo >$T/trace
	call_server $client --reply-size 3000 --then-null
	expect_reply "client $client" /tmp/call.out readdir
	expect_eq "client $client: readdir: posted_size" "$(echo "$ANSWER" | jget posted_size)" 1024
	expect_eq "client $client: readdir: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
	expect_eq "client $client: readdir: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
	expect_reply "client $client" /tmp/call.out null
	expect_eq "client $client: null: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
	expect_eq "client $client: null: rpc_accept_stat" "$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS
	expect_eq "client $client: exit status" "$CALL_RC" 0
	if $traced; then
		line=$(grep -m1 svcrdma_reply_too_large $T/trace)
		echo "$line"
		case "$line" in
		*" threshold=1024 client_recv=1024"*) ;;
		*) fail_scenario "client $client: svcrdma_reply_too_large not traced: ${line:-no event}" ;;
		esac
	fi
done

call_server --recv 64K --reply-size 3000
expect_reply "client --recv 64K" /tmp/call.out readdir
expect_eq "client --recv 64K: readdir: posted_size" "$(echo "$ANSWER" | jget posted_size)" 65536
expect_eq "client --recv 64K: readdir: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
expect_ge "client --recv 64K: readdir: byte_len" "$(echo "$ANSWER" | jget byte_len)" 1025
expect_eq "client --recv 64K: readdir: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
expect_eq "client --recv 64K: readdir: with_invalidate" "$(echo "$ANSWER" | jget with_invalidate)" false
expect_eq "client --recv 64K: exit status" "$CALL_RC" 0
