#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bench's control channel to the server VM of a two-host run: a CGI
# script of busybox httpd, which the server's init starts on port 8080
# when e2e.bench is set (plain HTTP over the VMs' private link). The
# client asks, with wget, http://192.0.2.1:8080/cgi-bin/ctl?REQUEST:
#   size=N     set nfsd's max_req_size (new connections take it); prints
#              "ok N" or "refused N" with the value in force
#   addrs=N    add 192.0.2.11 .. 192.0.2.(10+N) to eth0, so that N NFSv3
#              mounts of different addresses make N connections
#   mem        drop caches, then print guest/lib.sh mem_now's readings
#   qps        how many RC queue pairs the kernel holds (one per connection)
#   credits    nfsd's max_requests
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
*)
	echo "unknown request" ;;
esac
