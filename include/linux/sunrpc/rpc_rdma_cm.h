/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RPC-over-RDMA version 1 CM Private Data (RFC 8797)
 *
 * Both peers of an RPC-over-RDMA version 1 connection may place an
 * eight-octet message in the RDMA-CM Private Data: the client in its
 * connect request, the server in its accept reply. The message tells
 * the peer the largest RDMA Send the sender will post, the largest
 * RDMA Receive it is prepared for, and whether it supports remote
 * invalidation:
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                   Format Identifier 0xf6ab0e18                |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    Version    |  Reserved   |R|   Send Size   | Receive Size  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The functions declared here are pure: they allocate nothing, take
 * no locks and touch no RDMA object, so the client, the server, the
 * KUnit suite and user-space tools can all share them.
 */

#ifndef _LINUX_SUNRPC_RPC_RDMA_CM_H
#define _LINUX_SUNRPC_RPC_RDMA_CM_H

#include <linux/types.h>

/* RFC 8797 Section 4: the version 1 message */
#define RPCRDMA_CM_FORMAT_ID		0xf6ab0e18
#define RPCRDMA_CM_VERSION		1
#define RPCRDMA_CM_MSG_LEN		8
#define RPCRDMA_CM_FLAG_REMOTE_INV	0x01

/* RFC 8797 Section 4.2: sizes are carried in 1024-octet units */
#define RPCRDMA_CM_SIZE_UNIT		1024U
#define RPCRDMA_CM_SIZE_MIN		1024U
#define RPCRDMA_CM_SIZE_MAX		262144U

/* RFC 8166 Section 3.3.3 and RFC 8797 Section 5.1: a legacy peer */
#define RPCRDMA_CM_SIZE_DEFAULT		1024U

/**
 * struct rpcrdma_cm_params - transport properties one peer advertises
 * @send_size: largest RDMA Send the peer will post, in octets
 * @recv_size: largest RDMA Receive the peer can accept, in octets
 * @remote_inv: the peer supports remote invalidation (the R bit)
 */
struct rpcrdma_cm_params {
	u32	send_size;
	u32	recv_size;
	bool	remote_inv;
};

/**
 * enum rpcrdma_cm_status - what decoding a received buffer found
 * @RPCRDMA_CM_VALID: a version 1 message was found and decoded
 * @RPCRDMA_CM_ABSENT: no buffer, or no Format Identifier in it
 * @RPCRDMA_CM_TRUNCATED: no version 1 message; the first Format
 *	Identifier found is too close to the end of the buffer for the
 *	eight octets of a message
 * @RPCRDMA_CM_BAD_VERSION: no version 1 message; the first Format
 *	Identifier found is followed by another Version
 */
enum rpcrdma_cm_status {
	RPCRDMA_CM_VALID,
	RPCRDMA_CM_ABSENT,
	RPCRDMA_CM_TRUNCATED,
	RPCRDMA_CM_BAD_VERSION,
};

/**
 * struct rpcrdma_cm_decoded - result of decoding received Private Data
 * @params: what the peer advertised; the RFC 8797 Section 5.1 defaults
 *	unless @status is %RPCRDMA_CM_VALID
 * @status: outcome of the search and checks
 * @offset: octet offset of the version 1 message; when there is none,
 *	of the first Format Identifier seen, or -1 if there was none
 * @version: the Version field at @offset, valid unless @status is
 *	%RPCRDMA_CM_ABSENT or %RPCRDMA_CM_TRUNCATED
 */
struct rpcrdma_cm_decoded {
	struct rpcrdma_cm_params	params;
	enum rpcrdma_cm_status		status;
	int				offset;
	u8				version;
};

/**
 * enum rpcrdma_cm_role - which end of the connection is negotiating
 * @RPCRDMA_CM_ROLE_CLIENT: the requester, which sends the connect request
 * @RPCRDMA_CM_ROLE_SERVER: the responder, which sends the accept reply
 */
enum rpcrdma_cm_role {
	RPCRDMA_CM_ROLE_CLIENT,
	RPCRDMA_CM_ROLE_SERVER,
};

/**
 * struct rpcrdma_cm_negotiated - properties in force on one connection
 * @client_to_server: inline threshold for Calls, in octets
 * @server_to_client: inline threshold for Replies, in octets
 * @send_with_inv: the responder may reply with RDMA Send With Invalidate
 */
struct rpcrdma_cm_negotiated {
	u32	client_to_server;
	u32	server_to_client;
	bool	send_with_inv;
};

/**
 * struct rpcrdma_cm_conn - the CM Private Data exchange of one connection
 * @local: what this end advertised
 * @peer: what the other end sent, decoded
 * @negotiated: what is in force on the connection
 *
 * The server keeps one per connection; the client keeps its latest
 * connection's on the transport.
 */
struct rpcrdma_cm_conn {
	struct rpcrdma_cm_params	local;
	struct rpcrdma_cm_decoded	peer;
	struct rpcrdma_cm_negotiated	negotiated;
};

u32 rpcrdma_cm_size_clamp(u32 size);

void rpcrdma_cm_encode(u8 *buf, const struct rpcrdma_cm_params *local);
void rpcrdma_cm_decode(const void *data, size_t len,
		       struct rpcrdma_cm_decoded *result);
void rpcrdma_cm_negotiate(enum rpcrdma_cm_role role,
			  const struct rpcrdma_cm_params *local,
			  const struct rpcrdma_cm_params *peer,
			  struct rpcrdma_cm_negotiated *result);
void rpcrdma_cm_responder_params(u32 buf_size, bool remote_inv,
				 struct rpcrdma_cm_params *local);

#endif /* _LINUX_SUNRPC_RPC_RDMA_CM_H */
