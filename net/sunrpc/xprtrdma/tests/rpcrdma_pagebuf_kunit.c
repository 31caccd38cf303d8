// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the page-block inline buffers of RPC-over-RDMA.
 *
 * The layout rows assume 4 KiB pages and are skipped elsewhere. The
 * allocation cases check what the device and the RPC layer would see:
 * each block physically contiguous, every octet in the linear map, and
 * the buffer as an xdr_buf turned into bio_vecs whose pages hold the
 * data, as nfsd's write path and RPCSEC_GSS turn it.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <linux/sunrpc/rpc_rdma_pagebuf.h>

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

struct layout_param {
	const char	*desc;
	unsigned int	len;
	unsigned int	max_sges;
	unsigned int	order;
	unsigned int	sges;
};

static const struct layout_param layout_params[] = {
	{ "1 KiB: kmalloc, one SGE",			1024,	16, 0, 1 },
	{ "one page: kmalloc, one SGE",			4096,	16, 0, 1 },
	{ "5 KiB: two single pages",			5120,	16, 0, 2 },
	{ "64 KiB: 16 single pages",			65536,	16, 0, 16 },
	{ "65 KiB: order 1, 9 blocks",			66560,	16, 1, 9 },
	{ "128 KiB: order 1, 16 blocks",		131072,	16, 1, 16 },
	{ "256 KiB: order 2, 16 blocks",		262144,	16, 2, 16 },
	{ "256 KiB, device offers 30: capped at 16",	262144,	30, 2, 16 },
	{ "256 KiB, device offers 8: order 3",		262144,	8,  3, 8 },
	{ "256 KiB, device offers 4: too large",	262144,	4,  3, 8 },
	{ "256 KiB, device offers 1: too large",	262144,	1,  3, 8 },
	{ "32 KiB, device offers 1: order 3",		32768,	1,  3, 1 },
	{ "32 KiB, 0 SGEs counts as 1",			32768,	0,  3, 1 },
	{ "64 KiB, device offers 5: order 2",		65536,	5,  2, 4 },
};

KUNIT_ARRAY_PARAM_DESC(layout, layout_params, desc);

static void test_layout(struct kunit *test)
{
	const struct layout_param *p = test->param_value;

	if (PAGE_SIZE != 4096)
		kunit_skip(test, "the rows assume 4 KiB pages");
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_order(p->len, p->max_sges),
			p->order);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_sge_count(p->len, p->max_sges),
			p->sges);
	/* A size fits the device exactly when its SGE count does */
	KUNIT_EXPECT_EQ(test, p->len <= rpcrdma_pagebuf_max_len(p->max_sges),
			p->sges <= max(p->max_sges, 1U));
}

/* The largest buffer: blocks of the costly order, one per SGE */
static void test_max_len(struct kunit *test)
{
	unsigned int block = PAGE_SIZE << RPCRDMA_PAGEBUF_MAX_ORDER;

	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_max_len(0), block);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_max_len(1), block);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_max_len(4), 4 * block);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_max_len(UINT_MAX),
			RPCRDMA_PAGEBUF_MAX_SGES * block);
	/* With the most SGEs, every RFC 8797 size can be had */
	KUNIT_EXPECT_GE(test, rpcrdma_pagebuf_max_len(RPCRDMA_PAGEBUF_MAX_SGES),
			262144U);
}

/* Block counts near UINT_MAX must not wrap to a small number */
static void test_nblocks_no_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_nblocks(UINT_MAX, 0),
			(UINT_MAX >> PAGE_SHIFT) + 1);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_nblocks(UINT_MAX - 1, 3),
			((UINT_MAX - 1) >> (PAGE_SHIFT + 3)) + 1);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_nblocks(PAGE_SIZE, 0), 1U);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_nblocks(PAGE_SIZE + 1, 0), 2U);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_nblocks(0, 0), 0U);
}

