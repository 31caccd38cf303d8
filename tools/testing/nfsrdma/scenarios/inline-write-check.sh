# SPDX-License-Identifier: GPL-2.0
# Small WRITEs checked octet for octet on the server. For inline
# thresholds of 8, 64 and 256 KiB (the server's max_req_size and the
# client's inline write threshold alike), over NFSv3 and NFSv4.1, each
# size from 1 octet to the threshold around every page and block
# boundary is written once with O_DIRECT (one WRITE of exactly that
# size), and the file is read back from the export itself, not through
# the client. Above a page, the Call spans the server's Receive buffer
# blocks, so the RPC layer meets the buffer's pages. Every WRITE of up
# to 64 KiB that fits below the threshold less 1 KiB of headers must
# go inline (no Read chunk in mountstats). Larger ones may take a Read
# chunk, as RFC 8166 allows: the client Sends a WRITE's pages with one
# SGE each, and soft-RoCE offers 32 Send SGEs (about 116 KiB). soft-iWARP
# offers 6: the transport header, the RPC head, the tail and 3 pages,
# so there the WRITEs that must go inline are those of up to 12 KiB.
S=/proc/sys/sunrpc/svc_rdma
R=/proc/sys/sunrpc
local_nfsd

# sizes T: 1 octet up to T, with each page and block boundary +-1
sizes() {
	{
		printf '%s\n' 1 2 3 4 5 100 1000
		for b in 4096 8192 16384 32768 65536 131072 262144; do
			printf '%s\n' $((b - 1)) $b $((b + 1))
		done
		printf '%s\n' $(($1 - 1)) "$1"
	} | awk -v t="$1" '$1 >= 1 && $1 <= t' | sort -n | uniq
}

inline_max=65536
[ "$E2E_RDMA" != siw ] || inline_max=12288
for t in 8192 65536 262144; do
	echo $t >$S/max_req_size
	echo $t >$R/rdma_max_inline_read
	echo $t >$R/rdma_max_inline_write
	for vers in 3 4.1; do
		mnt=/mnt/iwc
		nfs_mount $vers $mnt
		# (soft-iWARP's 6 Receive SGEs hold 6 blocks of 32 KiB: nfsd
		# advertises 196608 where 262144 was asked)
		c2s=$t
		[ "$E2E_RDMA" != siw ] || [ $t -le 196608 ] || c2s=196608
		expect_eq "$t v$vers: client-to-server threshold (mountstats)" \
			"$(negotiated $mnt | cut -d/ -f1)" $c2s
		bad= n=0 inline=0 chunked=
		for s in $(sizes $t); do
			head -c "$s" /dev/urandom >/tmp/w
			before=$(rdma_stats $mnt | sed 's/read_chunks=\([0-9]*\).*/\1/')
			dd if=/tmp/w of=$mnt/w.$s bs="$s" count=1 oflag=direct \
				2>/dev/null || fail_scenario "$t v$vers: O_DIRECT write of $s octets"
			after=$(rdma_stats $mnt | sed 's/read_chunks=\([0-9]*\).*/\1/')
			cmp -s /tmp/w /export/w.$s || bad="$bad $s"
			if [ "$s" -le $((t - 1024)) ] && [ "$s" -le $inline_max ]; then
				inline=$((inline + 1))
				[ "$after" = "$before" ] || chunked="$chunked $s"
			fi
			rm -f $mnt/w.$s
			n=$((n + 1))
		done
		expect_eq "$t v$vers: of $n sizes, those that differ on the server" \
			"${bad:- none}" " none"
		expect_eq "$t v$vers: of $inline sizes below the threshold, those sent with a Read chunk" \
			"${chunked:- none}" " none"
		nfs_umount $mnt
	done
done
