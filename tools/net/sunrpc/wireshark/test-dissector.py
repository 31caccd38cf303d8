#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Test the rpcrdma_cm.so Wireshark plugin against crafted RoCEv2 and
iWARP (MPA over TCP) captures.

Usage: test-dissector.py [PATH/TO/rpcrdma_cm.so]

Every capture is built here, at test time: Ethernet, IPv4, UDP to port
4791, a BTH (UD SEND_ONLY to QP 1), a DETH and a 256-octet CM MAD, then
a four-octet ICRC; or Ethernet, IPv4, TCP to port 20049 and an MPA
Request or Reply frame. tshark runs with a throw-away HOME whose personal
plugin directory holds the plugin under test, so nothing is installed.
tshark ignores personal plugins when started by root (real UID or GID
0), so as root it runs as nobody through setpriv(1).

Output is KTAP; the exit status is non-zero if any case fails.
"""

import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TSHARK = os.environ.get("TSHARK", "tshark")
FORMAT_ID = 0xf6ab0e18
ATTR_CM_REQ = 0x0010
ATTR_CM_REP = 0x0013
ATTR_CM_RTU = 0x0014
ATTR_CM_DREQ = 0x0015
NFS_RDMA_PORT = 20049
CLIENT = "192.0.2.1"
SERVER = "192.0.2.2"
NOBODY = 65534

# ---------------------------------------------------------------- packets


def code(size):
    """RFC 8797 Section 4.2 encoding of a size in octets."""
    return size // 1024 - 1


def msg(version=1, flags=0, send=1024, recv=1024):
    """An eight-octet RPC-over-RDMA CM Private Data message."""
    return struct.pack(">IBBBB", FORMAT_ID, version, flags,
                       code(send), code(recv))


def ident():
    return struct.pack(">I", FORMAT_ID)


def pad(data, length):
    assert len(data) <= length, (len(data), length)
    return data + bytes(length - len(data))


def ip4(text):
    return bytes(int(x) for x in text.split("."))


def gid4(text):
    """IPv4-mapped GID, as RoCEv2 uses for IPv4."""
    return bytes(10) + b"\xff\xff" + ip4(text)


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def mad(attr_id, tid, cm_data):
    """MAD common header (24 octets) and 232 octets of CM message."""
    hdr = struct.pack(">BBBBHHQHHI",
                      1,        # BaseVersion
                      0x07,     # Management Class: CM
                      2,        # Class Version
                      0x03,     # Method: Send
                      0, 0,     # Status, Class Specific
                      tid, attr_id, 0, 0)
    assert len(hdr) == 24
    return hdr + pad(cm_data, 232)


def cm_req(comm_id, pdata, client=CLIENT, server=SERVER, ip_cm=True,
           sport=40000):
    """REQ: with ip_cm, pdata is the 56 octets after the IP CM header;
    otherwise the whole 92-octet REQ Private Data."""
    if ip_cm:
        sid = 0x0000000001060000 | NFS_RDMA_PORT
    else:
        sid = 0x1000000000004e51
    data = struct.pack(">II", comm_id, 0)
    data += struct.pack(">Q", sid)
    data += struct.pack(">Q", 0x0002c90300aabbcc)        # Local CA GUID
    data += struct.pack(">II", 0, 0x00000000)            # reserved, Q_Key
    data += struct.pack(">I", (0x000123 << 8) | 0x10)    # QPN, resp. res.
    data += struct.pack(">I", 0x10)                      # EECN, init. depth
    data += struct.pack(">I", 0x17)                      # EECN, timeouts ...
    data += struct.pack(">I", (0x000abc << 8) | 0x37)    # PSN, timeouts ...
    data += struct.pack(">HBB", 0xffff, 0x37, 0xf0)      # P_Key, MTU ...
    data += struct.pack(">HH", 0xffff, 0xffff)           # LIDs (RoCE)
    data += gid4(client) + gid4(server)
    data += struct.pack(">IBBBB", 0, 0, 64, 0, 0x78)
    data += bytes(44)                                    # alternate path
    assert len(data) == 140, len(data)
    if ip_cm:
        hdr = struct.pack(">BBH", 0x00, 0x40, sport)
        hdr += bytes(12) + ip4(client) + bytes(12) + ip4(server)
        assert len(hdr) == 36
        data += hdr + pad(pdata, 56)
    else:
        data += pad(pdata, 92)
    assert len(data) == 232
    return data


def cm_rep(comm_id, remote_comm_id, pdata):
    data = struct.pack(">III", comm_id, remote_comm_id, 0)
    data += struct.pack(">I", 0x000456 << 8)             # QPN
    data += struct.pack(">I", 0)                         # EECN
    data += struct.pack(">I", 0x000def << 8)             # PSN
    data += struct.pack(">BBBB", 0x10, 0x10, 0x78, 0xe0)
    data += struct.pack(">Q", 0x0002c90300ddeeff)
    assert len(data) == 36
    data += pad(pdata, 196)
    return data


def cm_short(attr_id, comm_id, remote_comm_id, pdata):
    """RTU or DREQ: two Communication IDs, then Private Data."""
    data = struct.pack(">II", comm_id, remote_comm_id)
    if attr_id == ATTR_CM_DREQ:
        data += struct.pack(">I", 0x000456 << 8)
    return data + pdata


def roce_frame(src, dst, mad_bytes, psn=0, sport=49152):
    bth = struct.pack(">BBHI", 0x64, 0x00, 0xffff, 1)    # UD SEND_ONLY, QP 1
    bth += struct.pack(">I", psn & 0xffffff)
    deth = struct.pack(">II", 0x80010000, 1)             # GSI Q_Key, QP 1
    payload = bth + deth + mad_bytes + b"\x12\x34\x56\x78"  # ICRC
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(payload), 0) + payload
    return eth_ip4(src, dst, 17, udp)


def eth_ip4(src, dst, proto, l4):
    """Ethernet and IPv4 headers in front of a UDP (17) or TCP (6) one."""
    iph = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, 0x4000,
                      64, proto, 0, ip4(src), ip4(dst))
    iph = iph[:10] + struct.pack(">H", csum16(iph)) + iph[12:]
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    if src == SERVER:
        eth = bytes.fromhex("020000000001" "020000000002" "0800")
    return eth + iph + l4


def req_frame(comm_id, tid, pdata, client=CLIENT, server=SERVER, **kw):
    return roce_frame(client, server,
                      mad(ATTR_CM_REQ, tid,
                          cm_req(comm_id, pdata, client, server, **kw)))


def rep_frame(comm_id, remote_comm_id, tid, pdata, client=CLIENT,
              server=SERVER):
    return roce_frame(server, client,
                      mad(ATTR_CM_REP, tid,
                          cm_rep(comm_id, remote_comm_id, pdata)))


def mpa_frame(is_req, pdata, ird_ord=None, sport=40000, seq=1):
    """An MPA Request or Reply (RFC 5044) in one TCP segment between the
    client's sport and port 20049. With ird_ord=(IRD, ORD): Revision 2,
    the enhanced flag set and IRD/ORD in front of pdata (RFC 6581)."""
    key = b"MPA ID Req Frame" if is_req else b"MPA ID Rep Frame"
    flags, rev = 0x40, 1                     # CRC
    if ird_ord is not None:
        flags, rev = 0x50, 2
        pdata = struct.pack(">HH", 0x8000 | ird_ord[0], ird_ord[1]) + pdata
    payload = key + struct.pack(">BBH", flags, rev, len(pdata)) + pdata
    src, dst = (CLIENT, SERVER) if is_req else (SERVER, CLIENT)
    ports = (sport, NFS_RDMA_PORT) if is_req else (NFS_RDMA_PORT, sport)
    tcp = struct.pack(">HHIIBBHHH", ports[0], ports[1], seq, seq,
                      0x50, 0x18, 65535, 0, 0) + payload
    return eth_ip4(src, dst, 6, tcp)


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0,
                                len(frame), len(frame)))
            f.write(frame)

# ----------------------------------------------------------------- tshark


class Env:
    def __init__(self, plugin):
        self.tmp = tempfile.mkdtemp(prefix="rpcrdma-cm-test.")
        os.chmod(self.tmp, 0o755)
        self.home = os.path.join(self.tmp, "home")
        os.mkdir(self.home)
        self.prefix = []
        if os.getuid() == 0 or os.getgid() == 0:
            if not shutil.which("setpriv"):
                raise RuntimeError("running as root, and setpriv(1) is "
                                   "missing: tshark would ignore the plugin")
            self.prefix = ["setpriv", "--reuid=%d" % NOBODY,
                           "--regid=%d" % NOBODY, "--clear-groups"]
            os.chown(self.home, NOBODY, NOBODY)
        # Ask tshark itself where it looks for personal plugins
        out = self.run(["-G", "folders"])
        pers = [l.split(":", 1)[1].strip() for l in out.splitlines()
                if l.startswith("Personal Plugins:")]
        if not pers or not pers[0].startswith(self.home):
            raise RuntimeError("unexpected personal plugin folder: %r" % pers)
        self.plugin_dir = os.path.join(pers[0], "epan")
        os.makedirs(self.plugin_dir)
        shutil.copy(plugin, self.plugin_dir)
        for root, dirs, files in os.walk(self.home):
            for name in dirs + files:
                os.chmod(os.path.join(root, name),
                         0o755 if name in dirs else 0o644)

    def run(self, args):
        env = dict(os.environ, HOME=self.home, LC_ALL="C")
        env.pop("WIRESHARK_PLUGIN_DIR", None)
        res = subprocess.run(self.prefix + [TSHARK] + args, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, cwd=self.tmp)
        if res.returncode != 0:
            raise RuntimeError("tshark %s: exit %d: %s" %
                               (" ".join(args), res.returncode,
                                res.stderr.strip()))
        return res.stdout

    def pcap(self, name, frames):
        path = os.path.join(self.tmp, name + ".pcap")
        write_pcap(path, frames)
        os.chmod(path, 0o644)
        return path

    def fields(self, pcap, names, two_pass=True):
        """One dict per frame: field name -> value string ('' if absent;
        several occurrences joined with ';')."""
        args = ["-r", pcap, "-T", "fields", "-E", "separator=,",
                "-E", "quote=d", "-E", "aggregator=;", "-E", "occurrence=a"]
        if two_pass:
            args.append("-2")
        for name in ["frame.number"] + names:
            args += ["-e", name]
        rows = []
        for vals in csv.reader(self.run(args).splitlines()):
            if len(vals) != len(names) + 1:
                raise RuntimeError("cannot split %r" % vals)
            rows.append(dict(zip(["frame"] + names, vals)))
        return rows

    def frames_matching(self, pcap, dfilter):
        out = self.run(["-r", pcap, "-2", "-Y", dfilter,
                        "-T", "fields", "-e", "frame.number"])
        return [int(x) for x in out.split()]

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

# ------------------------------------------------------------------ cases


class Failure(Exception):
    pass


def expect(what, got, want):
    if got != want:
        raise Failure("%s: got %r, want %r" % (what, got, want))


def expect_fields(rows, frame, want):
    row = rows[frame - 1]
    for name, value in want.items():
        expect("frame %d %s" % (frame, name), row[name], value)


MSG_FIELDS = ["rpcrdma.cm.msg", "rpcrdma.cm.status", "rpcrdma.cm.offset",
              "rpcrdma.cm.format_id", "rpcrdma.cm.version",
              "rpcrdma.cm.flags", "rpcrdma.cm.reserved", "rpcrdma.cm.r",
              "rpcrdma.cm.send_size.encoded", "rpcrdma.cm.send_size",
              "rpcrdma.cm.recv_size.encoded", "rpcrdma.cm.recv_size",
              "rpcrdma.cm.default.send_size", "rpcrdma.cm.default.recv_size",
              "rpcrdma.cm.default.r"]
CONN_FIELDS = ["rpcrdma.cm.req_frame", "rpcrdma.cm.rep_frame",
               "rpcrdma.cm.c2s_threshold", "rpcrdma.cm.s2c_threshold",
               "rpcrdma.cm.send_with_inv"]
EXPERTS = ["rpcrdma.cm.truncated", "rpcrdma.cm.version.unknown",
           "rpcrdma.cm.reserved.nonzero", "rpcrdma.cm.size.linux"]
ALL_FIELDS = ["_ws.col.Protocol", "_ws.col.Info", "_ws.malformed",
              "infiniband.mad.attributeid"] + MSG_FIELDS + CONN_FIELDS + \
    EXPERTS

# What a frame shows when the plugin does not claim it
UNCLAIMED = dict((f, "") for f in MSG_FIELDS + CONN_FIELDS)


def valid(attr, offset, flags, send, recv, reserved="0x00"):
    return {
        "rpcrdma.cm.msg": "0x%04x" % attr,
        "rpcrdma.cm.status": "0",
        "rpcrdma.cm.offset": str(offset),
        "rpcrdma.cm.format_id": "0xf6ab0e18",
        "rpcrdma.cm.version": "1",
        "rpcrdma.cm.flags": "0x%02x" % flags,
        "rpcrdma.cm.reserved": reserved,
        "rpcrdma.cm.r": "1" if flags & 1 else "0",
        "rpcrdma.cm.send_size.encoded": str(code(send)),
        "rpcrdma.cm.send_size": str(send),
        "rpcrdma.cm.recv_size.encoded": str(code(recv)),
        "rpcrdma.cm.recv_size": str(recv),
        "rpcrdma.cm.default.send_size": "",
        "rpcrdma.cm.default.recv_size": "",
        "rpcrdma.cm.default.r": "",
    }


def invalid(attr, status, offset, format_id, version):
    return {
        "rpcrdma.cm.msg": "0x%04x" % attr,
        "rpcrdma.cm.status": str(status),
        "rpcrdma.cm.offset": offset,
        "rpcrdma.cm.format_id": format_id,
        "rpcrdma.cm.version": version,
        "rpcrdma.cm.flags": "",
        "rpcrdma.cm.reserved": "",
        "rpcrdma.cm.r": "",
        "rpcrdma.cm.send_size.encoded": "",
        "rpcrdma.cm.send_size": "",
        "rpcrdma.cm.recv_size.encoded": "",
        "rpcrdma.cm.recv_size": "",
        "rpcrdma.cm.default.send_size": "1024",
        "rpcrdma.cm.default.recv_size": "1024",
        "rpcrdma.cm.default.r": "0",
    }


def conn(req_frame="", rep_frame="", c2s="", s2c="", inv=""):
    return {
        "rpcrdma.cm.req_frame": str(req_frame),
        "rpcrdma.cm.rep_frame": str(rep_frame),
        "rpcrdma.cm.c2s_threshold": str(c2s),
        "rpcrdma.cm.s2c_threshold": str(s2c),
        "rpcrdma.cm.send_with_inv": str(inv),
    }


def run_case(env, name, frames, want, experts=None, info=None,
             one_pass=None, filters=None):
    """want: {frame: {field: value}}; experts: {expert: [frames]}, a frame
    listed twice having the expert info twice; info: {frame: Info column};
    one_pass: like want, for a run without -2; filters: {display filter:
    [frames]}."""
    pcap = env.pcap(name, frames)
    rows = env.fields(pcap, ALL_FIELDS)
    expect("frame count", len(rows), len(frames))
    experts = experts or {}
    truncated = experts.get("rpcrdma.cm.truncated", [])
    for row in rows:
        frame = int(row["frame"])
        # The InfiniBand dissector must take the frames apart cleanly. An
        # expert info of group PI_MALFORMED (rpcrdma.cm.truncated) adds a
        # hidden _ws.malformed item, so only those frames may have one.
        expect("frame %d malformed" % frame, row["_ws.malformed"],
               "_ws.malformed" if frame in truncated else "")
        expect("frame %d attribute" % frame,
               row["infiniband.mad.attributeid"] != "", True)
        for ei in EXPERTS:
            expect("frame %d %s" % (frame, ei), row[ei],
                   ";".join(["1"] * experts.get(ei, []).count(frame)))
    for frame, fields in sorted(want.items()):
        expect_fields(rows, frame, fields)
    for frame, text in sorted((info or {}).items()):
        expect("frame %d Info" % frame, rows[frame - 1]["_ws.col.Info"], text)
    # The display filter finds exactly the frames the plugin claimed
    claimed = [int(r["frame"]) for r in rows if r["rpcrdma.cm.msg"]]
    expect("frames matching rpcrdma.cm",
           env.frames_matching(pcap, "rpcrdma.cm"), claimed)
    for dfilter, matching in sorted((filters or {}).items()):
        expect("frames matching %s" % dfilter,
               env.frames_matching(pcap, dfilter), matching)
    if one_pass:
        rows = env.fields(pcap, ALL_FIELDS, two_pass=False)
        for frame, fields in sorted(one_pass.items()):
            expect_fields(rows, frame, fields)


def merge(*dicts):
    out = {}
    for d in dicts:
        out.update(d)
    return out


def case_plugin_loaded(env):
    out = env.run(["-G", "plugins"])
    path = os.path.join(env.plugin_dir, os.path.basename(PLUGIN))
    expect("plugin listed", any(l.split("\t")[-1] == path
                                for l in out.splitlines()), True)
    out = env.run(["-G", "protocols"])
    expect("protocol registered",
           "RPC-over-RDMA CM Private Data\tRPCRDMA-CM\trpcrdma.cm"
           in out.splitlines(), True)
    out = env.run(["-G", "heuristic-decodes"])
    expect("heuristic registered",
           "infiniband.mad.cm.private\trpcrdma.cm\tT" in out.splitlines(),
           True)


def case_valid_req_rep(env):
    frames = [
        req_frame(0x11223344, 0x100, msg(flags=1, send=8192, recv=4096)),
        rep_frame(0x55667788, 0x11223344, 0x100,
                  msg(flags=1, send=16384, recv=6144)),
    ]
    want = {
        1: merge(valid(ATTR_CM_REQ, 0, 1, 8192, 4096), conn(rep_frame=2),
                 {"_ws.col.Protocol": "RPCRDMA-CM"}),
        2: merge(valid(ATTR_CM_REP, 0, 1, 16384, 6144),
                 conn(req_frame=1, c2s=6144, s2c=4096, inv=1)),
    }
    info = {
        1: "CM: ConnectRequest, RPC-over-RDMA v1 send=8192 recv=4096 R",
        2: "CM: ConnectReply, RPC-over-RDMA v1 send=16384 recv=6144 R"
           " c2s=6144 s2c=4096 inv",
    }
    # Without -2 the REQ cannot know its REP yet; the REP is the same
    one_pass = {1: conn(), 2: want[2]}
    run_case(env, "valid", frames, want, info=info, one_pass=one_pass)


def case_odd_offset(env):
    pdata = b"\x01\x02\x03\x04\x05\xf6\xab" + msg(send=4096, recv=8192)
    frames = [req_frame(0x1, 0x200, pdata)]
    run_case(env, "odd-offset", frames,
             {1: valid(ATTR_CM_REQ, 7, 0, 4096, 8192)})


def case_bad_version(env):
    # Frame 2: the first identifier seen decides the status and offset
    frames = [
        req_frame(0x2, 0x300, msg(version=2, send=8192, recv=8192)),
        req_frame(0x2, 0x301, msg(version=2) + bytes(2) + msg(version=5)),
    ]
    run_case(env, "bad-version", frames, {
        1: merge(invalid(ATTR_CM_REQ, 3, "0", "0xf6ab0e18", "2"), conn()),
        2: invalid(ATTR_CM_REQ, 3, "0", "0xf6ab0e18;0xf6ab0e18", "2;5"),
    }, experts={"rpcrdma.cm.version.unknown": [1, 2, 2]},
        info={1: "CM: ConnectRequest, RPC-over-RDMA v1 (bad-version 2)",
              2: "CM: ConnectRequest, RPC-over-RDMA v1 (bad-version 2)"})


def case_bad_then_valid(env):
    # Versions 2 and 3 at offsets 0 and 8 are passed over, 1 at 20 is used
    pdata = msg(version=2, send=65536, recv=65536) + msg(version=3) + \
        bytes(4) + msg(flags=1, send=4096, recv=4096)
    frames = [req_frame(0x3, 0x400, pdata)]
    want = valid(ATTR_CM_REQ, 20, 1, 4096, 4096)
    want["rpcrdma.cm.format_id"] = "0xf6ab0e18;0xf6ab0e18;0xf6ab0e18"
    want["rpcrdma.cm.version"] = "2;3;1"
    run_case(env, "bad-then-valid", frames, {1: want},
             experts={"rpcrdma.cm.version.unknown": [1, 1]})


def case_truncated(env):
    # 56 octets of REQ consumer data: identifier at 50 leaves 6 octets
    frames = [
        req_frame(0x4, 0x500, pad(b"", 50) + ident() + b"\x01\x00"),
        # identifier at 52: four octets left, no Version octet at all
        req_frame(0x5, 0x501, pad(b"", 52) + ident()),
        # at 53 it does not even fit: nothing found, not claimed
        req_frame(0x6, 0x502, pad(b"", 53) + ident()[:3]),
        # at 48 the message ends on the last octet: valid
        req_frame(0x7, 0x503, pad(b"", 48) + msg(send=8192, recv=8192)),
    ]
    run_case(env, "truncated", frames, {
        1: invalid(ATTR_CM_REQ, 2, "50", "0xf6ab0e18", "1"),
        2: invalid(ATTR_CM_REQ, 2, "52", "0xf6ab0e18", ""),
        3: UNCLAIMED,
        4: valid(ATTR_CM_REQ, 48, 0, 8192, 8192),
    }, experts={"rpcrdma.cm.truncated": [1, 2]},
        info={1: "CM: ConnectRequest, RPC-over-RDMA v1 (truncated)"},
        filters={"rpcrdma.cm.truncated": [1, 2],
                 "rpcrdma.cm.status == 2": [1, 2],
                 "rpcrdma.cm.default.send_size == 1024": [1, 2]})


def case_bad_then_truncated(env):
    # The first identifier decides the status; the search stops at the
    # truncated one
    frames = [req_frame(0x7, 0x600, pad(msg(version=3), 51) + ident())]
    run_case(env, "bad-then-truncated", frames, {
        1: invalid(ATTR_CM_REQ, 3, "0", "0xf6ab0e18;0xf6ab0e18", "3;0"),
    }, experts={"rpcrdma.cm.version.unknown": [1],
                "rpcrdma.cm.truncated": [1]})


def case_reserved(env):
    frames = [req_frame(0x8, 0x700, msg(flags=0x81, send=4096, recv=4096))]
    run_case(env, "reserved", frames,
             {1: valid(ATTR_CM_REQ, 0, 0x81, 4096, 4096, reserved="0x40")},
             experts={"rpcrdma.cm.reserved.nonzero": [1]})


def case_six_octets(env):
    # A peer that wrote f6ab0e18 01 01 only: the CM pads with zeroes
    frames = [req_frame(0x9, 0x800, bytes.fromhex("f6ab0e180101"))]
    run_case(env, "six-octets", frames,
             {1: valid(ATTR_CM_REQ, 0, 1, 1024, 1024)},
             experts={"rpcrdma.cm.size.linux": [1]})


def case_req_none_rep_valid(env):
    frames = [
        req_frame(0xa, 0x900, b""),
        rep_frame(0xb, 0xa, 0x900, msg(flags=1, send=8192, recv=8192)),
    ]
    run_case(env, "req-none", frames, {
        1: UNCLAIMED,
        2: merge(valid(ATTR_CM_REP, 0, 1, 8192, 8192),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    })


def case_rep_none_req_valid(env):
    frames = [
        req_frame(0xc, 0xa00, msg(flags=1, send=8192, recv=4096)),
        rep_frame(0xd, 0xc, 0xa00, b""),
    ]
    run_case(env, "rep-none", frames, {
        1: merge(valid(ATTR_CM_REQ, 0, 1, 8192, 4096), conn(rep_frame=2)),
        2: merge(invalid(ATTR_CM_REP, 1, "", "", ""),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    }, info={2: "CM: ConnectReply, RPC-over-RDMA v1 (absent) c2s=1024 s2c=1024"})


def case_neither(env):
    frames = [req_frame(0xe, 0xb00, b""), rep_frame(0xf, 0xe, 0xb00, b"")]
    run_case(env, "neither", frames, {1: UNCLAIMED, 2: UNCLAIMED})


def case_linux_expert(env):
    frames = [
        req_frame(0x10, 0xc00, msg(send=4096, recv=1024)),
        req_frame(0x11, 0xc01, msg(send=4096, recv=3072)),
        req_frame(0x12, 0xc02, msg(send=1024, recv=4096)),
        rep_frame(0x13, 0x10, 0xc00, msg(send=4096, recv=1024)),
    ]
    run_case(env, "linux", frames, {
        1: valid(ATTR_CM_REQ, 0, 0, 4096, 1024),
        2: valid(ATTR_CM_REQ, 0, 0, 4096, 3072),
        3: valid(ATTR_CM_REQ, 0, 0, 1024, 4096),
        4: merge(valid(ATTR_CM_REP, 0, 0, 4096, 1024),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    }, experts={"rpcrdma.cm.size.linux": [1, 2]})


def case_orphan_rep(env):
    frames = [rep_frame(0x14, 0x99999999, 0xd00,
                        msg(flags=1, send=4096, recv=4096))]
    run_case(env, "orphan-rep", frames,
             {1: merge(valid(ATTR_CM_REP, 0, 1, 4096, 4096), conn())},
             info={1: "CM: ConnectReply, RPC-over-RDMA v1 send=4096 recv=4096 R"})


def case_interleaved(env):
    frames = [
        req_frame(0x1111, 0xe01, msg(flags=1, send=4096, recv=4096)),
        req_frame(0x2222, 0xe02, msg(flags=0, send=8192, recv=8192)),
        rep_frame(0xaaaa, 0x2222, 0xe02, msg(flags=1, send=16384, recv=2048)),
        rep_frame(0xbbbb, 0x1111, 0xe01, msg(flags=1, send=4096, recv=12288)),
    ]
    run_case(env, "interleaved", frames, {
        1: conn(rep_frame=4),
        2: conn(rep_frame=3),
        3: merge(valid(ATTR_CM_REP, 0, 1, 16384, 2048),
                 conn(req_frame=2, c2s=2048, s2c=8192, inv=0)),
        4: merge(valid(ATTR_CM_REP, 0, 1, 4096, 12288),
                 conn(req_frame=1, c2s=4096, s2c=4096, inv=1)),
    })


def case_same_id_other_client(env):
    # The Communication ID alone is not the key: the client address is part
    other = "192.0.2.3"
    frames = [
        req_frame(0x3333, 0xf01, msg(send=2048, recv=2048)),
        req_frame(0x3333, 0xf02, msg(send=8192, recv=8192), client=other),
        rep_frame(0x4444, 0x3333, 0xf01, msg(send=4096, recv=4096)),
        rep_frame(0x5555, 0x3333, 0xf02, msg(send=4096, recv=4096),
                  client=other),
    ]
    run_case(env, "two-clients", frames, {
        1: conn(rep_frame=3),
        2: conn(rep_frame=4),
        3: conn(req_frame=1, c2s=2048, s2c=2048, inv=0),
        4: conn(req_frame=2, c2s=4096, s2c=4096, inv=0),
    }, experts={"rpcrdma.cm.size.linux": [1]})


def case_plain_req(env):
    # REQ outside the RDMA IP CM Service ID space: 92 octets of Private Data
    pdata = pad(b"", 41) + msg(flags=1, send=32768, recv=32768)
    frames = [
        req_frame(0x20, 0x1000, pdata, ip_cm=False),
        rep_frame(0x21, 0x20, 0x1000, pad(b"", 190) + msg()[:6]),
    ]
    run_case(env, "plain-req", frames, {
        1: merge(valid(ATTR_CM_REQ, 41, 1, 32768, 32768), conn(rep_frame=2)),
        2: merge(invalid(ATTR_CM_REP, 2, "190", "0xf6ab0e18", "1"),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    }, experts={"rpcrdma.cm.truncated": [2]})


def case_other_cm(env):
    # RTU and DREQ Private Data is not this format, whatever it holds
    frames = [
        roce_frame(CLIENT, SERVER,
                   mad(ATTR_CM_RTU, 0x1100,
                       cm_short(ATTR_CM_RTU, 0x30, 0x31, msg()))),
        roce_frame(CLIENT, SERVER,
                   mad(ATTR_CM_DREQ, 0x1101,
                       cm_short(ATTR_CM_DREQ, 0x30, 0x31, msg()))),
    ]
    run_case(env, "other-cm", frames, {1: UNCLAIMED, 2: UNCLAIMED})


MPA_FIELDS = ["_ws.col.Protocol", "_ws.col.Info", "iwarp_mpa.req",
              "iwarp_mpa.rep", "rpcrdma.cm.mpa.ird", "rpcrdma.cm.mpa.ord"] + \
    MSG_FIELDS + CONN_FIELDS


def run_mpa_case(env, name, frames, want):
    """Like run_case, for MPA frames over TCP: every frame must be read as
    an MPA Request or Reply first."""
    pcap = env.pcap(name, frames)
    rows = env.fields(pcap, MPA_FIELDS)
    expect("frame count", len(rows), len(frames))
    for row in rows:
        expect("frame %s read as MPA" % row["frame"],
               bool(row["iwarp_mpa.req"] or row["iwarp_mpa.rep"]), True)
    for frame, fields in sorted(want.items()):
        expect_fields(rows, frame, fields)
    claimed = [int(r["frame"]) for r in rows if r["rpcrdma.cm.msg"]]
    expect("frames matching rpcrdma.cm",
           env.frames_matching(pcap, "rpcrdma.cm"), claimed)


def mpa(ird="", ord_=""):
    return {"rpcrdma.cm.mpa.ird": str(ird), "rpcrdma.cm.mpa.ord": str(ord_)}


def case_mpa_enhanced(env):
    """What Linux's iw_cm sends (siw, cxgb4): Revision 2, IRD and ORD in
    front of the message; the offset counts from the ULP's first octet."""
    frames = [
        mpa_frame(True, msg(flags=1, send=8192, recv=4096), (128, 0)),
        mpa_frame(False, msg(flags=0, send=16384, recv=6144), (0, 128)),
    ]
    want = {
        1: merge(valid(ATTR_CM_REQ, 0, 1, 8192, 4096), mpa(128, 0),
                 conn(rep_frame=2), {"_ws.col.Protocol": "RPCRDMA-CM"}),
        2: merge(valid(ATTR_CM_REP, 0, 0, 16384, 6144), mpa(0, 128),
                 conn(req_frame=1, c2s=6144, s2c=4096, inv=0)),
    }
    run_mpa_case(env, "mpa-enhanced", frames, want)


