# SPDX-License-Identifier: GPL-2.0
# Inline WRITEs whose data does not start in nfsd's first page, as RFC
# 8166 allows and the Linux client never sends them (its WRITE header
# is a few hundred octets). rpcrdma-call sends an NFSv4.0 COMPOUND whose
# WRITE follows N pairs of LOOKUP and LOOKUPP (268 octets of arguments
# each), all inline, so the data starts in the first block of the
# Receive buffer, or past it at an offset inside a page, and may end in
# a later page. nfsd must write exactly the data sent: the file is
# compared byte for byte on the server, and a NULL must follow on the
# same connection. Each word of the data holds its own index, so data
# taken from anywhere else (the page's start, say) cannot pass.
#
# This is what 6.12's svc_fill_write_vector() gets wrong when a
# payload starts inside rq_arg.pages: it ignores page_base. The 6.12
# series therefore makes each Receive buffer one block (up to 32 KiB),
# so there the data is always in the head, and this checks it is read
# from the right octets.
S=/proc/sys/sunrpc/svc_rdma
F=rpcrdma-call-write
[ "$E2E_ROLE" != client ] || skip "reads the server's file system: a single-VM scenario"
local_nfsd
nfsd_end_grace
# Calls of up to 64 KiB inline, whose Receive buffers take 4 KiB blocks
# on rxe with 7.3 (up to 16 of them; 6.12's take 32 KiB blocks).
# soft-iWARP has 6 Receive SGEs, so there a buffer of 24 KiB is the
# largest whose blocks are single pages on 7.3
max=65536
[ "$E2E_RDMA" != siw ] || max=24576
run sh -c "echo $max >$S/max_req_size"
run mkdir -p "/export/$(awk 'BEGIN { while (n++ < 255) printf "p" }')"
run sh -c ": >/export/$F && chmod 666 /export/$F"

# inline_write SIZE LOOKUPS: a WRITE of SIZE octets after LOOKUPS pairs
inline_write() {
	local size=$1 lookups=$2 what off
	what="WRITE of $size after $lookups lookups"
	: >/export/$F
	call_server --proc write --send "$max" --recv "$max" --write "$size" \
		--lookups "$lookups" --write-copy /tmp/wc --then-null
	off=$(grep '"event": "sent"' /tmp/call.out | head -n 1 | jget data_offset)
	what="$what (data at $off)"
	first_reply "$what"
	expect_eq "$what: rpc_accept_stat" "$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS
	expect_eq "$what: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
	expect_eq "$what: write_count" "$(echo "$ANSWER" | jget write_count)" "$size"
	expect_file_data "$what" /export/$F /tmp/wc
	expect_eq "$what: then-null replies" \
		"$(grep '"call": "null"' /tmp/call.out | grep -c '"event": "reply"')" 1
	expect_eq "$what: exit status" "$CALL_RC" 0
}

# The data in the first block, then starting past it (one page) at an
# offset inside a page, ending there or pages later
inline_write 100 0
inline_write 5000 0
inline_write 100 15
inline_write 5000 15
inline_write 12000 17
[ "$max" -lt 40000 ] || inline_write 30001 23
