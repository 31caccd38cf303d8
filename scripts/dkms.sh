#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh source|tarball|install|remove|check
#
#   source   assemble the DKMS source package in $OUT/dkms/NAME-VERSION:
#            dkms.conf, a Makefile, net/sunrpc/xprtrdma of the series and
#            the headers the series changes
#   tarball  pack it as $OUT/dkms/NAME-VERSION.tar.gz (unpacks to
#            NAME-VERSION/, ready for /usr/src)
#   install  copy it to /usr/src and "dkms install" it for $DKMS_KVER
#            (default: the pinned Debian kernel); root
#   remove   "dkms remove" it from every kernel, delete /usr/src/NAME-VERSION
#   check    install, check the result (modinfo, file list), boot the
#            installed module in the VM harness and mount over RDMA,
#            remove, and check that the stock module is back
#
# NAME and VERSION come from the top-level Makefile (DKMS_NAME,
# DKMS_VERSION).

# The VMs, DKMS and make install run the 6.12 series
SERIES_BASE=6.12
. "$(dirname "$0")/lib.sh"
load_base

NAME=${DKMS_NAME:?}
VERSION=${DKMS_VERSION:?}
DKMS_KVER=${DKMS_KVER:-$KVER}
MODVERSION=$VERSION-rfc8797
CHECK_NAME=dkms
PKGDIR=$OUT/dkms/$NAME-$VERSION
SRCDIR=/usr/src/$NAME-$VERSION
MODDIR=/lib/modules/$DKMS_KVER

source_pkg() {
	local headers
	rm -rf "$PKGDIR"
	mkdir -p "$PKGDIR"
	mapfile -t headers < <(tgit diff --name-only --diff-filter=AM base HEAD -- include/)
	tgit archive HEAD -- net/sunrpc/xprtrdma "${headers[@]}" | tar -x -C "$PKGDIR"
	cp "$TOP/scripts/package/dkms/Makefile" "$PKGDIR/"
	cp "$TOP/scripts/package/dkms/Kbuild" "$PKGDIR/net/sunrpc/xprtrdma/"
	cat >"$PKGDIR/net/sunrpc/xprtrdma/dkms_version.c" <<-VERSION
	// SPDX-License-Identifier: GPL-2.0
	/* The version of the DKMS package this rpcrdma.ko was built from */
	#include <linux/module.h>
	MODULE_VERSION("$MODVERSION");
	VERSION
	sed -e "s/@NAME@/$NAME/" -e "s/@VERSION@/$VERSION/" \
		"$TOP/scripts/package/dkms/dkms.conf.in" >"$PKGDIR/dkms.conf"
	log "DKMS source package: $PKGDIR"
}

tarball() {
	source_pkg
	tar -C "$OUT/dkms" --owner=0 --group=0 --sort=name \
		-czf "$OUT/dkms/$NAME-$VERSION.tar.gz" "$NAME-$VERSION"
	log "DKMS tarball: $OUT/dkms/$NAME-$VERSION.tar.gz"
}

need_dkms() {
	[ "$(id -u)" = 0 ] || die "dkms $1 needs root"
	command -v dkms >/dev/null || die "no dkms: run 'make deps'"
}

registered() { [ -n "$(dkms status -m "$NAME" -v "$VERSION")" ]; }

install_pkg() {
	local got
	need_dkms install
	# Two rpcrdma.ko in updates/ would leave depmod to pick one
	[ -z "$(find "$MODDIR/updates" -maxdepth 1 -name 'rpcrdma.ko*' 2>/dev/null)" ] ||
		die "'make install' put an rpcrdma.ko in $MODDIR/updates: 'make uninstall' first"
	source_pkg
	# Replace whatever an earlier install of this version left
	if registered; then remove_pkg; fi
	rm -rf "$SRCDIR"
	cp -r "$PKGDIR" "$SRCDIR"
	quiet dkms add -m "$NAME" -v "$VERSION"
	quiet dkms build -m "$NAME" -v "$VERSION" -k "$DKMS_KVER"
	quiet dkms install -m "$NAME" -v "$VERSION" -k "$DKMS_KVER"
	# dkms exits 0 even when its version check skipped the module
	got=$(rpcrdma_path "$DKMS_KVER")
	case "$got" in
	"$MODDIR"/updates/dkms/rpcrdma.ko*) log "installed: $got" ;;
	*) die "dkms install left modprobe with $got: see 'dkms status' and /var/lib/dkms/$NAME" ;;
	esac
}

remove_pkg() {
	need_dkms remove
	if registered; then
		quiet dkms remove -m "$NAME" -v "$VERSION" --all
	fi
	rm -rf "$SRCDIR"
	log "removed $NAME $VERSION; rpcrdma is now $(rpcrdma_path "$DKMS_KVER")"
}

# The rpcrdma.ko files under $MODDIR, one path per line
module_files() {
	[ -d "$MODDIR" ] || die "no $MODDIR: kernel $DKMS_KVER is not installed"
	find "$MODDIR" -name 'rpcrdma.ko*' | sort
}

check() {
	local stock installed ko
	stock=$(module_files)
	[ -n "$stock" ] && [ "$(printf '%s\n' "$stock" | wc -l)" = 1 ] ||
		die "expected one rpcrdma.ko under $MODDIR before installing, found: $stock"
	trap remove_pkg EXIT
	install_pkg

	# install_pkg made sure modprobe now picks updates/dkms
	installed=$(rpcrdma_path "$DKMS_KVER")
	expect "rpcrdma.ko files after install" "$(module_files)" \
		"$(printf '%s\n%s\n' "$stock" "$installed" | sort)"
	expect "vermagic" "$(modinfo -F vermagic "$installed")" \
		"$(modinfo -F vermagic "$stock")"
	expect "version" "$(modinfo -F version "$installed")" "$MODVERSION"
	expect "module parameters (none: every knob is a sysctl)" \
		"$(modinfo -F parm "$installed")" ""

	# Boot the installed file, as installed, and mount through it
	harness_env "$BUILD/dkms-e2e"
	mkdir -p "$E2E_OUT"
	ko=$E2E_OUT/rpcrdma.ko
	case "$installed" in
	*.xz) xz -dc "$installed" >"$ko" ;;
	*.zst) zstd -qdc "$installed" >"$ko" ;;
	*) cp "$installed" "$ko" ;;
	esac
	export RPCRDMA_OURS=$ko
	if E2E_RUNS_FILE=$TOP/tools/testing/nfsrdma/dkms.runs \
		"$TOP/tools/testing/nfsrdma/run.sh"; then
		expect "VM mount with the installed module" ok ok
	else
		expect "VM mount with the installed module" failed ok
	fi
	expect "the VM ran the installed module" \
		"$(tr -d '\r' <"$E2E_OUT/dkms-installed.log" | grep -c "^E2E: rpcrdma=ours .* version=$MODVERSION\$")" 1

	trap - EXIT
	remove_pkg
	expect "rpcrdma.ko files after remove" "$(module_files)" "$stock"
	expect "modprobe picks the stock module again" \
		"$(rpcrdma_path "$DKMS_KVER")" "$stock"
	expect "nothing left in /usr/src" "$(ls -d "$SRCDIR" 2>/dev/null)" ""
	expect "nothing left in the dkms tree" \
		"$(dkms status -m "$NAME" -v "$VERSION")" ""
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
