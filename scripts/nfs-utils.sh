#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nfs-utils.sh: nfs-utils' mountstats with the patches of
# patches/nfs-utils/ (make nfs-utils-mountstats).
#
# Fetches Debian's nfs-utils source package, pinned to
# NFS_UTILS_PKG_VERSION (top-level Makefile: the version trixie ships),
# with apt-get source --download-only into a private apt state whose
# only source is trixie's deb-src (nothing is installed, the host's apt
# sources are left alone), unpacks it with dpkg-source -x (Debian's own
# patches applied, as the package is built), makes the tree a git
# repository (tag "base") and applies patches/nfs-utils/series with git
# am. It writes to $BUILD/nfs-utils/:
#
#   mountstats       tools/mountstats/mountstats.py with the patches:
#                    what the e2e scenario mountstats-tool runs
#   mountstats.orig  the same file as Debian ships it (/usr/sbin/mountstats
#                    of trixie's nfs-common)
#   version          the source package version they come from
#   nfs-utils-UPSTREAM/  the tree, to work on the patches (patches/README.md)
#
# Nothing is redone while the version, the series and its patches are
# unchanged. Version policy, as for the kernels: a copy of the pin
# fetched earlier is used without asking the archive; when trixie no
# longer offers the pin, the newest nfs-utils it has is taken with a
# warning. Every stop says why on one line starting "ERROR: nfs-utils:".

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-apt.sh"

failing_as nfs-utils

[ -n "${NFS_UTILS_PKG_VERSION:-}" ] ||
	stop "NFS_UTILS_PKG_VERSION is not set: run 'make nfs-utils-mountstats' (the top-level Makefile pins it)"

PKG=nfs-utils
DIR=$BUILD/nfs-utils
APT_DIR=$DIR/apt
SRC=$DIR/src
SUITE=trixie
PATCHES=$TOP/patches/nfs-utils
STAMP=$DIR/stamp

# dsc_of VERSION: the .dsc of VERSION (no epoch in file names)
dsc_of() { echo "$SRC/${PKG}_${1#*:}.dsc"; }

# The versions of the source package the archive offers, newest first
archive_versions() {
	private_apt "$APT_DIR" apt-cache showsrc "$PKG" |
		sed -n 's/^Version: //p' | sort -rV | uniq
}

# fetch VERSION: the source package of VERSION, downloaded into $SRC
fetch() {
	mkdir -p "$SRC"
	log "downloading the $PKG $1 source package ($SUITE)"
	(cd "$SRC" && QUIET_WHAT="apt-get source $PKG=$1" \
		quiet private_apt "$APT_DIR" apt-get source --download-only "$PKG=$1")
	[ -s "$(dsc_of "$1")" ] || stop "apt-get source left no $(dsc_of "$1")"
}

# The patches, in series order (the series file minus comments)
series() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series"
}

# What the outputs are made from: the package version and the patches
inputs_key() {
	{
		echo "$1"
		sha256sum "$PATCHES/series" "$0"
		series | while read -r p; do sha256sum "$PATCHES/$p"; done
	} | sha256sum | cut -c1-16
}

# check_tree TREE: stop rather than throw away work in a tree that
# make built: edits not committed, or a commit whose change no patch of
# the series has (git patch-id: the diffs, not the messages)
check_tree() {
	local tree=$1 theirs id
	[ -d "$tree/.git" ] || return 0
	[ -z "$(git -C "$tree" status --porcelain)" ] ||
		stop "$tree has edits that are not committed, let alone in patches/nfs-utils:" \
			"commit and export them (patches/README.md), or remove the tree"
	theirs=" $(series | while read -r p; do cat "$PATCHES/$p"; done |
		git patch-id --stable | cut -d' ' -f1 | tr '\n' ' ')"
	for id in $(git -C "$tree" log -p base..HEAD | git patch-id --stable | cut -d' ' -f1); do
		[[ "$theirs" == *" $id "* ]] ||
			stop "$tree has commits that patches/nfs-utils lacks: export them with" \
				"git format-patch (patches/README.md), or remove the tree"
	done
}

