/* packet-rpcrdma-cm.c
 * Routines for RPC-over-RDMA version 1 CM Private Data (RFC 8797)
 *
 * When an RPC-over-RDMA version 1 connection is set up through an
 * InfiniBand-style Connection Manager (native InfiniBand, RoCE, RoCEv2),
 * the client may put an eight-octet message into the Private Data of its
 * ConnectRequest (REQ) and the server into that of its ConnectReply (REP).
 * Each advertises the largest RDMA Send its sender will post, the largest
 * RDMA Receive it can accept and whether it supports remote invalidation.
 *
 * This dissector finds and decodes that message, and, for a REP whose REQ
 * is in the capture, shows the inline thresholds and the remote
 * invalidation setting the two peers arrive at.
 *
 * On iWARP the same message travels in the Private Data of the MPA
 * Request and Reply frames (RFC 5044), behind the IRD and ORD octets of
 * enhanced MPA (RFC 6581) where the peers use it. Wireshark's MPA
 * dissector offers no table for that Private Data, so a postdissector
 * finds the frame through its key field, skips IRD and ORD, and decodes
 * the rest the same way; a Reply is paired with the Request of its TCP
 * connection.
 *
 * The search for the message follows the Linux kernel's decoder
 * (net/sunrpc/xprtrdma/cm_private_data.c) exactly, so that what is shown
 * here is what a Linux peer concludes from the same octets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#define WS_BUILD_DLL
#include <wireshark.h>

#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/proto_data.h>
#include <epan/expert.h>
#include <epan/address.h>
#include <epan/tfs.h>
#include <epan/dissectors/packet-infiniband.h>
#include <epan/conversation.h>

#ifndef VERSION
#define VERSION "0.1.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void proto_register_rpcrdma_cm(void);
void proto_reg_handoff_rpcrdma_cm(void);

/* RFC 8797 Section 4: the version 1 message */
#define RPCRDMA_CM_FORMAT_ID        0xf6ab0e18
#define RPCRDMA_CM_VERSION          1
#define RPCRDMA_CM_MSG_LEN          8
#define RPCRDMA_CM_OFF_VERSION      4
#define RPCRDMA_CM_OFF_FLAGS        5
#define RPCRDMA_CM_OFF_SEND_SIZE    6
#define RPCRDMA_CM_OFF_RECV_SIZE    7
#define RPCRDMA_CM_FLAG_R           0x01
#define RPCRDMA_CM_FLAGS_RESERVED   0xfe

/* RFC 8797 Section 4.2: sizes travel as "kilo-octets minus one" */
#define RPCRDMA_CM_SIZE_UNIT        1024
/* RFC 8797 Section 5.1 with RFC 8166 Section 3.3.3: a peer that sent nothing */
#define RPCRDMA_CM_SIZE_DEFAULT     1024

/*
 * Linux nfsd sizes its Replies by its own max_req_size, which it never
 * sets below 4096, whatever Receive Size the client advertised.
 */
#define RPCRDMA_CM_LINUX_MIN_REPLY  4096

/* Outcome of the search, the same values and order as the Linux codec */
#define RPCRDMA_CM_VALID            0
#define RPCRDMA_CM_ABSENT           1
#define RPCRDMA_CM_TRUNCATED        2
#define RPCRDMA_CM_BAD_VERSION      3

/*
 * Where the InfiniBand dissector's Private Data tvbs sit inside the MAD.
 * A MAD is a 24-octet common header followed by 232 octets of CM message.
 */
#define IB_MAD_HDR_LEN              24
#define IB_MAD_CLASS_OFF            1
#define IB_MAD_ATTR_ID_OFF          16
#define IB_MAD_CLASS_CM             0x07
#define IB_CM_DATA_LEN              232
#define IB_CM_REQ_SID_OFF           8
#define IB_CM_REQ_PDATA_OFF         140     /* 92 octets of REQ Private Data */
#define IB_CM_REQ_PDATA_LEN         92
#define IB_IP_CM_HDR_LEN            36      /* RDMA IP CM header in front of ... */
#define IB_IP_CM_PDATA_LEN          56      /* ... the consumer's Private Data */
#define IB_CM_REP_PDATA_OFF         36      /* 196 octets of REP Private Data */
#define IB_CM_REP_PDATA_LEN         196
#define IB_IP_CM_SID_MASK           G_GUINT64_CONSTANT(0xFFFFFFFFFF000000)
#define IB_IP_CM_SID_PREFIX         G_GUINT64_CONSTANT(0x0000000001000000)

/*
 * An MPA Request or Reply frame (RFC 5044 Section 7.1): a 16-octet key,
 * a flags octet, the Revision, the Private Data length, the Private
 * Data. With Revision 2 and the enhanced flag (RFC 6581 Section 5) the
 * Private Data starts with 16-bit IRD and ORD fields, of which the low
 * 14 bits are the values.
 */
#define MPA_KEY_LEN                 16
#define MPA_HDR_LEN                 20
#define MPA_FLAGS_OFF               16
#define MPA_REV_OFF                 17
#define MPA_PDLEN_OFF               18
#define MPA_FLAG_ENHANCED           0x10
#define MPA_REV_ENHANCED            2
#define MPA_IRD_ORD_LEN             4
#define MPA_IRD_ORD_MASK            0x3fff

static int proto_rpcrdma_cm = -1;
static int hf_mpa_key_req = -1;
static int hf_mpa_key_rep = -1;
static dissector_handle_t rpcrdma_cm_mpa_handle;

