#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module.sh COMMIT OUTDIR [KBUILD ARGS...]
#
# Build rpcrdma.ko from net/sunrpc/xprtrdma of COMMIT in $TREE (and
# auth_rpcgss.ko from net/sunrpc/auth_gss, and the objects of sunrpc.ko
# the series changes, once it changes them), out of tree, against the base's Debian headers: 6.12's on the host, 7.3's
# (SERIES_BASE=mainline) in the trixie root of trixie-root.sh, with
# OUTDIR mounted at /work-out and the build's paths printed as the
# host's. The headers that the series
# changes or adds are put first on the include path, so they win over
# the installed ones. Sources are copied by content, so a rebuild of an
# unchanged commit compiles nothing. With TEST_MODULES=1 it also builds
# the test-only modules of tools/testing/nfsrdma (nfsrdma_fragment.ko)
# from the repository, next to rpcrdma.ko. With MODULE_ARCH=arm64 (or
# arm64-16k) it cross-builds for Debian's arm64 kernel of the base (of
# that flavour) instead, against
# the arm64 headers arm64-deps.sh unpacked (their .kernelvariables set
# ARCH and CROSS_COMPILE).

. "$(dirname "$0")/lib.sh"
load_base

MODULE_ARCH=${MODULE_ARCH:-amd64}
case $MODULE_ARCH in
amd64)
	HDRS_6_12=$HEADERS_DIR
	HDRS_7_3=/usr/src/linux-headers-${MAINLINE_KVER:-}
	;;
arm64|arm64-16k)
	[ -r "$BUILD/arm64.env" ] || die "$BUILD/arm64.env is missing: run 'make deps-arm64'"
	# shellcheck source=/dev/null
	. "$BUILD/arm64.env"
	sfx=${MODULE_ARCH#arm64}
	v=ARM64_HEADERS_6_12${sfx/-/_}; HDRS_6_12=${!v}
	v=ARM64_HEADERS_7_3${sfx/-/_}; HDRS_7_3=${!v}
	;;
*) die "MODULE_ARCH=$MODULE_ARCH: use amd64, arm64 or arm64-16k" ;;
esac

