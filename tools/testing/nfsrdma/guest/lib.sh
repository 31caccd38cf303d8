# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest init and the scenarios (busybox sh).
#
# A scenario reports each check as a KTAP test case, nested in the
# scenario's own result line (guest/init prints that one): pass WHAT,
# expect_eq and expect_ge. It ends in error with fail_scenario; the first
# failure's reason is what the host prints.

# KTAP goes out through ktap.sh only (tools/testing/ktap.sh)
. /e2e/ktap.sh

E2E_SERVER=192.0.2.1
E2E_PORT=20049
# mountd on a fixed port: NFSv3 mounts name it, and never ask rpcbind,
# whose remote answers in these VMs are "authentication error"
E2E_MOUNTD_PORT=20048
REASON_FILE=/tmp/e2e-reason
# How many checks the running scenario has reported (it runs in a
# subshell; guest/init prints the plan from this after it)
CHECKS_FILE=/tmp/e2e-checks

say() { echo "E2E: $*"; }

# check_line RESULT WHAT [REASON]: one KTAP test case nested in the
# scenario's result (guest/init prints that one): "  ok N WHAT" or
# "  not ok N WHAT # REASON". The scenario runs in a subshell of its own,
# so the count lives in CHECKS_FILE, for init's plan.
check_line() {
	KTAP_INDENT="  " KTAP_HEADER=1
	KTAP_N=$(cat "$CHECKS_FILE" 2>/dev/null || echo 0)
	if [ "$1" = ok ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2" "$3"
	fi
	echo "$KTAP_N" >"$CHECKS_FILE"
}

# pass WHAT: a check that passed, where the scenario decided so itself
pass() { check_line ok "$1"; }

# skip WHY: end the scenario here, skipped: this run lacks something it
# needs (a module, a role, a tool). guest/init reports it as KTAP's
# "ok N NAME # SKIP WHY"; checks made before it stay as they were.
SKIP_FILE=/tmp/e2e-skip
skip() {
	echo "$*" >"$SKIP_FILE"
	echo "E2E-SKIP: $*"
	exit 0
}

# require WHAT CMD...: skip the scenario unless CMD succeeds
require() {
	local what=$1
	shift
	"$@" >/dev/null 2>&1 || skip "needs $what"
}

# fail_scenario REASON: end the scenario (it runs in a subshell), failed,
# with REASON
fail_scenario() {
	[ -s "$REASON_FILE" ] || echo "$*" >"$REASON_FILE"
	echo "E2E-FAIL: $*"
	exit 1
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
	if [ "$2" = "$3" ]; then
		check_line ok "$1 = $3"
	else
		check_line "not ok" "$1" "expected $3, got ${2:-nothing}"
		fail_scenario "$1: expected $3, got ${2:-nothing}"
	fi
}

# expect_ge WHAT ACTUAL MIN
expect_ge() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then
		check_line ok "$1 = $2 (>= $3)"
	else
		check_line "not ok" "$1" "expected at least $3, got ${2:-nothing}"
		fail_scenario "$1: expected at least $3, got ${2:-nothing}"
	fi
}

# wait_for WHAT SECONDS CMD...: retry CMD once a second until it succeeds
wait_for() {
	local what=$1 n=$2 i=0
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt "$n" ] || fail_scenario "timed out waiting for $what"
		sleep 1
	done
}

# run CMD...: show and run a command; fail the scenario if it fails
run() {
	echo "+ $*"
	"$@" || fail_scenario "'$*' failed with status $?"
}

# jget KEY < JSON: the value of "KEY" in one line of rpcrdma-cm's JSON,
# whose keys are unique within an event (nested ones included)
jget() {
	sed -n "s/.*\"$1\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" | head -n 1 | tr -d '"'
}

# ctl REQUEST: the answer of the server VM of a two-host run, through
# its control channel (guest/ctl.cgi; three tries). Called in $(...),
# where fail_scenario cannot end the scenario, so callers check for an answer.
E2E_CTL=http://$E2E_SERVER:8080/cgi-bin/ctl
ctl() {
	local url="$E2E_CTL?$1"
	wget -q -O - "$url" 2>/dev/null || { sleep 1 && wget -q -O - "$url" 2>/dev/null; } ||
		{ sleep 2 && wget -q -O - "$url" 2>/dev/null; }
}

is_mounted() { grep -q " $1 " /proc/mounts; }

