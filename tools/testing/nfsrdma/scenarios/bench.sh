# SPDX-License-Identifier: GPL-2.0
# The benchmark workload of `make bench` (tools/testing/nfsrdma/bench/):
# not a test of its own. For each repeat and each configuration, all in
# this one boot, it mounts NFSv4.1 over RDMA, runs the steps and prints
# one "BENCH" line per step with the counters the host turns into the
# report. E2E_BENCH is "quick" or "full"; E2E_NCONNECT (e2e.nconnect=N),
# if set, gives the measured mount N connections. The stock configuration swaps
# in the stock rpcrdma.ko (nfsd stopped, module reloaded) and back, and
# the configurations take turns within each repeat, so that a drift in
# the emulator's speed over the boot spreads over all of them.
#
# Steps: fio (Debian's) for the I/O, each step running for $RUNTIME
# seconds (time-based), and for creating, stat-ing and unlinking
# files; a shell loop for readdir, which fio cannot express. Around
# each step it reads the mount's RPC and chunk counters and per-op
# bytes (/proc/self/mountstats), the rxe device's own counters
# (packets, Sends and Receives completed; both ends share rxe0 here),
# nfsd's RDMA Read and Write segment counters, and how many Sends With
# Invalidate nfsd posted (rpcrdma:svcrdma_post_send events with a
# non-zero inv_rkey, counted by a trace instance of their own).
# e2e-needs: fio
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
MNT=/mnt/bench
command -v fio >/dev/null || fail_scenario "no fio in the initramfs (run.sh adds it for \"# e2e-needs: fio\")"
local_nfsd

# The cost mode (E2E_BENCH=cost, cost-quick) counts the instructions
# each step executes instead of timing it: qemu runs with -icount and
# bench/cost/insn-count.so, which writes its counts whenever the guest
# runs /usr/bin/mark. fio marks after its own start and before its end
# (exec_prerun, exec_postrun), so its start-up stays out; the steps do a
# fixed number of operations rather than run for a time.
COST=
case "$E2E_BENCH" in cost*)
	COST=1 MARKS=0
	command -v mark >/dev/null || fail_scenario "no /usr/bin/mark (bench/cost: make bench COST=1)"
	# Where the kernel's code stops counting under the module that ran
	# last (insn-count.c): system call and interrupt entry, softirq
	# processing, the context switch, each work item of a workqueue
	resets=$(awk '
		{ a[$3] = $1 }
		END {
			n = split("__entry_text_start __entry_text_end __irqentry_text_start __irqentry_text_end __softirqentry_text_start __softirqentry_text_end", r)
			for (i = 1; i < n; i += 2)
				if ((r[i] in a) && (r[i + 1] in a))
					printf "%s %s ", a[r[i]], a[r[i + 1]]
			n = split("__switch_to_asm handle_softirqs __do_softirq process_one_work", f)
			for (i = 1; i <= n; i++)
				if (f[i] in a)
					printf "%s %s ", a[f[i]], a[f[i]]
		}' /proc/kallsyms)
	echo "COSTRESETS $resets"
	# shellcheck disable=SC2086 # address pairs
	mark $resets || fail_scenario "mark refused the reset ranges: $resets"
	;;
esac
if [ "$E2E_BENCH" = quick ]; then
	REPEATS=1 NFILES=50 NIO=48 SIZES=8 RWS="write read" LISTINGS=2 RUNTIME=1
	CONFIGS="legacy-1k 64k"
elif [ "$E2E_BENCH" = cost-quick ]; then
	# As many files as the cost mode: whether an nfsd thread wakes with
	# nothing to receive varies from Call to Call (bench README). With
	# 50 files, two repeats of a create or unlink on 7.3 differed by up
	# to 2.7% in the transport's own instructions (the check allows
	# 1%); with 200, by 0.5% in the one run counted
	REPEATS=2 NFILES=200 NIO=128 SIZES="4 16" RWS="write read" LISTINGS=2 RUNTIME=1
	CONFIGS="stock 4k 16k"
elif [ "$E2E_BENCH" = cost ]; then
	REPEATS=2 NFILES=200 NIO=256 SIZES="1 4 8 16 32 64" LISTINGS=5 RUNTIME=1
	CONFIGS="stock legacy-1k 4k 16k 64k 256k 16k-noinv"
	RWS="write read randwrite randread"
else
	REPEATS=3 NFILES=200 NIO=64 SIZES="1 4 8 16 32 64" LISTINGS=5 RUNTIME=1
	CONFIGS="stock legacy-1k 4k 16k 64k 256k 16k-noinv"
	RWS="write read randwrite randread"
fi
[ "$E2E_RPCRDMA" = ours ] || fail_scenario "the bench boots with our module and swaps in the stock one"
MODULE=ours

# swap_module ours|stock: with nfsd stopped, reload rpcrdma.ko
swap_module() {
	local i=0
	until rmmod rpcrdma 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 30 ] || fail_scenario "cannot unload rpcrdma (refcnt $(cat /sys/module/rpcrdma/refcnt))"
		sleep 1
	done
	insmod /lib/modules/e2e/rpcrdma-$1.ko || fail_scenario "cannot load the $1 rpcrdma.ko"
}

