# SPDX-License-Identifier: GPL-2.0
# The memory half of `make bench` (tools/testing/nfsrdma/bench/): not a
# test of its own. In the client VM of a two-host run, both VMs on the
# same rpcrdma.ko (ours or stock), it measures what one connection takes
# on each end, from the kernel's own counters: MemFree, Slab and
# VmallocUsed of /proc/meminfo and the free pages in per-CPU lists
# (/proc/zoneinfo), after syncing and dropping caches,
# before N connections, with them, and after they are gone, on each VM
# (the server's through guest/ctl.cgi). The N connections are NFSv3
# mounts of N addresses of the server (NFSv4.1 would trunk them onto one
# connection); each moves one O_DIRECT write and read of the threshold's
# size first, then two seconds of 4 KiB reads at iodepth 64, so that both
# ends are in their working state under load: the server's Send
# contexts, kept per connection, are as many as its Sends in flight.
# Before each threshold one mount is made and dropped, unmeasured: on a
# device with an SRQ it makes nfsd's shared pool of Receive buffers of
# that size and retires the one before, so what is measured is what
# the N connections add to it. Prints one BENCH-MEM line per threshold
# for report.py.
# e2e-needs: fio
R=/proc/sys/sunrpc
[ "$E2E_ROLE" = client ] || fail_scenario "bench-mem runs in the client VM of a two-host run"
command -v fio >/dev/null || fail_scenario "no fio in the initramfs (run.sh adds it for \"# e2e-needs: fio\")"
N=4
KIBS="1 4 16 64 256"
[ "$E2E_BENCH" = quick ] && KIBS="1 64"
[ "$(ctl addrs=$N)" = ok ] || fail_scenario "the server's control channel did not add $N addresses"
credits=$(ctl credits)
[ -n "$credits" ] || fail_scenario "the server's control channel did not answer"

# connect SIZE: the N mounts, each moving SIZE octets each way, then
# small reads under load
connect() {
	local i=1 m
	while [ $i -le $N ]; do
		m=/mnt/mem$i
		mkdir -p $m
		run mount.nfs "192.0.2.$((10 + i)):/export" $m \
			-o "proto=rdma,port=$E2E_PORT,vers=3,nolock,mountproto=tcp,mountport=$E2E_MOUNTD_PORT"
		run dd if=/tmp/mem of=$m/f bs=$1 oflag=direct 2>/dev/null
		run dd if=$m/f of=/dev/null bs=$1 iflag=direct 2>/dev/null
		run fio --name=mem --filename=$m/load --rw=randread --bs=4k --size=1m \
			--ioengine=libaio --iodepth=64 --direct=1 --time_based --runtime=2 \
			--minimal --output=/dev/null
		run rm $m/f $m/load
		i=$((i + 1))
	done
}

# disconnect: unmount them; nfsd closes its ends when the client's
# disconnects arrive
disconnect() {
	local i=1
	while [ $i -le $N ]; do
		run umount /mnt/mem$i
		i=$((i + 1))
	done
	wait_for "nfsd to close the connections" 20 sh -c "[ \"\$(wget -q -O - '$E2E_CTL?qps')\" = 0 ]"
}

# One round first, not measured: what the first mounts set up once
# (caches, the NFS client's first structures, memory freed after boot)
# would otherwise count against the first threshold
dd if=/dev/urandom of=/tmp/mem bs=4096 count=1 2>/dev/null
connect 4096
disconnect

for k in $KIBS; do
	size=$((k * 1024))
	cl=ok
	{ echo $size >$R/rdma_max_inline_read && echo $size >$R/rdma_max_inline_write; } 2>/dev/null ||
		cl=refused
	sv=$(ctl size=$size)
	case "$sv" in
	ok\ *|refused\ *) ;;
	*) fail_scenario "$k KiB: the server's control channel answered '$sv' to size=$size" ;;
	esac
	if [ "$cl" != ok ] || [ "${sv%% *}" != ok ]; then
		echo "BENCH-MEM module=$E2E_RPCRDMA size=$size status=refused client=$(cat $R/rdma_max_inline_read) server=${sv#* }"
		continue
	fi
	dd if=/dev/urandom of=/tmp/mem bs=$size count=1 2>/dev/null
	# One mount first, not measured: on a device with an SRQ, nfsd's
	# shared pool of this size is made then, and the pool of the size
	# before goes (it stays with the device, not with the connections)
	n=$N
	N=1
	connect $size
	disconnect
	N=$n
	cb=$(mem_now)
	sb=$(ctl mem)
	connect $size
	cq=$(rc_qps)
	sq=$(ctl qps)
	ca=$(mem_now)
	sa=$(ctl mem)
	disconnect
	ce=$(mem_now)
	se=$(ctl mem)
	case "$sb/$sa/$se" in
	*[0-9],*[0-9],*[0-9],*[0-9]/*[0-9],*[0-9],*[0-9],*[0-9]/*[0-9],*[0-9],*[0-9],*[0-9]) ;;
	*) fail_scenario "$k KiB: the server's control channel gave no memory readings ($sb/$sa/$se)" ;;
	esac
	echo "BENCH-MEM module=$E2E_RPCRDMA size=$size status=ok n=$N credits=$credits qps=$cq/$sq client=$cb/$ca/$ce server=$sb/$sa/$se"
	expect_eq "$k KiB: connections on each end" "$cq/$sq" "$N/$N"
done
