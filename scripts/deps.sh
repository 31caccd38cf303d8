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

. "$(dirname "$0")/lib.sh"

: "${BASE_PKG_VERSION:?set by the top-level Makefile}"

TOOLS=(build-essential bc bison flex libelf-dev libssl-dev dwarves kmod
       cpio xz-utils rsync git python3 python3-ply python3-git perl sparse
       librdmacm-dev libibverbs-dev
       qemu-system-x86 busybox-static rdma-core ibverbs-providers iproute2
       fio gnuplot-nox clang libclang-rt-14-dev dkms
       python3-docutils)
BACKPORTS_LIST=/etc/apt/sources.list.d/bookworm-backports.sources
APT_UPDATED=

installed_version() {
	dpkg-query -W -f '${db:Status-Status} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "installed" { print $2 }'
}

apt_update_once() {
	[ -n "$APT_UPDATED" ] && return
	log "apt-get update"
	quiet apt-get update
	APT_UPDATED=1
}

ensure_backports() {
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
		return
	fi
	[ "$(id -u)" = 0 ] || die "bookworm-backports is not configured: run 'make deps' as root"
	log "adding the bookworm-backports apt source"
	cat >"$BACKPORTS_LIST" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	APT_UPDATED=
}

# The version of linux-source-6.12 to use: already installed, the pin,
# or else the newest one the archive offers.
choose_version() {
	local have
	have=$(installed_version linux-source-6.12)
	if [ "$have" = "$BASE_PKG_VERSION" ]; then
		echo "$have"
		return
	fi
	apt_update_once
	if apt-cache madison linux-source-6.12 |
		awk -F' *[|] *' '{ print $2 }' | grep -qxF "$BASE_PKG_VERSION"; then
		echo "$BASE_PKG_VERSION"
		return
	fi
	have=$(apt-cache madison linux-source-6.12 | awk -F' *[|] *' '{ print $2 }' |
		sort -V | tail -n 1)
	[ -n "$have" ] || die "no linux-source-6.12 in the configured apt sources"
	warn "pinned base $BASE_PKG_VERSION is no longer in the archive; using $have"
	warn "update BASE_PKG_VERSION in the top-level Makefile to make this permanent"
	echo "$have"
}

missing_packages() {
	local ver=$1 abi=$2 p
	for p in "linux-source-6.12=$ver" "linux-headers-$abi-amd64=$ver" \
		 "linux-image-$abi-amd64=$ver"; do
		[ "$(installed_version "${p%%=*}")" = "$ver" ] || echo "$p"
	done
	for p in "${TOOLS[@]}"; do
		[ -n "$(installed_version "$p")" ] || echo "$p"
	done
}

main() {
	local ver abi missing
	ensure_backports
	ver=$(choose_version)
	abi=$(pkg_abi "$ver")
	mapfile -t missing < <(missing_packages "$ver" "$abi")
	if [ "${#missing[@]}" -gt 0 ]; then
		[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}): run 'make deps' as root"
		apt_update_once
		log "installing: ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive quiet apt-get install -y \
			--no-install-recommends "${missing[@]}"
	fi

	mkdir -p "$BUILD"
	cat >"$BASE_ENV.tmp" <<ENV
BASE_VERSION='$ver'
BASE_ABI='$abi'
KVER='$abi-amd64'
HEADERS_DIR='/usr/src/linux-headers-$abi-amd64'
SRC_TARBALL='/usr/src/linux-source-6.12.tar.xz'
TREE='$BUILD/linux-$(pkg_upstream "$ver")'
ENV
	if ! cmp -s "$BASE_ENV.tmp" "$BASE_ENV"; then
		mv "$BASE_ENV.tmp" "$BASE_ENV"
	else
		rm -f "$BASE_ENV.tmp"
	fi
}

main "$@"
