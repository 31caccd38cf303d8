# SPDX-License-Identifier: GPL-2.0
# Long Replies pulled up on the server. soft-RoCE gives a connection 32
# Send SGEs, so an inline READ Reply whose data spans more pages than
# that cannot go out from its pages: svcrdma copies it, behind the
# transport header, into a Send buffer made for that Reply, and frees
# that buffer when the Send is done. At inline thresholds of 256 KiB on
# both ends, NFSv3 and NFSv4.1, READs from 31 pages to 4 KiB below the
# threshold must go inline (no Write chunk in mountstats), be pulled up
# (the svcrdma_send_pullup tracepoint, more than a page each), and read
# back octet for octet what was written on the export itself. With
# 16 KiB pages (Debian's arm64-16k) no Reply under 256 KiB spans more
# than 17 pages: there the same READs must go inline without a pull-up.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
E=$T/events/rpcrdma/svcrdma_send_pullup
local_nfsd
restore() {
	umount /mnt/pullup 2>/dev/null
	rm -f /export/pullup.*
}
trap restore EXIT

[ -e $E/enable ] || fail_scenario "no svcrdma_send_pullup tracepoint"
t=262144
echo $t >$S/max_req_size
echo $t >$R/rdma_max_inline_read
echo $t >$R/rdma_max_inline_write
# The kernel's page size (4 KiB, or 16 KiB on arm64-16k)
page=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
[ "${page:-0}" -gt 0 ] || fail_scenario "no page size in /proc/self/smaps"
# 31 pages and one octet, a page and a block boundary, and up to the
# threshold less the Reply's headers; those longer than 31 pages need
# more Send SGEs than the device has, so each must be pulled up
sizes= long=0
for s in $((31 * page + 1)) 131072 131073 200000 $((t - 8192)) $((t - 4096)); do
	[ "$s" -le $((t - 4096)) ] || continue
	sizes="$sizes $s"
	[ "$s" -le $((31 * page)) ] || long=$((long + 1))
done
say "page size $page: $long of the sizes span more than 31 pages"
for s in $sizes; do
	head -c "$s" /dev/urandom >/export/pullup.$s
done
sync

# long_pullups: how many pull-ups in the trace carried more than a page
long_pullups() {
	grep -o 'msg=[0-9]*' $T/trace | awk -F= -v page="$page" '$2 > page { n++ } END { print n + 0 }'
}

mnt=/mnt/pullup
for vers in 3 4.1; do
	nfs_mount $vers $mnt
	echo >$T/trace
	echo 1 >$E/enable
	bad= chunked= n=0
	for s in $sizes; do
		before=$(rdma_stats $mnt | sed 's/.*write_chunks=\([0-9]*\).*/\1/')
		dd if=$mnt/pullup.$s of=/tmp/r bs="$s" count=1 iflag=direct 2>/tmp/dd.err ||
			fail_scenario "v$vers: O_DIRECT read of $s octets: $(tail -n 1 /tmp/dd.err)"
		after=$(rdma_stats $mnt | sed 's/.*write_chunks=\([0-9]*\).*/\1/')
		[ "$after" = "$before" ] || chunked="$chunked $s"
		cmp -s /export/pullup.$s /tmp/r || bad="$bad $s"
		n=$((n + 1))
	done
	echo 0 >$E/enable
	expect_eq "v$vers: of $n sizes, those read with a Write chunk" \
		"${chunked:- none}" " none"
	expect_eq "v$vers: of $n sizes, those read back different" \
		"${bad:- none}" " none"
	p=$(long_pullups)
	if [ "$long" -gt 0 ]; then
		[ "$p" -ge "$long" ] || fail_scenario "v$vers: $p Replies longer than a page were pulled up, expected $long"
		pass "v$vers: $p Replies longer than a page pulled up"
	else
		# Every Reply fits the Send SGEs from its pages
		expect_eq "v$vers: Replies longer than a page pulled up" "$p" 0
	fi
	nfs_umount $mnt
done
