// SPDX-License-Identifier: GPL-2.0
/*
 * Inline buffers that need no high-order contiguous memory.
 *
 * RFC 8797 lets peers advertise Receive Sizes up to 256 KiB, and a
 * transport keeps one such buffer per credit. A single kmalloc() of
 * 256 KiB is an order-6 allocation, which a fragmented host cannot be
 * relied on to satisfy, least of all on a reconnect. A buffer here is
 * made of page blocks of at most PAGE_ALLOC_COSTLY_ORDER, the order the
 * page allocator still works hard to satisfy. Each block is one SGE of
 * the Send or Receive that uses the buffer.
 *
 * The buffer is not mapped to contiguous virtual addresses. Its first
 * block is the head, which holds the transport header and, in most
 * messages, all of the rest; the following octets are a list of pages.
 * That is the shape of an xdr_buf, and every octet of it is in the
 * linear map, so the RPC layer may turn any part of it into pages,
 * scatterlists or bio_vecs (rpcrdma_pagebuf_to_xdr()).
 *
 * Buffers of a page or less are plain kmalloc() memory with one SGE.
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sunrpc/rpc_rdma_pagebuf.h>
#include <kunit/visibility.h>

static unsigned int pagebuf_block_size(unsigned int order)
{
	return PAGE_SIZE << order;
}

/**
 * rpcrdma_pagebuf_nblocks - how many blocks a buffer takes
 * @len: buffer length, in octets
 * @order: page order of each block
 *
 * Return: the number of blocks of @order that hold @len octets.
 */
unsigned int rpcrdma_pagebuf_nblocks(unsigned int len, unsigned int order)
{
	unsigned int size = pagebuf_block_size(order);

	/* Not DIV_ROUND_UP(): @len near UINT_MAX must not wrap */
	return len / size + !!(len % size);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_nblocks);

/**
 * rpcrdma_pagebuf_max_len - the largest buffer a device can take
 * @max_sges: the most SGEs a buffer may take (0 counts as 1)
 *
 * Return: the length that @max_sges blocks of RPCRDMA_PAGEBUF_MAX_ORDER
 * hold, capped at UINT_MAX. A transport advertises no Receive Size
 * above it.
 */
