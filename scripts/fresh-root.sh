#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-root.sh demo|check
#
# Prove that the README's commands work from nothing: bootstrap a new
# minimal Debian bookworm root (mmdebstrap, minbase, the host's apt
# sources, plus git and make only), put a git clone of the project in it
# and run "make demo" (or "make check") there as root, in a private
# mount namespace with /proc, /sys and /dev mounted, so that nothing
# stays mounted when it ends. Prints KTAP.
#
# The root is made anew on every run. Downloaded .deb files are kept in
# $BUILD/fresh-root/debs between runs: that saves the downloads, never an
# installation, so a package missing from scripts/deps.sh still fails.
#
# Environment:
#   FRESH_SRC   the repository to clone (default: this one; its HEAD is
#               what is tested, so commit first)
#   FRESH_ROOT_TIMEOUT  limit of the command in the root, seconds
#               (default 2400 for demo, 7200 for check)

. "$(dirname "$0")/lib.sh"

MODE=${1:-demo}
SRC=${FRESH_SRC:-$TOP}
WORK=$BUILD/fresh-root
ROOT=$WORK/root
DEBS=$WORK/debs
LOG=$WORK/$MODE.log
TIMES=$WORK/times
# Packages of deps' list that a minbase root with git and make must lack:
# if it had them, the check would not show that deps installs them
MUST_LACK=(linux-source-6.12 qemu-system-x86 build-essential ibverbs-utils
	   netbase busybox-static rdma-core mmdebstrap)

case $MODE in
demo) TIMEOUT=${FRESH_ROOT_TIMEOUT:-2400} ;;
check) TIMEOUT=${FRESH_ROOT_TIMEOUT:-7200} ;;
*) die "usage: $0 demo|check" ;;
esac

N=0
FAILS=0
ok() { N=$((N + 1)); echo "ok $N $1"; }
not_ok() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "not ok $N $1 # $2"; }
diag() { sed -u 's/^/# /'; }

# Mounts under the root that the host can see (there should be none)
mounts_under_root() {
	awk -v r="$ROOT" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}

# The host's apt sources, except the backports file deps.sh writes: a
# new machine does not have it, and deps must add it there
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -s "$f" ] || continue
		[ "$(basename "$f")" != "$DEPS_BACKPORTS_FILE" ] || continue
		grep -qs '^[^#]' "$f" && echo "$f"
	done
	return 0
}

# The host's settings for reaching the archive (proxies, validity
# checks of a snapshot) go with it
host_aptopts() {
	local f
	for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] || continue
		grep -qs '^[[:space:]]*Acquire' "$f" && echo "--aptopt=$f"
	done
	return 0
}

bootstrap() {
	local sources opts
	mapfile -t sources < <(host_sources)
	mapfile -t opts < <(host_aptopts)
	[ "${#sources[@]}" -gt 0 ] || die "the host has no apt sources to give the root"
	mkdir -p "$DEBS"
	# Keep the downloads: mmdebstrap keeps what it finds in the
	# archives directory, and the customize hook saves the new ones
	mmdebstrap --variant=minbase --include=git,make "${opts[@]}" \
		--setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
		--setup-hook="find '$DEBS' -maxdepth 1 -name '*.deb' -exec cp -t \"\$1/var/cache/apt/archives\" {} +" \
		--customize-hook="find \"\$1/var/cache/apt/archives\" -maxdepth 1 -name '*.deb' -exec cp -n -t '$DEBS' {} +" \
		bookworm "$ROOT" "${sources[@]}"
}

# In a private mount namespace: mount what qemu and apt need, run the
# command in the root as root with a clean environment
run_in_root() {
	local cmd=$1
	unshare --mount --propagation private -- /bin/bash -euc '
		root=$1 debs=$2 cmd=$3 limit=$4
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root/var/cache/apt/archives"
		mount --bind "$debs" "$root/var/cache/apt/archives"
		exec timeout --kill-after=30 "$limit" chroot "$root" /usr/bin/env -i \
			HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 TERM=dumb FRESH_ROOT_INSIDE=1 \
			/bin/bash -c "cd /root/project && $cmd"
	' fresh-root "$ROOT" "$DEBS" "$cmd" "$TIMEOUT"
}

