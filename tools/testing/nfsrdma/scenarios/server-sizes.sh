# SPDX-License-Identifier: GPL-2.0
# nfsd's sizes, first on the wire: whatever its own max_req_size, nfsd
# never Sends a client more than that client's Receive Size (RFC 8797
# Section 4.2). rpcrdma-call plays a client that posts Receives of
# exactly its advertised size and asks for a READDIR reply of about
# 12000 octets with no Reply chunk. With max_req_size 65536, a client
# of 8 KiB must get RDMA_ERROR ERR_CHUNK, one of 16 KiB the reply
# inline; with 4096, a client of 64 KiB gets ERR_CHUNK too (the server's
# own Send Size bounds it). Stock nfsd takes these max_req_size values,
# and fails the first case: it Sends the 12000 octets inline, and the
# client's Receive completes in error.
# Then at both ends of the RFC 8797 range (ours only), nfsd serves a
# kernel mount with verified data, holds that one connection, sends no
# Reply too large for the client, and its svcrdma_cm_accept event shows
# the thresholds in force: the smaller of each sender's Send Size and
# each receiver's Receive Size.
S=/proc/sys/sunrpc/svc_rdma
T=/sys/kernel/tracing
R=/proc/sys/sunrpc
local_nfsd
fill_root 300
trap 'umount /mnt/sz 2>/dev/null' EXIT

# wire SERVER CLIENT-RECV EXPECT(inline|ERR_CHUNK)
wire() {
	local what="max_req_size $1, client Receive Size $2" ev
	run sh -c "echo $1 >$S/max_req_size"
	call_server --recv "$2" --reply-size 12000 --then-null
	ANSWER=$(answer /tmp/call.out readdir)
	ev=$(echo "$ANSWER" | jget event)
	[ "$ev" = reply ] ||
		fail_scenario "$what: nfsd Sent more than the client's Receive Size: ${ev:-nothing}${ANSWER:+ ($(echo "$ANSWER" | jget wc_status)$(echo "$ANSWER" | jget detail))}"
	expect_eq "$what: readdir: posted_size" "$(echo "$ANSWER" | jget posted_size)" "$2"
	if [ "$3" = inline ]; then
		expect_eq "$what: readdir: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_MSG
		expect_ge "$what: readdir: byte_len" "$(echo "$ANSWER" | jget byte_len)" 8193
		expect_eq "$what: readdir: nfs_status" "$(echo "$ANSWER" | jget nfs_status)" 0
	else
		expect_eq "$what: readdir: rdma_type" "$(echo "$ANSWER" | jget rdma_type)" RDMA_ERROR
		expect_eq "$what: readdir: rdma_error" "$(echo "$ANSWER" | jget rdma_error)" ERR_CHUNK
	fi
	expect_reply "$what" /tmp/call.out null
	expect_eq "$what: exit status" "$CALL_RC" 0
}

wire 65536 8192 ERR_CHUNK
wire 65536 16384 inline
wire 4096 65536 ERR_CHUNK

# rpcrdma-call's connections go a little after it quits
wait_conns 0 20 "after rpcrdma-call"
for e in svcrdma_cm_accept svcrdma_reply_too_large; do
	echo 1 >$T/events/rpcrdma/$e/enable || fail_scenario "no $e tracepoint"
done

# sizes SERVER CLIENT C2S S2C
sizes() {
	local i=0 n
	run sh -c "echo $1 >$S/max_req_size"
	run sh -c "echo $2 >$R/rdma_max_inline_read"
	run sh -c "echo $2 >$R/rdma_max_inline_write"
	echo >$T/trace
	nfs_mount 4.1 /mnt/sz
	expect_eq "$1/$2: connections nfsd holds" "$(conns_live)" 1
	expect_eq "$1/$2: connections nfsd accepted for the mount" \
		"$(grep -c 'svcrdma_cm_accept:' $T/trace)" 1
	expect_tp "$1/$2: nfsd" "$(grep -m1 'svcrdma_cm_accept:' $T/trace)" \
		server_recv="$1" client_recv="$2" c2s="$3" s2c="$4"
	run dd if=/dev/urandom of=/tmp/sz bs=1k count=1500 2>/dev/null
	run cp /tmp/sz /mnt/sz/sz
	run mkdir /mnt/sz/d
	while [ $i -lt 100 ]; do
		: >"/mnt/sz/d/a-directory-entry-with-a-long-name-$i" || fail_scenario "create $i"
		i=$((i + 1))
	done
	echo 3 >/proc/sys/vm/drop_caches
	expect_eq "$1/$2: checksum" "$(md5sum </mnt/sz/sz)" "$(md5sum </tmp/sz)"
	n=$(ls /mnt/sz/d | wc -l)
	expect_eq "$1/$2: entries" "$n" 100
	expect_eq "$1/$2: Replies too large for the client" \
		"$(grep -c 'svcrdma_reply_too_large:' $T/trace)" 0
	run rm -r /mnt/sz/sz /mnt/sz/d
	nfs_umount /mnt/sz
	wait_conns 0 20 "$1/$2: after the unmount"
}

sizes 1024   4096   1024   1024
sizes 262144 262144 262144 262144
sizes 4096   65536  4096   4096
run sh -c "echo 4096 >$S/max_req_size"
run sh -c "echo 4096 >$R/rdma_max_inline_read"
run sh -c "echo 4096 >$R/rdma_max_inline_write"
