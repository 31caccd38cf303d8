#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole test suite in one command (make check), for a fresh Debian
# bookworm machine: installs what it needs, then runs KUnit, builds the
# module, tests the tools, fuzzes the codec, runs the end-to-end
# scenarios in qemu, installs and removes the module (make install,
# DKMS, the DKMS one booted in qemu), runs the benchmark's plumbing and
# verifies the patch series patch by patch (checkpatch, git am, build,
# sparse, W=1, kernel-doc, rst). Every step runs even when an earlier
# one failed, except that nothing can run without the base packages and
# the tree. Every step prints KTAP (or is one case); the summary nests
# them all in one KTAP document, build/check-logs/check.ktap, and ends
# with "check: N passed, N failed", counted from it.

. "$(dirname "$0")/lib.sh"

LOGDIR=$BUILD/check-logs
# One line per step, in order: NAME, "ok" or "not ok", the reason, the
# file holding the step's own KTAP (or nothing: the step is one case),
# separated by US (0x1f): tabs would merge empty fields on reading
RESULTS=$LOGDIR/results
US=$'\x1f'


# took NAME START: note how long a step ran (in $LOGDIR/times, shown in
# the summary, so a slow step is plain to see)
took() { echo "$1 $((SECONDS - $2))" >>"$LOGDIR/times"; }

# Each step's time budget in seconds (STEP:SECONDS), and make check's:
# a clean make check's time for the step on this 2-core machine with
# room for a slow day, from the table in scripts/README.md ("The
# schedule"). A step over its budget is named in a "#" line of the
# summary and never fails for it: only a hang guard (scripts/README.md)
# ends a step for time. make check-full has no budgets.
BUDGETS="deps:600 deps-mainline:300 nfs-utils:60 tree:300 deps-test:120 stall-timeout-test:180
	modules:240 vermagic:30 modules-fixes:120 modules-mainline:240 vermagic-mainline:30
	backport-check:60 tools-check:120 wireshark-check:120
	e2e:1080 e2e-stock:120 e2e-fixes:240 install:60 dkms:240 bench-quick:240 bench-cost-quick:420 bench-scale-quick:180
	e2e-interop:480 fuzz-smoke:120
	e2e-7.3:1080 e2e-stock-7.3:180 dkms-7.3:240 fresh-root:1200 patchset:1500
	modules-arm64:300 e2e-arm64:480 modules-siw:120 e2e-siw:720 kunit:2700"
CHECK_BUDGET=3600

# over_budget: the "#" lines for the steps, and make check, over budget
over_budget() {
	[ -z "${FULL:-}" ] || return 0
	awk -v budgets="$BUDGETS" -v total="$SECONDS" -v limit="$CHECK_BUDGET" '
		function mmss(t) { return sprintf("%dm%02ds", t / 60, t % 60) }
		BEGIN {
			n = split(budgets, b, /[[:space:]]+/)
			for (i = 1; i <= n; i++)
				if (split(b[i], kv, ":") == 2)
					budget[kv[1]] = kv[2]
		}
		($1 in budget) && $2 > budget[$1] {
			printf "# over budget: %s took %s, its budget is %s\n",
				$1, mmss($2), mmss(budget[$1])
		}
		END {
			if (total > limit)
				printf "# over budget: make check took %s, its budget is %s\n",
					mmss(total), mmss(limit)
		}' "$LOGDIR/times" 2>/dev/null || true
}

# step_passed NAME, step_failed NAME REASON: record the result of a
# step that is a single test case (summary prints it)
step_passed() { echo "$1${US}ok${US}${US}" >>"$RESULTS"; }
step_failed() { echo "$1${US}not ok${US}$(printf %s "${2:-failed}" | tr '\n#\037' ' : ')${US}" >>"$RESULTS"; }

# why_failed NAME...: the reason a build step failed, for its "not ok"
# line: failure_reason (lib.sh) of the logs NAME.log... that exist, and
# the logs
why_failed() {
	local name files=()
	for name in "$@"; do
		[ ! -s "$LOGDIR/$name.log" ] || files+=("$LOGDIR/$name.log")
	done
	if [ "${#files[@]}" = 0 ]; then
		printf 'no log'
		return
	fi
	printf '%s (see %s)' "$(failure_reason "${files[@]}")" "${files[*]}"
}

