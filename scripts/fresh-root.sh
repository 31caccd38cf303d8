#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-root.sh demo|builds|check
#
# Prove that the README's commands work from nothing: bootstrap a new
# minimal Debian bookworm root (mmdebstrap, minbase, the host's apt
# sources, plus git and make only), put a git clone of the project in it
# and run "make demo" (or "make check") there as root, in private mount
# and PID namespaces with /proc, /sys and /dev mounted, so that nothing
# stays mounted or running when it ends. Prints KTAP.
#
# "builds" (make check's step) runs "make demo" and then, one case each,
# the install and build steps that make check takes (BUILD_STEPS), so
# that a package only a developer's machine has fails make check there
# too; it boots no VM beyond the demo's.
#
# The root is made anew on every run. Downloaded .deb files are kept in
# $BUILD/fresh-root/debs between runs: that saves the downloads, never an
# installation, so a package missing from scripts/deps.sh still fails.
#
# Environment:
#   FRESH_SRC   the repository to clone (default: this one; its HEAD is
#               what is tested, so commit first)
#   FRESH_ROOT_STALL  seconds in which nothing in the root used any CPU
#               before the command there counts as hung and is ended
#               (default 900)
#   FRESH_STEPS  "builds" runs these make commands (separated by
#               commas, e.g. "deps-arm64,tools-arm64") after the demo
#               instead of BUILD_STEPS, and skips the case that they
#               cover make check's (to try one step from nothing quickly)
#   FRESH_ROOT_WALL  a limit of the command on the clock, seconds from
#               its start (default: none). The command installs packages
#               and builds, which beside make check's other lane takes a
#               few times its time alone; the hangs the stall guard
#               cannot see (a hung VM beside a polling loop) have guards
#               of their own inside (tools/testing/nfsrdma/run.sh).

. "$(dirname "$0")/lib.sh"

# A command that fails where nobody expected it still ends the KTAP
# stream with a reason
on_failure "Bail out! "

MODE=${1:-demo}
SRC=${FRESH_SRC:-$TOP}
mkdir -p "$BUILD/fresh-root"
WORK=$(realpath "$BUILD/fresh-root")
ROOT=$WORK/root
CLONE=$WORK/project
DEBS=$WORK/debs
LOG=$WORK/$([ "$MODE" = check ] && echo check || echo demo).log
# How many downloaded packages the root started with (noted in $TIMES)
cached=0
TIMES=$WORK/times
# Packages of deps' list that a minbase root with git and make must lack:
# if it had them, the check would not show that deps installs them
MUST_LACK=(linux-source-6.12 qemu-system-x86 build-essential ibverbs-utils
	   netbase busybox-static rdma-core mmdebstrap)

# What "builds" runs in the root after the demo, one make command each:
# the install and build steps of make check (scripts/check.sh), whose
# phase one's targets must all be here (the last case checks it), and
# the builds of its lanes that boot no VM: KUnit as far as its config
# check, the fuzzer, the series export; and the two tests phase one
# runs beside the trees, which need tools of their own (procps)
BUILD_STEPS=(deps deps-mainline nfs-utils-mountstats tree modules modules-fixes
	     modules-mainline deps-arm64 modules-arm64 tools-arm64 modules-siw
	     backport-check tools tools-check wireshark wireshark-check kunit-config
	     fuzz-build "patchset EXPORT_ONLY=1 DRY_RUN=1" "patchset-6.12 EXPORT_ONLY=1 DRY_RUN=1"
	     dkms-tarball deps-test stall-timeout-test)
[ -z "${FRESH_STEPS:-}" ] || IFS=, read -r -a BUILD_STEPS <<<"$FRESH_STEPS"

case $MODE in
demo|builds|check) ;;
*) die "usage: $0 demo|builds|check" ;;
esac
[ -z "${FRESH_ROOT_WALL:-}" ] || [[ $FRESH_ROOT_WALL =~ ^[1-9][0-9]*$ ]] ||
	die "FRESH_ROOT_WALL=$FRESH_ROOT_WALL: give a number of seconds"
WALL=(${FRESH_ROOT_WALL:+--wall "$FRESH_ROOT_WALL"})
STALL=${FRESH_ROOT_STALL:-900}

TESTS=("clone of the project"
       "bootstrap a minbase bookworm root with git and make"
       "the new root is bookworm and lacks what deps installs")
if [ "$MODE" = check ]; then
	TESTS+=("make check in the fresh root" "make check's summary in the fresh root")
else
	TESTS+=("make demo in the fresh root" "the demo's negotiation report")
