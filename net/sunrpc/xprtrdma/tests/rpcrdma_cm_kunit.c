// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RPC-over-RDMA version 1 CM Private Data codec.
 *
 * Vectors come from RFC 8797: the Section 4 message layout, the
 * Section 4.2 size arithmetic, the Section 5.1 defaults and the
 * Section 5.2 search rules. Each table row names the section it checks.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sunrpc/rpc_rdma_cm.h>

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* The IB CM hands up its whole REP private data area, zero padded */
#define TEST_CM_AREA_LEN	196

static const u8 test_format_id[] = { 0xf6, 0xab, 0x0e, 0x18 };

/*
 * Size codes
 */

/* s4.2: every one of the 256 codes is (code + 1) * 1024 octets, both ways */
static void check_size_code(struct kunit *test, unsigned int code)
{
	struct rpcrdma_cm_params local, back;
	struct rpcrdma_cm_decoded d;
	u8 msg[RPCRDMA_CM_MSG_LEN];
	u32 bytes;

	/* Arrange */
	bytes = (code + 1) * 1024;
	local.send_size = bytes;
	local.recv_size = (256U - code) * 1024;
	local.remote_inv = false;

	/* Act */
	rpcrdma_cm_encode(msg, &local);
	rpcrdma_cm_decode(msg, sizeof(msg), &d);
	back = d.params;

	/* Assert */
	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_size_clamp(bytes), bytes,
			    "code %u", code);
	KUNIT_EXPECT_EQ_MSG(test, msg[6], code, "code %u", code);
	KUNIT_EXPECT_EQ_MSG(test, msg[7], 255 - code, "code %u", code);
	KUNIT_EXPECT_EQ_MSG(test, d.status, RPCRDMA_CM_VALID,
			    "code %u", code);
	KUNIT_EXPECT_EQ_MSG(test, back.send_size, bytes, "code %u", code);
	KUNIT_EXPECT_EQ_MSG(test, back.recv_size, (256U - code) * 1024,
			    "code %u", code);
}

static void test_size_code_round_trip(struct kunit *test)
{
	unsigned int code;

	for (code = 0; code < 256; code++)
		check_size_code(test, code);
}

struct size_clamp_param {
	const char	*desc;
	u32		size;
	u32		expect_size;
	u8		expect_code;
};

static const struct size_clamp_param size_clamp_params[] = {
	{ "s4.2: 0 clamps up to 1024",		0,	    1024,   0 },
	{ "s4.2: 1 clamps up to 1024",		1,	    1024,   0 },
	{ "s4.2: 1023 clamps up to 1024",	1023,	    1024,   0 },
	{ "s4.2: 1024 is the minimum",		1024,	    1024,   0 },
	{ "s4.2: 1025 rounds down to 1024",	1025,	    1024,   0 },
	{ "s4.2: 2047 rounds down to 1024",	2047,	    1024,   0 },
	{ "s4.2: 4095 rounds down to 3072",	4095,	    3072,   2 },
	{ "s4.2: 4097 rounds down to 4096",	4097,	    4096,   3 },
	{ "s4.2: 262143 rounds down",		262143,	    261120, 254 },
	{ "s4.2: 262144 is the maximum",	262144,	    262144, 255 },
	{ "s4.2: 262145 clamps to 262144",	262145,	    262144, 255 },
	{ "s4.2: 263168 (257 KiB) does not wrap", 263168, 262144, 255 },
	{ "s4.2: 1 MiB clamps to 262144",	1048576,    262144, 255 },
	{ "s4.2: U32_MAX clamps to 262144",	U32_MAX,    262144, 255 },
};