static int hf_rpcrdma_cm_msg = -1;
static int hf_rpcrdma_cm_status = -1;
static int hf_rpcrdma_cm_offset = -1;
static int hf_rpcrdma_cm_format_id = -1;
static int hf_rpcrdma_cm_version = -1;
static int hf_rpcrdma_cm_flags = -1;
static int hf_rpcrdma_cm_reserved = -1;
static int hf_rpcrdma_cm_r = -1;
static int hf_rpcrdma_cm_send_size_enc = -1;
static int hf_rpcrdma_cm_send_size = -1;
static int hf_rpcrdma_cm_recv_size_enc = -1;
static int hf_rpcrdma_cm_recv_size = -1;
static int hf_rpcrdma_cm_default_send_size = -1;
static int hf_rpcrdma_cm_default_recv_size = -1;
static int hf_rpcrdma_cm_default_r = -1;
static int hf_rpcrdma_cm_req_frame = -1;
static int hf_rpcrdma_cm_rep_frame = -1;
static int hf_rpcrdma_cm_c2s_threshold = -1;
static int hf_rpcrdma_cm_s2c_threshold = -1;
static int hf_rpcrdma_cm_send_with_inv = -1;
static int hf_rpcrdma_cm_mpa_ird = -1;
static int hf_rpcrdma_cm_mpa_ord = -1;

static gint ett_rpcrdma_cm = -1;
static gint ett_rpcrdma_cm_msg = -1;
static gint ett_rpcrdma_cm_flags = -1;
static gint ett_rpcrdma_cm_ignored = -1;
static gint ett_rpcrdma_cm_defaults = -1;
static gint ett_rpcrdma_cm_conn = -1;
static gint ett_rpcrdma_cm_mpa = -1;

static expert_field ei_rpcrdma_cm_truncated = EI_INIT;
static expert_field ei_rpcrdma_cm_version_unknown = EI_INIT;
static expert_field ei_rpcrdma_cm_reserved_nonzero = EI_INIT;
static expert_field ei_rpcrdma_cm_size_linux = EI_INIT;

static const value_string rpcrdma_cm_msg_vals[] = {
    { ATTR_CM_REQ, "ConnectRequest" },
    { ATTR_CM_REP, "ConnectReply" },
    { 0, NULL }
};

static const value_string rpcrdma_cm_status_vals[] = {
    { RPCRDMA_CM_VALID,       "valid" },
    { RPCRDMA_CM_ABSENT,      "absent" },
    { RPCRDMA_CM_TRUNCATED,   "truncated" },
    { RPCRDMA_CM_BAD_VERSION, "bad-version" },
    { 0, NULL }
};

/* What one peer advertises, or is taken to advertise */
typedef struct {
    guint32  send_size;
    guint32  recv_size;
    gboolean remote_inv;
} rpcrdma_cm_params_t;

/* What the search found in one Private Data buffer */
typedef struct {
    rpcrdma_cm_params_t peer;   /* the sender's, or the RFC defaults */
    guint8   status;
    gint     offset;            /* message, else first identifier, else -1 */
    guint8   version;           /* meaningful for valid and bad-version */
} rpcrdma_cm_decoded_t;

/*
 * One connection attempt, created by its REQ. The map below finds it from
 * the REP by (client address, client's Local Communication ID).
 */
typedef struct {
    guint32  req_frame;
    guint32  rep_frame;         /* first REP seen for it, 0 if none yet */
    gboolean req_claimed;       /* the REQ carried an identifier */
    rpcrdma_cm_params_t client; /* what the server goes by */
} rpcrdma_cm_conn_t;

typedef struct {
    address  client;
    guint32  comm_id;
} rpcrdma_cm_key_t;

/* Everything computed for one frame, kept for later passes */
typedef struct {
    rpcrdma_cm_decoded_t dec;
    gboolean claimed;
    rpcrdma_cm_conn_t *conn;    /* REQ: its own record; REP: its REQ's */
    guint32  c2s_threshold;     /* REP with conn only */
    guint32  s2c_threshold;
    gboolean send_with_inv;
} rpcrdma_cm_frame_t;

static wmem_map_t *rpcrdma_cm_conns;

static guint
rpcrdma_cm_key_hash(gconstpointer k)
{
    const rpcrdma_cm_key_t *key = (const rpcrdma_cm_key_t *)k;

    return add_address_to_hash(key->comm_id, &key->client);
}

static gboolean
rpcrdma_cm_key_equal(gconstpointer a, gconstpointer b)
{
    const rpcrdma_cm_key_t *ka = (const rpcrdma_cm_key_t *)a;
    const rpcrdma_cm_key_t *kb = (const rpcrdma_cm_key_t *)b;

    return ka->comm_id == kb->comm_id &&
           addresses_equal(&ka->client, &kb->client);
}

static guint32
rpcrdma_cm_size_decode(guint8 code)
{
    return ((guint32)code + 1) * RPCRDMA_CM_SIZE_UNIT;
}

static void
rpcrdma_cm_set_defaults(rpcrdma_cm_params_t *params)
{
    params->send_size = RPCRDMA_CM_SIZE_DEFAULT;
    params->recv_size = RPCRDMA_CM_SIZE_DEFAULT;
    params->remote_inv = FALSE;
}

/*
 * Offset of the first Format Identifier at or after @from, or -1.
 * RFC 8797 Section 5.2: the identifier may sit at any octet offset.
 */
static gint
rpcrdma_cm_find_format_id(tvbuff_t *tvb, gint from)
{
    gint len = (gint)tvb_captured_length(tvb);
    gint i;

    for (i = from; i + 4 <= len; i++) {
        if (tvb_get_ntohl(tvb, i) == RPCRDMA_CM_FORMAT_ID)
            return i;
    }
    return -1;
}

/*
 * Walk the identifiers from the start of the buffer. The first one with
 * Version 1 and eight octets in the buffer is the message. One followed by
 * another Version is passed over, so that a stray 0xf6ab0e18 or a future
 * format cannot hide a version 1 message behind it. An identifier with
 * fewer than eight octets left ends the search: any later one would be
 * shorter still. Unless a message is found, the status and offset describe
 * the first identifier seen and the sender gets the defaults (Section 5.1).
 */
