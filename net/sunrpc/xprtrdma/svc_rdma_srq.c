// SPDX-License-Identifier: GPL-2.0
/*
 * One shared receive queue (SRQ) per device for svcrdma
 *
 * Without an SRQ, every connection posts a Receive buffer of the
 * advertised Receive Size for each credit it grants, busy or idle, so
 * nfsd's Receive memory grows with its clients: at 256 KiB and 128
 * credits, 32 MiB a connection. With one, the connections on a device
 * share a pool of buffers posted on the SRQ. The pool grows as
 * connections arrive, by what a connection would have had of its own
 * or an eighth of its bound, whichever is more, up to that bound
 * (what 64 connections would post, at most a quarter of memory, at
 * most half the device's SRQ limit), so that a few connections take
 * it there, and from then on its buffers are shared out.
 *
 * Credits stay a promise (RFC 8166, Section 3.3.1): the Calls a client
 * may still send never outnumber the buffers reserved for its
 * connection, and the reservations of all connections never exceed the
 * pool. A connection reserves one buffer at accept (a client starts
 * with one credit), and the backchannel's requests when nfsd sets one
 * up. Each Reply's grant is computed once, after the Call's buffer is
 * posted again (svc_rdma_srq_grant): a connection that keeps its
 * credits busy has its grant doubled, up to its share of the pool,
 * from buffers nobody reserved; one that uses few has it lowered.
 * A reservation follows a lower grant one buffer per Reply, and only
 * while no other Reply of the connection is being built: a client may
 * still send on the credits of every Reply it has not yet received,
 * and no Reply built earlier may reach it after the lower grant. A
 * client that sends more than was reserved for it (a Linux client
 * reuses the credit of a Call it gave up on) takes a buffer nobody
 * reserved, if there is one; if not, its connection is closed.
 *
 * Buffers belong to the pool, not to a connection: a Receive
 * completes on the CQ of the connection whose Call it holds, and the
 * buffer goes back on the SRQ when the Call is done with it, also
 * when that connection is closing. The pool, its PD and its SRQ live
 * until the device is removed or the module is unloaded, after the
 * last connection that used them is freed.
 *
 * Copyright (c) 2026 NFS/RDMA developers.
 */

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <linux/sunrpc/svc_rdma.h>
#include <linux/sunrpc/rdma_rn.h>
#include <linux/sunrpc/rpc_rdma_pagebuf.h>

#include "xprt_rdma.h"
#include <trace/events/rpcrdma.h>

/**
 * struct svc_rdma_srq - the Receive buffers a device's connections share
 * @sr_list: on svc_rdma_srqs while connections may still attach
 * @sr_ref: one for each attached connection, one for the device
 * @sr_device: the device
 * @sr_pd: PD of the SRQ and of every QP that uses it
 * @sr_srq: the shared receive queue
 * @sr_rn: device removal notification
 * @sr_size: Receive Size of its buffers, as advertised
 * @sr_sges: SGEs of each buffer's Receive WR, at most
 * @sr_max: buffers it grows to as connections arrive
 * @sr_cap: buffers the SRQ holds, so that it can never be overrun
 * @sr_ids: completion IDs for its buffers
 * @sr_bufs: every buffer made, to free them with the pool
 * @sr_grow_mutex: serializes growth (process context)
 * @sr_lock: protects the counts below
 * @sr_count: buffers made, posted or held by a Call
 * @sr_reserved: buffers reserved by connections (credits, backchannel)
 * @sr_bc_reserved: of those, for backchannel requests
 * @sr_conns: attached connections
 * @sr_used: a connection has attached to it
 * @sr_share: most credits one connection may be granted now
 */
struct svc_rdma_srq {
	struct list_head		sr_list;
	struct kref			sr_ref;
	struct ib_device		*sr_device;
	struct ib_pd			*sr_pd;
	struct ib_srq			*sr_srq;
	struct rpcrdma_notification	sr_rn;
	unsigned int			sr_size;
	unsigned int			sr_sges;
	unsigned int			sr_max;
	unsigned int			sr_cap;
	atomic_t			sr_ids;
	struct xarray			sr_bufs;
	struct mutex			sr_grow_mutex;	/* growth */

