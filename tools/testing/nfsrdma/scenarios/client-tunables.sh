# SPDX-License-Identifier: GPL-2.0
# The client's sysctls over the whole RFC 8797 range (1024..262144):
# values between multiples of 1024, which stock kernels took, are
# rounded down with a dmesg line saying so, rate-limited; values out of range or
# not numbers are refused and change nothing; what is set is what the
# client advertises, R included. rpcrdma.ko has no module parameters,
# so an option left in a modprobe configuration from an older build
# does not stop it from loading. Runs before anything uses rpcrdma.
require "our rpcrdma.ko (its sysctls and their range)" test "$E2E_RPCRDMA" = ours
mod=/lib/modules/e2e/rpcrdma-ours.ko
sys=/proc/sys/sunrpc

# refused FILE VALUE: a write of VALUE fails and leaves FILE as it was
refused() {
	local before
	before=$(cat "$1")
	if printf '%s\n' "$2" >"$1" 2>/dev/null; then
		fail_scenario "$1: '$2' was accepted"
	fi
	expect_eq "$1 after '$2'" "$(cat "$1")" "$before"
}

# taken FILE VALUE EXPECTED [DMESG]: VALUE reads back as EXPECTED, and
# the write leaves the dmesg line DMESG, or none at all
taken() {
	local n
	dmesg -c >/dev/null
	printf '%s\n' "$2" >"$1" || fail_scenario "$1 refused '$2'"
	expect_eq "$1 after '$2'" "$(cat "$1")" "$3"
	if [ -n "${4:-}" ]; then
		n=$(dmesg | grep -cF "$4")
		expect_eq "dmesg lines '$4'" "$n" 1
	fi
	n=$(dmesg | grep -c 'rpcrdma: ')
	expect_eq "rpcrdma dmesg lines after '$2'" "$n" "$([ -n "${4:-}" ] && echo 1 || echo 0)"
}

wait_for "rpcrdma to be unused" 30 rmmod rpcrdma
dmesg -c >/dev/null
run insmod "$mod" max_inline_read=8192
dmesg | grep -q "rpcrdma: unknown parameter 'max_inline_read' ignored" ||
	fail_scenario "insmod with an unknown option: no 'unknown parameter' line in dmesg"
[ -d /sys/module/rpcrdma/parameters ] &&
	fail_scenario "rpcrdma.ko has module parameters: $(ls /sys/module/rpcrdma/parameters)"
expect_eq "rdma_max_inline_read after the ignored option" "$(cat $sys/rdma_max_inline_read)" 4096

for f in rdma_max_inline_read rdma_max_inline_write; do
	taken $sys/$f 262144 262144
	taken $sys/$f 1024 1024
	taken $sys/$f ' 4096' 4096
	taken $sys/$f 5000 4096 "rpcrdma: $f: 5000 is not a multiple of 1024; using 4096"
	taken $sys/$f 65535 64512 "rpcrdma: $f: 65535 is not a multiple of 1024; using 64512"
	for bad in 0 512 1023 263168 4294967296 -1 -1024 4k abc; do
		refused $sys/$f "$bad"
	done
done
# A script writing in a loop cannot flood the log: the line is
# rate-limited (printk_ratelimited(): at most 10 in 5 seconds), and
# every write is still taken. The writes above may have used up the
# current 5-second window, so the loop starts in a new one.
sleep 5
dmesg -c >/dev/null
i=0
while [ $i -lt 40 ]; do
	echo 5000 >$sys/rdma_max_inline_read || fail_scenario "write $i of 5000 refused"
	i=$((i + 1))
done
expect_eq "rdma_max_inline_read after 40 writes of 5000" "$(cat $sys/rdma_max_inline_read)" 4096
n=$(dmesg | grep -c 'is not a multiple of 1024')
[ "$n" -ge 1 ] && [ "$n" -le 10 ] ||
	fail_scenario "40 writes of 5000 in a row left $n 'not a multiple' lines in dmesg (want 1 to 10)"
taken $sys/rdma_remote_invalidate 0 0
taken $sys/rdma_remote_invalidate 1 1
for bad in abc 1x; do
	refused $sys/rdma_remote_invalidate "$bad"
done

echo 262144 >$sys/rdma_max_inline_read || fail_scenario "sysctl refused 262144"
echo 65536 >$sys/rdma_max_inline_write || fail_scenario "sysctl refused 65536"
req=$(client_pdata 20052) || exit 1
expect_eq "advertised send_size" "$(echo "$req" | jget send_size)" 65536
expect_eq "advertised recv_size" "$(echo "$req" | jget recv_size)" 262144
expect_eq "advertised remote_inv" "$(echo "$req" | jget remote_inv)" true

echo 0 >$sys/rdma_remote_invalidate || fail_scenario "cannot clear rdma_remote_invalidate"
echo 3000 >$sys/rdma_max_inline_write || fail_scenario "sysctl refused 3000"
req=$(client_pdata 20053) || exit 1
expect_eq "advertised remote_inv when cleared" "$(echo "$req" | jget remote_inv)" false
expect_eq "advertised send_size after 3000" "$(echo "$req" | jget send_size)" 2048

# Back to the defaults for the scenarios that follow
wait_for "rpcrdma to be unused" 30 rmmod rpcrdma
run insmod "$mod"
expect_eq "default rdma_max_inline_read" "$(cat $sys/rdma_max_inline_read)" 4096
expect_eq "default rdma_remote_invalidate" "$(cat $sys/rdma_remote_invalidate)" 1
