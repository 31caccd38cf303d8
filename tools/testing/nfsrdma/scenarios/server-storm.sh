# SPDX-License-Identifier: GPL-2.0
# Hostile and restless peers against nfsd (RFC 8797 Section 7: the
# Private Data arrives before any authentication).
#  1. E2E_STORM connects (default 200; make check-full: 1000) whose
#     Private Data is random: random length 0..56 octets (the most a
#     connect request carries), random content, and in half of them the
#     Format Identifier planted at a random offset;
#  2. E2E_STORM connects with a valid message whose sizes change each
#     time, each accept checked;
# then nfsd must have accepted every one and freed every one (no stale
# connection: sunrpc:svc_xprt_accept and svc_xprt_free, lib.sh's
# conns_live), still serve a mount with verified data, and the
# kmalloc-4k slab (where the 4 KiB receive buffers live, 75 per
# connection; on a device with an SRQ, nfsd's shared pool of them,
# which stays, and what it grew by is left out) must be back to within
# 40 objects of where it started:
# one leaked connection is more.
N=${E2E_STORM:-200}
local_nfsd
echo 4096 >/proc/sys/sunrpc/svc_rdma/max_req_size

# kmalloc-4k's active objects. KASAN holds freed objects in its
# quarantine, counted as active, until the cache is shrunk: shrink it
# first (a debug kernel counted 147 more after a storm without it)
slab4k() {
	echo 1 >/sys/kernel/slab/kmalloc-4k/shrink 2>/dev/null
	awk '$1 == "kmalloc-4k" { print $2 }' /proc/slabinfo
}
settle() {
	wait_conns 0 300 "$1"
	sleep 1
	echo 3 >/proc/sys/vm/drop_caches
}

# hexbytes N: N random octets, as hex
hexbytes() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# pool4k: buffers of nfsd's shared pool of 4 KiB Receive buffers, from
# its newest svcrdma_srq_* event (0 without one): they stay with the
# device, not with the connections that made it grow
T=/sys/kernel/tracing
pool4k() {
	grep -E 'svcrdma_srq_(create|grow|destroy):.* size=4096 ' $T/trace 2>/dev/null |
		tail -n 1 | sed -n 's/.*svcrdma_srq_\(create\|grow\):.* count=\([0-9]*\).*/\2/p' |
		grep . || echo 0
}
for e in create grow destroy; do
	echo 1 >$T/events/rpcrdma/svcrdma_srq_$e/enable 2>/dev/null
done

settle "before the storm"
accepted0=$(conns_accepted)
base=$(slab4k)
pool0=$(pool4k)
say "kmalloc-4k active objects before: $base"

i=0 planted=0 accepted=0
while [ $i -lt "$N" ]; do
	len=$((RANDOM % 57))
	if [ $len = 0 ]; then
		opt="--none"
	elif [ $((RANDOM % 2)) = 0 ] && [ $len -ge 8 ]; then
		off=$((RANDOM % (len - 7)))
		opt="--raw $(hexbytes $off)f6ab0e18$(hexbytes $((len - off - 4)))"
		planted=$((planted + 1))
	else
		opt="--raw $(hexbytes $len)"
	fi
	# shellcheck disable=SC2086
	rpcrdma-cm probe "$E2E_SERVER" "$E2E_PORT" --timeout 30 $opt >/dev/null 2>&1 &&
		accepted=$((accepted + 1))
	i=$((i + 1))
done
expect_eq "random connects accepted" "$accepted" "$N"
say "$N random connects ($planted with the identifier planted), all accepted"

sizes="1K 2K 4K 8K 16K 32K 64K 128K 256K"
i=0
while [ $i -lt "$N" ]; do
	s=$(echo $sizes | cut -d' ' -f$((RANDOM % 9 + 1)))
	r=$(echo $sizes | cut -d' ' -f$((RANDOM % 9 + 1)))
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT" --timeout 30 --send $s --recv $r) ||
		fail_scenario "connect $i (send $s, recv $r) failed"
	[ "$(echo "$out" | jget send_size)" = 4096 ] ||
		fail_scenario "connect $i: nfsd answered $(echo "$out" | jget send_size)"
	i=$((i + 1))
done
say "$N connects with changing sizes, all accepted with 4096/4096"

settle "after the storm"
expect_eq "connects nfsd accepted in the storm" $(($(conns_accepted) - accepted0)) $((2 * N))
# nfsd frees a connection's Receive buffers after the connection has left
# its list: a slow guest gets up to 60 s more to finish that
grown=$(($(pool4k) - pool0))
[ "$grown" -eq 0 ] || say "nfsd's shared pool of 4 KiB Receive buffers grew by $grown"
i=0
while after=$(slab4k) && [ "$after" -gt $((base + grown + 40)) ] && [ $i -lt 60 ]; do
	sleep 1
	echo 3 >/proc/sys/vm/drop_caches
	i=$((i + 1))
done
say "kmalloc-4k active objects after: $after"
[ "$after" -le $((base + grown + 40)) ] ||
	fail_scenario "kmalloc-4k grew from $base to $after objects ($grown in nfsd's shared pool): a connection leaked"

still_serves "after the storm"