	spinlock_t			sr_lock;	/* the counts below */
	unsigned int			sr_count;
	unsigned int			sr_reserved;
	unsigned int			sr_bc_reserved;
	unsigned int			sr_conns;
	unsigned int			sr_share;
	bool				sr_used;	/* growth */
};

/*
 * A pool grows to what this many connections would post of their own
 * at the default credits, unless a quarter of memory is less. More
 * Calls in flight than that is more than nfsd's threads and its
 * storage can be working on, and the connections past it share.
 */
#define SVC_RDMA_SRQ_CONNS	64

static LIST_HEAD(svc_rdma_srqs);
static DEFINE_MUTEX(svc_rdma_srqs_mutex);

/**
 * svc_rdma_srq_usable - may svcrdma post its Receives on an SRQ
 * @attrs: the device's attributes
 * @sges: Receive SGEs a buffer of the wanted size takes
 *
 * An SRQ must hold at least a connection's default credits and its
 * backchannel requests twice over, and take as many SGEs per WR as the
 * buffers need. Otherwise each connection keeps its own Receive Queue.
 *
 * Return: %true when the device can carry the pool.
 */
VISIBLE_IF_KUNIT bool svc_rdma_srq_usable(const struct ib_device_attr *attrs,
					  unsigned int sges)
{
	unsigned int need = 2 * (RPCRDMA_MAX_REQUESTS +
				 RPCRDMA_MAX_BC_REQUESTS);

	return attrs->max_srq > 0 && attrs->max_srq_wr >= need &&
	       attrs->max_srq_sge >= sges;
}
EXPORT_SYMBOL_IF_KUNIT(svc_rdma_srq_usable);

/*
 * A QP on an SRQ is drained by waiting for its Last WQE Reached event
 * before its CQ is polled (ib_drain_qp()). Drivers that never raise it
 * make every drain wait 60 seconds and may leave a Receive's buffer
 * nowhere: only these take the pool. siw raises it since "RDMA/siw:
 * Report Last WQE Reached for a QP on an SRQ".
 */
static bool svc_rdma_srq_drains(const struct ib_device *device)
{
	switch (device->ops.driver_id) {
	case RDMA_DRIVER_MLX5:
	case RDMA_DRIVER_MLX4:
	case RDMA_DRIVER_CXGB4:
	case RDMA_DRIVER_SIW:
	case RDMA_DRIVER_MTHCA:
	case RDMA_DRIVER_BNXT_RE:
	case RDMA_DRIVER_OCRDMA:
	case RDMA_DRIVER_HNS:
	case RDMA_DRIVER_RXE:
	case RDMA_DRIVER_HFI1:
	case RDMA_DRIVER_IONIC:
		return true;
	default:
		return false;
	}
}

/**
 * svc_rdma_srq_grant - credits for one Reply, and the reservation after it
 * @cr: the connection's reservation and last grant
 * @held: the connection's Calls whose buffers nfsd holds, this one counted
 * @share: the most credits the connection may be granted now
 * @free: buffers of the pool no connection reserved; lowered by what
 *	this takes, raised by what it gives back
 * @alone: no other Reply of the connection is being built
 *
 * A connection whose Calls fill more than half of its grant has it
 * doubled, one that fills an eighth or less has it lowered to twice
 * what it uses, never above @share nor below one. A higher grant takes
 * buffers from @free first (as many as there are); a lower one is sent
 * at once, while the reservation comes down one buffer per Reply, and
 * only when @alone: see the comment at the top of this file.
 *
 * Return: the credits to grant, at least one and at most the
 * reservation.
 */
