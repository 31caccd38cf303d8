#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick]: run tools/testing/nfsrdma/bench/bench.sh with the
# module and tool we built. The report goes to out/bench (out/bench-quick
# for --quick); the VM logs to build/bench.

. "$(dirname "$0")/lib.sh"
load_base

export KVER
export RPCRDMA_OURS=$BUILD/module/rpcrdma.ko
export RPCRDMA_CM=$TOP/tools/net/sunrpc/rpcrdma-cm/rpcrdma-cm
export E2E_OUT=$BUILD/bench
[ -f "$RPCRDMA_OURS" ] || die "no $RPCRDMA_OURS: run 'make modules'"
[ -x "$RPCRDMA_CM" ] || die "no $RPCRDMA_CM: run 'make tools'"
out=$OUT/bench
[ "${1:-}" = --quick ] && out=$OUT/bench-quick
exec "$TOP/tools/testing/nfsrdma/bench/bench.sh" "$@" "$out"
