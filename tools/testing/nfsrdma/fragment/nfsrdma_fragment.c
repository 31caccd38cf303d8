// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: keep the page allocator with no free block of order
 * @order (4 unless given) or more, while most memory stays free.
 *
 * Every free block of that order is taken and split into pages; the
 * first page of each block is kept and the others are freed. A kept
 * page sits in the aligned block it came from, so that block cannot
 * form again. Blocks that were in use during a pass can still come
 * back whole when their pages are freed later (a process exits, a
 * slab empties), so the passes go on every NFSRDMA_FRAGMENT_MS while
 * the module is loaded: such a block is taken as soon as it forms.
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
#include <linux/workqueue.h>

#define NFSRDMA_FRAGMENT_MS	10

static unsigned int order = 4;
module_param(order, uint, 0444);
MODULE_PARM_DESC(order, "Leave no free block of this order or more (1 to MAX_PAGE_ORDER, default 4)");

/* Only the work item touches these once init has returned */
static LIST_HEAD(nfsrdma_fragment_held);
static unsigned long nfsrdma_fragment_count;

static void nfsrdma_fragment_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(nfsrdma_fragment_work, nfsrdma_fragment_sweep);

/* Take every free block of @order; return how many */
static unsigned long nfsrdma_fragment_pass(void)
{
	const unsigned int n = 1U << order;
	unsigned long blocks = 0;
	struct page *page;
	unsigned int i;

	/* No reclaim and no compaction: only blocks that are free now */
	while ((page = alloc_pages(GFP_NOWAIT | __GFP_NOWARN, order))) {
		split_page(page, order);
		list_add(&page->lru, &nfsrdma_fragment_held);
		for (i = 1; i < n; i++)
			__free_page(page + i);
		blocks++;
		cond_resched();
	}
	nfsrdma_fragment_count += blocks;
	return blocks;
}

static void nfsrdma_fragment_sweep(struct work_struct *work)
{
	unsigned long blocks = nfsrdma_fragment_pass();

	if (blocks)
		pr_debug("nfsrdma_fragment: took %lu more blocks\n", blocks);
	schedule_delayed_work(&nfsrdma_fragment_work,
			      msecs_to_jiffies(NFSRDMA_FRAGMENT_MS));
}

static int __init nfsrdma_fragment_init(void)
{
	unsigned long blocks;
	unsigned int passes = 0;

	if (order < 1 || order > MAX_PAGE_ORDER) {
		pr_err("nfsrdma_fragment: order=%u: use 1 to %u\n", order,
		       MAX_PAGE_ORDER);
		return -EINVAL;
	}

	do {
		blocks = nfsrdma_fragment_pass();
		passes++;
		msleep(20);
	} while (blocks && passes < 64);

	pr_info("nfsrdma_fragment: holding %lu pages after %u passes, %s of order %u or more; sweeping every %u ms\n",
		nfsrdma_fragment_count, passes,
		blocks ? "blocks still forming" : "no free block",
		order, NFSRDMA_FRAGMENT_MS);
	schedule_delayed_work(&nfsrdma_fragment_work,
			      msecs_to_jiffies(NFSRDMA_FRAGMENT_MS));
	return 0;
}

static void __exit nfsrdma_fragment_exit(void)
{
	struct page *page, *next;

	cancel_delayed_work_sync(&nfsrdma_fragment_work);
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