def case_mpa_basic(env):
    """Revision 1: the Private Data is the ULP's from its first octet,
    here the message at offset 3 with octets after it."""
    pdata = b"\x01\x02\x03" + msg(flags=1, send=4096, recv=4096) + b"\xff" * 5
    frames = [mpa_frame(True, pdata), mpa_frame(False, msg(flags=1))]
    want = {
        1: merge(valid(ATTR_CM_REQ, 3, 1, 4096, 4096), mpa(),
                 conn(rep_frame=2)),
        2: merge(valid(ATTR_CM_REP, 0, 1, 1024, 1024),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=1)),
    }
    run_mpa_case(env, "mpa-basic", frames, want)


def case_mpa_empty(env):
    """A Request with IRD and ORD only (rpcrdma-cm probe --none): no ULP
    Private Data, so not claimed; its Reply gets the client's defaults
    (RFC 8797 Section 5.1)."""
    frames = [mpa_frame(True, b"", (1, 1)),
              mpa_frame(False, msg(flags=1, send=4096, recv=4096), (1, 1))]
    want = {
        1: merge(UNCLAIMED, {"rpcrdma.cm.mpa.ird": ""}),
        2: merge(valid(ATTR_CM_REP, 0, 1, 4096, 4096), mpa(1, 1),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    }
    run_mpa_case(env, "mpa-empty", frames, want)


def case_mpa_no_pdata(env):
    """A Revision 1 Request with no Private Data at all (PD_Length 0): not
    claimed, but remembered, so its Reply pairs with it."""
    frames = [mpa_frame(True, b""), mpa_frame(False, msg(flags=1, send=8192))]
    want = {
        1: UNCLAIMED,
        2: merge(valid(ATTR_CM_REP, 0, 1, 8192, 1024), mpa(),
                 conn(req_frame=1, c2s=1024, s2c=1024, inv=0)),
    }
    run_mpa_case(env, "mpa-no-pdata", frames, want)


def case_mpa_truncated(env):
    """Six octets of a message after IRD/ORD, as iWARP delivers them:
    not padded, so truncated (IB's CM would have padded it)."""
    frames = [mpa_frame(True, msg()[:6], (1, 1))]
    want = {1: merge(invalid(ATTR_CM_REQ, 2, "0", "0xf6ab0e18", "1"),
                     mpa(1, 1))}
    run_mpa_case(env, "mpa-truncated", frames, want)


def case_sample(env):
    """sample.pcap, the CM MADs of a two-host run of the qemu harness
    (Linux 6.12 with this series on both ends): every connect decodes as
    both kernels reported it (tools/testing/nfsrdma/wire-check.py held
    them against each other when the capture was made)"""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "sample.pcap")
    path = os.path.join(env.tmp, "sample.pcap")
    shutil.copy(src, path)
    os.chmod(path, 0o644)
    names = ["rpcrdma.cm.msg", "rpcrdma.cm.status", "rpcrdma.cm.offset",
             "rpcrdma.cm.send_size", "rpcrdma.cm.recv_size",
             "rpcrdma.cm.c2s_threshold", "rpcrdma.cm.s2c_threshold",
             "rpcrdma.cm.send_with_inv"]
    got = [tuple(r[n] for n in names) for r in env.fields(path, names)
           if r["rpcrdma.cm.msg"]]
    req, rep = "0x0010", "0x0013"
    # the server's answer is the same to every connect: 4096/4096, R
    srv = (rep, "0", "0", "4096", "4096")
    want = [
        # the harness's probe waiting for nfsd, then a kernel mount
        (req, "0", "0", "4096", "4096", "", "", ""),
        srv + ("4096", "4096", "1"),
        (req, "0", "0", "4096", "4096", "", "", ""),
        srv + ("4096", "4096", "1"),
        # rpcrdma-cm probe --send 8K --recv 16K
        (req, "0", "0", "8192", "16384", "", "", ""),
        srv + ("4096", "4096", "1"),
        # --raw: an identifier at offset 7
        (req, "0", "7", "16384", "65536", "", "", ""),
        srv + ("4096", "4096", "1"),
        # Version 2 alone: the client's defaults
        (req, "3", "0", "", "", "", "", ""),
        srv + ("1024", "1024", "0"),
        # Version 2, then a version 1 message without R at offset 8
        (req, "0", "8", "4096", "4096", "", "", ""),
        srv + ("4096", "4096", "0"),
        # six octets, the sizes from the CM's zero padding
        (req, "0", "0", "1024", "1024", "", "", ""),
        srv + ("1024", "1024", "1"),
        # an identifier 6 octets from the end of the 56
        (req, "2", "50", "", "", "", "", ""),
        srv + ("1024", "1024", "0"),
        # no Private Data: the REQ is not claimed, its REP is
        srv + ("1024", "1024", "0"),
        # Reserved bits set, a 1 KiB Receive Size
        (req, "0", "0", "4096", "1024", "", "", ""),
        srv + ("4096", "1024", "1"),
    ]
    expect("decoded connects", got, want)
    expect("truncated frames",
           len(env.frames_matching(path, "rpcrdma.cm.truncated")), 1)
    expect("Linux Receive Size warnings",
           len(env.frames_matching(path, "rpcrdma.cm.size.linux")), 2)