# use_module ours|stock: nfsd on that rpcrdma.ko
use_module() {
	[ "$MODULE" = "$1" ] && return 0
	nfsd_restart swap_module "$1"
	MODULE=$1
	nfsd_end_grace
}

# set_config NAME: client and server tunables; "stock" keeps defaults
set_config() {
	local size inv=1
	case "$1" in
	stock) use_module stock; return 0 ;;
	legacy-1k) size=1024 ;;
	16k-noinv) size=16384 inv=0 ;;
	*k) size=$((${1%k} * 1024)) ;;
	*) fail_scenario "unknown configuration $1" ;;
	esac
	use_module ours
	echo $size >$S/max_req_size && echo $size >$R/rdma_max_inline_read &&
		echo $size >$R/rdma_max_inline_write && echo $inv >$S/remote_invalidate &&
		echo $inv >$R/rdma_remote_invalidate || fail_scenario "$1: tunables refused"
}

# Sends With Invalidate: the trace instance SWI records only the
# svcrdma_post_send events whose inv_rkey is not 0, and never reads
# them, so its buffer's entries plus those overwritten count every one
# since the rpcrdma.ko in use was loaded (unloading it resets the
# instance, and the event starts disabled in the one loaded next; the
# configurations swap modules only between steps).
SWI=/sys/kernel/tracing/instances/e2e-bench-swi
[ -d $SWI ] || mkdir $SWI || fail_scenario "cannot make the trace instance $SWI"
echo 64 >$SWI/buffer_size_kb
# swi_count: that count, or -1 when the module has no such event
swi_count() {
	local e=$SWI/events/rpcrdma/svcrdma_post_send
	# an enabled event would add its own instructions to the counts
	[ -z "$COST" ] || { echo -1; return; }
	if [ "$(cat $e/enable 2>/dev/null)" != 1 ]; then
		echo 'inv_rkey != 0' >$e/filter 2>/dev/null &&
			echo 1 >$e/enable 2>/dev/null || { echo -1; return; }
	fi
	cat $SWI/per_cpu/cpu*/stats | awk '$1 == "entries:" || $1 == "overrun:" { n += $2 } END { print n + 0 }'
}