nfsd_running() { [ "$(cat /proc/fs/nfsd/threads 2>/dev/null)" -gt 0 ] 2>/dev/null; }

# nfsd_up: nfsd's RDMA listener, then its threads (7.3 starts no
# threads without a listener; 6.12 may keep the listener across a stop)
nfsd_up() {
	grep -qx "rdma $E2E_PORT" /proc/fs/nfsd/portlist 2>/dev/null ||
		echo "rdma $E2E_PORT" >/proc/fs/nfsd/portlist || fail_scenario "nfsd: cannot listen on rdma $E2E_PORT"
	echo 4 >/proc/fs/nfsd/threads || fail_scenario "nfsd: cannot start threads"
}

# nfsd_end_grace: end nfsd's grace period now, and see that it ended.
# 7.3 may begin the grace period after its threads start, so a single
# early write can come before it and change nothing; write until the
# file reads Y (10 s at most: the grace time the VMs use).
nfsd_end_grace() {
	local i=0
	until [ "$(cat /proc/fs/nfsd/v4_end_grace 2>/dev/null)" = Y ]; do
		echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null
		i=$((i + 1))
		[ $i -lt 40 ] || { say "nfsd's grace period did not end when asked"; return 0; }
		sleep 0.25
	done
}

# nfsd_restart [CMD...]: stop nfsd, which closes every connection, run
# CMD (to change a setting or the module), and start it again. The
# caller decides whether to wait out the grace period.
nfsd_restart() {
	echo 0 >/proc/fs/nfsd/threads || fail_scenario "nfsd: cannot stop"
	[ $# = 0 ] || "$@"
	nfsd_up
}

# nfsd_start: export a tmpfs over RDMA, NFSv3 and NFSv4; idempotent
nfsd_start() {
	nfsd_running && return 0
	mkdir -p /export /run/rpcbind
	is_mounted /export || run mount -t tmpfs -o size=256m tmpfs /export
	is_mounted /proc/fs/nfsd || run mount -t nfsd nfsd /proc/fs/nfsd
	is_mounted /var/lib/nfs/rpc_pipefs ||
		mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs
	echo "/export 192.0.2.0/24(rw,fsid=0,no_subtree_check,no_root_squash,insecure,sync)" >/etc/exports
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab
	run exportfs -ra
	# rpcbind first, for NFSv3; mountd answers nfsd's export upcalls
	chown _rpc /run/rpcbind
	pidof rpcbind >/dev/null || run rpcbind -w
	wait_for "rpcbind to answer" 10 rpcinfo -p
	pidof rpc.mountd >/dev/null ||
		rpc.mountd -N 2 -F -p "$E2E_MOUNTD_PORT" >/tmp/mountd.log 2>&1 &
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo "+3 +4.1" >/proc/fs/nfsd/versions || fail_scenario "nfsd versions"
	conns_record || say "no record of nfsd's connections (sunrpc:svc_xprt_accept, svc_xprt_free)"
	nfsd_up
	# Skip the grace period, or every OPEN waits it out
	nfsd_end_grace
	say "nfsd serving /export over rdma port $E2E_PORT"
}

# nfs_mount VERS MOUNTPOINT [EXTRA-OPTIONS]
nfs_mount() {
	local vers=$1 mnt=$2 extra=${3:+,$3} src=$E2E_SERVER:/
	mkdir -p "$mnt"
	[ "$vers" = 3 ] && src=$E2E_SERVER:/export &&
		extra=",nolock,mountproto=tcp,mountport=$E2E_MOUNTD_PORT$extra"
	run mount.nfs "$src" "$mnt" -o "proto=rdma,port=$E2E_PORT,vers=$vers$extra"
}

# The xprt: rdma line of a mount in /proc/self/mountstats, as "key=value"
# words for the counters we report (order: transport.c xprt_rdma_print_stats:
# $5 connect_count, $13-$15 chunks, $18 pullup_copy, $26 mrs_allocated,
# $27 local_inv_needed)
rdma_stats() {
	awk -v mnt="$1" '
		/^device / { p = ($0 ~ (" mounted on " mnt " ")) }
		p && $1 == "xprt:" && $2 == "rdma" {
			printf "read_chunks=%s write_chunks=%s reply_chunks=%s ", $13, $14, $15
			printf "pullup_copy=%s local_inv_needed=%s connect_count=%s\n", $18, $27 + 0, $5
		}' /proc/self/mountstats
}

# nfs_umount MOUNTPOINT [CONNECTS]: unmount, after checking that each
# RDMA transport of the mount has connected CONNECTS times (mountstats
# connect_count; 1 if not given). A scenario that breaks connections on
# purpose says how many it makes; any other reconnect fails it: a lost
# connection nobody asked for is a bug (on iWARP, a Receive posted late
# kills the connection), never a flake.
# reconnect_report MOUNTPOINT: what a mount that reconnected shows
# without tracing: its transport line, the operations that were sent
# more than once or timed out (mountstats: OP: ops trans timeouts ...),
# and the kernel's last words
reconnect_report() {
	awk -v mnt="$1" '
		/^device / { p = ($0 ~ (" mounted on " mnt " ")) }
		p && $1 == "xprt:" { print "E2E: reconnect: " $0 }
		p && NF >= 9 && $1 ~ /:$/ && ($3 > $2 || $4 > 0) {
			print "E2E: reconnect: retransmitted or timed out: " $0
		}' /proc/self/mountstats
	dmesg | tail -n 15 | sed 's/^/E2E: reconnect: dmesg: /'
}

nfs_umount() {
	local mnt=$1 want=${2:-1} got
	if grep " $mnt " /proc/mounts | grep -q "proto=rdma"; then
		got=$(rdma_stats "$mnt" | sed -n 's/.*connect_count=\([0-9]*\).*/\1/p' |
			sort -u | tr '\n' ' ')
		[ "${got% }" = "$want" ] || reconnect_report "$mnt"
		expect_eq "$mnt: connections made (connect_count)" "${got% }" "$want"
	fi
	run umount "$mnt"
}

# workload MOUNTPOINT: data, a big directory, creates and unlinks
workload() {
	local mnt=$1 i n a b
	run dd if=/dev/urandom of=/tmp/src bs=1M count=8 2>/dev/null
	run dd if=/tmp/src of="$mnt/file8m" bs=1M conv=fsync 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	run dd if="$mnt/file8m" of=/tmp/back bs=1M 2>/dev/null
	a=$(md5sum </tmp/src)
	b=$(md5sum </tmp/back)
	expect_eq "8 MiB write/read checksum" "$b" "$a"
	run mkdir "$mnt/dir"
	i=0
	while [ $i -lt 500 ]; do
		: >"$mnt/dir/entry-with-a-longish-name-$i" || fail_scenario "create $i"
		i=$((i + 1))
	done
	echo 3 >/proc/sys/vm/drop_caches
	n=$(ls "$mnt/dir" | grep -c entry-with)
	expect_eq "entries listed after 500 creates" "$n" 500
	i=0
	while [ $i -lt 500 ]; do
		rm "$mnt/dir/entry-with-a-longish-name-$i" || fail_scenario "unlink $i"
		i=$((i + 1))
	done
	n=$(ls "$mnt/dir" | wc -l)
	expect_eq "entries left after 500 unlinks" "$n" 0
	run rmdir "$mnt/dir"
	run rm "$mnt/file8m"
}

# still_serves WHAT: nfsd takes a mount and 2 MiB of data that reads
# back the same after the page cache is dropped
still_serves() {
	nfs_mount 4.1 /mnt/check
	run dd if=/dev/urandom of=/tmp/check bs=64k count=32 2>/dev/null
	run cp /tmp/check /mnt/check/check
	echo 3 >/proc/sys/vm/drop_caches
	expect_eq "checksum $1" "$(md5sum </mnt/check/check)" "$(md5sum </tmp/check)"
	run rm /mnt/check/check
	nfs_umount /mnt/check
}

# mem_now: after syncing and dropping the caches, "MemFree,Slab,VmallocUsed"
# of /proc/meminfo and the free pages that wait in per-CPU lists (which
# MemFree leaves out), all in KiB: the bench's memory readings
mem_now() {
	local pcp
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '$1 == "MemFree:" { f = $2 } $1 == "Slab:" { s = $2 }
	     $1 == "VmallocUsed:" { v = $2 } END { print f "," s "," v "," pcp }' /proc/meminfo
}

# rnr_naks: RNR NAKs every RDMA device has sent and received so far
# (hw_counters; soft-iWARP has none and counts 0)
rnr_naks() {
	cat /sys/class/infiniband/*/ports/*/hw_counters/rcvd_rnr_err \
	    /sys/class/infiniband/*/ports/*/hw_counters/send_rnr_err 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# kernel_srqs: the shared receive queues of every RDMA device, from the
# devices' resource summary (no user space here makes any: they are
# nfsd's pools, one live pool per device, and any it left behind)
kernel_srqs() {
	rdma resource show 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "srq") n += $(i + 1) } END { print n + 0 }'
}

