// SPDX-License-Identifier: GPL-2.0
/*
 * Show what each RPC-over-RDMA client transport negotiated through
 * RDMA-CM Private Data (RFC 8797), in the transport's debugfs directory:
 *
 *   /sys/kernel/debug/sunrpc/rpc_xprt/<id>/rpcrdma_cm
 *
 * A debugging aid, like the rest of debugfs: it is no ABI, and its
 * contents may change. Scripts should read the "xprt: rdma" line of
 * /proc/self/mountstats instead; the xprtrdma_inline_thresh tracepoint
 * records every connection.
 *
 * One "key: value" per line; sizes are in octets. The values are those
 * of the latest connection. The lines both ends have come from
 * rpcrdma_cm_conn_show(), which nfsd's connections file uses too.
 * client_recv_wanted is the Receive Size the client was set to
 * advertise; when memory was short at connect time, client_recv_size
 * (what it did advertise) is smaller. The posted minimum and maximum
 * are the smallest and largest Receive buffer posted on the
 * connection, and equal client_recv_size.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string_choices.h>

#include "xprt_rdma.h"

/**
 * rpcrdma_cm_conn_show - Show one connection's CM Private Data exchange
 * @m: the seq_file of a debugfs file
 * @cm: the connection's record
 * @role: which end keeps @cm
 *
 * Prints what each end advertised, how the peer's Private Data was
 * found, and what is in force, one "key: value" per line, with the
 * same keys at the client and at the server.
 */
void rpcrdma_cm_conn_show(struct seq_file *m, const struct rpcrdma_cm_conn *cm,
			  enum rpcrdma_cm_role role)
{
	bool client = role == RPCRDMA_CM_ROLE_CLIENT;
	const char *local = client ? "client" : "server";
	const char *peer = client ? "server" : "client";

	seq_printf(m, "%s_send_size: %u\n", local, cm->local.send_size);
	seq_printf(m, "%s_recv_size: %u\n", local, cm->local.recv_size);
	seq_printf(m, "%s_remote_inv: %s\n", local,
		   str_yes_no(cm->local.remote_inv));
	seq_printf(m, "%s_private_data_status: %s\n", peer,
		   rpcrdma_cm_status_name(cm->peer.status));
	seq_printf(m, "%s_private_data_offset: %d\n", peer, cm->peer.offset);
	seq_printf(m, "%s_send_size: %u\n", peer, cm->peer.params.send_size);
	seq_printf(m, "%s_recv_size: %u\n", peer, cm->peer.params.recv_size);
	seq_printf(m, "%s_remote_inv: %s\n", peer,
		   str_yes_no(cm->peer.params.remote_inv));
	seq_printf(m, "client_to_server: %u\n",
		   cm->negotiated.client_to_server);
	seq_printf(m, "server_to_client: %u\n",
		   cm->negotiated.server_to_client);
	seq_printf(m, "send_with_inv: %s\n",
		   str_yes_no(cm->negotiated.send_with_inv));
}

static int rpcrdma_cm_show(struct seq_file *m, void *v)
{
	struct rpcrdma_xprt *r_xprt = m->private;
	struct rpcrdma_cm_conn cm;

	spin_lock(&r_xprt->rx_cm_lock);
	cm = r_xprt->rx_cm;
	spin_unlock(&r_xprt->rx_cm_lock);

	rpcrdma_cm_conn_show(m, &cm, RPCRDMA_CM_ROLE_CLIENT);
	seq_printf(m, "replies_with_inv: %lu\n",
		   READ_ONCE(r_xprt->rx_stats.reply_with_inv));
	seq_printf(m, "client_recv_wanted: %u\n",
		   READ_ONCE(r_xprt->rx_recv_wanted));
	seq_printf(m, "client_recv_posted_min: %u\n",
		   READ_ONCE(r_xprt->rx_recv_posted_min));
	seq_printf(m, "client_recv_posted_max: %u\n",
		   READ_ONCE(r_xprt->rx_recv_posted_max));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rpcrdma_cm);

/**
 * rpcrdma_cm_debugfs_add - Add the rpcrdma_cm file to a transport
 * @r_xprt: a client transport that has just connected
 *
 * The transport's debugfs directory appears only after the transport
 * is set up, so the file is added on the first connection. It goes
 * away with the directory, which sunrpc removes before it destroys
 * the transport.
 */
void rpcrdma_cm_debugfs_add(struct rpcrdma_xprt *r_xprt)
{
	struct dentry *dir = r_xprt->rx_xprt.debugfs;

	if (r_xprt->rx_cm_debugfs || IS_ERR_OR_NULL(dir))
		return;
	debugfs_create_file("rpcrdma_cm", 0400, dir, r_xprt, &rpcrdma_cm_fops);
	r_xprt->rx_cm_debugfs = true;
}