static void
rpcrdma_cm_decode(tvbuff_t *tvb, rpcrdma_cm_decoded_t *dec)
{
    gint len = (gint)tvb_captured_length(tvb);
    gint offset;
    guint8 version;
    guint8 flags;

    rpcrdma_cm_set_defaults(&dec->peer);
    dec->status = RPCRDMA_CM_ABSENT;
    dec->offset = -1;
    dec->version = 0;

    for (offset = rpcrdma_cm_find_format_id(tvb, 0); offset >= 0;
         offset = rpcrdma_cm_find_format_id(tvb, offset + 1)) {
        if (len - offset < RPCRDMA_CM_MSG_LEN) {
            if (dec->offset < 0) {
                dec->status = RPCRDMA_CM_TRUNCATED;
                dec->offset = offset;
            }
            return;
        }
        version = tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_VERSION);
        if (version == RPCRDMA_CM_VERSION) {
            flags = tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_FLAGS);
            dec->status = RPCRDMA_CM_VALID;
            dec->offset = offset;
            dec->version = version;
            dec->peer.remote_inv = (flags & RPCRDMA_CM_FLAG_R) != 0;
            dec->peer.send_size = rpcrdma_cm_size_decode(
                tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_SEND_SIZE));
            dec->peer.recv_size = rpcrdma_cm_size_decode(
                tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_RECV_SIZE));
            return;
        }
        if (dec->offset < 0) {
            dec->status = RPCRDMA_CM_BAD_VERSION;
            dec->offset = offset;
            dec->version = version;
        }
    }
}

/*
 * The heuristic gets only the Private Data, so the Communication IDs are
 * read from the enclosing MAD through the data source tvb. The offsets are
 * those of the InfiniBand dissector's subset tvbs; the MAD header is
 * checked so that nothing else is mistaken for the CM message.
 *
 * An upstream version would not do this: the InfiniBand dissector would
 * pass the Local and Remote Communication IDs in struct infinibandinfo.
 */
static gboolean
rpcrdma_cm_get_comm_ids(tvbuff_t *tvb, guint16 attr_id,
                        guint32 *local_id, guint32 *remote_id)
{
    tvbuff_t *ds_tvb = tvb_get_ds_tvb(tvb);
    gint len = (gint)tvb_captured_length(tvb);
    gint pdata_off;
    gint raw;
    gint cm_start;
    gint mad_start;

    if (!ds_tvb)
        return FALSE;

    if (attr_id == ATTR_CM_REQ && len == IB_IP_CM_PDATA_LEN)
        pdata_off = IB_CM_REQ_PDATA_OFF + IB_IP_CM_HDR_LEN;
    else if (attr_id == ATTR_CM_REQ && len == IB_CM_REQ_PDATA_LEN)
        pdata_off = IB_CM_REQ_PDATA_OFF;
    else if (attr_id == ATTR_CM_REP && len == IB_CM_REP_PDATA_LEN)
        pdata_off = IB_CM_REP_PDATA_OFF;
    else
        return FALSE;

    raw = tvb_raw_offset(tvb);
    if (raw < pdata_off + IB_MAD_HDR_LEN)
        return FALSE;
    cm_start = raw - pdata_off;
    mad_start = cm_start - IB_MAD_HDR_LEN;
    if (!tvb_bytes_exist(ds_tvb, mad_start, IB_MAD_HDR_LEN + IB_CM_DATA_LEN))
        return FALSE;

    /* Is ds_tvb really what backs this tvb? */
    if (tvb_memeql(ds_tvb, raw, tvb_get_ptr(tvb, 0, len), len) != 0)
        return FALSE;

    if (tvb_get_guint8(ds_tvb, mad_start + IB_MAD_CLASS_OFF) != IB_MAD_CLASS_CM)
        return FALSE;
    if (tvb_get_ntohs(ds_tvb, mad_start + IB_MAD_ATTR_ID_OFF) != attr_id)
        return FALSE;
    if (attr_id == ATTR_CM_REQ && len == IB_IP_CM_PDATA_LEN &&
        (tvb_get_ntoh64(ds_tvb, cm_start + IB_CM_REQ_SID_OFF) & IB_IP_CM_SID_MASK) !=
            IB_IP_CM_SID_PREFIX)
        return FALSE;

    *local_id = tvb_get_ntohl(ds_tvb, cm_start);
    *remote_id = tvb_get_ntohl(ds_tvb, cm_start + 4);
    return TRUE;
}

/*
 * The client's address: the source of a REQ, the destination of a REP.
 *
 * pinfo->src of a REQ cannot be used as it is: on the first pass the
 * InfiniBand dissector (4.0, save_conversation_info()) overwrites it with
 * the REQ's Primary Local Port LID before it calls the heuristics, so it
 * differs from the address the REP is sent to. The network-layer address
 * (RoCEv2: IP) and then the link-layer one (RoCE: Ethernet) are left
 * alone, so they come first. Native InfiniBand has neither; there the
 * LID that replaced pinfo->src of the REQ matches the DLID of the REP
 * when the REP carries no GRH.
 */
static const address *
rpcrdma_cm_client_addr(packet_info *pinfo, gboolean is_req)
{
    const address *net = is_req ? &pinfo->net_src : &pinfo->net_dst;
    const address *dl = is_req ? &pinfo->dl_src : &pinfo->dl_dst;

    if (net->type != AT_NONE)
        return net;
    if (dl->type != AT_NONE)
        return dl;
    return is_req ? &pinfo->src : &pinfo->dst;
}

