# SPDX-License-Identifier: GPL-2.0
# e2e-needs: python3
# The tool admins run shows what a mount negotiated: nfs-utils'
# mountstats with patches/nfs-utils (make nfs-utils-mountstats), run in
# the guest by the host's python3. First an NFSv4.1 mount whose
# thresholds come from different ends (client Send Size 8192, Receive
# Size 16384, nfsd max_req_size 32768: 8192 client-to-server, 16384
# server-to-client, Send With Invalidate on), then an NFSv3 mount with
# the client's R clear (client 65536 and 4096, nfsd 16384: 16384 and
# 4096, no Send With Invalidate). For each, "mountstats --xprt" must
# show the values of the last three words of the mount's "xprt: rdma"
# line and of the xprtrdma_inline_thresh tracepoint, "--raw" must keep
# those words, and "--since" must show the values, not differences.
# Debian's unpatched mountstats (trixie's, the patch's base, and
# bookworm's, as in the guests' nfs-common) must run on the same line
# without a word on stderr and show the 27 counters it knows, nothing
# more. On a copy of the line cut to the 29 words of a stock kernel, and
# to the 22 of an older one (no RDMA_NOMSG or MR counters), the patched
# mountstats must print what the unpatched one prints and exit the same
# way; with the three words 0 0 0 (no connection yet) it must say so.
sys=/proc/sys/sunrpc
trap 'umount /mnt/mst 2>/dev/null' EXIT
for t in python3 mountstats mountstats-stock mountstats-bookworm; do
	command -v $t >/dev/null || fail_scenario "no $t in the guest: the boot lacks the python3 layer"
done
local_nfsd

# tool OUT CMD...: run a mountstats, its output in OUT; it must exit 0
# and say nothing on stderr
tool() {
	local out=$1 rc=0
	shift
	echo "+ $*"
	"$@" >"$out" 2>/tmp/mst.err || rc=$?
	[ $rc = 0 ] || fail_scenario "'$*' exited with status $rc: $(tail -n 3 /tmp/mst.err | tr '\n' ' ')"
	[ ! -s /tmp/mst.err ] || fail_scenario "'$*' wrote to stderr: $(head -n 3 /tmp/mst.err | tr '\n' ' ')"
}

# xprt_view FILE: "C2S/S2C/SWI" as a mountstats --xprt output FILE
# shows them (0/0/0 when it says none was negotiated yet)
xprt_view() {
	awk -F': ' '
		/Inline thresholds: not negotiated yet$/ { c = 0; s = 0; w = 0 }
		$1 ~ /Inline threshold, client to server$/ { c = $2 + 0 }
		$1 ~ /Inline threshold, server to client$/ { s = $2 + 0 }
		$1 ~ /Send With Invalidate$/ { w = ($2 == "allowed") ? 1 : ($2 == "not allowed") ? 0 : $2 }
		END { print c "/" s "/" w }' "$1"
}

# raw_xprt FILE: the number of words of the "xprt: rdma" line of a
# mountstats --raw output FILE, and its words 30-32
raw_xprt() {
	awk '$1 == "xprt:" && $2 == "rdma" { print NF " " $30 "/" $31 "/" $32; exit }' "$1"
}

