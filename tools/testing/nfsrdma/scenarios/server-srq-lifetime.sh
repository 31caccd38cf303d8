# SPDX-License-Identifier: GPL-2.0
# The lifetime of nfsd's shared Receive buffers: a device's pool must
# outlive the connections that come and go on it, and go with the
# device or the module, never before and never left behind. nfsd at a
# max_req_size of 126976 (124 KiB, a size no other scenario uses, so
# that its pool starts here), the client at 16 KiB.
#  1. Connections coming and going under load: fio rounds on an NFSv4.1
#     mount of 4 connections (randwrite, every block verified as read
#     back), one after another until the churn is done, while NFSv3 and
#     NFSv4.1 mounts of 2 connections each are made, written, checked
#     byte for byte on the server and unmounted, six times. One pool is
#     made and none destroyed; the fio mount keeps its first
#     connections.
#  2. nfsd restarted under a writer: the mount reconnects once, the
#     same pool serves the new connection (none made, none destroyed),
#     every file written reads back the same on the server.
#  3. rpcrdma.ko unloaded with the pool alive (nfsd stopped, nothing
#     mounted): the pool's SRQ goes with it (rdma resource show);
#     loaded again, nfsd makes a new pool at its first connection.
#  4. The device deleted (rdma link delete) under a writer and added
#     again: the pool goes with it (svcrdma_srq_destroy), the client
#     reconnects over the new device, nfsd makes a new pool there, and
#     every file reads back the same on the server.
# On a device that does not take the pool (soft-iWARP on 6.12, whose
# series leaves it off), the same steps run on per-connection Receive
# Queues and want no pool and no SRQ at any point.
# Throughout, no Call is sent beyond its credits (svcrdma_srq_borrow,
# svcrdma_srq_overrun) and,
# on soft-RoCE, no RNR NAK is counted. Fails on a module without the
# pool (no svcrdma_srq_* events), or one whose pool dies with its last
# connection (step 2), outlives its device (step 4: the removal waits
# for it, bounded here) or its module (step 3).
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
mod=/lib/modules/e2e/rpcrdma-$E2E_RPCRDMA.ko
size=126976
link=$E2E_RDMA_DEV
dev=$(rdma link show | sed -n "s/^link $link\/.* netdev \([^ ]*\).*/\1/p")
[ "$E2E_ROLE" = single ] || fail_scenario "server-srq-lifetime needs one VM"
[ -n "$dev" ] || fail_scenario "no RDMA link $link: $(rdma link show)"
# pools: how many this scenario's device holds while it serves
case $E2E_RDMA:$(uname -r) in
siw:6.12*) pools=0 ;;
*) pools=1 ;;
esac
writer= fpid=
restore() {
	# the markers stay: a loop that outlives its kill still sees them
	touch /tmp/lt.stop /tmp/lt.churned
	[ -z "$writer$fpid" ] || kill $writer $fpid 2>/dev/null
	umount -f /mnt/lt /mnt/churn /mnt/check 2>/dev/null
	rm -f /tmp/lt.src /tmp/lt.round
}
trap restore EXIT

# settings: nfsd's Receive Size and the client's thresholds
settings() {
	echo $size >$S/max_req_size && echo 16384 >$R/rdma_max_inline_read &&
		echo 16384 >$R/rdma_max_inline_write || fail_scenario "sysctls refused"
}

# trace_pool: record the pool's events (again after a module load)
trace_pool() {
	local e
	for e in create grow destroy borrow overrun; do
		echo 1 >$T/events/rpcrdma/svcrdma_srq_$e/enable ||
			fail_scenario "no tracepoint svcrdma_srq_$e: nfsd has no shared Receive buffers"
	done
	echo >$T/trace
}

# events NAME: how many svcrdma_srq_NAME events this scenario's pools
# traced since the trace was cleared (borrow, overrun: of any
# connection)
events() {
	if [ "$1" = borrow ] || [ "$1" = overrun ]; then
		grep -c "svcrdma_srq_$1:" $T/trace
	else
		grep -c "svcrdma_srq_$1:.* size=$size " $T/trace
	fi
}

# step_end WHAT: no Call was sent beyond its credits in the step (none
# gives up on a Call here), whether the pool covered it or not; clear
# the trace for the next
step_end() {
	expect_eq "$1: Calls sent beyond their credits (covered, not covered)" \
		"$(events borrow) $(events overrun)" "0 0"
	echo >$T/trace
}

# A writer of 1 MiB files (O_DIRECT, 64 KiB a WRITE) to /mnt/lt until
# /tmp/lt.stop: guest/lib.sh writer_start /tmp/lt.src /mnt/lt/w /tmp/lt 64k
# writer_end WHAT: two more files written whole, then stop the writer
# and compare every file it wrote with the source, on the server
writer_end() {
	local n1 n j bad=
	n1=$(cat /tmp/lt.n)
	wait_for "two files written $1" 600 \
		sh -c "[ \$(cat /tmp/lt.n) -ge $((n1 + 2)) ] || ! kill -0 $writer"
	touch /tmp/lt.stop
	wait $writer || fail_scenario "the writer failed $1: $(cat /tmp/lt.err 2>/dev/null)"
	writer=
	n=$(cat /tmp/lt.n)
	j=0
	while [ $j -le "$n" ]; do
		cmp -s /tmp/lt.src /export/w.$j || bad="$bad $j"
		j=$((j + 1))
	done
	expect_eq "of $((n + 1)) files of 1 MiB written $1, those that differ on the server" \
		"${bad:- none}" " none"
	run rm -f /mnt/lt/w.*
}

