// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for svcrdma's shared receive queue: when a device can
 * carry one, and the credit grants that keep every credit backed by a
 * posted Receive buffer of the shared pool.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/sunrpc/svc_rdma.h>

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static void srq_usable_test(struct kunit *test)
{
	struct ib_device_attr attrs = {
		.max_srq	= 1024,
		.max_srq_wr	= 16384,
		.max_srq_sge	= 27,
	};

	KUNIT_EXPECT_TRUE(test, svc_rdma_srq_usable(&attrs, 17));
	KUNIT_EXPECT_TRUE(test, svc_rdma_srq_usable(&attrs, 27));
	/* Buffers that need more SGEs than an SRQ WR takes */
	KUNIT_EXPECT_FALSE(test, svc_rdma_srq_usable(&attrs, 28));

	/* A device without SRQs */
	attrs.max_srq = 0;
	KUNIT_EXPECT_FALSE(test, svc_rdma_srq_usable(&attrs, 1));
	attrs.max_srq = 1;

	/* An SRQ that cannot hold a connection's credits twice over */
	attrs.max_srq_wr = 2 * (RPCRDMA_MAX_REQUESTS +
				RPCRDMA_MAX_BC_REQUESTS) - 1;
	KUNIT_EXPECT_FALSE(test, svc_rdma_srq_usable(&attrs, 1));
	attrs.max_srq_wr++;
	KUNIT_EXPECT_TRUE(test, svc_rdma_srq_usable(&attrs, 1));
}

static void srq_grant_first_reply_test(struct kunit *test)
{
	struct svc_rdma_credits cr = { .cr_reserved = 1, .cr_grant = 1 };
	u32 free = 100;

	/* The first Call used the one credit: the grant doubles */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 1, 128, &free, true), 2);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 2);
	KUNIT_EXPECT_EQ(test, free, 99);

	/* One Call at a time after that: the grant stays */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 1, 128, &free, true), 2);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 2);
	KUNIT_EXPECT_EQ(test, free, 99);
}

static void srq_grant_busy_test(struct kunit *test)
{
	struct svc_rdma_credits cr = { .cr_reserved = 1, .cr_grant = 1 };
	u32 free = 1000, grant = 1;
	int i;

	/* A client that keeps every credit busy climbs to its share */
	for (i = 0; i < 10; i++)
		grant = svc_rdma_srq_grant(&cr, grant, 48, &free, true);
	KUNIT_EXPECT_EQ(test, grant, 48);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 48);
	KUNIT_EXPECT_EQ(test, free, 1000 - 47);
}

static void srq_grant_pool_short_test(struct kunit *test)
{
	struct svc_rdma_credits cr = { .cr_reserved = 4, .cr_grant = 4 };
	u32 free = 3;

	/* Wants 8: takes the three buffers there are */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 4, 128, &free, true), 7);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 7);
	KUNIT_EXPECT_EQ(test, free, 0);

	/* None left: the grant stays what is reserved */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 7, 128, &free, true), 7);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 7);
	KUNIT_EXPECT_EQ(test, free, 0);
}

static void srq_grant_lower_test(struct kunit *test)
{
	struct svc_rdma_credits cr = { .cr_reserved = 64, .cr_grant = 64 };
	u32 free = 0;

	/* The share fell to 8 (connections arrived): the grant falls at
	 * once, the reservation one buffer per Reply
	 */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 40, 8, &free, true), 8);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 63);
	KUNIT_EXPECT_EQ(test, free, 1);

	/* Another Reply being built: the grant may fall, the reservation
	 * may not
	 */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 1, 8, &free, false), 2);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 63);
	KUNIT_EXPECT_EQ(test, free, 1);

	/* Never below one credit, even with a share of zero */
	cr.cr_reserved = 1;
	cr.cr_grant = 1;
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_grant(&cr, 1, 0, &free, true), 1);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 1);
}

/* What a client sent beyond its reservation is covered from the pool */
static void srq_borrow_test(struct kunit *test)
{
	struct svc_rdma_credits cr = { .cr_reserved = 4, .cr_grant = 4 };
	u32 free = 5;

	/* within the reservation and the backchannel's: nothing taken */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_borrow(&cr, 4, 0, 128, &free), 0);
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_borrow(&cr, 6, 2, 128, &free), 0);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 4);
	KUNIT_EXPECT_EQ(test, free, 5);

	/* two Calls beyond it: two buffers nobody reserved */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_borrow(&cr, 6, 0, 128, &free), 2);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 6);
	KUNIT_EXPECT_EQ(test, free, 3);
	/* the grant is left alone: the next Reply computes it */
	KUNIT_EXPECT_EQ(test, cr.cr_grant, 4);

	/* never past the most credits the connection may have */
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_borrow(&cr, 8, 0, 7, &free),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 7);
	KUNIT_EXPECT_EQ(test, free, 2);

	/* nor with the pool's unreserved buffers gone */
	free = 0;
	KUNIT_EXPECT_EQ(test, svc_rdma_srq_borrow(&cr, 8, 0, 128, &free),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, cr.cr_reserved, 7);
	KUNIT_EXPECT_EQ(test, free, 0);
}

