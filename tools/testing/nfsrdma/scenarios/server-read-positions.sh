# SPDX-License-Identifier: GPL-2.0
# Read chunks whose positions cannot be placed in the Call (RFC 8166,
# Section 3.4): rpcrdma-call sends an NFS NULL whose last data-item
# chunk sits 4 octets past the inline part (a gap nothing fills), 2
# octets past it (not a multiple of 4), or, of two, 4 octets before the
# end of the first (an overlap). nfsd must refuse each with RDMA_ERROR
# ERR_CHUNK (Section 4.5.2) to the Call's XID, log no WARNING, and keep
# the connection: a NULL after it is answered. 6.12 before the fixes
# posting's patch 7 served the one-chunk gap, with a head cut longer
# than what arrived and a tail of wrapped length, WARNed on two chunks
# past the inline part, and dropped the connection on a gap its
# multiple-chunk path found. R is clear: the chunks are a plain memory
# region, which a Send With Invalidate cannot invalidate.
[ "$E2E_ROLE" != client ] || skip "reads the server's kernel log: a single-VM scenario"
local_nfsd

# refused WHAT OPTIONS...: ERR_CHUNK, the connection kept
refused() {
	call_kept "$@"
	expect_eq "$1: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
	expect_eq "$1: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
}

refused "one Read chunk 4 octets past the inline part" --read-chunks 1 --read-skew 4
refused "one Read chunk at a position that is not a multiple of 4" --read-chunks 1 --read-skew 2
refused "the second of two Read chunks 4 octets past the inline part" --read-chunks 2 --read-skew 4
refused "two Read chunks of 8 octets that overlap" --read-chunks 2 --read-chunk-len 8 --read-skew -4