VISIBLE_IF_KUNIT u32 svc_rdma_srq_grant(struct svc_rdma_credits *cr, u32 held,
					u32 share, u32 *free, bool alone)
{
	u32 want = cr->cr_grant;
	u32 take;

	if (held * 2 > cr->cr_grant)
		want = 2 * cr->cr_grant;
	else if (held * 8 <= cr->cr_grant)
		want = 2 * held;
	want = clamp(want, 1U, max(share, 1U));

	if (want > cr->cr_reserved) {
		take = min(want - cr->cr_reserved, *free);
		WRITE_ONCE(cr->cr_reserved, cr->cr_reserved + take);
		*free -= take;
		want = cr->cr_reserved;
	} else if (alone && cr->cr_reserved > want) {
		WRITE_ONCE(cr->cr_reserved, cr->cr_reserved - 1);
		(*free)++;
	}
	cr->cr_grant = want;
	return want;
}
EXPORT_SYMBOL_IF_KUNIT(svc_rdma_srq_grant);

/**
 * svc_rdma_srq_borrow - cover Calls a client sent beyond its reservation
 * @cr: the connection's reservation and last grant
 * @held: the connection's Calls whose buffers nfsd holds
 * @bc: buffers reserved for its backchannel's requests
 * @max: the most credits the connection may ever be granted
 * @free: buffers of the pool no connection reserved; lowered by what
 *	this takes
 *
 * Raises the reservation one buffer at a time from @free until it
 * covers @held, never past @max credits.
 *
 * Return: the buffers taken (0 if @held was covered already), or
 * %-ENOSPC if @free ran out or @max was reached first: the client sent
 * into a buffer reserved for another connection, or beyond any grant
 * it could have had. What was taken before is not given back here.
 */
VISIBLE_IF_KUNIT int svc_rdma_srq_borrow(struct svc_rdma_credits *cr,
					 u32 held, u32 bc, u32 max, u32 *free)
{
	int taken = 0;

	while (held > cr->cr_reserved + bc) {
		if (cr->cr_reserved >= max || !*free)
			return -ENOSPC;
		WRITE_ONCE(cr->cr_reserved, cr->cr_reserved + 1);
		(*free)--;
		taken++;
	}
	return taken;
}
EXPORT_SYMBOL_IF_KUNIT(svc_rdma_srq_borrow);

/* Caller holds sr_lock */
static void svc_rdma_srq_reshare(struct svc_rdma_srq *srq)
{
	unsigned int forward = srq->sr_count - srq->sr_bc_reserved;

	srq->sr_share = srq->sr_conns ?
		clamp(forward / srq->sr_conns, 1U, svcrdma_max_requests) : 0;
}

static void svc_rdma_srq_free_bufs(struct svc_rdma_srq *srq)
{
	struct svc_rdma_recv_buf *buf;
	unsigned long index;

	xa_for_each(&srq->sr_bufs, index, buf)
		svc_rdma_recv_buf_free(buf);
	xa_destroy(&srq->sr_bufs);
}

/* Context: process context; no connection uses @srq any more */
static void svc_rdma_srq_release(struct kref *kref)
{
	struct svc_rdma_srq *srq = container_of(kref, struct svc_rdma_srq,
						sr_ref);

	trace_svcrdma_srq_destroy(srq->sr_device, srq->sr_size,
				  srq->sr_count, srq->sr_max);
	/* Its Receives are discarded with it: no completion follows */
	if (srq->sr_srq)
		ib_destroy_srq(srq->sr_srq);
	svc_rdma_srq_free_bufs(srq);
	if (srq->sr_pd)
		ib_dealloc_pd(srq->sr_pd);
	rpcrdma_rn_unregister(srq->sr_device, &srq->sr_rn);
	kfree(srq);
}

/* Connections can no longer find @srq; it goes with the last of them */
static void svc_rdma_srq_retire(struct svc_rdma_srq *srq)
{
	bool listed;

	mutex_lock(&svc_rdma_srqs_mutex);
	listed = !list_empty(&srq->sr_list);
	list_del_init(&srq->sr_list);
	mutex_unlock(&svc_rdma_srqs_mutex);
	if (listed)
		kref_put(&srq->sr_ref, svc_rdma_srq_release);
}

