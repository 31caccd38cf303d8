// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-call - a minimal RPC-over-RDMA version 1 client (RFC 8166),
 * for testing servers: it connects with the RFC 8797 Private Data we
 * choose, as rpcrdma-cm probe does, sends one NFS call (and, if asked,
 * a NULL after it) inline, and reports what came back, down to a
 * Receive that was too small. A conformance client, not an admin tool:
 * the qemu scenarios of tools/testing/nfsrdma use it to see what nfsd
 * sends a client whose Receive Size it must honour.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "cm_conn.h"
#include "output.h"
#include "xdr_util.h"

#define PROG	"rpcrdma-call"

const char *prog_name = PROG;

#define CALL_SIZE_MAX		1048576	/* --reply-size, --post-size */
#define REPLY_CHUNK_SEGS_MAX	128	/* --reply-chunk */
#define REPLY_CHUNK_SEG_LEN	512	/* octets in each of its segments */
#define REPLY_CHUNK_FILL	0xa5	/* what its memory holds before a call */
#define READ_CHUNKS_MAX		16	/* --read-chunks */
#define READ_CHUNK_LEN		4	/* octets in each of them, by default */
#define READ_CHUNK_LEN_MAX	64	/* --read-chunk-len */
#define READ_CHUNK_FILL		0x5a	/* what they hold */
#define INLINE_PAD_MAX		262144	/* --inline-pad: RFC 8797's largest size */
#define READ_SKEW_MAX		65536	/* --read-skew */
#define WRITE_MAX		262144	/* --write: RFC 8797's largest size */
#define LOOKUPS_MAX		23	/* --lookups: nfsd takes 50 operations */
#define WRITE_FILE		"rpcrdma-call-write"	/* what --proc write writes */
#define LOOKUP_DIR_LEN		255	/* --lookups' directory: 255 'p's */

/* rpcrdma-call's exit code beyond rpcrdma-cm's: see --help */
#define EXIT_PROTOCOL		(EXIT_LOCAL + 1)	/* a receive error, a dropped
							 * connection, or a malformed reply */

/* rpcrdma-call's options beyond rpcrdma-cm's */
enum {
	OPT_PROC = OPT_CM_LAST,
	OPT_REPLY_SIZE,
	OPT_POST_SIZE,
	OPT_THEN_NULL,
	OPT_REPLY_CHUNK,
	OPT_READ_CHUNKS,
	OPT_INLINE_PAD,
	OPT_WRITE,
	OPT_LOOKUPS,
	OPT_WRITE_COPY,
	OPT_RDMA_VERSION,
	OPT_RDMA_PROC,
	OPT_PZRC,
	OPT_READ_SKEW,
	OPT_READ_CHUNK_LEN,
};

struct call_args {
	bool		have_reply_size, have_post_size, then_null;
	u32		reply_size;
	u32		post_size;
	int		reply_chunk;	/* segments, 0: none */
	int		read_chunks;	/* data-item Read chunks, 0: none */
	u32		inline_pad;	/* octets after the arguments */
	u32		write;		/* --proc write: data octets, 0: default */
	int		lookups;	/* --proc write: LOOKUP/LOOKUPP pairs */
	bool		have_lookups;
	const char	*write_copy;	/* where to save the data written */
	const char	*proc;
	long long	rdma_version;	/* the first call's rdma_vers, -1: 1 */
	long long	rdma_proc;	/* its rdma_proc, -1: RDMA_MSG */
	bool		pzrc;		/* it goes in a position-zero chunk */
	int		read_skew;	/* octets added to the last Read position */
	u32		read_chunk_len;	/* octets in each Read chunk, 0: 4 */
};

/* --rdma-version, --rdma-proc: any XDR unsigned int */
static long long parse_u32(const char *cmd, const char *opt, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || v > UINT32_MAX)
		cmd_error(cmd, "%s '%s': expected 0..4294967295", opt, arg);
	return (long long)v;
}

static void call_option(const char *cmd, int opt, const char *arg, void *priv)
{
	struct call_args *ca = priv;

	switch (opt) {
	case OPT_PROC:
		ca->proc = arg;
		break;
	case OPT_REPLY_SIZE:
		ca->reply_size = parse_size("--reply-size", arg);
		ca->have_reply_size = true;
		if (ca->reply_size > CALL_SIZE_MAX)
			cmd_error(cmd, "--reply-size '%s': expected 0..%d octets",
				  arg, CALL_SIZE_MAX);
		break;
	case OPT_POST_SIZE:
		ca->post_size = parse_size("--post-size", arg);
		ca->have_post_size = true;
		if (!ca->post_size || ca->post_size > CALL_SIZE_MAX)
			cmd_error(cmd, "--post-size '%s': expected 1..%d octets",
				  arg, CALL_SIZE_MAX);
		break;
	case OPT_THEN_NULL:
		ca->then_null = true;
		break;
	case OPT_READ_CHUNKS:
		ca->read_chunks = parse_count("--read-chunks", arg);
		if (ca->read_chunks < 1 || ca->read_chunks > READ_CHUNKS_MAX)
			cmd_error(cmd, "--read-chunks '%s': expected 1..%d chunks",
				  arg, READ_CHUNKS_MAX);
		break;
	case OPT_INLINE_PAD:
		ca->inline_pad = parse_size("--inline-pad", arg);
		if (ca->inline_pad > INLINE_PAD_MAX || ca->inline_pad % 4)
			cmd_error(cmd, "--inline-pad '%s': expected 0..%d octets, a multiple of 4",
				  arg, INLINE_PAD_MAX);
		break;
	case OPT_WRITE:
		ca->write = parse_size("--write", arg);
		if (!ca->write || ca->write > WRITE_MAX)
			cmd_error(cmd, "--write '%s': expected 1..%d octets",
				  arg, WRITE_MAX);
		break;
	case OPT_LOOKUPS:
		ca->lookups = parse_count("--lookups", arg);
		ca->have_lookups = true;
		if (ca->lookups < 0 || ca->lookups > LOOKUPS_MAX)
			cmd_error(cmd, "--lookups '%s': expected 0..%d pairs",
				  arg, LOOKUPS_MAX);
		break;
	case OPT_WRITE_COPY:
		ca->write_copy = arg;
		break;
	case OPT_RDMA_VERSION:
		ca->rdma_version = parse_u32(cmd, "--rdma-version", arg);
		break;
	case OPT_RDMA_PROC:
		ca->rdma_proc = parse_u32(cmd, "--rdma-proc", arg);
		break;
	case OPT_PZRC:
		ca->pzrc = true;
		break;
	case OPT_READ_SKEW: {
		char *end;
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || !v || v > READ_SKEW_MAX ||
		    v < -READ_SKEW_MAX)
			cmd_error(cmd, "--read-skew '%s': expected -%d..%d octets, not 0",
				  arg, READ_SKEW_MAX, READ_SKEW_MAX);
		ca->read_skew = (int)v;
		break;
	}
	case OPT_READ_CHUNK_LEN:
		ca->read_chunk_len = parse_size("--read-chunk-len", arg);
		if (!ca->read_chunk_len || ca->read_chunk_len > READ_CHUNK_LEN_MAX)
			cmd_error(cmd, "--read-chunk-len '%s': expected 1..%d octets",
				  arg, READ_CHUNK_LEN_MAX);
		break;
	case OPT_REPLY_CHUNK:
		ca->reply_chunk = parse_count("--reply-chunk", arg);
		if (ca->reply_chunk < 1 || ca->reply_chunk > REPLY_CHUNK_SEGS_MAX)
			cmd_error(cmd, "--reply-chunk '%s': expected 1..%d segments",
				  arg, REPLY_CHUNK_SEGS_MAX);
		break;
	}
}