/* First pass only: remember a REQ, or find the REQ of a REP */
static void
rpcrdma_cm_track(tvbuff_t *tvb, packet_info *pinfo, guint16 attr_id,
                 rpcrdma_cm_frame_t *fd)
{
    rpcrdma_cm_key_t lookup;
    rpcrdma_cm_key_t *key;
    rpcrdma_cm_conn_t *conn;
    const rpcrdma_cm_params_t *client;
    const rpcrdma_cm_params_t *server;
    guint32 local_id, remote_id;

    if (!rpcrdma_cm_get_comm_ids(tvb, attr_id, &local_id, &remote_id))
        return;

    if (attr_id == ATTR_CM_REQ) {
        conn = wmem_new0(wmem_file_scope(), rpcrdma_cm_conn_t);
        conn->req_frame = pinfo->num;
        conn->req_claimed = fd->dec.status != RPCRDMA_CM_ABSENT;
        conn->client = fd->dec.peer;

        /* A retransmitted REQ replaces the earlier one */
        key = wmem_new0(wmem_file_scope(), rpcrdma_cm_key_t);
        copy_address_wmem(wmem_file_scope(), &key->client,
                          rpcrdma_cm_client_addr(pinfo, TRUE));
        key->comm_id = local_id;
        wmem_map_insert(rpcrdma_cm_conns, key, conn);
        fd->conn = conn;
        return;
    }

    /* A REP: its Remote Communication ID is the client's Local one */
    lookup.client = *rpcrdma_cm_client_addr(pinfo, FALSE);
    lookup.comm_id = remote_id;
    conn = (rpcrdma_cm_conn_t *)wmem_map_lookup(rpcrdma_cm_conns, &lookup);
    if (!conn)
        return;
    if (conn->rep_frame == 0)
        conn->rep_frame = pinfo->num;

    /* RFC 8797 Sections 4.1 and 4.2 */
    client = &conn->client;
    server = &fd->dec.peer;
    fd->conn = conn;
    fd->c2s_threshold = MIN(client->send_size, server->recv_size);
    fd->s2c_threshold = MIN(server->send_size, client->recv_size);
    fd->send_with_inv = client->remote_inv && server->remote_inv;
}

/* A Format Identifier followed by a Version other than 1 */
static void
rpcrdma_cm_add_ignored(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
                       gint offset)
{
    proto_tree *sub;
    proto_item *ti;
    guint32 version;

    sub = proto_tree_add_subtree_format(tree, tvb, offset, RPCRDMA_CM_MSG_LEN,
                                        ett_rpcrdma_cm_ignored, NULL,
                                        "Ignored message at offset %d (Version %u)",
                                        offset,
                                        tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_VERSION));
    proto_tree_add_item(sub, hf_rpcrdma_cm_format_id, tvb, offset, 4, ENC_BIG_ENDIAN);
    ti = proto_tree_add_item_ret_uint(sub, hf_rpcrdma_cm_version, tvb,
                                      offset + RPCRDMA_CM_OFF_VERSION, 1,
                                      ENC_BIG_ENDIAN, &version);
    expert_add_info_format(pinfo, ti, &ei_rpcrdma_cm_version_unknown,
                           "Format Identifier followed by Version %u, not 1: "
                           "receivers ignore this message (RFC 8797 Section 6)",
                           version);
}

/* A Format Identifier with fewer than eight octets after its start */
static void
rpcrdma_cm_add_truncated(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
                         gint offset)
{
    gint left = (gint)tvb_captured_length_remaining(tvb, offset);
    proto_tree *sub;
    proto_item *ti;

    sub = proto_tree_add_subtree_format(tree, tvb, offset, left,
                                        ett_rpcrdma_cm_ignored, NULL,
                                        "Truncated message at offset %d (%d of %d octets)",
                                        offset, left, RPCRDMA_CM_MSG_LEN);
    ti = proto_tree_add_item(sub, hf_rpcrdma_cm_format_id, tvb, offset, 4, ENC_BIG_ENDIAN);
    if (left > RPCRDMA_CM_OFF_VERSION)
        proto_tree_add_item(sub, hf_rpcrdma_cm_version, tvb,
                            offset + RPCRDMA_CM_OFF_VERSION, 1, ENC_BIG_ENDIAN);
    expert_add_info_format(pinfo, ti, &ei_rpcrdma_cm_truncated,
                           "Format Identifier %d octets from the end of the Private Data: "
                           "too close for an 8-octet message, which is ignored (RFC 8797 Section 5.2)",
                           left);
}

/* The version 1 message itself */
static void
rpcrdma_cm_add_message(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
                       gint offset, guint16 attr_id)
{
    static int * const flags_fields[] = {
        &hf_rpcrdma_cm_reserved,
        &hf_rpcrdma_cm_r,
        NULL
    };
    proto_tree *sub;
    proto_item *ti;
    guint32 code;
    guint32 recv_size;

    sub = proto_tree_add_subtree_format(tree, tvb, offset, RPCRDMA_CM_MSG_LEN,
                                        ett_rpcrdma_cm_msg, NULL,
                                        "RPC-over-RDMA version 1 message at offset %d",
                                        offset);
    proto_tree_add_item(sub, hf_rpcrdma_cm_format_id, tvb, offset, 4, ENC_BIG_ENDIAN);
    proto_tree_add_item(sub, hf_rpcrdma_cm_version, tvb,
                        offset + RPCRDMA_CM_OFF_VERSION, 1, ENC_BIG_ENDIAN);

    ti = proto_tree_add_bitmask(sub, tvb, offset + RPCRDMA_CM_OFF_FLAGS,
                                hf_rpcrdma_cm_flags, ett_rpcrdma_cm_flags,
                                flags_fields, ENC_BIG_ENDIAN);
    if (tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_FLAGS) & RPCRDMA_CM_FLAGS_RESERVED)
        expert_add_info(pinfo, ti, &ei_rpcrdma_cm_reserved_nonzero);

    proto_tree_add_item_ret_uint(sub, hf_rpcrdma_cm_send_size_enc, tvb,
                                 offset + RPCRDMA_CM_OFF_SEND_SIZE, 1,
                                 ENC_BIG_ENDIAN, &code);
    ti = proto_tree_add_uint(sub, hf_rpcrdma_cm_send_size, tvb,
                             offset + RPCRDMA_CM_OFF_SEND_SIZE, 1,
                             rpcrdma_cm_size_decode((guint8)code));
    proto_item_set_generated(ti);

    proto_tree_add_item_ret_uint(sub, hf_rpcrdma_cm_recv_size_enc, tvb,
                                 offset + RPCRDMA_CM_OFF_RECV_SIZE, 1,
                                 ENC_BIG_ENDIAN, &code);
    recv_size = rpcrdma_cm_size_decode((guint8)code);
    ti = proto_tree_add_uint(sub, hf_rpcrdma_cm_recv_size, tvb,
                             offset + RPCRDMA_CM_OFF_RECV_SIZE, 1, recv_size);
    proto_item_set_generated(ti);
    if (attr_id == ATTR_CM_REQ && recv_size < RPCRDMA_CM_LINUX_MIN_REPLY)
        expert_add_info_format(pinfo, ti, &ei_rpcrdma_cm_size_linux,
                               "Receive Size %u is below %u: Linux nfsd (up to at least 7.3) "
                               "ignores the client's Receive Size and sends Replies of up to its "
                               "max_req_size, never below %u, so this client can be sent a "
                               "Send it cannot receive",
                               recv_size, RPCRDMA_CM_LINUX_MIN_REPLY,
                               RPCRDMA_CM_LINUX_MIN_REPLY);
}

