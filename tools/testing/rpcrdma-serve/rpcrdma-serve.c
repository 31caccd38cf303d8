// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-serve - a minimal RPC-over-RDMA version 1 server (RFC 8166)
 * that misbehaves on request, for testing clients: it accepts with the
 * RFC 8797 Private Data we choose, as rpcrdma-cm listen does, answers
 * each Call with the smallest valid Reply (a NULL with SUCCESS, anything
 * else with PROC_UNAVAIL, or an NFSv4 COMPOUND with the status we
 * choose), and, for the Calls that carry a Reply chunk, can answer
 * twice, disconnect right after answering, or answer with an
 * RDMA_ERROR. The qemu scenarios of tools/testing/nfsrdma mount the
 * kernel's NFS client on it to see what xprtrdma makes of that.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "cm_conn.h"
#include "output.h"
#include "xdr_util.h"

#define PROG	"rpcrdma-serve"

const char *prog_name = PROG;

#define MAX_CONNS		4	/* connections at once */
#define RECV_SLOTS		32	/* Receives posted per connection */
#define SEND_SLOTS		16	/* Sends in flight per connection */
#define SEND_SLOT_SIZE		512	/* room for the largest answer we build */
#define CREDITS_DEFAULT		32	/* --credits */
#define AFTER_MAX		1000	/* --after */
#define CREDITS_MAX		RECV_SLOTS
#define XID_HISTORY		1024	/* XIDs remembered, to tell retransmissions */
#define NFS4_TAG_MAX		64	/* a COMPOUND's tag we echo */

/* rpcrdma-serve's options beyond rpcrdma-cm's */
enum {
	OPT_TWICE = OPT_CM_LAST,
	OPT_DISCONNECT_AFTER_REPLY,
	OPT_BREAK_AFTER_REPLY,
	OPT_TIMES,
	OPT_AFTER,
	OPT_COMPOUND,
	OPT_ERROR,
	OPT_CREDITS,
};

/* What to do with a Call that carries a Reply chunk */
enum misbehaviour {
	MB_NONE,
	MB_TWICE,		/* answer it twice, back to back */
	MB_DISCONNECT,		/* answer it, then disconnect */
	MB_BREAK,		/* answer it, then Send what cannot be received */
	MB_ERROR,		/* answer it with an RDMA_ERROR */
};

struct serve_args {
	enum misbehaviour	mb;
	int			times;		/* -1: every Call */
	int			after;		/* Calls answered plainly first */
	u32			compound;	/* NFSv4 status, 0: PROC_UNAVAIL */
	u32			error;		/* ERR_VERS or ERR_CHUNK */
	u32			credits;
};

/* RFC 8166: the RPC-over-RDMA version 1 header */
#define RPCRDMA_VERSION		1
enum rdma_proc { RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR };
enum { ERR_VERS = 1, ERR_CHUNK = 2 };

/* RFC 5531: ONC RPC */
enum { RPC_CALL, RPC_REPLY };
#define RPC_VERSION		2
#define RPC_AUTH_BODY_MAX	400
enum { MSG_ACCEPTED };
enum { SUCCESS, PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL };

/* RFC 7530, RFC 8881: NFSv4 */
#define NFS_PROGRAM		100003
#define NFSPROC4_COMPOUND	1

static const char *const rdma_proc_names[] = {
	[RDMA_MSG] = "RDMA_MSG", [RDMA_NOMSG] = "RDMA_NOMSG",
	[RDMA_MSGP] = "RDMA_MSGP", [RDMA_DONE] = "RDMA_DONE",
	[RDMA_ERROR] = "RDMA_ERROR",
};

/* The NFSv4 statuses --compound takes by name */
static const struct {
	const char	*name;
	u32		status;
} nfs4_statuses[] = {
	{ "serverfault",	10006 },
	{ "delay",		10008 },
	{ "resource",		10018 },
	{ "minor_vers_mismatch", 10021 },
};

