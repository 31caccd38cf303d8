# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the project's build scripts. Source it; don't run it.
#
# The base kernel package version is pinned in exactly one place, the
# top-level Makefile (BASE_PKG_VERSION), which exports it to us. What
# was actually installed is recorded by scripts/deps.sh in
# $BUILD/base.env, and every later step reads that file.

set -euo pipefail
shopt -s inherit_errexit

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=${OUT:-$TOP/out}
BASE_ENV=$BUILD/base.env
# The apt source file scripts/deps.sh adds when bookworm-backports is
# not configured
DEPS_BACKPORTS_FILE=bookworm-backports.sources

log()  { printf '>>> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# failure_reason LOG...: why a make command whose output is in LOG...
# stopped: the first line that says ERROR (die, stop), or else the line
# before make's first "*** ... Error", or else the last line
failure_reason() {
	awk '/^ERROR: / { print; e = 1; exit }
	     /^make(\[[0-9]+\])?: \*\*\* / && m == "" { m = prev == "" ? $0 : prev }
	     NF { prev = $0 }
	     END { if (!e) print (m != "" ? m : prev) }' "$@"
}

# Upstream part of a Debian kernel version: 6.12.95-1~bpo12+1 -> 6.12.95
pkg_upstream() { printf '%s\n' "${1%%-*}"; }

# Kernel ABI name of a Debian 6.12 package version: 6.12.95+deb12
pkg_abi() { printf '%s+deb12\n' "$(pkg_upstream "$1")"; }

# The series a script works on: "mainline" (Linux 7.3, the primary
# series) or "6.12" (its backport to Debian's 6.12 LTS, which the VMs,
# DKMS and make install use). Each has patches/$SERIES_BASE/ and its
# own kernel tree.
SERIES_BASE=${SERIES_BASE:-mainline}
case $SERIES_BASE in
mainline|6.12) ;;
*) die "SERIES_BASE=$SERIES_BASE: use mainline or 6.12" ;;
esac
export SERIES_BASE
SERIES_DIR=$TOP/patches/$SERIES_BASE
MAINLINE_ENV=$BUILD/mainline.env

# Load what deps.sh recorded for the 6.12 base: BASE_VERSION, BASE_ABI,
# KVER, HEADERS_DIR, SRC_TARBALL, TREE. For the mainline series, what
# mainline-deps.sh recorded replaces BASE_VERSION, SRC_TARBALL and TREE,
# and MAINLINE_KVER names its kernel. BASE_TITLE names the base.
load_base() {
	[ -r "$BASE_ENV" ] || die "$BASE_ENV is missing: run 'make deps' first"
	# shellcheck source=/dev/null
	. "$BASE_ENV"
	[ -d "$HEADERS_DIR" ] ||
		die "$HEADERS_DIR is missing: run 'make deps' (as root)"
	BASE_TITLE="Debian linux-source-6.12 $BASE_VERSION"
	if [ "$SERIES_BASE" = mainline ]; then
		[ -r "$MAINLINE_ENV" ] ||
			die "$MAINLINE_ENV is missing: run 'make deps-mainline' first"
		# shellcheck source=/dev/null
		. "$MAINLINE_ENV"
		BASE_VERSION=$MAINLINE_VERSION
		SRC_TARBALL=$MAINLINE_TARBALL
		TREE=$MAINLINE_TREE
		BASE_TITLE="Debian linux-source-7.3 $BASE_VERSION"
	fi
}

# rpcrdma_path KVER: the rpcrdma.ko that "modprobe rpcrdma" would load
# for kernel KVER ("none: <why>" if modprobe would find none, so that a
# check can show it rather than die without a word)
rpcrdma_path() {
	local out err
	err=$(mktemp)
	out=$(modinfo -k "$1" -n rpcrdma 2>"$err") || out="none: $(tr '\n' ' ' <"$err")"
	rm -f "$err"
	echo "$out"
}

# git in the assembled kernel tree (load_base sets TREE)
tgit() { git -C "$TREE" "$@"; }

# The lines of the series file without comments or blank lines
SERIES=$SERIES_DIR/series
series_lines() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"; }

# Run "$@" quietly; on failure show the tail of its output and fail,
# saying what it was for when QUIET_WHAT says so
quiet() {
	local out rc=0 cmd=$*
	out=$(mktemp)
	"$@" >"$out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 40 "$out" >&2
		rm -f "$out"
		[ "${#cmd}" -le 120 ] || cmd="$1 $2 ..."
		die "${QUIET_WHAT:+$QUIET_WHAT: }'$cmd' exited with $rc (its last lines are above)"
	fi
	rm -f "$out"
}

# on_failure PREFIX [SAID]: a command that fails where nobody expected
# it ends the script with one line, PREFIX then where and what failed,
# never silently. A failure that exits with SAID has said why already
# and passes through the enclosing $(...) without a second line.
on_failure() {
	ON_FAILURE_PREFIX=$1
	ON_FAILURE_SAID=${2:-}
	set -E
	trap 'on_failure_trap $? "$BASH_COMMAND" "$LINENO"' ERR
}
on_failure_trap() {
	trap - ERR
	if [ -n "$ON_FAILURE_SAID" ] && [ "$1" = "$ON_FAILURE_SAID" ]; then
		exit $((BASH_SUBSHELL > 0 ? ON_FAILURE_SAID : 1))
	fi
	printf '%s%s:%s: "%s" exited with %s\n' "$ON_FAILURE_PREFIX" \
		"${0#"$TOP"/}" "$3" "$2" "$1" >&2
	exit 1
}

# failing_as WHO: from here on, stop MESSAGE stops the script with the
# one line "ERROR: WHO: MESSAGE", exiting with SAID inside a $(...) so
# that the enclosing one passes it on without a second line, and a
# command that fails where nobody expected it is named on one line too
SAID=87
failing_as() {
	FAIL_WHO=$1
	on_failure "ERROR: $1: stopped at " "$SAID"
}
stop() {
	printf 'ERROR: %s: %s\n' "${FAIL_WHO:?failing_as was not called}" "$*" >&2
	exit $((BASH_SUBSHELL > 0 ? SAID : 1))
}

# KTAP (Documentation/dev-tools/ktap.rst), the one result format of
# every runner here, printed only through tools/testing/ktap.sh:
# ktap_set_plan N, then one ktap_test_pass NAME [NOTE], ktap_test_fail
# NAME REASON or ktap_test_skip NAME REASON a test, and ktap_finished
# WHO, which prints "# WHO: P passed, F failed[, S skipped]" and fails
# if any did. A runner that cannot count its tests up front leaves out
# ktap_set_plan: its first result prints the version line, and
# ktap_finished the plan.
# shellcheck source=../tools/testing/ktap.sh
. "$TOP/tools/testing/ktap.sh"

# A checking script's verdicts, as KTAP: expect WHAT ACTUAL EXPECTED is
# one test, "ok N WHAT" or "not ok N WHAT # expected ..., got ...";
# expect_summary ends the KTAP ("# $CHECK_NAME: N passed, N failed")
# and fails if any did
expect() {
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "expected '$3', got '$2'"
	fi
}
expect_summary() { ktap_finished "$CHECK_NAME"; }
