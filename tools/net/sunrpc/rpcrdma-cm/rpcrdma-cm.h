/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rpcrdma-cm: what the command's source files share.
 */
#ifndef _RPCRDMA_CM_TOOL_H
#define _RPCRDMA_CM_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/sunrpc/rpc_rdma_cm.h>

#define PDATA_MAX		256	/* largest input we accept, octets */
#define COUNT_MAX		1000000	/* --hold, --timeout (seconds), --count */
#define CALL_SIZE_MAX		1048576	/* call --reply-size, --post-size */
#define REPLY_CHUNK_SEGS_MAX	128	/* call --reply-chunk */
#define REPLY_CHUNK_SEG_LEN	512	/* octets in each of its segments */
#define REPLY_CHUNK_FILL	0xa5	/* what its memory holds before a call */

/* Exit codes; see --help */
#define EXIT_FAILURE_IO		1	/* output could not be written */
#define EXIT_USAGE		2
#define EXIT_NO_ROUTE		3	/* address or route resolution failed */
#define EXIT_REJECTED		4	/* the peer rejected the connection */
#define EXIT_UNREACHABLE	5	/* unreachable, or connection error */
#define EXIT_TIMEOUT		6	/* no answer in time */
#define EXIT_LOCAL		7	/* no RDMA device, or a local failure */
#define EXIT_PROTOCOL		8	/* call: a receive error, a dropped
					 * connection, or a malformed reply */

enum {
	OPT_JSON = 0x100,
	OPT_SEND,
	OPT_RECV,
	OPT_NO_REMOTE_INV,
	OPT_ROLE,
	OPT_PEER,
	OPT_NONE,
	OPT_RAW,
	OPT_HOLD,
	OPT_TIMEOUT,
	OPT_COUNT,
	OPT_PROC,
	OPT_REPLY_SIZE,
	OPT_POST_SIZE,
	OPT_THEN_NULL,
	OPT_REPLY_CHUNK,
	OPT_HELP,
	OPT_VERSION,
};

struct cmd_args {
	bool		have_send, have_recv, no_remote_inv, none;
	bool		have_reply_size, have_post_size, then_null;
	u32		send, recv;
	u32		reply_size;	/* call --reply-size */
	u32		post_size;	/* call --post-size */
	int		reply_chunk;	/* call --reply-chunk, 0: none */
	const char	*proc;		/* call --proc */
	const char	*role;
	const char	*peer;
	const char	*raw;
	int		hold;		/* seconds, -1: not given */
	int		timeout;	/* seconds, -1: not given */
	int		count;		/* -1: not given */
	int		argc;		/* positional arguments left */
	char		**argv;
};

extern bool json_output;
/* Each program's own: its name in messages, and its --help */
extern const char *prog_name;
void print_usage(void);

void usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* A usage error of command @cmd, or of the program when @cmd is NULL */
void cmd_error(const char *cmd, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void parse_hex_arg(const char *arg, u8 *buf, size_t *len);
u32 parse_size(const char *opt, const char *arg);
int parse_count(const char *opt, const char *arg);
void warn_adjusted(const char *opt, u32 asked);
struct out_rec;
void out_decoded(struct out_rec *r, const struct rpcrdma_cm_decoded *d,
		 size_t len);
void parse_cmd_args(const char *cmd, int argc, char **argv,
		    const int *allowed, struct cmd_args *a);
void local_params(const char *cmd, const struct cmd_args *a,
		  struct rpcrdma_cm_params *local);
int finish(int rc);

int cmd_probe(int argc, char **argv);
int cmd_listen(int argc, char **argv);

#endif