# rnr_counted: the RDMA devices count RNR NAKs (soft-RoCE does;
# soft-iWARP has none: there a Send that finds no Receive ends the
# connection)
rnr_counted() {
	ls /sys/class/infiniband/*/ports/*/hw_counters/send_rnr_err >/dev/null 2>&1
}

# expect_fio_ok WHAT RC FILE: fio ended with RC 0 and its output FILE
# names no verify failure or error
expect_fio_ok() {
	expect_eq "$1" "$2 $(grep -m1 -iE 'verify|error|bad' "$3")" "0 "
}

# writer_start SRC DEST STATE BS: copy SRC to DEST.0, DEST.1, ... with
# O_DIRECT WRITEs of BS octets, one file after the other, until the
# file STATE.stop exists; each file's number goes to STATE.n once it is
# written whole, the first failure to STATE.err. The loop's pid is in
# $writer; returns once its first file is written (or it failed)
writer_start() {
	rm -f "$3.stop" "$3.err" "$3.n"
	(
		i=0
		while [ ! -e "$3.stop" ]; do
			dd if="$1" of="$2.$i" bs="$4" oflag=direct 2>"$3.dd" ||
				{ cp "$3.dd" "$3.err"; exit 1; }
			echo $i >"$3.n"
			i=$((i + 1))
		done
	) &
	writer=$!
	wait_for "the writer's first file" 300 sh -c "test -s $3.n || ! kill -0 $writer"
	kill -0 $writer 2>/dev/null || test -s "$3.n" ||
		fail_scenario "the writer failed at its first file: $(cat "$3.err" 2>/dev/null)"
}