# check WHAT MOUNTPOINT C2S S2C SWI: the views of the mounted
# MOUNTPOINT, which negotiated C2S, S2C and SWI (1 or 0)
check() {
	local what=$1 mnt=$2 want=$3/$4/$5 raw s
	expect_tp "$what: tracepoint" "$THRESH_EVENT" c2s=$3 s2c=$4 send_with_inv=$5
	raw=$(negotiated "$mnt")
	expect_eq "$what: mountstats file, words 30-32" "$raw" "$want"
	cp /proc/self/mountstats /tmp/mst.before

	tool /tmp/mst.out mountstats --xprt "$mnt"
	cat /tmp/mst.out
	expect_eq "$what: mountstats --xprt" "$(xprt_view /tmp/mst.out)" "$raw"
	tool /tmp/mst.out mountstats --raw "$mnt"
	expect_eq "$what: mountstats --raw, xprt line" "$(raw_xprt /tmp/mst.out)" "32 $raw"
	tool /tmp/mst.out mountstats --xprt --since /tmp/mst.before "$mnt"
	expect_eq "$what: mountstats --xprt --since" "$(xprt_view /tmp/mst.out)" "$raw"
	tool /tmp/mst.out mountstats "$mnt"
	expect_ge "$what: mountstats, lines of its default output" "$(wc -l </tmp/mst.out)" 5

	for s in mountstats-stock mountstats-bookworm; do
		tool /tmp/mst.out $s --xprt "$mnt"
		expect_eq "$what: $s --xprt, threshold lines" \
			"$(grep -c -e 'Inline threshold' -e 'Send With Invalidate' /tmp/mst.out)" 0
		expect_ge "$what: $s --xprt, counter lines" "$(grep -c ': [0-9]' /tmp/mst.out)" 20
		tool /tmp/mst.out $s --raw "$mnt"
		expect_eq "$what: $s --raw, words of the xprt line" \
			"$(raw_xprt /tmp/mst.out | cut -d' ' -f1)" 29
		tool /tmp/mst.out $s "$mnt"
	done
}

# like_stock N OPTION MOUNTPOINT: on the mount's block with its xprt
# line cut to N words, mountstats OPTION prints what the unpatched one
# prints, and exits with the same status (an unpatched mountstats fails
# on some short lines: then the patched one must fail the same way)
like_stock() {
	local n=$1 opt=$2 a b same
	awk -v n="$n" '$1 == "xprt:" && $2 == "rdma" {
			l = "\txprt:\trdma"
			for (i = 3; i <= n; i++) l = l " " $i
			print l; next
		}
		{ print }' /tmp/mst.before >/tmp/mst.cut
	a=$(mountstats $opt -f /tmp/mst.cut "$3" 2>/dev/null; echo "exit $?")
	b=$(mountstats-stock $opt -f /tmp/mst.cut "$3" 2>/dev/null; echo "exit $?")
	same="the unpatched one's (exit ${b##*exit })"
	if [ "$a" = "$b" ]; then
		a=$same
	else
		echo "$a" >/tmp/mst.a
		echo "$b" >/tmp/mst.b
		diff /tmp/mst.b /tmp/mst.a
		a="different (diff above)"
	fi
	expect_eq "$n-word line: mountstats ${opt:-(no option)}, output and exit status" "$a" "$same"
}

echo 32768 >$sys/svc_rdma/max_req_size || fail_scenario "max_req_size 32768"
echo 8192 >$sys/rdma_max_inline_write || fail_scenario "client Send Size 8192"
echo 16384 >$sys/rdma_max_inline_read || fail_scenario "client Receive Size 16384"
mount_traced /mnt/mst
check "v4.1" /mnt/mst 8192 16384 1
for N in 29 22; do
	for o in --xprt --raw ""; do
		like_stock $N "$o" /mnt/mst
	done
done
# The three words before the first connect: 0 0 0
awk '$1 == "xprt:" && $2 == "rdma" && NF == 32 { $30 = 0; $31 = 0; $32 = 0 } { print }' \
	/tmp/mst.before >/tmp/mst.zero
tool /tmp/mst.out mountstats --xprt -f /tmp/mst.zero /mnt/mst
expect_eq "mountstats --xprt, 0 0 0 (no connection yet)" "$(grep -c 'not negotiated yet' /tmp/mst.out)" 1
nfs_umount /mnt/mst

echo 16384 >$sys/svc_rdma/max_req_size || fail_scenario "max_req_size 16384"
echo 65536 >$sys/rdma_max_inline_write || fail_scenario "client Send Size 65536"
echo 4096 >$sys/rdma_max_inline_read || fail_scenario "client Receive Size 4096"
echo 0 >$sys/rdma_remote_invalidate || fail_scenario "client R clear"
mount_traced /mnt/mst 3
check "v3, R clear" /mnt/mst 16384 4096 0
nfs_umount /mnt/mst
