// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for rpcrdma_cm_size_sysctl(), the proc_handler of the
 * client's inline thresholds and of svcrdma's max_req_size.
 *
 * Each row writes a string to a sysctl bounded as those are (1024 to
 * 262144, RFC 8797 Section 4.2) and checks what the handler returns
 * and what the variable then holds. What it refuses, it refuses as
 * proc_douintvec_minmax() does on its own, with the same error (which
 * kernels differ on: -ERANGE or -EINVAL for a value out of range), and
 * the variable keeps its value.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/sysctl.h>
#include <linux/string.h>
#include <linux/sunrpc/xdr.h>
#include <linux/sunrpc/rpc_rdma_cm.h>

#include "../xprt_rdma.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

static unsigned int test_min = RPCRDMA_CM_SIZE_MIN;
static unsigned int test_max = RPCRDMA_CM_SIZE_MAX;

/* A sysctl bounded as the inline thresholds and max_req_size are */
#define TEST_SIZE_TABLE(var) {			\
	.procname	= "test_size",		\
	.data		= &(var),		\
	.maxlen		= sizeof(var),		\
	.mode		= 0644,			\
	.extra1		= &test_min,		\
	.extra2		= &test_max,		\
}

struct size_write_param {
	const char	*desc;
	const char	*input;
	unsigned int	before;
	bool		refused;
	unsigned int	after;
};

static const struct size_write_param size_write_params[] = {
	{ "s4.2: 1024, the minimum, is taken",	"1024",	    4096, false, 1024 },
	{ "s4.2: 262144, the maximum, is taken", "262144",  4096, false, 262144 },
	{ "4096 with a newline, as echo writes", "4096\n",  1024, false, 4096 },
	{ "5000, an old value, rounds to 4096",	"5000",	    1024, false, 4096 },
	{ "1025 rounds down to 1024",		"1025",	    4096, false, 1024 },
	{ "262143 rounds down to 261120",	"262143",   4096, false, 261120 },
	{ "1023 is refused, nothing changes",	"1023",	    4096, true, 4096 },
	{ "0 is refused",			"0",	    8192, true, 8192 },
	{ "262145 is refused",			"262145",   8192, true, 8192 },
	{ "a negative number is refused",	"-1",	    8192, true, 8192 },
	{ "not a number is refused",		"abc",	    8192, true, 8192 },
	{ "trailing junk is refused",		"4096x",    8192, true, 8192 },
	{ "2^32 + 4096 does not wrap",		"4294971392", 8192, true, 8192 },
};

KUNIT_ARRAY_PARAM_DESC(size_write, size_write_params, desc);

static void test_size_write(struct kunit *test)
{
	const struct size_write_param *p = test->param_value;
	unsigned int value = p->before, twin = p->before;
	const struct ctl_table table = TEST_SIZE_TABLE(value);
	const struct ctl_table plain = TEST_SIZE_TABLE(twin);
	char buf[32];
	size_t len;
	loff_t pos = 0;
	int ret, want = 0;

	/* What the kernel's own handler says to the same write */
	if (p->refused) {
		len = strscpy(buf, p->input, sizeof(buf));
		want = proc_douintvec_minmax(&plain, 1, buf, &len, &pos);
		KUNIT_ASSERT_LT(test, want, 0);
		pos = 0;
	}

	len = strscpy(buf, p->input, sizeof(buf));
	ret = rpcrdma_cm_size_sysctl(&table, 1, buf, &len, &pos);
	KUNIT_EXPECT_EQ(test, ret, want);
	KUNIT_EXPECT_EQ(test, value, p->after);
}

/* A read shows the value as a number and a newline */
static void test_size_read(struct kunit *test)
{
	unsigned int value = 16384;
	const struct ctl_table table = TEST_SIZE_TABLE(value);
	char buf[32] = "";
	size_t len = sizeof(buf);
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, rpcrdma_cm_size_sysctl(&table, 0, buf, &len,
						     &pos), 0);
	KUNIT_EXPECT_EQ(test, len, strlen("16384\n"));
	KUNIT_EXPECT_MEMEQ(test, buf, "16384\n", len);
	KUNIT_EXPECT_EQ(test, value, 16384U);
}

static struct kunit_case cm_size_sysctl_cases[] = {
	KUNIT_CASE_PARAM(test_size_write, size_write_gen_params),
	KUNIT_CASE(test_size_read),
	{}
};

static struct kunit_suite cm_size_sysctl_suite = {
	.name = "rpcrdma_cm_size_sysctl",
	.test_cases = cm_size_sysctl_cases,
};

kunit_test_suite(cm_size_sysctl_suite);

MODULE_DESCRIPTION("KUnit tests for the RPC-over-RDMA inline size sysctls");
MODULE_LICENSE("GPL");