# bounded SECONDS WHAT CMD...: run CMD, and fail the scenario if it has
# not finished within SECONDS (a command that waits in the kernel for
# something that never comes, such as a device removal waiting for a
# consumer, would otherwise hold the scenario until its timeout)
bounded() {
	local n=$1 what=$2 pid rc=0 i=0
	shift 2
	say "$what: $*"
	"$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1))
		[ $i -le "$n" ] || { kill $pid 2>/dev/null; fail_scenario "$what did not finish within $n s"; }
		sleep 1
	done
	wait $pid || rc=$?
	[ $rc = 0 ] || fail_scenario "$what failed ($rc)"
}

# rc_qps: how many RC queue pairs the kernel holds (one per connection)
rc_qps() {
	rdma resource show qp 2>/dev/null | grep -c ' type RC '
}

# The NFS server for this scenario: the other VM in a two-host run,
# or nfsd in this VM
local_nfsd() {
	[ "$E2E_ROLE" = client ] || nfsd_start
}

# listening FILE PID: wait until the rpcrdma-cm listen PID, whose --json
# output goes to FILE, says it listens. A guard of 60 s on the clock
# bounds a listen that hangs; a fixed sleep before connecting would
# instead fail whenever the guest runs slow.
listening() {
	local end=$(($(cut -d. -f1 /proc/uptime) + 60))
	until grep -q '"event": "listening"' "$1" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null ||
			fail_scenario "rpcrdma-cm listen ended before listening: $(tr '\n' ' ' <"$1")"
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] ||
			fail_scenario "rpcrdma-cm listen did not listen within 60 s"
		sleep 0.1
	done
}

# client_pdata PORT [LISTEN-OPTIONS...]: point the kernel NFS client at
# rpcrdma-cm listen on PORT and print the connect-request event (JSON)
# that shows the client's Private Data. listen answers no RPC, so the
# mount cannot succeed; it only has to try. The whole listen output is
# left in /tmp/listen.out.
client_pdata() {
	local port=$1 lpid mpid
	shift
	rpcrdma-cm --json listen "$port" --count 1 --hold 1 --timeout 120 "$@" \
		>/tmp/listen.out &
	lpid=$!
	listening /tmp/listen.out $lpid
	mkdir -p /mnt/listen
	mount.nfs "$E2E_SERVER:/" /mnt/listen \
		-o "proto=rdma,port=$port,vers=4.1,soft,timeo=10,retrans=1" >/dev/null 2>&1 &
	mpid=$!
	wait $lpid || fail_scenario "rpcrdma-cm listen exited with status $?"
	kill -9 $mpid 2>/dev/null
	grep '"connect-request"' /tmp/listen.out | head -n 1 | grep . ||
		fail_scenario "rpcrdma-cm listen saw no connect request from the kernel client"
}