static void svc_rdma_srq_removed(struct rpcrdma_notification *rn)
{
	svc_rdma_srq_retire(container_of(rn, struct svc_rdma_srq, sr_rn));
}

/* Make buffers and post them until @srq has @want, or at least @need.
 * Returns false if it has fewer than @need.
 */
static bool svc_rdma_srq_grow(struct svc_rdma_srq *srq, unsigned int want,
			      unsigned int need)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	unsigned int count = srq->sr_count;
	unsigned int made = 0;
	struct svc_rdma_recv_buf *buf;
	u32 index;
	int ret;

	lockdep_assert_held(&srq->sr_grow_mutex);
	want = min(max(want, need), srq->sr_cap);
	while (count + made < want) {
		buf = svc_rdma_recv_buf_make(srq->sr_device,
					     srq->sr_pd->local_dma_lkey,
					     srq->sr_size, srq->sr_sges, gfp);
		if (!buf)
			break;
		svc_rdma_recv_buf_cid_init(buf, atomic_inc_return(&srq->sr_ids));
		ret = xa_alloc(&srq->sr_bufs, &index, buf, xa_limit_32b,
			       GFP_KERNEL);
		if (ret) {
			svc_rdma_recv_buf_free(buf);
			break;
		}
		ret = ib_post_srq_recv(srq->sr_srq,
				       svc_rdma_recv_buf_wr(buf), NULL);
		if (ret) {
			/* Freed with the pool: the device is failing */
			trace_svcrdma_srq_post_err(srq->sr_device, ret);
			break;
		}
		made++;
	}
	if (made) {
		spin_lock(&srq->sr_lock);
		srq->sr_count += made;
		svc_rdma_srq_reshare(srq);
		spin_unlock(&srq->sr_lock);
		trace_svcrdma_srq_grow(srq->sr_device, srq->sr_size,
				       count + made, srq->sr_max);
	}
	return count + made >= need;
}

static struct svc_rdma_srq *svc_rdma_srq_create(struct ib_device *device,
						unsigned int size,
						unsigned int sges)
{
	struct ib_srq_init_attr attr = { };
	unsigned long budget, max;
	struct svc_rdma_srq *srq;

	srq = kzalloc_node(sizeof(*srq), GFP_KERNEL, ibdev_to_node(device));
	if (!srq)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&srq->sr_list);
	kref_init(&srq->sr_ref);
	xa_init_flags(&srq->sr_bufs, XA_FLAGS_ALLOC);
	mutex_init(&srq->sr_grow_mutex);
	spin_lock_init(&srq->sr_lock);
	srq->sr_device = device;
	srq->sr_size = size;
	srq->sr_sges = sges;

	/* What SVC_RDMA_SRQ_CONNS connections would post of their own, at
	 * most a quarter of memory, but never less than one connection
	 * needs; and half of what the SRQ holds, the rest for the one
	 * buffer each connection past the bound reserves
	 */
	budget = (totalram_pages() >> 2) << PAGE_SHIFT;
	max = min_t(unsigned long, budget / size,
		    SVC_RDMA_SRQ_CONNS * (RPCRDMA_MAX_REQUESTS +
					  RPCRDMA_MAX_BC_REQUESTS));
	max = max_t(unsigned long, max,
		    RPCRDMA_MAX_REQUESTS + RPCRDMA_MAX_BC_REQUESTS);
	srq->sr_cap = min_t(unsigned long, device->attrs.max_srq_wr, 2 * max);
	srq->sr_max = srq->sr_cap / 2;

	if (rpcrdma_rn_register(device, &srq->sr_rn, svc_rdma_srq_removed)) {
		kfree(srq);
		return ERR_PTR(-ENODEV);
	}
	srq->sr_pd = ib_alloc_pd(device, 0);
	if (IS_ERR(srq->sr_pd)) {
		srq->sr_pd = NULL;
		goto out_release;
	}
	attr.srq_type = IB_SRQT_BASIC;
	attr.attr.max_wr = srq->sr_cap;
	attr.attr.max_sge = rpcrdma_pagebuf_sge_count(size, sges);
	srq->sr_srq = ib_create_srq(srq->sr_pd, &attr);
	if (IS_ERR(srq->sr_srq)) {
		srq->sr_srq = NULL;
		goto out_release;
	}
	trace_svcrdma_srq_create(device, size, 0, srq->sr_max);
	return srq;