static void size_clamp_desc(const struct size_clamp_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(size_clamp, size_clamp_params, size_clamp_desc);

static void test_size_clamp(struct kunit *test)
{
	const struct size_clamp_param *p = test->param_value;
	struct rpcrdma_cm_params local = {
		.send_size = p->size,
		.recv_size = 1024,
	};
	struct rpcrdma_cm_decoded d;
	u8 msg[RPCRDMA_CM_MSG_LEN];

	/* Act */
	rpcrdma_cm_encode(msg, &local);
	rpcrdma_cm_decode(msg, sizeof(msg), &d);

	/* Assert */
	KUNIT_EXPECT_EQ(test, rpcrdma_cm_size_clamp(p->size), p->expect_size);
	KUNIT_EXPECT_EQ(test, msg[6], p->expect_code);
	KUNIT_EXPECT_EQ(test, d.params.send_size, p->expect_size);
}

/*
 * Encoding
 */

struct encode_param {
	const char	*desc;
	u32		send_size;
	u32		recv_size;
	bool		remote_inv;
	u8		expect[RPCRDMA_CM_MSG_LEN];
};

static const struct encode_param encode_params[] = {
	{
		.desc		= "s4: R set, 4096/4096",
		.send_size	= 4096,
		.recv_size	= 4096,
		.remote_inv	= true,
		.expect		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x03 },
	},
	{
		.desc		= "s4: R clear, 4096/4096",
		.send_size	= 4096,
		.recv_size	= 4096,
		.remote_inv	= false,
		.expect		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x03, 0x03 },
	},
	{
		.desc		= "s4: R set, 1024/262144",
		.send_size	= 1024,
		.recv_size	= 262144,
		.remote_inv	= true,
		.expect		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x00, 0xff },
	},
	{
		.desc		= "s4: R clear, 16384/8192",
		.send_size	= 16384,
		.recv_size	= 8192,
		.remote_inv	= false,
		.expect		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x0f, 0x07 },
	},
};

