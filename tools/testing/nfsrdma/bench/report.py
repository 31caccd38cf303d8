#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the BENCH lines of `make bench` VM logs into a report.

report.py OUTDIR LOG... [--check quick|full]

Writes OUTDIR/results.csv (one row per configuration and step: medians
and spreads over the repeats), OUTDIR/results.md (tables) and
OUTDIR/bench.png (gnuplot: share of RPCs fully inline, and ops/s). With --check, also asserts what the issue
asks of the results and exits 1 when one does not hold.
"""

import csv
import os
import re
import statistics
import subprocess
import sys

# Receive buffers each side posts, per connection (default credits):
# client: one per slot (RPCRDMA_DEF_SLOT_TABLE 128) plus its receive
# batch (RPCRDMA_MAX_RECV_BATCH 7); server: max_requests (64), backchannel
# requests (2), its receive batch (8) and one for draining.
CLIENT_RECVS = 128 + 7
SERVER_RECVS = 64 + 2 + 8 + 1
SIZES = {"stock": 4096, "legacy-1k": 1024, "16k-noinv": 16384}
COUNTERS = ("rpcs", "read", "write", "reply", "localinv", "swi")
LINE = re.compile(r"BENCH config=(\S+) rep=(\d+) step=(\S+) count=(\d+) ops_per_s=(\d+) "
                  r"ms=(\d+) before=(\S+) after=(\S+)")


def size_of(config):
    if config in SIZES:
        return SIZES[config]
    return int(config[:-1]) * 1024


def parse(logs):
    rows = []
    for path in logs:
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.search(line.replace("\r", ""))
                if not m:
                    continue
                config, rep, step, count, ops, ms, before, after = m.groups()
                b = [int(x) for x in before.split(",")]
                a = [int(x) for x in after.split(",")]
                if len(a) != len(COUNTERS) or len(b) != len(COUNTERS):
                    sys.exit(f"report.py: malformed counters in: {line.strip()}")
                d = {k: a[i] - b[i] for i, k in enumerate(COUNTERS)}
                if b[5] < 0 or a[5] < 0:
                    d["swi"] = None   # the stock server has no counter
                rows.append(dict(config=config, rep=int(rep), step=step,
                                 count=int(count), ops=int(ops), ms=int(ms),
                                 **d))
    return rows


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
        size = size_of(config)
        out.append({
            "config": config, "step": step, "repeats": len(rs),
            "count": rs[0]["count"],
            "ops_per_s": med(ops), "ops_min": min(ops), "ops_max": max(ops),
            "rpcs_per_s": round(med(rate), 1),
            "rpcs": med([r["rpcs"] for r in rs]),
            "read_chunks": med([r["read"] for r in rs]),
            "read_chunks_per_1000": round(chunks("read"), 1),
            "write_chunks_per_1000": round(chunks("write"), 1),
            "reply_chunks_per_1000": round(chunks("reply"), 1),
            "inline_share": round(inline, 3),
            "local_inv_per_rpc": round(med([r["localinv"] / n
                                            for r, n in zip(rs, rpcs)]), 3),
            "send_with_inv": med(swi) if swi else "",
            "client_recv_kib": CLIENT_RECVS * size // 1024,
            "server_recv_kib": SERVER_RECVS * size // 1024,
        })
    return out


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
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
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


def write_md(path, results, configs, steps, kernel):
    get = {(r["config"], r["step"]): r for r in results}
    reps = max(r["repeats"] for r in results)
    md = [f"# NFSv4.1 over soft-RoCE (qemu TCG), Linux {kernel}, median of {reps} run(s)", ""]
    md += ["## Operations per second (median, min-max)", "",
           table(results, configs, steps, "ops",
                 lambda r: f"{r['ops_per_s']:g} ({r['ops_min']}-{r['ops_max']})"), ""]
    md += ["## RPCs per second", "",
           table(results, configs, steps, "rate", lambda r: f"{r['rpcs_per_s']:g}"), ""]
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
    md += ["## Receive buffers pinned per connection (KiB): client / server", "",
           "| " + " | ".join(configs) + " |", "|" + "---|" * len(configs),
           "| " + " | ".join(f"{get[(c, steps[0])]['client_recv_kib']} / "
                             f"{get[(c, steps[0])]['server_recv_kib']}"
                             for c in configs) + " |", ""]
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
    text = ("config", "step", "send_with_inv")
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


def check(results, mode, outdir):
    get = {(r["config"], r["step"]): r for r in results}
    bad = []

    def need(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            bad.append(what)

    try:
        ok = well_formed(outdir)
    except (OSError, ValueError, csv.Error) as e:
        print(f"results: {e}")
        ok = False
    need(ok, "results.csv, results.md and bench.png exist and are well formed")

    lo, hi = get.get(("legacy-1k", "write-8k")), get.get(("64k", "write-8k"))
    need(lo is not None and hi is not None, "write-8k measured at 1 KiB and 64 KiB")
    if lo and hi:
        need(hi["read_chunks_per_1000"] < lo["read_chunks_per_1000"],
             f"write-8k read chunks per 1000 RPCs: 64 KiB "
             f"{hi['read_chunks_per_1000']} < 1 KiB {lo['read_chunks_per_1000']}")
    if mode == "full":
        for s in ("write-8k", "write-16k", "write-32k"):
            r = get.get(("64k", s))
            need(r is not None and r["read_chunks_per_1000"] == 0,
                 f"64 KiB {s}: no read chunks")
            r = get.get(("legacy-1k", s))
            need(r is not None and r["read_chunks"] >= r["count"],
                 f"1 KiB {s}: a read chunk for each of its "
                 f"{r['count'] if r else '?'} writes ({r['read_chunks'] if r else '?'})")
        both = [s for (c, s) in get if c == "16k" and ("16k-noinv", s) in get]
        on = sum(get[("16k", s)]["local_inv_per_rpc"] for s in both)
        off = sum(get[("16k-noinv", s)]["local_inv_per_rpc"] for s in both)
        need(bool(both) and on < off,
             f"LOCAL_INV per RPC, all steps summed: R on {on:.3f} < off {off:.3f}")
    return bad


def main():
    args = sys.argv[1:]
    mode = None
    if "--check" in args:
        i = args.index("--check")
        mode = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit("usage: report.py OUTDIR LOG... [--check quick|full]")
    outdir, logs = args[0], args[1:]
    rows = parse(logs)
    if not rows:
        sys.exit("report.py: no BENCH lines in " + " ".join(logs))
    results = aggregate(rows)
    configs, steps = order(results)
    os.makedirs(outdir, exist_ok=True)
    write_csv(os.path.join(outdir, "results.csv"), results)
    kernel = kernel_of(logs)
    write_md(os.path.join(outdir, "results.md"), results, configs, steps, kernel)
    plot(os.path.join(outdir, "bench.png"), results, configs, steps, kernel)
    print(f"report: {len(rows)} measurements, {len(configs)} configurations, "
          f"{len(steps)} steps in {outdir}")
    if mode and check(results, mode, outdir):
        sys.exit(1)


if __name__ == "__main__":
    main()