struct fallback_param {
	const char	*desc;
	unsigned int	size;
	unsigned int	next;
};

static const struct fallback_param fallback_params[] = {
	{ "256 KiB halves to 128 KiB",		262144,	131072 },
	{ "5 KiB halves to 2 KiB (1 KiB units)",	5120,	2048 },
	{ "3 KiB halves to 1 KiB",		3072,	1024 },
	{ "2 KiB halves to the minimum",	2048,	1024 },
	{ "1025 goes to the minimum",		1025,	1024 },
	{ "the minimum has no fallback",	1024,	0 },
	{ "below the minimum: none",		512,	0 },
	{ "0: none",				0,	0 },
};

KUNIT_ARRAY_PARAM_DESC(fallback, fallback_params, desc);

static void test_fallback(struct kunit *test)
{
	const struct fallback_param *p = test->param_value;

	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_fallback_size(p->size), p->next);
}

/* Every fallback chain ends at the minimum, then stops */
static void test_fallback_chain(struct kunit *test)
{
	unsigned int size = 262144, steps = 0, next;

	while ((next = rpcrdma_pagebuf_fallback_size(size))) {
		KUNIT_ASSERT_LT(test, next, size);
		KUNIT_EXPECT_EQ(test, next % 1024, 0U);
		size = next;
		KUNIT_ASSERT_LT(test, ++steps, 20U);
	}
	KUNIT_EXPECT_EQ(test, size, RPCRDMA_PAGEBUF_MIN_SIZE);
	KUNIT_EXPECT_EQ(test, steps, 8U);
}

/* Check each fallback of @len under @q SGEs; return how many fail */
static unsigned int fallbacks_over(struct kunit *test, unsigned int m,
				   unsigned int len, unsigned int q,
				   unsigned int *more)
{
	unsigned int size, n, bad = 0;

	for (size = rpcrdma_pagebuf_fallback_size(len); size;
	     size = rpcrdma_pagebuf_fallback_size(size)) {
		if (rpcrdma_pagebuf_sge_count(size, m) > q)
			(*more)++;
		n = rpcrdma_pagebuf_sge_count(size, q);
		if (n > q && !bad++)
			KUNIT_FAIL(test, "%u SGEs, %u octets: %u takes %u",
				   m, len, size, n);
	}
	return bad;
}

/*
 * A QP is created with the SGEs its first size takes; each smaller size
 * its provisioning may fall back to must fit in that many blocks, or
 * its Receives would not post. So fallbacks are allocated under the
 * QP's SGEs, not the device's: under the device's, a smaller size can
 * take more, smaller blocks (e.g. 132096 octets in 9 blocks of 16KB
 * under 16 SGEs, its fallback 65536 in 16 of 4KB).
 */
