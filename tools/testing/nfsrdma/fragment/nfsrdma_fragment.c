// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: leave the page allocator with no free block of order
 * NFSRDMA_FRAGMENT_ORDER or more, while most memory stays free.
 *
 * Every free block of that order is taken and split into pages; the
 * first page of each block is kept and the others are freed. A kept
 * page sits in every aligned block of that order, so none can form
 * again, whatever the allocator merges or compaction moves (the kept
 * pages are unmovable). Passes repeat until one finds no block: pages
 * that per-CPU lists give back can merge into new blocks meanwhile.
 *
 * The pages are given back when the module is removed. Used by the
 * NFS/RDMA end-to-end tests (tools/testing/nfsrdma) to show that a
 * transport at large inline thresholds needs no high-order memory.
 */

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>

#define NFSRDMA_FRAGMENT_ORDER	4

static LIST_HEAD(nfsrdma_fragment_held);
static unsigned long nfsrdma_fragment_count;

/* Take every free block of NFSRDMA_FRAGMENT_ORDER; return how many */
static unsigned long nfsrdma_fragment_pass(void)
{
	const unsigned int n = 1U << NFSRDMA_FRAGMENT_ORDER;
	unsigned long blocks = 0;
	struct page *page;
	unsigned int i;

	/* No reclaim and no compaction: only blocks that are free now */
	while ((page = alloc_pages(GFP_NOWAIT | __GFP_NOWARN,
				   NFSRDMA_FRAGMENT_ORDER))) {
		split_page(page, NFSRDMA_FRAGMENT_ORDER);
		list_add(&page->lru, &nfsrdma_fragment_held);
		for (i = 1; i < n; i++)
			__free_page(page + i);
		blocks++;
		cond_resched();
	}
	return blocks;
}

static int __init nfsrdma_fragment_init(void)
{
	unsigned long blocks;
	unsigned int passes = 0;

	do {
		blocks = nfsrdma_fragment_pass();
		nfsrdma_fragment_count += blocks;
		passes++;
		msleep(20);
	} while (blocks && passes < 64);

	pr_info("nfsrdma_fragment: holding %lu pages after %u passes, %s\n",
		nfsrdma_fragment_count, passes,
		blocks ? "blocks still forming" : "no free block of order 4 or more");
	return 0;
}

static void __exit nfsrdma_fragment_exit(void)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &nfsrdma_fragment_held, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	pr_info("nfsrdma_fragment: released %lu pages\n",
		nfsrdma_fragment_count);
}

module_init(nfsrdma_fragment_init);
module_exit(nfsrdma_fragment_exit);
MODULE_DESCRIPTION("Test-only: fragment free memory for the NFS/RDMA end-to-end tests");
MODULE_LICENSE("GPL");
