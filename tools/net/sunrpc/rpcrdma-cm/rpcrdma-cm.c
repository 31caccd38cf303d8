// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm - inspect, build and negotiate RPC-over-RDMA version 1
 * CM Private Data (RFC 8797) from user space.
 *
 * The wire format is handled by net/sunrpc/xprtrdma/cm_private_data.c,
 * the very file that rpcrdma.ko is built from, so what this tool prints
 * is what the kernel concludes from the same octets.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sunrpc/rpc_rdma_cm.h>

#include "rpcrdma-cm.h"
#include "cm_conn.h"
#include "output.h"

#define PROG	"rpcrdma-cm"

const char *prog_name = PROG;

static const struct option rpcrdma_cm_table[] = {
	RPCRDMA_CM_OPTIONS,
	{ NULL, 0, NULL, 0 }
};

const struct cmd_opts rpcrdma_cm_opts = {
	.table	= rpcrdma_cm_table,
};

static const char usage_text[] =
"Usage: " PROG " [--json] COMMAND [OPTIONS]\n"
"\n"
"Inspect and build RPC-over-RDMA version 1 CM Private Data (RFC 8797).\n"
"\n"
"  decode HEX...\n"
"  encode --send BYTES --recv BYTES [--no-remote-invalidate]\n"
"  negotiate --role client|server --send BYTES --recv BYTES\n"
"            [--no-remote-invalidate] --peer HEX|none\n"
"  probe HOST [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"        [--none | --raw HEX] [--timeout SECONDS] [--count N] [--hold SECONDS]\n"
"  listen [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"         [--none | --raw HEX] [--hold SECONDS] [--count N] [--timeout SECONDS]\n"
"\n"
"  --json             machine-readable output: one JSON object per result\n"
"                     or event, one a line\n"
"  -h, --help         show this help;  --version  show the version\n"
"\n"
"BYTES is a number of octets, or of kibibytes with K (4096, 4K). What each\n"
"command does, its JSON keys and the exit statuses: rpcrdma-cm(8).\n";

void print_usage(void)
{
	fputs(usage_text, stdout);
}

static void parse_hex_args(int argc, char **argv, u8 *buf, size_t *len)
{
	int i;

	*len = 0;
	for (i = 0; i < argc; i++)
		parse_hex_arg(argv[i], buf, len);
}

static int cmd_decode(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, 0 };
	struct rpcrdma_cm_decoded d;
	u8 buf[PDATA_MAX];
	struct out_rec r;
	struct cmd_args a;
	size_t len;

	parse_cmd_args("decode", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (!a.argc)
		usage_error("decode: give the Private Data as HEX (\"\" for none)");
	parse_hex_args(a.argc, a.argv, buf, &len);

	rpcrdma_cm_decode(buf, len, &d);
	out_begin(&r);
	out_decoded(&r, &d, len);
	out_print(&r);
	return 0;
}

static int cmd_encode(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV,
				       OPT_NO_REMOTE_INV, 0 };
	struct rpcrdma_cm_params local;
	u8 msg[RPCRDMA_CM_MSG_LEN];
	struct out_rec r;
	struct cmd_args a;
	bool adjusted;

	parse_cmd_args("encode", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (a.argc)
		usage_error("encode: unexpected argument '%s'", a.argv[0]);
	local_params("encode", &a, &local);

	rpcrdma_cm_encode(msg, &local);
	adjusted = rpcrdma_cm_size_clamp(local.send_size) != local.send_size ||
		   rpcrdma_cm_size_clamp(local.recv_size) != local.recv_size;
	out_begin(&r);
	/* The text is the message alone, spaced as the RFC draws it */
	out_text(&r, NULL, "%02x%02x%02x%02x %02x %02x %02x %02x",
		 msg[0], msg[1], msg[2], msg[3], msg[4], msg[5], msg[6], msg[7]);
	if (json_output) {
		out_hex(&r, "hex", msg, sizeof(msg));
		out_num(&r, "send_size", rpcrdma_cm_size_clamp(local.send_size));
		out_num(&r, "recv_size", rpcrdma_cm_size_clamp(local.recv_size));
		out_bool(&r, "remote_inv", local.remote_inv);
		out_bool(&r, "adjusted", adjusted);
	}
	out_print(&r);
	return 0;
}

static int cmd_negotiate(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV,
				       OPT_NO_REMOTE_INV, OPT_ROLE, OPT_PEER, 0 };
	struct rpcrdma_cm_params local;
	struct rpcrdma_cm_negotiated n;
	struct rpcrdma_cm_decoded d;
	enum rpcrdma_cm_role role;
	u8 buf[PDATA_MAX];
	struct out_rec r;
	struct cmd_args a;
	size_t len = 0;

	parse_cmd_args("negotiate", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (a.argc)
		usage_error("negotiate: unexpected argument '%s'", a.argv[0]);
	if (!a.role)
		usage_error("negotiate: --role client|server is required");
	if (!strcmp(a.role, "client"))
		role = RPCRDMA_CM_ROLE_CLIENT;
	else if (!strcmp(a.role, "server"))
		role = RPCRDMA_CM_ROLE_SERVER;
	else
		usage_error("negotiate: --role '%s': expected client or server",
			    a.role);
	if (!a.peer)
		usage_error("negotiate: --peer HEX|none is required");
	local_params("negotiate", &a, &local);

	if (strcmp(a.peer, "none"))
		parse_hex_arg(a.peer, buf, &len);
	rpcrdma_cm_decode(strcmp(a.peer, "none") ? buf : NULL, len, &d);

	/* No device here: local policy alone decides, through the R bit */
	rpcrdma_cm_negotiate(role, &local, &d.params, &n);

	out_begin(&r);
	out_negotiated(&r, role, &n);
	out_open(&r, "peer");
	out_decoded(&r, &d, len);
	out_close(&r);
	out_print(&r);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "decode",	cmd_decode },
	{ "encode",	cmd_encode },
	{ "negotiate",	cmd_negotiate },
	{ "probe",	cmd_probe },
	{ "listen",	cmd_listen },
};

int main(int argc, char **argv)
{
	size_t i;

	/* Options that may come before the command */
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--json")) {
			json_output = true;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			print_usage();
			return 0;
		} else if (!strcmp(argv[1], "--version")) {
			printf(PROG " " RPCRDMA_CM_TOOL_VERSION "\n");
			return 0;
		} else {
			usage_error("unknown option '%s'", argv[1]);
		}
		argc--;
		argv++;
	}
	if (argc < 2)
		usage_error("no command given");

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return finish(commands[i].fn(argc - 1, argv + 1));
	usage_error("unknown command '%s'", argv[1]);
}
