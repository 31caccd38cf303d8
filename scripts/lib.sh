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

# private_apt_setup DIR SUITE...: a private apt state in DIR whose only
# sources are Debian's SUITEs (main), signed by the archive keyring; the
# host's apt.conf.d (proxies, validity checks) still applies. Binary
# packages, or source packages with PRIVATE_APT_TYPES=deb-src. Then
# private_apt DIR apt-get|apt-cache ARGS... runs apt against it,
# installing nothing on the host; with PRIVATE_APT_ARCH (arm64) set,
# for that architecture alone.
private_apt_setup() {
	local dir=$1 keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	[ -r "$keyring" ] ||
		die "no $keyring: install debian-archive-keyring (it carries trixie's and sid's keys)"
	mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
	cat >"$dir/sources.list.d/$1.sources" <<EOF
Types: ${PRIVATE_APT_TYPES:-deb}
URIs: http://deb.debian.org/debian
Suites: $*
Components: main
Signed-By: $keyring
EOF
	QUIET_WHAT="apt-get update of $*" quiet private_apt "$dir" apt-get update
}
private_apt() {
	local dir=$1 cmd=$2 arch=()
	shift 2
	[ -z "${PRIVATE_APT_ARCH:-}" ] ||
		arch=(-o APT::Architecture="$PRIVATE_APT_ARCH" -o APT::Architectures::="$PRIVATE_APT_ARCH"
		      -o APT::Sandbox::User=root)
	"$cmd" "${arch[@]}" -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$dir/sources.list.d" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" \
		-o Dir::State::Status=/dev/null \
		-o Debug::NoLocking=true "$@"
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

# harness_env OUTDIR: export what tools/testing/nfsrdma needs: for each
# kernel the VMs can boot, its release, the root its modules are under
# and our rpcrdma.ko for it (6.12: the installed Debian kernel and the
# 6.12 series; 7.3: the image mainline-deps.sh unpacked and the mainline
# series), rpcrdma-cm, the patched mountstats (build/nfs-utils) and the
# work directory OUTDIR. E2E_KERNEL (6.12 or 7.3, default 6.12) is what
# a run boots unless it names a kernel.
harness_env() {
	SERIES_BASE=6.12 load_base
	export E2E_KERNEL=${E2E_KERNEL:-6.12}
	case $E2E_KERNEL in
	6.12|6.12-fixes|7.3|7.3-debug|6.12-arm64|7.3-arm64|6.12-arm64-16k|7.3-arm64-16k) ;;
	*) die "E2E_KERNEL=$E2E_KERNEL: use 6.12, 6.12-fixes, 7.3, 7.3-debug, or 6.12 or 7.3 with -arm64 or -arm64-16k" ;;
	esac
	export KVER_6_12=$KVER MODROOT_6_12=/ RPCRDMA_OURS_6_12=$BUILD/module/rpcrdma.ko
	# 6.12 with the stable fixes posting alone (make modules-fixes)
	export KVER_6_12_fixes=$KVER MODROOT_6_12_fixes=/
	export RPCRDMA_OURS_6_12_fixes=$BUILD/module-fixes/rpcrdma.ko
	if [ -r "$MAINLINE_ENV" ]; then
		# shellcheck source=/dev/null
		. "$MAINLINE_ENV"
		export KVER_7_3=$MAINLINE_KVER MODROOT_7_3=$MAINLINE_IMAGE
		export RPCRDMA_OURS_7_3=$BUILD/module-mainline/rpcrdma.ko
	elif [ "$E2E_KERNEL" = 7.3 ]; then
		die "$MAINLINE_ENV is missing: run 'make deps-mainline'"
	fi
	if [ -r "$BUILD/debug-kernel.env" ]; then
		# shellcheck source=/dev/null
		. "$BUILD/debug-kernel.env"
		export KVER_7_3_debug=$DEBUG_KVER MODROOT_7_3_debug=$DEBUG_ROOT
		export RPCRDMA_OURS_7_3_debug=$DEBUG_ROOT/lib/modules/$DEBUG_KVER/kernel/net/sunrpc/xprtrdma/rpcrdma.ko
	elif [ "$E2E_KERNEL" = 7.3-debug ]; then
		die "$BUILD/debug-kernel.env is missing: run 'make debug-kernel'"
	fi
	# The arm64 lane (arm64-deps.sh, arm64-build.sh): Debian's arm64
	# kernels of both bases, our rpcrdma.ko and the tools for them
	if [ -r "$BUILD/arm64.env" ]; then
		# shellcheck source=/dev/null
		. "$BUILD/arm64.env"
		export KVER_6_12_arm64=$ARM64_KVER_6_12 MODROOT_6_12_arm64=$ARM64_ROOT_6_12
		export RPCRDMA_OURS_6_12_arm64=$BUILD/module-arm64/rpcrdma.ko
		export KVER_7_3_arm64=$ARM64_KVER_7_3 MODROOT_7_3_arm64=$ARM64_ROOT_7_3
		export RPCRDMA_OURS_7_3_arm64=$BUILD/module-mainline-arm64/rpcrdma.ko
		export KVER_6_12_arm64_16k=${ARM64_KVER_6_12_16k:-} MODROOT_6_12_arm64_16k=${ARM64_ROOT_6_12_16k:-}
		export RPCRDMA_OURS_6_12_arm64_16k=$BUILD/module-arm64-16k/rpcrdma.ko
		export KVER_7_3_arm64_16k=${ARM64_KVER_7_3_16k:-} MODROOT_7_3_arm64_16k=${ARM64_ROOT_7_3_16k:-}
		export RPCRDMA_OURS_7_3_arm64_16k=$BUILD/module-mainline-arm64-16k/rpcrdma.ko
		export ARM64_SYSROOT
		export RPCRDMA_CM_arm64=$BUILD/arm64/tools/rpcrdma-cm/rpcrdma-cm
		export RPCRDMA_CALL_arm64=$BUILD/arm64/tools/rpcrdma-call/rpcrdma-call
	fi
	# soft-iWARP (make modules-siw), where built
	export SIW_KO_6_12=$BUILD/siw-6.12/siw.ko SIW_KO_7_3=$BUILD/siw-7.3/siw.ko
	export RPCRDMA_CM=$TOP/tools/net/sunrpc/rpcrdma-cm/rpcrdma-cm
	export RPCRDMA_CALL=$TOP/tools/testing/rpcrdma-call/rpcrdma-call
	# nfs-utils' mountstats with patches/nfs-utils (make nfs-utils-mountstats)
	export NFS_UTILS_BUILD=$BUILD/nfs-utils
	export E2E_OUT=$1
	[ -x "$RPCRDMA_CM" ] || die "no $RPCRDMA_CM: run 'make tools'"
	[ -x "$RPCRDMA_CALL" ] || die "no $RPCRDMA_CALL: run 'make tools'"
}

