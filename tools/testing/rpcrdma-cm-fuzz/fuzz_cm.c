// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the RFC 8797 codec (net/sunrpc/xprtrdma/
 * cm_private_data.c), built in user space from the kernel source with
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * Input: nine control octets, then the Private Data as it would arrive.
 *   [0]     bit 0: role (server), bit 2: local R, bit 3: the
 *           responder's R (bit 1 is unused)
 *   [1..4]  local Send Size, big-endian, any value
 *   [5..8]  local Receive Size, big-endian, any value
 *   [9..]   Private Data, copied to a buffer of exactly that length so
 *           that ASan sees any read past it
 *
 * Every property RFC 8797 gives the codec is checked; a violation
 * aborts with a message naming it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sunrpc/rpc_rdma_cm.h>

#define CTL_LEN		9

static const unsigned char format_id[4] = { 0xf6, 0xab, 0x0e, 0x18 };

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_cm: %s: ", #cond);		\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

static u32 be32(const unsigned char *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static int in_range(u32 size)
{
	return size >= RPCRDMA_CM_SIZE_MIN && size <= RPCRDMA_CM_SIZE_MAX &&
	       size % RPCRDMA_CM_SIZE_UNIT == 0;
}

static int first_id(const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if (!memcmp(buf + i, format_id, 4))
			return (int)i;
	return -1;
}

/* What decoding must report for @buf, checked against @d */
static void check_decode(const unsigned char *buf, size_t len,
			 const struct rpcrdma_cm_decoded *d)
{
	const unsigned char *msg;
	int first = first_id(buf, len);

	if (d->status != RPCRDMA_CM_VALID) {
		CHECK(d->params.send_size == RPCRDMA_CM_SIZE_DEFAULT &&
		      d->params.recv_size == RPCRDMA_CM_SIZE_DEFAULT &&
		      !d->params.remote_inv, "defaults for status %d", d->status);
		CHECK(d->offset == first, "offset %d, first identifier at %d",
		      d->offset, first);
		CHECK((d->status == RPCRDMA_CM_ABSENT) == (first < 0),
		      "status %d with first identifier at %d", d->status, first);
		return;
	}

	/* found: the eight octets at the offset are a version 1 message */
	CHECK(d->offset >= 0 && (size_t)d->offset + RPCRDMA_CM_MSG_LEN <= len,
	      "offset %d in %zu octets", d->offset, len);
	msg = buf + d->offset;
	CHECK(!memcmp(msg, format_id, 4), "no identifier at %d", d->offset);
	CHECK(msg[4] == RPCRDMA_CM_VERSION, "version %u", msg[4]);
	CHECK(d->version == 1, "reported version %u", d->version);
	CHECK(d->params.remote_inv == (msg[5] & RPCRDMA_CM_FLAG_REMOTE_INV),
	      "R %d from flags %#x", d->params.remote_inv, msg[5]);
	CHECK(d->params.send_size == (msg[6] + 1U) * 1024 &&
	      d->params.recv_size == (msg[7] + 1U) * 1024,
	      "sizes %u/%u from %u/%u", d->params.send_size, d->params.recv_size,
	      msg[6], msg[7]);
	/* no earlier identifier is followed by a version 1 message */
	CHECK(first >= 0 && first <= d->offset, "first identifier %d", first);
}

static void check_negotiate(enum rpcrdma_cm_role role,
			    const struct rpcrdma_cm_params *local,
			    const struct rpcrdma_cm_params *peer)
{
	struct rpcrdma_cm_negotiated n;
	u32 c_send, c_recv, s_send, s_recv;

	rpcrdma_cm_negotiate(role, local, peer, &n);
	if (role == RPCRDMA_CM_ROLE_CLIENT) {
		c_send = local->send_size, c_recv = local->recv_size;
		s_send = peer->send_size, s_recv = peer->recv_size;
	} else {
		s_send = local->send_size, s_recv = local->recv_size;
		c_send = peer->send_size, c_recv = peer->recv_size;
	}
	CHECK(in_range(n.client_to_server) && in_range(n.server_to_client),
	      "thresholds %u/%u", n.client_to_server, n.server_to_client);
	CHECK(n.client_to_server <= rpcrdma_cm_size_clamp(c_send) &&
	      n.client_to_server <= rpcrdma_cm_size_clamp(s_recv),
	      "c2s %u over %u/%u", n.client_to_server, c_send, s_recv);
	CHECK(n.server_to_client <= rpcrdma_cm_size_clamp(s_send) &&
	      n.server_to_client <= rpcrdma_cm_size_clamp(c_recv),
	      "s2c %u over %u/%u", n.server_to_client, s_send, c_recv);
	CHECK(n.send_with_inv == (local->remote_inv && peer->remote_inv),
	      "Send With Invalidate is not both R bits");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rpcrdma_cm_params local, resp;
	struct rpcrdma_cm_decoded d, mine;
	unsigned char msg[RPCRDMA_CM_MSG_LEN];
	unsigned char *buf = NULL;
	enum rpcrdma_cm_role role;
	size_t len;
	u8 ctl;

	if (size < CTL_LEN) {
		/* Short inputs: decode them alone */
		if (size) {
			buf = malloc(size);
			memcpy(buf, data, size);
		}
		rpcrdma_cm_decode(buf, size, &d);
		check_decode(buf, size, &d);
		free(buf);
		return 0;
	}

	ctl = data[0];
	role = ctl & 1 ? RPCRDMA_CM_ROLE_SERVER : RPCRDMA_CM_ROLE_CLIENT;
	local.send_size = be32(data + 1);
	local.recv_size = be32(data + 5);
	local.remote_inv = ctl & 4;
	len = size - CTL_LEN;
	if (len) {
		buf = malloc(len);
		memcpy(buf, data + CTL_LEN, len);
	}

	rpcrdma_cm_decode(buf, len, &d);
	check_decode(buf, len, &d);
	check_negotiate(role, &local, &d.params);

	/* What we encode decodes to the clamped values, never more */
	rpcrdma_cm_encode(msg, &local);
	rpcrdma_cm_decode(msg, sizeof(msg), &mine);
	CHECK(mine.status == RPCRDMA_CM_VALID && mine.offset == 0,
	      "own message status %d", mine.status);
	CHECK(mine.params.send_size == rpcrdma_cm_size_clamp(local.send_size) &&
	      mine.params.recv_size == rpcrdma_cm_size_clamp(local.recv_size) &&
	      mine.params.remote_inv == local.remote_inv,
	      "own message %u/%u", mine.params.send_size, mine.params.recv_size);
	CHECK((msg[5] & 0xfe) == 0, "reserved bits %#x", msg[5]);

	/* The server's advertisement: its buffer size, R by policy */
	rpcrdma_cm_responder_params(local.recv_size, ctl & 8, &resp);
	CHECK(resp.send_size == resp.recv_size &&
	      resp.recv_size == rpcrdma_cm_size_clamp(local.recv_size) &&
	      resp.remote_inv == !!(ctl & 8),
	      "responder %u/%u R=%d", resp.send_size, resp.recv_size,
	      resp.remote_inv);
	check_negotiate(RPCRDMA_CM_ROLE_SERVER, &resp, &d.params);

	free(buf);
	return 0;
}
