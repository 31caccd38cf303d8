# SPDX-License-Identifier: GPL-2.0
# Inline WRITEs into a block-device export with nfsd's direct-I/O write
# mode. The VM's virtio disk gets an ext4 file system, nfsd exports it,
# and on a kernel that has the mode (7.3: debugfs nfsd/io_cache_write =
# 2) nfsd hands the part of each WRITE that is aligned for the device
# straight to it: the payload's bio_vecs, built from the xdr_buf, go to
# the disk by DMA through their struct pages, not through a copy.
#
# At a 64 KiB threshold over NFSv3 and NFSv4.1, sizes from 1 octet to
# the threshold less 1 KiB of headers are written with O_DIRECT, one WRITE each, and, for two
# sizes, at every file offset 0..508 in steps of 4: nfsd goes direct
# only where the payload's offset in memory, past the file's first
# block boundary, is aligned for the device, and where that happens
# depends on the RPC header's length. Each file is compared with what
# was written after the page cache is dropped, so it is read from the
# disk. The nfsd_write_direct tracepoint counts the direct writes: the
# sweep lines up once for each of the two sizes, so at least two must
# have gone direct. 6.12, which has no such mode, runs the same writes
# buffered into ext4; any later kernel must have it.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
D=/export/disk
DIO=/sys/kernel/debug/nfsd/io_cache_write
local_nfsd

restore() {
	umount /mnt/dio 2>/dev/null
	[ -e $DIO ] && echo 0 >$DIO
	exportfs -u "192.0.2.0/24:$D" 2>/dev/null
	! is_mounted $D || umount $D || say "cannot unmount $D"
	rm -rf /tmp/dio
}
trap restore EXIT

dev=
for b in /sys/block/vd*; do
	[ -e "$b" ] && dev=/dev/${b##*/} && break
done
[ -n "$dev" ] || fail_scenario "no virtio disk in this VM"
run mkfs.ext4 -q -F "$dev"
mkdir -p $D
run mount -t ext4 "$dev" $D
chmod 1777 $D
# nohide: a mount of /export reaches it as "disk"
run exportfs -o rw,nohide,no_subtree_check,no_root_squash,insecure,sync "192.0.2.0/24:$D"

grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
mode=buffered
if [ ! -e $DIO ]; then
	case $(uname -r) in
	6.12.*) ;;
	*) fail_scenario "no nfsd/io_cache_write in debugfs on $(uname -r)" ;;
	esac
fi
if [ -e $DIO ]; then
	run sh -c "echo 2 >$DIO"
	expect_eq "nfsd io_cache_write" "$(cat $DIO)" 2
	mode=direct
	echo 1 >$T/events/nfsd/nfsd_write_direct/enable ||
		fail_scenario "no nfsd_write_direct tracepoint"
else
	pass "no direct-I/O write mode in $(uname -r): buffered writes into ext4"
fi

# sizes T: 1 octet to T less 1 KiB of headers, each page boundary +-1
sizes() {
	{
		printf '%s\n' 1 100 511 512 513 1000
		for b in 4096 8192 16384 32768 65536; do
			printf '%s\n' $((b - 1)) $b $((b + 1))
		done
	} | awk -v t=$(($1 - 1024)) '$1 >= 1 && $1 <= t' | sort -n | uniq
}

t=65536
echo $t >$S/max_req_size
echo $t >$R/rdma_max_inline_read
echo $t >$R/rdma_max_inline_write
mnt=/mnt/dio
W=/tmp/dio
# write_at SIZE OFFSET: one O_DIRECT WRITE of SIZE random octets at
# OFFSET of a new file under $dir, kept in $W to be checked on the disk
write_at() {
	head -c "$1" /dev/urandom >$W/w.$1.$2
	dd if=$W/w.$1.$2 of=$dir/w.$1.$2 bs="$1" count=1 seek="$2" \
		oflag=direct,seek_bytes 2>/dev/null ||
		fail_scenario "v$vers: O_DIRECT write of $1 octets at $2"
	n=$((n + 1))
}
for vers in 3 4.1; do
	rm -rf $W && mkdir -p $W
	# The export's root; the disk is its "disk" (nohide). The files
	# are compared in $D: that they are there says where they went.
	nfs_mount $vers $mnt
	dir=$mnt/disk
	: >$T/trace
	bad= n=0 before=$(rdma_stats $mnt | sed 's/read_chunks=\([0-9]*\).*/\1/')
	[ -n "$before" ] || fail_scenario "v$vers: no RDMA transport counters for $mnt"
	for s in $(sizes $t); do
		write_at "$s" 0
	done
	for s in 4000 60000; do
		off=0
		while [ $off -lt 512 ]; do
			write_at $s $off
			off=$((off + 4))
		done
	done
	after=$(rdma_stats $mnt | sed 's/read_chunks=\([0-9]*\).*/\1/')
	expect_eq "v$vers: Read chunks for $n inline WRITEs" "$after" "$before"
	# Unmounted first: the server's reads and unlinks meet no
	# delegation; then read from the disk, the page cache dropped
	nfs_umount $mnt
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in $W/w.*; do
		name=${f#$W/}
		off=${name##*.}
		# the data where it was written, and zeros in the hole before
		if ! cmp -s "$f" $D/$name 0 "$off" ||
		   [ "$(head -c "$off" $D/$name | tr -d '\000' | wc -c)" != 0 ]; then
			bad="$bad ${name#w.}"
		fi
		rm -f $D/$name
	done
	expect_eq "v$vers: of $n $mode WRITEs, those that differ on the disk" \
		"${bad:- none}" " none"
	if [ $mode = direct ]; then
		expect_ge "v$vers: WRITEs nfsd sent to the disk direct" \
			"$(grep -c nfsd_write_direct: $T/trace)" 2
	fi
done
