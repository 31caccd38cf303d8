# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA with Kerberos: sec=krb5, krb5i and krb5p, NFSv3 and
# NFSv4.1, at inline thresholds of 4 KiB and 64 KiB on both ends. A KDC
# (MIT krb5kdc) runs in the VM, rpc.gssd on the client end, rpc.svcgssd
# and rpc.idmapd on the server end, one host principal in the keytab.
#
# RPCSEC_GSS is where the RPC layer turns the transport's buffers into
# scatterlists: the MIC over each Call and Reply header, the checksum of
# krb5i, the in-place decryption of krb5p, on both ends. Each size from
# 1 octet to past the threshold, around each page boundary, is written
# with O_DIRECT (one WRITE of that size) and compared in the export
# itself, then read back through the mount with O_DIRECT (one READ) and
# compared again.
#
# First, krb5i READs of 128 KiB served back to back by one nfsd thread.
# No room is left after the data, so the checksum goes to the page at
# rq_next_page: a server that does not keep that page until the Reply's
# Send completes refills it for the thread's next RPC while the RDMA
# Write that carries the checksum may still be queued, and the client
# rejects the Reply (BAD_SIG or a failed unwrap, then EIO).
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
REALM=E2E.TEST
K=/tmp/krb5
local_nfsd
host=$(hostname)
threads=$(cat /proc/fs/nfsd/threads)
TI=/sys/kernel/tracing/instances/krb5-io

