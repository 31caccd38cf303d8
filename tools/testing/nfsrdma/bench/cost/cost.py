#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cost.py [--mode MODE] OUTDIR LOG COUNTS [LOG COUNTS...]

The report and the gate of the benchmark's cost mode (cost.sh). Each LOG
is a guest's console (scenarios/bench.sh): BENCH lines, each naming the
mark that ends its step, the RPCs between its marks and the Reply octets
received; COSTMAP lines (/proc/modules), COSTSYMS lines (the functions of
rpcrdma.ko and sunrpc.ko) and COSTPOSTS lines (Receives posted and
ib_post_recv() calls, counted apart). Each COUNTS is what insn-count.so
wrote in that boot: per mark, the instructions of each granule of the
modules' area, of the kernel's own text and of user space, each with the
kernel's own code run under it.

Writes OUTDIR/cost.csv (one row per boot, repeat, configuration and
step), OUTDIR/functions.csv (rpcrdma.ko's functions, and sunrpc.ko's
xdr_buf copy, per RPC, medians) and OUTDIR/cost.md, and exits non-zero
when the gate fails:
- the samples of a step (repeats, boots) disagree by more than 1% in the
  transport layer's own instructions per RPC (all instructions per RPC
  are reported with their spread, not gated: what the layers' own code
  runs agrees, the kernel code they call, the allocators above all,
  does not always);
- with --gate (make bench COST=1): ours at 4 KiB spends more of the
  transport layer's own instructions per RPC than stock in a step, by
  more than 2%; without it (the short form, COST=quick): a 4 KiB write
  inline at 16 KiB does not spare the transport instructions against a
  read chunk at 4 KiB, ours posts fewer Receives than Calls, or ours's
  client posts its Receives one by one rather than in batches;
- the counts are not what the guest sent: a mark missing, reset values
  the plugin did not get, a step without its RPC count.
