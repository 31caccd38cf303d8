# SPDX-License-Identifier: GPL-2.0
# What larger thresholds buy: with the client at 64 KiB and the server
# at 16 KiB, the mount negotiates 16 KiB each way and a 12 KiB write goes
# inline (mountstats read_chunk_count does not move); at 4 KiB the same
# write needs a Read chunk.
sys=/proc/sys/sunrpc
echo 16384 >$sys/svc_rdma/max_req_size
local_nfsd
dd if=/dev/urandom of=/tmp/12k bs=12k count=1 2>/dev/null
for client in 65536 4096; do
	echo $client >$sys/rdma_max_inline_read
	echo $client >$sys/rdma_max_inline_write
	nfs_mount 4.1 /mnt/iw
	want=16384
	[ $client -lt $want ] && want=$client
	neg=$(negotiated /mnt/iw)
	expect_eq "client $client: thresholds (mountstats)" "${neg%/*}" $want/$want
	before=$(rdma_stats /mnt/iw | sed 's/read_chunks=\([0-9]*\).*/\1/')
	run dd if=/tmp/12k of=/mnt/iw/f bs=12k oflag=direct 2>/dev/null
	after=$(rdma_stats /mnt/iw | sed 's/read_chunks=\([0-9]*\).*/\1/')
	if [ $client = 65536 ]; then
		expect_eq "client $client: read chunks for a 12 KiB write" $((after - before)) 0
	else
		expect_eq "client $client: read chunks for a 12 KiB write" $((after - before)) 1
	fi
	run rm /mnt/iw/f
	nfs_umount /mnt/iw
done
echo 4096 >$sys/svc_rdma/max_req_size
echo 4096 >$sys/rdma_max_inline_read
echo 4096 >$sys/rdma_max_inline_write