static void serve_option(const char *cmd, int opt, const char *arg, void *priv)
{
	struct serve_args *sa = priv;
	enum misbehaviour mb = MB_NONE;
	size_t i;

	switch (opt) {
	case OPT_TWICE:
		mb = MB_TWICE;
		break;
	case OPT_DISCONNECT_AFTER_REPLY:
		mb = MB_DISCONNECT;
		break;
	case OPT_BREAK_AFTER_REPLY:
		mb = MB_BREAK;
		break;
	case OPT_ERROR:
		mb = MB_ERROR;
		if (!strcmp(arg, "vers"))
			sa->error = ERR_VERS;
		else if (!strcmp(arg, "chunk"))
			sa->error = ERR_CHUNK;
		else
			cmd_error(cmd, "--error '%s': expected vers or chunk", arg);
		break;
	case OPT_TIMES:
		sa->times = parse_count("--times", arg);
		if (!sa->times)
			cmd_error(cmd, "--times must be at least 1");
		return;
	case OPT_AFTER:
		sa->after = parse_count("--after", arg);
		if (sa->after < 0 || sa->after > AFTER_MAX)
			cmd_error(cmd, "--after '%s': expected 0..%d", arg, AFTER_MAX);
		return;
	case OPT_CREDITS:
		sa->credits = parse_count("--credits", arg);
		if (sa->credits < 1 || sa->credits > CREDITS_MAX)
			cmd_error(cmd, "--credits '%s': expected 1..%d", arg,
				  CREDITS_MAX);
		return;
	case OPT_COMPOUND:
		for (i = 0; i < sizeof(nfs4_statuses) / sizeof(nfs4_statuses[0]); i++)
			if (!strcasecmp(arg, nfs4_statuses[i].name))
				break;
		if (i < sizeof(nfs4_statuses) / sizeof(nfs4_statuses[0]))
			sa->compound = nfs4_statuses[i].status;
		else if (arg[0] >= '1' && arg[0] <= '9')
			sa->compound = parse_count("--compound", arg);
		else
			cmd_error(cmd, "--compound '%s': expected delay, resource, serverfault, minor_vers_mismatch or a non-zero NFSv4 status",
				  arg);
		return;
	}
	if (sa->mb != MB_NONE)
		cmd_error(cmd, "use only one of --twice, --disconnect-after-reply, --break-after-reply and --error");
	sa->mb = mb;
}

static const struct option serve_table[] = {
	RPCRDMA_CM_OPTIONS,
	{ "twice",		no_argument,		NULL, OPT_TWICE },
	{ "disconnect-after-reply", no_argument,	NULL, OPT_DISCONNECT_AFTER_REPLY },
	{ "break-after-reply",	no_argument,		NULL, OPT_BREAK_AFTER_REPLY },
	{ "times",		required_argument,	NULL, OPT_TIMES },
	{ "after",		required_argument,	NULL, OPT_AFTER },
	{ "compound",		required_argument,	NULL, OPT_COMPOUND },
	{ "error",		required_argument,	NULL, OPT_ERROR },
	{ "credits",		required_argument,	NULL, OPT_CREDITS },
	{ NULL, 0, NULL, 0 }
};

static const struct cmd_opts serve_opts = {
	.table	= serve_table,
	.own	= serve_option,
};

static const char usage_text[] =
"Usage: " PROG " [--json] [PORT] [OPTIONS]\n"
"\n"
"  [PORT] [--send BYTES] [--recv BYTES] [--none | --raw HEX]\n"
"  [--twice | --disconnect-after-reply | --break-after-reply |\n"
"   --error vers|chunk] [--times N] [--after N]\n"
"  [--compound STATUS] [--credits N] [--count N] [--timeout SECONDS]\n"
"      Act as a minimal RPC-over-RDMA version 1 server (RFC 8166) on PORT\n"
"      (default 20049): accept every client with our Private Data (R\n"
"      clear: we never Send With Invalidate), post 32 Receives of our\n"
"      Receive Size, and answer each Call inline in an RDMA_MSG with\n"
"      empty chunk lists, its XID, and --credits (default 32): a NULL\n"
"      (procedure 0) with SUCCESS, anything else with PROC_UNAVAIL.\n"
"      A Call's Reply chunk is never written: RFC 8166 lets a server\n"
"      answer inline whenever the Reply fits.\n"
"      For the Calls that carry a Reply chunk, the first --times N (all\n"
"      by default) after the first --after N (default 0), which are\n"
"      answered as usual (with --compound's status, if given):\n"
"      --twice: send the same answer twice, back to back;\n"
"      --disconnect-after-reply: disconnect once the answer's Send has\n"
"      completed (the client learns it from the CM, later);\n"
"      --break-after-reply: right behind the answer, Send a message 4\n"
"      octets larger than the client's Receive Size: the client's next\n"
"      Receive fails and with it the connection, at once, while the\n"
"      client is still handling the answer; then disconnect;\n"
"      --error vers|chunk: answer with RDMA_ERROR ERR_VERS (versions\n"
"      1..1) or ERR_CHUNK instead;\n"
"      --compound STATUS: answer those that are NFSv4 COMPOUNDs with a\n"
"      COMPOUND4res of STATUS (delay, resource, serverfault,\n"
"      minor_vers_mismatch, or a number) for the Call's first operation,\n"
"      instead of PROC_UNAVAIL (a client retries after NFS4ERR_DELAY).\n"
"      --count N: exit once N connections have ended; --timeout: exit\n"
"      after SECONDS. A Call of another RPC-over-RDMA version gets\n"
"      ERR_VERS; RDMA_NOMSG, RDMA_MSGP and malformed Calls get nothing.\n"
"\n"
"Options:\n"
"  --json                   one JSON object per event, one a line\n"
"  --send BYTES             largest Send we will post (Private Data)\n"
"  --recv BYTES             largest Receive we accept (Private Data)\n"
"  --none, --raw HEX        send no Private Data, or these octets\n"
"  -h, --help               show this help and exit\n"
"  --version                show the version and exit\n"
"\n"
"JSON keys:\n"
"  'event' is listening, connect-request (as rpcrdma-cm listen), established,\n"
"  call, answer, disconnect, closed, recv_error, send_error or error.\n"
"  Every connection's event has conn (1, 2... in accept order).\n"
"             call: xid byte_len rdma_version rdma_credits rdma_type\n"
"             rdma_proc read_segments write_chunks reply_chunk\n"
"             reply_chunk_segments reply_chunk_len well_formed [problem]\n"
"             retransmission, and of the RPC: rpc_xid xid_match prog\n"
"             vers proc [nfs_minorversion nfs_ops nfs_first_op].\n"
"             answer: xid reply (SUCCESS, PROC_UNAVAIL, COMPOUND,\n"
"             ERR_VERS, ERR_CHUNK) [nfs_status] credits send_len\n"
"             copies misbehaved.\n"
"             disconnect: after_xid [oversized_len]. closed: reason by_us.\n"
"             recv_error: wc_status wc_status_code vendor_err;\n"
"             send_error: xid (of the answer it carried) and the same.\n"
"\n"
"Exit status: 0 at --count or --timeout after a client connected, or\n"
"on SIGINT or SIGTERM, 2 on a usage error, 6 when no client connected\n"
"before --timeout, 7 without an RDMA device or on a local failure.\n";

