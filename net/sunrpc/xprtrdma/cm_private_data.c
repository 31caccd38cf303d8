// SPDX-License-Identifier: GPL-2.0
/*
 * Encode, decode and negotiate RPC-over-RDMA version 1 CM Private
 * Data, as specified by RFC 8797.
 *
 * Everything here is a pure function of its arguments, free of
 * allocation, locking and RDMA headers, so that KUnit and user-space
 * test harnesses can build it as it is.
 */

#include <linux/export.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include <linux/sunrpc/rpc_rdma_cm.h>

/* Octet offsets of the fields within the eight-octet message */
#define RPCRDMA_CM_OFF_VERSION		4
#define RPCRDMA_CM_OFF_FLAGS		5
#define RPCRDMA_CM_OFF_SEND_SIZE	6
#define RPCRDMA_CM_OFF_RECV_SIZE	7

/**
 * rpcrdma_cm_size_clamp - Size that a Size field can actually carry
 * @size: a buffer size, in octets
 *
 * A Size field holds whole kilo-octets from 1024 to 262144 (RFC 8797
 * Section 4.2). A peer that advertises a size may rely on no more than
 * what it sent, so @size is rounded down to a multiple of 1024 and then
 * brought inside that range.
 *
 * A size below 1024 is raised to 1024: every RPC-over-RDMA version 1
 * peer must accept 1024-octet messages (RFC 8166 Section 3.3.3), so no
 * caller may configure a smaller buffer in the first place.
 *
 * Return: the size in octets that a Size field carries for @size.
 */
