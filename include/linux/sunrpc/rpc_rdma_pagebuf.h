/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inline buffers of RPC-over-RDMA transports that need no high-order
 * contiguous memory: page blocks, one SGE each. The first block is the
 * buffer's head; the rest is a list of pages. Every octet lies in the
 * kernel's linear map, so the buffer can be handed to the RPC layer as
 * an xdr_buf (head plus pages) as it is.
 */

#ifndef _LINUX_SUNRPC_RPC_RDMA_PAGEBUF_H
#define _LINUX_SUNRPC_RPC_RDMA_PAGEBUF_H

#include <linux/types.h>
#include <linux/dma-direction.h>
#include <linux/mmzone.h>
#include <linux/sunrpc/xdr.h>
#include <rdma/ib_verbs.h>

/*
 * The most SGEs one buffer is given, whatever the device offers. A
 * 256 KiB buffer then takes 16 KiB blocks (order 2 with 4 KiB pages),
 * and a Receive WQE stays small.
 */
#define RPCRDMA_PAGEBUF_MAX_SGES	16U

/*
 * The largest block: the order the page allocator still works hard to
 * satisfy. A device with few SGEs gets a smaller largest buffer
 * (rpcrdma_pagebuf_max_len()) rather than larger blocks.
 */
#define RPCRDMA_PAGEBUF_MAX_ORDER	PAGE_ALLOC_COSTLY_ORDER

/* The smallest size a buffer falls back to: RFC 8797's minimum */
#define RPCRDMA_PAGEBUF_MIN_SIZE	1024U

/**
 * struct rpcrdma_pagebuf - an inline Send or Receive buffer
 * @pb_head: the first block (the whole buffer when kmalloc'd), in the
 *	linear map
 * @pb_head_len: octets in the first block
 * @pb_len: the buffer's length in octets
 * @pb_order: the page order of every block but possibly the last
 * @pb_nblocks: how many blocks; 0 when @pb_head came from kmalloc
 * @pb_pages: every page of the blocks, in order (NULL when kmalloc'd)
 * @pb_device: the device the buffer is DMA-mapped for, or NULL
 * @pb_dir: the direction of that mapping
 * @pb_nsges: how many entries of @pb_sges are in use
 * @pb_sges: one SGE per block, valid while the buffer is mapped
 */
struct rpcrdma_pagebuf {
	void			*pb_head;
	unsigned int		pb_head_len;
	unsigned int		pb_len;
	unsigned int		pb_order;
	unsigned int		pb_nblocks;
	struct page		**pb_pages;
	struct ib_device	*pb_device;
	enum dma_data_direction	pb_dir;
	unsigned int		pb_nsges;
	struct ib_sge		pb_sges[RPCRDMA_PAGEBUF_MAX_SGES];
};

unsigned int rpcrdma_pagebuf_order(unsigned int len, unsigned int max_sges);
unsigned int rpcrdma_pagebuf_nblocks(unsigned int len, unsigned int order);
unsigned int rpcrdma_pagebuf_sge_count(unsigned int len, unsigned int max_sges);
unsigned int rpcrdma_pagebuf_max_len(unsigned int max_sges);
unsigned int rpcrdma_pagebuf_fallback_size(unsigned int size);
bool __rpcrdma_pagebuf_fits(const struct rpcrdma_pagebuf *pb, unsigned int len,
			    unsigned int max_sges);
int rpcrdma_pagebuf_alloc(struct rpcrdma_pagebuf *pb, unsigned int len,
			  unsigned int max_sges, gfp_t gfp, int node);
void rpcrdma_pagebuf_free(struct rpcrdma_pagebuf *pb);
void __rpcrdma_pagebuf_copy_to(const struct rpcrdma_pagebuf *pb,
			       unsigned int offset, const void *src,
			       unsigned int len);
int rpcrdma_pagebuf_dma_map(struct rpcrdma_pagebuf *pb,
			    struct ib_device *device, u32 lkey,
			    enum dma_data_direction dir);
void rpcrdma_pagebuf_dma_unmap(struct rpcrdma_pagebuf *pb);
void __rpcrdma_pagebuf_sync_for_cpu(struct rpcrdma_pagebuf *pb,
				    unsigned int len);
void __rpcrdma_pagebuf_sync_for_device(struct rpcrdma_pagebuf *pb,
				       unsigned int len);

/**
 * rpcrdma_pagebuf_fits - may a buffer be posted as it is
 * @pb: an allocated buffer, or an empty one
 * @len: the size every buffer of the connection must have
 * @max_sges: the most SGEs a buffer may take on the connection's device
 *
 * A transport that reconnects keeps the buffers it has when they still
 * fit: the same size, and no more SGEs than the new QP was created
 * with (a new device may offer fewer). Every Receive is checked, so a
 * buffer of a page at most, made with kmalloc() (no page blocks), which
 * fits on any device, is told without a call.
 *
 * Return: true when @pb is @len octets long, @len is within what
 * @max_sges SGEs can hold, and @pb takes no more SGEs than
 * rpcrdma_pagebuf_sge_count(@len, @max_sges).
 */
