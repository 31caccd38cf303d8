/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rpcrdma-cm: what the command's source files share.
 */
#ifndef _RPCRDMA_CM_TOOL_H
#define _RPCRDMA_CM_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/sunrpc/rpc_rdma_cm.h>

#include <getopt.h>

#define PDATA_MAX		256	/* largest input we accept, octets */
#define COUNT_MAX		1000000	/* --hold, --timeout (seconds), --count */

/* Exit codes; see --help. A program that builds on this code may add
 * its own from EXIT_LOCAL + 1 up.
 */
#define EXIT_FAILURE_IO		1	/* output could not be written */
#define EXIT_USAGE		2
#define EXIT_NO_ROUTE		3	/* address or route resolution failed */
#define EXIT_REJECTED		4	/* the peer rejected the connection */
#define EXIT_UNREACHABLE	5	/* unreachable, or connection error */
#define EXIT_TIMEOUT		6	/* no answer in time */
#define EXIT_LOCAL		7	/* no RDMA device, or a local failure */

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
	OPT_HELP,
	OPT_VERSION,
	OPT_CM_LAST,	/* a program's own options take codes from here */
};

/* The options parse_cmd_args() handles itself, for a program's table */
#define RPCRDMA_CM_OPTIONS \
	{ "json",			no_argument,		NULL, OPT_JSON }, \
	{ "send",			required_argument,	NULL, OPT_SEND }, \
	{ "recv",			required_argument,	NULL, OPT_RECV }, \
	{ "no-remote-invalidate",	no_argument,		NULL, OPT_NO_REMOTE_INV }, \
	{ "role",			required_argument,	NULL, OPT_ROLE }, \
	{ "peer",			required_argument,	NULL, OPT_PEER }, \
	{ "none",			no_argument,		NULL, OPT_NONE }, \
	{ "raw",			required_argument,	NULL, OPT_RAW }, \
	{ "hold",			required_argument,	NULL, OPT_HOLD }, \
	{ "timeout",			required_argument,	NULL, OPT_TIMEOUT }, \
	{ "count",			required_argument,	NULL, OPT_COUNT }, \
	{ "help",			no_argument,		NULL, OPT_HELP }, \
	{ "version",			no_argument,		NULL, OPT_VERSION }

/*
 * A program's options: @table is RPCRDMA_CM_OPTIONS, then the program's
 * own (codes from OPT_CM_LAST up), then a zeroed entry; @own, if the
 * program has options of its own, takes each of them with its argument.
 */
struct cmd_opts {
	const struct option	*table;
	void			(*own)(const char *cmd, int opt,
				       const char *arg, void *priv);
};

struct cmd_args {
	bool		have_send, have_recv, no_remote_inv, none;
	u32		send, recv;
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
void parse_cmd_args(const char *cmd, int argc, char **argv,
		    const struct cmd_opts *opts, const int *allowed,
		    struct cmd_args *a, void *priv);
void local_params(const char *cmd, const struct cmd_args *a,
		  struct rpcrdma_cm_params *local);
int finish(int rc);

/* rpcrdma-cm's own: its options (those above, no more) and commands */
extern const struct cmd_opts rpcrdma_cm_opts;
int cmd_probe(int argc, char **argv);
int cmd_listen(int argc, char **argv);

#endif
