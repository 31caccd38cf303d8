#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh install|uninstall|check
#
# For hosts without DKMS: put the rpcrdma.ko of "make modules" in
# /lib/modules/$INSTALL_KVER/updates/ (default: the pinned Debian
# kernel it was built for), where depmod ranks it above the kernel's
# own, or take it out again. Either way depmod runs, so the next
# "modprobe rpcrdma" loads the right one. Root.

# The VMs, DKMS and make install run the 6.12 series
SERIES_BASE=6.12
. "$(dirname "$0")/lib.sh"
load_base

INSTALL_KVER=${INSTALL_KVER:-$KVER}
MODDIR=/lib/modules/$INSTALL_KVER
DEST=$MODDIR/updates/rpcrdma.ko
KO=$BUILD/module/rpcrdma.ko
CHECK_NAME=install

[ "$(id -u)" = 0 ] || die "make ${1:-install} needs root"
[ -d "$MODDIR/kernel" ] || die "no kernel $INSTALL_KVER in /lib/modules"

install_ko() {
	local stock want have
	[ -f "$KO" ] || die "no $KO: run 'make modules'"
	# One rpcrdma.ko in updates/: DKMS's and ours would race in depmod
	[ -z "$(find "$MODDIR/updates" -path '*/dkms/rpcrdma.ko*' 2>/dev/null)" ] ||
		die "the DKMS package is installed for $INSTALL_KVER: 'make dkms-uninstall' first"
	stock=$(find "$MODDIR/kernel/net/sunrpc/xprtrdma" -name 'rpcrdma.ko*' 2>/dev/null || true)
	[ -n "$stock" ] || die "no stock rpcrdma.ko for $INSTALL_KVER"
	want=$(modinfo -F vermagic "$stock")
	have=$(modinfo -F vermagic "$KO")
	[ "$want" = "$have" ] ||
		die "$KO was built for '$have', kernel $INSTALL_KVER needs '$want'"
	install -D -m 0644 "$KO" "$DEST"
	depmod "$INSTALL_KVER"
	log "installed $DEST; 'modprobe rpcrdma' now loads $(rpcrdma_path "$INSTALL_KVER")"
}

uninstall_ko() {
	if [ -f "$DEST" ]; then
		rm -f "$DEST"
		rmdir --ignore-fail-on-non-empty "$MODDIR/updates"
		depmod "$INSTALL_KVER"
		log "removed $DEST"
	else
		log "nothing to remove: no $DEST"
	fi
	log "'modprobe rpcrdma' loads $(rpcrdma_path "$INSTALL_KVER")"
}

# Install, check what modprobe would load, uninstall, check again
check_ko() {
	local stock
	stock=$(rpcrdma_path "$INSTALL_KVER")
	case "$stock" in
	"$MODDIR"/kernel/*) ;;
	*) die "before make install, modprobe already picks $stock" ;;
	esac
	trap uninstall_ko EXIT
	install_ko
	expect "modprobe picks updates/" "$(rpcrdma_path "$INSTALL_KVER")" "$DEST"
	expect "the installed file is the built one" "$(cmp -s "$KO" "$DEST" && echo same)" same
	trap - EXIT
	uninstall_ko
	expect "modprobe picks the stock module again" \
		"$(rpcrdma_path "$INSTALL_KVER")" "$stock"
	expect "nothing left in updates/" "$(ls "$DEST" 2>/dev/null)" ""
	expect_summary
}

case "${1:-}" in
install) install_ko ;;
uninstall) uninstall_ko ;;
check) check_ko ;;
*) die "usage: install.sh install|uninstall|check" ;;
esac
