// SPDX-License-Identifier: GPL-2.0
/*
 * What each live svcrdma connection negotiated (RFC 8797):
 *
 *   /sys/kernel/debug/sunrpc/svc_rdma/connections
 *
 * One block of "key: value" lines per connection, blocks separated by
 * an empty line. A reader sees the connections of its own network
 * namespace only, as with the transports under /proc/fs/nfsd. A
 * debugging aid, like the rest of debugfs: it is no ABI, and its
 * contents may change. The svcrdma_cm_accept tracepoint records what
 * each connection negotiated as it is accepted.
 *
 * The lines both ends have come from rpcrdma_cm_conn_show(), as in the
 * client's rpcrdma_cm file. server_recv_wanted is the Receive Size
 * max_req_size asked for; when memory was short at accept time,
 * server_recv_size (what the accept reply advertised) is smaller. The
 * posted minimum and maximum are the smallest and largest Receive
 * buffer posted on the connection, and equal server_recv_size.
 */

#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/seq_file.h>

#include <linux/sunrpc/svc_rdma.h>
#include <net/net_namespace.h>

static DEFINE_MUTEX(svc_rdma_conns_lock);
static LIST_HEAD(svc_rdma_conns);
static struct dentry *svc_rdma_debugfs_dir;

static void svc_rdma_conn_show(struct seq_file *m,
			       const struct svcxprt_rdma *rdma)
{
	const struct rdma_cm_id *id = rdma->sc_cm_id;

	seq_printf(m, "peer: %pISpc\n", &id->route.addr.dst_addr);
	seq_printf(m, "local: %pISpc\n", &id->route.addr.src_addr);
	rpcrdma_cm_conn_show(m, &rdma->sc_cm, RPCRDMA_CM_ROLE_SERVER);
	seq_printf(m, "sends_plain: %lu\n",
		   READ_ONCE(rdma->sc_sends_plain));
	seq_printf(m, "sends_with_inv: %lu\n",
		   READ_ONCE(rdma->sc_sends_inv));
	seq_printf(m, "replies_too_large: %lu\n",
		   atomic_long_read(&rdma->sc_reply_too_large));
	seq_printf(m, "callbacks_too_large: %lu\n",
		   atomic_long_read(&rdma->sc_callback_too_large));
	seq_printf(m, "server_recv_wanted: %u\n", rdma->sc_recv_wanted);
	seq_printf(m, "server_recv_posted_min: %u\n",
		   READ_ONCE(rdma->sc_recv_posted_min));
	seq_printf(m, "server_recv_posted_max: %u\n",
		   READ_ONCE(rdma->sc_recv_posted_max));
}

static int svc_rdma_conns_show(struct seq_file *m, void *v)
{
	const struct net *net = current->nsproxy->net_ns;
	struct svcxprt_rdma *rdma;
	bool first = true;

	mutex_lock(&svc_rdma_conns_lock);
	list_for_each_entry(rdma, &svc_rdma_conns, sc_conn_list) {
		if (!net_eq(rdma->sc_xprt.xpt_net, net))
			continue;
		if (!first)
			seq_putc(m, '\n');
		svc_rdma_conn_show(m, rdma);
		first = false;
	}
	mutex_unlock(&svc_rdma_conns_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svc_rdma_conns);

/**
 * svc_rdma_conn_add - List an accepted connection
 * @rdma: the new transport; its CM Private Data is final
 */
void svc_rdma_conn_add(struct svcxprt_rdma *rdma)
{
	mutex_lock(&svc_rdma_conns_lock);
	list_add_tail(&rdma->sc_conn_list, &svc_rdma_conns);
	mutex_unlock(&svc_rdma_conns_lock);
}

/**
 * svc_rdma_conn_del - Remove a connection from the list
 * @rdma: a transport being freed; it need not be listed
 */
void svc_rdma_conn_del(struct svcxprt_rdma *rdma)
{
	mutex_lock(&svc_rdma_conns_lock);
	list_del_init(&rdma->sc_conn_list);
	mutex_unlock(&svc_rdma_conns_lock);
}

/**
 * svc_rdma_debugfs_init - Create the connections file
 *
 * The file goes in the "sunrpc" debugfs directory, which SUNRPC makes
 * with CONFIG_SUNRPC_DEBUG. Failure is not fatal: the server runs the
 * same without the file.
 */
void svc_rdma_debugfs_init(void)
{
	struct dentry *parent;

	parent = debugfs_lookup("sunrpc", NULL);
	if (IS_ERR_OR_NULL(parent))
		return;
	svc_rdma_debugfs_dir = debugfs_create_dir("svc_rdma", parent);
	dput(parent);
	debugfs_create_file("connections", 0400, svc_rdma_debugfs_dir, NULL,
			    &svc_rdma_conns_fops);
}

/**
 * svc_rdma_debugfs_exit - Remove the connections file
 */
void svc_rdma_debugfs_exit(void)
{
	debugfs_remove_recursive(svc_rdma_debugfs_dir);
	svc_rdma_debugfs_dir = NULL;
}
