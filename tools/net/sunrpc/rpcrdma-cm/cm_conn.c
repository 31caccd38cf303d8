// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm: the connection code its commands share. probe connects to
 * a listener (nfsd on port 20049, say) with the Private Data we choose
 * and reports what the server answered; listen is a fake server that
 * shows what a client advertises; rpcrdma-call (tools/testing) connects
 * as probe does, then sends RPCs. None of them ever sends an RPC here.
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
#include <sys/resource.h>
#include <rdma/rdma_cma.h>

#include "cm_conn.h"
#include "output.h"

volatile sig_atomic_t stop_requested;

/* The name of a decode outcome, as the kernel's tracepoints print it */
static const char *status_name(enum rpcrdma_cm_status status)
{
	switch (status) {
	case RPCRDMA_CM_VALID:
		return "valid";
	case RPCRDMA_CM_ABSENT:
		return "absent";
	case RPCRDMA_CM_TRUNCATED:
		return "truncated";
	case RPCRDMA_CM_BAD_VERSION:
		return "bad-version";
	}
	return "unknown";
}

/* What decoding a peer's Private Data found: the decode object */
void out_decoded(struct out_rec *r, const struct rpcrdma_cm_decoded *d,
		 size_t len)
{
	out_bool(r, "found", d->status == RPCRDMA_CM_VALID);
	if (d->offset >= 0)
		out_int(r, "offset", d->offset);
	else
		out_null(r, "offset", "-");
	if (d->status == RPCRDMA_CM_VALID || d->status == RPCRDMA_CM_BAD_VERSION)
		out_num(r, "version", d->version);
	else
		out_null(r, "version", "-");
	out_bool(r, "remote_inv", d->params.remote_inv);
	out_num(r, "send_size", d->params.send_size);
	out_num(r, "recv_size", d->params.recv_size);
	out_str(r, "status", status_name(d->status));
	out_num(r, "length", len);
	if (d->status != RPCRDMA_CM_VALID)
		out_text(r, "note", "no usable RFC 8797 message; the RFC defaults apply");
}

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
void catch_signals(void)
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

/*
 * Build the Private Data to send from the options: the codec's message
 * (default), nothing (--none), or octets as given (--raw).
 */
void build_pdata(const char *cmd, const struct cmd_args *a,
		 size_t max, struct pdata_out *out)
{
	struct rpcrdma_cm_decoded d;

	if ((a->none ? 1 : 0) + (a->raw ? 1 : 0) +
	    (a->have_send || a->have_recv || a->no_remote_inv ? 1 : 0) > 1)
		cmd_error(cmd, "use only one of --none, --raw, or --send/--recv/--no-remote-invalidate");
	memset(out, 0, sizeof(*out));
	if (a->none) {
		rpcrdma_cm_decode(NULL, 0, &d);
		out->local = d.params;
		return;
	}
	if (a->raw) {
		parse_hex_arg(a->raw, out->buf, &out->len);
		if (out->len > max)
			cmd_error(cmd, "--raw holds %zu octets; the CM carries at most %zu here",
				  out->len, max);
		rpcrdma_cm_decode(out->buf, out->len, &d);
		out->local = d.params;
		return;
	}
	out->local.send_size = a->have_send ? a->send : DEFAULT_SIZE;
	out->local.recv_size = a->have_recv ? a->recv : DEFAULT_SIZE;
	out->local.remote_inv = !a->no_remote_inv;
	if (a->have_send)
		warn_adjusted("--send", a->send);
	if (a->have_recv)
		warn_adjusted("--recv", a->recv);
	rpcrdma_cm_encode(out->buf, &out->local);
	out->len = RPCRDMA_CM_MSG_LEN;
}

const char *addr_string(struct sockaddr *sa, char *buf, size_t size)
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
 * Wait up to @ms milliseconds (-1: forever) until one of the @n
 * descriptors in @pfd is readable. Returns how many are, 0 when the
 * time ran out, -EINTR on a stop signal, or another negative errno.
 */
int poll_channels(struct pollfd *pfd, int n, int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000L };
	int rc;

	rc = ppoll(pfd, n, ms < 0 ? NULL : &ts,
		   signals_caught ? &wait_mask : NULL);
	return rc < 0 ? -errno : rc;
}

