# RFC 8797 Section 4.2: a server never Sends more than the client's
# Receive Size. rpcrdma-cm call plays the client: it posts Receives of
# exactly the size its Private Data implies and sends a READDIR whose
# reply is about 3000 octets, with no Reply chunk to put it in. A legacy
# client (no Private Data: 1024 octets) and one that advertises 1 KiB
# must get RDMA_ERROR ERR_CHUNK instead, and their connection must
# still work: a NULL call right after it succeeds. A client that
# advertises 64 KiB gets the same reply inline.
# The stock server fails here: it Sends up to its own 4 KiB whatever the
# client advertised, and the client's Receive completes in error.

# answer FILE CALL: the event (a JSON line) that answered CALL
answer() { grep "\"call\": \"$2\"" "$1" | grep -v '"event": "sent"' | head -n 1; }

# expect_reply WHAT FILE CALL: CALL got a well-formed reply, left in $ANSWER
expect_reply() {
	local ev
	ANSWER=$(answer "$2" "$3")
	ev=$(echo "$ANSWER" | jget event)
	[ "$ev" = reply ] ||
		fail "$1: $3: expected a reply, got ${ev:-nothing}${ANSWER:+ ($(echo "$ANSWER" | jget wc_status)$(echo "$ANSWER" | jget detail))}"
	expect_eq "$1: $3: well_formed" "$(echo "$ANSWER" | jget well_formed)" true
}

# call_server OPTIONS...: rpcrdma-cm --json call; output in /tmp/call.out,
# exit status in $CALL_RC
call_server() {
	echo "+ rpcrdma-cm --json call $E2E_SERVER $*"
	rpcrdma-cm --json call "$E2E_SERVER" "$@" >/tmp/call.out 2>/tmp/call.err
	CALL_RC=$?
	cat /tmp/call.out /tmp/call.err
}

local_nfsd
# Enough entries in the export's root, where PUTROOTFH lands (fsid=0),
# for a READDIR reply of any size asked for here: 64 octets each
if [ "$E2E_ROLE" = client ]; then
	nfs_mount 4.1 /mnt/fill
	dir=/mnt/fill
else
	dir=/export
fi
i=0
while [ $i -lt 300 ]; do
	: >"$dir/$(printf 'file-with-a-name-of-forty-characters-%03d' $i)" ||
		fail "creating entry $i in $dir"
	i=$((i + 1))
done
[ "$dir" = /export ] || run umount /mnt/fill

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
		*) fail "client $client: svcrdma_reply_too_large not traced: ${line:-no event}" ;;
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
