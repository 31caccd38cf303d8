// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm probe: connect to an RPC-over-RDMA listener with the
 * Private Data we choose, report what the server answered, and leave.
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

/* Most connections --count opens */
#define PROBE_COUNT_MAX		HOLD_MAX
/* Descriptors a connection holds: its event channel, and the two
 * completion channels librdmacm makes with the QP
 */
#define PROBE_FDS		3

/* Connect @p, starting over while soft-iWARP finds the port in use */
static int probe_one(struct probe *p, const char *host, const char *port,
		     const struct pdata_out *out, int ms)
{
	int rc, try;

	for (try = 1; ; try++) {
		memset(p, 0, sizeof(*p));
		p->retry_addr_in_use = try < PROBE_CONNECT_TRIES;
		rc = probe_open(p);
		if (!rc)
			rc = probe_resolve(p, host, port, ms);
		if (!rc)
			rc = probe_connect(p, out, ms);
		if (rc != PROBE_ADDR_IN_USE)
			return rc;
		probe_release(p);
	}
}

/*
 * Leave as a well-behaved client would: disconnect every connection the
 * server has not ended, then wait up to @ms in all for the answers
 */
static void probe_leave(struct probe *ps, int n, int ms)
{
	long long deadline = now_ms() + ms;
	struct rdma_cm_event *ev;
	int i, late = 0;

	for (i = 0; i < n; i++)
		if (!ps[i].gone)
			rdma_disconnect(ps[i].id);
	for (i = 0; i < n && !late; i++) {
		long long left = deadline - now_ms();

		if (ps[i].gone)
			continue;
		if (left > 0 && next_event(ps[i].ch, (int)left, &ev) == 0)
			rdma_ack_cm_event(ev);
		else
			late++;
	}
	if (late)
		report_event("warning", "disconnect", n == 1 ?
			     "the server did not confirm the disconnect" :
			     "the server did not confirm every disconnect");
}

int cmd_probe(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_REMOTE_INV,
				       OPT_NONE, OPT_RAW, OPT_TIMEOUT, OPT_COUNT,
				       OPT_HOLD, 0 };
	static struct probe ps[PROBE_COUNT_MAX], *held[PROBE_COUNT_MAX];
	struct pdata_out out;
	struct cmd_args a;
	const char *port;
	int ms, rc = 0, n, i;

	parse_cmd_args("probe", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (a.argc < 1 || a.argc > 2)
		usage_error("probe: give HOST and optionally PORT");
	port = port_arg("probe", a.argc == 2 ? a.argv[1] : NULL);
	build_pdata("probe", &a, PDATA_MAX_CONNECT, &out);
	if (!a.timeout)
		usage_error("probe: --timeout must be at least 1 second");
	if (!a.count || a.count > PROBE_COUNT_MAX)
		usage_error("probe: --count takes 1..%d", PROBE_COUNT_MAX);
	ms = (a.timeout > 0 ? a.timeout : DEFAULT_TIMEOUT) * 1000;
	n = a.count > 0 ? a.count : 1;
	rc = fd_room(n, PROBE_FDS);
	if (rc)
		return rc;

	if (a.hold > 0)
		catch_signals();
	for (i = 0; i < n && !rc && !stop_requested; i++) {
		held[i] = &ps[i];
		rc = probe_one(&ps[i], a.argv[0], port, &out, ms);
		if (rc) {
			/* the failed one has no connection to leave */
			probe_release(&ps[i]);
			memset(&ps[i], 0, sizeof(ps[i]));
		}
	}
	if (rc || stop_requested)
		i -= !!rc;
	else if (a.hold > 0)
		rc = hold_probes(held, n, a.hold);
	n = i;
	probe_leave(ps, n, ms);
	for (i = 0; i < n; i++)
		probe_release(&ps[i]);
	return rc;
}