static const struct option call_table[] = {
	RPCRDMA_CM_OPTIONS,
	{ "proc",		required_argument,	NULL, OPT_PROC },
	{ "reply-size",		required_argument,	NULL, OPT_REPLY_SIZE },
	{ "post-size",		required_argument,	NULL, OPT_POST_SIZE },
	{ "then-null",		no_argument,		NULL, OPT_THEN_NULL },
	{ "reply-chunk",	required_argument,	NULL, OPT_REPLY_CHUNK },
	{ "read-chunks",	required_argument,	NULL, OPT_READ_CHUNKS },
	{ "inline-pad",		required_argument,	NULL, OPT_INLINE_PAD },
	{ "write",		required_argument,	NULL, OPT_WRITE },
	{ "lookups",		required_argument,	NULL, OPT_LOOKUPS },
	{ "write-copy",		required_argument,	NULL, OPT_WRITE_COPY },
	{ "rdma-version",	required_argument,	NULL, OPT_RDMA_VERSION },
	{ "rdma-proc",		required_argument,	NULL, OPT_RDMA_PROC },
	{ "pzrc",		no_argument,		NULL, OPT_PZRC },
	{ "read-skew",		required_argument,	NULL, OPT_READ_SKEW },
	{ "read-chunk-len",	required_argument,	NULL, OPT_READ_CHUNK_LEN },
	{ NULL, 0, NULL, 0 }
};

static const struct cmd_opts call_opts = {
	.table	= call_table,
	.own	= call_option,
};

static const char usage_text[] =
"Usage: " PROG " [--json] HOST [PORT] [OPTIONS]\n"
"\n"
"  HOST [PORT] [--send BYTES] [--recv BYTES] [--no-remote-invalidate]\n"
"  [--none | --raw HEX] [--proc readdir|create|null|write]\n"
"  [--reply-size BYTES]\n"
"  [--then-null] [--post-size BYTES] [--reply-chunk SEGMENTS]\n"
"  [--read-chunks N] [--inline-pad BYTES] [--write BYTES]\n"
"  [--lookups N] [--write-copy FILE] [--rdma-version N] [--rdma-proc N]\n"
"  [--pzrc] [--read-skew BYTES] [--read-chunk-len BYTES]\n"
"  [--timeout SECONDS] [--count N] [--hold SECONDS]\n"
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
"      --proc write: NFSv4.0 COMPOUND { PUTROOTFH; --lookups N (0..23)\n"
"      times LOOKUP of a directory of 255 'p's and LOOKUPP; LOOKUP\n"
"      " WRITE_FILE "; WRITE } with the anonymous stateid, offset 0,\n"
"      FILE_SYNC4, of --write BYTES (1..262144, default 4096) octets,\n"
"      inline: each pair puts 268 octets of arguments before the data.\n"
"      The whole call must fit the server's Receive Size.\n"
"      Word i of the data is 0xa5000000 | i (big-endian); --write-copy\n"
"      saves the data to FILE, to compare with what the server wrote.\n"
"      --then-null: once the first call has its answer, send a NULL on\n"
"      the same connection, to show whether the connection survived.\n"
"      --post-size: post Receive buffers of this size (1..1048576)\n"
"      instead, whatever the Private Data says.\n"
"      --reply-chunk: offer a Reply chunk of SEGMENTS (1..128) segments\n"
"      of 512 octets with each COMPOUND, and report how much of it the\n"
"      server wrote; a reply that comes there is decoded from it. Needs\n"
"      --no-remote-invalidate or --none: the chunk cannot be invalidated.\n"
"      --inline-pad: with --proc null, put BYTES (a multiple of 4, up to\n"
"      262144) of zeros after the call's arguments, inline.\n"
"      --read-chunks: with --proc null, send N (1..16) data-item Read\n"
"      chunks of 4 octets each after the inline part (RFC 8166, Section 3.4),\n"
"      one after the other: the server must pull them and answer the\n"
"      NULL. Needs --no-remote-invalidate or --none, as --reply-chunk.\n"
"      --rdma-version, --rdma-proc: send the first call with this rdma_vers\n"
"      or rdma_proc (0..4294967295) in its transport header, everything\n"
"      else as usual: a server must answer RDMA_ERROR (RFC 8166, Section\n"
"      4.5) where it cannot take the call.\n"
"      --pzrc: send the first call as an RDMA_NOMSG whose whole RPC\n"
"      message is in a Read chunk at position zero (RFC 8166, Section\n"
"      3.5.3), one segment in memory the server may RDMA Read; needs\n"
"      --no-remote-invalidate or --none, as --reply-chunk.\n"
"      --read-skew: add BYTES (-65536..65536, not 0) to the last Read\n"
"      chunk's position: a gap in the XDR stream, an overlap with the\n"
"      chunk before, or a misaligned position, which a server must\n"
"      refuse. --read-chunk-len: BYTES (1..64, default 4) in each Read\n"
"      chunk; the next one's position counts its XDR roundup.\n"
"      --count: open N (1..1024) connections one after another, each\n"
"      making its calls before the next opens; --hold: then keep them\n"
"      all this long (or until SIGINT or SIGTERM) before leaving, so\n"
"      that what a server keeps per connection can be measured. A\n"
"      connection the server ends while held is an error (status 5).\n"
"      Default timeout: 10 seconds per step and per call.\n"
"\n"
"Options:\n"
"  --json                   one JSON object per event, one a line\n"
"  --send BYTES             largest Send we will post (Private Data)\n"
"  --recv BYTES             largest Receive we accept (Private Data)\n"
"  --no-remote-invalidate   clear the R bit (default: set)\n"
"  --none, --raw HEX        send no Private Data, or these octets\n"
"  -h, --help               show this help and exit\n"
"  --version                show the version and exit\n"
"\n"
"BYTES is a decimal number of octets, or a number followed by K.\n"
"\n"
"JSON keys:\n"
"  one object per event, one per line; 'event' is established, error,\n"
"  sent, reply, recv_error, send_error, disconnected, not_sent, held\n"
"  (connections seconds) or warning.\n"
"  Every call event has call (readdir, create, null) and xid.\n"
"             sent: send_len reply_size [reply_chunk_segments]\n"
"             [create_name] [read_chunks inline_pad read_chunk_len\n"
"             [read_skew]]\n"
"             [write_size lookups data_offset] [rdma_version rdma_proc]\n"
"             [pzrc_len].\n"
"             reply: posted_size byte_len with_invalidate [invalidated_rkey]\n"
"             [reply_chunk_written] [reply_chunk_len]\n"
"             well_formed [problem] and what could be decoded of\n"
"             rdma_xid xid_match rdma_version rdma_credits rdma_type\n"
"             rdma_proc; RDMA_ERROR: rdma_error rdma_error_code\n"
"             [rdma_vers_low rdma_vers_high]; RDMA_MSG: rpc_reply_stat,\n"
"             then rpc_accept_stat or rpc_reject_stat [rpc_auth_stat]\n"
"             [rpc_low rpc_high]; a COMPOUND: nfs_status nfs_results\n"
"             [create_status] [readdir_status readdir_entries readdir_eof]\n"
"             [failed_op] [write_status write_count write_committed].\n"
"             recv_error, send_error: posted_size wc_status\n"
"             wc_status_code vendor_err, or detail; disconnected,\n"
"             not_sent: detail.\n"
"\n"
"Exit status: 0 when every call got a well-formed reply, 2 on a usage\n"
"error, 3 when the address or route cannot be resolved, 4 when the\n"
"server rejects the connection, 5 when it is unreachable, 6 on a\n"
"timeout, 7 when there is no RDMA device or a local failure, 8 when a\n"
"call got a Receive error, lost its connection or got a malformed\n"
"reply.\n";

void print_usage(void)
{
	fputs(usage_text, stdout);
}