# step NAME CMD...: run a step, show its output, keep a log
step() {
	local name=$1 rc t0=$SECONDS
	shift
	printf '\n=== %s\n' "$name"
	set +e
	"$@" 2>&1 | tee "$LOGDIR/$name.log"
	rc=${PIPESTATUS[0]}
	set -e
	took "$name" "$t0"
	return "$rc"
}

# count_ktap NAME [KTAP-FILE [EXIT-STATUS]]: a step whose log (or
# KTAP-FILE) holds KTAP: its cases become make check's, nested under
# the step. It failed if a case failed, if it ran fewer cases than its
# plan (or printed none), or if it exited non-zero after all its cases
# passed.
count_ktap() {
	local name=$1 file=${2:-$LOGDIR/$1.log} rc=${3:-0} p s f complete first reason=
	if [ ! -s "$file" ]; then
		step_failed "$name" "no output (exit status $rc)"
		return
	fi
	read -r p s f complete < <(awk -f "$TOP/scripts/ktap-count.awk" "$file")
	first=$(grep -m1 -E '^ *not ok [0-9]+ ' "$file" | sed -E 's/^ *not ok [0-9]+ //' || true)
	# KUnit says why on a diagnostic line before the result
	first="$first$(grep -m1 -E 'EXPECTATION FAILED|ASSERTION FAILED' "$file" |
		sed -E 's/^[[:space:]#]*/: /' || true)"
	if [ "$f" != 0 ]; then
		reason="$f of $((p + s + f)) cases failed, the first: $first"
	elif [ "$complete" != 1 ]; then
		# a script that stopped says why: lib.sh's die ("ERROR: "),
		# a runner's own ("run.sh: "), KTAP's "Bail out!", or make
		reason="ran fewer cases than its plan, or none: $(grep -E \
			'^(ERROR: |Bail out!|[[:alnum:]._-]+\.(sh|py): |make(\[[0-9]+\])?: \*\*\* )' "$file" |
			tail -n 1 | grep . || echo "exit status $rc, see $file")"
	elif [ "$rc" != 0 ]; then
		reason="exit status $rc after its cases passed"
	fi
	if [ -z "$reason" ]; then
		echo "$name${US}ok${US}${US}$file" >>"$RESULTS"
	else
		echo "$name${US}not ok${US}$(printf %s "$reason" | tr '\n#\037' ' : ')${US}$file" >>"$RESULTS"
	fi
}

# The KTAP kunit.py read from the kernel: its raw log, test.log in the
# build directory (scripts/kunit.sh removes it first, so that an old
# one never stands in for a run that did not happen). A run that ended
# badly after the kernel had started has a test.log too: then the
# reason is the first ERROR line of kunit.sh's or kunit.py's own output
# (a failed build, a run over its limit), with the cases it did print.
count_kunit() {
	local name=$1 build=$2 rc=$3 why
	why=$(grep -m1 -E '^(ERROR:|stall-timeout: )' "$LOGDIR/$name.log" 2>/dev/null || true)
	if [ -s "$build/test.log" ]; then
		cp "$build/test.log" "$LOGDIR/$name.ktap"
		if [ "$rc" != 0 ] && [ -n "$why" ]; then
			echo "$name${US}not ok${US}$(printf %s "exit status $rc: $why" |
				tr '\n#\037' ' : ')${US}$LOGDIR/$name.ktap" >>"$RESULTS"
		else
			count_ktap "$name" "$LOGDIR/$name.ktap" "$rc"
		fi
	else
		step_failed "$name" "kunit.py ran no tests (exit status $rc)${why:+: $why}"
	fi
}