out_release:
	svc_rdma_srq_release(&srq->sr_ref);
	return ERR_PTR(-EOPNOTSUPP);
}

/* Find the pool of @device for Receive buffers of @size, or make one.
 * A pool made for another size (max_req_size changed) is retired: it
 * goes with its last connection.
 */
static struct svc_rdma_srq *svc_rdma_srq_get(struct ib_device *device,
					     unsigned int size,
					     unsigned int sges)
{
	struct svc_rdma_srq *srq, *next, *found = NULL;

	mutex_lock(&svc_rdma_srqs_mutex);
	list_for_each_entry_safe(srq, next, &svc_rdma_srqs, sr_list) {
		if (srq->sr_device != device)
			continue;
		if (srq->sr_size == size && srq->sr_sges == sges) {
			kref_get(&srq->sr_ref);
			found = srq;
		} else {
			/* Off the list here, under the mutex, so that a
			 * device removal (svc_rdma_srq_retire) does not
			 * drop the same reference
			 */
			list_del_init(&srq->sr_list);
			kref_put(&srq->sr_ref, svc_rdma_srq_release);
		}
	}
	if (!found) {
		found = svc_rdma_srq_create(device, size, sges);
		if (!IS_ERR(found)) {
			kref_get(&found->sr_ref);
			list_add(&found->sr_list, &svc_rdma_srqs);
		}
	}
	mutex_unlock(&svc_rdma_srqs_mutex);
	return found;
}

/* Reserve @count buffers of @srq after growing it to @want, and past
 * that by what the reservation needs. Replies may take free buffers
 * for their grants meanwhile, so growing is tried again until it makes
 * nothing.
 */
static bool svc_rdma_srq_reserve(struct svc_rdma_srq *srq,
				 unsigned int count, unsigned int want)
{
	unsigned int need, before;

	lockdep_assert_held(&srq->sr_grow_mutex);
	svc_rdma_srq_grow(srq, want, 0);
	for (;;) {
		spin_lock(&srq->sr_lock);
		if (srq->sr_count - srq->sr_reserved >= count) {
			srq->sr_reserved += count;
			spin_unlock(&srq->sr_lock);
			return true;
		}
		need = srq->sr_reserved + count;
		before = srq->sr_count;
		spin_unlock(&srq->sr_lock);

		svc_rdma_srq_grow(srq, want, need);
		if (srq->sr_count == before)
			return false;
	}
}

/**
 * svc_rdma_srq_attach - take Receive buffers for @rdma from its device's pool
 * @rdma: a new connection, before its QP is made
 *
 * Finds or makes the pool of @rdma's device for Receive buffers of
 * @rdma->sc_recv_size octets, grows it by what a connection of its own
 * would post or an eighth of the pool's bound, whichever is more (up
 * to the bound, but always by the one buffer the connection's first
 * Call needs), and reserves that one buffer. A pool that cannot hold
 * what the connection would post of its own is not used. On
 * success, @rdma's QP is to be made in the pool's PD (@rdma->sc_pd)
 * with the pool's SRQ (@rdma->sc_srq), and @rdma->sc_recv_size is the
 * pool's Receive Size.
 *
 * Context: Process context.
 *
 * Return: 0 on success; otherwise the connection posts its own
 * Receives: %-EOPNOTSUPP if the device has no usable SRQ, %-ENODEV if
 * it is being removed, %-ENOMEM if the pool cannot hold one more
 * connection.
 */
