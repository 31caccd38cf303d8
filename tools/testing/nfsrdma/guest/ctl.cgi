#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The control channel to the server VM of a two-host run: a CGI script
# of busybox httpd, which the server's init starts on port 8080 (plain
# HTTP over the VMs' private link). The client's scenarios ask, with
# wget (lib.sh's ctl), http://192.0.2.1:8080/cgi-bin/ctl?REQUEST:
#   size=N     set nfsd's max_req_size (new connections take it); prints
#              "ok N" or "refused N" with the value in force
#   addrs=N    add 192.0.2.11 .. 192.0.2.(10+N) to eth0, so that N NFSv3
#              mounts of different addresses make N connections
#   mem        drop caches, then print guest/lib.sh mem_now's readings
#   qps        how many RC queue pairs the kernel holds (one per connection)
#   credits    nfsd's max_requests
#   accepts-on record nfsd's svcrdma_cm_accept and svcrdma_reply_too_large
#              events from now on (earlier ones are dropped); "ok", or
#              "none" on a module without the tracepoints
#   accepts    the svcrdma_cm_accept events recorded since accepts-on,
#              one a line
#   too-large  the svcrdma_reply_too_large events recorded since
#              accepts-on (a Reply answered with ERR_CHUNK, or a
#              backchannel Call not sent), one a line
#   srq-on     record the svcrdma_srq_* events of nfsd's shared Receive
#              buffer pools from now on; "ok", or "none" on a module
#              without them
#   srq=N      the pool of N-octet buffers as its newest event left it:
#              "COUNT MAX" (buffers made, buffers it grows to), "0 0"
#              after it was destroyed, or "none" if no event names it
#   restart    restart nfsd, which closes every connection, and end
#              its grace period
#   fragment=N load nfsrdma_fragment.ko order=N: no free block of
#              order N or more from then on; prints its dmesg line
#   unfragment unload it
#   log        the kernel's svcrdma and nfsrdma_fragment messages
#   restore    after each of the client's scenarios: unload
#              nfsrdma_fragment.ko and put back the sunrpc sysctls and
#              enabled trace events as the server had them when nfsd
#              first started (guest/lib.sh state_restore; what differed
#              goes to the server's console); prints "ok"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /e2e/lib.sh
S=/proc/sys/sunrpc/svc_rdma
echo "Content-Type: text/plain"
echo
case "$QUERY_STRING" in
size=*)
	if echo "${QUERY_STRING#size=}" >$S/max_req_size 2>/dev/null; then
		echo "ok $(cat $S/max_req_size)"
	else
		echo "refused $(cat $S/max_req_size)"
	fi ;;
addrs=*)
	i=1
	while [ $i -le "${QUERY_STRING#addrs=}" ]; do
		ip addr add "192.0.2.$((10 + i))/24" dev eth0 2>/dev/null
		i=$((i + 1))
	done
	echo ok ;;
mem)
	mem_now ;;
qps)
	rc_qps ;;
credits)
	cat $S/max_requests ;;
accepts-on)
	T=/sys/kernel/tracing
	if echo 1 >$T/events/rpcrdma/svcrdma_cm_accept/enable 2>/dev/null &&
		echo 1 >$T/events/rpcrdma/svcrdma_reply_too_large/enable 2>/dev/null; then
		echo >$T/trace
		echo ok
	else
		echo none
	fi ;;
accepts)
	grep svcrdma_cm_accept /sys/kernel/tracing/trace ;;
too-large)
	grep svcrdma_reply_too_large /sys/kernel/tracing/trace ;;
srq-on)
	T=/sys/kernel/tracing
	if [ -d $T/events/rpcrdma/svcrdma_srq_grow ]; then
		for e in create grow destroy; do
			echo 1 >$T/events/rpcrdma/svcrdma_srq_$e/enable
		done
		echo ok
	else
		echo none
	fi ;;
srq=*)
	grep -E "svcrdma_srq_(create|grow|destroy):.* size=${QUERY_STRING#srq=} " \
		/sys/kernel/tracing/trace | tail -n 1 |
		awk '/svcrdma_srq_destroy:/ { print "0 0"; next }
		     { for (i = 1; i <= NF; i++) {
			 if ($i ~ /^count=/) c = substr($i, 7)
			 if ($i ~ /^max=/) m = substr($i, 5) }
		       print c, m }' | grep . || echo none ;;
restart)
	nfsd_restart
	nfsd_end_grace
	echo ok ;;
fragment=*)
	fragment "${QUERY_STRING#fragment=}" ;;
unfragment)
	rmmod nfsrdma_fragment && echo ok ;;
log)
	dmesg | grep -E 'svcrdma:|nfsrdma_fragment:' ;;
restore)
	rmmod nfsrdma_fragment 2>/dev/null
	state_restore >/dev/console 2>&1
	echo ok ;;
*)
	echo "unknown request" ;;
esac