void print_usage(void)
{
	fputs(usage_text, stdout);
}

/* What a Call said, as far as it could be decoded */
struct call_info {
	u32		xid, vers, credits, proc;
	int		read_segs, write_chunks, reply_segs;
	u64		reply_len;
	bool		well_formed;
	bool		short_header;	/* no XID to answer to */
	const char	*problem;
	/* the RPC message (RDMA_MSG only) */
	bool		have_rpc;
	u32		rpc_xid, prog, prog_vers, rpc_proc;
	bool		have_compound;
	u32		minorversion, nops, first_op;
	u32		tag_len;
	u8		tag[NFS4_TAG_MAX];
};

static const char *bad(struct call_info *ci, const char *problem)
{
	ci->well_formed = false;
	if (!ci->problem)
		ci->problem = problem;
	return problem;
}

/*
 * An XDR optional-data discriminator (RFC 4506, Section 4.19): true for
 * 1, false for 0, and anything else makes the Call malformed
 */
static bool present(struct xdr_in *x, struct call_info *ci)
{
	u32 v = get32(x);

	if (v > 1)
		bad(ci, "a list discriminator other than 0 or 1");
	return v == 1;
}

/* The chunk lists of an RDMA_MSG or RDMA_NOMSG (RFC 8166, Section 4.3) */
static void decode_chunks(struct xdr_in *x, struct call_info *ci)
{
	u32 n, i;

	while (present(x, ci)) {	/* Read list: one segment per entry */
		if (x->ended || ++ci->read_segs > 1024) {
			bad(ci, "Read list runs past the message");
			return;
		}
		skip(x, 5 * 4);		/* position, handle, length, offset */
	}
	/* Write list: a chunk per entry */
	while (ci->well_formed && present(x, ci)) {
		if (x->ended || ++ci->write_chunks > 1024) {
			bad(ci, "Write list runs past the message");
			return;
		}
		n = get32(x);
		if (n > 1024) {
			bad(ci, "Write chunk of too many segments");
			return;
		}
		skip(x, (size_t)n * 4 * 4);
	}
	/* the Reply chunk, if any */
	if (ci->well_formed && present(x, ci)) {
		n = get32(x);
		if (n > 1024) {
			bad(ci, "Reply chunk of too many segments");
			return;
		}
		for (i = 0; i < n && !x->ended; i++) {
			get32(x);		/* handle */
			ci->reply_len += get32(x);
			skip(x, 8);		/* offset */
		}
		ci->reply_segs = n;
	}
	if (x->ended)
		bad(ci, "chunk lists run past the message");
}

/* The RPC Call that follows the transport header of an RDMA_MSG */
static void decode_rpc(struct xdr_in *x, struct call_info *ci)
{
	u32 len;

	ci->rpc_xid = get32(x);
	if (get32(x) != RPC_CALL || x->ended) {
		bad(ci, "not an RPC Call");
		return;
	}
	if (get32(x) != RPC_VERSION) {
		bad(ci, "RPC version is not 2");
		return;
	}
	ci->prog = get32(x);
	ci->prog_vers = get32(x);
	ci->rpc_proc = get32(x);
	get32(x);				/* credential's flavor */
	if (!skip_opaque(x, RPC_AUTH_BODY_MAX)) {
		bad(ci, "credential runs past the message");
		return;
	}
	get32(x);				/* verifier's flavor */
	if (!skip_opaque(x, RPC_AUTH_BODY_MAX)) {
		bad(ci, "verifier runs past the message");
		return;
	}
	ci->have_rpc = true;
	if (ci->prog != NFS_PROGRAM || ci->prog_vers != 4 ||
	    ci->rpc_proc != NFSPROC4_COMPOUND)
		return;
	len = get32(x);				/* COMPOUND4args: tag */
	if (x->ended || len > NFS4_TAG_MAX || x->left < len) {
		bad(ci, "COMPOUND tag runs past the message or is too long");
		return;
	}
	memcpy(ci->tag, x->p, len);
	ci->tag_len = len;
	skip(x, ((size_t)len + 3) & ~(size_t)3);
	ci->minorversion = get32(x);
	ci->nops = get32(x);
	ci->first_op = ci->nops ? get32(x) : 0;
	if (x->ended) {
		bad(ci, "COMPOUND runs past the message");
		return;
	}
	ci->have_compound = true;
}