"""
import argparse
import bisect
import csv
import os
import re
import statistics
import sys

# Which layer a module's code belongs to; every other page of the kernel
# is "kernel"
LAYER_OF = {
    "rpcrdma": "transport",
    "sunrpc": "sunrpc", "auth_rpcgss": "sunrpc", "rpcsec_gss_krb5": "sunrpc",
    "nfs": "nfs", "nfsv4": "nfs", "nfsv3": "nfs", "netfs": "nfs", "fscache": "nfs",
    "nfsd": "nfsd", "lockd": "nfsd", "grace": "nfsd", "nfs_acl": "nfsd",
    "ib_core": "rdma-core", "ib_uverbs": "rdma-core", "rdma_cm": "rdma-core",
    "iw_cm": "rdma-core", "ib_cm": "rdma-core",
    "rdma_rxe": "rxe", "udp_tunnel": "rxe", "ip6_udp_tunnel": "rxe",
    "crc32_generic": "rxe",
}
LAYERS = ["transport", "sunrpc", "nfs", "nfsd", "rdma-core", "rxe", "kernel", "user"]
LAYER_TEXT = {
    "transport": "RPC-over-RDMA: rpcrdma.ko, xprtrdma and svcrdma",
    "sunrpc": "the rest of SUNRPC: sunrpc.ko, auth_rpcgss.ko",
    "nfs": "the NFS client: nfs.ko, nfsv4.ko, netfs.ko",
    "nfsd": "nfsd: nfsd.ko, lockd.ko, grace.ko",
    "rdma-core": "the RDMA core: ib_core.ko, rdma_cm.ko, ib_cm.ko",
    "rxe": "the emulated RNIC: rdma_rxe.ko (and udp_tunnel.ko)",
    "kernel": "the rest of the kernel: system calls, VFS, scheduler, interrupts",
    "user": "user space: fio (with its crc32c verification, in software on qemu64)",
}
CONFIGS = ["stock", "legacy-1k", "4k", "16k", "64k", "256k", "16k-noinv"]
BENCH = re.compile(r"BENCH config=(\S+) rep=(\d+) step=(\S+) count=(\d+) .* "
                   r"mark=(\d+) rpcs=(\d+)(?: recv=(\d+))?")
COSTMAP = re.compile(r"COSTMAP config=(\S+) rep=(\d+) (.*)")
COSTSYMS = re.compile(r"COSTSYMS config=(\S+) rep=(\d+) (.*)")
COSTRESETS = re.compile(r"COSTRESETS ((?:[0-9a-f]+ ?)*)")
COSTMARKS = re.compile(r"COSTMARKS (\d+)")
MARKED = re.compile(r"BENCH config=(\S+) .* step=(\S+) .* mark=")
COSTPOSTS = re.compile(r"COSTPOSTS config=(\S+) rpcs=(\d+) server_recvs=(\d+) "
                       r"client_recvs=(\d+) client_posts=(\d+) rxe_posts=(\d+)"
                       r"(?: srq_posts=(\d+))?")
# Where ours at 4 KiB and stock differ in the transport's own code, by
# the part of the series that changed the functions (cost.md, "Ours at 4
# KiB over stock, by part of the series"): a function goes wholly to the
# first part whose prefix it starts with, also one that several parts
# changed; what no part names is "the rest".
PARTS = [
    ("server pool: the shared receive queue (srq)",
     ["svc_rdma_srq_", "svc_rdma_recv_buf_put"]),
    ("server Receive: a Call's buffer posted again, one at a time (buffers)",
     ["svc_rdma_recv_buf_", "svc_rdma_refresh_recvs", "svc_rdma_recvfrom",
      "svc_rdma_release_ctxt", "svc_rdma_recv_ctxt_", "svc_rdma_wc_receive"]),
    ("server Send: buffers of page blocks (buffers)",
     ["svc_rdma_map_reply_msg", "svc_rdma_xb_", "svc_rdma_post_send",
      "svc_rdma_send_ctxt", "svc_rdma_send_buf"]),
    ("server Reply checks and pages kept to the Send's end (fixes, thresholds)",
     ["svc_rdma_sendto", "svc_rdma_send_reply_chunk", "svc_rdma_send_error"]),
    ("client Receive: the Reply copied, its buffer posted again (buffers)",
     ["rpcrdma_reply_", "rpcrdma_complete_rqst", "rpcrdma_rep_", "rpcrdma_wc_receive",
      "rpcrdma_post_recvs", "rpcrdma_reps_"]),
]
# Logs of guests that did not count their marks (COSTMARKS)
LEGACY = []
SPREAD_MAX = 1.0        # % between the samples of a step
GATE_MAX = 2.0          # % more transport instructions at 4 KiB than stock
# The functions of the two hot-path changes (cost.md, "Hot paths")
COPY_FUNCS = ["rpcrdma_reply_copy", "rpcrdma_complete_rqst", "read_bytes_from_xdr_buf"]
REPOST_FUNCS = ["svc_rdma_recv_buf_repost", "svc_rdma_recv_buf_post",
                "svc_rdma_refresh_recvs", "svc_rdma_release_ctxt",
                "svc_rdma_recv_ctxt_put", "svc_rdma_wc_receive",
                # nfsd on its device's shared receive queue
                "svc_rdma_srq_post", "svc_rdma_srq_received",
                "svc_rdma_srq_credits", "svc_rdma_srq_reply_done"]


def parse_counts(path):
    """{mark: ({granule|"core"|"user": (self, under)}, total)}, and the
    reset values the plugin received"""
    marks, cur, pages, values = {}, None, None, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "value":
                values.append(int(w[1], 16))
            elif w[0] == "mark":
                cur, pages = int(w[1]), {}
            elif w[0] == "end":
                if cur != int(w[1]):
                    sys.exit(f"{path}: mark {w[1]} ends where mark {cur} began")
                marks[cur] = (pages, int(w[2]))
            elif w[0] in ("core", "user"):
                pages[w[0]] = (int(w[1]), int(w[2]))
            else:
                pages[int(w[0], 16)] = (int(w[1]), int(w[2]))
    return marks, values


def parse_log(path):
    maps, syms, steps, posts = {}, {}, [], []
    resets, nmarks = None, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.replace("\r", "")
            m = COSTRESETS.search(line)
            if m:
                resets = [int(v, 16) for v in m.group(1).split()]
                continue
            m = COSTMARKS.search(line)
            if m:
                nmarks = int(m.group(1))
                continue
            m = COSTMAP.search(line)
            if m:
                mods = []
                for w in m.group(3).split():
                    name, addr, size = w.split(":")
                    mods.append((int(addr, 16), int(size), name))
                maps[(m.group(1), int(m.group(2)))] = sorted(mods)
                continue
            m = COSTSYMS.search(line)
            if m:
                syms[(m.group(1), int(m.group(2)))] = sorted(
                    (int(a, 16), n) for a, n in (w.split(":", 1) for w in m.group(3).split()))
                continue
            m = COSTPOSTS.search(line)
            if m:
                posts.append({"config": m.group(1), "rpcs": int(m.group(2)),
                              "server_recvs": int(m.group(3)), "client_recvs": int(m.group(4)),
                              "client_posts": int(m.group(5)), "rxe_posts": int(m.group(6)),
                              "srq_posts": int(m.group(7) or 0)})
                continue
            m = BENCH.search(line)
            if not m and MARKED.search(line):
                sys.exit(f"{path}: a step without its RPC count: {line.strip()}")
            if m:
                steps.append({"config": m.group(1), "rep": int(m.group(2)),
                              "step": m.group(3), "count": int(m.group(4)),
                              "mark": int(m.group(5)), "rpcs": int(m.group(6)),
                              "recv": int(m.group(7) or 0)})
    return maps, syms, steps, posts, resets, nmarks


class Modules:
    """Which module, and layer, a granule of the modules' area is in"""

    def __init__(self, mods):
        self.bases = [b for b, _, _ in mods]
        self.mods = mods

    def module(self, addr):
        """The name of the module whose text holds addr, or None"""
        i = bisect.bisect_right(self.bases, addr) - 1
        if i < 0:
            return None
        base, size, name = self.mods[i]
        return name if addr < base + size else None

    def layer(self, addr):
        return LAYER_OF.get(self.module(addr), "kernel")