int svc_rdma_srq_attach(struct svcxprt_rdma *rdma)
{
	struct ib_device *device = rdma->sc_cm_id->device;
	unsigned int sges, want, own;
	struct svc_rdma_srq *srq;

	sges = min_t(unsigned int, rdma->sc_recv_sges,
		     device->attrs.max_srq_sge);
	if (!svc_rdma_srq_drains(device) ||
	    rpcrdma_pagebuf_max_len(sges) < rdma->sc_recv_size ||
	    !svc_rdma_srq_usable(&device->attrs,
				 rpcrdma_pagebuf_sge_count(rdma->sc_recv_size,
							   sges)))
		return -EOPNOTSUPP;
	srq = svc_rdma_srq_get(device, rdma->sc_recv_size, sges);
	if (IS_ERR(srq))
		return PTR_ERR(srq);

	own = min(rdma->sc_max_requests + rdma->sc_max_bc_requests,
		  srq->sr_max);
	mutex_lock(&srq->sr_grow_mutex);
	spin_lock(&srq->sr_lock);
	want = min(srq->sr_max, srq->sr_count + max(own, srq->sr_max / 8));
	spin_unlock(&srq->sr_lock);
	/* A pool that cannot hold what the connection would post of its
	 * own is no better than those buffers, which can fall back to a
	 * smaller size when memory is short
	 */
	if ((srq->sr_count < own && !svc_rdma_srq_grow(srq, want, own)) ||
	    !svc_rdma_srq_reserve(srq, 1, want)) {
		bool unused = !srq->sr_used;

		mutex_unlock(&srq->sr_grow_mutex);
		/* A pool its first connection could not use is not kept
		 * for later: what it grew goes back now
		 */
		if (unused)
			svc_rdma_srq_retire(srq);
		kref_put(&srq->sr_ref, svc_rdma_srq_release);
		return -ENOMEM;
	}
	spin_lock(&srq->sr_lock);
	srq->sr_conns++;
	svc_rdma_srq_reshare(srq);
	spin_unlock(&srq->sr_lock);
	srq->sr_used = true;
	mutex_unlock(&srq->sr_grow_mutex);

	rdma->sc_srq = srq;
	rdma->sc_pd = srq->sr_pd;
	rdma->sc_recv_size = srq->sr_size;
	rdma->sc_srq_credits.cr_reserved = 1;
	rdma->sc_srq_credits.cr_grant = 1;
	return 0;
}

/* Buffers reserved for @rdma's backchannel Replies */
static unsigned int svc_rdma_srq_bc(const struct svcxprt_rdma *rdma)
{
	return test_bit(RDMAXPRT_SRQ_BC, &rdma->sc_flags) ?
		rdma->sc_max_bc_requests : 0;
}

/**
 * svc_rdma_srq_detach - give back what @rdma reserved of its pool
 * @rdma: a connection being freed, its QP destroyed
 *
 * Every buffer its Calls held is back on the SRQ by now.
 *
 * Context: Process context.
 */
void svc_rdma_srq_detach(struct svcxprt_rdma *rdma)
{
	struct svc_rdma_srq *srq = rdma->sc_srq;
	unsigned int bc;

	if (!srq)
		return;
	bc = svc_rdma_srq_bc(rdma);
	spin_lock(&srq->sr_lock);
	srq->sr_reserved -= rdma->sc_srq_credits.cr_reserved + bc;
	srq->sr_bc_reserved -= bc;
	srq->sr_conns--;
	svc_rdma_srq_reshare(srq);
	spin_unlock(&srq->sr_lock);
	rdma->sc_srq = NULL;
	kref_put(&srq->sr_ref, svc_rdma_srq_release);
}