# serve_mount PORT MOUNT-OPTIONS SERVE-OPTIONS...: rpcrdma-serve --json on
# PORT with SERVE-OPTIONS (its events in /tmp/serve.out), and the kernel
# NFS client mounting it (vers=4.1 and MOUNT-OPTIONS). rpcrdma-serve
# answers no Call with what a mount needs, so the mount fails; its exit
# status is left in MOUNT_STATUS. Once it has failed, rpcrdma-serve is
# stopped when every connection it accepted has closed (the client
# tears the last one down with the failed mount's transport), or after
# 30 s.
serve_mount() {
	local port=$1 mopts=$2 spid i=0 up down
	shift 2
	echo "+ rpcrdma-serve --json $port $*"
	rpcrdma-serve --json "$port" "$@" >/tmp/serve.out 2>/tmp/serve.err &
	spid=$!
	listening /tmp/serve.out $spid
	mkdir -p /mnt/serve
	echo "+ mount.nfs $E2E_SERVER:/ /mnt/serve -o proto=rdma,port=$port,vers=4.1,$mopts"
	mount.nfs "$E2E_SERVER:/" /mnt/serve -o "proto=rdma,port=$port,vers=4.1,$mopts" \
		>/tmp/serve-mount.out 2>&1
	MOUNT_STATUS=$?
	echo "mount.nfs: status $MOUNT_STATUS: $(cat /tmp/serve-mount.out)"
	! is_mounted /mnt/serve || umount -f /mnt/serve
	while kill -0 $spid 2>/dev/null; do
		up=$(grep -c '"event": "established"' /tmp/serve.out)
		down=$(grep -c '"event": "closed"' /tmp/serve.out)
		[ "$up" != "$down" ] && [ $i -lt 120 ] || break
		i=$((i + 1))
		sleep 0.25
	done
	kill -TERM $spid 2>/dev/null
	wait $spid || fail_scenario "rpcrdma-serve exited with status $?: $(cat /tmp/serve.err)"
}

# bad_kernel_lines: how many lines of dmesg say the kernel found a bug
bad_kernel_lines() {
	dmesg | grep -cE 'WARNING:|BUG[: ]|Oops|KASAN|UBSAN|general protection|list_(add|del) corruption|refcount_t: |double free'
}

# mount_traced MOUNTPOINT [VERS]: nfs_mount VERS (default 4.1) with the
# xprtrdma_inline_thresh tracepoint on; the first event it recorded (the
# mount's negotiation) in $THRESH_EVENT
mount_traced() {
	local t=/sys/kernel/tracing
	echo 1 >$t/events/rpcrdma/xprtrdma_inline_thresh/enable ||
		fail_scenario "no xprtrdma_inline_thresh tracepoint"
	echo >$t/trace
	nfs_mount "${2:-4.1}" "$1"
	THRESH_EVENT=$(grep -m1 xprtrdma_inline_thresh $t/trace)
	echo "$THRESH_EVENT"
}

# tp_get KEY < EVENT: one value of an rpcrdma:xprtrdma_inline_thresh
# or rpcrdma:svcrdma_cm_accept event line, named by its section and
# field: neg_send, neg_recv, calc_send, calc_recv; client_send,
# client_recv, client_remote_inv; server_status, server_offset,
# server_version, server_send, server_recv, server_remote_inv (and
# client_status, client_offset, client_version on nfsd's event); c2s,
# s2c, send_with_inv, recv_wanted; addr. Nothing when the line has no
# such field (stock's event carries neg and calc only).
tp_get() {
	sed -e 's/ neg send\/recv=\([0-9]*\)\/\([0-9]*\)/ neg_send=\1 neg_recv=\2/' \
	    -e 's/ calc send\/recv=\([0-9]*\)\/\([0-9]*\)/ calc_send=\1 calc_recv=\2/' \
	    -e 's/ c2s\/s2c=\([0-9]*\)\/\([0-9]*\)/ c2s=\1 s2c=\2/' \
	    -e 's/ \([a-z][a-z]*\) status=\([^ ]*\) offset=\([-0-9]*\) version=\([0-9]*\) send\/recv=\([0-9]*\)\/\([0-9]*\) remote_inv=\([0-9]*\)/ \1_status=\2 \1_offset=\3 \1_version=\4 \1_send=\5 \1_recv=\6 \1_remote_inv=\7/' \
	    -e 's/ \([a-z][a-z]*\) send\/recv=\([0-9]*\)\/\([0-9]*\) remote_inv=\([0-9]*\)/ \1_send=\2 \1_recv=\3 \1_remote_inv=\4/' |
		sed -n "s/.* $1=\([^ ,]*\).*/\1/p" | head -n 1
}

