# nfsd at both ends of the RFC 8797 range serves a mount with verified
# data, and its connections file shows the thresholds in force: the
# smaller of each sender's Send Size and each receiver's Receive Size.
C=/sys/kernel/debug/sunrpc/svc_rdma/connections
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
local_nfsd
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug

# sizes SERVER CLIENT C2S S2C
sizes() {
	local i=0 n
	run sh -c "echo $1 >$S/max_req_size"
	run sh -c "echo $2 >$R/rdma_max_inline_read"
	run sh -c "echo $2 >$R/rdma_max_inline_write"
	nfs_mount 4.1 /mnt/sz
	cat $C
	expect_eq "$1/$2: server_recv_size" "$(field server_recv_size <$C)" "$1"
	expect_eq "$1/$2: client_recv_size" "$(field client_recv_size <$C)" "$2"
	expect_eq "$1/$2: client_to_server" "$(field client_to_server <$C)" "$3"
	expect_eq "$1/$2: server_to_client" "$(field server_to_client <$C)" "$4"
	run dd if=/dev/urandom of=/tmp/sz bs=1k count=1500 2>/dev/null
	run cp /tmp/sz /mnt/sz/sz
	run mkdir /mnt/sz/d
	while [ $i -lt 100 ]; do
		: >"/mnt/sz/d/a-directory-entry-with-a-long-name-$i" || fail "create $i"
		i=$((i + 1))
	done
	echo 3 >/proc/sys/vm/drop_caches
	expect_eq "$1/$2: checksum" "$(md5sum </mnt/sz/sz)" "$(md5sum </tmp/sz)"
	n=$(ls /mnt/sz/d | wc -l)
	expect_eq "$1/$2: entries" "$n" 100
	expect_eq "$1/$2: replies_too_large" "$(field replies_too_large <$C)" 0
	run rm -r /mnt/sz/sz /mnt/sz/d
	run umount /mnt/sz
	wait_for "nfsd to drop the connection" 20 sh -c "! grep -q '^peer: ' $C"
}

sizes 1024   4096   1024   1024
sizes 262144 262144 262144 262144
sizes 4096   65536  4096   4096
run sh -c "echo 4096 >$S/max_req_size"
run sh -c "echo 4096 >$R/rdma_max_inline_read"
run sh -c "echo 4096 >$R/rdma_max_inline_write"
