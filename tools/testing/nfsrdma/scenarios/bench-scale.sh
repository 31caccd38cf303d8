# SPDX-License-Identifier: GPL-2.0
# The scale half of `make bench SCALE=1` (tools/testing/nfsrdma/bench/):
# what nfsd's memory does as connections are added. In the client VM of
# a two-host run, at each threshold, rpcrdma-call opens N connections to
# the server VM (1 GiB) with Send and Receive Sizes of the threshold,
# each making one small NFSv4 READDIR of the root (a Call that presents
# a filehandle, as every NFS client's first Calls do: nfsd closes the
# oldest of more than 64 connections that have not, and as each makes
# its READDIR before the next opens, at most one has not), and holds
# them; the server's memory (guest/lib.sh mem_now, through its control
# channel) is read before, with them, and after they are gone. nfsd
# posts a connection's Receive buffers when it accepts it, so an idle
# connection holds all of them.
#
# With a module whose nfsd shares a device's Receive buffers (an SRQ),
# the pool's size is read from its svcrdma_srq_* events (ctl.cgi srq=N)
# before each count and with the connections open: the pool outlives
# them (it goes with the device), so what it grew by is its Receive
# memory's share of what the count took, and not owed back after. One
# connection opened and closed before each threshold's counts makes
# that threshold's pool and retires the one before.
#
# N runs 1, 16, 64, 256. Before each N, what a connection took so far
# (what the first took, then the slope from 1 to the last count; with
# a pool, without what the pool grew by, plus what it may still grow)
# tells what N would need; when that is more than 80 % of what the server has free,
# the count is not tried (status=skipped, with both figures): a server
# that runs out of memory in the kernel stops answering, and the
# figures already taken say what was asked. Prints one BENCH-SCALE line
# per threshold and count for bench/scale.py.
[ "$E2E_ROLE" = client ] || fail_scenario "bench-scale runs in the client VM of a two-host run"
COUNTS="1 16 64 256"
KIBS="64 256"
[ "$E2E_BENCH" = quick ] && COUNTS="1 16" KIBS="64"
credits=$(ctl credits)
[ -n "$credits" ] || fail_scenario "the server's control channel did not answer"
ctl srq-on >/dev/null

# pool SIZE: "COUNT MAX" of nfsd's pool for SIZE-octet Receives (its
# buffers, what it grows to), "0 0" if there is none
pool() {
	local r
	r=$(ctl "srq=$1")
	case "$r" in
	[0-9]*" "[0-9]*) echo "$r" ;;
	*) echo "0 0" ;;
	esac
}

# free_kib READING: MemFree plus the per-CPU free pages of a mem_now
# reading "MemFree,Slab,VmallocUsed,pcp"
free_kib() {
	echo "$1" | awk -F, '{ print $1 + $4 }'
}

# hold N SIZE LOG: N connections in the background, their events in LOG;
# returns when all are held, or when rpcrdma-call has ended (failed).
# Its Receive buffers are of 4096 octets whatever it advertises: the
# READDIR's Reply is of about 600
CALLER=
hold() {
	rpcrdma-call --json "$E2E_SERVER" "$E2E_PORT" --send "$2" --recv "$2" \
		--post-size 4096 --reply-size 512 --count "$1" --hold 3600 --timeout 30 >"$3" 2>&1 &
	CALLER=$!
	while kill -0 $CALLER 2>/dev/null; do
		grep -q '"event": "held"' "$3" && return 0
		sleep 1
	done
	return 1
}

# wait_closed: until nfsd holds no connection (two minutes at most)
wait_closed() {
	wait_for "nfsd to close the connections" 120 sh -c "[ \"\$(wget -q -O - '$E2E_CTL?qps')\" = 0 ]"
}

# release LOG: end rpcrdma-call (it disconnects every connection; a
# connection the server ended while held makes it exit non-zero) and
# wait until nfsd has closed its ends
release() {
	local rc=0
	kill -TERM $CALLER 2>/dev/null
	wait $CALLER 2>/dev/null || rc=$?
	CALLER=
	if [ "$rc" != 0 ]; then
		cat "$1"
		wait_closed
		fail_scenario "rpcrdma-call ended with status $rc while it held the connections (its events above)"
	fi
	wait_closed
}

for k in $KIBS; do
	size=$((k * 1024))
	sv=$(ctl size=$size)
	[ "${sv%% *}" = ok ] || fail_scenario "$k KiB: the server's control channel answered '$sv' to size=$size"
	# One connection first: with a pool, it makes the pool of this size,
	# and the pool of the size before goes with it, so that neither is
	# counted in what the first count took
	rpcrdma-call "$E2E_SERVER" "$E2E_PORT" --send "$size" --recv "$size" \
		--post-size 4096 --reply-size 512 --timeout 30 >/dev/null 2>&1 ||
		fail_scenario "$k KiB: one connection before the counts failed"
	wait_closed
	last_n=0
	last_used=0
	grown=0
	first_grown=0
	for n in $COUNTS; do
		sb=$(ctl mem)
		case "$sb" in
		*[0-9],*[0-9],*[0-9],*[0-9]) ;;
		*) fail_scenario "$k KiB, $n: the server's control channel gave no memory reading ($sb)" ;;
		esac
		free=$(free_kib "$sb")
		p0=$(pool "$size")
		pmax=${p0##* }
		p0=${p0%% *}
		if [ "$last_n" -gt 0 ]; then
			per=$(((last_used - grown) / last_n))
			[ "$last_n" = 1 ] ||
				per=$(((last_used - grown - first_used + first_grown) / (last_n - 1)))
			need=$((per * n))
			[ "$pmax" -le "$p0" ] || need=$((need + (pmax - p0) * k))
			if [ "$need" -gt $((free * 8 / 10)) ]; then
				echo "BENCH-SCALE module=$E2E_RPCRDMA size=$size n=$n status=skipped credits=$credits need=$need free=$free"
				continue
			fi
		fi
		log=/tmp/scale-$k-$n.json
		if ! hold "$n" "$size" "$log"; then
			rc=0
			wait $CALLER 2>/dev/null || rc=$?
			cat "$log"
			up=$(grep -c '"event": "established"' "$log")
			echo "BENCH-SCALE module=$E2E_RPCRDMA size=$size n=$n status=failed credits=$credits up=$up exit=$rc"
			wait_closed
			fail_scenario "$k KiB: $n connections: rpcrdma-call ended with status $rc after $up were established"
		fi
		sq=$(ctl qps)
		sa=$(ctl mem)
		p1=$(pool "$size")
		p1=${p1%% *}
		release "$log"
		se=$(ctl mem)
		used=$(($(free_kib "$sb") - $(free_kib "$sa")))
		grown=$(((p1 - p0) * k))
		[ "$n" != 1 ] || { first_used=$used; first_grown=$grown; }
		last_n=$n
		last_used=$used
		echo "BENCH-SCALE module=$E2E_RPCRDMA size=$size n=$n status=ok credits=$credits qps=$sq server=$sb/$sa/$se pool=$p0/$p1"
		expect_eq "$k KiB, $n connections: the server's QPs" "$sq" "$n"
	done
done