# counters: "rpcs read write reply localinv swi bytes pkts sends recvs
# rdreads rdwrites wirebytes": the mount's RPCs, chunks and LOCAL_INVs
# (summed over its connections),
# nfsd's Sends With Invalidate posted (-1: none), the RPC octets of all
# its operations, rxe0's packets, Sends and Receives completed, nfsd's
# RDMA Read and Write segments, rxe0's octets sent (-1: none on 6.12)
counters() {
	local swi hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	swi=$(swi_count)
	echo $(awk -v mnt=" $MNT " -v swi="${swi:--1}" '
		/^device / { p = index($0, mnt) > 0; next }
		p && $1 == "xprt:" && $2 == "rdma" { r += $8; rd += $13; wr += $14; rp += $15; li += $27 }
		p && /^[ \t]+[A-Z_0-9]+: [0-9]/ { b += $5 + $6 }
		END { print r + 0, rd + 0, wr + 0, rp + 0, li + 0, swi, b + 0 }' /proc/self/mountstats) \
		"$(cat $hw/sent_pkts) $(cat $hw/rdma_sends) $(cat $hw/rdma_recvs)" \
		"$(cat $S/rdma_stat_read) $(cat $S/rdma_stat_write)" \
		"$(cat $hw/sent_bytes 2>/dev/null || echo -1)"
}

now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# measure STEP COUNT OPS-SOURCE CMD...: run CMD, which does COUNT
# operations (0: as many as fit its time), and print a BENCH line. With
# OPS-SOURCE "fio", fio's own IOPS and the window they were measured
# over (terse fields 8 and 9 for reads and the file engines, 49 and 50
# for writes), and COUNT the operations fio did; with "elapsed", COUNT
# over the elapsed time. ms= is that window, so that RPCs per second
# are taken over the same one; wall= is the elapsed time.
measure() {
	local step=$1 count=$2 src=$3 b a t0 t1 out ops ms marks
	shift 3
	sync
	echo 3 >/proc/sys/vm/drop_caches
	b=$(counters)
	[ -z "$COST" ] || MARKS=$((MARKS + 2))
	t0=$(now_ms)
	out=$("$@" 2>&1) || fail_scenario "$cfg/$step: $* failed: $(echo "$out" | tail -n 3)"
	t1=$(now_ms)
	a=$(counters)
	ms=$((t1 - t0))
	if [ "$src" = fio ]; then
		set -- $(echo "$out" | awk -F';' '/^3;/ {
			if ($8 > 0) print $8, $9
			else print $49, $50
			exit }')
		ops=${1:-0} ms=${2:-0}
		[ "$count" != 0 ] || count=$(awk -v o="$ops" -v ms="$ms" 'BEGIN { printf "%d", o * ms / 1000 + 0.5 }')
	else
		ops=$(awk -v n="$count" -v ms=$ms 'BEGIN { printf "%d", ms ? n * 1000 / ms : 0 }')
	fi
	marks=
	if [ -n "$COST" ]; then
		marks=$(cost_rpcs) || fail_scenario "$cfg/$step: no RPC count from the marks"
		marks=" mark=$MARKS rpcs=$marks"
	fi
	echo "BENCH config=$cfg rep=$rep step=$step count=$count ops_per_s=${ops:-0} ms=$ms wall=$((t1 - t0)) before=$(echo $b | tr ' ' ,) after=$(echo $a | tr ' ' ,)$marks"
}

# The cost mode's marks: /tmp/cost-pre reads the mount's RPC count and
# the Reply octets received, then marks; /tmp/cost-post marks, then
# reads them again. The RPCs of a step are those between its marks:
# fio's start-up, outside them, makes RPCs of its own (it looks the
# files up).
if [ -n "$COST" ]; then
	rpcs="awk -v mnt=' $MNT ' '/^device / { p = index(\$0, mnt) > 0; next } p && \$1 == \"xprt:\" && \$2 == \"rdma\" { x += \$8 } p && /^[ \t]+[A-Z_0-9]+: [0-9]/ { r += \$6 } END { print x + 0, r + 0 }' /proc/self/mountstats"
	printf '#!/bin/sh\n%s >/tmp/cost.pre\nexec mark\n' "$rpcs" >/tmp/cost-pre
	printf '#!/bin/sh\nmark\n%s >/tmp/cost.post\n' "$rpcs" >/tmp/cost-post
	chmod +x /tmp/cost-pre /tmp/cost-post
fi

# fio_cmd ARGS...: fio, and in the cost mode its marks around the job
fio_cmd() {
	if [ -n "$COST" ]; then
		fio --exec_prerun=/tmp/cost-pre --exec_postrun=/tmp/cost-post "$@"
	else
		fio "$@"
	fi
}

# cost_rpcs: the RPCs between the last two marks, and " recv=" the
# Reply octets the client received between them
cost_rpcs() {
	local pre post
	pre=$(cat /tmp/cost.pre 2>/dev/null) && post=$(cat /tmp/cost.post 2>/dev/null) || return 1
	rm -f /tmp/cost.pre /tmp/cost.post
	set -- $pre $post
	[ $# = 4 ] || return 1
	echo "$(($3 - $1)) recv=$(($4 - $2))"
}

# cost_map: where each module's text lies, for the host to tell which
# layer a counted page belongs to ("name:address:size", /proc/modules);
# printed for each configuration, since swapping rpcrdma.ko moves it
cost_map() {
	[ -n "$COST" ] || return 0
	echo "COSTMAP config=$cfg rep=$rep $(awk '{ printf "%s:%s:%s ", $1, $6, $2 }' /proc/modules)"
	# and the functions of rpcrdma.ko and sunrpc.ko, for counts by
	# function (COST_SHIFT=4)
	echo "COSTSYMS config=$cfg rep=$rep $(awk '($4 == "[rpcrdma]" || $4 == "[sunrpc]") && ($2 == "t" || $2 == "T") { printf "%s:%s ", $1, $3 }' /proc/kallsyms)"
}

readdir_loop() {
	local i=0 n
	while [ $i -lt "$LISTINGS" ]; do
		echo 3 >/proc/sys/vm/drop_caches
		n=$(ls -a "$MNT/meta" | wc -l)
		[ "$n" -ge "$NFILES" ] || return 1
		i=$((i + 1))
	done
}

# cost_posts: for stock and ours at 4 KiB, a write-4k step run apart,
# uncounted, with the Receives each end posts and its ib_post_recv()
# calls (doorbells on real hardware) recorded: rpcrdma's
# svcrdma_post_recv (one per Receive the server posts) and
# xprtrdma_post_recvs (one per post by the client, with its count), and
# a kprobe on rdma_rxe's post_recv (every ib_post_recv() of both ends)
# and one on its post_srq_recv (nfsd's posts on its device's shared pool)
cost_posts() {
	local T=/sys/kernel/tracing I=/sys/kernel/tracing/instances/e2e-cost-posts a b out
	for cfg in stock 4k; do
		set_config "$cfg"
		nfs_mount 4.1 $MNT
		fio --name=prep --filename=$MNT/posts --rw=write --bs=4k --size=$((NIO * 4))k \
			--direct=1 --ioengine=psync --minimal >/dev/null 2>&1 ||
			fail_scenario "$cfg: cannot write $MNT/posts"
		echo 'p:costpost rxe_post_recv' >>$T/kprobe_events ||
			fail_scenario "cannot add a kprobe on rxe_post_recv"
		echo 'p:costsrq rxe_post_srq_recv' >>$T/kprobe_events ||
			fail_scenario "cannot add a kprobe on rxe_post_srq_recv"
		mkdir $I && echo 4096 >$I/buffer_size_kb &&
			echo 1 >$I/events/kprobes/costpost/enable &&
			echo 1 >$I/events/kprobes/costsrq/enable &&
			echo 1 >$I/events/rpcrdma/svcrdma_post_recv/enable &&
			echo 1 >$I/events/rpcrdma/xprtrdma_post_recvs/enable ||
			fail_scenario "cannot record the posts"
		b=$(counters)
		fio --name=io --filename=$MNT/posts --rw=write --bs=4k --size=$((NIO * 4))k \
			--direct=1 --ioengine=psync --minimal >/dev/null 2>&1 ||
			fail_scenario "$cfg: the posts' write-4k failed"
		a=$(counters)
		echo 0 >$I/tracing_on
		out=$(awk '
			/ costpost:/ { rxe++ }
			/ costsrq:/ { srq++ }
			/ svcrdma_post_recv:/ { srv++ }
			/ xprtrdma_post_recvs:/ {
				n = 0
				for (i = 1; i < NF; i++) if ($(i + 1) == "new") n = $i
				if (n > 0) { cposts++; crecvs += n }
			}
			END { printf "server_recvs=%d client_recvs=%d client_posts=%d rxe_posts=%d srq_posts=%d", srv, crecvs, cposts, rxe, srq }' $I/trace)
		grep -q overrun $I/per_cpu/cpu0/stats && [ "$(awk '$1 == "overrun:" { print $2 }' $I/per_cpu/cpu0/stats)" = 0 ] ||
			fail_scenario "the posts' trace buffer overran"
		echo "COSTPOSTS config=$cfg rpcs=$((${a%% *} - ${b%% *})) $out"
		rmdir $I && echo '-:costpost' >>$T/kprobe_events &&
			echo '-:costsrq' >>$T/kprobe_events ||
			fail_scenario "cannot remove the posts' trace instance and kprobe"
		run rm -f $MNT/posts
		nfs_umount $MNT
	done
}

# The cost mode makes a round first, repeat 0, which the report leaves
# out: what the first round allocates and keeps (slab caches, the page
# allocator's lists) would otherwise count against repeat 1 only
rep=1
[ -z "$COST" ] || rep=0
while [ $rep -le $REPEATS ]; do
	for cfg in $CONFIGS; do
		set_config "$cfg"
		nfs_mount 4.1 $MNT ${E2E_NCONNECT:+nconnect=$E2E_NCONNECT}
		run mkdir -p $MNT/meta
		meta="--directory=$MNT/meta --nrfiles=$NFILES --filesize=4k --openfiles=1 --minimal"
		cost_map
		measure create "$NFILES" fio fio_cmd --name=create --ioengine=filecreate $meta
		# (not when counting: fio stats the files as it sets up, before
		# its first mark, and the step's own stats then send no RPC)
		[ -n "$COST" ] || measure stat "$NFILES" fio fio_cmd --name=stat --ioengine=filestat $meta
		# (nor readdir: its loop drops the caches before each listing,
		# and that, not the RPCs, would be most of what it counts)
		[ -n "$COST" ] || measure readdir "$LISTINGS" elapsed readdir_loop
		measure unlink "$NFILES" fio fio_cmd --name=unlink --ioengine=filedelete $meta
		for bs in $SIZES; do
			# The whole file first, with verify headers: a time-based
			# write may not reach its end, and fio would lay a short
			# file out again, headers gone, before the read steps
			fio --name=prep --filename=$MNT/io$bs --rw=write --bs=${bs}k \
				--size=$((NIO * bs))k --direct=1 --ioengine=psync \
				--verify=crc32c --do_verify=0 --minimal >/dev/null 2>&1 ||
				fail_scenario "$cfg: cannot write $MNT/io$bs"
			for rw in $RWS; do
				v="--verify=crc32c"
				case $rw in *write) v="$v --do_verify=0" ;; esac
				# a fixed count of operations when counting
				t="--time_based --runtime=$RUNTIME" n=0
				[ -z "$COST" ] || t='' n=$NIO
				measure "$rw-${bs}k" $n fio fio_cmd --name=io --filename=$MNT/io$bs \
					--rw=$rw --bs=${bs}k --size=$((NIO * bs))k --direct=1 \
					$t --ioengine=psync $v --minimal
			done
			run rm -f $MNT/io$bs
		done
		run rm -rf $MNT/meta
		nfs_umount $MNT
	done
	rep=$((rep + 1))
done
if [ -n "$COST" ]; then
	cost_posts
	# how many marks the plugin must have written (cost.py checks)
	echo "COSTMARKS $MARKS"
fi