[ $# -ge 2 ] || die "usage: module.sh COMMIT OUTDIR [KBUILD ARGS...]"
COMMIT=$1
OUTDIR=$2
shift 2

# Copy paths of COMMIT into $1, touching only files whose content changed
export_paths() {
	local dest=$1 tmp
	shift
	tmp=$(mktemp -d)
	tgit archive "$COMMIT" -- "$@" | tar -x -C "$tmp"
	mkdir -p "$dest"
	rsync -rc "$tmp/" "$dest/"
	rm -rf "$tmp"
}

main() {
	local headers src ko changes core hdrs
	tgit rev-parse -q --verify "$COMMIT^{commit}" >/dev/null ||
		die "no commit '$COMMIT' in $TREE"
	mkdir -p "$OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd)
	src=$OUTDIR/src
	export_paths "$src" net/sunrpc/xprtrdma
	mapfile -t headers < <(tgit diff --name-only --diff-filter=AM base "$COMMIT" -- include/)
	rm -rf "$OUTDIR/include.new"
	if [ "${#headers[@]}" -gt 0 ]; then
		export_paths "$OUTDIR/include.new" "${headers[@]}"
	else
		mkdir -p "$OUTDIR/include.new/include"
	fi
	# Keep the mtimes of headers that did not change. A header this
	# commit no longer changes falls back to the installed one, older
	# than every object: kbuild would keep objects built against the
	# removed copy, so they all go.
	mkdir -p "$OUTDIR/include"
	changes=$(rsync -rc --delete --itemize-changes \
		"$OUTDIR/include.new/include/" "$OUTDIR/include/")
	case "$changes" in
	*'*deleting'*) find "$src" \( -name '*.o' -o -name '*.ko' \) -delete ;;
	esac
	rm -rf "$OUTDIR/include.new"

	kbuild src/net/sunrpc/xprtrdma "$@"
	ko=$src/net/sunrpc/xprtrdma/rpcrdma.ko
	[ -f "$ko" ] || die "no rpcrdma.ko was built"
	ln -sf "$ko" "$OUTDIR/rpcrdma.ko"

	# A fix to the RPCSEC_GSS server code (auth_rpcgss.ko) is built
	# too, with the sunrpc headers it includes, so that the series
	# checks compile it; the guests load Debian's auth_rpcgss.ko
	if [ -n "$(tgit diff --name-only base "$COMMIT" -- net/sunrpc/auth_gss)" ]; then
		export_paths "$src" net/sunrpc/auth_gss net/sunrpc/netns.h \
			net/sunrpc/sunrpc.h net/sunrpc/fail.h
		kbuild src/net/sunrpc/auth_gss "$@"
		[ -f "$src/net/sunrpc/auth_gss/auth_rpcgss.ko" ] ||
			die "no auth_rpcgss.ko was built"
	fi

	# A fix to sunrpc.ko's own code (6.12's svc_fill_write_vector()) is
	# compiled too, object by object with the sunrpc headers, so that
	# the series checks see it; there is no sunrpc.ko to load, as the
	# guests load Debian's
	mapfile -t core < <(tgit diff --name-only base "$COMMIT" -- net/sunrpc |
		grep -E '^net/sunrpc/[^/]+\.c$')
	if [ "${#core[@]}" -gt 0 ]; then
		mapfile -t hdrs < <(tgit ls-tree --name-only "$COMMIT" net/sunrpc/ |
			grep '\.h$')
		export_paths "$OUTDIR/core" "${hdrs[@]}" "${core[@]}"
		{
			echo "obj-m := sunrpc-core-check.o"
			printf 'sunrpc-core-check-y :='
			printf ' %s' "${core[@]##*/}" | sed 's/\.c/.o/g'
			echo
		} >"$OUTDIR/core/net/sunrpc/Kbuild"
		kbuild_objects core/net/sunrpc "$(printf '%s ' "${core[@]##*/}" | sed 's/\.c /.o /g')" "$@"
	fi

	# TEST_MODULES=1: the test-only modules of the end-to-end tests too
	if [ "${TEST_MODULES:-0}" = 1 ]; then
		mkdir -p "$OUTDIR/fragment"
		rsync -rc "$TOP/tools/testing/nfsrdma/fragment/" "$OUTDIR/fragment/"
		kbuild fragment "$@"
		[ -f "$OUTDIR/fragment/nfsrdma_fragment.ko" ] ||
			die "no nfsrdma_fragment.ko was built"
		ln -sf "$OUTDIR/fragment/nfsrdma_fragment.ko" "$OUTDIR/nfsrdma_fragment.ko"
	fi
}

# kbuild_objects DIR "OBJECTS" [KBUILD ARGS...]: compile OBJECTS of
# OUTDIR/DIR against the base's headers, without linking a module
kbuild_objects() {
	local dir=$1 objs=$2
	shift 2
	# shellcheck disable=SC2086 # OBJECTS is a list
	if [ "$SERIES_BASE" = mainline ]; then
		"$TOP/scripts/trixie-root.sh" run "$OUTDIR" \
			make -s -C "$HDRS_7_3" M="/work-out/$dir" \
			NOSTDINC_FLAGS="-nostdinc -I/work-out/include" \
			"$@" $objs 2>&1 | sed "s|/work-out/|$OUTDIR/|g" ||
			die "the build in the trixie root failed"
	else
		make -s -C "$HDRS_6_12" M="$OUTDIR/$dir" \
			NOSTDINC_FLAGS="-nostdinc -I$OUTDIR/include" "$@" $objs ||
			die "compiling $objs failed"
	fi
}

# kbuild DIR [KBUILD ARGS...]: build the external module in OUTDIR/DIR
# against the base's headers
kbuild() {
	local dir=$1
	shift
	if [ "$SERIES_BASE" = mainline ]; then
		"$TOP/scripts/trixie-root.sh" run "$OUTDIR" \
			make -s -C "$HDRS_7_3" \
			M="/work-out/$dir" \
			NOSTDINC_FLAGS="-nostdinc -I/work-out/include" \
			-j"$(nproc)" "$@" modules 2>&1 | sed "s|/work-out/|$OUTDIR/|g" ||
			die "the build in the trixie root failed"
	else
		make -s -C "$HDRS_6_12" M="$OUTDIR/$dir" \
			NOSTDINC_FLAGS="-nostdinc -I$OUTDIR/include" -j"$(nproc)" "$@" modules
	fi
}

main "$@"