#define SRQ_MODEL_CONNS		3
#define SRQ_MODEL_INFLIGHT	256
#define SRQ_MODEL_BUILDING	8

/* One connection as both ends see it */
struct srq_model_conn {
	struct svc_rdma_credits	cr;	/* server */
	u32	held;			/* server: Calls not yet answered */
	u32	outstanding;		/* client: Calls sent, no Reply yet */
	u32	allowed;		/* client: the last grant it read */
	u32	inflight[SRQ_MODEL_INFLIGHT];	/* Replies on the wire */
	u32	head, tail;
	u32	building[SRQ_MODEL_BUILDING];	/* granted, not yet sent */
	u32	nbuilding;
	u32	ignored;		/* client: Replies it will drop */
};

static u32 srq_model_next(u32 *seed)
{
	*seed = *seed * 1664525 + 1013904223;
	return *seed >> 8;
}

/* A new connection: one credit, one buffer reserved from @free */
static void srq_model_connect(struct srq_model_conn *c, u32 *free)
{
	memset(c, 0, sizeof(*c));
	c->cr.cr_reserved = 1;
	c->cr.cr_grant = 1;
	c->allowed = 1;
	(*free)--;
}

/* nfsd grants a Reply to one of @c's Calls; false if it cannot yet */
static bool srq_model_grant(struct srq_model_conn *c, u32 share, u32 *free)
{
	if (!c->held || c->nbuilding >= SRQ_MODEL_BUILDING)
		return false;
	c->building[c->nbuilding] =
		svc_rdma_srq_grant(&c->cr, c->held, share, free, !c->nbuilding);
	c->nbuilding++;
	c->held--;
	return true;
}

/* nfsd sends one of the Replies it granted, picked by @r */
static void srq_model_send(struct srq_model_conn *c, u32 r)
{
	unsigned int i;

	if (!c->nbuilding || c->tail - c->head >= SRQ_MODEL_INFLIGHT)
		return;
	i = r % c->nbuilding;
	c->inflight[c->tail++ % SRQ_MODEL_INFLIGHT] = c->building[i];
	c->building[i] = c->building[--c->nbuilding];
}

/*
 * Clients that send whenever their last grant allows, a server that
 * answers in any order (several Replies of a connection granted before
 * any is sent, then sent in any order) and a pool whose share moves,
 * run for many steps: what a client may still send never exceeds what
 * is reserved for its connection, and the reservations never exceed
 * the pool.
 */
static void srq_grant_model_test(struct kunit *test)
{
	struct srq_model_conn *conns, *c;
	u32 seed = 8797, count = 64, free = count, share = 32;
	unsigned int step, i, reserved, violations = 0, granted = 0;

	conns = kunit_kcalloc(test, SRQ_MODEL_CONNS, sizeof(*conns),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conns);
	for (i = 0; i < SRQ_MODEL_CONNS; i++)
		srq_model_connect(&conns[i], &free);

	for (step = 0; step < 200000; step++) {
		u32 r = srq_model_next(&seed);

		c = &conns[r % SRQ_MODEL_CONNS];
		switch ((r >> 4) % 8) {
		case 0: case 1: case 2:		/* the client sends */
			if (c->outstanding < c->allowed) {
				c->outstanding++;
				c->held++;
				/* it sends within its credits */
				if (svc_rdma_srq_borrow(&c->cr, c->held, 0,
							share, &free))
					violations++;
			}
			break;
		case 3:				/* a Reply is granted */
			if (srq_model_grant(c, share, &free))
				granted++;
			break;
		case 4:				/* one of them is sent */
			srq_model_send(c, r >> 12);
			break;
		case 5: case 6:			/* the client reads one */
			if (c->head != c->tail) {
				c->allowed = c->inflight[c->head++ %
							 SRQ_MODEL_INFLIGHT];
				c->outstanding--;
			}
			break;
		default:			/* connections come and go */
			share = 1 + (r >> 12) % 40;
			break;
		}

		reserved = 0;
		for (i = 0; i < SRQ_MODEL_CONNS; i++) {
			c = &conns[i];
			reserved += c->cr.cr_reserved;
			if (c->outstanding - (c->tail - c->head) -
			    c->nbuilding > c->cr.cr_reserved)
				violations++;
			if (c->cr.cr_grant > c->cr.cr_reserved)
				violations++;
		}
		if (reserved + free != count)
			violations++;
	}
	KUNIT_EXPECT_EQ(test, violations, 0);
	/* The model did run: most steps that could answer did */
	KUNIT_EXPECT_GT(test, granted, 10000);
}

/*
 * nfsd covers @c's held Calls after a Receive or a Reply
 * (svc_rdma_srq_received, svc_rdma_srq_credits), closing the connection
 * if the pool cannot: the client makes a new one. The first connection,
 * whose client keeps to its grants, must never need either.
 */