fi
if [ "$MODE" = builds ]; then
	for s in "${BUILD_STEPS[@]}"; do
		TESTS+=("make $s in the fresh root")
	done
	TESTS+=("every build step of make check's phase one ran in the fresh root")
fi
TESTS+=("nothing left mounted or running in the root")
# ok [NOTE], not_ok REASON: the verdict of the next of TESTS
ok() { ktap_test_pass "${TESTS[KTAP_N]}" "${1:-}"; }
not_ok() { ktap_test_fail "${TESTS[KTAP_N]}" "$1"; }
# skip_rest WHY: the tests that cannot run after an early failure
skip_rest() {
	while [ "$KTAP_N" -lt "${#TESTS[@]}" ]; do
		ktap_test_skip "${TESTS[KTAP_N]}" "$1"
	done
}
finish() {
	ktap_finished fresh-root && exit 0
	exit 1
}
diag() { sed -u 's/^/# /'; }

# Mounts under the root that the host can see (there should be none)
mounts_under_root() {
	awk -v r="$ROOT" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Processes whose root directory is the fresh root (there should be
# none once the namespaces are gone)
procs_in_root() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null || true)" = "$ROOT" ] && echo "${p#/proc/}"
	done
	return 0
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

# The host's settings for reaching the archive, and only those: its
# proxies and the validity checks of a snapshot archive
host_aptopts() {
	apt-config dump | sed -n -E \
		-e 's/;$//' \
		-e '/^Acquire::(https?|ftp)::Proxy(::[^ ]+)? /p' \
		-e '/^Acquire::Check-(Valid-Until|Date) /p' | sed 's/^/--aptopt=/'
	return 0
}

# Hooks of mmdebstrap (run with sh; FRESH_DEBS in the environment):
# the cached downloads go in as hard links, new downloads come back
# out, so mmdebstrap does not fetch them again next time
SETUP_HOOK='mkdir -p "$1/var/cache/apt/archives" &&
	find "$FRESH_DEBS" -maxdepth 1 -name "*.deb" -exec cp -l -t "$1/var/cache/apt/archives" {} +'
SAVE_HOOK='for f in "$1"/var/cache/apt/archives/*.deb; do
	[ -e "$f" ] || continue
	[ -e "$FRESH_DEBS/${f##*/}" ] || ln "$f" "$FRESH_DEBS/" || exit 1
done'
# The keys of the host's apt sources, for apt-get update in the root
KEYS_HOOK='for d in trusted.gpg.d keyrings; do
	[ -d "/etc/apt/$d" ] || continue
	mkdir -p "$1/etc/apt/$d" && cp -a "/etc/apt/$d/." "$1/etc/apt/$d/"
done
[ ! -f /etc/apt/trusted.gpg ] || cp -a /etc/apt/trusted.gpg "$1/etc/apt/"'

bootstrap() {
	local sources opts
	mapfile -t sources < <(host_sources)
	mapfile -t opts < <(host_aptopts)
	if [ "${#sources[@]}" = 0 ]; then
		echo "the host has no apt sources to give the root"
		return 1
	fi
	mkdir -p "$DEBS"
	FRESH_DEBS=$DEBS mmdebstrap --variant=minbase --include=git,make "${opts[@]}" \
		--skip=essential/unlink --setup-hook="$SETUP_HOOK" \
		--customize-hook="$SAVE_HOOK" --customize-hook="$KEYS_HOOK" \
		bookworm "$ROOT" "${sources[@]}"
}

# In private mount and PID namespaces: the root bound onto itself, so
# that it is a mount point as / is on a machine; mount what qemu and apt need, run
# the command in the root as root with a clean environment. When it
# ends, or is interrupted, everything in the namespaces goes with it.
# The namespace gets a /proc of its own, where stall-timeout finds the
# processes it watches under the PIDs it knows them by.
# The root never boots, so the initramfs that installing the kernel
# image would generate (about four minutes of CPU here, twice: once for
# the image, once for initramfs-tools' own trigger) is not made:
# initramfs-tools' kernel hook honours INITRD=No, and with no image made
# its trigger has nothing to update. Everything is still installed.
run_in_root() {
	local cmd=$1
	unshare --mount --propagation private --pid --fork --kill-child -- /bin/bash -euc '
		root=$1 debs=$2 cmd=$3 stall=$4 watch=$5
		shift 5
		mount -t proc proc /proc
		# The root is a mount point of its own, as / is on a
		# machine: unshare(1) in it (the trixie root of make
		# check) makes / private, which only a mount point can be
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root/var/cache/apt/archives"
		mount --bind "$debs" "$root/var/cache/apt/archives"
		exec "$watch" "$@" "$stall" chroot "$root" /usr/bin/env -i \
			HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 TERM=dumb FRESH_ROOT_INSIDE=1 INITRD=No \
			/bin/bash -c "cd /root/project && $cmd" </dev/null
	' fresh-root "$ROOT" "$DEBS" "$cmd" "$STALL" "$TOP/scripts/stall-timeout" "${WALL[@]}"
}

# in_root_case CMD LOG: run CMD in the root (its output to LOG and, as
# diagnostics, here), time it, and give the verdict of the next case
in_root_case() {
	local cmd=$1 log=$2 t0 t1 rc=0
	t0=$(date +%s)
	run_in_root "$cmd" 2>&1 | tee "$log" | diag || rc=$?
	t1=$(date +%s)
	echo "# $cmd in the fresh root: $((t1 - t0)) s (exit status $rc)"
	echo "$(date -u +%FT%TZ) $cmd: $((t1 - t0)) s, exit status $rc, $cached packages cached" >>"$TIMES"
	LAST_RC=$rc
	if [ "$rc" = 0 ]; then
		ok "$((t1 - t0)) s"
	elif [ "$rc" = 124 ] && grep -q '^stall-timeout: ' "$log"; then
		not_ok "$(grep -m1 '^stall-timeout: ' "$log")"
	else
		not_ok "exit status $rc: $(failure_reason "$log")"
	fi
}

# The make targets of make check's phase one (scripts/check.sh: its
# "make -s -C "$TOP" TARGET..." steps, up to the end of the command),
# one a line; a variable assignment is not a target, and any other word
# that is not a plain target name is listed as it is, so that it shows
# as missing from BUILD_STEPS rather than being dropped
check_targets() {
	grep -o 'make -s -C "\$TOP" [^|&;)>]*' "$TOP/scripts/check.sh" |
		sed 's/^make -s -C "\$TOP" //' | tr ' \t' '\n\n' |
		sed -e '/^$/d' -e '/^[A-Za-z_][A-Za-z0-9_]*=/d' -e '/^\\$/d' | sort -u
}

# free_after STEP " LATER STEPS ": what no later step reads goes once
# STEP has passed, so that the root, which runs beside make check's
# other lane and holds a whole build of its own, needs less of the disk
# at once: after tools-arm64, unless an arm64 step follows (FRESH_STEPS
# may order them so), the arm64 kernels, headers, sysroot and downloads
# (about 1.9 GiB; the root boots no arm64 VM). A step that failed keeps
# what it left, to look into.
LAST_RC=
free_after() {
	case $1 in
	tools-arm64)
		case $2 in
		*-arm64\ *) ;;
		*) rm -rf --one-file-system "$ROOT/root/project/build/arm64" ;;
		esac ;;
	esac
}