static void decode_call(const u8 *buf, size_t len, struct call_info *ci)
{
	struct xdr_in x = { .p = buf, .left = len };

	memset(ci, 0, sizeof(*ci));
	ci->well_formed = true;
	ci->xid = get32(&x);
	ci->vers = get32(&x);
	ci->credits = get32(&x);
	ci->proc = get32(&x);
	if (x.ended) {
		ci->short_header = true;
		bad(ci, "shorter than a transport header");
		return;
	}
	if (ci->vers != RPCRDMA_VERSION) {
		bad(ci, "not RPC-over-RDMA version 1");
		return;
	}
	switch (ci->proc) {
	case RDMA_MSG:
		decode_chunks(&x, ci);
		if (ci->well_formed)
			decode_rpc(&x, ci);
		break;
	case RDMA_NOMSG:
		decode_chunks(&x, ci);
		bad(ci, "RDMA_NOMSG: the Call is in a Read chunk we do not pull");
		break;
	default:
		bad(ci, "not a Call we answer");
	}
}

struct conn {
	struct rdma_cm_id	*id;
	struct ibv_pd		*pd;
	struct ibv_comp_channel	*cc;
	struct ibv_cq		*cq;
	struct ibv_mr		*recv_mr, *send_mr, *big_mr;
	u8			*recv_buf, *send_buf, *big_buf;
	int			num;		/* 1, 2...: accept order */
	u32			peer_recv;	/* the client's Receive Size */
	int			sends;		/* posted, not completed */
	int			send_next;	/* the next send slot */
	u32			send_xid[SEND_SLOTS];	/* what each slot carries */
	bool			disconnect;	/* once the Sends complete */
	u32			disconnect_xid;
	u32			oversized;	/* --break-after-reply: its length */
	bool			disconnected;	/* we called rdma_disconnect */
};

struct server {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct conn			conns[MAX_CONNS];
	struct pdata_out		out;
	struct serve_args		sa;
	u32				recv_size;	/* of our Receives */
	int				accepted, ended;
	int				misbehaved;	/* Calls acted on */
	int				chunked;	/* Calls with a Reply chunk */
	u32				xids[XID_HISTORY];
	unsigned int			nxids;
	bool				dead;
};

static void out_conn(struct out_rec *r, const char *event, const struct conn *c)
{
	out_begin(r);
	out_str(r, "event", event);
	out_num(r, "conn", c->num);
}

static int local_failure(const char *what, int err)
{
	char detail[160];

	snprintf(detail, sizeof(detail), "%s: %s", what, strerror(err));
	report_error("local", detail);
	return EXIT_LOCAL;
}

static bool seen_xid(struct server *s, u32 xid)
{
	unsigned int i, n = s->nxids < XID_HISTORY ? s->nxids : XID_HISTORY;

	for (i = 0; i < n; i++)
		if (s->xids[i] == xid)
			return true;
	s->xids[s->nxids++ % XID_HISTORY] = xid;
	return false;
}

static int post_recv(struct server *s, struct conn *c, int slot)
{
	struct ibv_recv_wr wr, *bad_wr;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)(c->recv_buf + (size_t)slot * s->recv_size);
	sge.length = s->recv_size;
	sge.lkey = c->recv_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(c->id->qp, &wr, &bad_wr);
}

#define SEND_WR_ID	0x10000		/* | slot; a Receive's wr_id is its slot */

/* Send @len octets: @msg, copied to a send slot, or (@msg NULL) big_buf */
static int post_send(struct conn *c, const u8 *msg, size_t len, u32 xid)
{
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_sge sge;
	int slot = c->send_next;
	u8 *p = c->send_buf + (size_t)slot * SEND_SLOT_SIZE;
	int rc;

	if (c->sends >= SEND_SLOTS)
		return ENOSPC;
	if (msg) {
		memcpy(p, msg, len);
		sge.lkey = c->send_mr->lkey;
	} else {
		p = c->big_buf;
		sge.lkey = c->big_mr->lkey;
	}
	sge.addr = (uintptr_t)p;
	sge.length = len;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = SEND_WR_ID | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	rc = ibv_post_send(c->id->qp, &wr, &bad_wr);
	if (rc)
		return rc;
	c->send_xid[slot] = xid;
	c->send_next = (slot + 1) % SEND_SLOTS;
	c->sends++;
	return 0;
}

