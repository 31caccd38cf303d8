// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm probe and listen: talk RDMA-CM to real RPC-over-RDMA peers.
 *
 * probe connects to a listener (nfsd on port 20049, say) with the
 * Private Data we choose and reports what the server answered. listen
 * is a fake server: it shows what a client (the kernel's NFS client,
 * say) advertises, and answers with the Private Data we choose. Neither
 * ever sends an RPC: each holds a connection and then closes it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "rpcrdma-cm.h"

#define DEFAULT_PORT		"20049"
#define DEFAULT_SIZE		4096	/* the Linux client's and server's default */
#define DEFAULT_TIMEOUT		10	/* seconds, probe */
#define RESOLVE_MS		2000

/* Largest Private Data the RDMA CM carries: IB REQ and REP */
#define PDATA_MAX_CONNECT	56
#define PDATA_MAX_ACCEPT	196

/* What we put on the wire, and what a peer concludes from it */
struct pdata_out {
	u8				buf[PDATA_MAX];
	size_t				len;
	struct rpcrdma_cm_params	local;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static sigset_t wait_mask;	/* signals ppoll() lets through */
static bool signals_caught;

/*
 * Catch SIGINT and SIGTERM, but keep them blocked except inside
 * ppoll(), so that one arriving between the check of stop_requested
 * and the wait is not lost.
 */
static void catch_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	signals_caught = true;
}

static void print_hex_json(const u8 *buf, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	putchar('"');
}

static void print_hex_text(const char *label, const u8 *buf, size_t len)
{
	size_t i, last = 0;

	/* Trailing zeroes are CM padding more often than data: fold them */
	for (i = 0; i < len; i++)
		if (buf[i])
			last = i + 1;
	printf("%-22s", label);
	for (i = 0; i < last; i++)
		printf("%02x%s", buf[i], i + 1 < last ? " " : "");
	if (last < len)
		printf("%s(%zu zero octets)", last ? " " : "", len - last);
	putchar('\n');
}

/*
 * Build the Private Data to send from the options: the codec's message
 * (default), nothing (--none), or octets as given (--raw).
 */
static void build_pdata(const char *cmd, const struct cmd_args *a,
			size_t max, struct pdata_out *out)
{
	struct rpcrdma_cm_decoded d;

	if ((a->none ? 1 : 0) + (a->raw ? 1 : 0) +
	    (a->have_send || a->have_recv || a->no_rinv ? 1 : 0) > 1)
		usage_error("%s: use only one of --none, --raw, or --send/--recv/--no-remote-invalidate",
			    cmd);
	memset(out, 0, sizeof(*out));
	if (a->none) {
		rpcrdma_cm_decode(NULL, 0, &d);
		out->local = d.peer;
		return;
	}
	if (a->raw) {
		parse_hex_arg(a->raw, out->buf, &out->len);
		if (out->len > max)
			usage_error("%s: --raw holds %zu octets; the CM carries at most %zu here",
				    cmd, out->len, max);
		rpcrdma_cm_decode(out->buf, out->len, &d);
		out->local = d.peer;
		return;
	}
	out->local.send_size = a->have_send ? a->send : DEFAULT_SIZE;
	out->local.recv_size = a->have_recv ? a->recv : DEFAULT_SIZE;
	out->local.remote_inv = !a->no_rinv;
	if (a->have_send)
		warn_adjusted("--send", a->send);
	if (a->have_recv)
		warn_adjusted("--recv", a->recv);
	rpcrdma_cm_encode(out->buf, &out->local);
	out->len = RPCRDMA_CM_MSG_LEN;
}

static const char *addr_string(struct sockaddr *sa, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa && sa->sa_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
	} else if (sa && sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		port = ntohs(sin6->sin6_port);
	}
	snprintf(buf, size, sa && sa->sa_family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 host, port);
	return buf;
}

/*
 * Wait up to @ms milliseconds (-1: forever) for the next CM event.
 * Returns 0 with *@ev set, -ETIMEDOUT, -EINTR on a stop signal, or
 * another negative errno.
 */
static int next_event(struct rdma_event_channel *ch, int ms,
		      struct rdma_cm_event **ev)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000L };
	int rc;

	rc = ppoll(&pfd, 1, ms < 0 ? NULL : &ts,
		   signals_caught ? &wait_mask : NULL);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	if (rdma_get_cm_event(ch, ev))
		return -errno;
	return 0;
}

/* A QP is required to connect or accept; its CQs come with it */
static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(id, NULL, &attr) ? -errno : 0;
}

static void print_negotiated(enum rpcrdma_cm_role role,
			     const struct rpcrdma_cm_negotiated *n)
{
	if (json_output) {
		printf("{\"role\": \"%s\", \"client_to_server\": %" PRIu32
		       ", \"server_to_client\": %" PRIu32
		       ", \"send_with_invalidate\": %s}",
		       role == RPCRDMA_CM_ROLE_CLIENT ? "client" : "server",
		       n->client_to_server, n->server_to_client,
		       jbool(n->send_with_inv));
		return;
	}
	printf("client_to_server:     %" PRIu32 "\n", n->client_to_server);
	printf("server_to_client:     %" PRIu32 "\n", n->server_to_client);
	printf("send_with_invalidate: %s\n", yesno(n->send_with_inv));
}

