# SPDX-License-Identifier: GPL-2.0
# nfsd on a device that does not take the shared pool: soft-iWARP on
# 6.12, whose series leaves it off (6.12's siw never raises Last WQE
# Reached). Every connection posts its own Receive Queue, as before the
# pool: no svcrdma_srq_create or _grow event, no SRQ on the device
# (rdma resource show), while an NFSv4.1 mount of 4 connections moves
# verified data (fio randwrite at iodepth 16, every block read back).
# Fails on a module that puts such a device on a pool, and on one that
# stops serving when it falls back.
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
T=/sys/kernel/tracing
restore() {
	umount /mnt/fb 2>/dev/null
	rm -f /tmp/fb.fio
}
trap restore EXIT

[ -d $T/events/rpcrdma/svcrdma_srq_create ] ||
	fail_scenario "no tracepoint svcrdma_srq_create: this module has no pool to fall back from"
local_nfsd
# a size of its own, so that no pool of an earlier scenario serves it
echo 61440 >$S/max_req_size
nfsd_restart
nfsd_end_grace
for e in create grow; do
	echo 1 >$T/events/rpcrdma/svcrdma_srq_$e/enable ||
		fail_scenario "cannot enable svcrdma_srq_$e"
done
echo >$T/trace
nfs_mount 4.1 /mnt/fb nconnect=4
frc=0
fio --name=fb --directory=/mnt/fb --rw=randwrite --bsrange=4k-64k \
	--randrepeat=0 --size=4m --ioengine=libaio --iodepth=16 --numjobs=2 \
	--direct=1 --verify=crc32c --do_verify=1 --minimal >/tmp/fb.fio 2>&1 || frc=$?
expect_fio_ok "fio on per-connection Receive Queues, every block verified" $frc /tmp/fb.fio
expect_eq "pools made or grown on $E2E_RDMA_DEV" \
	"$(grep -c 'svcrdma_srq_\(create\|grow\):' $T/trace)" 0
expect_eq "SRQs on the device" "$(kernel_srqs)" 0
run rm -f /mnt/fb/fb.*
nfs_umount /mnt/fb