static void
rpcrdma_cm_add_defaults(proto_tree *tree, tvbuff_t *tvb)
{
    proto_tree *sub;
    proto_item *ti;

    sub = proto_tree_add_subtree(tree, tvb, 0, 0, ett_rpcrdma_cm_defaults, &ti,
                                 "Parameters assumed: RFC 8797 Section 5.1 defaults");
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(sub, hf_rpcrdma_cm_default_send_size, tvb, 0, 0,
                             RPCRDMA_CM_SIZE_DEFAULT);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(sub, hf_rpcrdma_cm_default_recv_size, tvb, 0, 0,
                             RPCRDMA_CM_SIZE_DEFAULT);
    proto_item_set_generated(ti);
    ti = proto_tree_add_boolean(sub, hf_rpcrdma_cm_default_r, tvb, 0, 0, FALSE);
    proto_item_set_generated(ti);
}

static void
rpcrdma_cm_set_columns(packet_info *pinfo, const rpcrdma_cm_frame_t *fd,
                       guint16 attr_id)
{
    const rpcrdma_cm_decoded_t *dec = &fd->dec;

    col_set_str(pinfo->cinfo, COL_PROTOCOL, "RPCRDMA-CM");
    switch (dec->status) {
        case RPCRDMA_CM_VALID:
            col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ",
                                "RPC-over-RDMA v1 send=%u recv=%u%s",
                                dec->peer.send_size, dec->peer.recv_size,
                                dec->peer.remote_inv ? " R" : "");
            break;
        case RPCRDMA_CM_TRUNCATED:
            col_append_sep_str(pinfo->cinfo, COL_INFO, ", ",
                               "RPC-over-RDMA v1 (truncated)");
            break;
        case RPCRDMA_CM_BAD_VERSION:
            col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ",
                                "RPC-over-RDMA v1 (bad-version %u)", dec->version);
            break;
        default:
            col_append_sep_str(pinfo->cinfo, COL_INFO, ", ",
                               "RPC-over-RDMA v1 (absent)");
            break;
    }
    if (attr_id == ATTR_CM_REP && fd->conn)
        col_append_fstr(pinfo->cinfo, COL_INFO, " c2s=%u s2c=%u%s",
                        fd->c2s_threshold, fd->s2c_threshold,
                        fd->send_with_inv ? " inv" : "");
}

static void
rpcrdma_cm_add_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                    const rpcrdma_cm_frame_t *fd, guint16 attr_id)
{
    const rpcrdma_cm_decoded_t *dec = &fd->dec;
    gint len = (gint)tvb_captured_length(tvb);
    proto_tree *cm_tree;
    proto_tree *conn_tree;
    proto_item *ti;
    gint offset;

    if (dec->status == RPCRDMA_CM_VALID)
        ti = proto_tree_add_item(tree, proto_rpcrdma_cm, tvb, dec->offset,
                                 RPCRDMA_CM_MSG_LEN, ENC_NA);
    else
        ti = proto_tree_add_item(tree, proto_rpcrdma_cm, tvb, 0, -1, ENC_NA);
    proto_item_append_text(ti, ", %s",
                           val_to_str_const(dec->status, rpcrdma_cm_status_vals, "?"));
    cm_tree = proto_item_add_subtree(ti, ett_rpcrdma_cm);

    ti = proto_tree_add_uint(cm_tree, hf_rpcrdma_cm_msg, tvb, 0, 0, attr_id);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(cm_tree, hf_rpcrdma_cm_status, tvb, 0, 0, dec->status);
    proto_item_set_generated(ti);
    if (dec->offset >= 0) {
        ti = proto_tree_add_uint(cm_tree, hf_rpcrdma_cm_offset, tvb,
                                 dec->offset, 4, (guint32)dec->offset);
        proto_item_set_generated(ti);
    }

    /* The same walk as rpcrdma_cm_decode(), this time showing each step */
    for (offset = rpcrdma_cm_find_format_id(tvb, 0); offset >= 0;
         offset = rpcrdma_cm_find_format_id(tvb, offset + 1)) {
        if (len - offset < RPCRDMA_CM_MSG_LEN) {
            rpcrdma_cm_add_truncated(cm_tree, pinfo, tvb, offset);
            break;
        }
        if (tvb_get_guint8(tvb, offset + RPCRDMA_CM_OFF_VERSION) == RPCRDMA_CM_VERSION) {
            rpcrdma_cm_add_message(cm_tree, pinfo, tvb, offset, attr_id);
            break;
        }
        rpcrdma_cm_add_ignored(cm_tree, pinfo, tvb, offset);
    }

    if (dec->status != RPCRDMA_CM_VALID)
        rpcrdma_cm_add_defaults(cm_tree, tvb);

    if (!fd->conn)
        return;

    if (attr_id == ATTR_CM_REQ) {
        if (fd->conn->rep_frame) {
            ti = proto_tree_add_uint(cm_tree, hf_rpcrdma_cm_rep_frame, tvb, 0, 0,
                                     fd->conn->rep_frame);
            proto_item_set_generated(ti);
        }
        return;
    }

    conn_tree = proto_tree_add_subtree(cm_tree, tvb, 0, 0, ett_rpcrdma_cm_conn, &ti,
                                       "Connection (RFC 8797 Sections 4.1 and 4.2)");
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(conn_tree, hf_rpcrdma_cm_req_frame, tvb, 0, 0,
                             fd->conn->req_frame);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(conn_tree, hf_rpcrdma_cm_c2s_threshold, tvb, 0, 0,
                             fd->c2s_threshold);
    proto_item_set_generated(ti);
    ti = proto_tree_add_uint(conn_tree, hf_rpcrdma_cm_s2c_threshold, tvb, 0, 0,
                             fd->s2c_threshold);
    proto_item_set_generated(ti);
    ti = proto_tree_add_boolean(conn_tree, hf_rpcrdma_cm_send_with_inv, tvb, 0, 0,
                                fd->send_with_inv);
    proto_item_set_generated(ti);
}

