#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the pinned Debian 6.12 base (source, headers, image) and every
# tool the repository uses. Idempotent and silent when all is present.
#
# Version policy: BASE_PKG_VERSION (top-level Makefile) is preferred.
# Debian's archive keeps only the newest 6.12.x of a suite, so when the
# pin can no longer be installed we take the newest linux-source-6.12
# the archive offers, say so, and install headers and image of that same
# version. Later steps read the chosen version from $BUILD/base.env, so
# the build follows without hand edits.
#
# Every way this script can stop says what it was doing and why, on a
# line starting with "ERROR: deps:". scripts/test-deps.sh drives each of
# them with stand-ins for dpkg-query, apt-cache, apt-get and id.

. "$(dirname "$0")/lib.sh"

# Where apt's configuration and the archive key live; the tests point
# them elsewhere
APT_ETC=${DEPS_APT_ETC:-/etc/apt}
KEYRING=${DEPS_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

# Installed without Recommends, so what a step needs is named here even
# when another package only recommends it: libc6-dev-arm64-cross, the C
# library the arm64 tools are cross-built against, is a Recommends of
# gcc-aarch64-linux-gnu. So is what most machines have anyway: procps
# (pgrep, pkill: the hang guard's own test), which a minimal root lacks.
TOOLS=(build-essential bc bison flex libelf-dev libssl-dev dwarves kmod
       cpio xz-utils rsync git python3 python3-ply python3-git perl sparse
       librdmacm-dev libibverbs-dev ibverbs-utils
       qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
       busybox-static rdma-core ibverbs-providers iproute2
       netbase fio gnuplot-nox clang libclang-rt-14-dev dkms
       python3-docutils mmdebstrap tshark wireshark-dev procps)
APT_UPDATED=
VER=
DOWNGRADE=

# Every stop says why, never a bare "make: *** Error 1" (lib.sh)
failing_as deps

[ -n "${BASE_PKG_VERSION:-}" ] ||
	stop "BASE_PKG_VERSION is not set: run 'make deps' (the top-level Makefile pins it)"

is_root() { [ "$(id -u)" = 0 ]; }

# need_root WHAT: stop unless root, saying what needed it
need_root() {
	is_root || stop "not root: $1 needs root; run 'make deps' (or make demo/check) as root"
}

# installed_version PKG: the installed version of PKG, nothing if dpkg
# knows it only as removed or has never heard of it (dpkg-query exits 1)
installed_version() {
	local out rc=0
	out=$(dpkg-query -W -f '${db:Status-Status} ${Version}\n' "$1" 2>&1) || rc=$?
	case $rc in
	0) awk '$1 == "installed" { print $2 }' <<<"$out" ;;
	1) ;;
	*) stop "dpkg-query -W $1 exited with $rc: $out" ;;
	esac
}

# archive_versions PKG: the binary versions of PKG in apt's package
# lists, one a line (none if apt has never heard of PKG)
archive_versions() {
	local out rc=0
	out=$(apt-cache madison "$1" 2>&1) || rc=$?
	[ "$rc" = 0 ] || stop "apt-cache madison $1 exited with $rc: $out"
	# madison right-aligns short package names; deb-src lines end in
	# "Sources"
	awk -F' *[|] *' -v p="$1" '{ sub(/^ +/, "") }
		NF >= 3 && $1 == p && / Packages$/ { print $2 }' <<<"$out"
}

# apt_run WHAT CMD...: run an apt command quietly; on failure show the
# end of its output and stop, saying what it was for
apt_run() {
	local what=$1
	shift
	DEBIAN_FRONTEND=noninteractive QUIET_WHAT="deps: $what" quiet "$@"
}

backports_configured() {
	local f
	for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list \
		 "$APT_ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		grep -qs '^[^#]*bookworm-backports' "$f" && return 0
	done
	return 1
}

ensure_backports() {
	backports_configured && return
	need_root "adding the bookworm-backports apt source (the base kernel comes from it)"
	[ -r "$KEYRING" ] ||
		stop "no $KEYRING to check bookworm-backports with: install debian-archive-keyring"
	log "adding the bookworm-backports apt source"
	cat >"$APT_ETC/sources.list.d/$DEPS_BACKPORTS_FILE" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: $KEYRING
SRC
}

# apt_update_once WHY: read the package lists from the archive (once),
# with bookworm-backports among the sources
apt_update_once() {
	[ -n "$APT_UPDATED" ] && return
	ensure_backports
	need_root "apt-get update, for $1,"
	log "apt-get update"
	apt_run "apt-get update, for $1" apt-get update
	APT_UPDATED=1
}