# expect_tp WHAT EVENT KEY=VALUE...: expect_eq on each named value of
# an event line (tp_get's names); the line itself is printed first
expect_tp() {
	local what=$1 ev=$2 kv got
	shift 2
	echo "$ev"
	[ -n "$ev" ] || fail_scenario "$what: no event"
	for kv in "$@"; do
		# A field the line lacks is a failure, even against an empty
		# expectation
		got=$(echo "$ev" | tp_get "${kv%%=*}")
		expect_eq "$what: ${kv%%=*}" "${got:-<no such field>}" "${kv#*=}"
	done
}

# negotiated MOUNTPOINT: "C2S/S2C/SWI", the last three words of the
# mount's "xprt: rdma" line in /proc/self/mountstats (the 29 stock
# words, then client_to_server, server_to_client and send_with_inv,
# 0 or 1), or what is there instead when the line does not have 32
negotiated() {
	awk -v mnt="$1" '
		/^device / { p = ($0 ~ (" mounted on " mnt " ")) }
		p && $1 == "xprt:" && $2 == "rdma" {
			if (NF == 32) print $30 "/" $31 "/" $32
			else print "an xprt: rdma line of " NF " words"
			f = 1; exit
		}
		END { if (!f) print "no xprt: rdma line for " mnt }' /proc/self/mountstats
}

# nfsd's connections, from the upstream tracepoints sunrpc:svc_xprt_accept
# (one per connection nfsd accepts) and sunrpc:svc_xprt_free (one per
# transport freed: a connection's has the TEMP flag, a listener's or a
# failed accept's does not) on E2E_PORT. nfsd_start records them from
# before nfsd listens, in a trace instance of their own that no scenario
# clears; it holds only sunrpc events, so unloading rpcrdma.ko or any
# other module does not reset it. Stock kernels have both events.
CONNS=/sys/kernel/tracing/instances/e2e-nfsd-conns
conns_record() {
	[ -d $CONNS ] && return 0
	mkdir $CONNS && echo 4096 >$CONNS/buffer_size_kb &&
		echo 1 >$CONNS/events/sunrpc/svc_xprt_accept/enable &&
		echo 1 >$CONNS/events/sunrpc/svc_xprt_free/enable
}

# conns_accepted, conns_freed: connections nfsd accepted on E2E_PORT
# since it started, and of those, how many it has freed
conns_accepted() {
	grep -c "svc_xprt_accept: server=[^ ]*:$E2E_PORT .* protocol=rdma " $CONNS/trace
}
conns_freed() {
	grep -cE "svc_xprt_free: server=[^ ]*:$E2E_PORT .*flags=([A-Z_]+[|])*TEMP([| ]|\$)" $CONNS/trace
}