# run_builds: every BUILD_STEPS command in the root, a case each, then
# whether they cover make check's phase one
run_builds() {
	local s t steps=" " missing=() targets
	rm -rf "$WORK/builds"
	mkdir -p "$WORK/builds"
	local i
	for i in "${!BUILD_STEPS[@]}"; do
		s=${BUILD_STEPS[i]}
		in_root_case "make $s" "$WORK/builds/${s%% *}.log"
		steps+="${s%% *} "
		[ "$LAST_RC" != 0 ] || free_after "${s%% *}" " ${BUILD_STEPS[*]:i+1} "
	done
	mapfile -t targets < <(check_targets)
	for t in "${targets[@]}"; do
		[ "${steps#* "$t" }" != "$steps" ] || missing+=("$t")
	done
	if [ -n "${FRESH_STEPS:-}" ]; then
		ktap_test_skip "${TESTS[KTAP_N]}" "FRESH_STEPS picked the steps"
	elif [ "${#targets[@]}" -lt 10 ]; then
		not_ok "found only ${#targets[@]} make targets in scripts/check.sh"
	elif [ "${#missing[@]}" = 0 ]; then
		ok "${#targets[@]} targets"
	else
		not_ok "not in BUILD_STEPS: ${missing[*]}"
	fi
}