# check_vermagic [mainline]: our rpcrdma.ko carries the vermagic of the
# stock one of its kernel (6.12 installed; 7.3 from the unpacked image)
check_vermagic() {
	local ours stock mod=$BUILD/module/rpcrdma.ko
	SERIES_BASE=6.12 load_base
	if [ "${1:-}" = mainline ]; then
		SERIES_BASE=mainline load_base
		KVER=$MAINLINE_KVER
		mod=$BUILD/module-mainline/rpcrdma.ko
	fi
	ours=$(modinfo -F vermagic "$mod")
	echo "rpcrdma.ko: $(readlink -f "$mod")"
	echo "vermagic:   $ours"
	if [ "${1:-}" = mainline ]; then
		stock=$(modinfo -F vermagic \
			"$MAINLINE_IMAGE"/lib/modules/"$KVER"/kernel/net/sunrpc/xprtrdma/rpcrdma.ko* || true)
		[ -n "$stock" ] || die "no stock rpcrdma.ko in $MAINLINE_IMAGE"
	else
		stock=$(modinfo -F vermagic -k "$KVER" rpcrdma 2>/dev/null || true)
	fi
	if [ -n "$stock" ]; then
		echo "stock:      $stock"
		[ "$ours" = "$stock" ] || die "vermagic differs from the stock $KVER rpcrdma.ko"
	else
		case "$ours" in
		"$KVER "*) ;;
		*) die "vermagic does not name $KVER" ;;
		esac
	fi
}

# check_stock_fails KERNEL: the server scenarios must fail against the
# stock rpcrdma.ko of KERNEL, each for the reason stock.expect gives it.
# Prints KTAP: a scenario is "ok" here only if its "not ok" line in the
# run says that reason. The run's own output comes first, as diagnostics.
check_stock_fails() {
	local dir=$TOP/tools/testing/nfsrdma raw=$LOGDIR/e2e-stock-$1.raw
	local s re line scenarios
	E2E_KERNEL=$1 E2E_RUNS_FILE=$dir/stock.runs "$TOP/scripts/e2e.sh" >"$raw" 2>&1 || true
	sed 's/^/# /' "$raw"
	scenarios=$(awk '!/^#/ && NF > 4 { for (i = 5; i <= NF; i++) print $i }' "$dir/stock.runs")
	# A stock.runs that yields no scenario proves nothing
	if [ -z "$scenarios" ]; then
		ktap_set_plan 1
		ktap_test_fail "stock $1" "no scenarios in stock.runs"
		ktap_finished "e2e-stock-$1" || true
		return 0
	fi
	ktap_set_plan "$(wc -w <<<"$scenarios")"
	for s in $scenarios; do
		re=$(awk -v s="$s" '$1 == s { sub(/^[^ ]+ +/, ""); print; exit }' "$dir/stock.expect")
		line=$(grep -m1 -E "^  (not )?ok [0-9]+ ${s}( #|\$)" "$raw" || true)
		if [ -z "$re" ]; then
			ktap_test_fail "stock $1 $s" "no reason in stock.expect"
		elif [ "${line#  not ok }" = "$line" ]; then
			ktap_test_fail "stock $1 $s" "did not fail against the stock module: ${line:-no result}"
		elif grep -qE -- "$re" <<<"${line#* # }"; then
			ktap_test_pass "stock $1 $s" "failed for the expected reason: ${line#* # }"
		else
			ktap_test_fail "stock $1 $s" "failed, but not for the expected reason /$re/: ${line#* # }"
		fi
	done
	ktap_finished "e2e-stock-$1" || true
}

# make check-full (FULL=1): the storm scenario at 1000 connects per
# phase, 20 nfsd restarts instead of 8, 7.3's server-restart and
# two-host runs, all six interop runs instead of three, a ten-minute
# fuzz run instead of one minute, KUnit on the 6.12 series too, the
# single-VM scenarios on the debug kernel (KASAN, DEBUG_SG, lockdep...)
# and the whole of make check again in a fresh root
if [ -n "${FULL:-}" ]; then
	export E2E_APPEND="${E2E_APPEND:+$E2E_APPEND }e2e.storm=1000 e2e.restarts=20"
	export E2E_SCENARIO_TIMEOUT=${E2E_SCENARIO_TIMEOUT:-1800}
	FUZZ_SMOKE=600
	E2E_RUNS_7_3=
	E2E_INTEROP_RUNS=
	E2E_ARM64_RUNS=