static void test_fallback_fits_sges(struct kunit *test)
{
	unsigned int m, len, q, bad = 0, more = 0;

	for (m = 1; m <= RPCRDMA_PAGEBUF_MAX_SGES; m++) {
		for (len = 1024; len <= 262144; len += 1024) {
			if (len > rpcrdma_pagebuf_max_len(m))
				break;
			q = rpcrdma_pagebuf_sge_count(len, m);
			KUNIT_ASSERT_LE(test, q, m);
			bad += fallbacks_over(test, m, len, q, &more);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	/* The device's SGEs would not do */
	KUNIT_EXPECT_GT(test, more, 0U);
}

struct alloc_param {
	const char	*desc;
	unsigned int	len;
	unsigned int	max_sges;
};

static const struct alloc_param alloc_params[] = {
	{ "1 KiB (kmalloc)",			1024,	16 },
	{ "one page (kmalloc)",			PAGE_SIZE, 16 },
	{ "5 pages in single pages",		5 * PAGE_SIZE, 16 },
	{ "5 pages in 2 blocks, last trimmed",	5 * PAGE_SIZE, 2 },
	{ "64 KiB",				65536,	16 },
	{ "256 KiB",				262144,	16 },
	{ "128 KiB in 4 blocks",		131072,	4 },
	{ "one block of the largest order",	PAGE_SIZE << 3, 1 },
};

KUNIT_ARRAY_PARAM_DESC(alloc, alloc_params, desc);

static u8 pattern(unsigned int offset)
{
	return (offset * 7 + (offset >> 12)) & 0xff;
}

/* Is every octet of [@p, @p + @len) in the kernel's linear map? */
static bool linear(const void *p, unsigned int len)
{
	const void *end = p + len;

	/* Every page the range touches, and its last octet */
	for (; p < end; p = PTR_ALIGN(p + 1, PAGE_SIZE))
		if (!virt_addr_valid(p))
			return false;
	return !len || virt_addr_valid(end - 1);
}

/*
 * Hand the first @len octets to the RPC layer as an xdr_buf, turn it
 * into bio_vecs as nfsd's write path does, and read the data back
 * through the struct pages those name.
 */
static void check_bvecs(struct kunit *test, const struct rpcrdma_pagebuf *pb,
			unsigned int len)
{
	unsigned int i, k, off = 0, nvecs = 2 + (len >> PAGE_SHIFT);
	struct page *sentinel[1] = {};
	struct bio_vec *bvec;
	struct xdr_buf xdr;
	int n;

	/* What the server's rq_arg holds before: svc_alloc_arg()'s pages */
	memset(&xdr, 0, sizeof(xdr));
	xdr.pages = sentinel;
	rpcrdma_pagebuf_to_xdr(pb, &xdr, len);
	if (len <= pb->pb_head_len)
		KUNIT_EXPECT_PTR_EQ_MSG(test, xdr.pages, &sentinel[0],
					"pages replaced though all is in the head");
	else
		KUNIT_EXPECT_PTR_EQ(test, xdr.pages,
				    pb->pb_pages + (1U << pb->pb_order));
	KUNIT_EXPECT_EQ(test, xdr.len, len);
	KUNIT_EXPECT_EQ(test, xdr.head[0].iov_len + xdr.page_len, len);
	KUNIT_EXPECT_TRUE_MSG(test, linear(xdr.head[0].iov_base,
					   xdr.head[0].iov_len),
			      "the head is not in the linear map");

	bvec = kunit_kcalloc(test, nvecs, sizeof(*bvec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bvec);
	n = xdr_buf_to_bvec(bvec, nvecs, &xdr);
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++) {
		const u8 *data = page_address(bvec[i].bv_page) +
				 bvec[i].bv_offset;

		KUNIT_EXPECT_TRUE_MSG(test, linear(data, bvec[i].bv_len),
				      "bio_vec %u is not in the linear map", i);
		for (k = 0; k < bvec[i].bv_len; k++)
			if (data[k] != pattern(off + k))
				break;
		KUNIT_EXPECT_EQ_MSG(test, k, bvec[i].bv_len,
				    "bio_vec %u differs at octet %u", i, off + k);
		off += bvec[i].bv_len;
	}
	KUNIT_EXPECT_EQ(test, off, len);
}

static void test_alloc(struct kunit *test)
{
	const struct alloc_param *p = test->param_value;
	unsigned int i, npages, per_block, n;
	struct rpcrdma_pagebuf pb;
	u8 *src;

	KUNIT_ASSERT_EQ(test, rpcrdma_pagebuf_alloc(&pb, p->len, p->max_sges,
						    GFP_KERNEL, NUMA_NO_NODE),
			0);
	KUNIT_EXPECT_EQ(test, pb.pb_len, p->len);
	KUNIT_EXPECT_NULL(test, pb.pb_device);
	KUNIT_EXPECT_TRUE(test, rpcrdma_pagebuf_fits(&pb, p->len, p->max_sges));

	/* Fill it in odd-sized pieces, so that copies cross blocks */
	src = kunit_kmalloc(test, p->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	for (i = 0; i < p->len; i++)
		src[i] = pattern(i);
	for (i = 0; i < p->len; i += n) {
		n = min(p->len - i, 1000U);
		rpcrdma_pagebuf_copy_to(&pb, i, src + i, n);
	}

	if (p->len <= PAGE_SIZE) {
		KUNIT_EXPECT_EQ(test, pb.pb_nblocks, 0U);
		KUNIT_EXPECT_NULL(test, pb.pb_pages);
		KUNIT_EXPECT_EQ(test, pb.pb_head_len, p->len);
		goto check;
	}

	KUNIT_EXPECT_EQ(test, pb.pb_order,
			rpcrdma_pagebuf_order(p->len, p->max_sges));
	KUNIT_EXPECT_LE(test, pb.pb_order, RPCRDMA_PAGEBUF_MAX_ORDER);
	KUNIT_EXPECT_EQ(test, pb.pb_nblocks,
			rpcrdma_pagebuf_sge_count(p->len, p->max_sges));
	KUNIT_EXPECT_EQ(test, pb.pb_head_len,
			min_t(unsigned int, p->len, PAGE_SIZE << pb.pb_order));
	KUNIT_EXPECT_PTR_EQ(test, pb.pb_head, page_address(pb.pb_pages[0]));

	/* A block is one SGE: its pages must be physically contiguous */
	npages = DIV_ROUND_UP(p->len, PAGE_SIZE);
	per_block = 1U << pb.pb_order;
	for (i = 0; i < npages; i++)
		if (i % per_block)
			KUNIT_EXPECT_PTR_EQ(test, pb.pb_pages[i],
					    pb.pb_pages[i - 1] + 1);

check:
	/* The whole buffer, a part ending inside the head, and one
	 * octet past the head
	 */
	check_bvecs(test, &pb, p->len);
	check_bvecs(test, &pb, min(p->len, 100U));
	if (p->len > pb.pb_head_len)
		check_bvecs(test, &pb, pb.pb_head_len + 1);

	rpcrdma_pagebuf_free(&pb);
	KUNIT_EXPECT_NULL(test, pb.pb_head);
	KUNIT_EXPECT_NULL(test, pb.pb_pages);
	KUNIT_EXPECT_EQ(test, pb.pb_len, 0U);
	KUNIT_EXPECT_FALSE(test, rpcrdma_pagebuf_fits(&pb, p->len, p->max_sges));
	/* A second free of a freed buffer does nothing */
	rpcrdma_pagebuf_free(&pb);
}

struct fits_param {
	const char	*desc;
	unsigned int	len;		/* the buffer as allocated */
	unsigned int	max_sges;
	unsigned int	new_len;	/* what the new connection needs */
	unsigned int	new_sges;
	bool		fits;
};

static const struct fits_param fits_params[] = {
	{ "same size, same device",		65536, 16, 65536, 16, true },
	{ "size changed: reallocate",		65536, 16, 32768, 16, false },
	{ "size grew: reallocate",		4096,  16, 8192,  16, false },
	{ "device offers more SGEs: keep",	65536, 16, 65536, 30, true },
	{ "device offers fewer SGEs: reallocate", 65536, 16, 65536, 4, false },
	{ "fewer SGEs, still enough: keep",	65536, 4,  65536, 8, true },
	{ "one page, any device: keep",		4096,  16, 4096,  1, true },
	{ "more than the SGEs hold: reallocate",	131072, 16, 131072, 2, false },
};

KUNIT_ARRAY_PARAM_DESC(fits, fits_params, desc);

/* What a reconnect keeps: the buffer must suit the new QP as it is */
static void test_fits(struct kunit *test)
{
	const struct fits_param *p = test->param_value;
	struct rpcrdma_pagebuf pb;

	if (PAGE_SIZE != 4096)
		kunit_skip(test, "the rows assume 4 KiB pages");
	KUNIT_ASSERT_EQ(test, rpcrdma_pagebuf_alloc(&pb, p->len, p->max_sges,
						    GFP_KERNEL, NUMA_NO_NODE),
			0);
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_fits(&pb, p->new_len,
						   p->new_sges), p->fits);
	rpcrdma_pagebuf_free(&pb);
}

/* Flags that allow highmem or forbid sleeping still give linear memory */
static void test_alloc_flags(struct kunit *test)
{
	static const gfp_t flags[] = {
		GFP_HIGHUSER,
		__GFP_NOMEMALLOC | __GFP_NORETRY | __GFP_NOWARN,
	};
	struct rpcrdma_pagebuf pb;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		if (rpcrdma_pagebuf_alloc(&pb, 65536, 16, flags[i],
					  NUMA_NO_NODE))
			continue;	/* no reclaim: may fail, not the point */
		for (k = 0; k < rpcrdma_pagebuf_nblocks(65536, 0); k++)
			KUNIT_EXPECT_FALSE_MSG(test,
					       PageHighMem(pb.pb_pages[k]),
					       "flags %u: page %u in highmem",
					       i, k);
		KUNIT_EXPECT_TRUE(test, linear(pb.pb_head, pb.pb_head_len));
		rpcrdma_pagebuf_free(&pb);
	}
}

static void test_alloc_zero(struct kunit *test)
{
	struct rpcrdma_pagebuf pb;

	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_alloc(&pb, 0, 16, GFP_KERNEL,
						    NUMA_NO_NODE), -EINVAL);
	KUNIT_EXPECT_NULL(test, pb.pb_head);
	rpcrdma_pagebuf_free(&pb);
}