/**
 * svc_rdma_srq_reserve_bc - reserve buffers for backchannel Replies
 * @rdma: a connection whose backchannel nfsd sets up
 *
 * The client's Replies to nfsd's backchannel Calls land in the pool's
 * buffers too: reserve one for each backchannel request, once.
 *
 * Context: Process context.
 *
 * Return: 0, or %-ENOMEM if the pool cannot hold them.
 */
int svc_rdma_srq_reserve_bc(struct svcxprt_rdma *rdma)
{
	struct svc_rdma_srq *srq = rdma->sc_srq;
	unsigned int bc = rdma->sc_max_bc_requests;
	int ret = 0;

	if (!srq)
		return 0;
	mutex_lock(&srq->sr_grow_mutex);
	if (test_bit(RDMAXPRT_SRQ_BC, &rdma->sc_flags))
		goto out;
	if (!svc_rdma_srq_reserve(srq, bc, 0)) {
		ret = -ENOMEM;
		goto out;
	}
	spin_lock(&srq->sr_lock);
	srq->sr_bc_reserved += bc;
	svc_rdma_srq_reshare(srq);
	spin_unlock(&srq->sr_lock);
	set_bit(RDMAXPRT_SRQ_BC, &rdma->sc_flags);
out:
	mutex_unlock(&srq->sr_grow_mutex);
	return ret;
}

/*
 * Cover @held Calls of @rdma with its reservation (and its
 * backchannel's). A client with more Calls at the server than that has
 * sent beyond the credits it was granted; a Linux client does so after
 * it gives up on a Call (a signal, a soft timeout), reusing that Call's
 * credit before nfsd has answered it. The connection then takes
 * buffers nobody reserved, up to the most credits it could be granted
 * (svc_rdma_srq_borrow);
 * if the pool has none, the Call took a buffer promised to another
 * connection, and the connection is to be ended (RFC 8166, Section
 * 3.3.1). Returns false then.
 */
static bool svc_rdma_srq_cover(struct svcxprt_rdma *rdma,
			       struct svc_rdma_srq *srq, int held,
			       const struct rpc_rdma_cid *cid)
{
	struct svc_rdma_credits *cr = &rdma->sc_srq_credits;
	unsigned int bc = svc_rdma_srq_bc(rdma);
	u32 free;
	int taken;

	lockdep_assert_held(&srq->sr_lock);
	free = srq->sr_count - srq->sr_reserved;
	taken = svc_rdma_srq_borrow(cr, held, bc, rdma->sc_max_requests,
				    &free);
	srq->sr_reserved = srq->sr_count - free;
	if (taken < 0) {
		trace_svcrdma_srq_overrun(rdma, cid, held, cr->cr_reserved + bc,
					  cr->cr_grant);
		return false;
	}
	if (taken)
		trace_svcrdma_srq_borrow(rdma, cid, held, cr->cr_reserved + bc,
					 cr->cr_grant);
	return true;
}

/**
 * svc_rdma_srq_credits - the credit grant of a Reply on an SRQ connection
 * @rdma: the connection
 * @rctxt: the Call being answered, its Receive buffer already posted again
 *
 * Computed once per Call, even if its Reply is replaced by an error
 * Reply; @rctxt keeps it until it is released
 * (svc_rdma_srq_reply_done), by which time the Reply's Send is posted
 * or will never be.
 *
 * Return: the grant, in network byte order.
 */
__be32 svc_rdma_srq_credits(struct svcxprt_rdma *rdma,
			    struct svc_rdma_recv_ctxt *rctxt)
{
	struct svc_rdma_srq *srq = rdma->sc_srq;
	u32 held, free, grant;
	bool alone, covered;

	if (rctxt->rc_credits)
		return rctxt->rc_credits;
	held = atomic_read(&rdma->sc_srq_held) + 1;