else
	FUZZ_SMOKE=60
	# 7.3 runs its single-VM scenarios here, the Wireshark dissector
	# against its views and each end short of memory. Its server-restart run and its
	# two-host runs against stock 7.3 wait for check-full: e2e-interop
	# already pairs 7.3 with stock 7.3 both ways, and 6.12 runs the
	# same two-host scenarios.
	E2E_RUNS_7_3="single-ours wire-ours short-ours"
	# One direction of each kernel pairing of interop.runs, so that
	# 7.3 is client and server, and stock is client and server, once
	# each: 7.3 client of 6.12, stock 6.12 client of 7.3, 7.3 client of
	# stock 7.3. check-full runs the other three too.
	E2E_INTEROP_RUNS="c7.3-s6.12 c6.12stock-s7.3 c7.3-s7.3stock"
	# arm64: both kernels' I/O, checked writes and Kerberos, 7.3 with
	# 16 KiB pages, and 7.3 across architectures both ways; check-full
	# adds more scenarios, 6.12 with 16 KiB pages and stock across
	# architectures (arm64.runs)
	E2E_ARM64_RUNS="arm64-6.12 arm64-7.3 carm64-sx86 cx86-sarm64 arm64-16k-7.3"
fi

# quietly NAME CMD...: a step of a lane: its output goes only to its
# log, its exit status to NAME.rc
quietly() {
	local name=$1 rc=0 t0=$SECONDS
	shift
	"$@" >"$LOGDIR/$name.log" 2>&1 </dev/null || rc=$?
	echo "$rc" >"$LOGDIR/$name.rc"
	took "$name" "$t0"
}
# (a lane that never reached the step left no status: 255)
rc_of() { cat "$LOGDIR/$1.rc" 2>/dev/null || echo 255; }

LANE_STEPS="e2e e2e-stock e2e-fixes install dkms bench-quick bench-cost-quick bench-scale-quick e2e-interop e2e-arm64 fuzz-smoke e2e-siw
	    e2e-7.3 e2e-stock-7.3 dkms-7.3 fresh-root"

# An interrupt: stop both lanes (TERM to their process groups), let
# their traps clean up, and say what ran
stop_lanes() {
	local pid
	trap - INT TERM
	for pid in $LANES; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	# shellcheck disable=SC2086 # the lanes' pids (not the disk watch)
	wait $LANES || true
	# The lanes' shells end at once; the scripts in their process
	# groups stop their VMs and remove their packages in their traps:
	# give them up to two minutes to finish
	for pid in $LANES; do
		for _ in $(seq 120); do
			kill -0 -- "-$pid" 2>/dev/null || break
			sleep 1
		done
	done
	step_failed interrupted "make check was interrupted"
	summary
}

# Two lanes, the second followed by the check of the mainline series
# (check-full: the first by the 6.12 series'); each lane's time is in
# the summary (lane-one, lane-two), to keep them of about equal length.
# The first: 6.12's scenarios and stock failures, the stable fixes
# alone (fixes.runs), make install and DKMS
# (each undone again), the benchmark's plumbing (never its speed), the
# short form of its cost mode (instructions, counted) and of its scale
# mode (nfsd's memory with 1 and 16 connections), the
# runs of two hosts of different kernels, the arm64 runs, a short
# fixed-seed fuzz run (the long ones are make fuzz) and the soft-iWARP
# runs (siw.runs); check-full: then the 6.12 series.
lane_one() {
	local t0=$SECONDS
	quietly e2e env E2E_KERNEL=6.12 "$TOP/scripts/e2e.sh"
	quietly e2e-stock check_stock_fails 6.12
	quietly e2e-fixes env E2E_RUNS_FILE="$TOP/tools/testing/nfsrdma/fixes.runs" "$TOP/scripts/e2e.sh"
	quietly install "$TOP/scripts/install.sh" check
	quietly dkms "$TOP/scripts/dkms.sh" check
	quietly bench-quick "$TOP/scripts/bench.sh" --quick
	quietly bench-cost-quick "$TOP/scripts/bench.sh" --cost-quick
	quietly bench-scale-quick "$TOP/scripts/bench.sh" --scale-quick
	# shellcheck disable=SC2086
	quietly e2e-interop "$TOP/scripts/e2e.sh" --interop $E2E_INTEROP_RUNS
	# shellcheck disable=SC2086
	quietly e2e-arm64 "$TOP/scripts/e2e.sh" --arm64 $E2E_ARM64_RUNS
	quietly fuzz-smoke "$TOP/tools/testing/rpcrdma-cm-fuzz/run.sh" "$FUZZ_SMOKE" 1
	quietly e2e-siw "$TOP/scripts/e2e.sh" --siw
	# check-full: the 6.12 backport patch by patch (its whole series is
	# built and run above; make check's hour has no room for both series)
	[ -z "${FULL:-}" ] || series_6_12
	took lane-one "$t0"
}