/*
 * Heuristic on "infiniband.mad.cm.private". The InfiniBand dissector hands
 * over the Private Data of every CM message; only REQ and REP carry this
 * format.
 */
static gboolean
dissect_rpcrdma_cm_ib_heur(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                           void *data)
{
    struct infinibandinfo *info = (struct infinibandinfo *)data;
    rpcrdma_cm_frame_t *fd;
    guint16 attr_id;

    if (!info)
        return FALSE;
    attr_id = info->cm_attribute_id;
    if (attr_id != ATTR_CM_REQ && attr_id != ATTR_CM_REP)
        return FALSE;

    fd = (rpcrdma_cm_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo,
                                                proto_rpcrdma_cm, 0);
    if (!fd) {
        fd = wmem_new0(wmem_file_scope(), rpcrdma_cm_frame_t);
        rpcrdma_cm_decode(tvb, &fd->dec);
        /* REQs without an identifier are tracked too: their REP may have one */
        if (!PINFO_FD_VISITED(pinfo))
            rpcrdma_cm_track(tvb, pinfo, attr_id, fd);
        fd->claimed = fd->dec.status != RPCRDMA_CM_ABSENT ||
                      (attr_id == ATTR_CM_REP && fd->conn && fd->conn->req_claimed);
        p_add_proto_data(wmem_file_scope(), pinfo, proto_rpcrdma_cm, 0, fd);
    }

    if (!fd->claimed)
        return FALSE;

    rpcrdma_cm_set_columns(pinfo, fd, attr_id);
    rpcrdma_cm_add_tree(tvb, pinfo, tree, fd, attr_id);
    return TRUE;
}

/*
 * MPA: the Request of a TCP connection, kept in its conversation until
 * the Reply pairs with it (a new Request on the same connection, which
 * MPA does not allow, would replace it)
 */
static void
rpcrdma_cm_mpa_track(packet_info *pinfo, guint16 attr_id, rpcrdma_cm_frame_t *fd)
{
    conversation_t *conv = find_or_create_conversation(pinfo);
    rpcrdma_cm_conn_t *conn;
    const rpcrdma_cm_params_t *server;

    if (attr_id == ATTR_CM_REQ) {
        conn = wmem_new0(wmem_file_scope(), rpcrdma_cm_conn_t);
        conn->req_frame = pinfo->num;
        conn->req_claimed = fd->dec.status != RPCRDMA_CM_ABSENT;
        conn->client = fd->dec.peer;
        conversation_add_proto_data(conv, proto_rpcrdma_cm, conn);
        fd->conn = conn;
        return;
    }
    conn = (rpcrdma_cm_conn_t *)conversation_get_proto_data(conv, proto_rpcrdma_cm);
    if (!conn)
        return;
    if (conn->rep_frame == 0)
        conn->rep_frame = pinfo->num;
    server = &fd->dec.peer;
    fd->conn = conn;
    fd->c2s_threshold = MIN(conn->client.send_size, server->recv_size);
    fd->s2c_threshold = MIN(server->send_size, conn->client.recv_size);
    fd->send_with_inv = conn->client.remote_inv && server->remote_inv;
}

/* The first field_info of @hf in @tree (owned by the tree), or NULL */
static field_info *
rpcrdma_cm_first_finfo(proto_tree *tree, int hf)
{
    GPtrArray *found;
    field_info *fi = NULL;

    if (hf < 0)
        return NULL;
    /* the array is the caller's; the field_infos in it the tree's */
    found = proto_find_first_finfo(tree, hf);
    if (!found)
        return NULL;
    if (found->len > 0)
        fi = (field_info *)g_ptr_array_index(found, 0);
    g_ptr_array_free(found, TRUE);
    return fi;
}

/*
 * Postdissector for MPA Request and Reply frames: finds the MPA
 * dissector's key field in the tree (set_postdissector_wanted_hfids()
 * makes Wireshark build the tree and prime these fields for us), reads
 * the frame header from there, and decodes what follows IRD and ORD as
 * the ULP's Private Data, which is what a Linux peer's CM hands to
 * RPC-over-RDMA. A Request without Private Data is tracked too.
 */
