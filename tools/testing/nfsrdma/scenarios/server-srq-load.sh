# SPDX-License-Identifier: GPL-2.0
# nfsd's shared Receive buffers under load, from many connections at
# once. nfsd at a max_req_size of 258048 (252 KiB, a size no other
# scenario uses, so that the device's pool for it starts here; the
# client at 16 KiB, since its own buffers for 16 connections at 252 KiB
# would not fit beside nfsd in this VM), an NFSv4.1 and an NFSv3 mount
# of 8 connections each (nconnect=8), and fio on both at once (4 jobs
# at iodepth 32 each, a file of 8 MiB each, libaio, O_DIRECT, 4 KiB to
# 256 KiB random writes, every block verified by crc32c as read back)
# beside creates and unlinks. The device's pool starts with what one
# connection needs, so the Calls in flight soon want more: it must
# grow as the connections arrive (svcrdma_srq_grow) and share out what
# it has, while each credit a Reply grants stays backed by a posted
# Receive. A client that Sends on a credit and finds no Receive posted
# gets an RNR NAK, which ends its connection (xprtrdma asks for no RNR
# retries; on iWARP there are none): so no RNR NAK may be counted
# (soft-RoCE counts them),
# every transport of both mounts must keep its first connection, and
# no data may differ. Fails on a module without the pool (no
# svcrdma_srq_* events); with per-connection Receive buffers of 252
# KiB, 16 connections do not fit in this VM at all.
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
restore() {
	umount /mnt/v4 /mnt/v3 2>/dev/null
	rm -f /tmp/srq-*.fio
}
trap restore EXIT

# pool_counts: "COUNT MAX" of every traced growth of the pool made here:
# of 252 KiB buffers, or less on a device whose Receive SGEs hold less
# (soft-iWARP: 192 KiB)
pool_counts() {
	local size
	size=$(sed -n 's/.*svcrdma_srq_grow:.* size=\([0-9]*\) .*/\1/p' $T/trace | head -n 1)
	[ -n "$size" ] || return 0
	sed -n "s/.*svcrdma_srq_grow:.* size=$size count=\([0-9]*\) max=\([0-9]*\).*/\1 \2/p" \
		$T/trace
}

[ -d $T/events/rpcrdma/svcrdma_srq_grow ] ||
	fail_scenario "no tracepoint svcrdma_srq_grow: nfsd has no shared Receive buffers"
# soft-iWARP has no RNR NAKs to count: there, a Send that finds no
# Receive ends the connection, which the connect_count checks catch
rnr=no
rnr_counted && rnr=yes
local_nfsd
echo 258048 >$S/max_req_size
echo 16384 >$R/rdma_max_inline_read
echo 16384 >$R/rdma_max_inline_write
nfsd_restart
nfsd_end_grace
for e in create grow destroy borrow overrun; do
	echo 1 >$T/events/rpcrdma/svcrdma_srq_$e/enable ||
		fail_scenario "cannot enable svcrdma_srq_$e"
done
echo >$T/trace

before=$(rnr_naks)
nfs_mount 4.1 /mnt/v4 nconnect=8
nfs_mount 3 /mnt/v3 nconnect=8
for m in v4 v3; do
	fio --name=$m --directory=/mnt/$m --rw=randwrite --bsrange=4k-256k \
		--randrepeat=0 --size=8m --ioengine=libaio --iodepth=32 --numjobs=4 \
		--direct=1 --verify=crc32c --do_verify=1 --minimal \
		>/tmp/srq-$m.fio 2>&1 &
	eval "fpid_$m=$!"
done
run mkdir /mnt/v4/d
i=0
while [ $i -lt 300 ]; do
	: >/mnt/v4/d/f$i || fail_scenario "create $i"
	i=$((i + 1))
done
expect_eq "entries after 300 creates" "$(ls /mnt/v4/d | wc -l)" 300
run rm -r /mnt/v4/d
for m in v4 v3; do
	frc=0
	eval "wait \$fpid_$m" || frc=$?
	expect_fio_ok "$m: fio with 4 jobs at iodepth 32, every block verified" $frc /tmp/srq-$m.fio
	run rm -f /mnt/$m/$m.*
done
[ $rnr = no ] ||
	expect_eq "RNR NAKs under load from 16 connections" "$(($(rnr_naks) - before))" 0
# fio gives up on no Call: nothing sent beyond its credits, covered
# by the pool (svcrdma_srq_borrow) or not (svcrdma_srq_overrun)
expect_eq "Calls sent beyond their credits" \
	"$(grep -c 'svcrdma_srq_\(borrow\|overrun\):' $T/trace)" 0
first=$(pool_counts | head -n 1)
last=$(pool_counts | tail -n 1)
[ -n "$first" ] || fail_scenario "no svcrdma_srq_grow event: nfsd made no pool for 252 KiB"
say "the pool: $first at its first growth, $last at its last (buffers, bound)"
expect_eq "the pool grew past the first connection's buffers as more came" \
	"$([ "${last%% *}" -gt "${first%% *}" ] && echo yes)" yes
expect_eq "the pool kept within its bound" \
	"$([ "${last%% *}" -le "${last##* }" ] && echo yes)" yes
# Every transport of both mounts keeps its first connection
nfs_umount /mnt/v4
nfs_umount /mnt/v3