/*
 * call: a minimal RPC-over-RDMA version 1 client (RFC 8166)
 *
 * Each call goes inline in an RDMA_MSG with no chunks, so the server has
 * one way to answer: a Send into one of our Receive buffers, which are
 * exactly as large as we said (RFC 8797), or an RDMA_ERROR. A server
 * that Sends more than that makes our Receive fail with a local length
 * error, and with it the connection; that is what call is there to show.
 */

#define CALL_RECVS		QP_DEPTH	/* Receives posted, and credits asked */
#define CALLS_MAX		2		/* the call and --then-null */
#define CALL_COUNT_MAX		HOLD_MAX	/* --count */
#define CALL_FDS		2		/* a connection's event and
						 * completion channels */
#define CALL_SEND_MAX		4096		/* room for a call with 128 Reply
					 * chunk segments, about 2.3 KB */
#define REPLY_SIZE_DEFAULT	8192
#define SEND_WR_ID		0x100		/* | call number; Receives: buffer index */

/* RFC 8166: the RPC-over-RDMA version 1 header */
#define RPCRDMA_VERSION		1
enum rdma_proc { RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR };
enum { ERR_VERS = 1, ERR_CHUNK = 2 };

/* RFC 5531: ONC RPC */
enum { RPC_CALL, RPC_REPLY };
#define RPC_VERSION		2
enum { AUTH_NONE, AUTH_SYS };
enum { MSG_ACCEPTED, MSG_DENIED };
enum { RPC_MISMATCH, AUTH_ERROR };
#define RPC_AUTH_BODY_MAX	400
enum { SUCCESS, PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS,
       SYSTEM_ERR };

/* RFC 7530: NFSv4.0 */
#define NFS_PROGRAM		100003
#define NFS_VERSION		4
enum { NFSPROC4_NULL, NFSPROC4_COMPOUND };
#define OP_CREATE		6
#define OP_LOOKUP		15
#define OP_LOOKUPP		16
#define OP_PUTROOTFH		24
#define OP_READDIR		26
#define OP_WRITE		38
#define FILE_SYNC4		2
#define NF4DIR			2
#define NFS4_OPAQUE_MAX		4096	/* for tags and names we skip */

static const char *const rdma_proc_names[] = {
	[RDMA_MSG] = "RDMA_MSG", [RDMA_NOMSG] = "RDMA_NOMSG",
	[RDMA_MSGP] = "RDMA_MSGP", [RDMA_DONE] = "RDMA_DONE",
	[RDMA_ERROR] = "RDMA_ERROR",
};

static const char *const accept_stat_names[] = {
	[SUCCESS] = "SUCCESS", [PROG_UNAVAIL] = "PROG_UNAVAIL",
	[PROG_MISMATCH] = "PROG_MISMATCH", [PROC_UNAVAIL] = "PROC_UNAVAIL",
	[GARBAGE_ARGS] = "GARBAGE_ARGS", [SYSTEM_ERR] = "SYSTEM_ERR",
};

static const char *const auth_stat_names[] = {
	"AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
	"AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP", "AUTH_FAILED",
};

#define NAME_OF(names, v, buf) \
	((v) < sizeof(names) / sizeof(names[0]) && names[v] ? names[v] : \
	 (snprintf(buf, sizeof(buf), "%u", (unsigned int)(v)), buf))

struct call_desc {
	const char	*name;
	u32		proc;		/* NFSv4 procedure */
};

static const struct call_desc call_readdir = { "readdir", NFSPROC4_COMPOUND };
static const struct call_desc call_create = { "create", NFSPROC4_COMPOUND };
static const struct call_desc call_null = { "null", NFSPROC4_NULL };
static const struct call_desc call_write = { "write", NFSPROC4_COMPOUND };

/*
 * call --reply-chunk: a Reply chunk of @segs segments of
 * REPLY_CHUNK_SEG_LEN octets, one after the other in memory the server
 * may RDMA Write, offered with every COMPOUND
 */
struct reply_chunk {
	u32	rkey;
	u64	addr;
	int	segs;
};

/*
 * call --read-chunks, --inline-pad: @count data-item Read chunks of
 * READ_CHUNK_LEN octets, one after the other in memory the server may
 * RDMA Read, after @pad octets of zeros that follow the arguments
 * inline. Sent with the first call only.
 */
struct read_chunks {
	u32	rkey;
	u64	addr;
	int	count;
	u32	pad;
	int	skew;	/* --read-skew: added to the last position */
	u32	len;	/* --read-chunk-len: octets in each chunk */
};

/*
 * What the first call's transport header says beyond the others':
 * --rdma-version and --rdma-proc; with --pzrc, its RPC message goes in
 * @pz_buf (@pz_size octets, registered for RDMA Read at @pz_addr with
 * @pz_rkey), a Read chunk at position zero, and @pz_len says how much
 * of it the call took
 */
struct first_call {
	u32	vers;
	u32	proc;
	bool	pzrc;
	u8	*pz_buf;
	size_t	pz_size;
	u32	pz_rkey;
	u64	pz_addr;
	u32	pz_len;
};

/*
 * call --proc write: @size octets of data after @lookups LOOKUP and
 * LOOKUPP pairs; @data_offset is where the data starts in the RPC
 * message, once the call is encoded
 */
struct write_args {
	u32	size;
	int	lookups;
	u32	data_offset;
};

/* Word i of the data of --proc write: 0xa5000000 | i, big-endian */
static void write_data(u8 *p, u32 size)
{
	u32 i;

	for (i = 0; i < size; i++) {
		u32 w = 0xa5000000 | (i / 4);

		p[i] = w >> (24 - 8 * (i % 4));
	}
}

/* The directory that call @xid of --proc create makes in the root */
static void create_name(char *name, size_t size, u32 xid)
{
	snprintf(name, size, "rpcrdma-cm-%08x", xid);
}

/*
 * The Read list of @rd for a call whose inline RPC message is @rpc_len
 * octets long: chunk i, of @rd->len octets, sits at XDR position
 * @rpc_len + i * the XDR roundup of @rd->len (RFC 8166, Section 3.4:
 * the position counts the data items before it, each rounded up to
 * XDR's four octets), the last moved by @rd->skew; a chunk of one
 * segment each
 */
static void put_read_list(struct xdr_out *x, const struct read_chunks *rd,
			  u32 rpc_len)
{
	int i;

	for (i = 0; i < rd->count; i++) {
		u32 step = (rd->len + 3) & ~3U;
		u64 addr = rd->addr + (u64)i * step;
		u32 pos = rpc_len + i * step;

		if (i == rd->count - 1)
			pos += rd->skew;
		put32(x, 1);	/* a Read segment follows */
		put32(x, pos);
		put32(x, rd->rkey);
		put32(x, rd->len);
		put32(x, (u32)(addr >> 32));
		put32(x, (u32)addr);
	}
	put32(x, 0);		/* end of the Read list */
}

/* @fc's position-zero Read chunk: one segment of its @pz_len octets */
static void put_pzrc_list(struct xdr_out *x, const struct first_call *fc)
{
	put32(x, 1);		/* a Read segment follows */
	put32(x, 0);		/* at position zero */
	put32(x, fc->pz_rkey);
	put32(x, fc->pz_len);
	put32(x, (u32)(fc->pz_addr >> 32));
	put32(x, (u32)fc->pz_addr);
	put32(x, 0);		/* end of the Read list */
}

/*
 * Encode a call: the RPC-over-RDMA header of an RDMA_MSG with an empty
 * Write list, a Read list when @rd has chunks, and a Reply chunk when
 * @rc has segments, then the RPC call (and @rd's pad). The first call
 * has @fc, which may change the header and move the RPC call to a
 * position-zero Read chunk. Returns what goes in the Send, 0 if it
 * does not fit.
 */