def rows_of(boot, log, counts):
    maps, syms, steps, posts, resets, nmarks = parse_log(log)
    marks, values = parse_counts(counts)
    rows = []
    if not steps:
        sys.exit(f"{log}: no BENCH lines")
    # the plugin saw what the guest sent: every reset value, every mark
    # (a guest that counts its marks prints COSTMARKS at its end; the
    # runs made before it did are reported with a note)
    if nmarks is None:
        LEGACY.append(log)
    elif values != resets:
        sys.exit(f"{counts}: the plugin received reset values {values}, the guest sent {resets}")
    elif nmarks != len(marks):
        sys.exit(f"{counts}: {len(marks)} marks written, the guest made {nmarks}")
    for s in steps:
        # repeat 0 is the warm-up round (scenarios/bench.sh)
        if s["rep"] == 0:
            continue
        mods = maps.get((s["config"], s["rep"]))
        if mods is None:
            sys.exit(f"{log}: no COSTMAP for {s['config']} repeat {s['rep']}")
        if s["mark"] not in marks:
            sys.exit(f"{counts}: no mark {s['mark']} ({s['config']}/{s['step']})")
        if s["rpcs"] <= 0:
            sys.exit(f"{log}: {s['config']}/{s['step']}: no RPC between the marks")
        pages, total = marks[s["mark"]]
        where = Modules(mods)
        fsyms = syms.get((s["config"], s["rep"]), [])
        faddr = [a for a, _ in fsyms]
        row = dict(s, boot=boot, total=total, funcs={}, tfuncs=set())
        for l in LAYERS:
            row[l] = row[l + "_self"] = 0
        for page, (self, under) in pages.items():
            if page in ("core", "user"):
                l = "kernel" if page == "core" else "user"
            else:
                l = where.layer(page)
                if where.module(page) in ("rpcrdma", "sunrpc") and faddr:
                    i = bisect.bisect_right(faddr, page) - 1
                    if i >= 0:
                        name = fsyms[i][1]
                        fs, fu = row["funcs"].get(name, (0, 0))
                        row["funcs"][name] = (fs + self, fu + under)
                        if where.module(page) == "rpcrdma":
                            row["tfuncs"].add(name)
            row[l] += self + under
            row[l + "_self"] += self
        rows.append(row)
    return rows, posts


