#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh source|tarball|install|remove|check
#
#   source   assemble the DKMS source package in $OUT/dkms/NAME-VERSION:
#            dkms.conf, a Makefile, and for each series (6.12/ and 7.3/)
#            its net/sunrpc/xprtrdma and the headers it changes
#   tarball  pack it as $OUT/dkms/NAME-VERSION.tar.gz (unpacks to
#            NAME-VERSION/, ready for /usr/src)
#   install  copy it to /usr/src and "dkms install" it for $DKMS_KVER
#            (default: the pinned Debian 6.12 kernel); root
#   remove   "dkms remove" it from every kernel, delete /usr/src/NAME-VERSION
#   check    install, check the result (modinfo, file list), boot the
#            installed module in the VM harness and mount over RDMA,
#            remove, and check that the stock module is back. DKMS_KVER
#            set to the 7.3 kernel (or DKMS_KERNEL=7.3) does all of this
#            in the trixie root of trixie-root.sh, where that kernel's
#            headers and modules are installed as on a Debian 13 host.
#
# NAME and VERSION come from the top-level Makefile (DKMS_NAME,
# DKMS_VERSION).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-harness.sh"
SERIES_BASE=6.12 load_base
# shellcheck source=/dev/null
[ ! -r "$MAINLINE_ENV" ] || . "$MAINLINE_ENV"

NAME=${DKMS_NAME:?}
VERSION=${DKMS_VERSION:?}
case ${DKMS_KERNEL:-} in
7.3) DKMS_KVER=${MAINLINE_KVER:?run make deps-mainline} ;;
6.12|'') ;;
*) die "DKMS_KERNEL=$DKMS_KERNEL: use 6.12 or 7.3" ;;
esac
DKMS_KVER=${DKMS_KVER:-$KVER}
MODVERSION=$VERSION-rfc8797
CHECK_NAME=dkms
PKGDIR=$OUT/dkms/$NAME-$VERSION
SRCDIR=/usr/src/$NAME-$VERSION
MODDIR=/lib/modules/$DKMS_KVER
# Where the kernel DKMS builds for lives: the host, or for 7.3 the
# trixie root (SYSROOT), whose commands run through in_sys
# (its package is assembled in a directory of its own, so that both
# checks can run at once)
SYSROOT=
if [ "$DKMS_KVER" = "${MAINLINE_KVER:-}" ]; then
	SYSROOT=$BUILD/trixie-root
	CHECK_NAME=dkms-7.3
	PKGDIR=$OUT/dkms-7.3/$NAME-$VERSION
fi
in_sys() {
	if [ -n "$SYSROOT" ]; then
		mkdir -p "${PKGDIR%/*}"
		"$TOP/scripts/trixie-root.sh" run "${PKGDIR%/*}" "$@"
	else
		"$@"
	fi
}

# series_src DIR TREE: net/sunrpc/xprtrdma of TREE's series, the headers
# the series changes, and the DKMS version stamp, in DIR
series_src() {
	local dir=$1 headers
	mkdir -p "$dir"
	mapfile -t headers < <(git -C "$2" diff --name-only --diff-filter=AM base series -- include/)
	git -C "$2" archive series -- net/sunrpc/xprtrdma "${headers[@]}" | tar -x -C "$dir"
	cp "$TOP/scripts/package/dkms/Kbuild" "$dir/net/sunrpc/xprtrdma/"
	cat >"$dir/net/sunrpc/xprtrdma/dkms_version.c" <<-VERSION
	// SPDX-License-Identifier: GPL-2.0
	/* The version of the DKMS package this rpcrdma.ko was built from */
	#include <linux/module.h>
	MODULE_VERSION("$MODVERSION");
	VERSION
}

source_pkg() {
	rm -rf "$PKGDIR"
	mkdir -p "$PKGDIR"
	[ -n "${MAINLINE_TREE:-}" ] || die "no mainline tree: run 'make tree'"
	series_src "$PKGDIR/6.12" "$TREE"
	series_src "$PKGDIR/7.3" "$MAINLINE_TREE"
	cp "$TOP/scripts/package/dkms/Makefile" "$PKGDIR/"
	sed -e "s/@NAME@/$NAME/" -e "s/@VERSION@/$VERSION/" \
		"$TOP/scripts/package/dkms/dkms.conf.in" >"$PKGDIR/dkms.conf"
	log "DKMS source package: $PKGDIR"
}

tarball() {
	# The same package serves both kernels: always $OUT/dkms
	PKGDIR=$OUT/dkms/$NAME-$VERSION
	source_pkg
	tar -C "$OUT/dkms" --owner=0 --group=0 --sort=name \
		-czf "$OUT/dkms/$NAME-$VERSION.tar.gz" "$NAME-$VERSION"
	log "DKMS tarball: $OUT/dkms/$NAME-$VERSION.tar.gz"
}

need_dkms() {
	[ "$(id -u)" = 0 ] || die "dkms $1 needs root"
	[ -n "$SYSROOT" ] || command -v dkms >/dev/null || die "no dkms: run 'make deps'"
}

registered() { [ -n "$(in_sys dkms status -m "$NAME" -v "$VERSION")" ]; }

# The rpcrdma.ko that modprobe would load for DKMS_KVER, as a path of
# the system it is installed in
mod_path() {
	in_sys modinfo -k "$DKMS_KVER" -n rpcrdma 2>&1 || true
}