static int
dissect_rpcrdma_cm_mpa(tvbuff_t *tvb _U_, packet_info *pinfo, proto_tree *tree,
                       void *data _U_)
{
    field_info *fi;
    tvbuff_t *ds, *ulp;
    rpcrdma_cm_frame_t *fd;
    proto_tree *mpa_tree;
    gint start, len, hdr, skip = 0;
    guint16 attr_id;

    if (!tree)
        return 0;
    attr_id = ATTR_CM_REQ;
    fi = rpcrdma_cm_first_finfo(tree, hf_mpa_key_req);
    if (!fi) {
        attr_id = ATTR_CM_REP;
        fi = rpcrdma_cm_first_finfo(tree, hf_mpa_key_rep);
    }
    if (!fi || !fi->ds_tvb)
        return 0;
    ds = fi->ds_tvb;
    hdr = fi->start;
    if (!tvb_bytes_exist(ds, hdr, MPA_HDR_LEN))
        return 0;
    start = hdr + MPA_HDR_LEN;
    len = tvb_get_ntohs(ds, hdr + MPA_PDLEN_OFF);
    if (!tvb_bytes_exist(ds, start, len))
        len = (gint)tvb_captured_length_remaining(ds, start);

    if (tvb_get_guint8(ds, hdr + MPA_REV_OFF) == MPA_REV_ENHANCED &&
        (tvb_get_guint8(ds, hdr + MPA_FLAGS_OFF) & MPA_FLAG_ENHANCED) &&
        len >= MPA_IRD_ORD_LEN)
        skip = MPA_IRD_ORD_LEN;
    ulp = tvb_new_subset_length(ds, start + skip, len - skip);

    fd = (rpcrdma_cm_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo,
                                                proto_rpcrdma_cm, 0);
    if (!fd) {
        fd = wmem_new0(wmem_file_scope(), rpcrdma_cm_frame_t);
        rpcrdma_cm_decode(ulp, &fd->dec);
        if (!PINFO_FD_VISITED(pinfo))
            rpcrdma_cm_mpa_track(pinfo, attr_id, fd);
        fd->claimed = fd->dec.status != RPCRDMA_CM_ABSENT ||
                      (attr_id == ATTR_CM_REP && fd->conn && fd->conn->req_claimed);
        p_add_proto_data(wmem_file_scope(), pinfo, proto_rpcrdma_cm, 0, fd);
    }
    if (!fd->claimed)
        return 0;

    rpcrdma_cm_set_columns(pinfo, fd, attr_id);
    if (skip) {
        mpa_tree = proto_tree_add_subtree(tree, ds, start, MPA_IRD_ORD_LEN,
                                          ett_rpcrdma_cm_mpa, NULL,
                                          "Enhanced MPA (RFC 6581)");
        proto_tree_add_uint(mpa_tree, hf_rpcrdma_cm_mpa_ird, ds, start, 2,
                            tvb_get_ntohs(ds, start) & MPA_IRD_ORD_MASK);
        proto_tree_add_uint(mpa_tree, hf_rpcrdma_cm_mpa_ord, ds, start + 2, 2,
                            tvb_get_ntohs(ds, start + 2) & MPA_IRD_ORD_MASK);
    }
    rpcrdma_cm_add_tree(ulp, pinfo, tree, fd, attr_id);
    return len;
}