def spread(values):
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="cost")
    ap.add_argument("--gate", action="store_true",
                    help="fail when ours at 4 KiB runs more than 2%% more "
                    "transport-layer instructions per RPC than stock")
    ap.add_argument("outdir")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if len(a.files) % 2:
        sys.exit("cost.py: LOG COUNTS pairs expected")
    rows, posts = [], []
    for i in range(0, len(a.files), 2):
        r, p = rows_of(i // 2 + 1, a.files[i], a.files[i + 1])
        rows += r
        posts += p
    os.makedirs(a.outdir, exist_ok=True)
    keys = ["boot", "rep", "config", "step", "count", "rpcs", "recv", "total"] + LAYERS + \
        [l + "_self" for l in LAYERS]
    with open(os.path.join(a.outdir, "cost.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)

    configs = [c for c in CONFIGS if any(r["config"] == c for r in rows)]
    steps = []
    for r in rows:
        if r["step"] not in steps:
            steps.append(r["step"])
    samples = {}
    for r in rows:
        samples.setdefault((r["config"], r["step"]), []).append(r)

    def vals(c, s, key):
        return [r[key] / r["rpcs"] for r in samples.get((c, s), [])]

    def med(c, s, key):
        v = vals(c, s, key)
        return statistics.median(v) if v else None

    def spr(c, s, key):
        v = vals(c, s, key)
        return spread(v) if len(v) > 1 else 0.0

    def fmed(c, s, name, part=None):
        v = []
        for r in samples.get((c, s), []):
            fs, fu = r["funcs"].get(name, (0, 0))
            v.append((fs if part == "self" else fu if part == "under" else fs + fu) / r["rpcs"])
        return statistics.median(v) if v else None

    failures, notes, noisy = [], [], []
    nsamples = min(len(v) for v in samples.values())
    short = [f"{c}/{s}" for (c, s), v in samples.items()
             if len(v) != max(len(v) for v in samples.values())]
    if short:
        failures.append("steps with fewer samples than the others: " + ", ".join(short))
    if nsamples < 2:
        failures.append("one sample per step: nothing to compare repeats with")
    worst = {}
    for (c, s), v in samples.items():
        for key in ("total", "transport_self", "transport"):
            p = spr(c, s, key)
            if p > worst.get(key, (0.0, ""))[0]:
                worst[key] = (p, f"{c}/{s}")
            if key == "transport_self" and p > SPREAD_MAX:
                failures.append(f"{c}/{s}: samples disagree by {p:.2f}% in the transport "
                                f"layer's own instructions per RPC")
            elif key == "total" and p > SPREAD_MAX:
                noisy.append(f"{c}/{s} {p:.2f}%")
    gate, gated = {}, []
    if "stock" in configs and "4k" in configs:
        for s in steps:
            o, st = med("4k", s, "transport_self"), med("stock", s, "transport_self")
            if o is None or st is None:
                continue
            if not st:
                gated.append(f"{s}: stock ran no transport instruction")
                continue
            d = 100.0 * (o - st) / st
            gate[s] = (st, o, d)
            if d > GATE_MAX:
                gated.append(f"{s}: ours at 4 KiB runs {d:.1f}% more transport-layer "
                             f"instructions per RPC than stock ({o:.0f} against {st:.0f})")
    else:
        gated.append("no stock or no 4k configuration to gate on")
    if a.gate:
        failures += gated
    elif gated:
        notes.append(f"ours at 4 KiB against stock (not gated in {a.mode}): " +
                     "; ".join(gated))
    # the short form's own check: inline at 16 KiB spares the transport
    # the read chunk of a 4 KiB write, which it needs at 4 KiB
    if a.mode == "cost-quick":
        i16, c4 = med("16k", "write-4k", "transport_self"), med("4k", "write-4k", "transport_self")
        if i16 is None or c4 is None or not i16 < c4:
            failures.append(f"write-4k: the transport's own instructions per RPC are not fewer "
                            f"inline (16k: {i16}) than with a read chunk (4k: {c4})")
        for p in posts:
            # nfsd on a shared receive queue posts with ib_post_srq_recv()
            calls = (p["rxe_posts"] - p["client_posts"] + p["srq_posts"]) / max(p["rpcs"], 1)
            if p["config"] == "4k" and not calls >= 0.9:
                failures.append(f"ours made {calls:.2f} server ib_post_recv() or "
                                "ib_post_srq_recv() calls per RPC: not one per Call")
            # the client's spare Receives go up in batches, even on the
            # small grant nfsd's pool gives a connection with one Call
            if p["config"] == "4k" and not p["client_posts"] / max(p["rpcs"], 1) < 0.5:
                failures.append(f"ours made {p['client_posts'] / max(p['rpcs'], 1):.2f} client "
                                "ib_post_recv() calls per RPC: not in batches")
            if p["config"] == "stock" and not calls < 0.5:
                failures.append(f"stock made {calls:.2f} server ib_post_recv() calls per RPC: "
                                "not in batches")
        for c in ("4k", "stock"):
            if not any(p["config"] == c for p in posts):
                failures.append(f"no count of the Receives {c} posted (COSTPOSTS)")

    k = lambda x: "" if x is None else f"{x / 1000:.2f}"
    n0 = lambda x: "" if x is None else f"{x:.0f}"
    md = [f"# Instructions per RPC, by layer ({a.mode})", ""]
    md.append(f"{len(a.files) // 2} boot(s), {nsamples} samples per step (repeats x boots). "
              "Figures are medians over the samples, per RPC of the client (RPCs counted "
              "between the step's marks), in thousands of guest instructions unless said. "
              "Largest spread between the samples of a step: "
              + "; ".join(f"{key} {p:.3f}% ({w})" for key, (p, w) in sorted(worst.items())) + ".")
    if LEGACY:
        md += ["", "(Made before the guest counted its marks and the plugin wrote the reset "
               "values it received: that the plugin saw every mark and value is not checked "
               "for " + ", ".join(os.path.basename(os.path.dirname(l)) or l for l in LEGACY) +
               "; every step's mark was found.)"]
    md += ["", "## All instructions per RPC (thousands)", "",
           "| step | " + " | ".join(configs) + " |", "|---|" + "---|" * len(configs)]
    for s in steps:
        md.append(f"| {s} | " + " | ".join(k(med(c, s, "total")) for c in configs) + " |")
    md += ["", "## Transport layer per RPC (thousands): its own code, and with the kernel code it calls", "",
           "| step | " + " | ".join(configs) + " | 4k / stock, own | 4k / stock, with calls |",
           "|---|" + "---|" * (len(configs) + 2)]
    for s in steps:
        cells = [f"{k(med(c, s, 'transport_self'))} ({k(med(c, s, 'transport'))})" for c in configs]
        g = gate.get(s)
        wc = ""
        if g and med("stock", s, "transport"):
            wc = f"{med('4k', s, 'transport') / med('stock', s, 'transport'):.3f}"
        md.append(f"| {s} | " + " | ".join(cells) +
                  f" | {'' if not g else f'{g[1] / g[0]:.3f}'} | {wc} |")
    md += ["", "## By layer (thousands per RPC, with the kernel code each calls; all but rxe: "
           "what a host CPU would run with a real RNIC)", "",
           "| step | config | " + " | ".join(LAYERS) + " | all | all but rxe |",
           "|---|---|" + "---|" * (len(LAYERS) + 2)]
    for s in steps:
        for c in configs:
            if (c, s) not in samples:
                continue
            t = med(c, s, "total")
            md.append(f"| {s} | {c} | " + " | ".join(k(med(c, s, l)) for l in LAYERS) +
                      f" | {k(t)} | {k(t - med(c, s, 'rxe'))} |")
    if "stock" in configs and "4k" in configs:
        md += ["", "## Ours at 4 KiB over stock, by layer (with the kernel code each calls; "
               "in brackets, its own code)", "",
               "| step | " + " | ".join(LAYERS) + " | all |", "|---|" + "---|" * (len(LAYERS) + 1)]
        for s in steps:
            def ratio(key):
                o, st = med("4k", s, key), med("stock", s, key)
                return f"{o / st:.3f}" if o is not None and st else ""
            md.append(f"| {s} | " + " | ".join(
                f"{ratio(l)} ({ratio(l + '_self')})" if l not in ("kernel",) else ratio(l)
                for l in LAYERS) + f" | {ratio('total')} |")
        md += ["", "## Largest spread between samples, by layer, over all steps (%)", "",
               "| | " + " | ".join(LAYERS) + " | all |", "|---|" + "---|" * (len(LAYERS) + 1)]
        for part, sfx in (("with calls", ""), ("own code", "_self")):
            cells = []
            for l in LAYERS + ["total"]:
                key = l + sfx if l != "total" else "total"
                cells.append(f"{max(spr(c, s, key) for c, s in samples):.2f}"
                             if l != "kernel" or not sfx else "")
            md.append(f"| {part} | " + " | ".join(cells) + " |")
    # inline against chunks: the threshold that needs a chunk, the one that does not
    pairs = [("write-8k", "4k", "16k"), ("read-8k", "4k", "16k"),
             ("write-32k", "16k", "64k"), ("read-32k", "16k", "64k"),
             ("write-4k", "4k", "16k"), ("read-16k", "4k", "64k"),
             ("write-64k", "64k", "256k"), ("read-64k", "64k", "256k")]
    rowsp = [(s, ch, inl) for s, ch, inl in pairs
             if (ch, s) in samples and (inl, s) in samples]
    if rowsp:
        md += ["", "## What inline saves against a chunk (thousands per RPC, inline minus chunk)", "",
               "| step | chunk at | inline at | " + " | ".join(LAYERS) + " | all | all but rxe |",
               "|---|---|---|" + "---|" * (len(LAYERS) + 2)]
        for s, ch, inl in rowsp:
            d = {l: med(inl, s, l) - med(ch, s, l) for l in LAYERS + ["total"]}
            md.append(f"| {s} | {ch} | {inl} | " + " | ".join(f"{d[l] / 1000:+.2f}" for l in LAYERS) +
                      f" | {d['total'] / 1000:+.2f} | {(d['total'] - d['rxe']) / 1000:+.2f} |")
    # the two hot-path changes
    md += ["", "## Hot paths", ""]
    hp = [s for s in ("write-4k", "read-4k", "write-16k", "read-16k", "create") if s in steps]
    if "stock" in configs and "4k" in configs and hp:
        md += ["Client: the Reply's head and tail copied into the RPC's own buffer "
               "(rpcrdma_reply_copy(), from rpcrdma_inline_fixup(), which is inlined into "
               "rpcrdma_complete_rqst(); sunrpc's read_bytes_from_xdr_buf() when a Reply "
               "spans blocks; instructions per RPC with the memcpy() under them). Octets "
               "copied: the Reply's octets outside its payload.", "",
               "| step | Reply octets copied per RPC | " +
               " | ".join(f"{f}, stock / ours" for f in COPY_FUNCS) + " |",
               "|---|---|" + "---|" * len(COPY_FUNCS)]
        for s in [s for s in hp if ("4k", s) in samples and ("stock", s) in samples]:
            r0 = samples[("4k", s)][0]
            payload = 0
            mm = re.match(r"read-(\d+)k", s)
            if mm:
                payload = int(mm.group(1)) * 1024 * r0["count"]
            octets = max(0, r0["recv"] - payload) / r0["rpcs"] if r0["recv"] else None
            md.append(f"| {s} | {n0(octets)} | " + " | ".join(
                f"{n0(fmed('stock', s, f))} / {n0(fmed('4k', s, f))}" for f in COPY_FUNCS) + " |")
        md += ["", "Server: a Call's Receive posted again before its Reply, one at a time, "
               "against stock's batches (instructions per RPC, own code and the kernel code "
               "it calls):", "",
               "| step | " + " | ".join(f"{f}, stock / ours" for f in REPOST_FUNCS) +
               " | sum, stock / ours |", "|---|" + "---|" * (len(REPOST_FUNCS) + 1)]
        for s in [s for s in hp if ("4k", s) in samples and ("stock", s) in samples]:
            ss = sum(fmed("stock", s, f) or 0 for f in REPOST_FUNCS)
            so = sum(fmed("4k", s, f) or 0 for f in REPOST_FUNCS)
            md.append(f"| {s} | " + " | ".join(
                f"{n0(fmed('stock', s, f))} / {n0(fmed('4k', s, f))}" for f in REPOST_FUNCS) +
                f" | {n0(ss)} / {n0(so)} |")
    if posts:
        md += ["", "Receives posted and ib_post_recv() calls (doorbells on a real RNIC) per RPC, "
               "write-4k run apart with tracepoints and a kprobe on rdma_rxe's post_recv:", "",
               "| config | server Receives | server ib_post_recv() or ib_post_srq_recv() | client Receives | "
               "client ib_post_recv() |", "|---|---|---|---|---|"]
        for p in posts:
            n = p["rpcs"] or 1
            md.append(f"| {p['config']} | {p['server_recvs'] / n:.2f} | "
                      f"{(p['rxe_posts'] - p['client_posts'] + p['srq_posts']) / n:.2f} | "
                      f"{p['client_recvs'] / n:.2f} | {p['client_posts'] / n:.2f} |")
    # where ours and stock differ, by function
    fsteps = [s for s in ("write-4k", "read-4k", "create", "unlink") if ("4k", s) in samples
              and ("stock", s) in samples]
    frows = []
    for s in fsteps:
        names = set()
        for c in ("stock", "4k"):
            for r in samples[(c, s)]:
                names.update(r["funcs"])
        for name in names:
            st, o = fmed("stock", s, name, "self"), fmed("4k", s, name, "self")
            frows.append((s, name, st, o))
    with open(os.path.join(a.outdir, "functions.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "function", "stock_self_per_rpc", "ours_4k_self_per_rpc"])
        for s, name, st, o in sorted(frows):
            w.writerow([s, name, f"{st:.1f}", f"{o:.1f}"])
    if fsteps:
        parts = {}
        for s in fsteps:
            tfuncs = set().union(*(r["tfuncs"] for c in ("stock", "4k")
                                   for r in samples[(c, s)]))
            by = [0.0] * len(PARTS)
            for ss, name, st, o in frows:
                if ss != s or name not in tfuncs:
                    continue
                for i, (_, prefixes) in enumerate(PARTS):
                    if name.startswith(tuple(prefixes)):
                        by[i] += o - st
                        break
            whole = med("4k", s, "transport_self") - med("stock", s, "transport_self")
            parts[s] = by + [whole - sum(by), whole] if tfuncs else None
        md += ["", "## Ours at 4 KiB over stock, by part of the series (the transport's own "
               "instructions per RPC, ours minus stock, of the median samples; each function of "
               "rpcrdma.ko counts wholly for the part whose name prefix it matches first in "
               "cost.py's PARTS, also one that several parts changed; the rest: every other "
               "function, and code with no symbol)", "",
               "| part | " + " | ".join(fsteps) + " |", "|---|" + "---|" * len(fsteps)]
        for i, name in enumerate([n for n, _ in PARTS] + ["the rest", "all"]):
            md.append(f"| {name} | " + " | ".join(
                f"{parts[s][i]:+.0f}" if parts[s] else "no symbols" for s in fsteps) + " |")
    for s in fsteps:
        d = sorted(((o - st, name) for ss, name, st, o in frows if ss == s), reverse=True)
        d = [x for x in d if abs(x[0]) >= 3]
        if not d:
            continue
        md += ["", f"## {s}: where ours at 4 KiB and stock differ (own instructions per RPC, "
               "functions of rpcrdma.ko and sunrpc.ko, ours minus stock)", ""]
        md.append(", ".join(f"{name} {x:+.0f}" for x, name in d[:30]))
    md += ["", "## Layers", ""] + [f"- {l}: {LAYER_TEXT[l]}" for l in LAYERS]
    what = (f"ours at 4 KiB within {GATE_MAX}% of stock in the transport layer's own "
            "instructions in every step" if a.gate else
            "inline at 16 KiB cheaper in the transport than a read chunk at 4 KiB for "
            "write-4k, and ours posting a Receive per Call")
    md += ["", "## Gate", "",
           f"The samples of each step within {SPREAD_MAX}% in the transport layer's own "
           f"instructions per RPC, {what}: {'passed' if not failures else 'FAILED'}.", ""]
    md += [f"- {f}" for f in failures]
    md += [f"- {n}" for n in notes]
    if noisy:
        md += [f"- all instructions per RPC: the samples of {len(noisy)} of {len(samples)} steps "
               f"disagree by more than {SPREAD_MAX}% (not gated; the layers' own code agrees, "
               "what differs is the kernel code they call, see the README): " + ", ".join(noisy)]
    with open(os.path.join(a.outdir, "cost.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"# cost: {len(rows)} steps counted; largest spreads: " +
          "; ".join(f"{key} {p:.3f}% ({w})" for key, (p, w) in sorted(worst.items())) +
          f"; report in {a.outdir}/cost.md")
    for f in failures:
        print(f"# cost: gate: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
