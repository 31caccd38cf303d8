# Send With Invalidate only when both ends set R (RFC 8797 Section 4.1),
# seen from both ends: the client's rpcrdma_cm file counts remotely
# invalidated replies, nfsd's connections file counts Sends by kind.
# After each unmount, the connection leaves nfsd's file.
C=/sys/kernel/debug/sunrpc/svc_rdma/connections
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
local_nfsd
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
[ -r $C ] || fail "no $C"

# swi NAME SERVER-SWITCH CLIENT-R EXPECT(yes|no)
swi() {
	local f inv plain rinv
	run sh -c "echo $2 >$S/remote_invalidate"
	run sh -c "echo $3 >$R/rdma_remote_invalidate"
	nfs_mount 4.1 /mnt/swi
	# O_DIRECT reads and writes of 64 KiB use chunks, whose R_keys
	# a server may invalidate
	run dd if=/dev/urandom of=/tmp/swi bs=64k count=16 2>/dev/null
	run dd if=/tmp/swi of=/mnt/swi/swi bs=64k oflag=direct 2>/dev/null
	run dd if=/mnt/swi/swi of=/tmp/swi.back bs=64k iflag=direct 2>/dev/null
	expect_eq "$1: checksum" "$(md5sum </tmp/swi.back)" "$(md5sum </tmp/swi)"
	f=$(xprt_cm_file "$E2E_PORT") || fail "$1: no rpcrdma_cm file"
	cat "$f"
	cat $C
	expect_eq "$1: connections listed" "$(grep -c '^peer: ' $C)" 1
	expect_eq "$1: server R" "$(field server_remote_invalidate <$C)" \
		"$([ "$2" = 1 ] && echo yes || echo no)"
	expect_eq "$1: client R seen by nfsd" "$(field client_remote_invalidate <$C)" \
		"$([ "$3" = 1 ] && echo yes || echo no)"
	expect_eq "$1: nfsd send_with_invalidate" "$(field send_with_invalidate <$C)" "$4"
	expect_eq "$1: client send_with_invalidate" "$(field send_with_invalidate <"$f")" "$4"
	inv=$(field sends_with_invalidate <$C)
	plain=$(field sends_plain <$C)
	rinv=$(field remotely_invalidated_replies <"$f")
	expect_ge "$1: plain Sends" "$plain" 1
	expect_eq "$1: Sends With Invalidate = replies the client saw invalidated" "$inv" "$rinv"
	if [ "$4" = yes ]; then
		expect_ge "$1: Sends With Invalidate" "$inv" 1
	else
		expect_eq "$1: Sends With Invalidate" "$inv" 0
	fi
	expect_eq "$1: replies_too_large" "$(field replies_too_large <$C)" 0
	run rm /mnt/swi/swi
	run umount /mnt/swi
	wait_for "nfsd to drop the connection from $C" 20 sh -c "! grep -q '^peer: ' $C"
}

swi both-R        1 1 yes
swi server-off    0 1 no
swi client-no-R   1 0 no
run sh -c "echo 1 >$S/remote_invalidate"
run sh -c "echo 1 >$R/rdma_remote_invalidate"
