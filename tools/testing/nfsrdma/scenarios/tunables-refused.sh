# Every module parameter and sysctl this series adds or widens refuses
# what it cannot take as written: values out of range, sizes that are
# not a multiple of 1024, negative numbers, words that are not numbers
# and more than one value. Each refused write fails, leaves the value in
# force and leaves exactly one dmesg line that names the setting and
# the value. Every setting starts away from its default, so a refusal
# that fell back to the default would show.
[ "$E2E_RPCRDMA" = ours ] || fail "this scenario needs our rpcrdma.ko"
S=/proc/sys/sunrpc
P=/sys/module/rpcrdma/parameters

# refused FILE NAME VALUE...: dmesg calls FILE's setting NAME
refused() {
	local file=$1 name=$2 before v n
	shift 2
	before=$(cat "$file") || fail "cannot read $file"
	for v in "$@"; do
		dmesg -c >/dev/null
		if printf '%s\n' "$v" >"$file" 2>/dev/null; then
			fail "$file took '$v'"
		fi
		[ "$(cat "$file")" = "$before" ] ||
			fail "$file changed from $before to $(cat "$file") after '$v'"
		n=$(dmesg | grep -cF "rpcrdma: $name=$v refused: ")
		[ "$n" = 1 ] || fail "'$v' >$file: $n dmesg lines say 'rpcrdma: $name=$v refused'"
	done
	echo "E2E-CHECK: ok $file refused $# values, still $before"
}

# taken FILE VALUE EXPECTED: a write of VALUE reads back as EXPECTED
taken() {
	printf '%s\n' "$2" >"$1" || fail "$1 refused '$2'"
	expect_eq "$1 after '$2'" "$(cat "$1")" "$3"
}

# Whatever happens, the scenarios that follow start from the defaults
defaults() {
	local f
	for f in $P/max_inline_read $P/max_inline_write $P/svcrdma_max_req_size; do
		printf '4096\n' >$f
	done
	printf '1\n' >$P/remote_invalidate
	printf '1\n' >$P/svcrdma_remote_invalidate
}
trap defaults EXIT

# out of range, not a multiple, negative, not a number, two values, empty
SIZES="0 512 1023 263168 4294967296 1025 5000 -1 -4096 abc 4k 4096x 0x \
	+-1 1024.0 '4096 2048' ''"
SWITCH_PARAM="2 10 -1 abc yes-please n0 '1 0' ''"
SWITCH_SYSCTL="2 10 -1 abc y 1x '1 0' ''"

taken $P/max_inline_read 8192 8192
taken $S/rdma_max_inline_write 2048 2048
taken $S/svc_rdma/max_req_size 16384 16384
taken $P/remote_invalidate off N
taken $S/svc_rdma/remote_invalidate 0 0

eval "set -- $SIZES"
refused $P/max_inline_read max_inline_read "$@"
refused $P/max_inline_write max_inline_write "$@"
refused $S/rdma_max_inline_read "sysctl rdma_max_inline_read" "$@"
refused $S/rdma_max_inline_write "sysctl rdma_max_inline_write" "$@"
refused $P/svcrdma_max_req_size svcrdma_max_req_size "$@"
refused $S/svc_rdma/max_req_size "sysctl max_req_size" "$@"
eval "set -- $SWITCH_PARAM"
refused $P/remote_invalidate remote_invalidate "$@"
refused $P/svcrdma_remote_invalidate svcrdma_remote_invalidate "$@"
eval "set -- $SWITCH_SYSCTL"
refused $S/svc_rdma/remote_invalidate "sysctl remote_invalidate" "$@"

# Two lines in one write are refused, and logged with the newline
# escaped, so the log never shows a valid value as the refused one
for f in $P/max_inline_read $S/rdma_max_inline_read; do
	dmesg -c >/dev/null
	if printf '1024\n2048\n' >$f 2>/dev/null; then
		fail "$f took two lines"
	fi
	expect_eq "$f after two lines" "$(cat $f)" 8192
	dmesg | grep -qF 'max_inline_read=1024\n2048 refused: ' ||
		fail "$f: no dmesg line shows '1024\n2048' refused"
done

# The message says what would be taken
dmesg -c >/dev/null
if printf '5000\n' >$S/svc_rdma/max_req_size 2>/dev/null; then
	fail "max_req_size took 5000"
fi
dmesg | grep -qF "rpcrdma: sysctl max_req_size=5000 refused: use a multiple of 1024 from 1024 to 262144" ||
	fail "no full refusal message for max_req_size=5000"
if printf 'on?\n' >$P/svcrdma_remote_invalidate 2>/dev/null; then
	fail "svcrdma_remote_invalidate took 'on?'"
fi
dmesg | grep -qF "rpcrdma: svcrdma_remote_invalidate=on? refused: use 1 or 0 (or y/n, yes/no, on/off, true/false)" ||
	fail "no full refusal message for svcrdma_remote_invalidate=on?"

# The words a switch does take, and the values the sizes take
taken $P/remote_invalidate TRUE Y
taken $P/remote_invalidate 0 N
taken $P/remote_invalidate yes Y
taken $S/svc_rdma/remote_invalidate 1 1
expect_eq "parameter after the sysctl" "$(cat $P/svcrdma_remote_invalidate)" Y
taken $P/svcrdma_remote_invalidate Off N
expect_eq "sysctl remote_invalidate after the parameter" "$(cat $S/svc_rdma/remote_invalidate)" 0
taken $P/max_inline_write 0x400 1024
taken $S/rdma_max_inline_read 262144 262144