static void conn_free(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->big_mr)
		ibv_dereg_mr(c->big_mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->recv_buf);
	free(c->send_buf);
	free(c->big_buf);
	memset(c, 0, sizeof(*c));
}

/* The QP and buffers of a new connection, its Receives posted */
static int conn_setup(struct server *s, struct conn *c)
{
	struct ibv_context *verbs = c->id->verbs;
	struct ibv_qp_init_attr attr;
	int i, rc;

	c->pd = ibv_alloc_pd(verbs);
	if (!c->pd)
		return local_failure("ibv_alloc_pd", errno);
	c->cc = ibv_create_comp_channel(verbs);
	if (!c->cc)
		return local_failure("ibv_create_comp_channel", errno);
	c->cq = ibv_create_cq(verbs, RECV_SLOTS + SEND_SLOTS, NULL, c->cc, 0);
	if (!c->cq)
		return local_failure("ibv_create_cq", errno);
	rc = ibv_req_notify_cq(c->cq, 0);
	if (rc)
		return local_failure("ibv_req_notify_cq", rc);
	c->recv_buf = calloc(RECV_SLOTS, s->recv_size);
	c->send_buf = calloc(SEND_SLOTS, SEND_SLOT_SIZE);
	if (!c->recv_buf || !c->send_buf)
		return local_failure("calloc", ENOMEM);
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf,
				(size_t)RECV_SLOTS * s->recv_size,
				IBV_ACCESS_LOCAL_WRITE);
	if (!c->recv_mr)
		return local_failure("ibv_reg_mr", errno);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf,
				(size_t)SEND_SLOTS * SEND_SLOT_SIZE, 0);
	if (!c->send_mr)
		return local_failure("ibv_reg_mr", errno);
	if (s->sa.mb == MB_BREAK) {
		/* What the client cannot receive: it says how much it can */
		c->big_buf = calloc(1, (size_t)c->peer_recv + 4);
		if (!c->big_buf)
			return local_failure("calloc", ENOMEM);
		c->big_mr = ibv_reg_mr(c->pd, c->big_buf, (size_t)c->peer_recv + 4, 0);
		if (!c->big_mr)
			return local_failure("ibv_reg_mr", errno);
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.cap.max_send_wr = SEND_SLOTS;
	attr.cap.max_recv_wr = RECV_SLOTS;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &attr))
		return local_failure("rdma_create_qp", errno);
	for (i = 0; i < RECV_SLOTS; i++) {
		rc = post_recv(s, c, i);
		if (rc)
			return local_failure("ibv_post_recv", rc);
	}
	return 0;
}

static struct conn *conn_of(struct server *s, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].id == id)
			return &s->conns[i];
	return NULL;
}

static void server_accept(struct server *s, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	struct rpcrdma_cm_decoded d;
	struct conn *c = conn_of(s, NULL);
	char addr[64];

	addr_string(rdma_get_peer_addr(ev->id), addr, sizeof(addr));
	report_peer("connect-request", addr, RPCRDMA_CM_ROLE_SERVER, &s->out,
		    ev->param.conn.private_data, ev->param.conn.private_data_len);
	if (!c) {
		report_error("local", "too many connections; rejecting");
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return;
	}
	rpcrdma_cm_decode(ev->param.conn.private_data,
			  ev->param.conn.private_data_len, &d);
	c->id = ev->id;
	c->num = s->accepted + 1;
	c->peer_recv = d.params.recv_size;
	if (conn_setup(s, c)) {
		rdma_reject(ev->id, NULL, 0);
		conn_free(c);
		return;
	}
	memset(&param, 0, sizeof(param));
	param.private_data = s->out.len ? s->out.buf : NULL;
	param.private_data_len = s->out.len;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	if (rdma_accept(ev->id, &param)) {
		local_failure("rdma_accept", errno);
		conn_free(c);
		return;
	}
	s->accepted++;
}

/* The transport header of an answer to @ci: RDMA_MSG or RDMA_ERROR */
static void put_rdma_header(struct xdr_out *x, const struct server *s,
			    const struct call_info *ci, u32 proc)
{
	put32(x, ci->xid);
	put32(x, RPCRDMA_VERSION);
	put32(x, s->sa.credits);
	put32(x, proc);
}

/*
 * Build the answer to @ci in @buf: as asked when @misbehave, or with
 * --compound's status when @misbehave or @early (one of the first
 * --after Calls with a Reply chunk). Returns its length, 0 if the Call
 * gets none; *@what names it for the answer event.
 */
