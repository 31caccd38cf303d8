# SPDX-License-Identifier: GPL-2.0
# Reconnects under load, with the Receive Size changing: fio at iodepth
# 64 (libaio, O_DIRECT, 4 to 128 KiB random writes of a new 4 MiB file
# each round, with a new random seed, each block verified by crc32c as
# read back) and 8 streams of O_DIRECT writes and reads (each file
# compared as read back) keep RPCs in flight while nfsd is restarted 6
# times, each time after the client's inline read threshold (its
# Receive Size) and nfsd's max_req_size changed. Every restart must find
# fio running. A reconnect must leave alone the Receive buffers that
# RPCs in flight still read, and resize the others: no data may differ,
# the mount must carry on, and the last connection must have negotiated
# the last sizes.
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
T=/sys/kernel/tracing
pids=
restore() {
	# The I/O loops end with the scenario, failed or not
	: >/tmp/rl.stop
	if [ -n "$pids" ]; then
		kill $pids 2>/dev/null
		killall -q fio dd 2>/dev/null
		# Only the loops: nfsd_start may have left rpc.mountd as a
		# child of this shell, and a bare wait would wait for it
		wait $pids
	fi
	rm -f /tmp/rl.stop /tmp/rl.fio.on $mnt/fio
}
trap restore EXIT
# One xprtrdma_inline_thresh line per connection the client makes
echo 1 >$T/events/rpcrdma/xprtrdma_inline_thresh/enable || fail_scenario "no tracepoint"
echo >$T/trace
echo 65536 >$S/max_req_size
echo 65536 >$R/rdma_max_inline_read
echo 65536 >$R/rdma_max_inline_write
local_nfsd
mnt=/mnt/rl
nfs_mount 4.1 $mnt

# stream N: write and read back files with block sizes from 1 KiB to
# 128 KiB until /tmp/rl.stop exists; a difference goes to /tmp/rl.bad
rm -f /tmp/rl.stop /tmp/rl.bad /tmp/rl.count.*
stream() {
	local n=$1 i=0 bs
	while [ ! -e /tmp/rl.stop ]; do
		for bs in 1024 3000 4096 12288 65536 131072; do
			head -c $((bs * 8)) /dev/urandom >/tmp/rl.src.$n
			dd if=/tmp/rl.src.$n of=$mnt/s$n bs=$bs oflag=direct 2>/dev/null ||
				echo "stream $n: write bs=$bs failed" >>/tmp/rl.bad
			dd if=$mnt/s$n of=/tmp/rl.back.$n bs=$bs iflag=direct 2>/dev/null ||
				echo "stream $n: read bs=$bs failed" >>/tmp/rl.bad
			cmp -s /tmp/rl.src.$n /tmp/rl.back.$n ||
				echo "stream $n: bs=$bs differs" >>/tmp/rl.bad
			i=$((i + 1))
		done
		echo $i >/tmp/rl.count.$n
	done
}
# fio_rounds: one fio round after another until /tmp/rl.stop exists;
# each writes the whole file in random order at iodepth 64, then reads
# it back and checks every block's crc32c. A failed round goes to
# /tmp/rl.bad with fio's own words.
fio_rounds() {
	local i=0
	while [ ! -e /tmp/rl.stop ]; do
		# A new file and seed each round: a WRITE lost in this round
		# cannot be hidden by the same block of the last one
		rm -f $mnt/fio
		# A round is in flight from here until fio has exited
		: >/tmp/rl.fio.on
		fio --name=rl --filename=$mnt/fio --rw=randwrite --bsrange=4k-128k \
			--randrepeat=0 --size=4m --ioengine=libaio --iodepth=64 --direct=1 \
			--verify=crc32c --do_verify=1 --minimal >/tmp/rl.fio 2>&1 ||
			echo "fio round $i: $(grep -m1 -iE 'verify|error|bad' /tmp/rl.fio)" >>/tmp/rl.bad
		rm -f /tmp/rl.fio.on
		i=$((i + 1))
		echo $i >/tmp/rl.fio.count
	done
}
command -v fio >/dev/null || fail_scenario "no fio in the initramfs (run.sh adds it for \"# e2e-needs: fio\")"
rm -f /tmp/rl.fio.count /tmp/rl.fio.on
fio_rounds &
pids=$!
for n in 1 2 3 4 5 6 7 8; do
	stream $n &
	pids="$pids $!"
done

# Each restart: new sizes for the next connection, then nfsd stopped
# and started under the streams' I/O
last_recv= last_req= under=0
for sizes in "8192 16384" "262144 262144" "4096 65536" "131072 32768" "16384 262144" "65536 65536"; do
	sleep 3
	last_recv=${sizes% *} last_req=${sizes#* }
	echo "$last_recv" >$R/rdma_max_inline_read
	echo "$last_req" >$S/max_req_size
	# Between two rounds fio is gone for a while: the next round's rm
	# of the last file may wait out the client's recovery from the last
	# restart. Wait for it (a loop that has stopped never comes back,
	# and the count says so). The loop says when a round is running:
	# busybox's pidof was seen to miss a running fio for a minute.
	w=0
	while [ ! -e /tmp/rl.fio.on ] && [ $w -lt 120 ]; do
		sleep 0.5
		w=$((w + 1))
	done
	if [ -e /tmp/rl.fio.on ]; then
		under=$((under + 1))
	else
		say "no fio before restart $((under + 1)) in 60 s; rounds done: $(cat /tmp/rl.fio.count 2>/dev/null || echo 0)"
	fi
	[ $w = 0 ] || say "fio's next round came after $((w / 2)) s"
	nfsd_restart
	nfsd_end_grace
	say "restarted nfsd: client Receive Size $last_recv, max_req_size $last_req"
done
sleep 5
: >/tmp/rl.stop
for p in $pids; do
	wait "$p"
done
total=0
for n in 1 2 3 4 5 6 7 8; do
	total=$((total + $(cat /tmp/rl.count.$n 2>/dev/null || echo 0)))
done
# Each loop finishes what it started, so these are what was checked,
# not a test of their own
say "checked: $(cat /tmp/rl.fio.count 2>/dev/null) fio rounds, $total stream transfers"
expect_eq "restarts with fio's I/O in flight" $under 6
expect_eq "connections the client made" \
	"$(grep -c xprtrdma_inline_thresh $T/trace)" 7
expect_eq "transfers that failed or differ" "$(cat /tmp/rl.bad 2>/dev/null | head -n 3 | tr '\n' ';')" ""
# The mount reconnected with the last sizes: the last connection's event
# (the client reconnects when an RPC needs it, a little after the restart)
last_event() { grep 'xprtrdma_inline_thresh:' $T/trace | tail -n 1; }
i=0
until [ "$(last_event | tp_get client_recv)" = "$last_recv" ] &&
      [ "$(last_event | tp_get server_recv)" = "$last_req" ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || break
	ls $mnt >/dev/null 2>&1
	sleep 1
done
s2c=$([ "$last_recv" -lt "$last_req" ] && echo "$last_recv" || echo "$last_req")
expect_tp "last connection" "$(last_event)" client_recv="$last_recv" recv_wanted="$last_recv" \
	server_recv="$last_req" s2c="$s2c"
expect_eq "last connection: mountstats server-to-client" "$(negotiated $mnt | cut -d/ -f2)" "$s2c"
run rm -f $mnt/s1 $mnt/s2 $mnt/s3 $mnt/s4 $mnt/s5 $mnt/s6 $mnt/s7 $mnt/s8
nfs_umount $mnt 7
