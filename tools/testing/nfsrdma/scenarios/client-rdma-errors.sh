# SPDX-License-Identifier: GPL-2.0
# Our client against a server that answers a Call with RDMA_ERROR (RFC
# 8166, Section 4.5): ERR_VERS (versions 1 to 1), then, on a second
# mount, ERR_CHUNK. The kernel NFS client mounts rpcrdma-serve, which
# advertises a 1 KiB Send Size and clears R, so EXCHANGE_ID carries a
# Reply chunk; rpcrdma-serve answers the first such Call with the error.
# The client must end that RPC with an error (the mount fails), report
# the error in its tracepoint (rpcrdma:xprtrdma_err_vers with the
# versions the server offered, or xprtrdma_err_chunk), invalidate the
# Call's Reply chunk, keep the connection, and log no kernel bug.
T=/sys/kernel/tracing
for e in xprtrdma_err_vers xprtrdma_err_chunk xprtrdma_err_unrecognized xprtrdma_wc_li_done; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no rpcrdma:$e tracepoint"
done

# rdma_error KIND PORT: a mount whose EXCHANGE_ID gets RDMA_ERROR KIND
rdma_error() {
	local kind=$1 port=$2 bad0 calls
	echo >$T/trace
	bad0=$(bad_kernel_lines)
	serve_mount "$port" soft,timeo=100,retrans=2,retry=0 \
		--send 1K --error "$kind" --times 1 --count 1 --timeout 120
	cat /tmp/serve.out
	[ "$MOUNT_STATUS" != 0 ] ||
		fail_scenario "ERR_$kind: the mount succeeded against a server that answers no Call with what it needs"
	calls=$(grep '"event": "call"' /tmp/serve.out | grep '"reply_chunk": true')
	expect_eq "ERR_$kind: Calls with a Reply chunk, before the error ended the mount" \
		"$(echo "$calls" | grep -c .)" 1
	expect_eq "ERR_$kind: RDMA_ERRORs sent" \
		"$(grep '"event": "answer"' /tmp/serve.out | grep -c "\"reply\": \"ERR_$(echo "$kind" | tr a-z A-Z)\"")" 1
	expect_eq "ERR_$kind: connections" "$(grep -c '"event": "established"' /tmp/serve.out)" 1
	expect_eq "ERR_$kind: connections the server closed" \
		"$(grep '"event": "closed"' /tmp/serve.out | grep -c '"by_us": true')" 0
	expect_eq "ERR_$kind: unrecognized errors (xprtrdma_err_unrecognized)" \
		"$(grep -c 'xprtrdma_err_unrecognized:' $T/trace)" 0
	expect_eq "ERR_$kind: LocalInvs that failed" \
		"$(grep 'xprtrdma_wc_li_done:' $T/trace | grep -vc 'status=SUCCESS')" 0
	expect_ge "ERR_$kind: LocalInvs of the Reply chunk" \
		"$(grep -c 'xprtrdma_wc_li_done:' $T/trace)" 1
	expect_eq "ERR_$kind: kernel bug reports in dmesg" $(($(bad_kernel_lines) - bad0)) 0
}

rdma_error vers 20072
line=$(grep 'xprtrdma_err_vers:' $T/trace | head -n 1)
echo "$line"
expect_eq "ERR_vers: the client's xprtrdma_err_vers events" "$(grep -c 'xprtrdma_err_vers:' $T/trace)" 1
expect_eq "ERR_vers: the versions it was offered" "$(echo "$line" | sed -n 's/.*\(versions=\[[0-9]*, [0-9]*\]\).*/\1/p')" "versions=[1, 1]"

rdma_error chunk 20073
expect_eq "ERR_chunk: the client's xprtrdma_err_chunk events" "$(grep -c 'xprtrdma_err_chunk:' $T/trace)" 1