static size_t build_answer(const struct server *s, const struct call_info *ci,
			   bool misbehave, bool early, u8 *buf, size_t size,
			   const char **what, u32 *nfs_status)
{
	struct xdr_out x = { .p = buf, .end = buf + size };

	*nfs_status = 0;
	if (ci->short_header)
		return 0;	/* no XID to answer to */
	if (ci->vers != RPCRDMA_VERSION || (misbehave && s->sa.mb == MB_ERROR)) {
		u32 err = ci->vers != RPCRDMA_VERSION ? ERR_VERS : s->sa.error;

		put_rdma_header(&x, s, ci, RDMA_ERROR);
		put32(&x, err);
		if (err == ERR_VERS) {
			put32(&x, RPCRDMA_VERSION);	/* low */
			put32(&x, RPCRDMA_VERSION);	/* high */
		}
		*what = err == ERR_VERS ? "ERR_VERS" : "ERR_CHUNK";
		return x.overflow ? 0 : (size_t)(x.p - buf);
	}
	if (!ci->well_formed || !ci->have_rpc)
		return 0;

	put_rdma_header(&x, s, ci, RDMA_MSG);
	put32(&x, 0);			/* empty Read list */
	put32(&x, 0);			/* empty Write list */
	put32(&x, 0);			/* no Reply chunk */
	put32(&x, ci->rpc_xid);
	put32(&x, RPC_REPLY);
	put32(&x, MSG_ACCEPTED);
	put32(&x, 0);			/* verifier: AUTH_NONE */
	put32(&x, 0);
	if (ci->rpc_proc == 0) {
		put32(&x, SUCCESS);	/* a NULL's results are void */
		*what = "SUCCESS";
	} else if ((misbehave || early) && s->sa.compound &&
		   ci->have_compound) {
		put32(&x, SUCCESS);
		put32(&x, s->sa.compound);	/* COMPOUND4res: status */
		put_opaque(&x, ci->tag, ci->tag_len);
		if (ci->nops) {
			put32(&x, 1);		/* resarray: the first op's */
			put32(&x, ci->first_op);
			put32(&x, s->sa.compound);
		} else {
			put32(&x, 0);
		}
		*what = "COMPOUND";
		*nfs_status = s->sa.compound;
	} else {
		put32(&x, PROC_UNAVAIL);
		*what = "PROC_UNAVAIL";
	}
	return x.overflow ? 0 : (size_t)(x.p - buf);
}

static void report_call(const struct conn *c, const struct call_info *ci,
			u32 byte_len, bool retransmission)
{
	struct out_rec r;
	char name[16];

	out_conn(&r, "call", c);
	out_fmt(&r, "xid", "0x%08" PRIx32, ci->xid);
	out_num(&r, "byte_len", byte_len);
	out_num(&r, "rdma_version", ci->vers);
	out_num(&r, "rdma_credits", ci->credits);
	if (ci->proc < sizeof(rdma_proc_names) / sizeof(rdma_proc_names[0]))
		out_str(&r, "rdma_type", rdma_proc_names[ci->proc]);
	else
		out_str(&r, "rdma_type", (snprintf(name, sizeof(name), "%" PRIu32,
						   ci->proc), name));
	out_num(&r, "rdma_proc", ci->proc);
	out_num(&r, "read_segments", ci->read_segs);
	out_num(&r, "write_chunks", ci->write_chunks);
	out_bool(&r, "reply_chunk", ci->reply_segs > 0);
	out_num(&r, "reply_chunk_segments", ci->reply_segs);
	out_num(&r, "reply_chunk_len", ci->reply_len);
	out_bool(&r, "well_formed", ci->well_formed);
	if (ci->problem)
		out_str(&r, "problem", ci->problem);
	out_bool(&r, "retransmission", retransmission);
	if (ci->have_rpc) {
		out_fmt(&r, "rpc_xid", "0x%08" PRIx32, ci->rpc_xid);
		out_bool(&r, "xid_match", ci->rpc_xid == ci->xid);
		out_num(&r, "prog", ci->prog);
		out_num(&r, "vers", ci->prog_vers);
		out_num(&r, "proc", ci->rpc_proc);
	}
	if (ci->have_compound) {
		out_num(&r, "nfs_minorversion", ci->minorversion);
		out_num(&r, "nfs_ops", ci->nops);
		out_num(&r, "nfs_first_op", ci->first_op);
	}
	out_print(&r);
}