u32 rpcrdma_cm_size_clamp(u32 size)
{
	size = round_down(size, RPCRDMA_CM_SIZE_UNIT);
	return clamp(size, RPCRDMA_CM_SIZE_MIN, RPCRDMA_CM_SIZE_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_size_clamp);

/*
 * A Size field holds "kilo-octets minus one" (RFC 8797 Section 4.2).
 * Every size is clamped first, so every code is in 0..255 and none
 * wraps; every code decodes to 1024..262144.
 */
static u8 rpcrdma_cm_size_encode(u32 size)
{
	return rpcrdma_cm_size_clamp(size) / RPCRDMA_CM_SIZE_UNIT - 1;
}

static u32 rpcrdma_cm_size_decode(u8 code)
{
	return ((u32)code + 1) * RPCRDMA_CM_SIZE_UNIT;
}

/**
 * rpcrdma_cm_encode - Build a version 1 CM Private Data message
 * @buf: output buffer of at least %RPCRDMA_CM_MSG_LEN octets
 * @local: the properties to advertise
 *
 * Sizes are clamped by rpcrdma_cm_size_clamp(); a caller that must
 * say when that changes a size compares its result first. The
 * Reserved bits are always zero (RFC 8797 Section 4). @buf
 * needs no particular alignment.
 */
void rpcrdma_cm_encode(u8 *buf, const struct rpcrdma_cm_params *local)
{
	put_unaligned_be32(RPCRDMA_CM_FORMAT_ID, buf);
	buf[RPCRDMA_CM_OFF_VERSION] = RPCRDMA_CM_VERSION;
	buf[RPCRDMA_CM_OFF_FLAGS] = local->remote_inv ?
				    RPCRDMA_CM_FLAG_REMOTE_INV : 0;
	buf[RPCRDMA_CM_OFF_SEND_SIZE] = rpcrdma_cm_size_encode(local->send_size);
	buf[RPCRDMA_CM_OFF_RECV_SIZE] = rpcrdma_cm_size_encode(local->recv_size);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_encode);

static void rpcrdma_cm_set_defaults(struct rpcrdma_cm_params *params)
{
	params->send_size = RPCRDMA_CM_SIZE_DEFAULT;
	params->recv_size = RPCRDMA_CM_SIZE_DEFAULT;
	params->remote_inv = false;
}

/* Fill in @result from the version 1 message at @msg */
static void rpcrdma_cm_parse_v1(const u8 *msg, int offset,
				struct rpcrdma_cm_decoded *result)
{
	result->status = RPCRDMA_CM_VALID;
	result->offset = offset;
	result->version = RPCRDMA_CM_VERSION;
	result->params.remote_inv = !!(msg[RPCRDMA_CM_OFF_FLAGS] &
				     RPCRDMA_CM_FLAG_REMOTE_INV);
	result->params.send_size =
		rpcrdma_cm_size_decode(msg[RPCRDMA_CM_OFF_SEND_SIZE]);
	result->params.recv_size =
		rpcrdma_cm_size_decode(msg[RPCRDMA_CM_OFF_RECV_SIZE]);
}

/* Offset of the first Format Identifier at or after @from, or -1 */
static int rpcrdma_cm_find_format_id(const u8 *data, size_t len, size_t from)
{
	size_t i;

	for (i = from; i + sizeof(__be32) <= len; i++)
		if (get_unaligned_be32(data + i) == RPCRDMA_CM_FORMAT_ID)
			return i;
	return -1;
}

/**
 * rpcrdma_cm_decode - Find and check CM Private Data from a peer
 * @data: the received Private Data, or NULL
 * @len: the number of octets the CM delivered at @data
 * @result: OUT: what was found
 *
 * The buffer is searched for the Format Identifier at every octet
 * offset (RFC 8797 Section 5.2), because other layers may place their
 * own Private Data in front of ours. The eight octets starting at an
 * identifier must lie inside the buffer and carry Version 1. An
 * identifier followed by another Version is skipped and the search
 * goes on, so that neither a stray 0xf6ab0e18 in another layer's data
 * nor a newer format (Section 6) hides a version 1 message behind it.
 * Reserved bits are ignored (Section 4).
 *
 * @len must be the length the CM reported. A CM may pad its Private
 * Data area with zeroes, so @len is an upper bound on what the peer
 * wrote, never proof that it wrote anything.
 *
 * When no usable message is found, @result->status and @result->offset
 * describe the first identifier seen (if any), and the peer is treated
 * as if it sent nothing (Section 5.1). @result->params always holds
 * usable values: the peer's, or the RFC defaults of 1024/1024 without
 * remote invalidation.
 */
void rpcrdma_cm_decode(const void *data, size_t len,
		       struct rpcrdma_cm_decoded *result)
{
	const u8 *buf = data;
	const u8 *msg;
	int offset;

	rpcrdma_cm_set_defaults(&result->params);
	result->status = RPCRDMA_CM_ABSENT;
	result->offset = -1;
	result->version = 0;

	if (!buf)
		return;
	for (offset = rpcrdma_cm_find_format_id(buf, len, 0); offset >= 0;
	     offset = rpcrdma_cm_find_format_id(buf, len, offset + 1)) {
		msg = buf + offset;
		if (len - offset < RPCRDMA_CM_MSG_LEN) {
			/* Any later identifier would be shorter still */
			if (result->offset < 0) {
				result->status = RPCRDMA_CM_TRUNCATED;
				result->offset = offset;
			}
			return;
		}
		if (msg[RPCRDMA_CM_OFF_VERSION] == RPCRDMA_CM_VERSION) {
			rpcrdma_cm_parse_v1(msg, offset, result);
			return;
		}
		if (result->offset < 0) {
			result->status = RPCRDMA_CM_BAD_VERSION;
			result->offset = offset;
			result->version = msg[RPCRDMA_CM_OFF_VERSION];
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_decode);

/**
 * rpcrdma_cm_negotiate - Derive a connection's properties
 * @role: whether the local end is the client or the server
 * @local: what the local end advertised (or would advertise)
 * @peer: what the peer advertised; the RFC defaults if it sent nothing
 *	usable, as rpcrdma_cm_decode() reports
 * @result: OUT: the negotiated properties
 *
 * Each inline threshold is the smaller of the sender's Send Size and
 * the receiver's Receive Size (RFC 8797 Section 4.2). Local sizes go
 * through rpcrdma_cm_size_clamp() first, so both ends compute from the
 * values that were actually on the wire.
 *
 * The responder may use Send With Invalidate only when both peers set
 * R (Section 4.1). An end sets R only when its device and its policy
 * allow remote invalidation, so @local's R says both.
 */
void rpcrdma_cm_negotiate(enum rpcrdma_cm_role role,
			  const struct rpcrdma_cm_params *local,
			  const struct rpcrdma_cm_params *peer,
			  struct rpcrdma_cm_negotiated *result)
{
	u32 local_send = rpcrdma_cm_size_clamp(local->send_size);
	u32 local_recv = rpcrdma_cm_size_clamp(local->recv_size);
	u32 peer_send = rpcrdma_cm_size_clamp(peer->send_size);
	u32 peer_recv = rpcrdma_cm_size_clamp(peer->recv_size);

	if (role == RPCRDMA_CM_ROLE_CLIENT) {
		result->client_to_server = min(local_send, peer_recv);
		result->server_to_client = min(peer_send, local_recv);
	} else {
		result->client_to_server = min(peer_send, local_recv);
		result->server_to_client = min(local_send, peer_recv);
	}
	result->send_with_inv = local->remote_inv && peer->remote_inv;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_negotiate);

/**
 * rpcrdma_cm_responder_params - What a server advertises
 * @buf_size: size of each Receive buffer the server posts, and of the
 *	largest Send it builds, in octets
 * @remote_inv: set R: the server may use Send With Invalidate with this
 *	client, which set R itself, on a device that can post it
 *	(IB_DEVICE_MEM_MGT_EXTENSIONS), as its administrator allows
 * @local: OUT: the server's Send Size, Receive Size and R bit
 *
 * The server advertises one size both ways: @buf_size rounded down to
 * a multiple of 1024 and capped at 262144, as rpcrdma_cm_size_clamp()
 * does, so that it promises no more than its buffers hold. The one
 * exception is a @buf_size under 1024, the smallest size the Private
 * Data can carry, which is advertised as 1024: svcrdma's max_req_size
 * sysctl refuses such sizes, so it never passes one. R is @remote_inv
 * (RFC 8797 Section 4.1).
 */
void rpcrdma_cm_responder_params(u32 buf_size, bool remote_inv,
				 struct rpcrdma_cm_params *local)
{
	local->send_size = rpcrdma_cm_size_clamp(buf_size);
	local->recv_size = local->send_size;
	local->remote_inv = remote_inv;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_responder_params);
