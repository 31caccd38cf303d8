// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the page-block inline buffers of RPC-over-RDMA.
 *
 * The layout rows assume 4 KiB pages and are skipped elsewhere. The
 * allocation cases check what the device would see: each block
 * physically contiguous, and the vmap() view equal to the pages.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

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
	{ "256 KiB, device offers 4: order 4 forced",	262144,	4,  4, 4 },
	{ "256 KiB, device offers 1: order 6",		262144,	1,  6, 1 },
	{ "256 KiB, 0 SGEs counts as 1",		262144,	0,  6, 1 },
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
	{ "256 KiB in 4 blocks",		262144,	4 },
};

KUNIT_ARRAY_PARAM_DESC(alloc, alloc_params, desc);

static u8 pattern(unsigned int offset)
{
	return (offset * 7 + (offset >> 12)) & 0xff;
}

static void test_alloc(struct kunit *test)
{
	const struct alloc_param *p = test->param_value;
	unsigned int i, npages, per_block;
	struct rpcrdma_pagebuf pb;
	u8 *data;

	KUNIT_ASSERT_EQ(test, rpcrdma_pagebuf_alloc(&pb, p->len, p->max_sges,
						    GFP_KERNEL, NUMA_NO_NODE),
			0);
	KUNIT_EXPECT_EQ(test, pb.pb_len, p->len);
	KUNIT_EXPECT_NULL(test, pb.pb_device);
	data = pb.pb_data;
	for (i = 0; i < p->len; i++)
		data[i] = pattern(i);

	if (p->len <= PAGE_SIZE) {
		KUNIT_EXPECT_EQ(test, pb.pb_nblocks, 0U);
		KUNIT_EXPECT_NULL(test, pb.pb_pages);
		goto out;
	}

	KUNIT_EXPECT_EQ(test, pb.pb_order,
			rpcrdma_pagebuf_order(p->len, p->max_sges));
	KUNIT_EXPECT_EQ(test, pb.pb_nblocks,
			rpcrdma_pagebuf_sge_count(p->len, p->max_sges));

	/* A block is one SGE: its pages must be physically contiguous */
	npages = DIV_ROUND_UP(p->len, PAGE_SIZE);
	per_block = 1U << pb.pb_order;
	for (i = 0; i < npages; i++)
		if (i % per_block)
			KUNIT_EXPECT_PTR_EQ(test, pb.pb_pages[i],
					    pb.pb_pages[i - 1] + 1);

	/* What was written through the vmap() view is in those pages */
	for (i = 0; i < npages; i++) {
		u8 *page = kmap_local_page(pb.pb_pages[i]);
		unsigned int k, n = min_t(unsigned int, PAGE_SIZE,
					  p->len - i * PAGE_SIZE);

		for (k = 0; k < n; k++)
			if (page[k] != pattern(i * PAGE_SIZE + k))
				break;
		kunmap_local(page);
		KUNIT_EXPECT_EQ_MSG(test, k, n, "page %u differs at %u", i, k);
	}
out:
	rpcrdma_pagebuf_free(&pb);
	KUNIT_EXPECT_NULL(test, pb.pb_data);
	KUNIT_EXPECT_NULL(test, pb.pb_pages);
	/* A second free of a freed buffer does nothing */
	rpcrdma_pagebuf_free(&pb);
}

static void test_alloc_zero(struct kunit *test)
{
	struct rpcrdma_pagebuf pb;

	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_alloc(&pb, 0, 16, GFP_KERNEL,
						    NUMA_NO_NODE), -EINVAL);
	KUNIT_EXPECT_NULL(test, pb.pb_data);
	rpcrdma_pagebuf_free(&pb);
}

/* More blocks than a buffer may have: refused, and @pb left empty */
static void test_alloc_too_large(struct kunit *test)
{
	struct rpcrdma_pagebuf pb;

	KUNIT_EXPECT_EQ(test, rpcrdma_pagebuf_alloc(&pb, UINT_MAX, 1, GFP_KERNEL,
						    NUMA_NO_NODE), -ENOMEM);
	KUNIT_EXPECT_EQ(test, pb.pb_len, 0U);
	KUNIT_EXPECT_NULL(test, pb.pb_data);
	rpcrdma_pagebuf_free(&pb);
}

static struct kunit_case pagebuf_cases[] = {
	KUNIT_CASE_PARAM(test_layout, layout_gen_params),
	KUNIT_CASE_PARAM(test_fallback, fallback_gen_params),
	KUNIT_CASE(test_fallback_chain),
	KUNIT_CASE_PARAM(test_alloc, alloc_gen_params),
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
