// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm listen: a fake RPC-over-RDMA server that shows what each
 * client (the kernel's NFS client, say) advertises, and answers with the
 * Private Data we choose. It never answers an RPC.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
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

/*
 * listen: a fake RPC-over-RDMA server
 */

#define MAX_CONNS	16

struct conn {
	struct rdma_cm_id	*id;
	struct timespec		established;
	bool			up;
};

struct listener {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct conn			conns[MAX_CONNS];
	struct pdata_out		out;
	int				hold;	/* seconds, -1: forever */
	int				ended;	/* connections that ended */
	int				accepted;
	bool				dead;	/* the listening id is gone */
};

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

static struct conn *conn_of(struct listener *l, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (l->conns[i].id == id)
			return &l->conns[i];
	return NULL;
}

static void conn_close(struct listener *l, struct conn *c)
{
	(void)l;
	rdma_destroy_qp(c->id);
	rdma_destroy_id(c->id);
	memset(c, 0, sizeof(*c));
}

static void listener_accept(struct listener *l, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	struct conn *c = conn_of(l, NULL);
	char addr[64];

	addr_string(rdma_get_peer_addr(ev->id), addr, sizeof(addr));
	report_peer("connect-request", addr, RPCRDMA_CM_ROLE_SERVER, &l->out,
		    ev->param.conn.private_data, ev->param.conn.private_data_len);
	if (!c || create_qp(ev->id, NULL, NULL)) {
		report_error("local", c ? "creating a QP failed; rejecting" :
			     "too many connections; rejecting");
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return;
	}
	memset(&param, 0, sizeof(param));
	param.private_data = l->out.len ? l->out.buf : NULL;
	param.private_data_len = l->out.len;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	if (rdma_accept(ev->id, &param)) {
		report_error("local", strerror(errno));
		rdma_destroy_qp(ev->id);
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return;
	}
	c->id = ev->id;
	l->accepted++;
}

/*
 * Handle one event, and ack it. A CONNECT_REQUEST is acked after
 * listener_accept(), which may destroy the new id: librdmacm accounts
 * that event to the listening id, not to the new one.
 */
static void listener_event(struct listener *l, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type type = ev->event;
	struct rdma_cm_id *id = ev->id;
	struct out_rec r;
	struct conn *c;
	char addr[64];

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		listener_accept(l, ev);
		rdma_ack_cm_event(ev);
		return;
	}
	rdma_ack_cm_event(ev);
	if (id == l->id && type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		report_error("local", "the RDMA device went away");
		l->dead = true;
		return;
	}
	c = conn_of(l, id);
	if (!c)
		return;
	addr_string(rdma_get_peer_addr(id), addr, sizeof(addr));
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->up = true;
		clock_gettime(CLOCK_MONOTONIC, &c->established);
		out_begin(&r);
		out_str(&r, "event", "established");
		out_str(&r, "peer_address", addr);
		out_print(&r);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		out_begin(&r);
		out_str(&r, "event", "closed");
		out_str(&r, "peer_address", addr);
		out_str(&r, "reason", rdma_event_str(type));
		out_print(&r);
		conn_close(l, c);
		l->ended++;
		break;
	default:
		break;
	}
	fflush(stdout);
}

/* Disconnect connections held for --hold seconds; return ms to wait */
static int listener_expire(struct listener *l)
{
	int i, wait = -1;

	if (l->hold < 0)
		return -1;
	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &l->conns[i];
		double left;

		if (!c->id || !c->up)
			continue;
		left = l->hold - since(&c->established);
		if (left <= 0) {
			c->up = false;
			rdma_disconnect(c->id);
			continue;
		}
		if (wait < 0 || left * 1000 < wait)
			wait = (int)(left * 1000) + 1;
	}
	return wait < 0 ? 1000 : wait;
}

static int listener_open(struct listener *l, const char *port)
{
	struct sockaddr_in sin;
	char detail[128];
	struct out_rec r;
	int rc;

	rc = cm_open(&l->ch, &l->id);
	if (rc)
		return rc;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(port));
	if (rdma_bind_addr(l->id, (struct sockaddr *)&sin) ||
	    rdma_listen(l->id, 8)) {
		snprintf(detail, sizeof(detail), "port %s: %s", port, strerror(errno));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	out_begin(&r);
	out_str(&r, "event", "listening");
	out_num(&r, "port", atoi(port));
	out_print(&r);
	return 0;
}

static void listener_close(struct listener *l)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (l->conns[i].id) {
			rdma_disconnect(l->conns[i].id);
			conn_close(l, &l->conns[i]);
		}
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
}

int cmd_listen(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_REMOTE_INV,
				       OPT_NONE, OPT_RAW, OPT_HOLD, OPT_TIMEOUT,
				       OPT_COUNT, 0 };
	struct listener l = { 0 };
	struct timespec start;
	struct cmd_args a;
	const char *port;
	int rc = 0;

	parse_cmd_args("listen", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (a.argc > 1)
		usage_error("listen: unexpected argument '%s'", a.argv[1]);
	port = port_arg("listen", a.argc == 1 ? a.argv[0] : NULL);
	if (!a.count)
		usage_error("listen: --count must be at least 1");
	build_pdata("listen", &a, PDATA_MAX_ACCEPT, &l.out);
	l.hold = a.hold;

	catch_signals();
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = listener_open(&l, port);
	while (!rc && !stop_requested && (a.count < 0 || l.ended < a.count)) {
		struct rdma_cm_event *ev;
		int wait = listener_expire(&l);
		int err;

		if (a.timeout >= 0) {
			double left = a.timeout - since(&start);

			if (left <= 0) {
				report_error("timeout", l.accepted ?
					     "--timeout reached" :
					     "no client connected before --timeout");
				rc = l.accepted ? 0 : EXIT_TIMEOUT;
				break;
			}
			if (wait < 0 || left * 1000 < wait)
				wait = (int)(left * 1000) + 1;
		}
		err = next_event(l.ch, wait, &ev);
		if (err == -ETIMEDOUT || err == -EINTR)
			continue;
		if (err) {
			report_error("local", strerror(-err));
			rc = EXIT_LOCAL;
			break;
		}
		listener_event(&l, ev);
		if (l.dead) {
			rc = EXIT_LOCAL;
			break;
		}
	}
	listener_close(&l);
	return rc;
}
