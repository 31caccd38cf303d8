# SPDX-License-Identifier: GPL-2.0
# The demo (make demo): RFC 8797 negotiation between real kernels, with
# inline thresholds of 16 KiB on both sides, reported for a person.
#
# Lines starting with "REPORT:" are what run.sh shows.
T=/sys/kernel/tracing
E=$T/events/rpcrdma
LISTEN_PORT=20050

report() { echo "REPORT: $*"; }

# Extended thresholds, for connections made from now on (the runner
# puts back what it found for the next scenario)
echo 16384 >/proc/sys/sunrpc/rdma_max_inline_read || fail_scenario "client sysctl"
echo 16384 >/proc/sys/sunrpc/rdma_max_inline_write || fail_scenario "client sysctl"
echo 16384 >/proc/sys/sunrpc/svc_rdma/max_req_size || fail_scenario "server sysctl"
nfsd_start

# 1. What the server offers, asked by rpcrdma-cm probe
srv=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT" --send 16K --recv 16K) ||
	fail_scenario "probe of nfsd failed"

# 2. What the kernel client advertises, captured by rpcrdma-cm listen
cli=$(client_pdata "$LISTEN_PORT" --send 16K --recv 16K) || exit 1

# 3. The real thing: the kernel client mounts nfsd, traced
echo 8192 >$T/buffer_size_kb
echo 1 >$E/xprtrdma_inline_thresh/enable || fail_scenario "no rpcrdma:xprtrdma_inline_thresh"
echo 1 >$E/svcrdma_cm_accept/enable || fail_scenario "no rpcrdma:svcrdma_cm_accept"
echo 1 >$E/svcrdma_post_send/enable || fail_scenario "no rpcrdma:svcrdma_post_send"
echo >$T/trace
echo 1 >$T/tracing_on
nfs_mount 4.1 /mnt/demo
before=$(rdma_stats /mnt/demo)
run dd if=/dev/urandom of=/tmp/src bs=1M count=8 2>/dev/null
run dd if=/tmp/src of=/mnt/demo/file8m bs=1M conv=fsync 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
run dd if=/mnt/demo/file8m of=/tmp/back bs=1M 2>/dev/null
sum=$(md5sum </tmp/src | cut -d' ' -f1)
back=$(md5sum </tmp/back | cut -d' ' -f1)
expect_eq "8 MiB checksum" "$back" "$sum"
ls -l /mnt/demo >/dev/null
after=$(rdma_stats /mnt/demo)
echo 0 >$T/tracing_on
thresh_event=$(grep -m1 'xprtrdma_inline_thresh:' $T/trace)
thresh=$(echo "$thresh_event" | sed 's/.*xprtrdma_inline_thresh: //')
accept_event=$(grep -m1 'svcrdma_cm_accept:' $T/trace)
accept=$(echo "$accept_event" | sed 's/.*svcrdma_cm_accept: //')
stats=$(negotiated /mnt/demo)
sends=$(grep -c 'svcrdma_post_send:' $T/trace)
swi=$(grep 'svcrdma_post_send:' $T/trace | grep -vc 'inv_rkey=0x00000000')
# Leave tracing as the next scenario in this VM expects it: on, with
# these events off
echo 0 >$E/xprtrdma_inline_thresh/enable
echo 0 >$E/svcrdma_cm_accept/enable
echo 0 >$E/svcrdma_post_send/enable
echo 1 >$T/tracing_on
nfs_umount /mnt/demo

case "$E2E_RDMA" in
siw) link=soft-iWARP ;;
*) link=soft-RoCE ;;
esac
report "RFC 8797 CM Private Data between a Linux $(uname -r | cut -d. -f1,2) NFS client and nfsd"
report "over $link, both running this patch set's rpcrdma.ko"
report ""
report "Tunables: client rdma_max_inline_read/write = 16384,"
report "          server svc_rdma/max_req_size = 16384"
report ""
report "Client advertises (connect request, seen by rpcrdma-cm listen):"
report "  private data $(echo "$cli" | jget private_data | cut -c1-16)..., $(echo "$cli" | jget private_data_len) octets"
report "  version $(echo "$cli" | jget version), R=$(echo "$cli" | jget remote_inv), send $(echo "$cli" | jget send_size), receive $(echo "$cli" | jget recv_size)"
report "Server advertises (accept reply, seen by rpcrdma-cm probe):"
report "  private data $(echo "$srv" | jget private_data | cut -c1-16)..., $(echo "$srv" | jget private_data_len) octets"
report "  version $(echo "$srv" | jget version), R=$(echo "$srv" | jget remote_inv), send $(echo "$srv" | jget send_size), receive $(echo "$srv" | jget recv_size)"
report ""
report "Negotiated by the kernel client (rpcrdma:xprtrdma_inline_thresh):"
report "  $thresh"
report "Negotiated by nfsd (rpcrdma:svcrdma_cm_accept):"
report "  $accept"
report "The mount's /proc/self/mountstats (the last fields of xprt: rdma):"
report "  client-to-server/server-to-client/Send With Invalidate $stats"
report "Predicted by rpcrdma-cm for these advertisements:"
report "  client-to-server $(echo "$srv" | jget client_to_server), server-to-client $(echo "$srv" | jget server_to_client)"
report "Send With Invalidate: $swi of $sends server Sends (rpcrdma:svcrdma_post_send)"
if [ "$swi" -gt 0 ] && [ "$(echo "$srv" | jget remote_inv)" = false ]; then
	report "  NB: the server uses it although it advertised R=0; RFC 8797"
	report "  section 4.1 forbids that. Stock 6.12 does the same."
fi
report ""
report "Workload: 8 MiB write and read back, md5 $sum (match)"
report "Chunks (/proc/self/mountstats, xprt: rdma):"
report "  before: $before"
report "  after:  $after"

expect_eq "client advertised send_size" "$(echo "$cli" | jget send_size)" 16384
expect_eq "server advertised send_size" "$(echo "$srv" | jget send_size)" 16384
case "$thresh" in
*"neg send/recv=16384/16384"*) ;;
*) fail_scenario "the kernel client did not negotiate 16384/16384: $thresh" ;;
esac
expect_tp "nfsd" "$accept_event" c2s=16384 s2c=16384
expect_eq "mountstats thresholds" "${stats%/*}" 16384/16384