# build_warnings COMMIT DIR: build rpcrdma.ko of COMMIT in DIR with
# module.sh (incrementally: only what changed is compiled) under sparse
# (C=1) and W=1, and print the warnings of what was compiled, one per
# line, without line numbers or build paths, so code that merely moved
# does not count as new. Fails, showing the log, if the build fails.
build_warnings() {
	local commit=$1 dir=$2 log
	log=$(mktemp)
	if ! "$TOP/scripts/module.sh" "$commit" "$dir" C=1 W=1 >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	{ grep -E '(warning|error):|^WARNING: modpost:' "$log" || true; } |
		sed -E -e "s|$dir/src/||g" -e "s|$dir/include/||g" \
		       -e 's/:[0-9]+:[0-9]+:/:/' -e 's/:[0-9]+:/:/' | sort -u
	rm -f "$log"
}

# kernel_doc_of COMMIT FILE...: the kernel-doc -Wall warnings of COMMIT's
# version of the files, without line numbers, one per line
kernel_doc_of() {
	local commit=$1 tmp
	shift
	[ $# -gt 0 ] || return 0
	[ -f "$TREE/scripts/kernel-doc" ] || die "no scripts/kernel-doc in $TREE"
	tmp=$(mktemp -d)
	# (explicit: callers may run this where errexit is off)
	if ! tgit archive "$commit" -- "$@" | tar -x -C "$tmp"; then
		rm -rf "$tmp"
		echo "kernel_doc_of: cannot read $* of $commit" >&2
		return 1
	fi
	# kernel-doc's exit status counts warnings; its output says what they
	# are, with "FILE:LINE: " (the perl one) or "FILE:LINE " (the python
	# one of 6.16 on) in front, and the line number goes
	(cd "$tmp" && perl "$TREE/scripts/kernel-doc" -none -Wall "$@" 2>&1 || true) |
		sed -E 's/:[0-9]+:? /: /' | sort -u
	rm -rf "$tmp"
}

# rst_problems COMMIT FILE...: what docutils reports about COMMIT's
# version of the reStructuredText files (nothing when they are clean).
# Sphinx's own directives are not docutils', so leave index.rst out.
rst_problems() {
	local commit=$1 tmp
	shift
	[ $# -gt 0 ] || return 0
	/usr/bin/python3 -c 'import docutils' 2>/dev/null ||
		die "python3-docutils is not installed: run 'make deps'"
	tmp=$(mktemp -d)
	tgit archive "$commit" -- "$@" | tar -x -C "$tmp"
	# Problems are printed; a crash is one too
	(cd "$tmp" && /usr/bin/python3 - "$@") <<'PY' || echo "rst: docutils could not check $*"
import sys
import docutils.core
import docutils.utils

for path in sys.argv[1:]:
    try:
        docutils.core.publish_doctree(
            open(path, encoding="utf-8").read(), source_path=path,
            settings_overrides={"report_level": 2, "halt_level": 2})
    except docutils.utils.SystemMessage as e:
        print(f"{path}: {e}")
PY
	rm -rf "$tmp"
}

# doc_problems FROM TO: what is wrong with the kernel-doc and documents
# between two commits of $TREE (nothing when all is well): the files TO
# adds must have clean kernel-doc, the ones it changes must gain no
# kernel-doc warning, and its reStructuredText must parse
doc_problems() {
	local from=$1 to=$2 added changed docs old new list
	# (not in <(...): a failing git there would read as "no files")
	list=$(tgit diff --name-only --diff-filter=A "$from" "$to" -- '*.c' '*.h') || return 1
	mapfile -t added < <(printf '%s' "$list" | sed '/^$/d')
	list=$(tgit diff --name-only --diff-filter=M "$from" "$to" -- '*.c' '*.h') || return 1
	mapfile -t changed < <(printf '%s' "$list" | sed '/^$/d')
	list=$(tgit diff --name-only --diff-filter=AM "$from" "$to" -- 'Documentation/*.rst') ||
		return 1
	mapfile -t docs < <(printf '%s' "$list" | sed -e '/^$/d' -e '/\/index\.rst$/d')
	kernel_doc_of "$to" "${added[@]}" || return 1
	# Not in <(...): a failure there would read as "no warnings"
	old=$(kernel_doc_of "$from" "${changed[@]}") || return 1
	new=$(kernel_doc_of "$to" "${changed[@]}") || return 1
	comm -13 <(printf '%s\n' "$old") <(printf '%s\n' "$new") | sed '/^$/d'
	rst_problems "$to" "${docs[@]}"
}

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
