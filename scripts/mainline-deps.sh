#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the mainline base: Debian's linux-source-7.3 from
# trixie-backports, pinned to MAINLINE_PKG_VERSION (top-level Makefile).
# The package is only a tarball, so it is downloaded with apt-get
# download into a private apt state and unpacked with dpkg-deb -x;
# nothing from trixie is installed on the host. Records the version,
# the tarball and the tree's path in $BUILD/mainline.env.
#
# Version policy, as for the 6.12 base (scripts/deps.sh): the pin is
# preferred; a copy of it fetched earlier is used without asking the
# archive; when the archive no longer has the pin, the newest
# linux-source-7.3 it offers is taken with a warning. Every stop says
# why on one line starting with "ERROR: mainline-deps:".

. "$(dirname "$0")/lib.sh"

failing_as mainline-deps

[ -n "${MAINLINE_PKG_VERSION:-}" ] ||
	fail "MAINLINE_PKG_VERSION is not set: run 'make deps-mainline' (the top-level Makefile pins it)"

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
		[ -s "$deb" ] || fail "apt-get download left no $deb"
	fi
	rm -rf "$DIR/x"
	dpkg-deb -x "$deb" "$DIR/x" || fail "dpkg-deb -x $deb failed"
	[ -s "$DIR/x/usr/src/$PKG.tar.xz" ] ||
		fail "$deb holds no usr/src/$PKG.tar.xz"
}

main() {
	local ver=$MAINLINE_PKG_VERSION versions upstream env
	mkdir -p "$DIR"
	if [ ! -s "$(deb_of "$ver")" ]; then
		private_apt_setup "$APT_DIR" "$SUITE"
		versions=$(archive_versions) ||
			fail "apt-cache madison $PKG failed"
		if ! grep -qxF "$ver" <<<"$versions"; then
			[ -n "$versions" ] ||
				fail "trixie-backports offers no $PKG; is deb.debian.org reachable through apt?"
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
	env="MAINLINE_VERSION='$ver'
MAINLINE_KVER='$upstream+deb13-amd64'
MAINLINE_TARBALL='$DIR/x/usr/src/$PKG.tar.xz'
MAINLINE_TREE='$BUILD/linux-$upstream'"
	if [ "$(cat "$MAINLINE_ENV" 2>/dev/null)" != "$env" ]; then
		printf '%s\n' "$env" >"$MAINLINE_ENV"
		log "mainline base: $PKG $ver"
	fi
}

main "$@"