static size_t encode_call(u8 *buf, size_t size, const struct call_desc *cd,
			  u32 xid, u32 reply_size, const struct reply_chunk *rc,
			  const struct read_chunks *rd, struct write_args *wa,
			  struct first_call *fc)
{
	struct xdr_out x = { .p = buf, .end = buf + size };
	u8 *len_p, *body, *rpc;
	size_t hdr_len = 0;
	char name[32];

	put32(&x, xid);
	put32(&x, fc ? fc->vers : RPCRDMA_VERSION);
	put32(&x, CALL_RECVS);
	put32(&x, fc ? fc->proc : RDMA_MSG);
	if (fc && fc->pzrc) {
		/* One segment and the list's end, filled in last */
		hdr_len = (size_t)(x.p - buf) + 24 + 4;
		if (hdr_len > size)
			return 0;
		x.p = buf + hdr_len;
	} else if (rd && rd->count) {
		/* The positions depend on the RPC message's length:
		 * leave room for the list (a segment is six words,
		 * then the list's end), and fill it in last
		 */
		hdr_len = (size_t)(x.p - buf) + (size_t)rd->count * 24 + 4;
		if (hdr_len > size)
			return 0;
		x.p = buf + hdr_len;
	} else {
		put32(&x, 0);	/* Read list: empty */
	}
	put32(&x, 0);		/* Write list: empty */
	if (rc->segs && cd->proc == NFSPROC4_COMPOUND) {
		int i;

		put32(&x, 1);	/* Reply chunk: present */
		put32(&x, rc->segs);
		for (i = 0; i < rc->segs; i++) {
			u64 addr = rc->addr + (u64)i * REPLY_CHUNK_SEG_LEN;

			put32(&x, rc->rkey);
			put32(&x, REPLY_CHUNK_SEG_LEN);
			put32(&x, (u32)(addr >> 32));
			put32(&x, (u32)addr);
		}
	} else {
		put32(&x, 0);	/* Reply chunk: none */
	}

	rpc = x.p;
	put32(&x, xid);
	put32(&x, RPC_CALL);
	put32(&x, RPC_VERSION);
	put32(&x, NFS_PROGRAM);
	put32(&x, NFS_VERSION);
	put32(&x, cd->proc);
	if (cd->proc == NFSPROC4_COMPOUND) {
		/* AUTH_SYS as root: the body's length is filled in after it */
		put32(&x, AUTH_SYS);
		len_p = xdr_reserve(&x, 4);
		body = x.p;
		put32(&x, (u32)time(NULL));
		put_opaque(&x, PROG, strlen(PROG));
		put32(&x, 0);		/* uid */
		put32(&x, 0);		/* gid */
		put32(&x, 0);		/* no other groups */
		if (len_p) {
			struct xdr_out l = { .p = len_p, .end = len_p + 4 };

			put32(&l, x.p - body);
		}
	} else {
		put32(&x, AUTH_NONE);
		put32(&x, 0);
	}
	put32(&x, AUTH_NONE);	/* verifier */
	put32(&x, 0);

	if (cd->proc == NFSPROC4_COMPOUND) {
		put32(&x, 0);		/* tag: empty */
		put32(&x, 0);		/* minorversion */
		if (cd == &call_write) {
			char dir[LOOKUP_DIR_LEN];
			int i;
			u8 *data;

			memset(dir, 'p', sizeof(dir));
			put32(&x, 3 + 2 * wa->lookups);	/* operations */
			put32(&x, OP_PUTROOTFH);
			for (i = 0; i < wa->lookups; i++) {
				put32(&x, OP_LOOKUP);
				put_opaque(&x, dir, sizeof(dir));
				put32(&x, OP_LOOKUPP);
			}
			put32(&x, OP_LOOKUP);
			put_opaque(&x, WRITE_FILE, strlen(WRITE_FILE));
			put32(&x, OP_WRITE);
			/* The anonymous stateid: seqid and other[12], zeros */
			for (i = 0; i < 4; i++)
				put32(&x, 0);
			put32(&x, 0);		/* offset */
			put32(&x, 0);
			put32(&x, FILE_SYNC4);
			put32(&x, wa->size);
			wa->data_offset = (u32)(x.p - rpc);
			data = xdr_reserve(&x, (wa->size + 3) & ~3U);
			if (data) {
				write_data(data, wa->size);
				memset(data + wa->size, 0,
				       ((wa->size + 3) & ~3U) - wa->size);
			}
			goto out;
		}
		if (cd == &call_create) {
			/* A directory, then the READDIR that makes the
			 * reply large: the server creates it before it
			 * finds that the reply does not fit
			 */
			create_name(name, sizeof(name), xid);
			put32(&x, 4);	/* operations */
			put32(&x, OP_PUTROOTFH);
			put32(&x, OP_CREATE);
			put32(&x, NF4DIR);
			put_opaque(&x, name, strlen(name));
			put32(&x, 0);	/* createattrs: empty bitmap */
			put32(&x, 0);	/* and no values */
		} else {
			put32(&x, 2);	/* operations */
		}
		put32(&x, OP_PUTROOTFH);
		put32(&x, OP_READDIR);
		put32(&x, 0);		/* cookie */
		put32(&x, 0);
		put32(&x, 0);		/* cookieverf */
		put32(&x, 0);
		put32(&x, reply_size);	/* dircount */
		put32(&x, reply_size);	/* maxcount */
		put32(&x, 0);		/* attr_request: no attributes */
	}
out:
	if (rd && (rd->count || rd->pad)) {
		u8 *pad = xdr_reserve(&x, rd->pad);

		if (pad)
			memset(pad, 0, rd->pad);
	}
	if (x.overflow)
		return 0;
	if (fc && fc->pzrc) {
		/* The RPC call goes to the chunk; the Send is the header */
		struct xdr_out l = { .p = buf + 16, .end = buf + hdr_len };
		size_t len = (size_t)(x.p - rpc);

		if (len > fc->pz_size)
			return 0;
		memcpy(fc->pz_buf, rpc, len);
		fc->pz_len = (u32)len;
		put_pzrc_list(&l, fc);
		if (l.overflow || l.p != l.end)
			return 0;
		return (size_t)(rpc - buf);
	}
	if (rd && rd->count) {
		/* The Read list goes in the room left for it */
		struct xdr_out l = { .p = buf + 16, .end = buf + hdr_len };

		put_read_list(&l, rd, (u32)(x.p - rpc));
		if (l.overflow || l.p != l.end)
			return 0;
	}
	return (size_t)(x.p - buf);
}

/*
 * Chunk lists of a reply: a server uses only those the call offered,
 * here at most the Reply chunk; @written is what it says it wrote there
 */
static const char *decode_chunks(struct xdr_in *x, bool offered,
				 unsigned long long *written)
{
	int chunks = 0;
	u32 d, n, i;

	while ((d = get32(x)) == 1) {	/* Read list: position, segment */
		skip(x, 5 * 4);
		chunks++;
	}
	if (d)
		return "bad Read list discriminator";
	while ((d = get32(x)) == 1) {	/* Write list: counted segments */
		n = get32(x);
		skip(x, (unsigned long long)n * 16);
		chunks++;
	}
	if (d)
		return "bad Write list discriminator";
	*written = 0;
	d = get32(x);			/* Reply chunk */
	if (d == 1) {
		n = get32(x);
		for (i = 0; i < n && !x->ended; i++) {
			get32(x);	/* handle */
			*written += get32(x);
			skip(x, 8);	/* offset */
		}
		if (!offered)
			chunks++;
	} else if (d) {
		return "bad Reply chunk discriminator";
	}
	if (x->ended)
		return "truncated in the chunk lists";
	if (chunks)
		return "the reply lists chunks the call never offered";
	return NULL;
}

