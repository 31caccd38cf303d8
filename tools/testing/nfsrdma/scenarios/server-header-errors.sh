# SPDX-License-Identifier: GPL-2.0
# Transport headers a Linux client never sends, as RFC 8166 lets a peer
# send them, and what a responder must answer (RFC 8166, Section 4.5).
# rpcrdma-call sends an NFS NULL with one field of its RPC-over-RDMA
# header changed, then a second NULL on the same connection:
# - rdma_vers 2 or 0: RDMA_ERROR with ERR_VERS, and the versions the
#   server takes, 1 to 1 (Section 4.5.1);
# - an rdma_proc RFC 8166 does not define (7): RDMA_ERROR with ERR_CHUNK,
#   as for any header the server cannot parse (Section 4.5.2);
# - an RDMA_NOMSG whose RPC message is in a Read chunk at position zero
#   (Section 3.5.3), once for the NULL and once for an NFSv4.0 WRITE
#   after 6 KiB of LOOKUP and LOOKUPP (none on 6.12, below), whose data
#   must land in the file byte for byte: served like the same Call
#   inline.
# Each error keeps the connection (the second NULL is answered), the
# error's XID is the Call's, and the kernel log stays free of WARNINGs.
# R is clear: the position-zero chunk is a plain memory region, which a
# Send With Invalidate cannot invalidate.
S=/proc/sys/sunrpc/svc_rdma
F=rpcrdma-call-write
[ "$E2E_ROLE" != client ] || skip "reads the server's kernel log: a single-VM scenario"
local_nfsd
nfsd_end_grace

for v in 2 0; do
	call_kept "rdma_vers $v" --rdma-version $v
	expect_eq "rdma_vers $v: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
	expect_eq "rdma_vers $v: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_VERS
	expect_eq "rdma_vers $v: lowest version" "$(echo "$ANSWER" | jget rdma_vers_low)" 1
	expect_eq "rdma_vers $v: highest version" "$(echo "$ANSWER" | jget rdma_vers_high)" 1
done

call_kept "rdma_proc 7" --rdma-proc 7
expect_eq "rdma_proc 7: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
expect_eq "rdma_proc 7: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK

call_kept "NULL in a position-zero Read chunk" --pzrc
expect_eq "NULL in a position-zero Read chunk: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
expect_eq "NULL in a position-zero Read chunk: rpc_accept_stat" \
	"$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS

# A WRITE whose whole Call, 6 KiB of LOOKUPs and 10000 octets of data,
# is pulled from the client: nfsd builds it in its own pages, the first
# of them the head, so the data starts inside the second. 6.12's
# svc_fill_write_vector() ignores where in a page a payload starts and
# writes the wrong octets (stock too); the 6.12 series fixes it in
# sunrpc.ko (its patch 3), but the guests load Debian's, so on 6.12 the
# data starts in the head
lookups=23
case $(uname -r) in
6.12.*) lookups=0 ;;
esac
run mkdir -p "/export/$(awk 'BEGIN { while (n++ < 255) printf "p" }')"
run sh -c ": >/export/$F && chmod 666 /export/$F"
what="WRITE in a position-zero Read chunk"
w0=$(kernel_warnings)
call_server --proc write --no-remote-invalidate --pzrc --write 10000 \
	--lookups $lookups --write-copy /tmp/wc --then-null
first_reply "$what"
expect_eq "$what: rpc_accept_stat" "$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS
expect_eq "$what: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
expect_eq "$what: write_count" "$(echo "$ANSWER" | jget write_count)" 10000
expect_eq "$what: the Call went in the chunk" \
	"$(grep '"event": "sent"' /tmp/call.out | head -n 1 | jget pzrc_len)" \
	"$(($(grep '"event": "sent"' /tmp/call.out | head -n 1 | jget data_offset) + 10000))"
expect_file_data "$what" /export/$F /tmp/wc
expect_eq "$what: then-null replies" \
	"$(grep '"call": "null"' /tmp/call.out | grep -c '"event": "reply"')" 1
expect_eq "$what: exit status" "$CALL_RC" 0
expect_eq "$what: WARNINGs in the kernel log" "$(($(kernel_warnings) - w0))" 0
run rm -f "/export/$F"
