# SPDX-License-Identifier: GPL-2.0
# A mount moved from one RDMA device to another with fewer Receive SGEs,
# I/O in flight. Both ends ask for 256 KiB, which soft-RoCE (32 SGEs)
# holds in 8 blocks of 32 KiB. With an 8 MiB write and read going on,
# siw0 joins rxe0 on the same link and rxe0 is deleted: both ends see
# the device go, the client reconnects, and RDMA-CM now resolves the
# server's address to soft-iWARP, whose 6 Receive SGEs hold 6 blocks.
# Each end must then build smaller Receive buffers (and say so), the
# new connection must negotiate 196608 both ways, and every octet
# written before, during and after the move must read back the same.
# One VM (both ends); siw.ko comes from the base's own source.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
dev=$(rdma link show | sed -n 's/.*netdev \([^ ]*\).*/\1/p' | head -n 1)
[ "$E2E_ROLE" = single ] || fail "transport-move needs one VM"
[ "$E2E_RDMA" = rxe ] || fail "transport-move starts on soft-RoCE (e2e.rdma=rxe)"
[ -f /lib/modules/e2e/siw.ko ] || fail "no siw.ko in this VM (make modules-siw)"
restore() {
	umount -f /mnt/move 2>/dev/null
	rdma link delete siw0 2>/dev/null
	rdma link show rxe0 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev "$dev"
	echo 4096 >$S/max_req_size
	echo 4096 >$R/rdma_max_inline_read
	echo 4096 >$R/rdma_max_inline_write
}
trap restore EXIT

local_nfsd
t=262144
echo $t >$S/max_req_size
echo $t >$R/rdma_max_inline_read
echo $t >$R/rdma_max_inline_write
nfs_mount 4.1 /mnt/move
f=$(xprt_cm_file "$E2E_PORT") || fail "no rpcrdma_cm file for the mount"
expect_eq "on rxe0: client_to_server" "$(field client_to_server <"$f")" $t
expect_eq "on rxe0: server_to_client" "$(field server_to_client <"$f")" $t
cc0=$(rdma_stats /mnt/move | sed 's/.*connect_count=\([0-9]*\).*/\1/')

run dd if=/dev/urandom of=/tmp/before bs=1M count=4 2>/dev/null
run dd if=/tmp/before of=/mnt/move/before bs=256k oflag=direct 2>/dev/null
run dd if=/dev/urandom of=/tmp/during bs=1M count=8 2>/dev/null
# The I/O in flight: O_DIRECT, 256 KiB at a time, across the move
( dd if=/tmp/during of=/mnt/move/during bs=256k oflag=direct 2>/tmp/w.err &&
  dd if=/mnt/move/during of=/tmp/during.back bs=256k iflag=direct 2>>/tmp/w.err
  echo $? >/tmp/w.rc ) &
io=$!
sleep 1
insmod /lib/modules/e2e/siw.ko 2>/dev/null
run rdma link add siw0 type siw netdev "$dev"
dmesg -c >/dev/null
run rdma link delete rxe0
say "rxe0 deleted; the mount must move to siw0"
wait $io
expect_eq "I/O across the move: dd status" "$(cat /tmp/w.rc)" 0
expect_eq "I/O across the move: 8 MiB read back" \
	"$(md5sum </tmp/during.back)" "$(md5sum </tmp/during)"

# The new connection, on siw0
i=0
until [ "$(field server_recv_size <"$f")" = 196608 ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "the mount never reconnected over siw0 ($(cat "$f" | tr '\n' ' '))"
	ls /mnt/move >/dev/null 2>&1
	sleep 1
done
cat "$f"
cc1=$(rdma_stats /mnt/move | sed 's/.*connect_count=\([0-9]*\).*/\1/')
[ "$cc1" -gt "$cc0" ] || fail "connect_count $cc0 -> $cc1: no new connection"
pass "a new connection after rxe0 went ($cc0 -> $cc1)"
expect_eq "on siw0: client_to_server" "$(field client_to_server <"$f")" 196608
expect_eq "on siw0: server_to_client" "$(field server_to_client <"$f")" 196608
dmesg | grep -q 'rpcrdma: .*advertising 196608' ||
	fail "the client did not say it advertises less than $t on siw0"
dmesg | grep -q 'svcrdma: .*advertising 196608' ||
	fail "nfsd did not say it advertises less than $t on siw0"
pass "both ends said they advertise 196608 on siw0"
rdma resource show qp 2>/dev/null | grep -q 'link siw0' ||
	fail "no queue pair on siw0"

echo 3 >/proc/sys/vm/drop_caches
run dd if=/mnt/move/before of=/tmp/before.back bs=256k iflag=direct 2>/dev/null
expect_eq "4 MiB written on rxe0, read on siw0" \
	"$(md5sum </tmp/before.back)" "$(md5sum </tmp/before)"
run dd if=/tmp/before of=/mnt/move/after bs=256k oflag=direct 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
expect_eq "4 MiB written and read on siw0, on the server" \
	"$(md5sum </export/after)" "$(md5sum </tmp/before)"
run rm /mnt/move/before /mnt/move/during /mnt/move/after
run umount /mnt/move
