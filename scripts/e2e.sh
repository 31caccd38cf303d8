#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the end-to-end runs of tools/testing/nfsrdma against the installed
# Debian 6.12 kernel, with our rpcrdma.ko and rpcrdma-cm.

# The VMs, DKMS and make install run the 6.12 series
SERIES_BASE=6.12
. "$(dirname "$0")/lib.sh"
harness_env "$BUILD/e2e"
exec "$TOP/tools/testing/nfsrdma/run.sh" "$@"
