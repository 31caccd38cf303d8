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

bool json_output;

static const char usage_text[] =
"Usage: " PROG " [--json] COMMAND [OPTIONS]\n"
"\n"
"Inspect and build RPC-over-RDMA version 1 CM Private Data (RFC 8797).\n"
"\n"
"Commands:\n"
"  decode HEX...\n"
"      Decode Private Data as it arrived from a peer (at most 256 octets).\n"
"      HEX is one or more arguments of hex digit pairs; spaces, tabs and\n"
"      ':' separate tokens, a token may start with 0x, and each token must\n"
"      hold whole octets. The buffer is searched for the Format Identifier\n"
"      0xf6ab0e18 at every offset; the first version 1 message found is\n"
"      used. An empty argument is an empty buffer.\n"
"\n"
"  encode --send BYTES --recv BYTES [--no-remote-invalidate]\n"
"      Print the 8-octet message advertising these sizes. Sizes are\n"
"      rounded down to a multiple of 1024 and clamped to 1024..262144,\n"
"      with a warning on standard error when that changes them.\n"
"\n"
"  negotiate --role client|server --send BYTES --recv BYTES\n"
"            [--no-remote-invalidate] --peer HEX|none\n"
"      Print the inline thresholds and the Send With Invalidate decision\n"
"      that the local end (with these sizes) reaches with a peer that\n"
"      sent HEX, or sent nothing usable ('none').\n"
"\n"
"  probe HOST [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"        [--none | --raw HEX] [--timeout SECONDS]\n"
"      Connect to an RPC-over-RDMA listener (default port 20049) with our\n"
"      Private Data (by default 4096/4096 with R set), print what the\n"
"      server answered, decoded, and the thresholds a client would use,\n"
"      then disconnect. --none sends no Private Data; --raw sends HEX as\n"
"      given (at most 56 octets), e.g. with foreign octets in front.\n"
"      Default timeout: 10 seconds per step.\n"
"\n"
"  listen [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"         [--none | --raw HEX] [--hold SECONDS] [--count N] [--timeout SECONDS]\n"
"      Act as an RPC-over-RDMA server (default port 20049) that answers no\n"
"      RPC: print each client's Private Data, decoded, and accept with\n"
"      ours (--raw: at most 196 octets). Each connection is held until\n"
"      the client leaves, or for --hold SECONDS. Stops on SIGINT/SIGTERM,\n"
"      after --count connections have ended, or after --timeout SECONDS.\n"
"\n"
"  call HOST [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"       [--none | --raw HEX] [--proc readdir|create|null]\n"
"       [--reply-size BYTES]\n"
"       [--then-null] [--post-size BYTES] [--reply-chunk SEGMENTS]\n"
"       [--timeout SECONDS]\n"
"      Act as a minimal RPC-over-RDMA version 1 client (RFC 8166): connect\n"
"      as probe does, post Receive buffers of exactly our Receive Size,\n"
"      send one RPC inline in an RDMA_MSG without chunks, and report\n"
"      what came back: the reply's RPC-over-RDMA header and RPC status,\n"
"      or the Receive completion error, or the connection loss. Our\n"
"      Receive Size is the one the server learns from our Private Data:\n"
"      --recv (default 4096) rounded as for encode, or 1024 with --none\n"
"      or with --raw octets that hold no usable message.\n"
"      --proc readdir (default): NFSv4.0 COMPOUND { PUTROOTFH; READDIR }\n"
"      with AUTH_SYS as root, asking for no attributes, dircount and\n"
"      maxcount both --reply-size (0..1048576, default 8192), so a large\n"
"      enough directory yields a reply of about that size.\n"
"      --proc create: NFSv4.0 COMPOUND { PUTROOTFH; CREATE a directory\n"
"      rpcrdma-cm-XID; PUTROOTFH; READDIR as above }: a non-idempotent\n"
"      call whose reply can be too large, to see what its caller gets.\n"
"      --proc null: the NFSv4 NULL procedure with AUTH_NONE.\n"
"      --then-null: once the first call has its answer, send a NULL on\n"
"      the same connection, to show whether the connection survived.\n"
"      --post-size: post Receive buffers of this size (1..1048576)\n"
"      instead, whatever the Private Data says.\n"
"      --reply-chunk: offer a Reply chunk of SEGMENTS (1..128) segments\n"
"      of 512 octets with each COMPOUND, and report how much of it the\n"
"      server wrote; a reply that comes there is decoded from it. Needs\n"
"      --no-remote-invalidate or --none: the chunk cannot be invalidated.\n"
"      Default timeout: 10 seconds per step and per call.\n"
"\n"
"Options:\n"
"  --json                   machine-readable output (one JSON object)\n"
"  --send BYTES             largest Send the local end will post\n"
"  --recv BYTES             largest Receive the local end accepts\n"
"  --no-remote-invalidate   clear the R bit (default: set)\n"
"  --role client|server     which end the local side is\n"
"  --peer HEX|none          Private Data received from the peer\n"
"  -h, --help               show this help and exit\n"
"  --version                show the version and exit\n"
"\n"
"BYTES is a decimal number of octets, or a number followed by K\n"
"(kibibytes), e.g. 4096 or 4K.\n"
"\n"
"JSON keys:\n"
"  decode:    found offset version remote_invalidate send_size recv_size\n"
"             status length\n"
"  encode:    hex send_size recv_size remote_invalidate adjusted\n"
"  negotiate: role client_to_server server_to_client send_with_invalidate\n"
"             peer (a decode object)\n"
"  'found' is true only for a usable message: identifier, room for\n"
"  8 octets, version 1. Otherwise the sizes are the RFC 8797 defaults\n"
"  (1024) and remote_invalidate is false.\n"
"\n"
"  probe/listen/call: one object per event, one per line; 'event' is\n"
"             established, connect-request, closed, listening, error,\n"
"             or, for call: sent, reply, recv_error, send_error,\n"
"             disconnected, not_sent.\n"
"  call:      every call event has call (readdir, create, null) and xid.\n"
"             sent: send_len reply_size [reply_chunk_segments]\n"
"             [create_name].\n"
"             reply: posted_size byte_len with_invalidate [invalidated_rkey]\n"
"             [reply_chunk_written] [reply_chunk_len]\n"
"             well_formed [problem] and what could be decoded of\n"
"             rdma_xid xid_match rdma_version rdma_credits rdma_type\n"
"             rdma_proc; RDMA_ERROR: rdma_error rdma_error_code\n"
"             [rdma_vers_low rdma_vers_high]; RDMA_MSG: rpc_reply_stat,\n"
"             then rpc_accept_stat or rpc_reject_stat [rpc_auth_stat]\n"
"             [rpc_low rpc_high]; a COMPOUND: nfs_status nfs_results\n"
"             [create_status] [readdir_status readdir_entries readdir_eof].\n"
"             recv_error, send_error: posted_size wc_status\n"
"             wc_status_code vendor_err, or detail; disconnected,\n"
"             not_sent: detail.\n"
"\n"
"Exit status: 0 on success, 1 when the output cannot be written,\n"
"2 on a usage error, 3 when the address or route cannot be resolved,\n"
"4 when the server rejects the connection, 5 when it is unreachable,\n"
"6 on a timeout, 7 when there is no RDMA device or a local failure,\n"
"8 when a call got a Receive error, lost its connection or got a\n"
"malformed reply (call).\n";

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(EXIT_USAGE);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static bool is_separator(int c)
{
	return isspace(c) || c == ':';
}