restore() {
	local i=0
	[ -s "$REASON_FILE" ] && logs
	umount /mnt/krb5 2>/dev/null
	killall -q rpc.gssd rpc.svcgssd rpc.idmapd krb5kdc 2>/dev/null
	while pidof rpc.gssd rpc.svcgssd rpc.idmapd krb5kdc >/dev/null && [ $i -lt 20 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	hostname "$host"
	[ -d $TI ] && rmdir $TI
	nfsd_running && echo "$threads" >/proc/fs/nfsd/threads
	rm -rf /export/k
	echo "/export 192.0.2.0/24(rw,fsid=0,no_subtree_check,no_root_squash,insecure,sync)" >/etc/exports
	exportfs -ra
}
trap restore EXIT

# logs: the daemons' last words, for a failure's diagnosis, each line
# marked E2E-LOG: gssd's own "WARNING:" lines are not a kernel splat
# (run.sh's kernel-log check skips them)
logs() {
	local f
	{
		for f in $K/kdc.log $K/gssd.log $K/svcgssd.log $K/idmapd.log; do
			echo "---- $f"
			tail -n 15 "$f" 2>/dev/null
		done
		echo "---- dmesg"
		dmesg | tail -n 20
	} 2>&1 | sed 's/^/E2E-LOG /'
}

# MIT Kerberos needs the kernel's random pool. In a TCG guest on a busy
# host it can take over a minute to fill, and a krb5 mount before then
# fails with status 32 (rpc.gssd: gss_set_allowable_enctypes(): "Program
# lacks support for encryption type"; the pool was ready 2 s later).
# /dev/random blocks until it is ready.
wait_for "the kernel's random pool to be ready" 300 timeout 2 head -c 1 /dev/random
say "random pool ready $(cut -d' ' -f1 /proc/uptime) s after boot"

# The host name the server's address resolves to (/etc/hosts): gssd
# asks for a ticket to nfs/e2e-server, and finds its own machine
# credential, nfs/<hostname>, in the keytab
hostname e2e-server
mkdir -p $K /etc/krb5kdc /var/lib/krb5kdc /var/tmp
cat >/etc/krb5.conf <<EOF
[libdefaults]
	default_realm = $REALM
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
	udp_preference_limit = 1
[realms]
	$REALM = {
		kdc = 127.0.0.1
		admin_server = 127.0.0.1
	}
[domain_realm]
	e2e-server = $REALM
[logging]
	kdc = FILE:$K/kdc.log
EOF
cat >/etc/krb5kdc/kdc.conf <<EOF
[kdcdefaults]
	kdc_ports = 88
	kdc_tcp_ports = 88
[realms]
	$REALM = {
		database_name = /var/lib/krb5kdc/principal
		key_stash_file = /etc/krb5kdc/stash
		acl_file = /etc/krb5kdc/kadm5.acl
		supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
	}
EOF
printf '[General]\nDomain = e2e.test\n[Mapping]\nNobody-User = nobody\nNobody-Group = nogroup\n' >/etc/idmapd.conf
rm -f /etc/krb5.keytab /var/lib/krb5kdc/principal*
run kdb5_util -r $REALM create -s -P e2e-master-password
run kadmin.local -q "addprinc -randkey nfs/e2e-server@$REALM"
run kadmin.local -q "ktadd -k /etc/krb5.keytab nfs/e2e-server@$REALM"
run krb5kdc
# 88 is 0058 in /proc/net/tcp
wait_for "the KDC to listen on TCP port 88" 30 grep -q ':0058 ' /proc/net/tcp
pass "KDC listening, nfs/e2e-server in the keytab"

# Server end: context upcalls (rpc.svcgssd), owner names (rpc.idmapd,
# which also serves the client end's NFSv4 idmapper pipe)
rpc.svcgssd -f -vvv >$K/svcgssd.log 2>&1 &
rpc.idmapd -f -vvv >$K/idmapd.log 2>&1 &
rpc.gssd -f -vvv >$K/gssd.log 2>&1 &
# opens: whether daemon $1 holds a file whose path has $2 in it
opens() {
	local p
	p=$(pidof "$1") || return 1
	ls -l /proc/$p/fd 2>/dev/null | grep -q "$2"
}
# Ready when each holds what the kernel looks for: rpc.gssd the gssd
# pipe (else gssd_running() is false and a mount fails), rpc.svcgssd
# the context upcall channel, rpc.idmapd nfsd's idmap channel
wait_for "rpc.gssd to open its rpc_pipefs pipe" 30 opens rpc.gssd rpc_pipefs/gssd
wait_for "rpc.svcgssd to open the upcall channel" 30 opens rpc.svcgssd auth.rpcsec.init
wait_for "rpc.idmapd to open nfsd's channel" 30 opens rpc.idmapd nfs4.idtoname
# The machine principal maps to no local user: it works as nobody
mkdir -p /export/k && chmod 1777 /export/k
echo "/export 192.0.2.0/24(rw,fsid=0,no_subtree_check,no_root_squash,insecure,sync,sec=sys:krb5:krb5i:krb5p)" >/etc/exports
run exportfs -ra
# rpc.gssd trades the context's tokens in NULL calls of its own, over
# TCP to port 2049 for an rdma mount, as nfs-utils does; all else goes
# over RDMA. nfsd listens there too, as a real server would, and goes
# on listening there after this scenario (portlist cannot remove one).
grep -qx "tcp 2049" /proc/fs/nfsd/portlist ||
	echo "tcp 2049" >/proc/fs/nfsd/portlist || fail_scenario "nfsd: cannot listen on tcp 2049"

# sizes T: 1 octet to past the threshold T, each page boundary +-1
sizes() {
	{
		printf '%s\n' 1 100 1000
		for b in 4096 8192 16384 32768 65536; do
			printf '%s\n' $((b - 1)) $b $((b + 1))
		done
		printf '%s\n' $(($1 - 1)) "$1" 131072 262151
	} | awk -v t="$1" '$1 >= 1 && $1 <= t + 1 || $1 > 131071' | sort -n | uniq
}

mnt=/mnt/krb5
# The client's verdicts on the Replies, in a trace instance of this
# scenario's own: a checksum that does not match (BAD_SIG), one whose
# length word was overwritten (unwrap_failed), a sequence number that
# was (bad_seqno)
G="rpcgss_verify_mic rpcgss_unwrap_failed rpcgss_bad_seqno"
mkdir -p $TI || fail_scenario "cannot make the trace instance $TI"
for e in $G; do
	echo 1 >$TI/events/rpcgss/$e/enable || fail_scenario "no $e tracepoint"
done
[ "$(cat $TI/tracing_on)" = 1 ] || fail_scenario "$TI is not recording"
echo 1 >/proc/fs/nfsd/threads || fail_scenario "nfsd: cannot run one thread"
head -c 4194304 /dev/urandom >/export/k/seq
for vers in 4.1 3; do
	nfs_mount $vers $mnt sec=krb5i
	rsize=$(sed -n "s|.* $mnt .*,rsize=\([0-9]*\),.*|\1|p" /proc/mounts)
	expect_ge "krb5i v$vers: rsize, to carry a 128 KiB READ whole" "$rsize" 131072
	echo >$TI/trace
	# 8 readers, each of the whole file in blocks of 128 KiB (one READ
	# each, whose checksum starts the page at rq_next_page) or of 136
	# KiB (READs of 128 and 8 KiB, sent together at an rsize of 128
	# KiB): the mix makes the failure of a server without the fix show
	# in every run here, where 128 KiB alone missed one run of 6.12.
	# Wait for them by PID: the daemons above are this shell's
	# children too.
	pids=
	for j in 1 2 3 4 5 6 7 8; do
		bs=131072
		[ $((j % 2)) = 0 ] && bs=139264
		timeout 300 dd if=$mnt/k/seq of=/tmp/seq.$j bs=$bs iflag=direct 2>/tmp/seq.$j.err &
		pids="$pids $!"
	done
	wait $pids
	badsig=$(grep -c "rpcgss_verify_mic:.*maj_stat=GSS_S_BAD_SIG" $TI/trace)
	unwrap=$(grep -c "rpcgss_unwrap_failed:" $TI/trace)
	seqno=$(grep -c "rpcgss_bad_seqno:" $TI/trace)
	differ=0
	for j in 1 2 3 4 5 6 7 8; do
		cmp -s /export/k/seq /tmp/seq.$j || {
			differ=$((differ + 1))
			say "reader $j: $(tail -n 1 /tmp/seq.$j.err)"
		}
		rm -f /tmp/seq.$j /tmp/seq.$j.err
	done
	nfs_umount $mnt
	say "krb5i v$vers: BAD_SIG $badsig, unwrap_failed $unwrap, bad_seqno $seqno"
	expect_eq "krb5i v$vers, one nfsd thread, 8 readers of 4 MiB in blocks of 128 and 136 KiB: Replies the client rejected" \
		"$((badsig + unwrap + seqno))" 0
	expect_eq "krb5i v$vers, one nfsd thread: readers that got an error or other data" \
		"$differ" 0
done
rm -f /export/k/seq
echo "$threads" >/proc/fs/nfsd/threads || fail_scenario "nfsd: cannot run $threads threads again"
rmdir $TI

for t in 4096 65536; do
	echo $t >$S/max_req_size
	echo $t >$R/rdma_max_inline_read
	echo $t >$R/rdma_max_inline_write
	for sec in krb5 krb5i krb5p; do
		for vers in 3 4.1; do
			nfs_mount $vers $mnt sec=$sec
			o=$(grep " $mnt " /proc/mounts)
			case "$o" in *,proto=rdma,*) ;; *) o= ;; esac
			case "$o" in *,sec=$sec,*) ;;
			*) fail_scenario "$t $sec v$vers: the mount is not sec=$sec over rdma: $o" ;;
			esac
			d=$mnt/k
			bad= back= n=0
			for s in $(sizes $t); do
				head -c "$s" /dev/urandom >/tmp/w
				dd if=/tmp/w of=$d/w.$s bs="$s" count=1 oflag=direct 2>/tmp/dd.err ||
					fail_scenario "$t $sec v$vers: O_DIRECT write of $s octets: $(tail -n 1 /tmp/dd.err)"
				cmp -s /tmp/w /export/k/w.$s || bad="$bad $s"
				dd if=$d/w.$s of=/tmp/r bs="$s" count=1 iflag=direct 2>/tmp/dd.err ||
					fail_scenario "$t $sec v$vers: O_DIRECT read of $s octets: $(tail -n 1 /tmp/dd.err)"
				cmp -s /tmp/w /tmp/r || back="$back $s"
				rm -f $d/w.$s
				n=$((n + 1))
			done
			expect_eq "$t $sec v$vers: of $n sizes, those that differ on the server" \
				"${bad:- none}" " none"
			expect_eq "$t $sec v$vers: of $n sizes, those read back different" \
				"${back:- none}" " none"
			nfs_umount $mnt
		done
	done
done
