#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the mainline base: Debian's linux-source-7.3 from
# trixie-backports, pinned to MAINLINE_PKG_VERSION (top-level Makefile),
# and the kernel of the same version that the test VMs boot (the
# packages linux-binary-, linux-modules- and linux-base-KVER: vmlinuz,
# the modules and their lists). All are downloaded with apt-get download
# into a private apt state and unpacked with dpkg-deb -x; nothing from
# trixie is installed on the host. The image gets its modules.dep from
# the host's depmod. Records the version, the tarball, the tree's path
# and the image in $BUILD/mainline.env.
#
# Version policy, as for the 6.12 base (scripts/deps.sh): the pin is
# preferred; a copy of it fetched earlier is used without asking the
# archive; when the archive no longer has the pin, the newest
# linux-source-7.3 it offers is taken with a warning. Every stop says
# why on one line starting with "ERROR: mainline-deps:".

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-apt.sh"

failing_as mainline-deps

[ -n "${MAINLINE_PKG_VERSION:-}" ] ||
	stop "MAINLINE_PKG_VERSION is not set: run 'make deps-mainline' (the top-level Makefile pins it)"

PKG=linux-source-7.3
DIR=$BUILD/mainline
APT_DIR=$DIR/apt
SUITE=trixie-backports

# The versions of $PKG the archive offers, newest first
archive_versions() {
	private_apt "$APT_DIR" apt-cache madison "$PKG" |
		awk -F'|' '$3 ~ /Packages/ { gsub(/ /, "", $2); print $2 }'
}

# deb_of VERSION: where the downloaded package of VERSION is kept
deb_of() { echo "$DIR/${PKG}_${1/:/%3a}_all.deb"; }

# fetch VERSION: download and unpack the package of VERSION
fetch() {
	local ver=$1 deb
	deb=$(deb_of "$ver")
	if [ ! -s "$deb" ]; then
		log "downloading $PKG $ver (trixie-backports)"
		(cd "$DIR" && QUIET_WHAT="mainline-deps: apt-get download $PKG=$ver" \
			quiet private_apt "$APT_DIR" apt-get download "$PKG=$ver")
		[ -s "$deb" ] || stop "apt-get download left no $deb"
	fi
	rm -rf "$DIR/x"
	dpkg-deb -x "$deb" "$DIR/x" || stop "dpkg-deb -x $deb failed"
	[ -s "$DIR/x/usr/src/$PKG.tar.xz" ] ||
		stop "$deb holds no usr/src/$PKG.tar.xz"
}

# fetch_image VERSION KVER: vmlinuz and the modules of VERSION in
# $DIR/image, laid out as a root (lib/modules/KVER), with modules.dep
fetch_image() {
	local ver=$1 kver=$2 p deb debs=() missing=()
	for p in linux-binary linux-modules linux-base; do
		deb=$DIR/$p-${kver}_${ver/:/%3a}_amd64.deb
		debs+=("$deb")
		[ -s "$deb" ] || missing+=("$p-$kver=$ver")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		log "downloading the $kver kernel for the test VMs (trixie-backports)"
		private_apt_setup "$APT_DIR" "$SUITE"
		(cd "$DIR" && QUIET_WHAT="mainline-deps: apt-get download ${missing[*]}" \
			quiet private_apt "$APT_DIR" apt-get download "${missing[@]}")
	fi
	rm -rf "$DIR/image"
	for deb in "${debs[@]}"; do
		[ -s "$deb" ] || stop "apt-get download left no $deb"
		dpkg-deb -x "$deb" "$DIR/image" || stop "dpkg-deb -x $deb failed"
	done
	# Debian 13 ships the modules under /usr/lib; modprobe -d looks in lib
	[ -e "$DIR/image/lib" ] || ln -s usr/lib "$DIR/image/lib"
	[ -s "$DIR/image/lib/modules/$kver/vmlinuz" ] ||
		stop "the $kver packages hold no lib/modules/$kver/vmlinuz"
	depmod -b "$DIR/image" "$kver" || stop "depmod of the $kver image failed"
}

main() {
	local ver=$MAINLINE_PKG_VERSION versions upstream env
	mkdir -p "$DIR"
	if [ ! -s "$(deb_of "$ver")" ]; then
		private_apt_setup "$APT_DIR" "$SUITE"
		versions=$(archive_versions) ||
			stop "apt-cache madison $PKG failed"
		if ! grep -qxF "$ver" <<<"$versions"; then
			[ -n "$versions" ] ||
				stop "trixie-backports offers no $PKG; is deb.debian.org reachable through apt?"
			ver=$(head -n 1 <<<"$versions")
			warn "$PKG $MAINLINE_PKG_VERSION is no longer in trixie-backports; using $ver." \
				"Set MAINLINE_PKG_VERSION in the Makefile to $ver to silence this"
		fi
	fi
	if [ ! -s "$DIR/x/usr/src/$PKG.tar.xz" ] ||
	   [ "$(cat "$DIR/version" 2>/dev/null)" != "$ver" ]; then
		fetch "$ver"
		echo "$ver" >"$DIR/version"
	fi
	upstream=$(pkg_upstream "$ver")
	if [ ! -s "$DIR/image/lib/modules/$upstream+deb13-amd64/modules.dep" ] ||
	   [ "$(cat "$DIR/image.version" 2>/dev/null)" != "$ver" ]; then
		fetch_image "$ver" "$upstream+deb13-amd64"
		echo "$ver" >"$DIR/image.version"
	fi
	env="MAINLINE_VERSION='$ver'
MAINLINE_KVER='$upstream+deb13-amd64'
MAINLINE_TARBALL='$DIR/x/usr/src/$PKG.tar.xz'
MAINLINE_TREE='$BUILD/linux-$upstream'
MAINLINE_IMAGE='$DIR/image'"
	if [ "$(cat "$MAINLINE_ENV" 2>/dev/null)" != "$env" ]; then
		printf '%s\n' "$env" >"$MAINLINE_ENV"
		log "mainline base: $PKG $ver"
	fi
}

main "$@"