/* Report the Private Data that came with an event, from @role's side */
static void report_peer(const char *what, const char *peer_addr,
			enum rpcrdma_cm_role role, const struct pdata_out *sent,
			const void *data, size_t len)
{
	struct rpcrdma_cm_negotiated n;
	struct rpcrdma_cm_decoded d;

	rpcrdma_cm_decode(data, len, &d);
	rpcrdma_cm_negotiate(role, &sent->local, &d.peer, true, &n);
	if (json_output) {
		printf("{\"event\": \"%s\", \"peer_address\": \"%s\", \"private_data_len\": %zu, \"private_data\": ",
		       what, peer_addr, len);
		print_hex_json(data, data ? len : 0);
		printf(", \"sent\": ");
		print_hex_json(sent->buf, sent->len);
		printf(", \"peer\": ");
		print_decoded_json(&d, len);
		printf(", \"negotiated\": ");
		print_negotiated(role, &n);
		printf("}\n");
	} else {
		printf("event:                %s\n", what);
		printf("peer_address:         %s\n", peer_addr);
		print_hex_text("sent:", sent->buf, sent->len);
		printf("private_data_len:     %zu\n", len);
		print_hex_text("private_data:", data, data ? len : 0);
		print_decoded_text(&d, len);
		print_negotiated(role, &n);
	}
	fflush(stdout);
}

/* A JSON string: text from the user or the system may hold anything */
static void print_json_string(const char *str)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void report_event(const char *event, const char *what,
			 const char *detail)
{
	if (json_output) {
		printf("{\"event\": \"%s\", \"%s\": \"%s\", \"detail\": ",
		       event, event, what);
		print_json_string(detail);
		printf("}\n");
	}
	fprintf(stderr, PROG ": %s%s: %s\n",
		strcmp(event, "warning") ? "" : "warning: ", what, detail);
	fflush(stdout);
}

static void report_error(const char *what, const char *detail)
{
	report_event("error", what, detail);
}

