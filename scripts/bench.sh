#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick|--mem|--cost|--cost-quick|--scale|--scale-quick]: run tools/testing/nfsrdma/bench/bench.sh with
# the module and tool we built. The report goes to out/bench
# (out/bench-quick for --quick, out/bench-mem for --mem, out/bench-cost
# and out/bench-cost-quick for the cost mode, out/bench-scale and
# out/bench-scale-quick for the scale mode); the VM logs to
# build/bench/KERNEL (build/bench-mem/KERNEL, build/bench-cost/KERNEL,
# build/bench-cost-quick/KERNEL, build/bench-scale/KERNEL,
# build/bench-scale-quick/KERNEL).
# BENCH_KERNEL=7.3 boots Debian's 7.3 kernel with the mainline series'
# rpcrdma.ko (default: 6.12 and its backport); the report then goes to
# out/bench-7.3 (out/bench-quick-7.3). BENCH_RPCRDMA_6_12 or
# BENCH_RPCRDMA_7_3 (a path) boots another build of ours in place of
# the series' module, to compare two builds (bench README: the shared
# receive queue's cost); COST_NCONNECT=N gives the cost mode's mount N
# connections.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-harness.sh"
export E2E_KERNEL=${BENCH_KERNEL:-6.12}
# Recording the link would cost the measured runs time and disk
export E2E_CAPTURE=0
out=$OUT/bench
work=$BUILD/bench/$E2E_KERNEL
[ "${1:-}" = --quick ] && out=$OUT/bench-quick
# --mem has a work directory of its own, so that it can run beside a
# full bench
[ "${1:-}" = --mem ] && out=$OUT/bench-mem work=$BUILD/bench-mem/$E2E_KERNEL
# --cost (--cost-quick): instructions counted under -icount, a work
# directory of its own as well
[ "${1:-}" = --cost ] && out=$OUT/bench-cost work=$BUILD/bench-cost/$E2E_KERNEL
[ "${1:-}" = --cost-quick ] && out=$OUT/bench-cost-quick work=$BUILD/bench-cost-quick/$E2E_KERNEL
# --scale (--scale-quick): nfsd's memory against its connections
[ "${1:-}" = --scale ] && out=$OUT/bench-scale work=$BUILD/bench-scale/$E2E_KERNEL
[ "${1:-}" = --scale-quick ] && out=$OUT/bench-scale-quick work=$BUILD/bench-scale-quick/$E2E_KERNEL
harness_env "$work"
for b in BENCH_RPCRDMA_6_12 BENCH_RPCRDMA_7_3; do
	[ -n "${!b:-}" ] || continue
	[ -r "${!b}" ] || die "$b=${!b}: no such module"
	export "RPCRDMA_OURS_${b#BENCH_RPCRDMA_}=$(realpath "${!b}")"
	log "$b: booting $(realpath "${!b}") as ours"
done
[ "$E2E_KERNEL" = 6.12 ] || out=$out-$E2E_KERNEL
exec "$TOP/tools/testing/nfsrdma/bench/bench.sh" "$@" "$out"