# conns_live: how many connections nfsd holds (accepted and not freed
# yet); a sentence instead when the record cannot tell
conns_live() {
	local lost
	[ "$(cat $CONNS/events/sunrpc/svc_xprt_accept/enable 2>/dev/null)" = 1 ] &&
		[ "$(cat $CONNS/events/sunrpc/svc_xprt_free/enable)" = 1 ] ||
		{ echo "unknown: nfsd_start made no record of connections"; return 1; }
	lost=$(cat $CONNS/per_cpu/cpu*/stats | awk '
		$1 == "overrun:" || ($1 == "commit" && $2 == "overrun:") { n += $NF }
		$1 == "dropped" && $2 == "events:" { n += $NF }
		END { print n + 0 }')
	[ "$lost" = 0 ] || { echo "unknown: $lost events of the record were overwritten or dropped"; return 1; }
	# Accepts and frees counted in one read of the record, so that a
	# connection that comes and goes meanwhile is counted both ways
	awk -v port="$E2E_PORT" '
		/svc_xprt_accept: / && $0 ~ "server=[^ ]*:" port " " && / protocol=rdma / { a++ }
		/svc_xprt_free: / && $0 ~ "server=[^ ]*:" port " " &&
			$0 ~ /flags=([A-Z_]+[|])*TEMP([| ]|$)/ { f++ }
		END { print a - f }' $CONNS/trace
}

# wait_conns N SECONDS WHAT: wait until nfsd holds N connections
wait_conns() {
	local i=0 now
	until now=$(conns_live) && [ "$now" = "$1" ]; do
		case "$now" in unknown*) fail_scenario "$3: $now" ;; esac
		i=$((i + 1))
		[ $i -lt "$2" ] || fail_scenario "$3: nfsd holds $now connections after $2 s, expected $1"
		sleep 1
	done
}

# fragment [ORDER]: load the test-only nfsrdma_fragment.ko, which leaves
# no free block of ORDER (default 4) or more while it is loaded, and
# print its line saying what it holds
fragment() {
	insmod /lib/modules/e2e/nfsrdma_fragment.ko ${1:+order=$1} || return
	dmesg | grep nfsrdma_fragment: | tail -n 1
}

# fill_root N: N entries of 64 octets in nfsd's export root, where
# rpcrdma-call's PUTROOTFH lands (fsid=0), for a READDIR reply of up
# to N * 64 octets; through a mount in a two-host client
fill_root() {
	local dir=/export i=0
	if [ "$E2E_ROLE" = client ]; then
		nfs_mount 4.1 /mnt/fill
		dir=/mnt/fill
	fi
	while [ $i -lt "$1" ]; do
		: >"$dir/$(printf 'file-with-a-name-of-forty-characters-%03d' $i)" ||
			fail_scenario "creating entry $i in $dir"
		i=$((i + 1))
	done
	[ "$dir" = /export ] || run umount /mnt/fill
}

# call_server OPTIONS...: rpcrdma-call --json; output in /tmp/call.out,
# exit status in $CALL_RC
call_server() {
	echo "+ rpcrdma-call --json $E2E_SERVER $*"
	rpcrdma-call --json "$E2E_SERVER" "$@" >/tmp/call.out 2>/tmp/call.err
	CALL_RC=$?
	cat /tmp/call.out /tmp/call.err
}

# first_reply WHAT: the reply to the first Call of /tmp/call.out (by
# its XID: a timeout names no call, and a --then-null reply must not
# stand in), left in ANSWER, with well_formed checked; the scenario
# fails when that Call got no reply
first_reply() {
	local xid
	xid=$(grep '"event": "sent"' /tmp/call.out | head -n 1 | jget xid)
	ANSWER=$(grep "\"xid\": \"$xid\"" /tmp/call.out | grep -v '"event": "sent"' | head -n 1)
	[ -n "$xid" ] && [ "$(echo "$ANSWER" | jget event)" = reply ] ||
		fail_scenario "$1: expected a reply, got ${ANSWER:+$(echo "$ANSWER" | jget event)}$(grep -m1 '"event": "error"' /tmp/call.out | jget detail)"
	expect_eq "$1: well_formed" "$(echo "$ANSWER" | jget well_formed)" true
}

# kernel_warnings: how many WARNINGs the kernel has logged so far
kernel_warnings() { dmesg | grep -c 'WARNING:'; }

# call_kept WHAT OPTIONS...: rpcrdma-call sends a NULL with OPTIONS (R
# clear), then a second NULL on the same connection. The first Call's
# answer, found by its XID, is left in ANSWER (first_reply); the kernel
# must log no WARNING meanwhile, the second NULL must be answered (the
# connection stayed) and rpcrdma-call must exit 0
call_kept() {
	local what=$1 w0 w
	shift
	w0=$(kernel_warnings)
	call_server --proc null --no-remote-invalidate --then-null "$@"
	w=$(kernel_warnings)
	[ "$w" = "$w0" ] ||
		fail_scenario "$what: nfsd WARNed ($((w - w0))): $(dmesg | grep 'WARNING:' | tail -n 1 |
			sed 's/^\[[^]]*\] *//')"
	check_line ok "$what: no WARNING in the kernel log"
	first_reply "$what"
	expect_eq "$what: the answer's XID is the Call's" "$(echo "$ANSWER" | jget xid_match)" true
	expect_eq "$what: then-null replies" \
		"$(grep '"call": "null"' /tmp/call.out | grep -c '"event": "reply"')" 2
	expect_eq "$what: exit status" "$CALL_RC" 0
}