main() {
	local t0 t1 rc p missing=() left
	[ "$(id -u)" = 0 ] || die "fresh-root needs root (mmdebstrap, chroot, mounts)"
	command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run 'make deps'"
	mkdir -p "$WORK"
	echo "TAP version 13"
	echo "1..5"
	if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
		echo "# NB: $SRC has uncommitted changes; the clone tests its HEAD"
	fi

	left=$(mounts_under_root)
	[ -z "$left" ] || die "still mounted under $ROOT from an earlier run: $left"
	rm -rf "$ROOT"
	t0=$(date +%s)
	if bootstrap 2>&1 | diag && [ -x "$ROOT/usr/bin/git" ] && [ -x "$ROOT/usr/bin/make" ]; then
		ok "bootstrap a minbase bookworm root with git and make"
	else
		not_ok "bootstrap a minbase bookworm root with git and make" "mmdebstrap failed"
		echo "# fresh-root: 0 passed, $FAILS failed"
		exit 1
	fi
	t1=$(date +%s)
	echo "# bootstrap: $((t1 - t0)) s"

	for p in "${MUST_LACK[@]}"; do
		if chroot "$ROOT" dpkg-query -W -f '${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qx installed; then
			missing+=("$p")
		fi
	done
	if [ "${#missing[@]}" = 0 ]; then
		ok "the new root lacks what deps installs (${MUST_LACK[*]})"
	else
		not_ok "the new root lacks what deps installs" "already installed: ${missing[*]}"
	fi

	git clone -q --no-hardlinks "$SRC" "$ROOT/root/project"
	echo "# testing $(git -C "$ROOT/root/project" log -1 --format='%h %s')"
	rc=0
	t0=$(date +%s)
	run_in_root "make $MODE" >"$LOG" 2>&1 || rc=$?
	t1=$(date +%s)
	diag <"$LOG"
	echo "# make $MODE in the fresh root: $((t1 - t0)) s (exit status $rc)"
	echo "$(date -u +%FT%TZ) make $MODE: $((t1 - t0)) s, exit status $rc" >>"$TIMES"
	if [ "$rc" = 0 ]; then
		ok "make $MODE in the fresh root"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		not_ok "make $MODE in the fresh root" "timed out after $TIMEOUT s"
	else
		not_ok "make $MODE in the fresh root" "exit status $rc: $(failure_reason)"
	fi

	case $MODE in
	demo) check_demo_report ;;
	check) check_summary ;;
	esac

	left=$(mounts_under_root)
	if [ -z "$left" ]; then
		ok "nothing left mounted under the root"
	else
		not_ok "nothing left mounted under the root" "${left//$'\n'/ }"
	fi
	echo "# fresh-root: $((N - FAILS)) passed, $FAILS failed"
	[ "$FAILS" = 0 ]
}

# Why make stopped: the first line that says ERROR, or else the last
# line before make's first "*** ... Error"
failure_reason() {
	awk '/^ERROR: / { print; f = 1; exit }
	     /^make(\[[0-9]+\])?: \*\*\* / { if (prev == "") prev = $0; print prev; f = 1; exit }
	     NF { prev = $0 }
	     END { if (!f) print prev }' "$LOG"
}

# The demo's negotiation report: both advertisements, what the kernel
# client negotiated, and the scenario's PASS
check_demo_report() {
	local want missing=()
	for want in 'Client advertises (connect request' 'Server advertises (accept reply' \
		    'Negotiated by the kernel client' 'neg send/recv=16384/16384' \
		    'PASS demo/demo'; do
		grep -qF -- "$want" "$LOG" || missing+=("'$want'")
	done
	if [ "${#missing[@]}" = 0 ]; then
		ok "the demo's negotiation report"
	else
		not_ok "the demo's negotiation report" "missing ${missing[*]}"
	fi
}

# make check's last line, from inside the root
check_summary() {
	local line
	line=$(grep -E '^check: [0-9]+ passed, [0-9]+ failed$' "$LOG" | tail -n 1 || true)
	case $line in
	"check: 0 passed"*|"") not_ok "make check's summary in the fresh root" "${line:-no summary line}" ;;
	*", 0 failed") ok "make check's summary in the fresh root ($line)" ;;
	*) not_ok "make check's summary in the fresh root" "$line" ;;
	esac
}

main "$@"