/* Milliseconds on the monotonic clock */
long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * --hold: keep the @n connections of @ps for @s seconds, or until a stop
 * signal, saying when all are held. A connection that the server ends
 * meanwhile is reported (and marked gone if it was a disconnect) and
 * ends the hold: EXIT_UNREACHABLE. Otherwise 0, or EXIT_LOCAL.
 */
int hold_probes(struct probe **ps, int n, int s)
{
	static struct pollfd pfd[HOLD_MAX];
	long long deadline = now_ms() + (long long)s * 1000;
	struct rdma_cm_event *ev;
	char detail[160];
	struct out_rec r;
	int i, rc;

	if (n > HOLD_MAX)
		n = HOLD_MAX;
	out_begin(&r);
	out_str(&r, "event", "held");
	out_num(&r, "connections", n);
	out_num(&r, "seconds", s);
	out_print(&r);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pfd[i].fd = ps[i]->ch->fd;
		pfd[i].events = POLLIN;
	}
	while (!stop_requested) {
		long long left = deadline - now_ms();

		if (left <= 0)
			break;
		rc = poll_channels(pfd, n, (int)left);
		if (rc == -EINTR || rc == 0)
			continue;
		if (rc < 0) {
			report_error("local", strerror(-rc));
			return EXIT_LOCAL;
		}
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (rdma_get_cm_event(ps[i]->ch, &ev)) {
				report_error("local", strerror(errno));
				return EXIT_LOCAL;
			}
			snprintf(detail, sizeof(detail),
				 "connection %d of %d: %s (status %d) while held",
				 i + 1, n, rdma_event_str(ev->event), ev->status);
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				ps[i]->gone = true;
			rdma_ack_cm_event(ev);
			report_error("unreachable", detail);
			return EXIT_UNREACHABLE;
		}
	}
	return 0;
}

/*
 * Wait up to @ms milliseconds (-1: forever) for the next CM event.
 * Returns 0 with *@ev set, -ETIMEDOUT, -EINTR on a stop signal, or
 * another negative errno.
 */
int next_event(struct rdma_event_channel *ch, int ms,
	       struct rdma_cm_event **ev)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	int rc;

	rc = poll_channels(&pfd, 1, ms);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -ETIMEDOUT;
	if (rdma_get_cm_event(ch, ev))
		return -errno;
	return 0;
}

/*
 * A QP is required to connect or accept. Without @pd and @cq, librdmacm
 * provides them.
 */
int create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
	      struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = QP_DEPTH;
	attr.cap.max_recv_wr = QP_DEPTH;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(id, pd, &attr) ? -errno : 0;
}

/* The properties a connection gets: the negotiated object */
void out_negotiated(struct out_rec *r, enum rpcrdma_cm_role role,
		    const struct rpcrdma_cm_negotiated *n)
{
	out_str(r, "role", role == RPCRDMA_CM_ROLE_CLIENT ? "client" : "server");
	out_num(r, "client_to_server", n->client_to_server);
	out_num(r, "server_to_client", n->server_to_client);
	out_bool(r, "send_with_inv", n->send_with_inv);
}

/* Report the Private Data that came with an event, from @role's side */
void report_peer(const char *what, const char *peer_addr,
		 enum rpcrdma_cm_role role, const struct pdata_out *sent,
		 const void *data, size_t len)
{
	struct rpcrdma_cm_negotiated n;
	struct rpcrdma_cm_decoded d;
	struct out_rec r;

	rpcrdma_cm_decode(data, len, &d);
	rpcrdma_cm_negotiate(role, &sent->local, &d.params, &n);
	out_begin(&r);
	out_str(&r, "event", what);
	out_str(&r, "peer_address", peer_addr);
	out_num(&r, "private_data_len", len);
	out_hex(&r, "private_data", data, data ? len : 0);
	out_hex(&r, "sent", sent->buf, sent->len);
	out_open(&r, "peer");
	out_decoded(&r, &d, len);
	out_close(&r);
	out_open(&r, "negotiated");
	out_negotiated(&r, role, &n);
	out_close(&r);
	out_print(&r);
}

/* An event without Private Data: a JSON object; the text goes to stderr */
void report_event(const char *event, const char *what, const char *detail)
{
	struct out_rec r;

	if (json_output) {
		out_begin(&r);
		out_str(&r, "event", event);
		out_str(&r, event, what);
		out_str(&r, "detail", detail);
		out_print(&r);
	}
	fprintf(stderr, "%s: %s%s: %s\n", prog_name,
		strcmp(event, "warning") ? "" : "warning: ", what, detail);
}