/* The results of PUTROOTFH, CREATE and READDIR in a COMPOUND reply */
static const char *decode_compound(struct xdr_in *x, struct out_rec *fs)
{
	u32 i, n, op, status, vf, words, entries = 0;

	out_num(fs, "nfs_status", get32(x));
	if (!skip_opaque(x, NFS4_OPAQUE_MAX))
		return "COMPOUND tag too long";
	n = get32(x);
	if (x->ended)
		return "truncated COMPOUND reply";
	out_num(fs, "nfs_results", n);
	for (i = 0; i < n && !x->ended; i++) {
		op = get32(x);
		status = get32(x);
		if (x->ended)
			break;
		if (op == OP_PUTROOTFH || op == OP_LOOKUP || op == OP_LOOKUPP) {
			if (!status)
				continue;
			out_num(fs, "failed_op", op);
			break;
		}
		if (op == OP_WRITE) {
			out_num(fs, "write_status", status);
			if (status)
				break;
			out_num(fs, "write_count", get32(x));
			out_num(fs, "write_committed", get32(x));
			skip(x, 8);		/* writeverf */
			break;
		}
		if (op == OP_CREATE) {
			out_num(fs, "create_status", status);
			if (status)
				break;
			skip(x, 4 + 8 + 8);	/* change_info4 */
			words = get32(x);	/* attrset */
			skip(x, (unsigned long long)words * 4);
			continue;
		}
		if (op != OP_READDIR)
			return "unexpected operation in the COMPOUND reply";
		out_num(fs, "readdir_status", status);
		if (status)
			break;
		skip(x, 8);		/* cookieverf */
		while ((vf = get32(x)) == 1) {
			skip(x, 8);	/* cookie */
			if (!skip_opaque(x, NFS4_OPAQUE_MAX))
				return "READDIR entry name too long";
			words = get32(x);	/* attribute bitmap */
			skip(x, (unsigned long long)words * 4);
			if (!skip_opaque(x, UINT32_MAX))
				return "bad READDIR attributes";
			entries++;
		}
		if (vf)
			return "bad READDIR entry list";
		vf = get32(x);
		if (x->ended)
			break;
		out_num(fs, "readdir_entries", entries);
		out_bool(fs, "readdir_eof", vf);
		break;
	}
	return x->ended ? "truncated COMPOUND reply" : NULL;
}

/* The RPC reply that follows an RDMA_MSG header */
static const char *decode_rpc_reply(struct xdr_in *x, u32 xid,
				    const struct call_desc *cd,
				    struct out_rec *fs)
{
	u32 rxid, type, stat, v;
	char buf[16];

	rxid = get32(x);
	type = get32(x);
	stat = get32(x);
	if (x->ended)
		return "truncated RPC reply header";
	if (rxid != xid)
		return "the RPC xid differs from the RPC-over-RDMA xid";
	if (type != RPC_REPLY)
		return "not an RPC reply";
	if (stat == MSG_DENIED) {
		out_str(fs, "rpc_reply_stat", "MSG_DENIED");
		v = get32(x);
		if (v == RPC_MISMATCH) {
			out_str(fs, "rpc_reject_stat", "RPC_MISMATCH");
			out_num(fs, "rpc_low", get32(x));
			out_num(fs, "rpc_high", get32(x));
		} else if (v == AUTH_ERROR) {
			out_str(fs, "rpc_reject_stat", "AUTH_ERROR");
			v = get32(x);
			out_str(fs, "rpc_auth_stat", NAME_OF(auth_stat_names, v, buf));
		} else {
			return "bad reject_stat";
		}
		return x->ended ? "truncated RPC reply" : NULL;
	}
	if (stat != MSG_ACCEPTED)
		return "bad reply_stat";
	out_str(fs, "rpc_reply_stat", "MSG_ACCEPTED");
	get32(x);			/* verifier flavor */
	if (!skip_opaque(x, RPC_AUTH_BODY_MAX))
		return "verifier too long";
	v = get32(x);
	if (x->ended)
		return "truncated RPC reply";
	out_str(fs, "rpc_accept_stat", NAME_OF(accept_stat_names, v, buf));
	if (v == PROG_MISMATCH) {
		out_num(fs, "rpc_low", get32(x));
		out_num(fs, "rpc_high", get32(x));
	} else if (v == SUCCESS && cd->proc == NFSPROC4_COMPOUND) {
		return decode_compound(x, fs);
	}
	return x->ended ? "truncated RPC reply" : NULL;
}

/*
 * Decode what arrived for call @xid, sent with rdma_vers @call_vers, at
 * most @len octets of @buf, into @fs. Returns NULL for a well-formed
 * reply or RDMA_ERROR, else what is wrong with it. An RDMA_ERROR may
 * carry either version 1 or the call's own rdma_vers: RFC 8166 says
 * nothing of which.
 */
static const char *decode_reply(const u8 *buf, size_t len, u32 xid,
				u32 call_vers, const struct call_desc *cd,
				struct out_rec *fs, const u8 *chunk,
				size_t chunk_size)
{
	unsigned long long written;
	struct xdr_in x = { .p = buf, .left = len };
	u32 rxid, vers, credits, proc, err;
	char name[16];

	rxid = get32(&x);
	vers = get32(&x);
	credits = get32(&x);
	proc = get32(&x);
	if (x.ended)
		return "shorter than an RPC-over-RDMA header";
	out_fmt(fs, "rdma_xid", "0x%08" PRIx32, rxid);
	out_bool(fs, "xid_match", rxid == xid);
	out_num(fs, "rdma_version", vers);
	out_num(fs, "rdma_credits", credits);
	out_str(fs, "rdma_type", NAME_OF(rdma_proc_names, proc, name));
	out_num(fs, "rdma_proc", proc);
	if (vers != RPCRDMA_VERSION &&
	    (proc != RDMA_ERROR || vers != call_vers))
		return "not RPC-over-RDMA version 1";
	if (rxid != xid)
		return "the xid answers no call of ours";

	switch (proc) {
	case RDMA_ERROR:
		err = get32(&x);
		if (x.ended)
			return "truncated RDMA_ERROR";
		out_str(fs, "rdma_error", err == ERR_VERS ? "ERR_VERS" :
		     err == ERR_CHUNK ? "ERR_CHUNK" : "unknown");
		out_num(fs, "rdma_error_code", err);
		if (err == ERR_VERS) {
			out_num(fs, "rdma_vers_low", get32(&x));
			out_num(fs, "rdma_vers_high", get32(&x));
			if (x.ended)
				return "truncated RDMA_ERROR";
		} else if (err != ERR_CHUNK) {
			return "unknown RDMA_ERROR code";
		}
		return NULL;
	case RDMA_MSG: {
		const char *problem = decode_chunks(&x, false, &written);

		return problem ? problem : decode_rpc_reply(&x, xid, cd, fs);
	}
	case RDMA_NOMSG: {
		const char *problem;
		struct xdr_in rpc;

		if (!chunk)
			return "RDMA_NOMSG: the call offered no Reply chunk";
		problem = decode_chunks(&x, true, &written);
		if (problem)
			return problem;
		out_num(fs, "reply_chunk_len", written);
		if (!written || written > chunk_size)
			return "RDMA_NOMSG: a Reply chunk length that cannot be";
		rpc.p = chunk;
		rpc.left = written;
		rpc.ended = false;
		return decode_rpc_reply(&rpc, xid, cd, fs);
	}
	case RDMA_MSGP:
	case RDMA_DONE:
		return "a message type RFC 8166 does not allow here";
	default:
		return "unknown message type";
	}
}