/* A Call arrived in Receive @slot: answer it (or not), repost the slot */
static void handle_call(struct server *s, struct conn *c, int slot,
			u32 byte_len)
{
	const u8 *msg = c->recv_buf + (size_t)slot * s->recv_size;
	u8 answer[SEND_SLOT_SIZE];
	struct call_info ci;
	const char *what = NULL;
	bool misbehave, early, retrans;
	int copies, i, rc = 0;
	u32 nfs_status;
	struct out_rec r;
	size_t len;

	decode_call(msg, byte_len, &ci);
	retrans = seen_xid(s, ci.xid);
	report_call(c, &ci, byte_len, retrans);

	early = false;
	if (ci.well_formed && ci.reply_segs > 0)
		early = s->chunked++ < s->sa.after;
	misbehave = ci.well_formed && ci.reply_segs > 0 && !early &&
		    s->sa.mb != MB_NONE &&
		    (s->sa.times < 0 || s->misbehaved < s->sa.times);
	len = build_answer(s, &ci, misbehave, early, answer, sizeof(answer),
			   &what, &nfs_status);
	rc = post_recv(s, c, slot);
	if (rc) {
		local_failure("ibv_post_recv", rc);
		return;
	}
	if (!len)
		return;
	if (len > c->peer_recv || len > s->out.local.send_size) {
		report_error("local", "our answer exceeds a Receive or Send Size; not sent");
		return;
	}
	if (misbehave)
		s->misbehaved++;
	copies = misbehave && s->sa.mb == MB_TWICE ? 2 : 1;
	for (i = 0; i < copies && !rc; i++)
		rc = post_send(c, answer, len, ci.xid);
	if (rc) {
		local_failure("ibv_post_send", rc);
		copies = i - 1;		/* the one that failed was not sent */
	}
	out_conn(&r, "answer", c);
	out_fmt(&r, "xid", "0x%08" PRIx32, ci.xid);
	out_str(&r, "reply", what);
	if (nfs_status)
		out_num(&r, "nfs_status", nfs_status);
	out_num(&r, "credits", s->sa.credits);
	out_num(&r, "send_len", len);
	out_num(&r, "copies", copies);
	out_bool(&r, "misbehaved", misbehave);
	out_print(&r);
	if (misbehave && s->sa.mb == MB_BREAK && !rc) {
		rc = post_send(c, NULL, c->peer_recv + 4, ci.xid);
		if (rc)
			local_failure("ibv_post_send", rc);
		else
			c->oversized = c->peer_recv + 4;
	}
	if (misbehave && (s->sa.mb == MB_DISCONNECT || s->sa.mb == MB_BREAK)) {
		c->disconnect = true;
		c->disconnect_xid = ci.xid;
	}
}

static void report_wc_error(const struct conn *c, const char *event,
			    const struct ibv_wc *wc)
{
	struct out_rec r;

	out_conn(&r, event, c);
	out_str(&r, "wc_status", ibv_wc_status_str(wc->status));
	out_num(&r, "wc_status_code", wc->status);
	out_num(&r, "vendor_err", wc->vendor_err);
	out_print(&r);
}

/* A failed Send, with the XID of the answer it carried */
static void report_send_error(const struct conn *c, const struct ibv_wc *wc)
{
	struct out_rec r;

	out_conn(&r, "send_error", c);
	out_fmt(&r, "xid", "0x%08" PRIx32,
		c->send_xid[(wc->wr_id & ~SEND_WR_ID) % SEND_SLOTS]);
	out_str(&r, "wc_status", ibv_wc_status_str(wc->status));
	out_num(&r, "wc_status_code", wc->status);
	out_num(&r, "vendor_err", wc->vendor_err);
	out_print(&r);
}

/* Disconnect once every Send of the answer that asked for it completed */
static void maybe_disconnect(struct conn *c)
{
	struct out_rec r;

	if (!c->disconnect || c->sends || c->disconnected)
		return;
	c->disconnected = true;
	out_conn(&r, "disconnect", c);
	out_fmt(&r, "after_xid", "0x%08" PRIx32, c->disconnect_xid);
	if (c->oversized)
		out_num(&r, "oversized_len", c->oversized);
	out_print(&r);
	if (rdma_disconnect(c->id))
		local_failure("rdma_disconnect", errno);
}

static void conn_completions(struct server *s, struct conn *c)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;
	int n;

	if (ibv_get_cq_event(c->cc, &cq, &ctx))
		return;
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		local_failure("ibv_req_notify_cq", errno);
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) > 0) {
		if (wc.wr_id & SEND_WR_ID) {
			c->sends--;
			if (wc.status != IBV_WC_SUCCESS &&
			    wc.status != IBV_WC_WR_FLUSH_ERR)
				report_send_error(c, &wc);
			continue;
		}
		if (wc.status == IBV_WC_WR_FLUSH_ERR)
			continue;
		if (wc.status != IBV_WC_SUCCESS) {
			report_wc_error(c, "recv_error", &wc);
			continue;
		}
		if (!c->disconnected)
			handle_call(s, c, (int)wc.wr_id, wc.byte_len);
	}
	if (n < 0)
		local_failure("ibv_poll_cq", -n);
	maybe_disconnect(c);
}

static void server_event(struct server *s, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type type = ev->event;
	struct rdma_cm_id *id = ev->id;
	struct out_rec r;
	struct conn *c;
	char addr[64];

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		server_accept(s, ev);
		rdma_ack_cm_event(ev);
		return;
	}
	rdma_ack_cm_event(ev);
	if (id == s->id && type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		report_error("local", "the RDMA device went away");
		s->dead = true;
		return;
	}
	c = conn_of(s, id);
	if (!c)
		return;
	addr_string(rdma_get_peer_addr(id), addr, sizeof(addr));
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		out_conn(&r, "established", c);
		out_str(&r, "peer_address", addr);
		out_print(&r);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		out_conn(&r, "closed", c);
		out_str(&r, "peer_address", addr);
		out_str(&r, "reason", rdma_event_str(type));
		out_bool(&r, "by_us", c->disconnected);
		out_print(&r);
		conn_free(c);
		s->ended++;
		break;
	default:
		break;
	}
}

