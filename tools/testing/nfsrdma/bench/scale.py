#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the BENCH-SCALE lines of `make bench SCALE=1` into a report.

usage: scale.py OUTDIR LOG... [--check quick|full] [--goal]

Writes OUTDIR/scale.csv and OUTDIR/scale.md: per threshold and number
of connections, what nfsd's VM took with them open (MemFree and its
per-CPU free pages, before against with), in all and per connection,
how much Slab and vmalloc space grew, and nfsd's Receive buffers: with
a pool shared by the device's connections (an SRQ), the pool's buffers
with the connections open (its svcrdma_srq_* events); without, what
each connection posts, connections x (credits + 2) x threshold. The
pool outlives the connections, so what it grew by is not counted as
memory that did not come back. Prints KTAP:

  --check quick|full  the plumbing: every line well formed, the counts
                      the mode measures all there, each one measured or
                      skipped with its figures, the server's QPs equal
                      to the connections, the memory back after them
  --goal              issue 47's goal: at every threshold, nfsd's Receive
                      memory with 256 connections within 10 % of its
                      Receive memory with 16. Per-connection Receive
                      buffers fail it by design: they grow with every
                      connection
"""

import csv
import os
import re
import sys

from report import kernel_of  # the bench's report, beside this file

LINE = re.compile(r"BENCH-SCALE module=(\S+) size=(\d+) n=(\d+) status=(\S+)(.*)")
COUNTS = {"quick": [1, 16], "full": [1, 16, 64, 256]}
SIZES = {"quick": [65536], "full": [65536, 262144]}


def reading(text):
    """MemFree,Slab,VmallocUsed,pcp in KiB"""
    return [int(x) for x in text.split(",")]


def parse(logs):
    rows, bad = [], []
    for path in logs:
        try:
            with open(path, errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            sys.exit(f"scale.py: {path}: {e.strerror}")
        for line in lines:
            m = LINE.search(line)
            if not m:
                continue
            module, size, n, status, rest = m.groups()
            kv = dict(w.split("=", 1) for w in rest.split() if "=" in w)
            row = {"module": module, "size": int(size), "n": int(n), "status": status,
                   "credits": kv.get("credits", "")}
            try:
                if status == "ok":
                    b, w, a = (reading(x) for x in kv["server"].split("/"))
                    row["qps"] = int(kv["qps"])
                    row["used_kib"] = (b[0] + b[3]) - (w[0] + w[3])
                    row["left_kib"] = (b[0] + b[3]) - (a[0] + a[3])
                    row["slab_kib"] = w[1] - b[1]
                    row["vmalloc_kib"] = w[2] - b[2]
                    row["per_conn_kib"] = round(row["used_kib"] / row["n"])
                    k = row["size"] // 1024
                    if "pool" in kv:
                        p0, p1 = (int(x) for x in kv["pool"].split("/"))
                    else:
                        p0 = p1 = 0
                    row["pool_bufs"] = p1
                    if p1:
                        row["recv_kib"] = p1 * k
                        row["left_kib"] -= (p1 - p0) * k
                    else:
                        row["recv_kib"] = row["n"] * (int(row["credits"]) + 2) * k
                elif status == "skipped":
                    row["need_kib"] = int(kv["need"])
                    row["free_kib"] = int(kv["free"])
                else:
                    row["up"] = kv.get("up", "?")
                    row["exit"] = kv.get("exit", "?")
            except (KeyError, ValueError, IndexError):
                bad.append(line.strip())
                continue
            rows.append(row)
    return rows, bad


def mib(kib):
    return f"{kib / 1024:.1f}"


def write_csv(path, rows):
    keys = ["module", "size", "n", "status", "credits", "qps", "used_kib", "per_conn_kib",
            "slab_kib", "vmalloc_kib", "left_kib", "pool_bufs", "recv_kib", "need_kib",
            "free_kib", "up", "exit"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def write_md(path, rows, kernel):
    out = [f"# nfsd's memory against its connections, Linux {kernel}", "",
           "One server VM of 1 GiB; rpcrdma-call opens the connections from the other VM, "
           "each with one READDIR, and holds them. Memory is MemFree plus per-CPU free "
           "pages, before against with the connections open, after dropping caches. "
           "Receive buffers: the shared pool's (pool buffers > 0), or connections x "
           "(credits + 2) x threshold without one; what the pool grew by is not owed "
           "back after.", "",
           "| rpcrdma.ko | credits | threshold | connections | status | taken (MiB) "
           "| per connection (MiB) | Slab (MiB) | vmalloc (MiB) | not back after (MiB) "
           "| pool buffers | Receive buffers (MiB) |",
           "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        k = f"{r['credits']} | {r['size'] // 1024} KiB"
        if r["status"] == "ok":
            out.append(f"| {r['module']} | {k} | {r['n']} | ok | {mib(r['used_kib'])} | "
                       f"{mib(r['per_conn_kib'])} | {mib(r['slab_kib'])} | "
                       f"{mib(r['vmalloc_kib'])} | {mib(r['left_kib'])} | "
                       f"{r['pool_bufs']} | {mib(r['recv_kib'])} |")
        elif r["status"] == "skipped":
            out.append(f"| {r['module']} | {k} | {r['n']} | not tried: would take about "
                       f"{mib(r['need_kib'])} MiB, {mib(r['free_kib'])} MiB free | | | | | | | |")
        else:
            out.append(f"| {r['module']} | {k} | {r['n']} | failed after {r['up']} "
                       f"(exit {r['exit']}) | | | | | | | |")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


class Ktap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        self.skipped = 0

    def skip(self, name, why):
        if self.n == 0:
            print("KTAP version 1")
        self.n += 1
        self.skipped += 1
        print(f"ok {self.n} {name} # SKIP {why.replace('#', 'no.')}")

    def case(self, ok, name, why=""):
        if self.n == 0:
            print("KTAP version 1")
        self.n += 1
        why = why.replace("#", "no.")
        if ok:
            print(f"ok {self.n} {name}")
        else:
            self.failed += 1
            print(f"not ok {self.n} {name} # {why}")


def check(rows, bad, mode, t):
    t.case(not bad, "every BENCH-SCALE line is well formed",
           f"{len(bad)} malformed: {bad[0] if bad else ''}")
    for size in SIZES[mode]:
        for n in COUNTS[mode]:
            name = f"{size // 1024} KiB, {n} connections"
            found = [r for r in rows if r["size"] == size and r["n"] == n]
            if not found:
                t.case(False, name, "no BENCH-SCALE line")
                continue
            r = found[-1]
            if r["status"] == "skipped":
                # only a count past the first may be left out, and only
                # with a need above 80 % of what the server had free
                if n > 1 and r["need_kib"] > r["free_kib"] * 0.8:
                    t.skip(name, f"not tried: would take about {mib(r['need_kib'])} MiB, "
                           f"{mib(r['free_kib'])} MiB free")
                else:
                    t.case(False, name, f"left out with need {r['need_kib']} KiB, "
                           f"free {r['free_kib']} KiB")
            elif r["status"] != "ok":
                t.case(False, name, f"failed after {r['up']} connections (exit {r['exit']})")
            elif r["qps"] != n:
                t.case(False, name, f"the server held {r['qps']} QPs")
            elif r["used_kib"] <= 0:
                t.case(False, name, f"the server took {r['used_kib']} KiB: no reading of its memory")
            elif r["left_kib"] > max(r["used_kib"] / 4, 8192):
                t.case(False, name, f"{r['left_kib']} KiB of the {r['used_kib']} taken did "
                       "not come back after the connections closed")
            else:
                t.case(True, name)


def goal(rows, t):
    for size in sorted({r["size"] for r in rows}):
        name = f"goal: {size // 1024} KiB, Receive buffers of 256 connections within 10 % of 16"
        by_n = {r["n"]: r for r in rows if r["size"] == size}
        r16, r256 = by_n.get(16), by_n.get(256)
        if not r16 or r16["status"] != "ok":
            t.case(False, name, "16 connections were not measured")
        elif not r256:
            t.case(False, name, "256 connections were not measured")
        elif r256["status"] == "skipped":
            t.case(False, name, f"256 connections not tried: they would take about "
                   f"{mib(r256['need_kib'])} MiB, the server had {mib(r256['free_kib'])} free "
                   f"(16 took {mib(r16['used_kib'])})")
        elif r256["status"] != "ok":
            t.case(False, name, f"256 connections failed after {r256['up']}")
        elif r16["recv_kib"] <= 0 or r256["recv_kib"] <= 0:
            t.case(False, name, f"no reading: 16 had {r16['recv_kib']} KiB, "
                   f"256 had {r256['recv_kib']} KiB")
        else:
            ratio = r256["recv_kib"] / r16["recv_kib"]
            t.case(ratio <= 1.10, name, f"256 had {mib(r256['recv_kib'])} MiB, "
                   f"16 had {mib(r16['recv_kib'])} ({ratio:.2f} times)")


def main():
    args = sys.argv[1:]
    mode, want_goal = None, False
    if "--check" in args:
        i = args.index("--check")
        mode = args[i + 1] if i + 1 < len(args) else ""
        if mode not in COUNTS:
            sys.exit("scale.py: --check takes quick or full")
        del args[i:i + 2]
    if "--goal" in args:
        args.remove("--goal")
        want_goal = True
    if len(args) < 2:
        sys.exit("usage: scale.py OUTDIR LOG... [--check quick|full] [--goal]")
    outdir, logs = args[0], args[1:]
    rows, bad = parse(logs)
    if not rows:
        sys.exit("scale.py: no BENCH-SCALE lines in " + " ".join(logs))
    os.makedirs(outdir, exist_ok=True)
    write_csv(os.path.join(outdir, "scale.csv"), rows)
    write_md(os.path.join(outdir, "scale.md"), rows, kernel_of(logs))
    print(f"# scale: {len(rows)} rows in {outdir}/scale.md")
    t = Ktap()
    if mode:
        check(rows, bad, mode, t)
    if want_goal:
        goal(rows, t)
    if t.n:
        print(f"1..{t.n}")
        print(f"# scale: {t.n - t.failed - t.skipped} passed, {t.skipped} skipped, "
              f"{t.failed} failed")
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
