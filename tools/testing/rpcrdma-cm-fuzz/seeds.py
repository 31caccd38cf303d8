#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""seeds.py KUNIT-TEST.c OUTDIR: the fuzzer's seed corpus.

Every Private Data vector of the KUnit suite (the "static const u8
pd_*[]" arrays, zero-padded to their declared size), each behind a few
sets of control octets (see fuzz_cm.c), plus each vector alone.
"""

import os
import re
import sys

CONTROLS = [
    bytes([0x00]) + (4096).to_bytes(4, "big") + (4096).to_bytes(4, "big"),
    bytes([0x1f]) + (16384).to_bytes(4, "big") + (1024).to_bytes(4, "big"),
    bytes([0x17]) + (300000).to_bytes(4, "big") + (500).to_bytes(4, "big"),
]


def vectors(path):
    src = open(path).read()
    pat = re.compile(r"static const u8 (pd_\w+)\[(\w*)\]\s*=\s*\{([^}]*)\}", re.S)
    sizes = {"TEST_CM_AREA_LEN": None}
    m = re.search(r"#define TEST_CM_AREA_LEN\s+(\d+)", src)
    if m:
        sizes["TEST_CM_AREA_LEN"] = int(m.group(1))
    for name, size, body in pat.findall(src):
        data = bytes(int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", body))
        n = int(size) if size.isdigit() else sizes.get(size) or len(data)
        yield name, data + bytes(max(0, n - len(data)))


def main():
    test, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    for name, data in vectors(test):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        for i, ctl in enumerate(CONTROLS):
            with open(os.path.join(out, f"{name}.{i}"), "wb") as f:
                f.write(ctl + data)
        count += 1
    if count < 10:
        sys.exit(f"seeds.py: only {count} vectors found in {test}")
    print(f"seeds: {count} KUnit vectors, {count * (1 + len(CONTROLS))} files in {out}")


if __name__ == "__main__":
    main()
