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

int cmd_probe(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_SEND, OPT_RECV, OPT_NO_REMOTE_INV,
				       OPT_NONE, OPT_RAW, OPT_TIMEOUT, 0 };
	struct probe p = { 0 };
	struct rdma_cm_event *ev;
	struct pdata_out out;
	struct cmd_args a;
	const char *port;
	int ms, rc, try;

	parse_cmd_args("probe", argc, argv, &rpcrdma_cm_opts, allowed, &a, NULL);
	if (a.argc < 1 || a.argc > 2)
		usage_error("probe: give HOST and optionally PORT");
	port = port_arg("probe", a.argc == 2 ? a.argv[1] : NULL);
	build_pdata("probe", &a, PDATA_MAX_CONNECT, &out);
	if (!a.timeout)
		usage_error("probe: --timeout must be at least 1 second");
	ms = (a.timeout > 0 ? a.timeout : DEFAULT_TIMEOUT) * 1000;

	for (try = 1; ; try++) {
		memset(&p, 0, sizeof(p));
		p.retry_addr_in_use = try < PROBE_CONNECT_TRIES;
		rc = probe_open(&p);
		if (!rc)
			rc = probe_resolve(&p, a.argv[0], port, ms);
		if (!rc)
			rc = probe_connect(&p, &out, ms);
		if (rc != PROBE_ADDR_IN_USE)
			break;
		probe_release(&p);
	}
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
