/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA-CM code that rpcrdma-cm's probe and listen, and rpcrdma-call
 * (tools/testing/rpcrdma-call), share: what Private Data to send, how to
 * connect, and how to report what came back.
 */
#ifndef _RPCRDMA_CM_CONN_H
#define _RPCRDMA_CM_CONN_H

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <rdma/rdma_cma.h>

#include "rpcrdma-cm.h"

#define DEFAULT_PORT		"20049"
#define DEFAULT_SIZE		4096	/* the Linux client's and server's default */
#define DEFAULT_TIMEOUT		10	/* seconds, probe */
#define RESOLVE_MS		2000
#define QP_DEPTH		4	/* Send and Receive WRs of a QP */

/* Largest Private Data the RDMA CM carries: IB REQ and REP */
#define PDATA_MAX_CONNECT	56
#define PDATA_MAX_ACCEPT	196

/* What we put on the wire, and what a peer concludes from it */
struct pdata_out {
	u8				buf[PDATA_MAX];
	size_t				len;
	struct rpcrdma_cm_params	local;
};

struct probe {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct addrinfo			*ai;
	bool				qp;
	bool				gone;	/* the server ended it */
	/* probe_establish() returns PROBE_ADDR_IN_USE, saying nothing */
	bool				retry_addr_in_use;
};

/*
 * soft-iWARP binds the TCP socket of a connect to the port the RDMA CM
 * chose for the id, from a port space of the CM's own, so a port that
 * the TCP stack has bound already fails rdma_connect() with EADDRINUSE.
 * Another id gets another port: a caller that sets retry_addr_in_use
 * starts over with a new one, PROBE_CONNECT_TRIES times in all, the
 * last without it so that a lasting failure is reported.
 */
#define PROBE_ADDR_IN_USE	(-EADDRINUSE)
#define PROBE_CONNECT_TRIES	5

/* Set by SIGINT or SIGTERM once catch_signals() has run */
extern volatile sig_atomic_t stop_requested;

void catch_signals(void);
void build_pdata(const char *cmd, const struct cmd_args *a,
		 size_t max, struct pdata_out *out);
const char *addr_string(struct sockaddr *sa, char *buf, size_t size);
/* Most connections --count may open and --hold keep */
#define HOLD_MAX		1024

struct pollfd;
int poll_channels(struct pollfd *pfd, int n, int ms);
long long now_ms(void);
int hold_probes(struct probe **ps, int n, int s);
int next_event(struct rdma_event_channel *ch, int ms,
	       struct rdma_cm_event **ev);
int create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
	      struct ibv_cq *cq);
struct out_rec;
void out_decoded(struct out_rec *r, const struct rpcrdma_cm_decoded *d,
		 size_t len);
void out_negotiated(struct out_rec *r, enum rpcrdma_cm_role role,
		    const struct rpcrdma_cm_negotiated *n);
void report_peer(const char *what, const char *peer_addr,
		 enum rpcrdma_cm_role role, const struct pdata_out *sent,
		 const void *data, size_t len);
void report_event(const char *event, const char *what,
		  const char *detail);
void report_error(const char *what, const char *detail);
int expect_event(struct rdma_event_channel *ch, int ms,
		 enum rdma_cm_event_type want, const char *step,
		 int fail_code);
int cm_open(struct rdma_event_channel **ch, struct rdma_cm_id **id);
void probe_destroy_qp(struct probe *p);
void probe_release(struct probe *p);
int probe_resolve(struct probe *p, const char *host, const char *port,
		  int ms);
int fd_room(int count, int per);
int probe_open(struct probe *p);
int probe_establish(struct probe *p, const struct pdata_out *out,
		    int ms);
int probe_connect(struct probe *p, const struct pdata_out *out, int ms);
const char *port_arg(const char *cmd, const char *port);

#endif