struct caller {
	struct probe		p;
	struct ibv_pd		*pd;
	struct ibv_comp_channel	*cc;
	struct ibv_cq		*cq;
	struct ibv_mr		*recv_mr, *send_mr, *chunk_mr, *read_mr;
	u8			*recv_buf;	/* CALL_RECVS buffers of post_size */
	u8			*chunk_buf;	/* the Reply chunk's memory */
	u8			*read_buf;	/* the Read chunks' memory */
	struct reply_chunk	rchunk;
	struct read_chunks	rdchunks;
	struct first_call	first;
	struct ibv_mr		*pz_mr;		/* first.pz_buf's */
	struct write_args	wargs;
	u8			*send_buf;	/* CALLS_MAX buffers of send_max */
	size_t			send_max;
	u32			post_size;
	bool			disconnected;	/* the CM said so */
	char			cm_event[48];	/* ... and how */
	const char		*down;		/* why no call can go out */
};

static void caller_release(struct caller *c)
{
	probe_destroy_qp(&c->p);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->chunk_mr)
		ibv_dereg_mr(c->chunk_mr);
	if (c->read_mr)
		ibv_dereg_mr(c->read_mr);
	if (c->pz_mr)
		ibv_dereg_mr(c->pz_mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->recv_buf);
	free(c->chunk_buf);
	free(c->read_buf);
	free(c->first.pz_buf);
	free(c->send_buf);
	probe_release(&c->p);
}

static int post_recv(struct caller *c, unsigned int i)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)(c->recv_buf + (size_t)i * c->post_size);
	sge.length = c->post_size;
	sge.lkey = c->recv_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(c->p.id->qp, &wr, &bad);
}

static int local_failure(const char *what, int err)
{
	char detail[128];

	snprintf(detail, sizeof(detail), "%s: %s", what, strerror(err));
	report_error("local", detail);
	return EXIT_LOCAL;
}

/*
 * Protection domain, CQ with its channel, buffers and QP, with every
 * Receive posted before we connect, so that no reply can find none.
 */
static int caller_setup(struct caller *c)
{
	struct ibv_context *verbs = c->p.id->verbs;
	unsigned int i;
	int rc;

	c->pd = ibv_alloc_pd(verbs);
	if (!c->pd)
		return local_failure("ibv_alloc_pd", errno);
	c->cc = ibv_create_comp_channel(verbs);
	if (!c->cc)
		return local_failure("ibv_create_comp_channel", errno);
	c->cq = ibv_create_cq(verbs, 2 * QP_DEPTH, NULL, c->cc, 0);
	if (!c->cq)
		return local_failure("ibv_create_cq", errno);
	rc = ibv_req_notify_cq(c->cq, 0);
	if (rc)
		return local_failure("ibv_req_notify_cq", rc);
	c->recv_buf = calloc(CALL_RECVS, c->post_size);
	if (!c->recv_buf)
		return local_failure("Receive buffers", ENOMEM);
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf,
				(size_t)CALL_RECVS * c->post_size,
				IBV_ACCESS_LOCAL_WRITE);
	if (!c->recv_mr)
		return local_failure("ibv_reg_mr", errno);
	c->send_max = CALL_SEND_MAX + c->rdchunks.pad + c->wargs.size +
		      (size_t)c->wargs.lookups * (LOOKUP_DIR_LEN + 13);
	c->send_buf = calloc(CALLS_MAX, c->send_max);
	if (!c->send_buf)
		return local_failure("Send buffers", ENOMEM);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf, CALLS_MAX * c->send_max, 0);
	if (!c->send_mr)
		return local_failure("ibv_reg_mr", errno);
	if (c->rdchunks.count) {
		size_t size = (size_t)c->rdchunks.count * ((c->rdchunks.len + 3) & ~3U);

		c->read_buf = malloc(size);
		if (!c->read_buf)
			return local_failure("the Read chunks", ENOMEM);
		memset(c->read_buf, READ_CHUNK_FILL, size);
		c->read_mr = ibv_reg_mr(c->pd, c->read_buf, size,
					IBV_ACCESS_REMOTE_READ);
		if (!c->read_mr)
			return local_failure("ibv_reg_mr", errno);
		c->rdchunks.rkey = c->read_mr->rkey;
		c->rdchunks.addr = (uintptr_t)c->read_buf;
	}
	if (c->first.pzrc) {
		c->first.pz_size = c->send_max;
		c->first.pz_buf = calloc(1, c->first.pz_size);
		if (!c->first.pz_buf)
			return local_failure("the position-zero chunk", ENOMEM);
		c->pz_mr = ibv_reg_mr(c->pd, c->first.pz_buf, c->first.pz_size,
				      IBV_ACCESS_REMOTE_READ);
		if (!c->pz_mr)
			return local_failure("ibv_reg_mr", errno);
		c->first.pz_rkey = c->pz_mr->rkey;
		c->first.pz_addr = (uintptr_t)c->first.pz_buf;
	}
	if (c->rchunk.segs) {
		size_t size = (size_t)c->rchunk.segs * REPLY_CHUNK_SEG_LEN;

		c->chunk_buf = malloc(size);
		if (!c->chunk_buf)
			return local_failure("the Reply chunk", ENOMEM);
		c->chunk_mr = ibv_reg_mr(c->pd, c->chunk_buf, size,
					 IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE);
		if (!c->chunk_mr)
			return local_failure("ibv_reg_mr", errno);
		c->rchunk.rkey = c->chunk_mr->rkey;
		c->rchunk.addr = (uintptr_t)c->chunk_buf;
	}
	rc = create_qp(c->p.id, c->pd, c->cq);
	if (rc)
		return local_failure("creating a QP", -rc);
	c->p.qp = true;
	for (i = 0; i < CALL_RECVS; i++) {
		rc = post_recv(c, i);
		if (rc)
			return local_failure("ibv_post_recv", rc);
	}
	return 0;
}

/*
 * Sleep up to @ms for a completion or a CM event. A completion event
 * re-arms the CQ; the caller polls it. Returns 0 or a negative errno.
 */
static int caller_wait(struct caller *c, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = c->cc->fd, .events = POLLIN },
		{ .fd = c->p.ch->fd, .events = POLLIN },
	};
	struct rdma_cm_event *ev;
	struct ibv_cq *cq;
	void *ctx;
	int rc;

	rc = poll(pfd, 2, ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[0].revents & POLLIN) {
		if (ibv_get_cq_event(c->cc, &cq, &ctx))
			return -errno;
		ibv_ack_cq_events(cq, 1);
		rc = ibv_req_notify_cq(cq, 0);
		if (rc)
			return -rc;
	}
	if (pfd[1].revents & POLLIN) {
		if (rdma_get_cm_event(c->p.ch, &ev))
			return -errno;
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_ADDR_CHANGE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			c->disconnected = true;
			snprintf(c->cm_event, sizeof(c->cm_event), "%s",
				 rdma_event_str(ev->event));
			if (!c->down)
				c->down = c->cm_event;
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return 0;
}

static void call_fields(struct out_rec *fs, const char *event,
			const struct call_desc *cd, u32 xid)
{
	out_begin(fs);
	out_str(fs, "event", event);
	out_str(fs, "call", cd->name);
	out_fmt(fs, "xid", "0x%08" PRIx32, xid);
}

static int report_wc_error(struct caller *c, const char *event,
			   const struct call_desc *cd, u32 xid,
			   const struct ibv_wc *wc)
{
	struct out_rec fs;

	if (!c->down)
		c->down = "a work request failed: the QP is in the error state";
	call_fields(&fs, event, cd, xid);
	out_num(&fs, "posted_size", c->post_size);
	out_str(&fs, "wc_status", ibv_wc_status_str(wc->status));
	out_num(&fs, "wc_status_code", wc->status);
	out_num(&fs, "vendor_err", wc->vendor_err);
	out_print(&fs);
	return EXIT_PROTOCOL;
}

static int report_call_failure(const char *event, const struct call_desc *cd,
			       u32 xid, const char *detail)
{
	struct out_rec fs;

	call_fields(&fs, event, cd, xid);
	out_str(&fs, "detail", detail);
	out_print(&fs);
	return EXIT_PROTOCOL;
}