void report_error(const char *what, const char *detail)
{
	report_event("error", what, detail);
}

/* Wait for one expected event; on anything else report and fail */
int expect_event(struct rdma_event_channel *ch, int ms,
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

/* The QP goes before anything it uses: callers free their MRs and CQs after */
void probe_destroy_qp(struct probe *p)
{
	if (p->qp)
		rdma_destroy_qp(p->id);
	p->qp = false;
}

void probe_release(struct probe *p)
{
	probe_destroy_qp(p);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch)
		rdma_destroy_event_channel(p->ch);
	if (p->ai)
		freeaddrinfo(p->ai);
}

int probe_resolve(struct probe *p, const char *host, const char *port,
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

/* An event channel and an id on it, to connect from or to listen on */
int cm_open(struct rdma_event_channel **ch, struct rdma_cm_id **id)
{
	char detail[128];
	int err;

	*ch = rdma_create_event_channel();
	if (!*ch) {
		err = errno;
		snprintf(detail, sizeof(detail),
			 "cannot open the RDMA CM: %s%s", strerror(err),
			 err == ENOENT || err == ENODEV ?
			 " (is rdma_ucm loaded?)" : "");
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	if (rdma_create_id(*ch, id, NULL, RDMA_PS_TCP)) {
		report_error("local", strerror(errno));
		return EXIT_LOCAL;
	}
	return 0;
}

/*
 * Room for @count connections of @per descriptors each, and a few more:
 * the soft limit on open files is raised as far as the hard one allows.
 * Returns 0, or EXIT_LOCAL after saying what the limit is.
 */
int fd_room(int count, int per)
{
	rlim_t want = (rlim_t)count * per + 16;
	struct rlimit rl;
	char detail[160];

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
			      want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		snprintf(detail, sizeof(detail),
			 "%d connections need about %llu open files; the limit is %llu",
			 count, (unsigned long long)want,
			 (unsigned long long)rl.rlim_cur);
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	return 0;
}

int probe_open(struct probe *p)
{
	return cm_open(&p->ch, &p->id);
}

/* Connect on the QP already created, and report the server's answer */
int probe_establish(struct probe *p, const struct pdata_out *out,
		    int ms)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	char addr[64], detail[160];
	int rc;

	memset(&param, 0, sizeof(param));
	param.private_data = out->len ? out->buf : NULL;
	param.private_data_len = out->len;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(p->id, &param)) {
		/*
		 * soft-iWARP opens the TCP connection inside rdma_connect()
		 * (hardware iWARP does so later and reports the outcome as
		 * an event): a port nobody listens on refuses it there, and
		 * a host that never answers times it out, which the kernel
		 * reports as UNREACHABLE when it comes as an event. Neither
		 * is bounded by --timeout.
		 */
		rc = errno;
		if (rc == EADDRINUSE && p->retry_addr_in_use)
			return PROBE_ADDR_IN_USE;
		snprintf(detail, sizeof(detail), "rdma_connect: %s", strerror(rc));
		switch (rc) {
		case ECONNREFUSED:
			report_error("rejected", detail);
			return EXIT_REJECTED;
		case ETIMEDOUT:
		case EHOSTUNREACH:
		case ENETUNREACH:
			report_error("unreachable", detail);
			return EXIT_UNREACHABLE;
		}
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

int probe_connect(struct probe *p, const struct pdata_out *out, int ms)
{
	char detail[160];
	int rc;

	rc = create_qp(p->id, NULL, NULL);
	if (rc) {
		snprintf(detail, sizeof(detail), "creating a QP: %s", strerror(-rc));
		report_error("local", detail);
		return EXIT_LOCAL;
	}
	p->qp = true;
	return probe_establish(p, out, ms);
}

/* A PORT argument, or the default; a usage error unless 1..65535 */
const char *port_arg(const char *cmd, const char *port)
{
	if (!port)
		return DEFAULT_PORT;
	if (!*port || strspn(port, "0123456789") != strlen(port) ||
	    atoi(port) < 1 || atoi(port) > 65535)
		cmd_error(cmd, "port '%s': expected 1..65535", port);
	return port;
}