CASES = [
    ("plugin_loaded", case_plugin_loaded),
    ("valid_req_and_rep", case_valid_req_rep),
    ("identifier_at_odd_offset", case_odd_offset),
    ("version_2_only", case_bad_version),
    ("version_2_then_version_1", case_bad_then_valid),
    ("identifier_in_last_7_octets", case_truncated),
    ("version_2_then_truncated", case_bad_then_truncated),
    ("reserved_bits_set", case_reserved),
    ("six_octet_message_zero_padded", case_six_octets),
    ("req_without_message_rep_with", case_req_none_rep_valid),
    ("req_with_message_rep_without", case_rep_none_req_valid),
    ("neither_has_message", case_neither),
    ("linux_receive_size_expert", case_linux_expert),
    ("rep_without_its_req", case_orphan_rep),
    ("interleaved_connects", case_interleaved),
    ("same_comm_id_two_clients", case_same_id_other_client),
    ("req_without_ip_cm_header", case_plain_req),
    ("rtu_and_dreq_ignored", case_other_cm),
    ("sample_capture", case_sample),
    ("mpa_enhanced_req_and_rep", case_mpa_enhanced),
    ("mpa_revision_1_offset_3", case_mpa_basic),
    ("mpa_ird_ord_only", case_mpa_empty),
    ("mpa_request_without_private_data", case_mpa_no_pdata),
    ("mpa_six_octets_not_padded", case_mpa_truncated),
]


def main():
    global PLUGIN
    here = os.path.dirname(os.path.abspath(__file__))
    PLUGIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                             else os.path.join(here, "rpcrdma_cm.so"))
    print("KTAP version 1")
    print("1..%d" % len(CASES))
    try:
        env = Env(PLUGIN)
    except (RuntimeError, OSError) as e:
        print("Bail out! %s" % e)
        return 2
    failed = 0
    try:
        for i, (name, func) in enumerate(CASES, 1):
            try:
                func(env)
                print("ok %d %s" % (i, name))
            except Exception as e:  # one broken case must not stop the rest
                failed += 1
                print("not ok %d %s # %s" % (i, name,
                                             str(e).replace("\n", " ")))
    finally:
        env.cleanup()
    print("# %d passed, %d failed" % (len(CASES) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