/*
 * Parse one argument of hex octets into buf at *len. Returns 0, or
 * exits with a usage error naming the problem.
 */
void parse_hex_arg(const char *arg, u8 *buf, size_t *len)
{
	const char *p = arg;

	while (*p) {
		const char *tok;
		size_t digits = 0;

		while (*p && is_separator((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			p += 2;
			if (!*p || is_separator((unsigned char)*p))
				usage_error("'%s': '0x' holds no hex digits", arg);
		}
		tok = p;
		while (*p && !is_separator((unsigned char)*p)) {
			if (hexval((unsigned char)*p) < 0)
				usage_error("'%s': '%c' is not a hex digit",
					    arg, *p);
			p++;
			digits++;
		}
		if (digits % 2)
			usage_error("'%.*s': odd number of hex digits; write each octet as two digits",
				    (int)(p - tok), tok);
		for (; tok < p; tok += 2) {
			if (*len >= PDATA_MAX)
				usage_error("more than %d octets of Private Data",
					    PDATA_MAX);
			buf[(*len)++] = hexval((unsigned char)tok[0]) << 4 |
					hexval((unsigned char)tok[1]);
		}
	}
}

static void parse_hex_args(int argc, char **argv, u8 *buf, size_t *len)
{
	int i;

	*len = 0;
	for (i = 0; i < argc; i++)
		parse_hex_arg(argv[i], buf, len);
}

u32 parse_size(const char *opt, const char *arg)
{
	unsigned long long val;
	char *end;

	if (!isdigit((unsigned char)*arg))
		usage_error("%s '%s': expected a number of bytes", opt, arg);
	errno = 0;
	val = strtoull(arg, &end, 10);
	if (errno == ERANGE)
		val = ULLONG_MAX;
	if ((*end == 'K' || *end == 'k') && end[1] == '\0') {
		val = val > ULLONG_MAX / 1024 ? ULLONG_MAX : val * 1024;
	} else if (*end != '\0') {
		usage_error("%s '%s': expected a number of bytes, optionally followed by K",
			    opt, arg);
	}
	return val > UINT32_MAX ? UINT32_MAX : (u32)val;
}

int parse_count(const char *opt, const char *arg)
{
	unsigned long val;
	char *end;

	errno = 0;
	val = strtoul(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || *end || errno || val > COUNT_MAX)
		usage_error("%s '%s': expected a whole number up to %d", opt, arg,
			    COUNT_MAX);
	return (int)val;
}

/* Say, on stderr, how a requested size differs from what goes on the wire */
void warn_adjusted(const char *opt, u32 asked)
{
	u32 sent = rpcrdma_cm_size_clamp(asked);

	if (sent == asked)
		return;
	if (asked < RPCRDMA_CM_SIZE_MIN)
		fprintf(stderr, PROG ": warning: %s %" PRIu32 " is below the RFC 8797 minimum; using %" PRIu32 "\n",
			opt, asked, sent);
	else if (asked > RPCRDMA_CM_SIZE_MAX)
		fprintf(stderr, PROG ": warning: %s %" PRIu32 " is above the RFC 8797 maximum; using %" PRIu32 "\n",
			opt, asked, sent);
	else
		fprintf(stderr, PROG ": warning: %s %" PRIu32 " is not a multiple of 1024; using %" PRIu32 "\n",
			opt, asked, sent);
}

const char *yesno(bool b)
{
	return b ? "yes" : "no";
}

const char *jbool(bool b)
{
	return b ? "true" : "false";
}

void print_decoded_json(const struct rpcrdma_cm_decoded *d, size_t len)
{
	printf("{\"found\": %s, ", jbool(d->status == RPCRDMA_CM_VALID));
	if (d->offset >= 0)
		printf("\"offset\": %d, ", d->offset);
	else
		printf("\"offset\": null, ");
	if (d->status == RPCRDMA_CM_VALID || d->status == RPCRDMA_CM_BAD_VERSION)
		printf("\"version\": %u, ", d->version);
	else
		printf("\"version\": null, ");
	printf("\"remote_invalidate\": %s, \"send_size\": %" PRIu32
	       ", \"recv_size\": %" PRIu32 ", \"status\": \"%s\", \"length\": %zu}",
	       jbool(d->peer.remote_inv), d->peer.send_size, d->peer.recv_size,
	       rpcrdma_cm_status_name(d->status), len);
}

void print_decoded_text(const struct rpcrdma_cm_decoded *d, size_t len)
{
	printf("found:             %s\n", yesno(d->status == RPCRDMA_CM_VALID));
	printf("status:            %s\n", rpcrdma_cm_status_name(d->status));
	printf("length:            %zu\n", len);
	if (d->offset >= 0)
		printf("offset:            %d\n", d->offset);
	else
		printf("offset:            -\n");
	if (d->status == RPCRDMA_CM_VALID || d->status == RPCRDMA_CM_BAD_VERSION)
		printf("version:           %u\n", d->version);
	else
		printf("version:           -\n");
	printf("remote_invalidate: %s\n", yesno(d->peer.remote_inv));
	printf("send_size:         %" PRIu32 "\n", d->peer.send_size);
	printf("recv_size:         %" PRIu32 "\n", d->peer.recv_size);
	if (d->status != RPCRDMA_CM_VALID)
		printf("note:              no usable RFC 8797 message; the RFC defaults apply\n");
}

static const struct option common_opts[] = {
	{ "json",			no_argument,		NULL, OPT_JSON },
	{ "send",			required_argument,	NULL, OPT_SEND },
	{ "recv",			required_argument,	NULL, OPT_RECV },
	{ "no-remote-invalidate",	no_argument,		NULL, OPT_NO_RINV },
	{ "role",			required_argument,	NULL, OPT_ROLE },
	{ "peer",			required_argument,	NULL, OPT_PEER },
	{ "none",			no_argument,		NULL, OPT_NONE },
	{ "raw",			required_argument,	NULL, OPT_RAW },
	{ "hold",			required_argument,	NULL, OPT_HOLD },
	{ "timeout",			required_argument,	NULL, OPT_TIMEOUT },
	{ "count",			required_argument,	NULL, OPT_COUNT },
	{ "proc",			required_argument,	NULL, OPT_PROC },
	{ "reply-size",			required_argument,	NULL, OPT_REPLY_SIZE },
	{ "post-size",			required_argument,	NULL, OPT_POST_SIZE },
	{ "then-null",			no_argument,		NULL, OPT_THEN_NULL },
	{ "reply-chunk",		required_argument,	NULL, OPT_REPLY_CHUNK },
	{ "help",			no_argument,		NULL, OPT_HELP },
	{ "version",			no_argument,		NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/*
 * Parse options for one command. @allowed lists the option codes the
 * command takes; any other option is a usage error.
 */
void parse_cmd_args(const char *cmd, int argc, char **argv,
			   const int *allowed, struct cmd_args *a)
{
	int c, idx;

	memset(a, 0, sizeof(*a));
	a->hold = -1;
	a->timeout = -1;
	a->count = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", common_opts, &idx)) != -1) {
		const int *ok;

		if (c == 'h' || c == OPT_HELP) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (c == ':')
			usage_error("%s: '%s' needs an argument", cmd,
				    argv[optind - 1]);
		if (c == '?') {
			if (optopt > 0 && optopt < 0x100)
				usage_error("%s: unknown option '-%c'", cmd, optopt);
			usage_error("%s: unknown option '%s'", cmd,
				    argv[optind - 1]);
		}
		for (ok = allowed; *ok && *ok != c; ok++)
			;
		/* (argv[optind - 1] may be the option's argument) */
		if (!*ok)
			usage_error("%s: option '--%s' does not apply here",
				    cmd, common_opts[idx].name);
		switch (c) {
		case OPT_JSON:
			json_output = true;
			break;
		case OPT_SEND:
			a->send = parse_size("--send", optarg);
			a->have_send = true;
			break;
		case OPT_RECV:
			a->recv = parse_size("--recv", optarg);
			a->have_recv = true;
			break;
		case OPT_NO_RINV:
			a->no_rinv = true;
			break;
		case OPT_ROLE:
			a->role = optarg;
			break;
		case OPT_PEER:
			a->peer = optarg;
			break;
		case OPT_NONE:
			a->none = true;
			break;
		case OPT_RAW:
			a->raw = optarg;
			break;
		case OPT_HOLD:
			a->hold = parse_count("--hold", optarg);
			break;
		case OPT_TIMEOUT:
			a->timeout = parse_count("--timeout", optarg);
			break;
		case OPT_COUNT:
			a->count = parse_count("--count", optarg);
			break;
		case OPT_PROC:
			a->proc = optarg;
			break;
		case OPT_REPLY_SIZE:
			a->reply_size = parse_size("--reply-size", optarg);
			a->have_reply_size = true;
			if (a->reply_size > CALL_SIZE_MAX)
				usage_error("%s: --reply-size '%s': expected 0..%d octets",
					    cmd, optarg, CALL_SIZE_MAX);
			break;
		case OPT_POST_SIZE:
			a->post_size = parse_size("--post-size", optarg);
			a->have_post_size = true;
			if (!a->post_size || a->post_size > CALL_SIZE_MAX)
				usage_error("%s: --post-size '%s': expected 1..%d octets",
					    cmd, optarg, CALL_SIZE_MAX);
			break;
		case OPT_THEN_NULL:
			a->then_null = true;
			break;
		case OPT_REPLY_CHUNK:
			a->reply_chunk = parse_count("--reply-chunk", optarg);
			if (a->reply_chunk < 1 || a->reply_chunk > REPLY_CHUNK_SEGS_MAX)
				usage_error("%s: --reply-chunk '%s': expected 1..%d segments",
					    cmd, optarg, REPLY_CHUNK_SEGS_MAX);
			break;
		}
	}
	a->argc = argc - optind;
	a->argv = argv + optind;
}

void local_params(const char *cmd, const struct cmd_args *a,
			 struct rpcrdma_cm_params *local)
{
	if (!a->have_send)
		usage_error("%s: --send BYTES is required", cmd);
	if (!a->have_recv)
		usage_error("%s: --recv BYTES is required", cmd);
	warn_adjusted("--send", a->send);
	warn_adjusted("--recv", a->recv);
	local->send_size = a->send;
	local->recv_size = a->recv;
	local->remote_inv = !a->no_rinv;
}

static int cmd_decode(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, 0 };
	struct rpcrdma_cm_decoded d;
	u8 buf[PDATA_MAX];
	struct cmd_args a;
	size_t len;

	parse_cmd_args("decode", argc, argv, allowed, &a);
	if (!a.argc)
		usage_error("decode: give the Private Data as HEX (\"\" for none)");
	parse_hex_args(a.argc, a.argv, buf, &len);

	rpcrdma_cm_decode(buf, len, &d);
	if (json_output) {
		print_decoded_json(&d, len);
		putchar('\n');
	} else {
		print_decoded_text(&d, len);
	}
	return 0;
}

static int cmd_encode(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV,
				       OPT_NO_RINV, 0 };
	struct rpcrdma_cm_params local;
	u8 msg[RPCRDMA_CM_MSG_LEN];
	struct cmd_args a;
	bool adjusted;

	parse_cmd_args("encode", argc, argv, allowed, &a);
	if (a.argc)
		usage_error("encode: unexpected argument '%s'", a.argv[0]);
	local_params("encode", &a, &local);

	adjusted = rpcrdma_cm_encode(msg, &local);
	if (json_output) {
		printf("{\"hex\": \"%02x%02x%02x%02x%02x%02x%02x%02x\", ",
		       msg[0], msg[1], msg[2], msg[3], msg[4], msg[5], msg[6],
		       msg[7]);
		printf("\"send_size\": %" PRIu32 ", \"recv_size\": %" PRIu32
		       ", \"remote_invalidate\": %s, \"adjusted\": %s}\n",
		       rpcrdma_cm_size_clamp(local.send_size),
		       rpcrdma_cm_size_clamp(local.recv_size),
		       jbool(local.remote_inv), jbool(adjusted));
	} else {
		printf("%02x%02x%02x%02x %02x %02x %02x %02x\n",
		       msg[0], msg[1], msg[2], msg[3], msg[4], msg[5], msg[6],
		       msg[7]);
	}
	return 0;
}

static int cmd_negotiate(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV,
				       OPT_NO_RINV, OPT_ROLE, OPT_PEER, 0 };
	struct rpcrdma_cm_params local;
	struct rpcrdma_cm_negotiated n;
	struct rpcrdma_cm_decoded d;
	enum rpcrdma_cm_role role;
	u8 buf[PDATA_MAX];
	struct cmd_args a;
	size_t len = 0;

	parse_cmd_args("negotiate", argc, argv, allowed, &a);
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
	rpcrdma_cm_negotiate(role, &local, &d.peer, true, &n);

	if (json_output) {
		printf("{\"role\": \"%s\", \"client_to_server\": %" PRIu32
		       ", \"server_to_client\": %" PRIu32
		       ", \"send_with_invalidate\": %s, \"peer\": ",
		       a.role, n.client_to_server, n.server_to_client,
		       jbool(n.send_with_inv));
		print_decoded_json(&d, len);
		printf("}\n");
	} else {
		printf("role:                 %s\n", a.role);
		printf("peer:                 %s", rpcrdma_cm_status_name(d.status));
		if (d.status == RPCRDMA_CM_VALID)
			printf(" at offset %d: send %" PRIu32 ", recv %" PRIu32 ", R=%d\n",
			       d.offset, d.peer.send_size, d.peer.recv_size,
			       d.peer.remote_inv);
		else
			printf(" (RFC 8797 defaults: send 1024, recv 1024, R=0)\n");
		printf("client_to_server:     %" PRIu32 "\n", n.client_to_server);
		printf("server_to_client:     %" PRIu32 "\n", n.server_to_client);
		printf("send_with_invalidate: %s\n", yesno(n.send_with_inv));
	}
	return 0;
}

/* A result nobody could read is a failure: check that output got out */
int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output: %s\n",
			strerror(errno));
		return EXIT_FAILURE_IO;
	}
	return rc;
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
	{ "call",	cmd_call },
};

int main(int argc, char **argv)
{
	size_t i;

	/* Options that may come before the command */
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--json")) {
			json_output = true;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			fputs(usage_text, stdout);
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