void
proto_register_rpcrdma_cm(void)
{
    static hf_register_info hf[] = {
        { &hf_rpcrdma_cm_msg,
          { "CM Message", "rpcrdma.cm.msg",
            FT_UINT16, BASE_HEX, VALS(rpcrdma_cm_msg_vals), 0x0,
            "The CM message carrying this Private Data", HFILL }
        },
        { &hf_rpcrdma_cm_status,
          { "Status", "rpcrdma.cm.status",
            FT_UINT8, BASE_DEC, VALS(rpcrdma_cm_status_vals), 0x0,
            "Outcome of the search for a version 1 message", HFILL }
        },
        { &hf_rpcrdma_cm_offset,
          { "Offset", "rpcrdma.cm.offset",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Octet offset in the Private Data of the message or, without one, "
            "of the first Format Identifier", HFILL }
        },
        { &hf_rpcrdma_cm_format_id,
          { "Format Identifier", "rpcrdma.cm.format_id",
            FT_UINT32, BASE_HEX, NULL, 0x0,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_version,
          { "Version", "rpcrdma.cm.version",
            FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_flags,
          { "Flags", "rpcrdma.cm.flags",
            FT_UINT8, BASE_HEX, NULL, 0x0,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_reserved,
          { "Reserved", "rpcrdma.cm.reserved",
            FT_UINT8, BASE_HEX, NULL, RPCRDMA_CM_FLAGS_RESERVED,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_r,
          { "Remote Invalidation (R)", "rpcrdma.cm.r",
            FT_BOOLEAN, 8, TFS(&tfs_supported_not_supported), RPCRDMA_CM_FLAG_R,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_send_size_enc,
          { "Send Size (encoded)", "rpcrdma.cm.send_size.encoded",
            FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_send_size,
          { "Send Size", "rpcrdma.cm.send_size",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Largest RDMA Send the sender will post, in octets", HFILL }
        },
        { &hf_rpcrdma_cm_recv_size_enc,
          { "Receive Size (encoded)", "rpcrdma.cm.recv_size.encoded",
            FT_UINT8, BASE_DEC, NULL, 0x0,
            NULL, HFILL }
        },
        { &hf_rpcrdma_cm_recv_size,
          { "Receive Size", "rpcrdma.cm.recv_size",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Largest RDMA Receive the sender can accept, in octets", HFILL }
        },
        { &hf_rpcrdma_cm_default_send_size,
          { "Send Size", "rpcrdma.cm.default.send_size",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Send Size assumed for a sender without a valid message, in octets", HFILL }
        },
        { &hf_rpcrdma_cm_default_recv_size,
          { "Receive Size", "rpcrdma.cm.default.recv_size",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Receive Size assumed for a sender without a valid message, in octets", HFILL }
        },
        { &hf_rpcrdma_cm_default_r,
          { "Remote Invalidation (R)", "rpcrdma.cm.default.r",
            FT_BOOLEAN, BASE_NONE, TFS(&tfs_supported_not_supported), 0x0,
            "R bit assumed for a sender without a valid message", HFILL }
        },
        { &hf_rpcrdma_cm_req_frame,
          { "ConnectRequest in", "rpcrdma.cm.req_frame",
            FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
            "The frame of the ConnectRequest this ConnectReply answers", HFILL }
        },
        { &hf_rpcrdma_cm_rep_frame,
          { "ConnectReply in", "rpcrdma.cm.rep_frame",
            FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
            "The frame of the ConnectReply to this ConnectRequest", HFILL }
        },
        { &hf_rpcrdma_cm_c2s_threshold,
          { "Client-to-server inline threshold", "rpcrdma.cm.c2s_threshold",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Smaller of the client's Send Size and the server's Receive Size, in octets",
            HFILL }
        },
        { &hf_rpcrdma_cm_s2c_threshold,
          { "Server-to-client inline threshold", "rpcrdma.cm.s2c_threshold",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Smaller of the server's Send Size and the client's Receive Size, in octets",
            HFILL }
        },
        { &hf_rpcrdma_cm_send_with_inv,
          { "Server may reply with Send With Invalidate", "rpcrdma.cm.send_with_inv",
            FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "Both peers set R", HFILL }
        },
        { &hf_rpcrdma_cm_mpa_ird,
          { "IRD", "rpcrdma.cm.mpa.ird",
            FT_UINT16, BASE_DEC, NULL, 0x0,
            "Enhanced MPA: the sender's inbound RDMA Read queue depth", HFILL }
        },
        { &hf_rpcrdma_cm_mpa_ord,
          { "ORD", "rpcrdma.cm.mpa.ord",
            FT_UINT16, BASE_DEC, NULL, 0x0,
            "Enhanced MPA: the sender's outbound RDMA Read queue depth", HFILL }
        },
    };

    static gint *ett[] = {
        &ett_rpcrdma_cm,
        &ett_rpcrdma_cm_msg,
        &ett_rpcrdma_cm_flags,
        &ett_rpcrdma_cm_ignored,
        &ett_rpcrdma_cm_defaults,
        &ett_rpcrdma_cm_conn,
        &ett_rpcrdma_cm_mpa,
    };

    static ei_register_info ei[] = {
        { &ei_rpcrdma_cm_truncated,
          { "rpcrdma.cm.truncated", PI_MALFORMED, PI_ERROR,
            "Format Identifier too close to the end of the Private Data for an "
            "8-octet message", EXPFILL }
        },
        { &ei_rpcrdma_cm_version_unknown,
          { "rpcrdma.cm.version.unknown", PI_PROTOCOL, PI_WARN,
            "Format Identifier followed by a Version other than 1: message ignored",
            EXPFILL }
        },
        { &ei_rpcrdma_cm_reserved_nonzero,
          { "rpcrdma.cm.reserved.nonzero", PI_PROTOCOL, PI_WARN,
            "Reserved flag bits are not zero: senders must clear them, receivers "
            "ignore them (RFC 8797 Section 4)", EXPFILL }
        },
        { &ei_rpcrdma_cm_size_linux,
          { "rpcrdma.cm.size.linux", PI_PROTOCOL, PI_WARN,
            "Client Receive Size below 4096: Linux nfsd may send Replies larger "
            "than this client can receive", EXPFILL }
        },
    };

    expert_module_t *expert_rpcrdma_cm;

    proto_rpcrdma_cm = proto_register_protocol("RPC-over-RDMA CM Private Data",
                                               "RPCRDMA-CM", "rpcrdma.cm");
    proto_register_field_array(proto_rpcrdma_cm, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_rpcrdma_cm = expert_register_protocol(proto_rpcrdma_cm);
    expert_register_field_array(expert_rpcrdma_cm, ei, array_length(ei));

    rpcrdma_cm_mpa_handle = register_dissector("rpcrdma.cm.mpa", dissect_rpcrdma_cm_mpa,
                                               proto_rpcrdma_cm);
    register_postdissector(rpcrdma_cm_mpa_handle);

    rpcrdma_cm_conns = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
                                              rpcrdma_cm_key_hash,
                                              rpcrdma_cm_key_equal);
}

void
proto_reg_handoff_rpcrdma_cm(void)
{
    GArray *wanted;

    heur_dissector_add("infiniband.mad.cm.private", dissect_rpcrdma_cm_ib_heur,
                       "RPC-over-RDMA CM Private Data on InfiniBand",
                       "rpcrdma_cm_ib", proto_rpcrdma_cm, HEURISTIC_ENABLE);

    /* MPA over TCP (iWARP): the postdissector needs these in the tree */
    hf_mpa_key_req = proto_registrar_get_id_byname("iwarp_mpa.key.req");
    hf_mpa_key_rep = proto_registrar_get_id_byname("iwarp_mpa.key.rep");
    if (hf_mpa_key_req >= 0 && hf_mpa_key_rep >= 0) {
        wanted = g_array_new(FALSE, FALSE, (guint)sizeof(int));
        g_array_append_val(wanted, hf_mpa_key_req);
        g_array_append_val(wanted, hf_mpa_key_rep);
        set_postdissector_wanted_hfids(rpcrdma_cm_mpa_handle, wanted);
    }
}

void
plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_rpcrdma_cm;
    plug.register_handoff = proto_reg_handoff_rpcrdma_cm;
    proto_register_plugin(&plug);
}