static int server_open(struct server *s, const char *port)
{
	struct sockaddr_in sin;
	char detail[128];
	struct out_rec r;
	int rc;

	rc = cm_open(&s->ch, &s->id);
	if (rc)
		return rc;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(port));
	if (rdma_bind_addr(s->id, (struct sockaddr *)&sin) ||
	    rdma_listen(s->id, 8)) {
		snprintf(detail, sizeof(detail), "port %s: %s", port,
			 strerror(errno));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	out_begin(&r);
	out_str(&r, "event", "listening");
	out_num(&r, "port", atoi(port));
	out_num(&r, "recv_size", s->recv_size);
	out_num(&r, "credits", s->sa.credits);
	out_print(&r);
	return 0;
}

static void server_close(struct server *s)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].id) {
			rdma_disconnect(s->conns[i].id);
			conn_free(&s->conns[i]);
		}
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Wait for the CM and every connection's completions; serve them */
static int serve(struct server *s, const struct cmd_args *a)
{
	struct pollfd pfd[1 + MAX_CONNS];
	struct conn *who[1 + MAX_CONNS];
	struct timespec start, ts;
	sigset_t mask;
	int i, n, rc;

	sigprocmask(SIG_BLOCK, NULL, &mask);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!stop_requested && (a->count < 0 || s->ended < a->count)) {
		double left = 1.0;

		if (a->timeout >= 0) {
			left = a->timeout - since(&start);
			if (left <= 0) {
				report_error("timeout", s->accepted ?
					     "--timeout reached" :
					     "no client connected before --timeout");
				return s->accepted ? 0 : EXIT_TIMEOUT;
			}
			if (left > 1.0)
				left = 1.0;
		}
		pfd[0].fd = s->ch->fd;
		pfd[0].events = POLLIN;
		n = 1;
		for (i = 0; i < MAX_CONNS; i++) {
			if (!s->conns[i].id)
				continue;
			pfd[n].fd = s->conns[i].cc->fd;
			pfd[n].events = POLLIN;
			who[n++] = &s->conns[i];
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		rc = ppoll(pfd, n, &ts, &mask);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return local_failure("ppoll", errno);
		/* Completions first: a Call may be waiting when the
		 * connection's DISCONNECTED event frees it
		 */
		for (i = 1; i < n; i++)
			if (pfd[i].revents & POLLIN)
				conn_completions(s, who[i]);
		if (pfd[0].revents & POLLIN) {
			struct rdma_cm_event *ev;

			if (rdma_get_cm_event(s->ch, &ev))
				return local_failure("rdma_get_cm_event", errno);
			server_event(s, ev);
			if (s->dead)
				return EXIT_LOCAL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV,
				       OPT_NO_REMOTE_INV, OPT_NONE, OPT_RAW,
				       OPT_TIMEOUT, OPT_COUNT, OPT_TWICE,
				       OPT_DISCONNECT_AFTER_REPLY, OPT_BREAK_AFTER_REPLY,
				       OPT_TIMES, OPT_AFTER,
				       OPT_COMPOUND, OPT_ERROR, OPT_CREDITS, 0 };
	struct server *s;
	struct cmd_args a;
	const char *port;
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " " RPCRDMA_CM_TOOL_VERSION "\n");
		return 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return local_failure("calloc", ENOMEM);
	s->sa.times = -1;
	s->sa.credits = CREDITS_DEFAULT;
	parse_cmd_args(NULL, argc, argv, &serve_opts, allowed, &a, &s->sa);
	if (a.argc > 1)
		usage_error("unexpected argument '%s'", a.argv[1]);
	port = port_arg(NULL, a.argc == 1 ? a.argv[0] : NULL);
	if (!a.count)
		usage_error("--count must be at least 1");
	if (!a.timeout)
		usage_error("--timeout must be at least 1 second");
	if (s->sa.times > 0 && s->sa.mb == MB_NONE)
		usage_error("--times applies to --twice, --disconnect-after-reply, --break-after-reply and --error");
	if (s->sa.after && s->sa.mb == MB_NONE)
		usage_error("--after applies to --twice, --disconnect-after-reply, --break-after-reply and --error");
	if (s->sa.compound && s->sa.mb == MB_NONE)
		usage_error("--compound applies to --twice, --disconnect-after-reply and --break-after-reply");
	if (s->sa.compound && s->sa.mb == MB_ERROR)
		usage_error("--compound and --error exclude each other");
	/* We never Send With Invalidate: clear R unless the octets are given */
	if (!a.none && !a.raw)
		a.no_remote_inv = true;
	build_pdata(NULL, &a, PDATA_MAX_ACCEPT, &s->out);
	s->out.local.send_size = rpcrdma_cm_size_clamp(s->out.local.send_size);
	s->recv_size = rpcrdma_cm_size_clamp(s->out.local.recv_size);

	catch_signals();
	rc = server_open(s, port);
	if (!rc)
		rc = serve(s, &a);
	server_close(s);
	free(s);
	return finish(rc);
}
