// SPDX-License-Identifier: GPL-2.0
/*
 * What rpcrdma-cm's commands and rpcrdma-call (tools/testing) share to
 * read their arguments and print a decoded message: hex octets, sizes,
 * counts, the options of every command (each takes those it lists),
 * and the check that the output got out.
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
#include "output.h"

bool json_output;

static void __attribute__((noreturn))
vusage_error(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog_name);
	exit(EXIT_USAGE);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error(NULL, fmt, ap);
}

void cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error(cmd, fmt, ap);
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
		fprintf(stderr, "%s: warning: %s %" PRIu32 " is below the RFC 8797 minimum; using %" PRIu32 "\n",
			prog_name, opt, asked, sent);
	else if (asked > RPCRDMA_CM_SIZE_MAX)
		fprintf(stderr, "%s: warning: %s %" PRIu32 " is above the RFC 8797 maximum; using %" PRIu32 "\n",
			prog_name, opt, asked, sent);
	else
		fprintf(stderr, "%s: warning: %s %" PRIu32 " is not a multiple of 1024; using %" PRIu32 "\n",
			prog_name, opt, asked, sent);
}


/*
 * Parse options for one command of a program whose options are @opts.
 * @allowed lists the option codes the command takes; any other option
 * is a usage error. A program's own options go to @opts->own with
 * @priv.
 */
void parse_cmd_args(const char *cmd, int argc, char **argv,
		    const struct cmd_opts *opts, const int *allowed,
		    struct cmd_args *a, void *priv)
{
	int c, idx;

	memset(a, 0, sizeof(*a));
	a->hold = -1;
	a->timeout = -1;
	a->count = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts->table, &idx)) != -1) {
		const int *ok;

		if (c == 'h' || c == OPT_HELP) {
			print_usage();
			exit(0);
		}
		if (c == ':')
			cmd_error(cmd, "'%s' needs an argument",
				  argv[optind - 1]);
		if (c == '?') {
			if (optopt > 0 && optopt < 0x100)
				cmd_error(cmd, "unknown option '-%c'", optopt);
			cmd_error(cmd, "unknown option '%s'",
				  argv[optind - 1]);
		}
		for (ok = allowed; *ok && *ok != c; ok++)
			;
		/* (argv[optind - 1] may be the option's argument) */
		if (!*ok)
			cmd_error(cmd, "option '--%s' does not apply here",
				  opts->table[idx].name);
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
		case OPT_NO_REMOTE_INV:
			a->no_remote_inv = true;
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
		default:
			/* an option of the program's own table */
			if (!opts->own)
				cmd_error(cmd, "option '--%s' has no handler",
					  opts->table[idx].name);
			opts->own(cmd, c, optarg, priv);
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
		cmd_error(cmd, "--send BYTES is required");
	if (!a->have_recv)
		cmd_error(cmd, "--recv BYTES is required");
	warn_adjusted("--send", a->send);
	warn_adjusted("--recv", a->recv);
	local->send_size = a->send;
	local->recv_size = a->recv;
	local->remote_inv = !a->no_remote_inv;
}

/* A result nobody could read is a failure: check that output got out */
int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the output: %s\n", prog_name,
			strerror(errno));
		return EXIT_FAILURE_IO;
	}
	return rc;
}
