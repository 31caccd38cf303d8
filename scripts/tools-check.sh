#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make tools-check: the black-box tests of rpcrdma-cm, rpcrdma-call and
# rpcrdma-serve,
# and the check that every e2e scenario is in a runs file, as one KTAP
# document, each a test with its cases nested.

. "$(dirname "$0")/lib.sh"

# nested NAME SCRIPT [PROGRAM]: one test whose cases are SCRIPT's
nested() {
	local rc=0
	"$2" ${3:+"$3"} 2>&1 | sed 's/^/  /' || rc=$?
	if [ "$rc" = 0 ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "its test script exited with status $rc"
	fi
}

ktap_set_plan 4
nested rpcrdma-cm "$TOP/tools/net/sunrpc/rpcrdma-cm/test-rpcrdma-cm.sh" \
	"$TOP/tools/net/sunrpc/rpcrdma-cm/rpcrdma-cm"
nested rpcrdma-call "$TOP/tools/testing/rpcrdma-call/test-rpcrdma-call.sh" \
	"$TOP/tools/testing/rpcrdma-call/rpcrdma-call"
nested rpcrdma-serve "$TOP/tools/testing/rpcrdma-serve/test-rpcrdma-serve.sh" \
	"$TOP/tools/testing/rpcrdma-serve/rpcrdma-serve"
nested scenarios-in-runs "$TOP/tools/testing/nfsrdma/runs-check.sh"
ktap_finished tools-check
