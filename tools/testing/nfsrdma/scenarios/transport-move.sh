# SPDX-License-Identifier: GPL-2.0
# A mount moved from one RDMA device to another with fewer Receive SGEs,
# I/O in flight. Both ends ask for 256 KiB, which soft-RoCE (32 SGEs)
# holds in 8 blocks of 32 KiB. With an 8 MiB write and read going on,
# siw0 joins rxe0 on the same link and rxe0 is deleted: both ends see
# the device go, the client reconnects for the writer's next WRITE, and
# RDMA-CM now resolves the server's address to soft-iWARP, whose 6
# Receive SGEs hold 6 blocks.
# Each end must then build smaller Receive buffers (and say so), the
# new connection must negotiate 196608 both ways, and every octet
# written before, during and after the move must read back the same.
# One VM (both ends); siw.ko comes from the base's own source.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
dev=$(rdma link show | sed -n 's/.*netdev \([^ ]*\).*/\1/p' | head -n 1)
[ "$E2E_ROLE" = single ] || fail_scenario "transport-move needs one VM"
[ "$E2E_RDMA" = rxe ] || fail_scenario "transport-move starts on soft-RoCE (e2e.rdma=rxe)"
[ -f /lib/modules/e2e/siw.ko ] || fail_scenario "no siw.ko in this VM (make modules-siw)"
sysctls="$S/max_req_size $R/rdma_max_inline_read $R/rdma_max_inline_write"
restore() {
	touch /tmp/w.stop
	umount -f /mnt/move 2>/dev/null
	rdma link delete siw0 2>/dev/null
	rdma link show | grep -q '^link rxe0/' || rdma link add rxe0 type rxe netdev "$dev"
}
trap restore EXIT

local_nfsd
t=262144
for f in $sysctls; do echo $t >"$f"; done
nfs_mount 4.1 /mnt/move
neg=$(negotiated /mnt/move)
expect_eq "on rxe0: thresholds (mountstats)" "${neg%/*}" $t/$t
cc0=$(rdma_stats /mnt/move | sed 's/.*connect_count=\([0-9]*\).*/\1/')

run dd if=/dev/urandom of=/tmp/before bs=1M count=4 2>/dev/null
run dd if=/tmp/before of=/mnt/move/before bs=256k oflag=direct 2>/dev/null
run dd if=/dev/urandom of=/tmp/during bs=1M count=2 2>/dev/null
# The I/O in flight: O_DIRECT copies of 2 MiB, 256 KiB a WRITE, one
# after the other until told to stop (guest/lib.sh writer_start)
writer_start /tmp/during /mnt/move/during /tmp/w 256k
io=$writer
insmod /lib/modules/e2e/siw.ko 2>/dev/null
run rdma link add siw0 type siw netdev "$dev"
dmesg -c >/dev/null
kill -0 $io 2>/dev/null || fail_scenario "the writer ended before the move: $(cat /tmp/w.err 2>/dev/null)"
n0=$(cat /tmp/w.n)
run rdma link delete rxe0
say "rxe0 deleted with the writer at file $n0; the mount must move to siw0"
# The new connection, on siw0, made for the writer's WRITEs: both
# thresholds (mountstats) become the 196608 each end can hold there
i=0
until neg=$(negotiated /mnt/move) && [ "${neg%/*}" = 196608/196608 ]; do
	i=$((i + 1))
	[ $i -lt 120 ] || fail_scenario "the mount never reconnected over siw0: thresholds $neg, connect_count $(rdma_stats /mnt/move | sed 's/.*connect_count=//')"
	kill -0 $io 2>/dev/null || fail_scenario "the writer failed in the move: $(cat /tmp/w.err 2>/dev/null)"
	sleep 1
done
# Two more files written whole after the reconnect
n1=$(cat /tmp/w.n)
wait_for "two files written on siw0" 120 sh -c "[ \$(cat /tmp/w.n) -ge $((n1 + 2)) ] || ! kill -0 $io"
kill -0 $io 2>/dev/null || fail_scenario "the writer failed on siw0: $(cat /tmp/w.err 2>/dev/null)"
touch /tmp/w.stop
wait $io || fail_scenario "the writer failed: $(cat /tmp/w.err 2>/dev/null)"
n=$(cat /tmp/w.n)
pass "the writer kept going across the move: files 0..$n, file $n0 when rxe0 went"
bad=
j=0
while [ $j -le "$n" ]; do
	cmp -s /tmp/during /export/during.$j || bad="$bad $j"
	j=$((j + 1))
done
expect_eq "of $((n + 1)) files of 2 MiB written across the move, those that differ on the server" \
	"${bad:- none}" " none"
cc1=$(rdma_stats /mnt/move | sed 's/.*connect_count=\([0-9]*\).*/\1/')
[ "$cc1" -gt "$cc0" ] || fail_scenario "connect_count $cc0 -> $cc1: no new connection"
pass "a new connection after rxe0 went ($cc0 -> $cc1)"
neg=$(negotiated /mnt/move)
expect_eq "on siw0: thresholds (mountstats)" "${neg%/*}" 196608/196608
dmesg | grep -q 'rpcrdma: .*advertising 196608' ||
	fail_scenario "the client did not say it advertises less than $t on siw0"
dmesg | grep -q 'svcrdma: .*advertising 196608' ||
	fail_scenario "nfsd did not say it advertises less than $t on siw0"
pass "both ends said they advertise 196608 on siw0"
rdma resource show qp 2>/dev/null | grep -q 'link siw0' ||
	fail_scenario "no queue pair on siw0"

echo 3 >/proc/sys/vm/drop_caches
run dd if=/mnt/move/before of=/tmp/before.back bs=256k iflag=direct 2>/dev/null
expect_eq "4 MiB written on rxe0, read on siw0" \
	"$(md5sum </tmp/before.back)" "$(md5sum </tmp/before)"
run dd if=/tmp/before of=/mnt/move/after bs=256k oflag=direct 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
expect_eq "4 MiB written and read on siw0, on the server" \
	"$(md5sum </export/after)" "$(md5sum </tmp/before)"
run rm -f /mnt/move/before /mnt/move/during.* /mnt/move/after
nfs_umount /mnt/move $((cc0 + 1))