# The second: 7.3's scenarios and stock failures, DKMS for 7.3 in the
# trixie root, then the README's main
# command and the install and build steps of this suite from nothing,
# in a new Debian root (check-full also runs this whole suite there; inside such
# a root, FRESH_ROOT_INSIDE, the outer run has already done it); then
# the mainline series.
lane_two() {
	local t0=$SECONDS
	# shellcheck disable=SC2086 # a list of run names, or none: all
	quietly e2e-7.3 env E2E_KERNEL=7.3 "$TOP/scripts/e2e.sh" $E2E_RUNS_7_3
	quietly e2e-stock-7.3 check_stock_fails 7.3
	quietly dkms-7.3 env DKMS_KERNEL=7.3 "$TOP/scripts/dkms.sh" check
	if [ -n "${FRESH_ROOT_INSIDE:-}" ]; then
		quietly fresh-root fresh_root_skipped
	else
		quietly fresh-root "$TOP/scripts/fresh-root.sh" builds
	fi
	series_mainline
	took lane-two "$t0"
}

series_mainline() { SERIES_BASE=mainline quietly patchset "$TOP/scripts/patchset.sh" --dry-run; }
series_6_12() { SERIES_BASE=6.12 quietly patchset-6.12 "$TOP/scripts/patchset.sh" --dry-run; }

# in_lanes FUNCTION...: run each function as a lane, side by side, and
# wait for all of them. Each lane is a process group of its own, so that
# an interrupt stops all of it: its VMs are stopped and its DKMS
# packages removed by their scripts' traps.
in_lanes() {
	local fn
	LANES=
	set -m
	for fn in "$@"; do
		"$fn" &
		LANES="$LANES $!"
	done
	set +m
	trap stop_lanes INT TERM
	# shellcheck disable=SC2086 # the lanes' pids
	wait $LANES || true
	trap - INT TERM
}

# forget_logs STEP...: no log or status of an earlier run may stand in
# for a step that a lane never reached
forget_logs() {
	local name
	for name in "$@"; do
		rm -f "$LOGDIR/$name.log" "$LOGDIR/$name.rc"
	done
}

# show_lanes STEP...: the logs of the lanes' steps, in order
show_lanes() {
	local name
	for name in "$@"; do
		printf '\n=== %s\n' "$name"
		cat "$LOGDIR/$name.log" 2>/dev/null || echo "(no log: the lane ended before this step)"
	done
}

# The third: KUnit on mainline (7.3), and in make check-full on 6.12
# too, at the lowest CPU priority, in the CPU the lanes leave idle (a
# lane mostly waits for one TCG vCPU). It ends a few minutes after the
# lanes, instead of taking eleven minutes of its own before them.
#
# Only the build is niced, and it has no wall-clock limit, only a stall
# guard: it may get almost no CPU until the lanes end. The UML run that
# follows is at normal priority, with a limit counted from its own start
# (scripts/kunit.sh).
lane_kunit() {
	SERIES_BASE=mainline KUNIT_BUILD=$BUILD/kunit KUNIT_NICE=19 \
		quietly kunit "$TOP/scripts/kunit.sh"
	[ -z "${FULL:-}" ] || SERIES_BASE=6.12 KUNIT_BUILD=$BUILD/kunit-6.12 KUNIT_NICE=19 \
		quietly kunit-6.12 "$TOP/scripts/kunit.sh"
	# check-full: the suites on arm64 under qemu, as kernel CI runs them
	[ -z "${FULL:-}" ] || SERIES_BASE=mainline KUNIT_BUILD=$BUILD/kunit-arm64 KUNIT_NICE=19 \
		KUNIT_ARCH=arm64 quietly kunit-arm64 "$TOP/scripts/kunit.sh"
	# check-full: and on x86_64 under qemu (kunit.py --arch=x86_64)
	[ -z "${FULL:-}" ] || SERIES_BASE=mainline KUNIT_BUILD=$BUILD/kunit-x86_64 KUNIT_NICE=19 \
		KUNIT_ARCH=x86_64 quietly kunit-x86_64 "$TOP/scripts/kunit.sh"
	# check-full: the debug kernel (tens of minutes of building, at the
	# lowest priority too), then the single-VM scenarios on it
	if [ -n "${FULL:-}" ]; then
		quietly debug-kernel nice -n 19 "$TOP/scripts/debug-kernel.sh"
		if [ "$(rc_of debug-kernel)" = 0 ]; then
			quietly e2e-debug env E2E_KERNEL=7.3-debug E2E_SCENARIO_TIMEOUT=3600 \
				E2E_RUNS_FILE="$TOP/tools/testing/nfsrdma/debug.runs" \
				"$TOP/scripts/e2e.sh" debug-full
		fi
	fi
}

