#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trixie-root.sh ensure | run DIR COMMAND...
#
# The mainline series builds against Debian's 7.3 headers, which need
# gcc-14 and trixie's libc, so its modules are built in a Debian trixie
# root made by mmdebstrap: $BUILD/trixie-root, with
# linux-headers-<MAINLINE_KVER> of the mainline base's version (from
# trixie-backports), make and dkms, and what a whole kernel's build
# needs (flex, bison, bc, libelf and libssl headers) for the debug
# kernel of debug-kernel.sh, and gcc-aarch64-linux-gnu for the arm64
# lane (arm64-deps.sh unpacks the arm64 headers here). The kernel's modules are installed
# too (linux-modules- and linux-base-KVER, fetched by mainline-deps.sh),
# so that the DKMS check sees a Debian 13 host running 7.3: dkms
# installs beside the stock rpcrdma.ko and modprobe chooses between
# them. Two things the archive lacks are added:
#  - the kernel checks that sparse understands __typeof_unqual__, which
#    trixie's sparse 0.6.4 does not; sid's 0.6.5~rc1 does, so its sparse
#    binary is unpacked into the root (apt-get download, dpkg-deb -x);
#  - the headers package leaves out scripts/checker-valid.sh, without
#    which C=1 says sparse is missing; it is copied from the same
#    version's source.
# The root is kept between runs and remade when the base version
# changes. "run DIR COMMAND" runs COMMAND in the root, in private mount
# and PID namespaces with /proc mounted and the host directory DIR at
# /work-out, and undoes all of that when it ends.

SERIES_BASE=mainline
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-apt.sh"
load_base

ROOT=$BUILD/trixie-root
STAMP=$ROOT.stamp
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
SPARSE_SUITE=sid

# What a whole kernel's build needs beyond a module's (debug-kernel.sh)
KBUILD_PKGS=flex,bison,bc,libelf-dev,libssl-dev,cpio
# The arm64 lane's cross compiler (arm64-deps.sh): the gcc Debian built
# its arm64 7.3 kernel with
CROSS_PKGS=gcc-aarch64-linux-gnu

stamp() { echo "$MAINLINE_VERSION $MAINLINE_KVER sparse:$SPARSE_SUITE binutils dkms modules $KBUILD_PKGS $CROSS_PKGS"; }

make_root() {
	local work deb
	[ "$(id -u)" = 0 ] || die "trixie-root: mmdebstrap needs root"
	command -v mmdebstrap >/dev/null || die "trixie-root: no mmdebstrap: run 'make deps'"
	log "bootstrapping a Debian trixie build root for the $MAINLINE_VERSION headers"
	rm -rf --one-file-system "$ROOT" "$STAMP"
	QUIET_WHAT="trixie-root: mmdebstrap" quiet mmdebstrap --variant=minbase \
		--include="linux-headers-$MAINLINE_KVER=$MAINLINE_VERSION,make,binutils,dkms,kmod,$KBUILD_PKGS,$CROSS_PKGS" \
		trixie "$ROOT" \
		"deb [signed-by=$KEYRING] http://deb.debian.org/debian trixie main" \
		"deb [signed-by=$KEYRING] http://deb.debian.org/debian trixie-backports main"

	in_root "$BUILD/mainline" sh -ec '
		dpkg -i /work-out/linux-base-'"${MAINLINE_KVER}_${MAINLINE_VERSION}"'_amd64.deb \
			/work-out/linux-modules-'"${MAINLINE_KVER}_${MAINLINE_VERSION}"'_amd64.deb \
			>/tmp/dpkg.log 2>&1 ||
			{ tail -n 20 /tmp/dpkg.log; exit 1; }' ||
		die "trixie-root: installing the $MAINLINE_KVER modules failed"

	work=$(mktemp -d)
	private_apt_setup "$work" "$SPARSE_SUITE"
	(cd "$work" && QUIET_WHAT="trixie-root: apt-get download sparse" \
		quiet private_apt "$work" apt-get download sparse)
	deb=$(ls "$work"/sparse_*.deb)
	dpkg-deb -x "$deb" "$ROOT"
	rm -rf "$work"

	cp "$TREE/scripts/checker-valid.sh" \
		"$ROOT/usr/src/linux-headers-${MAINLINE_KVER%-amd64}-common/scripts/"
	in_root "$ROOT/tmp" sh "/usr/src/linux-headers-$MAINLINE_KVER/scripts/checker-valid.sh" sparse |
		grep -qx 1 || die "trixie-root: the kernel finds $(basename "$deb") unfit for C=1"
	stamp >"$STAMP"
	log "trixie root ready: $ROOT"
}

# in_root DIR COMMAND...: COMMAND in the root, DIR at /work-out
in_root() {
	local dir=$1
	shift
	mkdir -p "$ROOT/work-out"
	unshare --mount --pid --fork --kill-child -- /bin/sh -ec '
		root=$1 dir=$2
		shift 2
		mount --make-rprivate /
		mount -t proc proc "$root/proc"
		mount --bind "$dir" "$root/work-out"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
			LANG=C.UTF-8 "$@"' sh "$ROOT" "$dir" "$@"
}

ensure() {
	[ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(stamp)" ] && return
	make_root
}

case "${1:-}" in
ensure) ensure ;;
run)
	[ $# -ge 3 ] || die "usage: trixie-root.sh run DIR COMMAND..."
	shift
	ensure
	in_root "$@"
	;;
*) die "usage: trixie-root.sh ensure | run DIR COMMAND..." ;;
esac
