#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# siw-module.sh 6.12|7.3 OUTDIR [KBUILD ARGS...]
#
# Build soft-iWARP (siw.ko) out of tree from drivers/infiniband/sw/siw
# of a base's pristine tree (the tag "base", never the series) with the
# fixes of patches/siw applied, against
# Debian's headers of that kernel: 6.12's on the host, 7.3's in the
# trixie root of trixie-root.sh (OUTDIR at /work-out). Debian builds
# neither kernel with CONFIG_RDMA_SIW, so the option is set to m on the
# make command line, which the directory's Makefile
# (obj-$(CONFIG_RDMA_SIW)) reads. Leaves OUTDIR/siw.ko (a symlink) and
# fails when modpost warns (a symbol the headers' Module.symvers lacks)
# or when the module's vermagic differs from the kernel's own
# rdma_rxe.ko. Sources are copied by content, so a rebuild of the same
# tree compiles nothing.

[ $# -ge 2 ] || { echo "usage: siw-module.sh 6.12|7.3 OUTDIR [KBUILD ARGS...]" >&2; exit 1; }
case $1 in
6.12) SERIES_BASE=6.12 ;;
7.3) SERIES_BASE=mainline ;;
*) echo "siw-module.sh: '$1': use 6.12 or 7.3" >&2; exit 1 ;;
esac
export SERIES_BASE
. "$(dirname "$0")/lib.sh"
load_base

KERNEL=$1
OUTDIR=$2
shift 2
SIW_DIR=drivers/infiniband/sw/siw

if [ "$SERIES_BASE" = mainline ]; then
	KREL=$MAINLINE_KVER
	HDRS=/usr/src/linux-headers-$KREL
	# the headers live in the trixie root; the modules in the image
	SYMVERS=$BUILD/trixie-root$HDRS/Module.symvers
	MODDIR=$MAINLINE_IMAGE/lib/modules/$KREL
else
	KREL=$KVER
	HDRS=$HEADERS_DIR
	SYMVERS=$HDRS/Module.symvers
	MODDIR=/lib/modules/$KREL
fi

# Copy the base's siw directory into OUTDIR/src, touching only files
# whose content changed
export_siw() {
	local tmp
	tgit rev-parse -q --verify "base^{commit}" >/dev/null ||
		die "no tag 'base' in $TREE"
	tmp=$(mktemp -d)
	tgit archive base -- "$SIW_DIR" | tar -x -C "$tmp"
	# Our fixes to siw itself (patches/siw), which the harness needs
	# and which go to linux-rdma on their own
	for p in "$TOP"/patches/siw/*.patch; do
		# (no repository around $tmp may take the paths)
		(cd "$tmp" && GIT_CEILING_DIRECTORIES=$(dirname "$tmp") git apply "$p") ||
			{ rm -rf "$tmp"; die "$(basename "$p") does not apply to $SIW_DIR of $TREE"; }
	done
	# shellcheck disable=SC2016 # the Makefile's text, not ours to expand
	grep -q 'obj-$(CONFIG_RDMA_SIW)' "$tmp/$SIW_DIR/Makefile" ||
		die "$SIW_DIR/Makefile of $TREE does not build on CONFIG_RDMA_SIW"
	mkdir -p "$OUTDIR/src"
	# (--delete, but not of what the build made)
	rsync -rc --delete --filter='P *.o' --filter='P *.ko' --filter='P .*.cmd' \
		--filter='P *.mod*' --filter='P modules.order' --filter='P Module.symvers' \
		--filter='P .*.d' "$tmp/$SIW_DIR/" "$OUTDIR/src/"
	rm -rf "$tmp"
}

kbuild() {
	if [ "$SERIES_BASE" = mainline ]; then
		"$TOP/scripts/trixie-root.sh" run "$OUTDIR" \
			make -C "$HDRS" M=/work-out/src CONFIG_RDMA_SIW=m \
			-j"$(nproc)" "$@" modules 2>&1 | sed "s|/work-out/|$OUTDIR/|g"
	else
		make -C "$HDRS" M="$OUTDIR/src" CONFIG_RDMA_SIW=m \
			-j"$(nproc)" "$@" modules 2>&1
	fi
}

# check_module KO: vermagic as the kernel's own modules have it, and
# every undefined symbol exported by the kernel or a module of it
check_module() {
	local ko=$1 ref want got sym missing=0
	for ref in "$MODDIR"/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*; do
		[ -e "$ref" ] && break
	done
	[ -e "$ref" ] || die "no rdma_rxe.ko under $MODDIR to compare with"
	want=$(modinfo -F vermagic "$ref")
	got=$(modinfo -F vermagic "$ko")
	[ "$got" = "$want" ] || die "siw.ko vermagic '$got', $KREL's modules have '$want'"
	log "vermagic: $got (as $(basename "$ref"))"
	[ -r "$SYMVERS" ] || die "no $SYMVERS"
	# modpost says so too; this says it without the build log
	for sym in $(nm -u "$ko" | awk '{ print $2 }'); do
		awk -v s="$sym" '$2 == s { f = 1; exit } END { exit !f }' "$SYMVERS" && continue
		warn "siw.ko needs $sym, which $SYMVERS lacks"
		missing=1
	done
	[ "$missing" = 0 ] || die "siw.ko needs symbols $KREL does not export"
	log "all $(nm -u "$ko" | wc -l) undefined symbols are in $(basename "$(dirname "$SYMVERS")")/Module.symvers"
}

main() {
	local out rc=0 ko
	mkdir -p "$OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd)
	export_siw
	log "building siw.ko of $BASE_TITLE for $KREL in $OUTDIR"
	out=$(kbuild "$@") || rc=$?
	printf '%s\n' "$out" | grep -Ev '^make(\[[0-9]+\])?: (Entering|Leaving) directory' || true
	[ "$rc" = 0 ] || die "the siw build for $KERNEL failed"
	if printf '%s\n' "$out" | grep -q '^WARNING: modpost:'; then
		die "modpost warned (above): siw.ko would not load on $KREL"
	fi
	ko=$OUTDIR/src/siw.ko
	[ -f "$ko" ] || die "no siw.ko was built"
	check_module "$ko"
	ln -sf src/siw.ko "$OUTDIR/siw.ko"
	log "built $OUTDIR/siw.ko"
}

main "$@"