# At its peak a make check from a new clone holds about this much under
# build/ (both kernel trees, both series' pristine checkouts, the fresh
# root's own build, KUnit's, the VMs' images): measured, 21.8 to 22.2
# GiB above the start (disk_watch); a machine without the packages needs
# about 2 GiB more outside build/ for them (scripts/README.md, "Disk").
# With less, its steps
# fail with "No space left on device" in ways that hide the cause, so
# make check stops first and says so. What build/ already holds counts
# as room: it is reused or replaced.
CHECK_DISK_GIB=${CHECK_DISK_GIB:-25}

check_disk() {
	local free used
	mkdir -p "$BUILD"
	free=$(df -P -k "$BUILD" | awk 'NR == 2 { print int($4 / 1048576) }')
	used=$(du -s -x -k "$BUILD" | awk '{ print int($1 / 1048576) }')
	echo "# $free GiB free on the file system of $BUILD, which holds $used GiB"
	[ $((free + used)) -ge "$CHECK_DISK_GIB" ] ||
		die "make check needs about $CHECK_DISK_GIB GiB for $BUILD, and has $((free + used)) (free it, or set CHECK_DISK_GIB)"
}

# disk_watch: in the background for the whole run, the most the file
# system of build/ held beyond what it held at the start (every 10 s,
# apt's installations included), with the time of that peak and, at each
# new peak 256 MiB above the last one noted, what build/'s entries held
# then: the figure CHECK_DISK_GIB stands for, measured. It ends when
# summary stops it or make check is gone ($$ is make check's own pid
# in this subshell too); waits for the lanes name their pids, not it.
disk_watch() {
	local start used peak=0 noted=0
	# a reading that fails (a file gone under du) is no reason to stop
	set +e +o pipefail
	start=$(df -P -k "$BUILD" | awk 'NR == 2 { print $3 }')
	while sleep 10 && kill -0 $$ 2>/dev/null; do
		used=$(df -P -k "$BUILD" | awk 'NR == 2 { print $3 }')
		[ $((used - start)) -gt "$peak" ] || continue
		peak=$((used - start))
		echo "$peak $SECONDS" >"$LOGDIR/disk-peak"
		[ $((peak - noted)) -ge 262144 ] || continue
		noted=$peak
		{
			echo "# $((peak / 1024)) MiB beyond the start at ${SECONDS}s"
			# (the fresh root's build first: du counts a
			# directory once, under the first argument that holds it)
			nice -n 19 du -s -x -m "$BUILD"/fresh-root/root/root/project/build/* "$BUILD"/* 2>/dev/null |
				sort -n | tail -n 25
		} >"$LOGDIR/disk-peak.du"
	done
}

# disk_peak: the summary's line of what disk_watch saw
disk_peak() {
	local peak at
	[ -s "$LOGDIR/disk-peak" ] || return 0
	read -r peak at <"$LOGDIR/disk-peak" || return 0
	printf '# disk: at most %d.%d GiB beyond the start, %dm%02ds in (what build/ held: %s)\n' \
		$((peak / 1048576)) $((peak % 1048576 * 10 / 1048576)) $((at / 60)) $((at % 60)) \
		"$LOGDIR/disk-peak.du"
}

fresh_root_skipped() {
	ktap_set_plan 1
	ktap_test_skip fresh-root "already inside a fresh root"
}

main() {
	local rc=0 s name dir dpid
	mkdir -p "$LOGDIR"
	# no log of an earlier run may give a reason for this one
	rm -f "$LOGDIR/times" "$RESULTS" "$LOGDIR"/*.ktap "$LOGDIR"/*.log "$LOGDIR"/*.rc

	step disk check_disk || { step_failed disk "$(tail -n 1 "$LOGDIR/disk.log")"; summary; }
	step_passed disk
	rm -f "$LOGDIR/disk-peak" "$LOGDIR/disk-peak.du"
	# (it writes files only; nothing it leaves running holds our output)
	disk_watch >/dev/null 2>&1 &
	DISK_WATCH=$!
	step deps make -s -C "$TOP" deps || { step_failed deps "$(why_failed deps)"; summary; }
	step_passed deps
	step deps-mainline make -s -C "$TOP" deps-mainline ||
		{ step_failed deps-mainline "$(why_failed deps-mainline)"; summary; }
	step_passed deps-mainline
	# nfs-utils' mountstats with patches/nfs-utils, which the
	# mountstats-tool scenario of both e2e lanes runs in its VM
	if step nfs-utils make -s -C "$TOP" nfs-utils-mountstats; then
		step_passed nfs-utils
	else
		step_failed nfs-utils "$(why_failed nfs-utils)"
	fi
	# Every way deps can stop, with stand-ins for apt and dpkg. It
	# needs no tree, so it runs beside the unpacking of the two trees,
	# which keeps one core busy (xz, then git hashing every file).
	# The hang guard's own test (scripts/test-stall-timeout.sh) follows
	# it, also beside the trees.
	forget_logs deps-test stall-timeout-test
	{
		quietly deps-test "$TOP/scripts/test-deps.sh"
		quietly stall-timeout-test "$TOP/scripts/test-stall-timeout.sh"
	} &
	dpid=$!
	rc=0
	step tree make -s -C "$TOP" tree || rc=1
	wait "$dpid" || true
	show_lanes deps-test stall-timeout-test
	count_ktap deps-test "" "$(rc_of deps-test)"
	count_ktap stall-timeout-test "" "$(rc_of stall-timeout-test)"
	[ "$rc" = 0 ] || { step_failed tree "$(why_failed tree)"; summary; }
	step_passed tree

	if step modules make -s -C "$TOP" modules && step vermagic check_vermagic; then
		step_passed modules
	else
		step_failed modules "$(why_failed modules vermagic)"
	fi
	# The stable fixes posting alone, for fixes.runs
	if step modules-fixes make -s -C "$TOP" modules-fixes; then
		step_passed modules-fixes
	else
		step_failed modules-fixes "$(why_failed modules-fixes)"
	fi
	if step modules-mainline make -s -C "$TOP" modules-mainline &&
	   step vermagic-mainline check_vermagic mainline; then
		step_passed modules-mainline
	else
		step_failed modules-mainline "$(why_failed modules-mainline vermagic-mainline)"
	fi
	# arm64: Debian's arm64 kernels and user space, both series'
	# rpcrdma.ko cross-built (vermagic and CRCs checked against the
	# stock arm64 modules) and the tools
	if step modules-arm64 make -s -C "$TOP" deps-arm64 modules-arm64 tools-arm64; then
		step_passed modules-arm64
	else
		step_failed modules-arm64 "$(why_failed modules-arm64)"
	fi
	# soft-iWARP's siw.ko for both kernels, from each base's source
	if step modules-siw make -s -C "$TOP" modules-siw; then
		step_passed modules-siw
	else
		step_failed modules-siw "$(why_failed modules-siw)"
	fi

	rc=0
	step backport-check make -s -C "$TOP" backport-check || rc=$?
	count_ktap backport-check "" "$rc"
	rc=0
	step tools-check make -s -C "$TOP" tools-check || rc=$?
	count_ktap tools-check "" "$rc"
	rc=0
	step wireshark-check make -s -C "$TOP" wireshark-check || rc=$?
	count_ktap wireshark-check "" "$rc"

	# Two lanes side by side, and KUnit at the lowest priority beside
	# them. Most of the lanes' steps boot one
	# VM (one vCPU) at a time or run one process, so each lane keeps
	# about one core busy. The second lane ends with the check of the
	# mainline series, patch by patch (check-full: the first with the
	# 6.12 series'): a patch recompiles a few files and then links,
	# runs modpost and checks kernel-doc and rst, one thing at a time.
	# None touches what another uses (6.12's /lib/modules and /usr/src,
	# build/e2e/6.12, interop, arm64, build/e2e/siw and the 6.12 series
	# are only the first lane's; build/e2e/7.3, the trixie root, the
	# fresh root and the mainline series only the second's; build/kunit and
	# build/kunit-6.12 only the third's, which reads the 7.3 tree's
	# files, as the modules step before the lanes did). Their output goes to the logs, shown when all end.
	forget_logs $LANE_STEPS kunit kunit-6.12 kunit-arm64 kunit-x86_64 debug-kernel e2e-debug patchset patchset-6.12
	rm -f "$LOGDIR"/e2e-stock-*.raw
	in_lanes lane_one lane_two lane_kunit
	show_lanes kunit
	count_kunit kunit "$BUILD/kunit" "$(rc_of kunit)"
	if [ -n "${FULL:-}" ]; then
		show_lanes kunit-6.12
		count_kunit kunit-6.12 "$BUILD/kunit-6.12" "$(rc_of kunit-6.12)"
		show_lanes kunit-arm64
		count_kunit kunit-arm64 "$BUILD/kunit-arm64" "$(rc_of kunit-arm64)"
		show_lanes kunit-x86_64
		count_kunit kunit-x86_64 "$BUILD/kunit-x86_64" "$(rc_of kunit-x86_64)"
		show_lanes debug-kernel e2e-debug
		if [ "$(rc_of debug-kernel)" = 0 ]; then
			step_passed debug-kernel
		else
			step_failed debug-kernel "the debug kernel's build failed: $(grep -m1 -E '^(ERROR|WARNING): ' \
				"$LOGDIR/debug-kernel.log" || echo "see $LOGDIR/debug-kernel.log")"
		fi
		count_ktap e2e-debug "" "$(rc_of e2e-debug)"
	fi
	show_lanes $LANE_STEPS
	# A script that died after its last case still counts as failed
	for name in e2e e2e-stock e2e-fixes install dkms bench-quick bench-cost-quick bench-scale-quick e2e-interop \
		    e2e-arm64 fuzz-smoke e2e-siw \
		    e2e-7.3 e2e-stock-7.3 dkms-7.3 fresh-root; do
		count_ktap "$name" "" "$(rc_of "$name")"
	done

	# One case per patch, and one each for git am and the base's build
	for name in patchset ${FULL:+patchset-6.12}; do
		show_lanes "$name"
		count_ktap "$name" "" "$(rc_of "$name")"
	done

	if [ -n "${FULL:-}" ] && [ -z "${FRESH_ROOT_INSIDE:-}" ]; then
		rc=0
		step fresh-root-check "$TOP/scripts/fresh-root.sh" check || rc=$?
		count_ktap fresh-root-check "" "$rc"
	fi

	summary
}

# The summary: make check's own KTAP, one test per step with the step's
# cases nested in it, then the counts of those cases
summary() {
	local name res reason file total p s f complete
	printf '\n=== summary\n'
	[ ! -s "$LOGDIR/times" ] ||
		awk '{ printf "# time %s: %dm%02ds\n", $1, $2 / 60, $2 % 60 }' "$LOGDIR/times"
	echo "# time make check: $((SECONDS / 60))m$((SECONDS % 60))s"
	over_budget
	if [ -n "${DISK_WATCH:-}" ]; then
		kill "$DISK_WATCH" 2>/dev/null || true
		wait "$DISK_WATCH" 2>/dev/null || true
	fi
	disk_peak
	echo "# logs: $LOGDIR"
	total=$(wc -l <"$RESULTS" 2>/dev/null || echo 0)
	{
		ktap_print_header
		ktap_set_plan "$total"
		while IFS=$US read -r name res reason file; do
			# a step's own KTAP, one level deeper, as it printed it
			[ -z "$file" ] || grep -E '^ *(KTAP version [0-9]+|1\.\.[0-9]+|(not )?ok [0-9]+( .*)?)$' "$file" |
				sed 's/^/  /' || true
			if [ "$res" = ok ]; then
				ktap_test_pass "$name"
			else
				ktap_test_fail "$name" "$reason"
			fi
		done <"$RESULTS"
	} >"$LOGDIR/check.ktap"
	# The steps, not every case: each step's log has those
	grep -E '^(not )?ok [0-9]+ ' "$LOGDIR/check.ktap" || true
	read -r p s f complete < <(awk -f "$TOP/scripts/ktap-count.awk" "$LOGDIR/check.ktap")
	echo "# KTAP of every case: $LOGDIR/check.ktap"
	echo "check: $p passed, $f failed"
	[ "$f" = 0 ] && [ "$p" -gt 0 ] && exit 0
	exit 1
}

main "$@"
