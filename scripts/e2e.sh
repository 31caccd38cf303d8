#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# e2e.sh [--interop|--arm64|--siw] [RUN...]: run the end-to-end runs of
# tools/testing/nfsrdma with our rpcrdma.ko and rpcrdma-cm, booting the
# Debian kernel E2E_KERNEL (6.12, the default, or 7.3) where a run names
# none. --interop runs interop.runs: two hosts of different kernels,
# each with ours or stock, their server at max_req_size 32768. The work
# directory is build/e2e/KERNEL (build/e2e/interop), so that runs of
# both kernels can go side by side. --arm64 runs arm64.runs: Debian's
# arm64 kernels under qemu-system-aarch64, alone and paired with an
# x86-64 host, with the same server sysctl (build/e2e/arm64). --siw runs
# siw.runs: soft-iWARP instead of soft-RoCE (build/e2e/siw).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-harness.sh"
dir=${E2E_KERNEL:-6.12}
if [ "${1:-}" = --interop ]; then
	shift
	dir=interop
	export E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/interop.runs
	export E2E_SERVER_SYSCTL=${E2E_SERVER_SYSCTL:-sunrpc.svc_rdma.max_req_size=32768}
fi
if [ "${1:-}" = --arm64 ]; then
	shift
	dir=arm64
	export E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/arm64.runs
	export E2E_SERVER_SYSCTL=${E2E_SERVER_SYSCTL:-sunrpc.svc_rdma.max_req_size=32768}
	[ -r "$BUILD/arm64.env" ] || die "$BUILD/arm64.env is missing: run 'make deps-arm64'"
fi
if [ "${1:-}" = --siw ]; then
	shift
	dir=siw
	export E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/siw.runs
fi
harness_env "$BUILD/e2e/$dir"
exec "$TOP/tools/testing/nfsrdma/run.sh" "$@"