# The demo's negotiation report, as make demo prints it for a person:
# both advertisements, what the kernel client negotiated, and its
# result line, "demo: passed"; and in the KTAP it leaves in build/demo,
# the scenario's "ok" line
check_demo_report() {
	local want missing=() ktap=$ROOT/root/project/build/demo/demo.ktap
	for want in 'Client advertises (connect request' 'Server advertises (accept reply' \
		    'Negotiated by the kernel client' 'neg send/recv=16384/16384'; do
		grep -qF -- "$want" "$LOG" || missing+=("'$want'")
	done
	grep -qE '^demo: passed ' "$LOG" || missing+=("'demo: passed'")
	grep -qE '^ *ok [0-9]+ demo$' "$ktap" 2>/dev/null || missing+=("'ok N demo' in build/demo/demo.ktap")
	if [ "${#missing[@]}" = 0 ]; then
		ok
	else
		not_ok "missing ${missing[*]}"
	fi
}

# make check's last line, from inside the root
check_summary() {
	local line
	line=$(grep -E '^check: [0-9]+ passed, [0-9]+ failed$' "$LOG" | tail -n 1 || true)
	case $line in
	"check: 0 passed"*|"") not_ok "${line:-no summary line}" ;;
	*", 0 failed") ok "$line" ;;
	*) not_ok "$line" ;;
	esac
}

main() {
	local t0 t1 rc p codename missing=() left why
	[ "$(id -u)" = 0 ] || die "fresh-root needs root (mmdebstrap, chroot, mounts)"
	command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run 'make deps'"
	# mountinfo escapes blanks and backslashes; keep the path plain
	case $ROOT in
	*[[:space:]\\]*) die "the fresh root's path may not hold blanks or backslashes: $ROOT" ;;
	esac
	ktap_set_plan "${#TESTS[@]}"

	left=$(mounts_under_root; procs_in_root)
	[ -z "$left" ] || die "an earlier run is still mounted or running in $ROOT: ${left//$'\n'/ }"
	rm -rf --one-file-system "$ROOT" "$CLONE"

	# As root on another user's checkout, git refuses the repository
	# unless told it is safe
	printf '[safe]\n\tdirectory = *\n' >"$WORK/gitconfig"
	if why=$(GIT_CONFIG_GLOBAL=$WORK/gitconfig git clone -q --no-hardlinks "$SRC" "$CLONE" 2>&1); then
		ok "$(git -C "$CLONE" log -1 --format='%h %s')"
		[ -z "$(GIT_CONFIG_GLOBAL=$WORK/gitconfig git -C "$SRC" status --porcelain \
			--untracked-files=no 2>/dev/null || true)" ] ||
			echo "# NB: $SRC has uncommitted changes; the clone tests its HEAD"
	else
		not_ok "git clone $SRC: $why"
		skip_rest "no clone"
		finish
	fi

	mkdir -p "$DEBS"
	# (in_root_case notes it in $TIMES)
	cached=$(find "$DEBS" -maxdepth 1 -name '*.deb' | wc -l)
	echo "# $cached downloaded packages in the cache"
	t0=$(date +%s)
	rc=0
	bootstrap 2>&1 | diag || rc=$?
	t1=$(date +%s)
	echo "# bootstrap: $((t1 - t0)) s"
	if [ "$rc" = 0 ] && [ -x "$ROOT/usr/bin/git" ] && [ -x "$ROOT/usr/bin/make" ]; then
		ok
	else
		not_ok "mmdebstrap failed (exit status $rc)"
		skip_rest "no root"
		finish
	fi

	codename=$(. "$ROOT/etc/os-release" && echo "${VERSION_CODENAME:-}")
	for p in "${MUST_LACK[@]}"; do
		if chroot "$ROOT" dpkg-query -W -f '${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qx installed; then
			missing+=("$p")
		fi
	done
	if [ "$codename" != bookworm ]; then
		not_ok "the root is '${codename:-?}', not bookworm"
	elif [ "${#missing[@]}" != 0 ]; then
		not_ok "already installed: ${missing[*]}"
	else
		ok "none of ${MUST_LACK[*]}"
	fi

	mv "$CLONE" "$ROOT/root/project"
	if [ "$MODE" = check ]; then
		in_root_case "make check" "$LOG"
		check_summary
	else
		in_root_case "make demo" "$LOG"
		check_demo_report
		[ "$MODE" = demo ] || run_builds
	fi

	left=$(mounts_under_root; procs_in_root)
	if [ -z "$left" ]; then
		ok
		# The root holds a whole build of its own (several GiB);
		# its log stays. FRESH_KEEP=1 keeps the root to look into.
		[ -n "${FRESH_KEEP:-}" ] || rm -rf --one-file-system "$ROOT"
	else
		not_ok "$left"
	fi
	finish
}

main "$@"