/* Wait for one expected event; on anything else report and fail */
static int expect_event(struct rdma_event_channel *ch, int ms,
			enum rdma_cm_event_type want, const char *step,
			int fail_code)
{
	struct rdma_cm_event *ev;
	char detail[128];
	int rc;

	rc = next_event(ch, ms, &ev);
	if (rc == -ETIMEDOUT) {
		report_error("timeout", step);
		return EXIT_TIMEOUT;
	}
	if (rc) {
		snprintf(detail, sizeof(detail), "%s: %s", step, strerror(-rc));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	if (ev->event != want) {
		snprintf(detail, sizeof(detail), "%s: %s (status %d)", step,
			 rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		report_error(fail_code == EXIT_NO_ROUTE ? "no-route" : "connect",
			     detail);
		return fail_code;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

struct probe {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct addrinfo			*ai;
	bool				qp;
};

static void probe_release(struct probe *p)
{
	if (p->qp)
		rdma_destroy_qp(p->id);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch)
		rdma_destroy_event_channel(p->ch);
	if (p->ai)
		freeaddrinfo(p->ai);
}

static int probe_resolve(struct probe *p, const char *host, const char *port,
			 int ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	char detail[160];
	int rc;

	rc = getaddrinfo(host, port, &hints, &p->ai);
	if (rc) {
		snprintf(detail, sizeof(detail), "%s port %s: %s", host, port,
			 gai_strerror(rc));
		report_error("no-route", detail);
		return EXIT_NO_ROUTE;
	}
	if (rdma_resolve_addr(p->id, NULL, p->ai->ai_addr, RESOLVE_MS)) {
		snprintf(detail, sizeof(detail), "resolving %s: %s", host,
			 strerror(errno));
		report_error("no-route", detail);
		return EXIT_NO_ROUTE;
	}
	rc = expect_event(p->ch, ms, RDMA_CM_EVENT_ADDR_RESOLVED,
			  "address resolution", EXIT_NO_ROUTE);
	if (rc)
		return rc;
	if (rdma_resolve_route(p->id, RESOLVE_MS)) {
		snprintf(detail, sizeof(detail), "route to %s: %s", host,
			 strerror(errno));
		report_error("no-route", detail);
		return EXIT_NO_ROUTE;
	}
	return expect_event(p->ch, ms, RDMA_CM_EVENT_ROUTE_RESOLVED,
			    "route resolution", EXIT_NO_ROUTE);
}

static int probe_connect(struct probe *p, const struct pdata_out *out, int ms)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	char addr[64], detail[160];
	int rc;

	rc = create_qp(p->id);
	if (rc) {
		snprintf(detail, sizeof(detail), "creating a QP: %s", strerror(-rc));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	p->qp = true;

	memset(&param, 0, sizeof(param));
	param.private_data = out->len ? out->buf : NULL;
	param.private_data_len = out->len;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(p->id, &param)) {
		snprintf(detail, sizeof(detail), "rdma_connect: %s", strerror(errno));
		report_error("local", detail);
		return EXIT_LOCAL;
	}

	rc = next_event(p->ch, ms, &ev);
	if (rc == -ETIMEDOUT) {
		report_error("timeout", "no answer to the connect request");
		return EXIT_TIMEOUT;
	}
	if (rc) {
		report_error("local", strerror(-rc));
		return EXIT_LOCAL;
	}
	addr_string(rdma_get_peer_addr(p->id), addr, sizeof(addr));
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		report_peer("established", addr, RPCRDMA_CM_ROLE_CLIENT, out,
			    ev->param.conn.private_data,
			    ev->param.conn.private_data_len);
		rc = 0;
		break;
	case RDMA_CM_EVENT_REJECTED:
		snprintf(detail, sizeof(detail), "%s rejected the connection (status %d)",
			 addr, ev->status);
		report_error("rejected", detail);
		rc = EXIT_REJECTED;
		break;
	default:
		snprintf(detail, sizeof(detail), "%s: %s (status %d)", addr,
			 rdma_event_str(ev->event), ev->status);
		report_error("unreachable", detail);
		rc = EXIT_UNREACHABLE;
	}
	rdma_ack_cm_event(ev);
	return rc;
}

int cmd_probe(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_RINV,
				       OPT_NONE, OPT_RAW, OPT_TIMEOUT, 0 };
	struct probe p = { 0 };
	struct rdma_cm_event *ev;
	struct pdata_out out;
	struct cmd_args a;
	const char *port;
	int ms, rc;

	parse_cmd_args("probe", argc, argv, allowed, &a);
	if (a.argc < 1 || a.argc > 2)
		usage_error("probe: give HOST and optionally PORT");
	port = a.argc == 2 ? a.argv[1] : DEFAULT_PORT;
	if (!*port || strspn(port, "0123456789") != strlen(port) ||
	    atoi(port) < 1 || atoi(port) > 65535)
		usage_error("probe: port '%s': expected 1..65535", port);
	build_pdata("probe", &a, PDATA_MAX_CONNECT, &out);
	if (!a.timeout)
		usage_error("probe: --timeout must be at least 1 second");
	ms = (a.timeout > 0 ? a.timeout : DEFAULT_TIMEOUT) * 1000;

	p.ch = rdma_create_event_channel();
	if (!p.ch) {
		report_error("local", "cannot open the RDMA CM (is rdma_ucm loaded?)");
		return EXIT_LOCAL;
	}
	if (rdma_create_id(p.ch, &p.id, NULL, RDMA_PS_TCP)) {
		report_error("local", strerror(errno));
		probe_release(&p);
		return EXIT_LOCAL;
	}

	rc = probe_resolve(&p, a.argv[0], port, ms);
	if (!rc)
		rc = probe_connect(&p, &out, ms);
	if (!rc) {
		/* Leave as a well-behaved client would */
		rdma_disconnect(p.id);
		if (next_event(p.ch, ms, &ev) == 0)
			rdma_ack_cm_event(ev);
		else
			report_event("warning", "disconnect",
				     "the server did not confirm the disconnect");
	}
	probe_release(&p);
	return rc;
}

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
	if (!c || create_qp(ev->id)) {
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
		if (json_output)
			printf("{\"event\": \"established\", \"peer_address\": \"%s\"}\n", addr);
		else
			printf("event:                established (%s)\n", addr);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (json_output)
			printf("{\"event\": \"closed\", \"peer_address\": \"%s\", \"reason\": \"%s\"}\n",
			       addr, rdma_event_str(type));
		else
			printf("event:                closed (%s: %s)\n", addr,
			       rdma_event_str(type));
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

	l->ch = rdma_create_event_channel();
	if (!l->ch) {
		report_error("local", "cannot open the RDMA CM (is rdma_ucm loaded?)");
		return EXIT_LOCAL;
	}
	if (rdma_create_id(l->ch, &l->id, NULL, RDMA_PS_TCP)) {
		report_error("local", strerror(errno));
		return EXIT_LOCAL;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(port));
	if (rdma_bind_addr(l->id, (struct sockaddr *)&sin) ||
	    rdma_listen(l->id, 8)) {
		snprintf(detail, sizeof(detail), "port %s: %s", port, strerror(errno));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	if (json_output)
		printf("{\"event\": \"listening\", \"port\": %d}\n", atoi(port));
	else
		printf("listening on port %s\n", port);
	fflush(stdout);
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
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_RINV,
				       OPT_NONE, OPT_RAW, OPT_HOLD, OPT_TIMEOUT,
				       OPT_COUNT, 0 };
	struct listener l = { 0 };
	struct timespec start;
	struct cmd_args a;
	const char *port;
	int rc = 0;

	parse_cmd_args("listen", argc, argv, allowed, &a);
	if (a.argc > 1)
		usage_error("listen: unexpected argument '%s'", a.argv[1]);
	port = a.argc == 1 ? a.argv[0] : DEFAULT_PORT;
	if (!*port || strspn(port, "0123456789") != strlen(port) ||
	    atoi(port) < 1 || atoi(port) > 65535)
		usage_error("listen: port '%s': expected 1..65535", port);
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