main() {
	local ver=$NFS_UTILS_PKG_VERSION versions upstream tree key p id
	mkdir -p "$DIR"
	[ -s "$PATCHES/series" ] || stop "no $PATCHES/series"
	if [ ! -s "$(dsc_of "$ver")" ]; then
		PRIVATE_APT_TYPES=deb-src private_apt_setup "$APT_DIR" "$SUITE"
		versions=$(archive_versions) || stop "apt-cache showsrc $PKG failed"
		[ -n "$versions" ] ||
			stop "$SUITE offers no $PKG source; is deb.debian.org reachable through apt?"
		if ! grep -qxF "$ver" <<<"$versions"; then
			ver=$(head -n 1 <<<"$versions")
			warn "$PKG $NFS_UTILS_PKG_VERSION is no longer in $SUITE; using $ver." \
				"Set NFS_UTILS_PKG_VERSION in the Makefile to $ver to silence this"
		fi
		[ -s "$(dsc_of "$ver")" ] || fetch "$ver"
	fi
	upstream=${ver#*:}
	upstream=${upstream%-*}
	tree=$DIR/$PKG-$upstream
	key=$(inputs_key "$ver")
	if [ "$(cat "$STAMP" 2>/dev/null)" = "$key" ] && [ -s "$DIR/mountstats" ] &&
	   [ -s "$DIR/mountstats.orig" ]; then
		return 0
	fi
	check_tree "$tree"
	rm -rf "$tree" "$DIR/mountstats" "$DIR/mountstats.orig" "$STAMP"
	QUIET_WHAT="dpkg-source -x $(dsc_of "$ver")" quiet dpkg-source -x "$(dsc_of "$ver")" "$tree"
	# (dpkg-source leaves a copy of the upstream tarball beside the tree)
	rm -f "$DIR/${PKG}_$upstream.orig.tar."*
	[ -s "$tree/tools/mountstats/mountstats.py" ] ||
		stop "$PKG $ver has no tools/mountstats/mountstats.py"
	cp "$tree/tools/mountstats/mountstats.py" "$DIR/mountstats.orig"
	# The tree as a git repository, to apply the mails as they are
	# meant to be applied, and to work on them
	id=(-c user.name="nfs-utils.sh" -c user.email="nfs-utils.sh@localhost"
	    -c safe.directory="$tree")
	QUIET_WHAT="git init of $tree" quiet git -C "$tree" "${id[@]}" init -q
	QUIET_WHAT="git add in $tree" quiet git -C "$tree" "${id[@]}" add -A .
	QUIET_WHAT="git commit in $tree" quiet git -C "$tree" "${id[@]}" commit -q -m "$PKG $ver (dpkg-source -x)"
	git -C "$tree" "${id[@]}" tag base
	for p in $(series); do
		[ -s "$PATCHES/$p" ] || stop "the series names $p, which is not in $PATCHES"
		if ! git -C "$tree" "${id[@]}" am -q "$PATCHES/$p" >"$DIR/am.log" 2>&1; then
			cat "$DIR/am.log" >&2
			git -C "$tree" "${id[@]}" am --abort >/dev/null 2>&1 || true
			stop "$p does not apply to $PKG $ver (git am, above)"
		fi
	done
	rm -f "$DIR/am.log"
	# It must still be Python that the interpreter takes
	/usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' \
		"$tree/tools/mountstats/mountstats.py" ||
		stop "the patched mountstats.py does not parse"
	install -m 755 "$tree/tools/mountstats/mountstats.py" "$DIR/mountstats"
	chmod 755 "$DIR/mountstats.orig"
	echo "$ver" >"$DIR/version"
	echo "$key" >"$STAMP"
	log "mountstats of $PKG $ver with $(series | wc -l) patch(es): $DIR/mountstats (unpatched: mountstats.orig)"
}

main "$@"