static unsigned int srq_model_cover(struct srq_model_conn *conns,
				    struct srq_model_conn *c, u32 max,
				    u32 *free, unsigned int *borrowed,
				    unsigned int *closed)
{
	int taken = svc_rdma_srq_borrow(&c->cr, c->held, 0, max, free);

	if (taken >= 0) {
		*borrowed += taken;
		return taken && c == conns;
	}
	*free += c->cr.cr_reserved;
	srq_model_connect(c, free);
	(*closed)++;
	return c == conns;
}

/*
 * As above, but the clients of all connections but the first also give
 * up on Calls, as a Linux client does on a signal or a soft timeout: it
 * reuses the Call's credit at once and drops its Reply, grant and all,
 * when it comes (rpcrdma_reply_handler() keeps its credits for a Reply
 * whose XID it no longer knows). What a client then sends beyond its
 * reservation is covered from buffers nobody reserved
 * (svc_rdma_srq_borrow), and its connection is closed when there are
 * none. Throughout, every Call nfsd holds has a buffer of the pool (the
 * SRQ is never overrun), each connection's Calls are covered by its
 * reservation, the reservations never exceed the pool, and the first
 * connection, whose client keeps to its grants, never borrows and is
 * never closed, whatever the others do.
 */
static void srq_borrow_model_test(struct kunit *test)
{
	struct srq_model_conn *conns, *c;
	u32 seed = 8166, count = 64, free = count, share = 32, max = 48;
	unsigned int step, i, held, reserved, violations = 0;
	unsigned int borrowed = 0, closed = 0, gave_up = 0, granted = 0;

	conns = kunit_kcalloc(test, SRQ_MODEL_CONNS, sizeof(*conns),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conns);
	for (i = 0; i < SRQ_MODEL_CONNS; i++)
		srq_model_connect(&conns[i], &free);

	for (step = 0; step < 200000; step++) {
		u32 r = srq_model_next(&seed);

		c = &conns[r % SRQ_MODEL_CONNS];
		switch ((r >> 4) % 9) {
		case 0: case 1: case 2:		/* the client sends */
			if (c->outstanding >= c->allowed)
				break;
			c->outstanding++;
			c->held++;
			violations += srq_model_cover(conns, c, max, &free,
						      &borrowed, &closed);
			break;
		case 3:				/* a Reply is granted */
			if (!srq_model_grant(c, min(share, max), &free))
				break;
			granted++;
			/* a lower reservation must still cover what is held */
			violations += srq_model_cover(conns, c, max, &free,
						      &borrowed, &closed);
			break;
		case 4:				/* one of them is sent */
			srq_model_send(c, r >> 12);
			break;
		case 5:				/* the client reads one */
			if (c->head == c->tail)
				break;
			i = c->inflight[c->head++ % SRQ_MODEL_INFLIGHT];
			/* the Reply of a Call it gave up on, or another */
			if (c->ignored && (!c->outstanding || (r >> 12) & 1)) {
				c->ignored--;
				break;
			}
			c->allowed = i;
			c->outstanding--;
			break;
		case 6:				/* it gives up on a Call */
			if (c != conns && c->outstanding && !((r >> 12) % 4)) {
				c->outstanding--;
				c->ignored++;
				gave_up++;
			}
			break;
		default:			/* connections come and go */
			share = 1 + (r >> 12) % 40;
			break;
		}

		reserved = 0;
		held = 0;
		for (i = 0; i < SRQ_MODEL_CONNS; i++) {
			c = &conns[i];
			reserved += c->cr.cr_reserved;
			held += c->held;
			if (c->held > c->cr.cr_reserved)
				violations++;
			if (c->cr.cr_grant > c->cr.cr_reserved)
				violations++;
		}
		if (free > count || reserved + free != count || held > count)
			violations++;
	}
	kunit_info(test, "%u Calls given up on, %u buffers borrowed, %u connections closed\n",
		   gave_up, borrowed, closed);
	KUNIT_EXPECT_EQ(test, violations, 0);
	/* The model did run: Replies were granted, Calls given up on,
	 * and their credits reused beyond a reservation
	 */
	KUNIT_EXPECT_GT(test, granted, 10000);
	KUNIT_EXPECT_GT(test, gave_up, 100);
	KUNIT_EXPECT_GT(test, borrowed, 0);
	KUNIT_EXPECT_GT(test, closed, 0);
}

static struct kunit_case svc_rdma_srq_cases[] = {
	KUNIT_CASE(srq_usable_test),
	KUNIT_CASE(srq_grant_first_reply_test),
	KUNIT_CASE(srq_grant_busy_test),
	KUNIT_CASE(srq_grant_pool_short_test),
	KUNIT_CASE(srq_grant_lower_test),
	KUNIT_CASE(srq_grant_model_test),
	KUNIT_CASE(srq_borrow_test),
	KUNIT_CASE(srq_borrow_model_test),
	{}
};

static struct kunit_suite svc_rdma_srq_suite = {
	.name = "svcrdma_srq",
	.test_cases = svc_rdma_srq_cases,
};

kunit_test_suite(svc_rdma_srq_suite);

MODULE_DESCRIPTION("KUnit tests for svcrdma's shared receive queue");
MODULE_LICENSE("GPL");
