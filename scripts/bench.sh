#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick]: run tools/testing/nfsrdma/bench/bench.sh with the
# module and tool we built. The report goes to out/bench (out/bench-quick
# for --quick); the VM logs to build/bench/KERNEL.
# BENCH_KERNEL=7.3 boots Debian's 7.3 kernel with the mainline series'
# rpcrdma.ko (default: 6.12 and its backport); the report then goes to
# out/bench-7.3 (out/bench-quick-7.3).

. "$(dirname "$0")/lib.sh"
export E2E_KERNEL=${BENCH_KERNEL:-6.12}
harness_env "$BUILD/bench/$E2E_KERNEL"
out=$OUT/bench
[ "${1:-}" = --quick ] && out=$OUT/bench-quick
[ "$E2E_KERNEL" = 6.12 ] || out=$out-$E2E_KERNEL
exec "$TOP/tools/testing/nfsrdma/bench/bench.sh" "$@" "$out"
