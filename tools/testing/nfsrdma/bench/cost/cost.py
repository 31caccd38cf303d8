#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cost.py --mode cost|cost-quick OUTDIR LOG COUNTS [LOG COUNTS...]

The report and the gate of the benchmark's cost mode (cost.sh). Each
LOG is a guest's console (scenarios/bench.sh: its BENCH lines, each
naming the mark that ends the step and the RPCs between its marks, and
its COSTMAP lines: /proc/modules); each COUNTS is what insn-count.so
wrote in that boot: per mark, the instructions of each page of the
modules' area, of the kernel's own text and of user space, each with
the kernel's own code run under it.

Writes OUTDIR/cost.csv (one row per boot, repeat, configuration and
step) and OUTDIR/cost.md, and exits non-zero when the gate fails:
- repeats (and boots) of a step disagree by more than 1% in
  instructions per RPC, in all or in the transport layer;
- ours at 4 KiB spends more transport-layer instructions per RPC than
  stock in a step, by more than 2%;
- the counts do not add up (a mark missing, a layer sum that is not the
  plugin's total).
"""
import argparse
import csv
import os
import re
import statistics
import sys

# Which layer a module's code belongs to; every other page of the
# kernel is "kernel"
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
    "transport": "RPC-over-RDMA (rpcrdma.ko: xprtrdma and svcrdma)",
    "sunrpc": "the rest of SUNRPC (sunrpc.ko, auth_rpcgss.ko)",
    "nfs": "the NFS client (nfs.ko, nfsv4.ko)",
    "nfsd": "nfsd (nfsd.ko, lockd.ko, grace.ko)",
    "rdma-core": "the RDMA core (ib_core.ko, rdma_cm.ko...)",
    "rxe": "the emulated RNIC (rdma_rxe.ko, and the network stack under it)",
    "kernel": "the rest of the kernel (system calls, VFS, scheduler, interrupts)",
    "user": "user space (fio, the shell loop of readdir)",
}
CONFIGS = ["stock", "legacy-1k", "4k", "16k", "64k", "256k", "16k-noinv"]
BENCH = re.compile(r"BENCH config=(\S+) rep=(\d+) step=(\S+) count=(\d+) .* mark=(\d+) rpcs=(\d+)")
COSTMAP = re.compile(r"COSTMAP config=(\S+) rep=(\d+) (.*)")
SPREAD_MAX = 1.0        # % between repeats
GATE_MAX = 2.0          # % more transport instructions at 4 KiB than stock


def parse_counts(path):
    """{mark: ({page|"core"|"user": (self, under)}, total)}"""
    marks, cur, pages = {}, None, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "mark":
                cur, pages = int(w[1]), {}
            elif w[0] == "end":
                if cur != int(w[1]):
                    sys.exit(f"{path}: mark {w[1]} ends where mark {cur} began")
                marks[cur] = (pages, int(w[2]))
            elif w[0] in ("core", "user"):
                pages[w[0]] = (int(w[1]), int(w[2]))
            else:
                pages[int(w[0], 16)] = (int(w[1]), int(w[2]))
    return marks


def parse_log(path):
    maps, steps = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.replace("\r", "")
            m = COSTMAP.search(line)
            if m:
                mods = []
                for w in m.group(3).split():
                    name, addr, size = w.split(":")
                    mods.append((int(addr, 16), int(size), name))
                maps[(m.group(1), int(m.group(2)))] = sorted(mods)
                continue
            m = BENCH.search(line)
            if m:
                steps.append({"config": m.group(1), "rep": int(m.group(2)),
                              "step": m.group(3), "count": int(m.group(4)),
                              "mark": int(m.group(5)), "rpcs": int(m.group(6))})
    return maps, steps


def layer_of(page, mods):
    """The layer of a page of the modules' area: the module whose text
    starts last at or before it, if the page lies within its size"""
    best = None
    for base, size, name in mods:
        if base - base % 4096 <= page:
            best = (base, size, name)
        else:
            break
    if best and page < best[0] + best[1]:
        return LAYER_OF.get(best[2], "kernel")
    return "kernel"


def rows_of(boot, log, counts):
    maps, steps = parse_log(log)
    marks = parse_counts(counts)
    rows = []
    if not steps:
        sys.exit(f"{log}: no BENCH lines")
    for s in steps:
        mods = maps.get((s["config"], s["rep"]))
        if mods is None:
            sys.exit(f"{log}: no COSTMAP for {s['config']} repeat {s['rep']}")
        if s["mark"] not in marks:
            sys.exit(f"{counts}: no mark {s['mark']} ({s['config']}/{s['step']})")
        pages, total = marks[s["mark"]]
        row = dict(s, boot=boot, total=total)
        for l in LAYERS:
            row[l] = row[l + "_self"] = 0
        for page, (self, under) in pages.items():
            l = "kernel" if page == "core" else "user" if page == "user" else layer_of(page, mods)
            row[l] += self + under
            row[l + "_self"] += self
        if sum(row[l] for l in LAYERS) != total:
            sys.exit(f"{counts}: mark {s['mark']}: the layers do not add up to {total}")
        if s["rpcs"] <= 0:
            sys.exit(f"{log}: {s['config']}/{s['step']}: no RPC between the marks")
        rows.append(row)
    return rows


def per_rpc(row, key):
    return row[key] / row["rpcs"]


def spread(values):
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="cost")
    ap.add_argument("outdir")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if len(a.files) % 2:
        sys.exit("cost.py: LOG COUNTS pairs expected")
    rows = []
    for i in range(0, len(a.files), 2):
        rows += rows_of(i // 2 + 1, a.files[i], a.files[i + 1])
    os.makedirs(a.outdir, exist_ok=True)
    keys = ["boot", "rep", "config", "step", "count", "rpcs", "total"] + LAYERS + \
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
    # (config, step) -> the samples: every repeat of every boot
    samples = {}
    for r in rows:
        samples.setdefault((r["config"], r["step"]), []).append(r)

    def med(c, s, key):
        v = samples.get((c, s))
        return statistics.median(per_rpc(r, key) for r in v) if v else None

    def spr(c, s, key):
        v = samples.get((c, s))
        return spread([per_rpc(r, key) for r in v]) if v and len(v) > 1 else 0.0

    failures = []
    nsamples = max(len(v) for v in samples.values())
    if nsamples < 2:
        failures.append("one sample per step: nothing to compare repeats with")
    worst = (0.0, "")
    for (c, s), v in samples.items():
        for key in ("total", "transport"):
            p = spr(c, s, key)
            if p > worst[0]:
                worst = (p, f"{c}/{s} ({key})")
            if p > SPREAD_MAX:
                failures.append(f"{c}/{s}: repeats disagree by {p:.2f}% in {key} instructions per RPC")
    gate = []
    if "stock" in configs and "4k" in configs:
        for s in steps:
            o, st = med("4k", s, "transport"), med("stock", s, "transport")
            if o is None or st is None:
                continue
            d = 100.0 * (o - st) / st
            gate.append((s, st, o, d))
            if d > GATE_MAX:
                failures.append(f"{s}: ours at 4 KiB spends {d:.1f}% more transport-layer "
                                f"instructions per RPC than stock ({o:.0f} against {st:.0f})")
    else:
        failures.append("no stock or no 4k configuration to gate on")

    k = lambda x: f"{x / 1000:.1f}" if x is not None else ""
    md = []
    md.append(f"# Instructions per RPC, by layer ({a.mode})\n")
    md.append(f"{len(a.files) // 2} boot(s), {nsamples} samples per step (repeats x boots); "
              f"figures are medians, in thousands of guest instructions per RPC "
              f"(RPCs: the client's, counted between the step's marks). "
              f"Largest spread between samples: {worst[0]:.3f}% ({worst[1]}).\n")
    md.append("## All instructions per RPC (thousands)\n")
    md.append("| step | " + " | ".join(configs) + " |")
    md.append("|---|" + "---|" * len(configs))
    for s in steps:
        md.append(f"| {s} | " + " | ".join(k(med(c, s, "total")) for c in configs) + " |")
    md.append("\n## Transport layer (rpcrdma.ko and the kernel code it calls), per RPC (thousands)\n")
    md.append("| step | " + " | ".join(configs) + " | 4k / stock |")
    md.append("|---|" + "---|" * (len(configs) + 1))
    for s in steps:
        g = next((x for x in gate if x[0] == s), None)
        md.append(f"| {s} | " + " | ".join(k(med(c, s, "transport")) for c in configs) +
                  f" | {'' if g is None else f'{g[2] / g[1]:.3f}'} |")
    md.append("\n## By layer (thousands per RPC)\n")
    md.append("Each layer counts its own code and the kernel's core code it calls "
              "(memcpy, the allocators, the network stack under rdma_rxe); in brackets, "
              "its own code alone. Host CPU on real hardware: all but rxe.\n")
    md.append("| step | config | " + " | ".join(LAYERS) + " | all | all but rxe |")
    md.append("|---|---|" + "---|" * (len(LAYERS) + 2))
    for s in steps:
        for c in configs:
            if (c, s) not in samples:
                continue
            cells = [f"{k(med(c, s, l))} ({k(med(c, s, l + '_self'))})" for l in LAYERS]
            t = med(c, s, "total")
            md.append(f"| {s} | {c} | " + " | ".join(cells) +
                      f" | {k(t)} | {k(t - med(c, s, 'rxe'))} |")
    md.append("\n## Layers\n")
    for l in LAYERS:
        md.append(f"- {l}: {LAYER_TEXT[l]}")
    md.append("\n## Gate\n")
    md.append(f"Repeats within {SPREAD_MAX}%, ours at 4 KiB within {GATE_MAX}% of stock "
              f"in the transport layer in every step: "
              f"{'passed' if not failures else 'FAILED'}.\n")
    for f in failures:
        md.append(f"- {f}")
    with open(os.path.join(a.outdir, "cost.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"cost: {len(rows)} steps counted, largest spread {worst[0]:.3f}% ({worst[1]}); "
          f"report in {a.outdir}/cost.md")
    for f in failures:
        print(f"cost: gate: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
