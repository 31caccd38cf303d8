# SPDX-License-Identifier: GPL-2.0
# When an end cannot have Receive buffers of the size it wants at
# connect time, it provisions smaller ones and advertises the size they
# hold, rather than failing the connection or advertising more than it
# posts (RFC 8797 Section 4.2: the peer may Send up to the advertised
# Receive Size into any Receive). Two hosts: nfsrdma_fragment.ko order=2
# leaves one VM with no free block of 16 KiB or more, while most of its
# memory stays free in smaller ones. A 256 KiB buffer in at most 16 SGEs
# (rxe offers more) needs 16 KiB blocks, a 128 KiB one 8 KiB blocks: an
# end that wants 256 KiB there gets 128 KiB. The other VM is left whole,
# since a new RPC client and nfsd's threads each need a 16 KiB block.
# - client: the mount is made, then the client VM is fragmented and
#   wants 256 KiB; an nfsd restart makes it connect anew.
# - server: nfsd wants 256 KiB and is restarted, then the server VM is
#   fragmented; a new mount connects.
# Each time that end advertises 131072 (so its Receive buffers hold
# that much; a 6.12 server, whose buffer takes the largest blocks, so
# that its first 32 KiB are one, 8192), shows
# both sizes in its tracepoint, and the connection
# carries md5-checked I/O and is not lost; the dmesg line comes once.
# (Memory short in total is not used: in a guest with nothing to
# reclaim, the trial allocations would wake the OOM killer first.)
[ "$E2E_ROLE" = client ] || fail_scenario "memory-short needs a two-host run"
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
size=262144 got=131072
trap 'umount /mnt/short 2>/dev/null; rmmod nfsrdma_fragment 2>/dev/null; ctl unfragment >/dev/null' EXIT
for e in xprtrdma_inline_thresh xprtrdma_disconnect; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no $e tracepoint"
done
dd if=/dev/urandom of=/tmp/short bs=64k count=32 2>/dev/null
sum=$(md5sum </tmp/short)

# io NAME: md5-checked O_DIRECT I/O through the mount
io() {
	run dd if=/tmp/short of=/mnt/short/$1 bs=64k oflag=direct 2>/dev/null
	run dd if=/mnt/short/$1 of=/tmp/back bs=64k iflag=direct 2>/dev/null
	expect_eq "$1: md5" "$(md5sum </tmp/back)" "$sum"
	run rm /mnt/short/$1
}

# Only new connections, and none lost once made
connections() {
	expect_eq "$1: connections made" "$(grep -c 'xprtrdma_inline_thresh:' $T/trace)" 1
	expect_eq "$1: connections lost after it was made" \
		"$(sed -n '/xprtrdma_inline_thresh:/,$p' $T/trace | grep -c 'xprtrdma_disconnect:')" 0
}

# The client
nfs_mount 4.1 /mnt/short
cc() { rdma_stats /mnt/short | sed 's/.*connect_count=//'; }
cc0=$(cc)
run sh -c "echo $size >$R/rdma_max_inline_read"
fragment 2 || fail_scenario "cannot load nfsrdma_fragment.ko order=2"
echo >$T/trace
[ "$(ctl restart)" = ok ] || fail_scenario "the server VM did not restart nfsd"
# The new connection (mountstats connect_count; reading the trace now
# would take a block this VM lacks)
i=0
until [ "$(cc)" -gt "$cc0" ] 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail_scenario "client: no new connection after nfsd restarted (connect_count $cc0, now $(cc))"
	ls /mnt/short >/dev/null 2>&1
	sleep 1
done
io client
# The unmount's disconnect is not a lost connection
echo 0 >$T/events/rpcrdma/xprtrdma_disconnect/enable
nfs_umount /mnt/short $((cc0 + 1))
# Reading the trace takes a 32 KiB block: only once the VM is whole
run rmmod nfsrdma_fragment
expect_tp "client" "$(grep 'xprtrdma_inline_thresh:' $T/trace | tail -n 1)" \
	recv_wanted=$size client_recv=$got
connections client
run sh -c "echo 4096 >$R/rdma_max_inline_read"
# One line per connection made short (rate-limited), so at least one
expect_ge "client: dmesg lines on the shortfall" \
	"$(dmesg | grep -c "rpcrdma: .*no device SGEs or memory for $size-octet Receive buffers, advertising $got")" 1

# The server. The 6.12 series gives nfsd's Receive buffers the largest
# blocks, so that a Call's first 32 KiB are one (Debian's 6.12
# sunrpc.ko reads a WRITE's data right only from the head): with no
# free block of 16 KiB, 8 KiB is what a buffer can hold.
case $E2E_SERVER_KERNEL in
6.12*) got=8192 ;;
esac
[ "$(ctl size=$size)" = "ok $size" ] || fail_scenario "the server VM refused max_req_size $size"
# Closes the client's earlier connection, which its next mount might reuse
[ "$(ctl restart)" = ok ] || fail_scenario "the server VM did not restart nfsd"
ctl fragment=2 | grep -q 'no free block of order 2' || fail_scenario "the server VM could not be fragmented"
[ "$(ctl accepts-on)" = ok ] || fail_scenario "the server VM has no svcrdma_cm_accept tracepoint"
echo >$T/trace
echo 1 >$T/events/rpcrdma/xprtrdma_disconnect/enable
nfs_mount 4.1 /mnt/short
io server
echo 0 >$T/events/rpcrdma/xprtrdma_disconnect/enable
nfs_umount /mnt/short
[ "$(ctl unfragment)" = ok ] || fail_scenario "the server VM could not unload nfsrdma_fragment.ko"
expect_tp "server" "$(ctl accepts | tail -n 1)" recv_wanted=$size server_recv=$got
connections server
expect_ge "server: dmesg lines on the shortfall" \
	"$(ctl log | grep -c "svcrdma: .*no device SGEs or memory for $size-octet Receive buffers, advertising $got")" 1