rnr=no
rnr_counted && rnr=yes
run dd if=/dev/urandom of=/tmp/lt.src bs=64k count=16 2>/dev/null
local_nfsd
nfsd_restart settings
nfsd_end_grace
trace_pool
before=$(rnr_naks)

# 1. Connections coming and going under load
nfs_mount 4.1 /mnt/lt nconnect=4
rm -f /tmp/lt.churned /tmp/lt.rounds
: >/tmp/lt.fio
(
	r=0
	until [ -e /tmp/lt.churned ]; do
		fio --name=lt --directory=/mnt/lt --rw=randwrite --bsrange=4k-128k \
			--randrepeat=0 --size=2m --ioengine=libaio --iodepth=16 --numjobs=2 \
			--direct=1 --verify=crc32c --do_verify=1 --minimal >/tmp/lt.round 2>&1 ||
			{ echo "round $r: $(grep -m1 -iE 'verify|error|bad' /tmp/lt.round)" >/tmp/lt.fio; exit 1; }
		r=$((r + 1))
		echo $r >/tmp/lt.rounds
	done
) &
fpid=$!
k=0
while [ $k -lt 6 ]; do
	v=3
	[ $((k % 2)) = 1 ] && v=4.1
	nfs_mount $v /mnt/churn nconnect=2
	run cp /tmp/lt.src /mnt/churn/c$k
	expect_eq "churn $k (NFSv$v, 2 connections): 1 MiB as the server has it" \
		"$(cmp /tmp/lt.src /export/c$k 2>&1)" ""
	run rm /mnt/churn/c$k
	nfs_umount /mnt/churn
	k=$((k + 1))
done
kill -0 $fpid 2>/dev/null ||
	fail_scenario "fio ended before the churn did: $(cat /tmp/lt.fio 2>/dev/null)"
touch /tmp/lt.churned
frc=0
wait $fpid || frc=$?
fpid=
expect_fio_ok "$(cat /tmp/lt.rounds 2>/dev/null || echo 0) fio rounds during the churn, every block verified" \
	$frc /tmp/lt.fio
run rm -f /mnt/lt/lt.*
nfs_umount /mnt/lt
expect_eq "pools made while 16 connections came and 12 went" "$(events create)" $pools
expect_eq "pools destroyed while connections came and went" "$(events destroy)" 0
step_end "connections coming and going"

# 2. nfsd restarted under a writer
nfs_mount 4.1 /mnt/lt
writer_start /tmp/lt.src /mnt/lt/w /tmp/lt 64k
run nfsd_restart
nfsd_end_grace
writer_end "across an nfsd restart"
nfs_umount /mnt/lt 2
expect_eq "pools made or destroyed by the restart (the first serves on)" \
	"$(events create) $(events destroy)" "0 0"
step_end "nfsd restart"

# 3. rpcrdma.ko unloaded with the pool alive: nfsd stopped and nothing
# mounted, only this scenario's pool is left (the others went with
# their last connections)
expect_eq "SRQs before the unload" "$(kernel_srqs)" $pools
reload() {
	bounded 60 "rpcrdma's unload" sh -c 'i=0; until rmmod rpcrdma 2>/dev/null; do i=$((i + 1)); [ $i -lt 60 ] || exit 1; sleep 1; done'
	kernel_srqs >/tmp/lt.srqs
	insmod $mod || fail_scenario "cannot load rpcrdma.ko again"
	settings
}
nfsd_restart reload
nfsd_end_grace
expect_eq "SRQs once rpcrdma.ko is unloaded" "$(cat /tmp/lt.srqs)" 0
trace_pool
still_serves "after rpcrdma.ko was unloaded with its pool"
expect_eq "pools made at the first connection after the reload" "$(events create)" $pools
expect_eq "SRQs after the reload" "$(kernel_srqs)" $pools
step_end "rpcrdma.ko unloaded"

# 4. The device deleted under a writer, and added again
nfs_mount 4.1 /mnt/lt
writer_start /tmp/lt.src /mnt/lt/w /tmp/lt 64k
# the device's counters go with it
[ $rnr = no ] ||
	expect_eq "RNR NAKs in steps 1 to 4 before $link went" "$(($(rnr_naks) - before))" 0
bounded 120 "the removal of $link with the pool alive" rdma link delete "$link"
say "$link deleted with the writer at file $(cat /tmp/lt.n)"
expect_eq "pools destroyed with $link" "$(events destroy)" $pools
run rdma link add "$link" type "$E2E_RDMA" netdev "$dev"
# the new device's counters start at 0
before=$(rnr_naks)
writer_end "across the removal of $link"
expect_eq "pools made on the new $link" "$(events create)" $pools
# one reconnect, over the new device, and no other
nfs_umount /mnt/lt 2
step_end "$link deleted and added"
[ $rnr = no ] ||
	expect_eq "RNR NAKs on the new $link" "$(($(rnr_naks) - before))" 0
