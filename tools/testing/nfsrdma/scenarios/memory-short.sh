# When memory is short at connect time, an end provisions smaller
# Receive buffers and advertises the size they hold, rather than losing
# the connection or advertising more than it posts (RFC 8797 Section
# 4.2: the peer may Send up to the advertised Receive Size into any
# Receive). nfsrdma_fragment.ko, loaded with hold_mib, leaves the guest
# about $short MiB above its zones' high watermarks: fewer than one
# end's 256 KiB buffers take (192 Receives on the client, 263 on the
# server), more than a smaller size needs. One case per end, the other
# end at its default; each mounts twice and moves checked I/O. Both
# mounts connect once and lose no connection, the end advertises less
# than it wanted and posts exactly what it advertised, and dmesg says
# so once.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
C=/sys/kernel/debug/sunrpc/svc_rdma/connections
T=/sys/kernel/tracing
K=/lib/modules/e2e/nfsrdma_fragment.ko
short=40 size=262144
local_nfsd
trap 'umount /mnt/short 2>/dev/null; rmmod nfsrdma_fragment 2>/dev/null; echo 4096 >$S/max_req_size; echo 4096 >$R/rdma_max_inline_read' EXIT
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail "no xprtrdma_inline_thresh tracepoint"
echo 1 >$T/events/rpcrdma/xprtrdma_disconnect/enable || fail "no xprtrdma_disconnect tracepoint"
echo 1 >$T/events/rpcrdma/svcrdma_cm_accept/enable || fail "no svcrdma_cm_accept tracepoint"
dd if=/dev/urandom of=/tmp/short bs=64k count=32 2>/dev/null
sum=$(md5sum </tmp/short)

# MiB free above the high watermark, in every zone but ZONE_DMA (kept
# for allocations that need it)
avail_mib() {
	awk '$1 == "Node" { z = $4 }
	     z != "DMA" && $1 == "pages" && $2 == "free" { n += $3 }
	     z != "DMA" && $1 == "high" { n -= $2 }
	     END { printf "%d\n", n * 4 / 1024 }' /proc/zoneinfo
}

# hold: load nfsrdma_fragment.ko holding all but $short MiB. A first
# load measures what fragmenting alone takes, the second holds the rest.
hold() {
	local n
	insmod $K || fail "cannot load nfsrdma_fragment.ko"
	n=$(($(avail_mib) - short))
	rmmod nfsrdma_fragment
	[ $n -gt 0 ] || fail "only $((n + short)) MiB free to begin with"
	insmod $K hold_mib=$n || fail "cannot load nfsrdma_fragment.ko hold_mib=$n"
	dmesg | grep nfsrdma_fragment: | tail -n 1
	echo "$(avail_mib) MiB free above the high watermarks"
}

# short_case END: END (client or server) wants $size-octet Receive
# buffers with $short MiB to spare
short_case() {
	local end=$1 i=0 f adv
	hold
	while [ $i -lt 2 ]; do
		echo >$T/trace
		mkdir -p /mnt/short
		mount.nfs "$E2E_SERVER:/" /mnt/short -o "proto=rdma,port=$E2E_PORT,vers=4.1,retry=0" ||
			fail "$end mount $i: mount.nfs exited with status $?"
		run dd if=/tmp/short of=/mnt/short/f bs=64k oflag=direct 2>/dev/null
		run dd if=/mnt/short/f of=/tmp/back bs=64k iflag=direct 2>/dev/null
		expect_eq "$end mount $i: md5" "$(md5sum </tmp/back)" "$sum"
		if [ "$end" = client ]; then
			f=$(xprt_cm_file "$E2E_PORT") || fail "$end mount $i: no rpcrdma_cm file"
		else
			f=$C
		fi
		adv=$(field "${end}_recv_size" <"$f")
		expect_eq "$end mount $i: Receive Size wanted" "$(field "${end}_recv_wanted" <"$f")" $size
		expect_ge "$end mount $i: Receive Size advertised, at least" "$adv" 1024
		[ "$adv" -lt $size ] || fail "$end mount $i: advertised $adv, all it wanted with $short MiB to spare"
		pass "$end mount $i: Receive Size advertised $adv, less than wanted"
		expect_eq "$end mount $i: Receive posted, smallest/largest" \
			"$(field "${end}_recv_posted_min" <"$f")/$(field "${end}_recv_posted_max" <"$f")" "$adv/$adv"
		if [ "$end" = client ]; then
			expect_eq "$end mount $i: tracepoint, client recv advertised and wanted" \
				"$(sed -n 's/.*xprtrdma_inline_thresh:.* client send\/recv=[0-9]*\/\([0-9]*\) .*client recv wanted=\([0-9]*\).*/\1 \2/p' $T/trace)" "$adv $size"
		else
			expect_eq "$end mount $i: tracepoint, server recv advertised and wanted" \
				"$(sed -n 's/.*svcrdma_cm_accept:.* server send\/recv=[0-9]*\/\([0-9]*\) .*server recv wanted=\([0-9]*\).*/\1 \2/p' $T/trace)" "$adv $size"
		fi
		expect_eq "$end mount $i: connections made" "$(grep -c 'xprtrdma_inline_thresh:' $T/trace)" 1
		expect_eq "$end mount $i: connections lost" "$(grep -c 'xprtrdma_disconnect:' $T/trace)" 0
		run rm /mnt/short/f
		run umount /mnt/short
		wait_for "nfsd to drop the connection" 20 sh -c "! grep -q '^peer: ' $C"
		i=$((i + 1))
	done
	rmmod nfsrdma_fragment
}

run sh -c "echo $size >$R/rdma_max_inline_read"
short_case client
run sh -c "echo 4096 >$R/rdma_max_inline_read"
run sh -c "echo $size >$S/max_req_size"
short_case server
expect_eq "dmesg lines on the client's shortfall" \
	"$(dmesg | grep -c "rpcrdma: .*no memory for $size-octet Receive buffers, advertising")" 1
expect_eq "dmesg lines on the server's shortfall" \
	"$(dmesg | grep -c "svcrdma: no memory for $size-octet Receive buffers, advertising")" 1