install_pkg() {
	local got
	need_dkms install
	[ -z "$SYSROOT" ] || "$TOP/scripts/trixie-root.sh" ensure
	# Two rpcrdma.ko in updates/ would leave depmod to pick one
	[ -z "$(find "$SYSROOT$MODDIR/updates" -maxdepth 1 -name 'rpcrdma.ko*' 2>/dev/null)" ] ||
		die "'make install' put an rpcrdma.ko in $MODDIR/updates: 'make uninstall' first"
	source_pkg
	# Replace whatever an earlier install of this version left
	if registered; then remove_pkg; fi
	rm -rf "$SYSROOT$SRCDIR"
	cp -r "$PKGDIR" "$SYSROOT$SRCDIR"
	QUIET_WHAT="dkms add" quiet in_sys dkms add -m "$NAME" -v "$VERSION"
	QUIET_WHAT="dkms build" quiet in_sys dkms build -m "$NAME" -v "$VERSION" -k "$DKMS_KVER"
	QUIET_WHAT="dkms install" quiet in_sys dkms install -m "$NAME" -v "$VERSION" -k "$DKMS_KVER"
	# dkms exits 0 even when its version check skipped the module
	got=$(mod_path)
	case "$got" in
	"$MODDIR"/updates/dkms/rpcrdma.ko*) log "installed for $DKMS_KVER: $SYSROOT$got" ;;
	*) die "dkms install left modprobe with $got: see 'dkms status' and /var/lib/dkms/$NAME" ;;
	esac
}

remove_pkg() {
	need_dkms remove
	if registered; then
		QUIET_WHAT="dkms remove" quiet in_sys dkms remove -m "$NAME" -v "$VERSION" --all
	fi
	rm -rf "$SYSROOT$SRCDIR"
	log "removed $NAME $VERSION; rpcrdma for $DKMS_KVER is now $(mod_path)"
}

# The rpcrdma.ko files under $MODDIR, one path per line
module_files() {
	[ -d "$SYSROOT$MODDIR" ] || die "no $SYSROOT$MODDIR: kernel $DKMS_KVER is not installed"
	find "$SYSROOT$MODDIR/" -name 'rpcrdma.ko*' | sed "s|^$SYSROOT||" | sort
}

check() {
	local stock installed archived ko kernel=6.12
	[ -z "$SYSROOT" ] || { kernel=7.3; "$TOP/scripts/trixie-root.sh" ensure; }
	stock=$(module_files)
	[ -n "$stock" ] && [ "$(printf '%s\n' "$stock" | wc -l)" = 1 ] ||
		die "expected one rpcrdma.ko under $SYSROOT$MODDIR before installing, found: $stock"
	trap remove_pkg EXIT
	install_pkg

	# install_pkg made sure modprobe now picks updates/dkms. Debian 12's
	# dkms leaves the stock file where it is; Debian 13's moves the only
	# other copy of a module it installs aside, under its own tree, and
	# puts it back on remove.
	installed=$(mod_path)
	archived=$(find "$SYSROOT/var/lib/dkms/$NAME/original_module/$DKMS_KVER" \
		-name 'rpcrdma.ko*' 2>/dev/null | head -n 1 || true)
	if [ -f "$SYSROOT$stock" ]; then
		expect "kernel $DKMS_KVER: rpcrdma.ko files after install (stock kept)" \
			"$(module_files)" "$(printf '%s\n%s\n' "$stock" "$installed" | sort)"
		archived=$SYSROOT$stock
	else
		expect "kernel $DKMS_KVER: rpcrdma.ko files after install (stock archived by dkms)" \
			"$(module_files):${archived:+archived}" "$installed:archived"
	fi
	expect "vermagic" "$(modinfo -F vermagic "$SYSROOT$installed")" \
		"$(modinfo -F vermagic "$archived" 2>/dev/null)"
	expect "version" "$(modinfo -F version "$SYSROOT$installed")" "$MODVERSION"
	expect "module parameters (none: every knob is a sysctl)" \
		"$(modinfo -F parm "$SYSROOT$installed")" ""

	# Boot the installed file, as installed, and mount through it
	export E2E_KERNEL=$kernel
	harness_env "$BUILD/dkms-e2e/$kernel"
	mkdir -p "$E2E_OUT"
	ko=$E2E_OUT/rpcrdma.ko
	case "$installed" in
	*.xz) xz -dc "$SYSROOT$installed" >"$ko" ;;
	*.zst) zstd -qdc "$SYSROOT$installed" >"$ko" ;;
	*) cp "$SYSROOT$installed" "$ko" ;;
	esac
	export "RPCRDMA_OURS_${kernel//./_}=$ko"
	# The run's own KTAP, as diagnostics of this one
	if E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/dkms.runs \
		"$TOP/tools/testing/nfsrdma/run.sh" 2>&1 | sed 's/^/# /'; then
		expect "VM of $kernel: mount with the installed module" ok ok
	else
		expect "VM of $kernel: mount with the installed module" failed ok
	fi
	expect "the VM ran the installed module" \
		"$(tr -d '\r' <"$E2E_OUT/dkms-installed.log" | grep -c "^E2E: rpcrdma=ours .* version=$MODVERSION\$")" 1

	trap - EXIT
	remove_pkg
	expect "rpcrdma.ko files after remove" "$(module_files)" "$stock"
	expect "modprobe picks the stock module again" "$(mod_path)" "$stock"
	expect "nothing left in /usr/src" "$(ls -d "$SYSROOT$SRCDIR" 2>/dev/null)" ""
	expect "nothing left in the dkms tree" \
		"$(in_sys dkms status -m "$NAME" -v "$VERSION")" ""
	expect_summary
}

case "${1:-}" in
source) source_pkg ;;
tarball) tarball ;;
install) install_pkg ;;
remove) remove_pkg ;;
check) check ;;
*) die "usage: dkms.sh source|tarball|install|remove|check" ;;
esac
