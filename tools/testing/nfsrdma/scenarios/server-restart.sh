# SPDX-License-Identifier: GPL-2.0
# Both ends of an NFSv4.1 mount ride out nfsd restarting E2E_RESTARTS
# times (default 8; make check-full: 20), each time with the next
# max_req_size of a fixed round through 1 KiB..256 KiB (so 8 restarts
# try every size but the default), while a writer keeps I/O going.
# After each restart the client reconnects and renegotiates, both ends'
# tracepoints show the new sizes (the client's xprtrdma_inline_thresh,
# nfsd's svcrdma_cm_accept) and agree, and nfsd holds that one
# connection. No write or read fails, and every file reads back from
# the server (O_DIRECT) with the checksum it was written with. The
# client offers 64 KiB both ways, so both thresholds follow the server:
# min(size, 65536).
S=/proc/sys/sunrpc
T=/sys/kernel/tracing
N=${E2E_RESTARTS:-8}
local_nfsd
for e in xprtrdma_inline_thresh svcrdma_cm_accept; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no $e tracepoint"
done
echo >$T/trace
echo 65536 >$S/rdma_max_inline_read
echo 65536 >$S/rdma_max_inline_write
nfs_mount 4.1 /mnt/rs
rm -f /tmp/rs.stop /tmp/rs.err
echo 0 >/tmp/rs.count

# The writer: files of 16 KiB..1 MiB, each read back past the client's
# page cache and compared, until told to stop
writer() {
	local i=0 a b
	while [ ! -f /tmp/rs.stop ]; do
		dd if=/dev/urandom of=/tmp/rs.src bs=16k count=$((RANDOM % 64 + 1)) 2>/dev/null
		if ! cp /tmp/rs.src /mnt/rs/f$((i % 4)); then
			echo "write $i failed" >>/tmp/rs.err
			return
		fi
		a=$(md5sum </tmp/rs.src)
		b=$(dd if=/mnt/rs/f$((i % 4)) iflag=direct bs=64k 2>/dev/null | md5sum)
		if [ "$a" != "$b" ]; then
			echo "file $i read back different" >>/tmp/rs.err
			return
		fi
		i=$((i + 1))
		echo $i >/tmp/rs.count.new && mv /tmp/rs.count.new /tmp/rs.count
	done
}
writer &
wpid=$!
# A failed check must not leave the writer running into the next scenario
trap 'touch /tmp/rs.stop; kill $wpid 2>/dev/null' EXIT

# restart SIZE: nfsd again, advertising SIZE from its next accept on
restart() {
	echo "$1" >$S/svc_rdma/max_req_size || fail_scenario "max_req_size $1"
	nfsd_restart
}

# retry_until SECONDS WHAT TEST...: wait for TEST, failing on the writer's error
retry_until() {
	local n=$1 what=$2 i=0
	shift 2
	until "$@"; do
		[ -s /tmp/rs.err ] && fail_scenario "$(cat /tmp/rs.err)"
		i=$((i + 1))
		[ $i -lt "$n" ] || fail_scenario "timed out waiting for $what"
		sleep 1
	done
}
# Each end's last event: the client's last connection, nfsd's last accept
client_event() { grep 'xprtrdma_inline_thresh:' $T/trace | tail -n 1; }
server_event() { grep 'svcrdma_cm_accept:' $T/trace | tail -n 1; }
client_sees() { [ "$(client_event | tp_get server_send)" = "$1" ]; }
server_sees() { [ "$(server_event | tp_get server_recv)" = "$1" ]; }
progress() { [ "$(cat /tmp/rs.count)" -gt "$1" ]; }

retry_until 60 "the first writes" progress 0
# Each size differs from the one before it, the last from the first
sizes="1024 262144 2048 131072 8192 65536 16384 32768 4096"
k=1
while [ $k -le "$N" ]; do
	size=$(echo $sizes | cut -d' ' -f$(((k - 1) % 9 + 1)))
	t=$((size < 65536 ? size : 65536))
	restart "$size"
	retry_until 120 "restart $k: the client to reconnect at $size" client_sees "$size"
	# Files finished from here on went over the new connection
	done_before=$(cat /tmp/rs.count)
	retry_until 30 "restart $k: nfsd's connection at $size" server_sees "$size"
	# The old connection goes as nfsd stops; the new one stays
	wait_conns 1 30 "restart $k"
	c=$(client_event) s=$(server_event)
	for key in server_send server_recv client_send client_recv c2s s2c send_with_inv; do
		[ -n "$(echo "$c" | tp_get $key)" ] ||
			fail_scenario "restart $k: $key: the client's event has no such field"
		[ "$(echo "$c" | tp_get $key)" = "$(echo "$s" | tp_get $key)" ] ||
			fail_scenario "restart $k: $key: client $(echo "$c" | tp_get $key), nfsd $(echo "$s" | tp_get $key)"
	done
	[ "$(echo "$c" | tp_get c2s)/$(echo "$c" | tp_get s2c)" = $t/$t ] ||
		fail_scenario "restart $k at $size: thresholds $(echo "$c" | tp_get c2s)/$(echo "$c" | tp_get s2c), expected $t/$t"
	[ "$(negotiated /mnt/rs | cut -d/ -f1-2)" = $t/$t ] ||
		fail_scenario "restart $k at $size: mountstats thresholds $(negotiated /mnt/rs), expected $t/$t"
	retry_until 120 "restart $k: writes to go on" progress $((done_before + 1))
	pass "restart $k: max_req_size $size, thresholds $t/$t on both ends, one connection, $(cat /tmp/rs.count) files verified"
	k=$((k + 1))
done

touch /tmp/rs.stop
wait $wpid
trap - EXIT
[ -s /tmp/rs.err ] && fail_scenario "$(cat /tmp/rs.err)"
say "$N restarts, $(cat /tmp/rs.count) files written and verified"
run rm -f /mnt/rs/f0 /mnt/rs/f1 /mnt/rs/f2 /mnt/rs/f3
nfs_umount /mnt/rs $((N + 1))
echo 4096 >$S/svc_rdma/max_req_size
echo 4096 >$S/rdma_max_inline_read
echo 4096 >$S/rdma_max_inline_write
# The last restart's grace period need not hold up the check below
nfsd_end_grace
still_serves "after $N restarts"
