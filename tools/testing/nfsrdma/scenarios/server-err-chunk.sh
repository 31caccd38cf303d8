# SPDX-License-Identifier: GPL-2.0
# What a caller is told when nfsd answers a non-idempotent request with
# ERR_CHUNK (RFC 8166 Section 4.5.3). rpcrdma-call plays a legacy
# client: no Private Data, so nfsd may Send it 1024 octets (RFC 8797
# Section 5.1), and no Reply chunk. Its COMPOUND creates a directory,
# then reads the root, whose listing takes about 3000 octets. nfsd
# executes the CREATE, finds that the reply cannot go inline and
# answers ERR_CHUNK. A client does not retransmit on ERR_CHUNK (the
# Linux client fails the RPC with EIO), so its caller is told the call
# failed, while the directory exists. The connection stays up. The
# same COMPOUND from a client that can receive 64 KiB gets its reply
# inline, and its directory too. The stock server would instead Send
# the 3000 octets into the legacy client's 1024-octet Receive (see
# server-legacy-client).
#
# Then a Reply chunk of 64 segments: the transport header that echoes
# it is 1056 octets, too large on its own for a client that receives
# 1 KiB (and sends 4 KiB, so that its 1.2 KiB Call is within what it
# advertised). nfsd must answer ERR_CHUNK before it RDMA Writes anything
# into the chunk, whose memory still holds its fill pattern afterwards.
# (7.3's nfsd, in this VM, takes no Reply chunk of 64 segments at all:
# it bounds a chunk's segments by its largest payload in pages and
# answers ERR_CHUNK as it decodes the Call, also before any Write. 6.12
# takes it, so there the header check is what answers.) A 64 KiB client
# offering a chunk of 16 segments gets the reply written there
# (RDMA_NOMSG). Both clear R: the chunk is a plain memory region, which
# the Send With Invalidate nfsd would otherwise use cannot invalidate.
# 7.3's bound is its largest message in its own pages, plus 4: with
# 16 KiB pages (arm64-16k) and a 1 GiB VM's max_block_size that is
# fewer than 16. There 16 segments must get ERR_CHUNK with nothing
# written, and the chunk that gets the reply has as many as the bound.

local_nfsd
fill_root 300

# on_server NAME: the root of the export holds the directory NAME
on_server() {
	local rc
	if [ "$E2E_ROLE" = client ]; then
		nfs_mount 4.1 /mnt/ec
		[ -d "/mnt/ec/$1" ]
		rc=$?
		nfs_umount /mnt/ec
		return $rc
	fi
	[ -d "/export/$1" ]
}

# sent_name: the directory the last call_server asked to create
sent_name() {
	grep '"event": "sent"' /tmp/call.out | grep '"call": "create"' | jget create_name
}

call_server --none --proc create --reply-size 3000 --then-null
name=$(sent_name)
[ -n "$name" ] || fail_scenario "legacy client: no create_name in the sent event"
expect_reply "legacy client" /tmp/call.out create
expect_eq "legacy client: create: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
expect_eq "legacy client: create: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
on_server "$name" ||
	fail_scenario "legacy client: got ERR_CHUNK, but nfsd did not create $name"
pass "legacy client: told ERR_CHUNK (EIO on Linux), yet $name exists"
expect_reply "legacy client" /tmp/call.out null
expect_eq "legacy client: null: rpc_accept_stat" "$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS
expect_eq "legacy client: exit status" "$CALL_RC" 0

call_server --recv 64K --proc create --reply-size 3000
name=$(sent_name)
expect_reply "client --recv 64K" /tmp/call.out create
expect_eq "client --recv 64K: create: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
expect_eq "client --recv 64K: create: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
expect_eq "client --recv 64K: create: create_status" "$(echo "$ANSWER" | jget create_status)" 0
expect_eq "client --recv 64K: create: readdir_status" "$(echo "$ANSWER" | jget readdir_status)" 0
expect_ge "client --recv 64K: create: byte_len" "$(echo "$ANSWER" | jget byte_len)" 1025
on_server "$name" || fail_scenario "client --recv 64K: $name was not created"
expect_eq "client --recv 64K: exit status" "$CALL_RC" 0

call_server --recv 1K --no-remote-invalidate --reply-chunk 64 --reply-size 3000 --then-null
expect_reply "1 KiB client, 64-segment Reply chunk" /tmp/call.out readdir
expect_eq "1 KiB client, 64-segment Reply chunk: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
expect_eq "1 KiB client, 64-segment Reply chunk: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
expect_eq "1 KiB client, 64-segment Reply chunk: octets written into the chunk" \
	"$(echo "$ANSWER" | jget reply_chunk_written)" 0
expect_reply "1 KiB client, 64-segment Reply chunk" /tmp/call.out null
expect_eq "1 KiB client, 64-segment Reply chunk: null: rpc_accept_stat" \
	"$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS

segs=16
case $E2E_ROLE:$(uname -r) in
single:7.*)
	page=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
	bs=$(cat /proc/fs/nfsd/max_block_size)
	bound=$(((bs + page - 1) / page + 4))
	say "page size $page, max_block_size $bs: nfsd takes chunks of up to $bound segments"
	if [ $bound -lt 16 ]; then
		call_server --recv 64K --no-remote-invalidate --reply-chunk 16 --reply-size 3000
		expect_reply "client --recv 64K, 16-segment Reply chunk" /tmp/call.out readdir
		expect_eq "client --recv 64K, 16-segment Reply chunk (over $bound): rdma_error" \
			"$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
		expect_eq "client --recv 64K, 16-segment Reply chunk (over $bound): octets written into the chunk" \
			"$(echo "$ANSWER" | jget reply_chunk_written)" 0
		segs=$bound
	fi ;;
esac
call_server --recv 64K --no-remote-invalidate --reply-chunk $segs --reply-size 3000
expect_reply "client --recv 64K, $segs-segment Reply chunk" /tmp/call.out readdir
expect_eq "client --recv 64K, $segs-segment Reply chunk: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_NOMSG
expect_eq "client --recv 64K, $segs-segment Reply chunk: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
expect_ge "client --recv 64K, $segs-segment Reply chunk: reply_chunk_len" \
	"$(echo "$ANSWER" | jget reply_chunk_len)" 1025
expect_ge "client --recv 64K, $segs-segment Reply chunk: octets written into the chunk" \
	"$(echo "$ANSWER" | jget reply_chunk_written)" 1025