unsigned int rpcrdma_pagebuf_max_len(unsigned int max_sges)
{
	u64 len;

	max_sges = clamp(max_sges, 1U, RPCRDMA_PAGEBUF_MAX_SGES);
	len = (u64)max_sges * pagebuf_block_size(RPCRDMA_PAGEBUF_MAX_ORDER);
	return min_t(u64, len, UINT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_max_len);

/**
 * rpcrdma_pagebuf_order - the block order for a buffer
 * @len: buffer length, in octets
 * @max_sges: the most SGEs the buffer may take (0 counts as 1)
 *
 * The smallest order wins, because small blocks are the easiest to
 * find. With RPCRDMA_PAGEBUF_MAX_SGES SGEs, every RFC 8797 size fits in
 * blocks of RPCRDMA_PAGEBUF_MAX_ORDER or less.
 *
 * Return: the smallest page order whose blocks hold @len octets in no
 * more than @max_sges blocks; RPCRDMA_PAGEBUF_MAX_ORDER when none up to
 * it does (@len is then above rpcrdma_pagebuf_max_len() and cannot be
 * allocated). A buffer of a page or less is kmalloc'd, and its order
 * is 0.
 */
unsigned int rpcrdma_pagebuf_order(unsigned int len, unsigned int max_sges)
{
	unsigned int order;

	max_sges = clamp(max_sges, 1U, RPCRDMA_PAGEBUF_MAX_SGES);
	if (len <= PAGE_SIZE)
		return 0;
	for (order = 0; order < RPCRDMA_PAGEBUF_MAX_ORDER; order++)
		if (rpcrdma_pagebuf_nblocks(len, order) <= max_sges)
			break;
	return order;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_order);

/**
 * rpcrdma_pagebuf_sge_count - how many SGEs a buffer takes
 * @len: buffer length, in octets
 * @max_sges: the most SGEs the buffer may take
 *
 * Return: the number of SGEs that rpcrdma_pagebuf_alloc() gives a
 * buffer of @len octets under @max_sges; the QP is created with at
 * least this many Receive (or Send) SGEs. For a @len above
 * rpcrdma_pagebuf_max_len() the count exceeds @max_sges.
 */
unsigned int rpcrdma_pagebuf_sge_count(unsigned int len,
				       unsigned int max_sges)
{
	if (len <= PAGE_SIZE)
		return 1;
	return rpcrdma_pagebuf_nblocks(len,
				       rpcrdma_pagebuf_order(len, max_sges));
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_sge_count);

/**
 * rpcrdma_pagebuf_fallback_size - the next size to try
 * @size: a size whose buffers could not all be allocated
 *
 * When memory is short at connect time, a transport provisions smaller
 * buffers and advertises what it provisioned, rather than promising a
 * Receive Size it cannot post for every credit.
 *
 * Return: half of @size, rounded down to a multiple of 1024 and no
 * less than RPCRDMA_PAGEBUF_MIN_SIZE, or 0 when @size is already that
 * minimum (or less) and there is nothing smaller to try.
 */
unsigned int rpcrdma_pagebuf_fallback_size(unsigned int size)
{
	if (size <= RPCRDMA_PAGEBUF_MIN_SIZE)
		return 0;
	return max(round_down(size / 2, 1024U), RPCRDMA_PAGEBUF_MIN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_fallback_size);

/**
 * __rpcrdma_pagebuf_fits - rpcrdma_pagebuf_fits() for a buffer of blocks
 * @pb: an allocated buffer of page blocks (@pb->pb_nblocks is not 0)
 * @len: the size every buffer of the connection must have
 * @max_sges: the most SGEs a buffer may take on the connection's device
 *
 * Return: true when @len is within what @max_sges SGEs can hold, and
 * @pb takes no more SGEs than rpcrdma_pagebuf_sge_count(@len, @max_sges).
 */
bool __rpcrdma_pagebuf_fits(const struct rpcrdma_pagebuf *pb, unsigned int len,
			    unsigned int max_sges)
{
	return len <= rpcrdma_pagebuf_max_len(max_sges) &&
	       pb->pb_nblocks <= rpcrdma_pagebuf_sge_count(len, max_sges);
}
EXPORT_SYMBOL_IF_KUNIT(__rpcrdma_pagebuf_fits);

static void pagebuf_free_pages(struct page **pages, unsigned int npages)
{
	unsigned int i;

	for (i = 0; i < npages; i++)
		__free_page(pages[i]);
}

static void pagebuf_clear(struct rpcrdma_pagebuf *pb)
{
	memset(pb, 0, sizeof(*pb));
	pb->pb_dir = DMA_NONE;
}

/**
 * rpcrdma_pagebuf_alloc - allocate an inline buffer
 * @pb: buffer to set up
 * @len: its length, in octets
 * @max_sges: the most SGEs it may take (see rpcrdma_pagebuf_order())
 * @gfp: allocation flags, for the blocks and the bookkeeping
 * @node: NUMA node of the device, or NUMA_NO_NODE
 *
 * Each block is allocated at its order and split into single pages,
 * so that the pages of the last block beyond @len go straight back.
 * Nothing here sleeps unless @gfp allows it, so a completion handler
 * may call this with flags that do not reclaim.
 *
 * Return: 0 on success; -EINVAL if @len is 0; -E2BIG if @len is above
 * rpcrdma_pagebuf_max_len(@max_sges); -ENOMEM if any block could not
 * be had. On failure nothing stays allocated and @pb is left empty,
 * so it can be freed or retried.
 */
int rpcrdma_pagebuf_alloc(struct rpcrdma_pagebuf *pb, unsigned int len,
			  unsigned int max_sges, gfp_t gfp, int node)
{
	unsigned int order, nblocks, npages, i, n = 0;
	struct page **pages;

	pagebuf_clear(pb);
	if (!len)
		return -EINVAL;
	if (len > rpcrdma_pagebuf_max_len(max_sges))
		return -E2BIG;

	if (len <= PAGE_SIZE) {
		pb->pb_head = kmalloc_node(len, gfp, node);
		if (!pb->pb_head)
			return -ENOMEM;
		pb->pb_head_len = len;
		pb->pb_len = len;
		return 0;
	}

	/* Lowmem pages only: the blocks must be in the linear map */
	gfp &= ~__GFP_HIGHMEM;
	order = rpcrdma_pagebuf_order(len, max_sges);
	nblocks = rpcrdma_pagebuf_nblocks(len, order);
	npages = rpcrdma_pagebuf_nblocks(len, 0);
	pages = kmalloc_array_node(npages, sizeof(*pages), gfp, node);
	if (!pages)
		return -ENOMEM;

	for (i = 0; i < nblocks; i++) {
		unsigned int want = min(npages - n, 1U << order);
		unsigned int got = get_order(want << PAGE_SHIFT);
		struct page *page;
		unsigned int k;

		page = alloc_pages_node(node, gfp, got);
		if (!page)
			goto out_free;
		if (got)
			split_page(page, got);
		for (k = 0; k < want; k++)
			pages[n++] = page + k;
		for (; k < (1U << got); k++)
			__free_page(page + k);
	}

	pb->pb_head = page_address(pages[0]);
	pb->pb_head_len = min(len, pagebuf_block_size(order));
	pb->pb_len = len;
	pb->pb_order = order;
	pb->pb_nblocks = nblocks;
	pb->pb_pages = pages;
	return 0;

out_free:
	pagebuf_free_pages(pages, n);
	kfree(pages);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_alloc);

/**
 * rpcrdma_pagebuf_free - release an inline buffer
 * @pb: buffer set up by rpcrdma_pagebuf_alloc(), or zeroed
 *
 * Unmaps the buffer from its device first if it is still mapped, and
 * leaves @pb empty. Does not sleep.
 */
void rpcrdma_pagebuf_free(struct rpcrdma_pagebuf *pb)
{
	rpcrdma_pagebuf_dma_unmap(pb);
	if (pb->pb_pages) {
		pagebuf_free_pages(pb->pb_pages,
				   rpcrdma_pagebuf_nblocks(pb->pb_len, 0));
		kfree(pb->pb_pages);
	} else {
		kfree(pb->pb_head);
	}
	pagebuf_clear(pb);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_pagebuf_free);

/**
 * __rpcrdma_pagebuf_copy_to - copy into a buffer, across its blocks
 * @pb: an allocated buffer
 * @offset: where in @pb to start
 * @src: what to copy
 * @len: how many octets; @offset + @len must not exceed @pb's length
 *
 * Callers use rpcrdma_pagebuf_copy_to(), which copies inline into a
 * buffer of a page or less.
 */
void __rpcrdma_pagebuf_copy_to(const struct rpcrdma_pagebuf *pb,
			       unsigned int offset, const void *src,
			       unsigned int len)
{
	unsigned int n;

	if (WARN_ON_ONCE(offset > pb->pb_len || len > pb->pb_len - offset))
		return;
	if (!pb->pb_pages) {
		memcpy(pb->pb_head + offset, src, len);
		return;
	}
	for (; len; len -= n, offset += n, src += n) {
		n = min_t(unsigned int, len, PAGE_SIZE - offset_in_page(offset));
		memcpy(page_address(pb->pb_pages[offset >> PAGE_SHIFT]) +
		       offset_in_page(offset), src, n);
	}
}
EXPORT_SYMBOL_IF_KUNIT(__rpcrdma_pagebuf_copy_to);

/* Octets of block @i: every block is full but possibly the last */
static unsigned int pagebuf_block_len(const struct rpcrdma_pagebuf *pb,
				      unsigned int i)
{
	unsigned int start = i * pagebuf_block_size(pb->pb_order);

	return min(pb->pb_len - start, pagebuf_block_size(pb->pb_order));
}

/**
 * rpcrdma_pagebuf_dma_map - DMA-map an inline buffer for a device
 * @pb: buffer to map
 * @device: the device that Sends from it or Receives into it
 * @lkey: the local DMA lkey of the device's protection domain
 * @dir: DMA_TO_DEVICE for a Send buffer, DMA_FROM_DEVICE for a Receive
 *
 * Fills @pb->pb_sges, one per block (one in all for a kmalloc'd
 * buffer), and sets @pb->pb_nsges.
 *
 * Return: 0 on success, or -EIO if a block could not be mapped, in
 * which case none stays mapped.
 */
int rpcrdma_pagebuf_dma_map(struct rpcrdma_pagebuf *pb,
			    struct ib_device *device, u32 lkey,
			    enum dma_data_direction dir)
{
	unsigned int i, n = pb->pb_nblocks ? pb->pb_nblocks : 1;
	struct ib_sge *sge;

	for (i = 0; i < n; i++) {
		sge = &pb->pb_sges[i];
		if (pb->pb_nblocks) {
			struct page *block = pb->pb_pages[i << pb->pb_order];

			sge->length = pagebuf_block_len(pb, i);
			sge->addr = ib_dma_map_page(device, block, 0,
						    sge->length, dir);
		} else {
			sge->length = pb->pb_len;
			sge->addr = ib_dma_map_single(device, pb->pb_head,
						      sge->length, dir);
		}
		if (ib_dma_mapping_error(device, sge->addr))
			goto out_unmap;
		sge->lkey = lkey;
	}
	pb->pb_device = device;
	pb->pb_dir = dir;
	pb->pb_nsges = n;
	return 0;

out_unmap:
	while (i--) {
		sge = &pb->pb_sges[i];
		if (pb->pb_nblocks)
			ib_dma_unmap_page(device, sge->addr, sge->length, dir);
		else
			ib_dma_unmap_single(device, sge->addr, sge->length,
					    dir);
	}
	return -EIO;
}

/**
 * rpcrdma_pagebuf_dma_unmap - undo rpcrdma_pagebuf_dma_map()
 * @pb: buffer to unmap; nothing happens if it is not mapped
 */
void rpcrdma_pagebuf_dma_unmap(struct rpcrdma_pagebuf *pb)
{
	unsigned int i;

	if (!pb->pb_device)
		return;
	for (i = 0; i < pb->pb_nsges; i++) {
		struct ib_sge *sge = &pb->pb_sges[i];

		if (pb->pb_nblocks)
			ib_dma_unmap_page(pb->pb_device, sge->addr,
					  sge->length, pb->pb_dir);
		else
			ib_dma_unmap_single(pb->pb_device, sge->addr,
					    sge->length, pb->pb_dir);
	}
	pb->pb_device = NULL;
	pb->pb_nsges = 0;
}

/**
 * __rpcrdma_pagebuf_sync_for_cpu - let the CPU read what the device wrote
 * @pb: a mapped buffer
 * @len: how many octets from the start the CPU will read
 *
 * Syncs the blocks that hold the first @len octets. Callers use
 * rpcrdma_pagebuf_sync_for_cpu(), which syncs inline when the first
 * block holds them all.
 */
void __rpcrdma_pagebuf_sync_for_cpu(struct rpcrdma_pagebuf *pb,
				    unsigned int len)
{
	unsigned int i, n;

	len = min(len, pb->pb_len);
	for (i = 0; i < pb->pb_nsges && len; i++, len -= n) {
		n = min(len, pb->pb_sges[i].length);
		ib_dma_sync_single_for_cpu(pb->pb_device, pb->pb_sges[i].addr,
					   n, pb->pb_dir);
	}
}

/**
 * __rpcrdma_pagebuf_sync_for_device - hand the buffer back to the device
 * @pb: a mapped buffer
 * @len: how many octets from the start the device will read or write
 *
 * Syncs the blocks that hold the first @len octets. Callers use
 * rpcrdma_pagebuf_sync_for_device(), which syncs inline when the first
 * block holds them all.
 */
void __rpcrdma_pagebuf_sync_for_device(struct rpcrdma_pagebuf *pb,
				       unsigned int len)
{
	unsigned int i, n;

	len = min(len, pb->pb_len);
	for (i = 0; i < pb->pb_nsges && len; i++, len -= n) {
		n = min(len, pb->pb_sges[i].length);
		ib_dma_sync_single_for_device(pb->pb_device,
					      pb->pb_sges[i].addr, n,
					      pb->pb_dir);
	}
}