	spin_lock(&srq->sr_lock);
	/* Under the lock: a Reply granted before this one and not yet
	 * released may still reach the client after it
	 */
	alone = rdma->sc_srq_building++ == 0;
	free = srq->sr_count - srq->sr_reserved;
	grant = svc_rdma_srq_grant(&rdma->sc_srq_credits, held,
				   min(srq->sr_share, rdma->sc_max_requests),
				   &free, alone);
	srq->sr_reserved = srq->sr_count - free;
	/* A lower reservation against a Receive that read the previous
	 * one: this barrier pairs with the one in atomic_inc_return() in
	 * svc_rdma_srq_received(), so that one of the two sees the other
	 */
	smp_mb();
	covered = svc_rdma_srq_cover(rdma, srq,
				     atomic_read(&rdma->sc_srq_held),
				     &rctxt->rc_cid);
	spin_unlock(&srq->sr_lock);
	if (!covered)
		svc_rdma_xprt_deferred_close(rdma);

	rctxt->rc_credits = cpu_to_be32(grant);
	return rctxt->rc_credits;
}

/**
 * svc_rdma_srq_reply_done - a Reply that was granted credits is released
 * @rdma: the connection
 *
 * Context: Process context: an nfsd thread, or a completion handler of
 * a CQ polled from a workqueue (never from an interrupt).
 */
void svc_rdma_srq_reply_done(struct svcxprt_rdma *rdma)
{
	struct svc_rdma_srq *srq = rdma->sc_srq;

	spin_lock(&srq->sr_lock);
	rdma->sc_srq_building--;
	spin_unlock(&srq->sr_lock);
}

/**
 * svc_rdma_srq_received - a Receive of the pool completed on @rdma's CQ
 * @rdma: the connection whose client sent into it
 * @cid: the completion ID of the buffer it filled
 * @wc: its completion
 *
 * Counts the Call against its connection's reservation; see
 * svc_rdma_srq_cover() for a client that sent beyond its credits.
 *
 * Context: The Receive CQ's completion handler (polled from a
 * workqueue).
 *
 * Return: %false if the client overran its credits and the pool could
 * not cover it.
 */
bool svc_rdma_srq_received(struct svcxprt_rdma *rdma,
			   const struct rpc_rdma_cid *cid,
			   const struct ib_wc *wc)
{
	struct svc_rdma_srq *srq = rdma->sc_srq;
	bool covered;
	int held;

	/* Counted whatever the status: svc_rdma_srq_post() uncounts it */
	held = atomic_inc_return(&rdma->sc_srq_held);
	if (wc->status != IB_WC_SUCCESS)
		return true;
	if (held <= READ_ONCE(rdma->sc_srq_credits.cr_reserved) +
		    svc_rdma_srq_bc(rdma))
		return true;

	spin_lock(&srq->sr_lock);
	covered = svc_rdma_srq_cover(rdma, srq, held, cid);
	spin_unlock(&srq->sr_lock);
	return covered;
}

/**
 * svc_rdma_srq_post - put a Receive buffer back on its pool's SRQ
 * @rdma: the connection whose Call held it
 * @buf: the buffer
 *
 * Context: Any context.
 */
void svc_rdma_srq_post(struct svcxprt_rdma *rdma,
		       struct svc_rdma_recv_buf *buf)
{
	int ret;

	atomic_dec(&rdma->sc_srq_held);
	ret = ib_post_srq_recv(rdma->sc_srq->sr_srq,
			       svc_rdma_recv_buf_wr(buf), NULL);
	if (ret)
		/* Freed with the pool: the device is failing */
		trace_svcrdma_srq_post_err(rdma->sc_srq->sr_device, ret);
}

/**
 * svc_rdma_srq_ib - the SRQ a new connection's QP is to use
 * @rdma: the connection
 *
 * Return: the SRQ, or NULL if the connection has its own Receive Queue.
 */
struct ib_srq *svc_rdma_srq_ib(const struct svcxprt_rdma *rdma)
{
	return rdma->sc_srq ? rdma->sc_srq->sr_srq : NULL;
}