/*
 * Octets of the Reply chunk that no longer hold the fill pattern: what
 * the server RDMA Wrote there (an octet written with the pattern's
 * value goes uncounted, so a reply shows as a little shorter)
 */
static unsigned long long chunk_written(const struct caller *c)
{
	size_t i, size = (size_t)c->rchunk.segs * REPLY_CHUNK_SEG_LEN;
	unsigned long long n = 0;

	for (i = 0; i < size; i++)
		n += c->chunk_buf[i] != REPLY_CHUNK_FILL;
	return n;
}

/* A Receive completed: report what it holds, and post it again */
static int report_reply(struct caller *c, const struct call_desc *cd,
			u32 xid, u32 vers, const struct ibv_wc *wc)
{
	bool offered;
	size_t len = wc->byte_len < c->post_size ? wc->byte_len : c->post_size;
	const u8 *buf = c->recv_buf + (size_t)wc->wr_id * c->post_size;
	const char *problem;
	struct out_rec fs;
	int rc;

	call_fields(&fs, "reply", cd, xid);
	out_num(&fs, "posted_size", c->post_size);
	out_num(&fs, "byte_len", wc->byte_len);
	out_bool(&fs, "with_invalidate", wc->wc_flags & IBV_WC_WITH_INV);
	if (wc->wc_flags & IBV_WC_WITH_INV)
		out_fmt(&fs, "invalidated_rkey", "0x%08" PRIx32, wc->invalidated_rkey);
	offered = c->rchunk.segs && cd->proc == NFSPROC4_COMPOUND;
	problem = decode_reply(buf, len, xid, vers, cd, &fs,
			       offered ? c->chunk_buf : NULL,
			       (size_t)c->rchunk.segs * REPLY_CHUNK_SEG_LEN);
	if (offered)
		out_num(&fs, "reply_chunk_written", chunk_written(c));
	out_bool(&fs, "well_formed", !problem);
	if (problem)
		out_str(&fs, "problem", problem);
	out_print(&fs);

	rc = post_recv(c, wc->wr_id);
	if (rc) {
		if (!c->down)
			c->down = "a Receive could not be posted again";
		local_failure("reposting a Receive", rc);
	}
	return problem ? EXIT_PROTOCOL : 0;
}

/* Send one call and wait for what comes back */
static int call_one(struct caller *c, int n, const struct call_desc *cd,
		    u32 xid, u32 reply_size, int ms)
{
	struct ibv_send_wr wr, *bad;
	long long deadline;
	struct out_rec fs;
	struct ibv_sge sge;
	struct ibv_wc wc;
	char detail[128];
	size_t len;
	u8 *buf;
	int rc;

	buf = c->send_buf + (size_t)n * c->send_max;
	len = encode_call(buf, c->send_max, cd, xid, reply_size, &c->rchunk,
			  n ? NULL : &c->rdchunks, &c->wargs,
			  n ? NULL : &c->first);
	/* What the server RDMA Writes shows against this pattern */
	if (c->chunk_buf)
		memset(c->chunk_buf, REPLY_CHUNK_FILL,
		       (size_t)c->rchunk.segs * REPLY_CHUNK_SEG_LEN);
	if (!len)
		return local_failure("encoding the call", EOVERFLOW);
	if (c->down)
		return report_call_failure("not_sent", cd, xid, c->down);

	sge.addr = (uintptr_t)buf;
	sge.length = len;
	sge.lkey = c->send_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = SEND_WR_ID | n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	rc = ibv_post_send(c->p.id->qp, &wr, &bad);
	if (rc) {
		if (!c->down)
			c->down = "a Send could not be posted";
		snprintf(detail, sizeof(detail), "ibv_post_send: %s", strerror(rc));
		return report_call_failure("send_error", cd, xid, detail);
	}
	call_fields(&fs, "sent", cd, xid);
	out_num(&fs, "send_len", len);
	if (cd->proc == NFSPROC4_COMPOUND)
		out_num(&fs, "reply_size", reply_size);
	if (c->rchunk.segs && cd->proc == NFSPROC4_COMPOUND)
		out_num(&fs, "reply_chunk_segments", c->rchunk.segs);
	if (cd == &call_create) {
		char name[32];

		create_name(name, sizeof(name), xid);
		out_str(&fs, "create_name", name);
	}
	if (cd == &call_write) {
		out_num(&fs, "write_size", c->wargs.size);
		out_num(&fs, "lookups", c->wargs.lookups);
		out_num(&fs, "data_offset", c->wargs.data_offset);
	}
	if (!n && (c->rdchunks.count || c->rdchunks.pad)) {
		out_num(&fs, "read_chunks", c->rdchunks.count);
		out_num(&fs, "inline_pad", c->rdchunks.pad);
		out_num(&fs, "read_chunk_len", c->rdchunks.len);
		if (c->rdchunks.skew)
			out_int(&fs, "read_skew", c->rdchunks.skew);
	}
	if (!n && (c->first.vers != RPCRDMA_VERSION ||
		   c->first.proc != RDMA_MSG)) {
		out_num(&fs, "rdma_version", c->first.vers);
		out_num(&fs, "rdma_proc", c->first.proc);
	}
	if (!n && c->first.pzrc)
		out_num(&fs, "pzrc_len", c->first.pz_len);
	out_print(&fs);

	deadline = now_ms() + ms;
	for (;;) {
		long long left;

		rc = ibv_poll_cq(c->cq, 1, &wc);
		if (rc < 0)
			return local_failure("ibv_poll_cq", -rc);
		if (rc) {
			if (wc.wr_id & SEND_WR_ID) {
				if (wc.status != IBV_WC_SUCCESS)
					return report_wc_error(c, "send_error",
							       cd, xid, &wc);
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS)
				return report_wc_error(c, "recv_error", cd, xid,
						       &wc);
			return report_reply(c, cd, xid,
					    n ? RPCRDMA_VERSION : c->first.vers,
					    &wc);
		}
		if (c->disconnected)
			return report_call_failure("disconnected", cd, xid,
						   c->cm_event);
		left = deadline - now_ms();
		if (left <= 0) {
			snprintf(detail, sizeof(detail), "%s: no reply in %d s",
				 cd->name, ms / 1000);
			report_error("timeout", detail);
			return EXIT_TIMEOUT;
		}
		rc = caller_wait(c, (int)left);
		if (rc)
			return local_failure("waiting for a completion", -rc);
	}
}

/* --write-copy: save the data of --proc write to @path */
static int save_write_data(const char *path, u32 size)
{
	u8 *data = malloc(size);
	FILE *f;
	int err;

	if (!data)
		return local_failure(path, ENOMEM);
	write_data(data, size);
	f = fopen(path, "w");
	if (!f) {
		err = errno;
		free(data);
		return local_failure(path, err);
	}
	errno = 0;
	err = fwrite(data, 1, size, f) == size ? 0 : errno ? errno : EIO;
	errno = 0;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	free(data);
	return err ? local_failure(path, err) : 0;
}

/*
 * Leave as a well-behaved client would, on each of the @n connections of
 * @cs that the server has not already left: disconnect them all, then
 * wait up to @ms in all for the server to confirm.
 */
static void callers_disconnect(struct caller *cs, int n, int ms)
{
	long long deadline = now_ms() + ms;
	int i;

	for (i = 0; i < n; i++)
		if (!cs[i].disconnected)
			rdma_disconnect(cs[i].p.id);
	for (i = 0; i < n; i++) {
		struct caller *c = &cs[i];

		while (!c->disconnected) {
			long long left = deadline - now_ms();

			if (left <= 0 || caller_wait(c, (int)left)) {
				report_event("warning", "disconnect", n == 1 ?
					     "the server did not confirm the disconnect" :
					     "the server did not confirm every disconnect");
				return;
			}
		}
	}
}

