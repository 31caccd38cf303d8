#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the BENCH and BENCH-MEM lines of `make bench` VM logs into a report.

report.py OUTDIR LOG... [--check quick|full]

Writes OUTDIR/results.csv (one row per configuration and step: medians
and spreads over the repeats), OUTDIR/memory.csv (one row per rpcrdma.ko
and threshold: what one connection took on each end), OUTDIR/results.md
(tables: first the counts, which carry over to real hardware, then the
memory, then a latency model, then the emulator's times) and
OUTDIR/bench.png (gnuplot: share of RPCs fully inline, and ops/s). With
--check, also asserts what the issue asks of the results and exits 1
when one does not hold.
"""

import csv
import os
import re
import statistics
import subprocess
import sys

# As scenarios/bench.sh counters() prints them; -1 where a kernel has none
COUNTERS = ("rpcs", "read", "write", "reply", "localinv", "swi", "bytes",
            "pkts", "sends", "recvs", "rdreads", "rdwrites", "wirebytes")
OPTIONAL = ("swi", "wirebytes")
LINE = re.compile(r"BENCH config=(\S+) rep=(\d+) step=(\S+) count=(\d+) ops_per_s=(\d+) "
                  r"ms=(\d+) wall=(\d+) before=(\S+) after=(\S+)")
MEMLINE = re.compile(r"BENCH-MEM module=(\S+) size=(\d+) status=(\S+)(.*)")
# A spread (max - min over the median) above this marks a time as noisy
SPREAD = 0.10

# The latency model (a model, never a measurement). One-way Send latency
# on a ConnectX-4 100 Gb/s InfiniBand link, from ib_send_lat: (octets, us)
SEND_LAT = ((32, 0.83), (1024, 1.58), (4096, 2.26))
# A round trip: a small Send each way
RTT_US = 2 * SEND_LAT[0][1]
# Per octet: the slope of those figures from 32 octets to 4 KiB
US_PER_OCTET = (SEND_LAT[2][1] - SEND_LAT[0][1]) / (SEND_LAT[2][0] - SEND_LAT[0][0])
# One FRWR register plus invalidate: ~0.6 us of NIC time (derived from
# the NVMe-oF figures of the mlx5 "post klm/mtt list inline" commit),
# split evenly between the two (an assumption of this model)
T_REG_US = 0.3
T_INV_US = 0.3
# The CPU term: what the hosts' kernels run per RPC, client and server,
# measured by the cost mode (make bench COST=1: guest instructions per RPC
# in every layer but the emulated RNIC and user space, cost.csv), at an
# assumed 0.3 ns per instruction (a
# 3.3 GHz core retiring one instruction per cycle; an assumption of this
# model, kernel code retires one to two). None without a cost.csv.
NS_PER_INSN = 0.3
COST = None


def matches(logs, regex):
    """(match, line) for every line of the logs that regex matches"""
    for path in logs:
        with open(path, errors="replace") as f:
            for line in f:
                m = regex.search(line.replace("\r", ""))
                if m:
                    yield m, line


def parse(logs):
    rows = []
    for m, line in matches(logs, LINE):
        config, rep, step, count, ops, ms, wall, before, after = m.groups()
        b = [int(x) for x in before.split(",")]
        a = [int(x) for x in after.split(",")]
        if len(a) != len(COUNTERS) or len(b) != len(COUNTERS):
            sys.exit(f"report.py: malformed counters in: {line.strip()}")
        d = {k: a[i] - b[i] for i, k in enumerate(COUNTERS)}
        for k in OPTIONAL:
            i = COUNTERS.index(k)
            if b[i] < 0 or a[i] < 0:
                d[k] = None   # stock's nfsd, 6.12's rxe: no counter
        rows.append(dict(config=config, rep=int(rep), step=step,
                         count=int(count), ops=int(ops), ms=int(ms),
                         wall=int(wall), **d))
    return rows


def reading(text):
    """"MemFree,Slab,VmallocUsed[,PCP]" (KiB) as [free, slab, vmalloc]: the
    free pages waiting in per-CPU lists count as free (older logs lack them)"""
    v = [int(x) for x in text.split(",")]
    if len(v) not in (3, 4):
        raise ValueError(text)
    return [v[0] + (v[3] if len(v) == 4 else 0), v[1], v[2]]


def parse_mem(logs):
    """One dict per BENCH-MEM line: what one connection took on each end
    (KiB), from MemFree before, with and after the N connections"""
    rows = []
    for m, line in matches(logs, MEMLINE):
        module, size, status, rest = m.groups()
        kv = dict(w.split("=", 1) for w in rest.split() if "=" in w)
        row = {"module": module, "size": int(size), "status": status}
        if status != "ok":
            row["note"] = (f"refused: client {kv.get('client', '?')}, "
                           f"server {kv.get('server', '?')}")
            rows.append(row)
            continue
        try:
            n = int(kv["n"])
            c = [reading(x) for x in kv["client"].split("/")]
            sv = [reading(x) for x in kv["server"].split("/")]
        except (KeyError, ValueError):
            sys.exit(f"report.py: malformed BENCH-MEM line: {line.strip()}")
        credits = int(kv.get("credits", 0))
        for side, (before, during, after) in (("client", c), ("server", sv)):
            row[f"{side}_kib"] = round((before[0] - during[0]) / n)
            row[f"{side}_slab_kib"] = round((during[1] - before[1]) / n)
            row[f"{side}_vmalloc_kib"] = round((during[2] - before[2]) / n)
            row[f"{side}_left_kib"] = round((before[0] - after[0]) / n)
            # Against the goal: credits x threshold (1.0 would be
            # exactly one buffer of the threshold per credit)
            row[f"{side}_per_credit_buffer"] = (
                round(row[f"{side}_kib"] * 1024 / (credits * int(size)), 2)
                if credits else 0)
        row.update(n=n, credits=credits, note="")
        rows.append(row)
    # What grows with the threshold, apart from what every connection
    # takes: the growth over the smallest threshold measured for that
    # rpcrdma.ko, per credit and octet of threshold growth (the goal is
    # at most 1.1: about one buffer of the threshold per credit)
    for r in rows:
        base = min((b for b in rows if b["module"] == r["module"] and b["status"] == "ok"),
                   key=lambda b: b["size"], default=None)
        for side in ("client", "server"):
            growth = pages = ""
            if (r["status"] == "ok" and base is not None and r["size"] > base["size"]
                    and r["credits"]):
                per = r["credits"] * (r["size"] - base["size"]) / 1024
                growth = round((r[f"{side}_kib"] - base[f"{side}_kib"]) / per, 2)
            # What is neither slab nor vmalloc, over credits x
            # threshold: our Receive buffers' page blocks, without the
            # device's queues (rxe vmallocs them) and the per-request
            # buffers (slab). A buffer of a page or less is one
            # kmalloc(), in slab, and stock kmallocs every buffer, so
            # for those it would say nothing.
            if (r["module"] == "ours" and r["status"] == "ok" and r["credits"]
                    and r["size"] > 4096):
                pages = round(buffers_kib(r, side) * 1024 / (r["credits"] * r["size"]), 3)
            r[f"{side}_growth_per_credit"] = growth
            r[f"{side}_page_blocks_per_credit"] = pages
    return rows


def buffers_kib(r, side):
    """What one connection took on SIDE that is neither slab nor vmalloc"""
    return r[f"{side}_kib"] - r[f"{side}_slab_kib"] - r[f"{side}_vmalloc_kib"]


def dash(v):
    """A figure of the memory table, or - where there is none"""
    return "-" if v == "" else v


def med(values):
    return statistics.median(values) if values else 0


def aggregate(rows):
    groups = {}
    for r in rows:
        groups.setdefault((r["config"], r["step"]), []).append(r)
    out = []
    for (config, step), rs in groups.items():
        rpcs = [max(r["rpcs"], 1) for r in rs]
        ops = [r["ops"] for r in rs]
        rate = [r["rpcs"] * 1000 / r["ms"] if r["ms"] else 0 for r in rs]
        chunks = lambda k: med([r[k] * 1000 / n for r, n in zip(rs, rpcs)])
        inline = med([max(0.0, 1 - (r["read"] + r["write"] + r["reply"]) / n)
                      for r, n in zip(rs, rpcs)])
        swi = [r["swi"] for r in rs if r["swi"] is not None]
        per = lambda k: round(med([r[k] / n for r, n in zip(rs, rpcs)]), 2)
        wire = [r["wirebytes"] / n for r, n in zip(rs, rpcs) if r["wirebytes"] is not None]
        spread = (max(ops) - min(ops)) / med(ops) if med(ops) else 0
        w = {
            "read_per_rpc": med([r["read"] / n for r, n in zip(rs, rpcs)]),
            "regs_per_rpc": med([(r["read"] + r["write"] + r["reply"]) / n
                                 for r, n in zip(rs, rpcs)]),
            "localinv_per_rpc": med([r["localinv"] / n for r, n in zip(rs, rpcs)]),
            "bytes_per_rpc": med([r["bytes"] / n for r, n in zip(rs, rpcs)]),
        }
        out.append({
            "config": config, "step": step, "repeats": len(rs),
            "count": rs[0]["count"],
            "ops_per_s": med(ops), "ops_min": min(ops), "ops_max": max(ops),
            "rpcs_per_s": round(med(rate), 1),
            "rpcs": med([r["rpcs"] for r in rs]),
            "read_chunks": med([r["read"] for r in rs]),
            # Steps are time-based: each repeat does its own count
            "read_chunks_per_op": round(med([r["read"] / max(r["count"], 1) for r in rs]), 3),
            "read_chunks_per_1000": round(chunks("read"), 1),
            "write_chunks_per_1000": round(chunks("write"), 1),
            "reply_chunks_per_1000": round(chunks("reply"), 1),
            "inline_share": round(inline, 3),
            "local_inv_per_rpc": round(med([r["localinv"] / n
                                            for r, n in zip(rs, rpcs)]), 3),
            "send_with_inv": med(swi) if swi else "",
            "ops_spread": round(spread, 3),
            "packets_per_rpc": per("pkts"),
            "sends_per_rpc": per("sends"),
            "recvs_per_rpc": per("recvs"),
            "rdma_read_segs_per_rpc": per("rdreads"),
            "rdma_write_segs_per_rpc": per("rdwrites"),
            "rpc_octets_per_rpc": round(w["bytes_per_rpc"]),
            "wire_octets_per_rpc": round(med(wire)) if wire else "",
            "cpu_insns_per_rpc": cpu_insns(config, step),
            # the model: the network terms, and with the CPU term where
            # the cost mode counted the step ("" where it did not)
            "model_net_us_per_rpc": round(model_us(w), 2),
            "model_us_per_rpc": (round(model_us(w) + cpu_us(config, step), 2)
                                 if cpu_insns(config, step) != "" else ""),
        })
    return out


def load_cost(path):
    """{(config, step): host kernel instructions per RPC}: the medians,
    over its samples, of the instructions per RPC of every layer but rxe
    (the RNIC's work) and user (fio's own) in a cost.csv"""
    per = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            n = int(r["rpcs"])
            if n > 0:
                per.setdefault((r["config"], r["step"]), []).append(
                    (int(r["total"]) - int(r["rxe"]) - int(r["user"])) / n)
    return {k: statistics.median(v) for k, v in per.items()}


def cpu_insns(config, step):
    """Host instructions per RPC of config and step, "" if not measured"""
    if COST is None or (config, step) not in COST:
        return ""
    return round(COST[(config, step)])


def cpu_us(config, step):
    """The model's CPU term, in us: 0 without a measurement for the step"""
    n = cpu_insns(config, step)
    return n * NS_PER_INSN / 1000 if n != "" else 0.0


def model_us(w):
    """Projected time of one RPC on a real fabric, in us (a model, never a
    measurement): T = round trips x RTT + registrations x t_reg +
    synchronous invalidations x t_inv + octets x (us per octet). A round
    trip is the call and its reply, plus one for each RDMA Read chunk
    (the server pulls it before it can run the call); every chunk is one
    FRWR registration; a LOCAL_INV the client posts is waited for, a
    remote invalidation is not."""
    trips = 1 + w["read_per_rpc"]
    return (trips * RTT_US + w["regs_per_rpc"] * T_REG_US +
            w["localinv_per_rpc"] * T_INV_US + w["bytes_per_rpc"] * US_PER_OCTET)


def order(results):
    configs = []
    for c in ["stock", "legacy-1k", "4k", "16k", "64k", "256k", "16k-noinv"]:
        if any(r["config"] == c for r in results):
            configs.append(c)
    steps = []
    for r in results:
        if r["step"] not in steps:
            steps.append(r["step"])
    return configs, steps


def write_csv(path, results):
    fields = []
    for r in results:
        fields += [k for k in r if k not in fields]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(results)


def table(results, configs, steps, key, fmt):
    get = {(r["config"], r["step"]): r for r in results}
    lines = ["| step | " + " | ".join(configs) + " |",
             "|---|" + "---|" * len(configs)]
    for s in steps:
        cells = []
        for c in configs:
            r = get.get((c, s))
            cells.append(fmt(r) if r else "")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def kernel_of(logs):
    """The kernel release the guest printed ("E2E: role=... kernel=R")."""
    for path in logs:
        with open(path, errors="replace") as f:
            m = re.search(r"^E2E: role=\S+ .*kernel=(\S+)", f.read(), re.M)
        if m:
            return m.group(1)
    return "unknown"


def mem_table(mem):
    """What one connection took, measured: the rows of BENCH-MEM"""
    md = ["| rpcrdma.ko | threshold | client KiB | server KiB | "
          "client / server over credits x threshold | "
          "client / server growth over credits x threshold growth | "
          "page blocks over credits x threshold (client / server) | "
          "slab KiB (client / server) | "
          "left after disconnect KiB (client / server) | connections | credits |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(mem, key=lambda r: (r["module"] != "ours", r["size"])):
        k = f"{r['size'] // 1024} KiB"
        if r["status"] != "ok":
            md.append(f"| {r['module']} | {k} | n/a | n/a | {r['note']} | | | | | | |")
            continue
        md.append(f"| {r['module']} | {k} | {r['client_kib']} | {r['server_kib']} | "
                  f"{r['client_per_credit_buffer']:g} / {r['server_per_credit_buffer']:g} | "
                  f"{dash(r['client_growth_per_credit'])} / {dash(r['server_growth_per_credit'])} | "
                  f"{dash(r['client_page_blocks_per_credit'])} / "
                  f"{dash(r['server_page_blocks_per_credit'])} | "
                  f"{r['client_slab_kib']} / {r['server_slab_kib']} | "
                  f"{r['client_left_kib']} / {r['server_left_kib']} | {r['n']} | {r['credits']} |")
    return "\n".join(md)


def mem_section(mem):
    return ["## Memory one connection takes, measured", "",
            "Free memory of each end (MemFree plus the free pages in per-CPU "
            "lists) before N connections and with them, after syncing and "
            "dropping caches, over N; two VMs, each end on its own kernel, both "
            "on the same rpcrdma.ko; each connection has moved one write and one "
            "read of the threshold's size, then two seconds of 4 KiB reads at "
            "iodepth 64. The client's figure includes the NFS "
            "mount's own structures. Credits: the server's max_requests.", "",
            mem_table(mem), ""]


def write_md(path, results, configs, steps, kernel, mem):
    get = {(r["config"], r["step"]): r for r in results}
    reps = max(r["repeats"] for r in results)
    md = [f"# NFSv4.1 over soft-RoCE (qemu TCG), Linux {kernel}, median of {reps} run(s)", "",
          "Counts first: they are what carries over to real RDMA hardware, where "
          "the emulator's times do not.", ""]
    md += ["## Read / write / reply chunks per 1000 RPCs", "",
           table(results, configs, steps, "chunks",
                 lambda r: f"{r['read_chunks_per_1000']:g} / "
                           f"{r['write_chunks_per_1000']:g} / "
                           f"{r['reply_chunks_per_1000']:g}"), ""]
    md += ["## Share of RPCs fully inline", "",
           table(results, configs, steps, "inline",
                 lambda r: f"{r['inline_share']:.0%}"), ""]
    md += ["## LOCAL_INV per RPC (client) / Send With Invalidate (server)", "",
           table(results, configs, steps, "inv",
                 lambda r: f"{r['local_inv_per_rpc']:g} / {r['send_with_inv']}"), ""]
    md += ["## On the wire, per RPC: packets / Sends / RDMA Read segments / "
           "RDMA Write segments", "",
           "From rxe0's own counters (`sent_pkts`, `rdma_sends`; client and "
           "server share the device here, so both directions count) and "
           "nfsd's (`rdma_stat_read`, `rdma_stat_write`).", "",
           table(results, configs, steps, "wire",
                 lambda r: f"{r['packets_per_rpc']:g} / {r['sends_per_rpc']:g} / "
                           f"{r['rdma_read_segs_per_rpc']:g} / "
                           f"{r['rdma_write_segs_per_rpc']:g}"), ""]
    md += ["## RPC octets per RPC (mountstats) / octets rxe0 sent per RPC", "",
           table(results, configs, steps, "octets",
                 lambda r: f"{r['rpc_octets_per_rpc']} / "
                           f"{r['wire_octets_per_rpc'] if r['wire_octets_per_rpc'] != '' else 'n/a'}"),
           ""]
    if mem:
        md += mem_section(mem)
    cpu = ("kernel instructions per RPC x "
           f"{NS_PER_INSN} ns (counted by the cost mode, make bench COST=1: guest "
           "instructions per RPC of client and server in every layer but the emulated "
           f"RNIC and user space, at an assumed {NS_PER_INSN} ns each; a * marks a step "
           "it did not count, whose figure has the other terms only) + "
           if COST is not None else "")
    md += ["## Projected time per RPC on a real fabric, in us: a model, not a measurement", "",
           f"T = {cpu}round trips x {RTT_US:.2f} us + registrations x {T_REG_US} us + "
           f"synchronous invalidations x {T_INV_US} us + RPC octets x "
           f"{US_PER_OCTET * 1000:.3f} ns, from the counts above. Round trips: the call and "
           "its reply, plus one per read chunk. Constants: one-way Send latency on a "
           "ConnectX-4 100 Gb/s InfiniBand link, ib_send_lat, ~0.83 us at 32 B, ~1.58 us "
           "at 1 KiB, ~2.26 us at 4 KiB (RTT = two 32 B Sends; per octet = the slope from "
           "32 B to 4 KiB); one FRWR register plus invalidate ~0.6 us of NIC time "
           "(derived from the NVMe-oF figures of the mlx5 \"post klm/mtt list inline\" "
           "commit), split evenly between the two.", "",
           table(results, configs, steps, "model",
                 lambda r: (f"{r['model_us_per_rpc']:g}" if r["model_us_per_rpc"] != ""
                            else f"{r['model_net_us_per_rpc']:g}*")), ""]
    md += ["## Operations per second in the emulator (median, min-max)", "",
           f"qemu TCG: these times say little about hardware. * marks a step whose "
           f"spread over the repeats is above {SPREAD:.0%} of its median.", "",
           table(results, configs, steps, "ops",
                 lambda r: f"{r['ops_per_s']:g} ({r['ops_min']}-{r['ops_max']})"
                           f"{' *' if r['ops_spread'] > SPREAD else ''}"), ""]
    md += ["## RPCs per second in the emulator (over the window fio measured ops/s in)", "",
           table(results, configs, steps, "rate", lambda r: f"{r['rpcs_per_s']:g}"), ""]
    if "stock" in configs and "4k" in configs:
        md += ["## Ours / stock at equal thresholds (4 KiB): ops/s ratio", "",
               "| step | ratio | spread ours | spread stock |", "|---|---|---|---|"]
        for s in steps:
            o, st = get.get(("4k", s)), get.get(("stock", s))
            if o and st and st["ops_per_s"]:
                md.append(f"| {s} | {o['ops_per_s'] / st['ops_per_s']:.2f} | "
                          f"{o['ops_min']}-{o['ops_max']} | "
                          f"{st['ops_min']}-{st['ops_max']} |")
        md.append("")
    noisy = sum(1 for r in results if r["ops_spread"] > SPREAD)
    md += [f"{noisy} of {len(results)} steps have a spread above {SPREAD:.0%}.", ""]
    with open(path, "w") as f:
        f.write("\n".join(md))


def plot(path, results, configs, steps, kernel):
    get = {(r["config"], r["step"]): r for r in results}
    data = path + ".dat"

    def column(key, scale=1):
        return lambda c, s: (str(get[(c, s)][key] * scale)
                             if (c, s) in get else "NaN")

    blocks = []
    for value in (column("inline_share", 100), column("ops_per_s")):
        lines = ["# step " + " ".join(configs)]
        for s in steps:
            lines.append(s + " " + " ".join(value(c, s) for c in configs))
        blocks.append("\n".join(lines))
    with open(data, "w") as f:
        f.write("\n\n\n".join(blocks) + "\n")

    def plots(index):
        return ", ".join(f"'{data}' index {index} using {i + 2}:xtic(1) "
                         f"title '{c}'" for i, c in enumerate(configs))
    script = f"""set terminal pngcairo size 1400,1000 noenhanced
set output '{path}'
set style data histograms
set style histogram clustered gap 1
set style fill solid border -1
set key outside right
set xtics rotate by -45
set multiplot layout 2,1 title 'NFSv4.1 over soft-RoCE in qemu TCG, Linux {kernel}, median of the repeats'
set ylabel 'RPCs fully inline (%)'
set yrange [0:105]
plot {plots(0)}
set ylabel 'operations per second'
set logscale y
set yrange [*:*]
plot {plots(1)}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.unlink(data)


def well_formed(outdir):
    """The files as written: the CSV parses back with a number in every
    numeric column, the markdown has its tables, the PNG is a PNG."""
    with open(os.path.join(outdir, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    text = ("config", "step", "send_with_inv", "wire_octets_per_rpc", "cpu_insns_per_rpc",
            "model_us_per_rpc")
    for r in rows:
        for k, v in r.items():
            if k not in text:
                float(v)
    with open(os.path.join(outdir, "results.md")) as f:
        md = f.read()
    with open(os.path.join(outdir, "bench.png"), "rb") as f:
        png = f.read(8)
    return (len(rows) > 0 and md.count("\n| step |") >= 5 and
            png == b"\x89PNG\r\n\x1a\n")


class Ktap:
    """One KTAP document: need(COND, WHAT) prints a test ("ok N WHAT" /
    "not ok N WHAT"), end() the plan after the last and returns what
    failed"""

    def __init__(self):
        self.n = 0
        self.bad = []

    def need(self, cond, what):
        if self.n == 0:
            print("KTAP version 1")
        self.n += 1
        what = what.replace("#", "no.")
        print(f"{'ok' if cond else 'not ok'} {self.n} {what}" + ("" if cond else " # not met"))
        if not cond:
            self.bad.append(what)

    def end(self):
        if self.n:
            print(f"1..{self.n}")
            print(f"# bench: {self.n - len(self.bad)} passed, {len(self.bad)} failed")
        return self.bad


def check_mem(mem, mode, ktap=None):
    """Memory: measured on both ends, and the buffers grow with the
    threshold; the full and memory-only runs measure stock too. KTAP:
    the document to add the checks to; without one they are a document
    of their own"""
    t = ktap or Ktap()
    need = t.need
    ours = {r["size"]: r for r in mem if r["module"] == "ours"}
    for k in (1, 64) + ((4, 16, 256) if mode in ("full", "mem") else ()):
        r = ours.get(k * 1024)
        need(r is not None and r["status"] == "ok" and
             r["client_kib"] > 0 and r["server_kib"] > 0,
             f"ours at {k} KiB: memory per connection measured on both ends "
             f"({r['client_kib'] if r and r['status'] == 'ok' else '?'} / "
             f"{r['server_kib'] if r and r['status'] == 'ok' else '?'} KiB)")
    a, b = ours.get(1024), ours.get(65536)
    if a and b and a["status"] == b["status"] == "ok":
        for side in ("client", "server"):
            need(b[f"{side}_kib"] > a[f"{side}_kib"] + 1024,
                 f"the {side}'s connection takes more at 64 KiB ({b[side + '_kib']} KiB) "
                 f"than at 1 KiB ({a[side + '_kib']} KiB)")
    if mode in ("full", "mem"):
        need(any(r["module"] == "stock" for r in mem), "stock's memory measured too")
        # The goal: about one Receive buffer of the threshold per
        # credit, at least one and at most 1.1. Checked at the largest
        # threshold, where the few KiB that readings of free memory
        # vary by matter least, for this benchmark's NFSv3 mounts and
        # 64 or 128 credits (a backchannel, or a grant of 16 credits or
        # fewer, would add more than a tenth); the device's queues
        # (vmalloc) and per-request buffers (slab) are left out
        r = ours.get(262144)
        for side in ("client", "server"):
            g = r[f"{side}_page_blocks_per_credit"] if r and r["status"] == "ok" else ""
            need(g != "" and 1.0 <= g <= 1.1,
                 f"the {side}'s Receive buffers at 256 KiB: page blocks over credits x "
                 f"threshold {g if g != '' else '?'} (1.0 to 1.1)")
    return t.bad if ktap else t.end()


def check(results, mode, outdir, mem):
    get = {(r["config"], r["step"]): r for r in results}
    t = Ktap()
    need = t.need

    try:
        ok = well_formed(outdir)
    except (OSError, ValueError, csv.Error) as e:
        print(f"# results: {e}")
        ok = False
    need(ok, "results.csv, results.md and bench.png exist and are well formed")

    lo, hi = get.get(("legacy-1k", "write-8k")), get.get(("64k", "write-8k"))
    need(lo is not None and hi is not None, "write-8k measured at 1 KiB and 64 KiB")
    if lo and hi:
        need(hi["read_chunks_per_1000"] < lo["read_chunks_per_1000"],
             f"write-8k read chunks per 1000 RPCs: 64 KiB "
             f"{hi['read_chunks_per_1000']} < 1 KiB {lo['read_chunks_per_1000']}")
    # The device's and nfsd's own counters agree with the client's: a
    # call and its reply are two Sends, and nfsd pulls the 1 KiB
    # configuration's read chunks with RDMA Reads, the 64 KiB one's none
    for c, r in (("legacy-1k", lo), ("64k", hi)):
        if r:
            need(1.8 <= r["sends_per_rpc"] <= 2.2,
                 f"{c} write-8k: Sends per RPC on rxe0 {r['sends_per_rpc']} (2: call and reply)")
            need(r["packets_per_rpc"] >= r["sends_per_rpc"],
                 f"{c} write-8k: packets per RPC {r['packets_per_rpc']} >= Sends")
    if lo and hi:
        need(lo["rdma_read_segs_per_rpc"] >= 0.9 and hi["rdma_read_segs_per_rpc"] == 0,
             f"write-8k RDMA Read segments per RPC (nfsd): 1 KiB "
             f"{lo['rdma_read_segs_per_rpc']}, 64 KiB {hi['rdma_read_segs_per_rpc']}")
    need(all(r["model_net_us_per_rpc"] > 0 for r in results), "a modelled time for every step")

    check_mem(mem, mode, t)
    if mode == "full":
        for s in ("write-8k", "write-16k", "write-32k"):
            r = get.get(("64k", s))
            need(r is not None and r["read_chunks_per_1000"] == 0,
                 f"64 KiB {s}: no read chunks")
            r = get.get(("legacy-1k", s))
            need(r is not None and r["read_chunks_per_op"] >= 1,
                 f"1 KiB {s}: a read chunk for each write "
                 f"({r['read_chunks_per_op'] if r else '?'} per write, median of the repeats)")
        both = [s for (c, s) in get if c == "16k" and ("16k-noinv", s) in get]
        on = sum(get[("16k", s)]["local_inv_per_rpc"] for s in both)
        off = sum(get[("16k-noinv", s)]["local_inv_per_rpc"] for s in both)
        need(bool(both) and on < off,
             f"LOCAL_INV per RPC, all steps summed: R on {on:.3f} < off {off:.3f}")
    return t.end()


def main():
    args = sys.argv[1:]
    global COST
    mode = None
    if "--cost" in args:
        i = args.index("--cost")
        COST = load_cost(args[i + 1])
        del args[i:i + 2]
    if "--check" in args:
        i = args.index("--check")
        mode = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit("usage: report.py OUTDIR LOG... [--check quick|full] [--cost COST.CSV]")
    outdir, logs = args[0], args[1:]
    rows = parse(logs)
    mem = parse_mem(logs)
    kernel = kernel_of(logs)
    os.makedirs(outdir, exist_ok=True)
    if mode == "mem":
        # bench.sh --mem: the memory runs alone
        if not mem:
            sys.exit("report.py: no BENCH-MEM lines in " + " ".join(logs))
        write_csv(os.path.join(outdir, "memory.csv"), mem)
        with open(os.path.join(outdir, "results.md"), "w") as f:
            f.write("\n".join([f"# Memory per connection, Linux {kernel}", ""] +
                              mem_section(mem)))
        print(f"# report: {len(mem)} memory rows in {outdir}")
        if check_mem(mem, mode):
            sys.exit(1)
        return
    if not rows:
        sys.exit("report.py: no BENCH lines in " + " ".join(logs))
    results = aggregate(rows)
    configs, steps = order(results)
    write_csv(os.path.join(outdir, "results.csv"), results)
    if mem:
        write_csv(os.path.join(outdir, "memory.csv"), mem)
    write_md(os.path.join(outdir, "results.md"), results, configs, steps, kernel, mem)
    plot(os.path.join(outdir, "bench.png"), results, configs, steps, kernel)
    print(f"# report: {len(rows)} measurements, {len(configs)} configurations, "
          f"{len(steps)} steps, {len(mem)} memory rows in {outdir}")
    if mode and check(results, mode, outdir, mem):
        sys.exit(1)


if __name__ == "__main__":
    main()
