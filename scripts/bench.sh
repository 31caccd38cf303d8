#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick]: run tools/testing/nfsrdma/bench/bench.sh with the
# module and tool we built. The report goes to out/bench (out/bench-quick
# for --quick); the VM logs to build/bench.

# The VMs, DKMS and make install run the 6.12 series
SERIES_BASE=6.12
. "$(dirname "$0")/lib.sh"
harness_env "$BUILD/bench"
out=$OUT/bench
[ "${1:-}" = --quick ] && out=$OUT/bench-quick
exec "$TOP/tools/testing/nfsrdma/bench/bench.sh" "$@" "$out"