/* Larger than the device's SGEs can hold: refused before allocating */
static void test_alloc_too_large(struct kunit *test)
{
	static const unsigned int sges[] = { 1, 4, 16 };
	struct rpcrdma_pagebuf pb;
	unsigned int i, max;

	for (i = 0; i < ARRAY_SIZE(sges); i++) {
		max = rpcrdma_pagebuf_max_len(sges[i]);
		KUNIT_EXPECT_EQ_MSG(test,
				    rpcrdma_pagebuf_alloc(&pb, max + 1, sges[i],
							  GFP_KERNEL,
							  NUMA_NO_NODE),
				    -E2BIG, "%u SGEs", sges[i]);
		KUNIT_EXPECT_EQ(test, pb.pb_len, 0U);
		KUNIT_EXPECT_NULL(test, pb.pb_head);
		KUNIT_EXPECT_NULL(test, pb.pb_pages);
	}
	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_alloc(&pb, UINT_MAX, 16,
						    GFP_KERNEL, NUMA_NO_NODE),
			-E2BIG);
	rpcrdma_pagebuf_free(&pb);
}

static struct kunit_case pagebuf_cases[] = {
	KUNIT_CASE_PARAM(test_layout, layout_gen_params),
	KUNIT_CASE(test_max_len),
	KUNIT_CASE(test_nblocks_no_wrap),
	KUNIT_CASE_PARAM(test_fallback, fallback_gen_params),
	KUNIT_CASE(test_fallback_chain),
	KUNIT_CASE(test_fallback_fits_sges),
	KUNIT_CASE_PARAM(test_alloc, alloc_gen_params),
	KUNIT_CASE_PARAM(test_fits, fits_gen_params),
	KUNIT_CASE(test_alloc_flags),
	KUNIT_CASE(test_alloc_zero),
	KUNIT_CASE(test_alloc_too_large),
	{}
};

static struct kunit_suite pagebuf_suite = {
	.name = "rpcrdma_pagebuf",
	.test_cases = pagebuf_cases,
};

kunit_test_suite(pagebuf_suite);

MODULE_DESCRIPTION("KUnit tests for RPC-over-RDMA page-block inline buffers");
MODULE_LICENSE("GPL");