# base_packages ABI: the names of the base's source, headers and image
base_packages() { echo "linux-source-6.12 linux-headers-$1-amd64 linux-image-$1-amd64"; }

# pin_gone HOW: the pin can no longer be installed; say so, and what to do
pin_gone() {
	warn "pinned base $BASE_PKG_VERSION $1"
	warn "update BASE_PKG_VERSION in the top-level Makefile to make this permanent"
}

# base_installed VERSION: source, headers and image all in VERSION
base_installed() {
	local p v
	for p in $(base_packages "$(pkg_abi "$1")"); do
		v=$(installed_version "$p")
		[ "$v" = "$1" ] || return 1
	done
}

# Set VER to the version of linux-source-6.12 to use: the pin, or when
# the archive no longer has it the newest one it offers (or the one
# installed earlier for that reason).
choose_version() {
	local have versions
	have=$(installed_version linux-source-6.12)
	if [ "$have" = "$BASE_PKG_VERSION" ]; then
		VER=$have
		return
	fi
	versions=$(archive_versions linux-source-6.12)
	# An earlier run found the pin gone and installed the newest base:
	# keep it, without asking the archive (or for root) every time
	if [ -n "$have" ] && ! grep -qxF "$BASE_PKG_VERSION" <<<"$versions" &&
	   base_installed "$have"; then
		VER=$have
		pin_gone "is not in the apt lists; using the installed $VER"
		return
	fi
	apt_update_once "linux-source-6.12 $BASE_PKG_VERSION"
	versions=$(archive_versions linux-source-6.12)
	if grep -qxF "$BASE_PKG_VERSION" <<<"$versions"; then
		VER=$BASE_PKG_VERSION
	else
		[ -n "$versions" ] ||
			stop "no linux-source-6.12 in the apt sources: is bookworm-backports reachable? ('apt-cache policy linux-source-6.12')"
		VER=$(sort -V <<<"$versions" | tail -n 1)
		pin_gone "is no longer in the archive; using $VER"
	fi
	if [ -n "$have" ] && dpkg --compare-versions "$have" gt "$VER"; then
		log "linux-source-6.12 $have is installed; the base is $VER: downgrading it"
		DOWNGRADE=--allow-downgrades
	fi
}

# The packages to install, as NAME=VERSION for the base and NAME for
# the tools, one a line
missing_packages() {
	local abi=$1 p v
	# (v=$(...) on its own, so that a failing dpkg-query stops us)
	for p in $(base_packages "$abi"); do
		v=$(installed_version "$p")
		[ "$v" = "$VER" ] || echo "$p=$VER"
	done
	for p in "${TOOLS[@]}"; do
		v=$(installed_version "$p")
		[ -n "$v" ] || echo "$p"
	done
}

install_missing() {
	local abi=$1 p list versions missing=()
	list=$(missing_packages "$abi")
	[ -n "$list" ] || return 0
	mapfile -t missing <<<"$list"
	need_root "installing ${missing[*]}"
	apt_update_once "installing ${#missing[@]} packages"
	# The base's headers and image must exist in the pinned version
	# too; say which one does not rather than leave it to apt
	for p in "${missing[@]}"; do
		[ "$p" != "${p%%=*}" ] || continue
		versions=$(archive_versions "${p%%=*}")
		grep -qxF "$VER" <<<"$versions" ||
			stop "${p%%=*} $VER is not in the apt sources, though linux-source-6.12 $VER is"
	done
	log "installing: ${missing[*]}"
	apt_run "installing ${#missing[@]} packages" \
		apt-get install -y --no-install-recommends ${DOWNGRADE:+"$DOWNGRADE"} "${missing[@]}"
	list=$(missing_packages "$abi")
	[ -z "$list" ] ||
		stop "apt-get install succeeded but these are still not installed: ${list//$'\n'/ }"
}

main() {
	local abi
	choose_version
	abi=$(pkg_abi "$VER")
	install_missing "$abi"

	mkdir -p "$BUILD"
	cat >"$BASE_ENV.tmp" <<ENV
BASE_VERSION='$VER'
BASE_ABI='$abi'
KVER='$abi-amd64'
HEADERS_DIR='/usr/src/linux-headers-$abi-amd64'
SRC_TARBALL='/usr/src/linux-source-6.12.tar.xz'
TREE='$BUILD/linux-$(pkg_upstream "$VER")'
ENV
	if ! cmp -s "$BASE_ENV.tmp" "$BASE_ENV"; then
		mv "$BASE_ENV.tmp" "$BASE_ENV"
	else
		rm -f "$BASE_ENV.tmp"
	fi
}

main "$@"