static void encode_desc(const struct encode_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(encode, encode_params, encode_desc);

static void test_encode(struct kunit *test)
{
	const struct encode_param *p = test->param_value;
	struct rpcrdma_cm_params local = {
		.send_size	= p->send_size,
		.recv_size	= p->recv_size,
		.remote_inv	= p->remote_inv,
	};
	u8 *buf, *msg;

	/* Arrange: a guard octet on each side, and an odd address for
	 * the message to prove that encoding needs no alignment
	 */
	buf = kunit_kzalloc(test, RPCRDMA_CM_MSG_LEN + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(buf, 0xa5, RPCRDMA_CM_MSG_LEN + 2);
	msg = buf + 1;

	/* Act */
	rpcrdma_cm_encode(msg, &local);

	/* Assert: exact octets, so the Reserved bits are zero */
	KUNIT_EXPECT_MEMEQ(test, msg, p->expect, RPCRDMA_CM_MSG_LEN);
	KUNIT_EXPECT_EQ(test, msg[5] & 0xfe, 0);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
	KUNIT_EXPECT_EQ(test, buf[RPCRDMA_CM_MSG_LEN + 1], 0xa5);
}

/*
 * Decoding
 */

struct decode_param {
	const char		*desc;
	const u8		*data;	/* NULL: pass a NULL pointer */
	size_t			len;
	enum rpcrdma_cm_status	expect_status;
	int			expect_offset;
	u8			expect_version;
	u32			expect_send;
	u32			expect_recv;
	bool			expect_remote_inv;
};

static const u8 pd_v1[] = { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x0f };

static const u8 pd_stock_rep[TEST_CM_AREA_LEN] = {
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x03, 0x03,
};

static const u8 pd_offset5_in_56[56] = {
	0xde, 0xad, 0xbe, 0xef, 0x00,
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x0f,
};

static const u8 pd_reserved_r_clear[] = {
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0xfe, 0x07, 0x07,
};

static const u8 pd_reserved_r_set[] = {
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0xff, 0x07, 0x07,
};

static const u8 pd_v0[] = { 0xf6, 0xab, 0x0e, 0x18, 0x00, 0x01, 0x03, 0x0f };

static const u8 pd_v2[] = { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x01, 0x03, 0x0f };

static const u8 pd_v255[] = { 0xf6, 0xab, 0x0e, 0x18, 0xff, 0x01, 0x03, 0x0f };

static const u8 pd_foreign[] = {
	0x80, 0x00, 0x00, 0x10, 0x12, 0x34, 0x56, 0x78,
	0x9a, 0xbc, 0xde, 0xf0, 0xf6, 0xab, 0x0e, 0x00,
};

static const u8 pd_byte_swapped[] = {
	0x18, 0x0e, 0xab, 0xf6, 0x01, 0x01, 0x03, 0x0f,
};

static const u8 pd_id_split_at_end[] = { 0x00, 0x00, 0xf6, 0xab, 0x0e };

static const u8 pd_v2_then_v1[] = {
	0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00, 0x00,
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x0f, 0x0f,
};

static const u8 pd_v2_then_v3[] = {
	0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00, 0x00,
	0xf6, 0xab, 0x0e, 0x18, 0x03, 0x01, 0x0f, 0x0f,
};

static const u8 pd_v2_then_cut[] = {
	0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00, 0x00,
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01,
};

static const u8 pd_partial_then_v1[] = {
	0xf6, 0xf6, 0xab, 0xf6, 0xab, 0x0e,
	0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x1f, 0x01,
};

static const struct decode_param decode_params[] = {
	{
		.desc		= "s4: version 1 message alone",
		.data = pd_v1, .len = sizeof(pd_v1),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 0,
		.expect_version = 1, .expect_send = 4096,
		.expect_recv = 16384, .expect_remote_inv = true,
	},
	{
		.desc		= "s5.2: padded 196-octet CM area",
		.data = pd_stock_rep, .len = sizeof(pd_stock_rep),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 0,
		.expect_version = 1, .expect_send = 4096,
		.expect_recv = 4096, .expect_remote_inv = false,
	},
	{
		.desc		= "s5.2: identifier at offset 5 of 56",
		.data = pd_offset5_in_56, .len = sizeof(pd_offset5_in_56),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 5,
		.expect_version = 1, .expect_send = 4096,
		.expect_recv = 16384, .expect_remote_inv = true,
	},
	{
		.desc		= "s4: Reserved bits set, R clear",
		.data = pd_reserved_r_clear, .len = sizeof(pd_reserved_r_clear),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 0,
		.expect_version = 1, .expect_send = 8192,
		.expect_recv = 8192, .expect_remote_inv = false,
	},
	{
		.desc		= "s4: Reserved bits set, R set",
		.data = pd_reserved_r_set, .len = sizeof(pd_reserved_r_set),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 0,
		.expect_version = 1, .expect_send = 8192,
		.expect_recv = 8192, .expect_remote_inv = true,
	},
	{
		.desc		= "s5.2: truncated to 7 octets",
		.data = pd_v1, .len = 7,
		.expect_status = RPCRDMA_CM_TRUNCATED, .expect_offset = 0,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: truncated to 6 octets",
		.data = pd_v1, .len = 6,
		.expect_status = RPCRDMA_CM_TRUNCATED, .expect_offset = 0,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: identifier only",
		.data = pd_v1, .len = 4,
		.expect_status = RPCRDMA_CM_TRUNCATED, .expect_offset = 0,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: version 0 is not recognized",
		.data = pd_v0, .len = sizeof(pd_v0),
		.expect_status = RPCRDMA_CM_BAD_VERSION, .expect_offset = 0,
		.expect_version = 0, .expect_send = 1024,
		.expect_recv = 1024,
	},
	{
		.desc		= "s5.2: version 2 is not recognized",
		.data = pd_v2, .len = sizeof(pd_v2),
		.expect_status = RPCRDMA_CM_BAD_VERSION, .expect_offset = 0,
		.expect_version = 2, .expect_send = 1024,
		.expect_recv = 1024,
	},
	{
		.desc		= "s5.2: version 255 is not recognized",
		.data = pd_v255, .len = sizeof(pd_v255),
		.expect_status = RPCRDMA_CM_BAD_VERSION, .expect_offset = 0,
		.expect_version = 255, .expect_send = 1024,
		.expect_recv = 1024,
	},
	{
		.desc		= "s6: version 2, then a version 1 message",
		.data = pd_v2_then_v1, .len = sizeof(pd_v2_then_v1),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 8,
		.expect_version = 1, .expect_send = 16384,
		.expect_recv = 16384, .expect_remote_inv = true,
	},
	{
		.desc		= "s5.2: versions 2 and 3, no version 1",
		.data = pd_v2_then_v3, .len = sizeof(pd_v2_then_v3),
		.expect_status = RPCRDMA_CM_BAD_VERSION, .expect_offset = 0,
		.expect_version = 2, .expect_send = 1024,
		.expect_recv = 1024,
	},
	{
		.desc		= "s5.2: version 2, then a truncated message",
		.data = pd_v2_then_cut, .len = sizeof(pd_v2_then_cut),
		.expect_status = RPCRDMA_CM_BAD_VERSION, .expect_offset = 0,
		.expect_version = 2, .expect_send = 1024,
		.expect_recv = 1024,
	},
	{
		.desc		= "s5.2: partial identifiers, then the message",
		.data = pd_partial_then_v1, .len = sizeof(pd_partial_then_v1),
		.expect_status = RPCRDMA_CM_VALID, .expect_offset = 6,
		.expect_version = 1, .expect_send = 32768,
		.expect_recv = 2048, .expect_remote_inv = false,
	},
	{
		.desc		= "s5.2: 3 octets",
		.data = pd_v1, .len = 3,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: 2 octets",
		.data = pd_v1, .len = 2,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: 1 octet",
		.data = pd_v1, .len = 1,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: foreign data, no identifier",
		.data = pd_foreign, .len = sizeof(pd_foreign),
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s4: identifier in wrong byte order",
		.data = pd_byte_swapped, .len = sizeof(pd_byte_swapped),
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.2: identifier cut by buffer end",
		.data = pd_id_split_at_end, .len = sizeof(pd_id_split_at_end),
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.1: zero length, valid pointer",
		.data = pd_v1, .len = 0,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.1: NULL pointer, zero length",
		.data = NULL, .len = 0,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
	{
		.desc		= "s5.1: NULL pointer, length 8",
		.data = NULL, .len = 8,
		.expect_status = RPCRDMA_CM_ABSENT, .expect_offset = -1,
		.expect_send = 1024, .expect_recv = 1024,
	},
};

static void decode_desc(const struct decode_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(decode, decode_params, decode_desc);

static void test_decode(struct kunit *test)
{
	const struct decode_param *p = test->param_value;
	struct rpcrdma_cm_decoded d;
	u8 *copy = NULL;

	/* Arrange: an exact-size heap copy, so overruns are caught */
	if (p->data && p->len) {
		copy = kunit_kmalloc(test, p->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);
		memcpy(copy, p->data, p->len);
	} else if (p->data) {
		copy = (u8 *)p->data;
	}

	/* Act */
	memset(&d, 0x5a, sizeof(d));
	rpcrdma_cm_decode(copy, p->len, &d);

	/* Assert */
	KUNIT_ASSERT_EQ(test, d.status, p->expect_status);
	KUNIT_EXPECT_EQ(test, d.offset, p->expect_offset);
	if (p->expect_status == RPCRDMA_CM_VALID ||
	    p->expect_status == RPCRDMA_CM_BAD_VERSION)
		KUNIT_EXPECT_EQ(test, d.version, p->expect_version);
	KUNIT_EXPECT_EQ(test, d.params.send_size, p->expect_send);
	KUNIT_EXPECT_EQ(test, d.params.recv_size, p->expect_recv);
	KUNIT_EXPECT_EQ(test, d.params.remote_inv, p->expect_remote_inv);
}

/*
 * Every offset of a zero-padded CM area: the identifier is found
 * anywhere (s5.2), the message must fit (s5.2), and an identifier cut
 * by the end of the area is no identifier at all.
 */

static void check_area_offset(struct kunit *test, u8 *area,
			      unsigned int offset)
{
	const unsigned int room = TEST_CM_AREA_LEN - offset;
	struct rpcrdma_cm_decoded d;

	/* Arrange */
	memset(area, 0, TEST_CM_AREA_LEN);
	memcpy(area + offset, pd_v1, min_t(unsigned int, room, sizeof(pd_v1)));

	/* Act */
	rpcrdma_cm_decode(area, TEST_CM_AREA_LEN, &d);

	/* Assert */
	if (room >= RPCRDMA_CM_MSG_LEN) {
		KUNIT_EXPECT_EQ_MSG(test, d.status, RPCRDMA_CM_VALID,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.offset, (int)offset,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.params.send_size, 4096,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.params.recv_size, 16384,
				    "offset %u", offset);
		KUNIT_EXPECT_TRUE_MSG(test, d.params.remote_inv,
				      "offset %u", offset);
	} else if (room >= sizeof(test_format_id)) {
		KUNIT_EXPECT_EQ_MSG(test, d.status, RPCRDMA_CM_TRUNCATED,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.offset, (int)offset,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.params.send_size, 1024,
				    "offset %u", offset);
		KUNIT_EXPECT_FALSE_MSG(test, d.params.remote_inv,
				       "offset %u", offset);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, d.status, RPCRDMA_CM_ABSENT,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.offset, -1,
				    "offset %u", offset);
		KUNIT_EXPECT_EQ_MSG(test, d.params.send_size, 1024,
				    "offset %u", offset);
		KUNIT_EXPECT_FALSE_MSG(test, d.params.remote_inv,
				       "offset %u", offset);
	}
}

/* s5.2: the identifier at every offset of a zero-padded CM area */
static void test_decode_area_offset(struct kunit *test)
{
	unsigned int offset;
	u8 *area;

	area = kunit_kzalloc(test, TEST_CM_AREA_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, area);
	for (offset = 0; offset < TEST_CM_AREA_LEN; offset++)
		check_area_offset(test, area, offset);
}

/*
 * Negotiation: each row is one connection. Both ends encode what they
 * advertise, decode what the other sent, and negotiate; both must
 * reach the thresholds of s4.2 and the R decision of s4.1.
 */

struct negotiate_param {
	const char			*desc;
	struct rpcrdma_cm_params	client;
	bool				client_silent;	/* legacy: sends nothing */
	struct rpcrdma_cm_params	server;
	bool				server_silent;
	u32				expect_c2s;
	u32				expect_s2c;
	bool				expect_send_with_inv;	/* at both ends */
};

#define PARAMS(s, r, inv) { .send_size = (s), .recv_size = (r), .remote_inv = (inv) }

static const struct negotiate_param negotiate_params[] = {
	{
		.desc = "s5.1: legacy server",
		.client = PARAMS(4096, 4096, true), .server_silent = true,
		.expect_c2s = 1024, .expect_s2c = 1024,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s5.1: legacy client",
		.client_silent = true, .server = PARAMS(16384, 16384, true),
		.expect_c2s = 1024, .expect_s2c = 1024,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: equal peers",
		.client = PARAMS(4096, 4096, false),
		.server = PARAMS(4096, 4096, false),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: server larger than client",
		.client = PARAMS(4096, 4096, false),
		.server = PARAMS(65536, 65536, false),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: server smaller than client",
		.client = PARAMS(65536, 65536, false),
		.server = PARAMS(8192, 8192, false),
		.expect_c2s = 8192, .expect_s2c = 8192,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: asymmetric sizes",
		.client = PARAMS(8192, 2048, false),
		.server = PARAMS(16384, 4096, false),
		.expect_c2s = 4096, .expect_s2c = 2048,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: client receive limits replies",
		.client = PARAMS(262144, 1024, false),
		.server = PARAMS(262144, 262144, false),
		.expect_c2s = 262144, .expect_s2c = 1024,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: out-of-range local sizes clamp",
		.client = PARAMS(300000, 500, false),
		.server = PARAMS(U32_MAX, 1000000, false),
		.expect_c2s = 262144, .expect_s2c = 1024,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.2: sizes between kilo-octets round down",
		.client = PARAMS(5000, 9000, false),
		.server = PARAMS(8191, 4097, false),
		.expect_c2s = 4096, .expect_s2c = 7168,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.1: R client 0, server 0",
		.client = PARAMS(4096, 4096, false),
		.server = PARAMS(4096, 4096, false),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.1: R client 1, server 0",
		.client = PARAMS(4096, 4096, true),
		.server = PARAMS(4096, 4096, false),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.1: R client 0, server 1",
		.client = PARAMS(4096, 4096, false),
		.server = PARAMS(4096, 4096, true),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "s4.1: R client 1, server 1",
		.client = PARAMS(4096, 4096, true),
		.server = PARAMS(4096, 4096, true),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = true,
	},
	{
		.desc = "s4.1: server device cannot, so no R",
		.client = PARAMS(4096, 4096, true),
		.server = PARAMS(4096, 4096, false),
		.expect_c2s = 4096, .expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
};

static void negotiate_desc(const struct negotiate_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(negotiate, negotiate_params, negotiate_desc);

/* What one end puts on the wire: the message, or nothing at all */
static size_t test_advertise(const struct rpcrdma_cm_params *local,
			     bool silent, u8 *msg)
{
	if (silent)
		return 0;
	rpcrdma_cm_encode(msg, local);
	return RPCRDMA_CM_MSG_LEN;
}

static void test_negotiate(struct kunit *test)
{
	const struct negotiate_param *p = test->param_value;
	struct rpcrdma_cm_negotiated at_client, at_server;
	struct rpcrdma_cm_decoded from_client, from_server;
	u8 req[RPCRDMA_CM_MSG_LEN], rep[RPCRDMA_CM_MSG_LEN];
	size_t req_len, rep_len;

	/* Arrange */
	req_len = test_advertise(&p->client, p->client_silent, req);
	rep_len = test_advertise(&p->server, p->server_silent, rep);
	rpcrdma_cm_decode(req_len ? req : NULL, req_len, &from_client);
	rpcrdma_cm_decode(rep_len ? rep : NULL, rep_len, &from_server);

	/* Act */
	if (!p->client_silent)
		rpcrdma_cm_negotiate(RPCRDMA_CM_ROLE_CLIENT, &p->client,
				     &from_server.params, &at_client);
	if (!p->server_silent)
		rpcrdma_cm_negotiate(RPCRDMA_CM_ROLE_SERVER, &p->server,
				     &from_client.params, &at_server);

	/* Assert */
	if (!p->client_silent) {
		KUNIT_EXPECT_EQ(test, at_client.client_to_server, p->expect_c2s);
		KUNIT_EXPECT_EQ(test, at_client.server_to_client, p->expect_s2c);
		KUNIT_EXPECT_EQ(test, at_client.send_with_inv,
				p->expect_send_with_inv);
	}
	if (!p->server_silent) {
		KUNIT_EXPECT_EQ(test, at_server.client_to_server, p->expect_c2s);
		KUNIT_EXPECT_EQ(test, at_server.server_to_client, p->expect_s2c);
		KUNIT_EXPECT_EQ(test, at_server.send_with_inv,
				p->expect_send_with_inv);
	}
}

/*
 * The server's side: what it advertises, and the threshold its
 * Replies must respect.
 */
struct responder_param {
	const char	*desc;
	u32		buf_size;
	bool		dev_can_inv, allow_inv;
	/* what the client sent: none, or an encoded message */
	bool		client_silent;
	struct rpcrdma_cm_params client;
	/* expected */
	u32		expect_size;
	bool		expect_r;
	u32		expect_s2c;
	bool		expect_send_with_inv;
};

static const struct responder_param responder_params[] = {
	{
		.desc = "legacy client: replies limited to 1024",
		.buf_size = 4096, .dev_can_inv = true, .allow_inv = true,
		.client_silent = true,
		.expect_size = 4096, .expect_r = true,
		.expect_s2c = 1024,
		.expect_send_with_inv = false,
	},
	{
		.desc = "client receives 1K",
		.buf_size = 4096, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(4096, 1024, true),
		.expect_size = 4096, .expect_r = true,
		.expect_s2c = 1024,
		.expect_send_with_inv = true,
	},
	{
		.desc = "client receives 64K, server sends 4K",
		.buf_size = 4096, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(4096, 65536, true),
		.expect_size = 4096, .expect_r = true,
		.expect_s2c = 4096,
		.expect_send_with_inv = true,
	},
	{
		.desc = "server 256K, client 64K",
		.buf_size = 262144, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(1024, 65536, false),
		.expect_size = 262144, .expect_r = true,
		.expect_s2c = 65536,
		.expect_send_with_inv = false,
	},
	{
		.desc = "switch off: no R, no Send With Invalidate",
		.buf_size = 4096, .dev_can_inv = true, .allow_inv = false,
		.client = PARAMS(4096, 4096, true),
		.expect_size = 4096, .expect_r = false,
		.expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "device cannot: no R, no Send With Invalidate",
		.buf_size = 4096, .dev_can_inv = false, .allow_inv = true,
		.client = PARAMS(4096, 4096, true),
		.expect_size = 4096, .expect_r = false,
		.expect_s2c = 4096,
		.expect_send_with_inv = false,
	},
	{
		.desc = "buffer between kilo-octets: advertise less",
		.buf_size = 5000, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(65536, 65536, true),
		.expect_size = 4096, .expect_r = true,
		.expect_s2c = 4096,
		.expect_send_with_inv = true,
	},
	{
		.desc = "buffer below the RFC range: advertised as 1024",
		.buf_size = 512, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(4096, 4096, true),
		.expect_size = 1024, .expect_r = true,
		.expect_s2c = 1024,
		.expect_send_with_inv = true,
	},
	{
		.desc = "buffer above the RFC range",
		.buf_size = 1048576, .dev_can_inv = true, .allow_inv = true,
		.client = PARAMS(262144, 262144, true),
		.expect_size = 262144, .expect_r = true,
		.expect_s2c = 262144,
		.expect_send_with_inv = true,
	},
};

static void responder_desc(const struct responder_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(responder, responder_params, responder_desc);

static void test_responder(struct kunit *test)
{
	const struct responder_param *p = test->param_value;
	struct rpcrdma_cm_decoded from_client, rep;
	struct rpcrdma_cm_params local;
	struct rpcrdma_cm_negotiated neg;
	u8 req[RPCRDMA_CM_MSG_LEN], msg[RPCRDMA_CM_MSG_LEN];
	size_t req_len;

	/* Arrange */
	req_len = test_advertise(&p->client, p->client_silent, req);
	rpcrdma_cm_decode(req_len ? req : NULL, req_len, &from_client);

	/* Act */
	rpcrdma_cm_responder_params(p->buf_size,
				    p->dev_can_inv && p->allow_inv, &local);
	rpcrdma_cm_negotiate(RPCRDMA_CM_ROLE_SERVER, &local,
			     &from_client.params, &neg);

	/* Assert: advertised what the buffers hold, as the RFC can say it */
	KUNIT_EXPECT_EQ(test, local.send_size, p->expect_size);
	KUNIT_EXPECT_EQ(test, local.recv_size, p->expect_size);
	KUNIT_EXPECT_EQ(test, local.remote_inv, p->expect_r);
	rpcrdma_cm_encode(msg, &local);
	rpcrdma_cm_decode(msg, sizeof(msg), &rep);
	KUNIT_ASSERT_EQ(test, rep.status, RPCRDMA_CM_VALID);
	KUNIT_EXPECT_EQ(test, rep.params.send_size, p->expect_size);
	KUNIT_EXPECT_EQ(test, rep.params.recv_size, p->expect_size);
	KUNIT_EXPECT_EQ(test, rep.params.remote_inv, p->expect_r);

	/* Assert: the threshold */
	KUNIT_EXPECT_EQ(test, neg.server_to_client, p->expect_s2c);
	KUNIT_EXPECT_EQ(test, neg.send_with_inv, p->expect_send_with_inv);
	KUNIT_EXPECT_LE(test, neg.server_to_client, local.send_size);
}

static struct kunit_case rpcrdma_cm_encode_cases[] = {
	KUNIT_CASE(test_size_code_round_trip),
	KUNIT_CASE_PARAM(test_size_clamp, size_clamp_gen_params),
	KUNIT_CASE_PARAM(test_encode, encode_gen_params),
	{}
};

static struct kunit_suite rpcrdma_cm_encode_suite = {
	.name = "rpcrdma_cm_encode",
	.test_cases = rpcrdma_cm_encode_cases,
};

static struct kunit_case rpcrdma_cm_decode_cases[] = {
	KUNIT_CASE_PARAM(test_decode, decode_gen_params),
	KUNIT_CASE(test_decode_area_offset),
	{}
};

static struct kunit_suite rpcrdma_cm_decode_suite = {
	.name = "rpcrdma_cm_decode",
	.test_cases = rpcrdma_cm_decode_cases,
};

static struct kunit_case rpcrdma_cm_negotiate_cases[] = {
	KUNIT_CASE_PARAM(test_negotiate, negotiate_gen_params),
	{}
};

static struct kunit_suite rpcrdma_cm_negotiate_suite = {
	.name = "rpcrdma_cm_negotiate",
	.test_cases = rpcrdma_cm_negotiate_cases,
};

static struct kunit_case rpcrdma_cm_responder_cases[] = {
	KUNIT_CASE_PARAM(test_responder, responder_gen_params),
	{}
};

static struct kunit_suite rpcrdma_cm_responder_suite = {
	.name = "rpcrdma_cm_responder",
	.test_cases = rpcrdma_cm_responder_cases,
};

kunit_test_suites(&rpcrdma_cm_encode_suite, &rpcrdma_cm_decode_suite,
		  &rpcrdma_cm_negotiate_suite, &rpcrdma_cm_responder_suite);

MODULE_DESCRIPTION("KUnit tests for RPC-over-RDMA CM Private Data (RFC 8797)");
MODULE_LICENSE("GPL");