static inline bool rpcrdma_pagebuf_fits(const struct rpcrdma_pagebuf *pb,
					unsigned int len,
					unsigned int max_sges)
{
	if (!pb->pb_head || pb->pb_len != len)
		return false;
	/* One block of a page at most: one SGE, on any device */
	if (likely(!pb->pb_nblocks))
		return true;
	return __rpcrdma_pagebuf_fits(pb, len, max_sges);
}

/**
 * rpcrdma_pagebuf_sync_for_cpu - let the CPU read what the device wrote
 * @pb: a mapped buffer
 * @len: how many octets from the start the CPU will read
 *
 * A Receive almost always lands in the first block: that takes one
 * sync, without a call. Nothing happens if @pb is not mapped.
 */
static inline void rpcrdma_pagebuf_sync_for_cpu(struct rpcrdma_pagebuf *pb,
						unsigned int len)
{
	if (likely(len && pb->pb_nsges && len <= pb->pb_sges[0].length))
		ib_dma_sync_single_for_cpu(pb->pb_device, pb->pb_sges[0].addr,
					   len, pb->pb_dir);
	else
		__rpcrdma_pagebuf_sync_for_cpu(pb, len);
}

/**
 * rpcrdma_pagebuf_to_xdr - describe a buffer's first octets as an xdr_buf
 * @pb: an allocated buffer
 * @xdr: xdr_buf to set up
 * @len: how many octets from the start of @pb it holds
 *
 * The head is the first block, the rest is @pb's page list, as svcsock
 * hands up a TCP record. A @len beyond @pb's length is cut to it. When
 * the first @len octets all lie in the head, @xdr->pages is left as it
 * was: nfsd reads rq_arg.pages[0] even when page_len is 0, so svcrdma
 * keeps the pages svc_alloc_arg() put there. The tail is left empty.
 */
static inline void rpcrdma_pagebuf_to_xdr(const struct rpcrdma_pagebuf *pb,
					  struct xdr_buf *xdr,
					  unsigned int len)
{
	len = min(len, pb->pb_len);
	xdr->head[0].iov_base = pb->pb_head;
	xdr->head[0].iov_len = min(len, pb->pb_head_len);
	xdr->tail[0].iov_base = NULL;
	xdr->tail[0].iov_len = 0;
	xdr->page_base = 0;
	xdr->page_len = 0;
	if (len > pb->pb_head_len) {
		xdr->pages = pb->pb_pages + (1U << pb->pb_order);
		xdr->page_len = len - pb->pb_head_len;
	}
	xdr->buflen = pb->pb_len;
	xdr->len = len;
}

/**
 * rpcrdma_pagebuf_set_xdrlen - change how many octets an xdr_buf holds
 * @pb: an allocated buffer
 * @xdr: an xdr_buf that rpcrdma_pagebuf_to_xdr() set up for @pb
 * @len: how many octets from the start of @pb it holds now
 *
 * For a buffer that Receives land in again and again: when @len octets
 * lie in the head, only the lengths change.
 */
static inline void rpcrdma_pagebuf_set_xdrlen(const struct rpcrdma_pagebuf *pb,
					      struct xdr_buf *xdr,
					      unsigned int len)
{
	if (likely(len <= pb->pb_head_len)) {
		xdr->head[0].iov_len = len;
		xdr->page_len = 0;
		xdr->len = len;
	} else {
		rpcrdma_pagebuf_to_xdr(pb, xdr, len);
	}
}

/**
 * rpcrdma_pagebuf_sync_for_device - hand the buffer back to the device
 * @pb: a mapped buffer
 * @len: how many octets from the start the device will read or write
 *
 * A transport header, and a short Reply after it, almost always fit in
 * the first block: that takes one sync, without a call. Nothing happens
 * if @pb is not mapped.
 */
static inline void rpcrdma_pagebuf_sync_for_device(struct rpcrdma_pagebuf *pb,
						   unsigned int len)
{
	if (likely(len && pb->pb_nsges && len <= pb->pb_sges[0].length))
		ib_dma_sync_single_for_device(pb->pb_device,
					      pb->pb_sges[0].addr, len,
					      pb->pb_dir);
	else
		__rpcrdma_pagebuf_sync_for_device(pb, len);
}

/**
 * rpcrdma_pagebuf_copy_to - copy into a buffer, across its blocks
 * @pb: an allocated buffer
 * @offset: where in @pb to start
 * @src: what to copy
 * @len: how many octets
 *
 * @offset + @len must not exceed @pb's length. A buffer of a page or
 * less, made with kmalloc() (the Send buffer of a short Reply), takes
 * the copy inline; see __rpcrdma_pagebuf_copy_to().
 */
static inline void rpcrdma_pagebuf_copy_to(const struct rpcrdma_pagebuf *pb,
					   unsigned int offset,
					   const void *src, unsigned int len)
{
	if (likely(!pb->pb_pages && offset <= pb->pb_len &&
		   len <= pb->pb_len - offset))
		memcpy(pb->pb_head + offset, src, len);
	else
		__rpcrdma_pagebuf_copy_to(pb, offset, src, len);
}

#endif /* _LINUX_SUNRPC_RPC_RDMA_PAGEBUF_H */