/* Connect @c, starting over from @fresh while soft-iWARP finds the port in use */
static int caller_connect(struct caller *c, const struct caller *fresh,
			  const char *host, const char *port,
			  const struct pdata_out *out, int ms)
{
	int rc, try;

	for (try = 1; ; try++) {
		c->p.retry_addr_in_use = try < PROBE_CONNECT_TRIES;
		rc = probe_open(&c->p);
		if (!rc)
			rc = probe_resolve(&c->p, host, port, ms);
		if (!rc)
			rc = caller_setup(c);
		if (!rc)
			rc = probe_establish(&c->p, out, ms);
		if (rc != PROBE_ADDR_IN_USE)
			return rc;
		caller_release(c);
		*c = *fresh;
	}
}

static int cmd_call(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_REMOTE_INV,
				       OPT_NONE, OPT_RAW, OPT_TIMEOUT, OPT_PROC,
				       OPT_REPLY_SIZE, OPT_POST_SIZE,
				       OPT_THEN_NULL, OPT_REPLY_CHUNK,
				       OPT_READ_CHUNKS, OPT_INLINE_PAD,
				       OPT_WRITE, OPT_LOOKUPS, OPT_WRITE_COPY,
				       OPT_RDMA_VERSION, OPT_RDMA_PROC, OPT_PZRC,
				       OPT_READ_SKEW, OPT_READ_CHUNK_LEN, OPT_COUNT,
				       OPT_HOLD, 0 };
	const struct call_desc *calls[CALLS_MAX];
	struct caller *c, fresh, *cs;
	struct pdata_out out;
	struct call_args ca = { .rdma_version = -1, .rdma_proc = -1 };
	struct cmd_args a;
	int i, n = 0, ms, rc = 0, k, count, up;
	const char *port;
	u32 xid;

	parse_cmd_args(NULL, argc, argv, &call_opts, allowed, &a, &ca);
	if (a.argc < 1 || a.argc > 2)
		usage_error("give HOST and optionally PORT");
	port = port_arg(NULL, a.argc == 2 ? a.argv[1] : NULL);
	if (!ca.proc || !strcmp(ca.proc, "readdir"))
		calls[n++] = &call_readdir;
	else if (!strcmp(ca.proc, "create"))
		calls[n++] = &call_create;
	else if (!strcmp(ca.proc, "null"))
		calls[n++] = &call_null;
	else if (!strcmp(ca.proc, "write"))
		calls[n++] = &call_write;
	else
		usage_error("--proc '%s': expected readdir, create, null or write",
			    ca.proc);
	if (ca.have_reply_size && (calls[0] == &call_null || calls[0] == &call_write))
		usage_error("--reply-size applies to --proc readdir and create only");
	if ((ca.write || ca.have_lookups || ca.write_copy) && calls[0] != &call_write)
		usage_error("--write, --lookups and --write-copy apply to --proc write only");
	if (ca.then_null)
		calls[n++] = &call_null;
	/* The server would invalidate the chunk's R_key, which names a
	 * plain memory region: the Send With Invalidate fails on our side
	 */
	if (ca.reply_chunk && !a.none && !a.raw && !a.no_remote_inv)
		usage_error("--reply-chunk needs --no-remote-invalidate (or --none): "
			    "the chunk is a plain memory region, which a Send With "
			    "Invalidate cannot invalidate");
	if ((ca.read_chunks || ca.inline_pad) && calls[0] != &call_null)
		usage_error("--read-chunks and --inline-pad apply to --proc null only");
	if (ca.read_chunks && !a.none && !a.raw && !a.no_remote_inv)
		usage_error("--read-chunks needs --no-remote-invalidate (or --none): "
			    "the chunks are a plain memory region, which a Send With "
			    "Invalidate cannot invalidate");
	if ((ca.read_skew || ca.read_chunk_len) && !ca.read_chunks)
		usage_error("--read-skew and --read-chunk-len apply to --read-chunks only");
	if (ca.pzrc && (ca.read_chunks || ca.inline_pad))
		usage_error("--pzrc goes without --read-chunks and --inline-pad");
	if (ca.pzrc && !a.none && !a.raw && !a.no_remote_inv)
		usage_error("--pzrc needs --no-remote-invalidate (or --none): "
			    "the chunk is a plain memory region, which a Send With "
			    "Invalidate cannot invalidate");
	build_pdata(NULL, &a, PDATA_MAX_CONNECT, &out);
	if (!a.timeout)
		usage_error("--timeout must be at least 1 second");
	if (!a.count || a.count > CALL_COUNT_MAX)
		usage_error("--count takes 1..%d", CALL_COUNT_MAX);
	if (a.count > 1 && ca.write_copy)
		usage_error("--write-copy goes with one connection");
	ms = (a.timeout > 0 ? a.timeout : DEFAULT_TIMEOUT) * 1000;
	count = a.count > 0 ? a.count : 1;
	rc = fd_room(count, CALL_FDS);
	if (rc)
		return rc;

	c = calloc(1, sizeof(*c));
	cs = calloc(count, sizeof(*cs));
	if (!c || !cs) {
		free(c);
		free(cs);
		return local_failure("memory", ENOMEM);
	}
	c->rchunk.segs = ca.reply_chunk;
	c->rdchunks.count = ca.read_chunks;
	c->rdchunks.pad = ca.inline_pad;
	c->rdchunks.skew = ca.read_skew;
	c->rdchunks.len = ca.read_chunk_len ? ca.read_chunk_len : READ_CHUNK_LEN;
	c->first.pzrc = ca.pzrc;
	c->first.vers = ca.rdma_version >= 0 ? (u32)ca.rdma_version :
			RPCRDMA_VERSION;
	c->first.proc = ca.rdma_proc >= 0 ? (u32)ca.rdma_proc :
			ca.pzrc ? RDMA_NOMSG : RDMA_MSG;
	if (calls[0] == &call_write)
		c->wargs.size = ca.write ? ca.write : 4096;
	c->wargs.lookups = ca.lookups;
	if (ca.write_copy) {
		rc = save_write_data(ca.write_copy, c->wargs.size);
		if (rc) {
			free(c);
			free(cs);
			return rc;
		}
	}
	/* What the server learns from our Private Data, unless told otherwise */
	c->post_size = ca.have_post_size ? ca.post_size :
		       rpcrdma_cm_size_clamp(out.local.recv_size);

	/* What each connection starts from, and caller_release() leaves
	 * for another try: the arguments
	 */
	fresh = *c;
	free(c);
	if (a.hold > 0)
		catch_signals();
	xid = (u32)getpid() << 16 ^ (u32)time(NULL);
	for (k = 0, up = 0; k < count && !rc && !stop_requested; k++) {
		c = &cs[k];
		*c = fresh;
		rc = caller_connect(c, &fresh, a.argv[0], port, &out, ms);
		if (rc)
			break;
		up++;
		for (i = 0; !rc && i < n; i++) {
			int r = call_one(c, i, calls[i], xid + k * CALLS_MAX + i,
					 ca.have_reply_size ? ca.reply_size :
					 REPLY_SIZE_DEFAULT, ms);

			if (r && !rc)
				rc = r;
		}
	}
	if (!rc && !stop_requested && a.hold > 0) {
		static struct probe *held[CALL_COUNT_MAX];

		for (i = 0; i < up; i++)
			held[i] = &cs[i].p;
		rc = hold_probes(held, up, a.hold);
		for (i = 0; i < up; i++)
			cs[i].disconnected |= cs[i].p.gone;
	}
	callers_disconnect(cs, up, ms);
	for (i = 0; i < count; i++)
		caller_release(&cs[i]);
	free(cs);
	return rc;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--version")) {
			printf(PROG " " RPCRDMA_CM_TOOL_VERSION "\n");
			return 0;
		}
	}
	return finish(cmd_call(argc, argv));
}