# expect_file_data WHAT FILE COPY: FILE (on the server) holds exactly
# the octets of COPY (what rpcrdma-call --write-copy saved)
expect_file_data() {
	expect_eq "$1: file size on the server" "$(wc -c <"$2")" "$(wc -c <"$3")"
	if cmp -s "$2" "$3"; then
		check_line ok "$1: the file on the server holds the data sent"
	else
		check_line "not ok" "$1: the file on the server holds the data sent" \
			"first difference: $(cmp "$2" "$3" 2>&1 | head -n 1)"
		fail_scenario "$1: the file on the server differs from the data sent: $(cmp "$2" "$3" 2>&1 | head -n 1); it starts $(od -An -tx1 -N16 "$2" | tr -s ' '), the data $(od -An -tx1 -N16 "$3" | tr -s ' ')"
	fi
}

# answer FILE CALL: the event (a JSON line) that answered CALL
answer() { grep "\"call\": \"$2\"" "$1" | grep -v '"event": "sent"' | head -n 1; }

# expect_reply WHAT FILE CALL: CALL got a well-formed reply, left in
# $ANSWER; else fail_scenario with what came instead (a Receive error when the
# server Sent more than the Receive buffers hold)
expect_reply() {
	local ev
	ANSWER=$(answer "$2" "$3")
	ev=$(echo "$ANSWER" | jget event)
	[ "$ev" = reply ] ||
		fail_scenario "$1: $3: expected a reply, got ${ev:-nothing}${ANSWER:+ ($(echo "$ANSWER" | jget wc_status)$(echo "$ANSWER" | jget detail))}"
	expect_eq "$1: $3: well_formed" "$(echo "$ANSWER" | jget well_formed)" true
}

# The state a scenario may change, which the runner takes before each
# scenario and puts back after it, pass or fail (guest/init; on a
# two-host run's server VM, ctl.cgi's "restore"): the value of every
# file under /proc/sys/sunrpc and the trace events enabled at the top
# level of tracefs (instances such as nfsd's connection record are
# their own). Scenarios need not restore either themselves.
STATE_DIR=/tmp/e2e-state
TRACEFS=/sys/kernel/tracing
state_save() {
	local f
	rm -rf $STATE_DIR
	mkdir -p $STATE_DIR/sysctl
	for f in $(find /proc/sys/sunrpc -type f 2>/dev/null); do
		# not settings: counters that a write resets, and a list
		case $f in */rdma_stat_*|*/transports) continue ;; esac
		cat "$f" >"$STATE_DIR/sysctl/$(echo "${f#/proc/sys/}" | tr / .)" 2>/dev/null
	done
	cat $TRACEFS/set_event >$STATE_DIR/events 2>/dev/null
	cat $TRACEFS/tracing_on >$STATE_DIR/tracing_on 2>/dev/null
}

# state_restore: put back what state_save saw, saying what differed
# (a sysctl gone with its module stays gone)
state_restore() {
	local f p e
	[ -d $STATE_DIR/sysctl ] || return 0
	for f in $STATE_DIR/sysctl/*; do
		p=/proc/sys/$(basename "$f" | tr . /)
		[ -f "$p" ] && ! cmp -s "$f" "$p" || continue
		say "restoring sysctl ${p#/proc/sys/} to $(cat "$f") (was $(cat "$p"))"
		cat "$f" >"$p" 2>/dev/null || say "sysctl ${p#/proc/sys/} refused its old value"
	done
	if [ -f $STATE_DIR/events ] && ! cmp -s $STATE_DIR/events $TRACEFS/set_event; then
		say "restoring the enabled trace events"
		echo >$TRACEFS/set_event
		while read -r e; do
			echo "$e" >>$TRACEFS/set_event
		done <$STATE_DIR/events
	fi
	if [ -f $STATE_DIR/tracing_on ] && ! cmp -s $STATE_DIR/tracing_on $TRACEFS/tracing_on; then
		cat $STATE_DIR/tracing_on >$TRACEFS/tracing_on
	fi
}
