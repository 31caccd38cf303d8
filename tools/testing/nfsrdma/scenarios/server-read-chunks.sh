# SPDX-License-Identifier: GPL-2.0
# Calls that carry Read chunks the way RFC 8166 (Section 3.4) allows
# and the Linux client never sends them: several data-item chunks in one
# Call, and chunks after an inline part larger than nfsd's first page.
# rpcrdma-call sends an NFS NULL whose inline part ends with N chunks of
# 4 octets each, at positions one after the other, optionally after
# zeros that pad the inline part (--inline-pad); nfsd must pull them,
# answer the NULL, and keep the connection (a second NULL follows), and
# its kernel log must stay free of WARNINGs: a Call rebuilt with a
# length other than its parts' makes svcxdr_init_decode() WARN, which
# with panic_on_warn lets any connected peer crash the server.
#
# Stock nfsd serves one chunk, and WARNs at two (6.12 and 7.3), where it
# counts the inline octets twice; 6.12 also drops that NULL, as its copy
# of the inline content starts at the transport header. R is
# clear: the chunks are a plain memory region, which the Send With
# Invalidate nfsd would otherwise use cannot invalidate.
S=/proc/sys/sunrpc/svc_rdma
[ "$E2E_ROLE" != client ] || skip "reads the server's kernel log: a single-VM scenario"
local_nfsd

# read_chunks WHAT OPTIONS...: a NULL with the Read chunks of OPTIONS is
# served, without a WARNING, and a NULL after it on the same connection
read_chunks() {
	local what=$1
	shift
	call_kept "$what" "$@"
	expect_eq "$what: sent read_chunks" \
		"$(grep '"event": "sent"' /tmp/call.out | head -n 1 | jget read_chunks)" \
		"$(echo " $* " | sed -n 's/.* --read-chunks \([0-9]*\) .*/\1/p')"
	expect_eq "$what: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
	expect_eq "$what: rpc_accept_stat" "$(echo "$ANSWER" | jget rpc_accept_stat)" SUCCESS
}

read_chunks "one Read chunk" --read-chunks 1
read_chunks "two Read chunks" --read-chunks 2
read_chunks "16 Read chunks" --read-chunks 16
# An inline part past the first 4 KiB: nfsd copies it into its pages
# around the chunks (and the series' Receive buffers put it past their
# first block)
run sh -c "echo 65536 >$S/max_req_size"
read_chunks "one Read chunk after 6000 inline octets" --send 64K --inline-pad 6000 --read-chunks 1
read_chunks "two Read chunks after 6000 inline octets" --send 64K --inline-pad 6000 --read-chunks 2
# Chunks of 5 octets: each next position counts the XDR roundup of the
# one before (RFC 8166, Section 3.4.5), which nfsd must add back
read_chunks "two Read chunks of 5 octets" --read-chunks 2 --read-chunk-len 5
