#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the end-to-end runs of tools/testing/nfsrdma against the installed
# Debian 6.12 kernel, with our rpcrdma.ko and rpcrdma-cm.

. "$(dirname "$0")/lib.sh"
load_base

export KVER
export RPCRDMA_OURS=$BUILD/module/rpcrdma.ko
export RPCRDMA_CM=$TOP/tools/net/sunrpc/rpcrdma-cm/rpcrdma-cm
export E2E_OUT=$BUILD/e2e
[ -f "$RPCRDMA_OURS" ] || die "no $RPCRDMA_OURS: run 'make modules'"
[ -x "$RPCRDMA_CM" ] || die "no $RPCRDMA_CM: run 'make tools'"
exec "$TOP/tools/testing/nfsrdma/run.sh" "$@"
