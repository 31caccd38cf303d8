#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# arm64-build.sh modules|tools: cross-build for the arm64 lane.
#  modules: our rpcrdma.ko (and the test-only nfsrdma_fragment.ko) of
#    both series' HEAD for Debian's arm64 kernels, 4 KiB and 16 KiB
#    pages, with module.sh (MODULE_ARCH=arm64, arm64-16k):
#    build/module-arm64 and build/module-arm64-16k (6.12),
#    build/module-mainline-arm64 and -arm64-16k (7.3). Then checks that each module
#    could load in place of the stock one: its headers are the build of
#    the kernel the VMs boot (the same UTS version string, which names
#    Debian's package revision), so the CRCs modpost gave it are that
#    kernel's; the same vermagic; and, where the kernel has
#    MODVERSIONS (6.12; Debian's 7.3 has none), the same CRC for every
#    symbol both ours and the stock module import.
#  tools: rpcrdma-cm, rpcrdma-call and rpcrdma-serve with aarch64-linux-gnu-gcc against
#    the arm64 librdmacm of the sysroot, in build/arm64/tools.

. "$(dirname "$0")/lib.sh"
[ -r "$BUILD/arm64.env" ] || die "$BUILD/arm64.env is missing: run 'make deps-arm64'"
# shellcheck source=/dev/null
. "$BUILD/arm64.env"

# crcs KO: "symbol crc" of what KO imports, sorted
crcs() {
	/sbin/modprobe --dump-modversions "$1" | awk '{ print $2, $1 }' | sort
}
has_versions() { grep -q ' __versions ' < <(readelf -S "$1"); }

# same_build HEADERS ROOT KVER: the headers are of the very build of the
# kernel the VMs boot (its UTS version, "#1 SMP Debian 7.3.4-1~bpo13+1
# (date)", names the package revision), so that their Module.symvers,
# which modpost took our CRCs from, is that kernel's
same_build() {
	local hdrs=$1 root=$2 kver=$3 uts img
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$hdrs/include/generated/utsversion.h" 2>/dev/null)
	[ -n "$uts" ] || die "no UTS_VERSION in $hdrs/include/generated/utsversion.h"
	img=$(readlink -f "$root/lib/modules/$kver/vmlinuz")
	grep -qF "$uts" < <(zcat -f "$img" | strings) ||
		die "$img is not the build of the headers in $hdrs ($uts)"
}

# check_like_stock OURS ROOT KVER HEADERS: ours loads where the stock one does
check_like_stock() {
	local ours=$1 root=$2 kver=$3 stock mine theirs bad
	same_build "$4" "$root" "$kver"
	stock=$(find "$root/lib/modules/$kver/kernel/net/sunrpc/xprtrdma" -name 'rpcrdma.ko*' | head -n 1)
	[ -n "$stock" ] || die "no stock rpcrdma.ko under $root/lib/modules/$kver"
	TMP=$(mktemp -d)
	local tmp=$TMP
	case $stock in
	*.xz) xz -dc "$stock" >"$tmp/stock.ko" ;;
	*.zst) zstd -qdc "$stock" >"$tmp/stock.ko" ;;
	*) cp "$stock" "$tmp/stock.ko" ;;
	esac
	mine=$(/sbin/modinfo -F vermagic "$ours")
	theirs=$(/sbin/modinfo -F vermagic "$tmp/stock.ko")
	[ "$mine" = "$theirs" ] || die "$ours: vermagic '$mine', the stock module's '$theirs'"
	# Debian's 7.3 kernels are built without MODVERSIONS: then neither
	# module carries CRCs, and modpost has checked the symbols exist
	if has_versions "$tmp/stock.ko"; then
		has_versions "$ours" || die "$ours has no symbol CRCs; the stock module has"
		crcs "$ours" >"$tmp/ours"
		crcs "$tmp/stock.ko" >"$tmp/stock"
		bad=$(join "$tmp/ours" "$tmp/stock" | awk '$2 != $3 { print $1 }')
		[ -z "$bad" ] || die "$ours: symbol CRCs differ from the stock module's: $bad"
		mine="$mine', CRCs as the stock module's"
	else
		has_versions "$ours" && die "$ours has symbol CRCs; the stock module has none"
		mine="$mine', no CRCs (as stock)"
	fi
	rm -rf "$tmp"
	log "${ours#"$BUILD"/}: the headers' build of $kver, vermagic '$mine"
}

TMP=
trap 'rm -rf "$TMP"' EXIT

modules() {
	local f v root kver hdrs
	for f in arm64 arm64-16k; do
		SERIES_BASE=6.12 MODULE_ARCH=$f TEST_MODULES=1 \
			"$TOP/scripts/module.sh" HEAD "$BUILD/module-$f"
		SERIES_BASE=mainline MODULE_ARCH=$f TEST_MODULES=1 \
			"$TOP/scripts/module.sh" HEAD "$BUILD/module-mainline-$f"
		v=${f#arm64}
		v=${v/-/_}
		root=ARM64_ROOT_6_12$v kver=ARM64_KVER_6_12$v hdrs=ARM64_HEADERS_6_12$v
		check_like_stock "$BUILD/module-$f/rpcrdma.ko" "${!root}" "${!kver}" "${!hdrs}"
		root=ARM64_ROOT_7_3$v kver=ARM64_KVER_7_3$v hdrs=ARM64_HEADERS_7_3$v
		check_like_stock "$BUILD/module-mainline-$f/rpcrdma.ko" "${!root}" "${!kver}" \
			"$BUILD/trixie-root${!hdrs}"
	done
}

tools() {
	local d lib=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu
	for d in tools/net/sunrpc/rpcrdma-cm tools/testing/rpcrdma-call tools/testing/rpcrdma-serve; do
		mkdir -p "$BUILD/arm64/tools/${d##*/}"
		rsync -rc --exclude='*.o' --exclude="${d##*/}" "$TOP/$d/" "$BUILD/arm64/tools/${d##*/}/"
		# The cross compiler's own glibc (libc6-dev-arm64-cross)
		# wins; the sysroot adds librdmacm's and libibverbs'
		CPPFLAGS="-idirafter $ARM64_SYSROOT/usr/include" \
		LDFLAGS="-L$lib -Wl,-rpath-link,$lib:$ARM64_SYSROOT/lib/aarch64-linux-gnu" \
			make -s -C "$BUILD/arm64/tools/${d##*/}" srctree="$TOP" \
			CC=aarch64-linux-gnu-gcc ||
			die "cross-building ${d##*/} failed"
	done
	for d in rpcrdma-cm/rpcrdma-cm rpcrdma-call/rpcrdma-call rpcrdma-serve/rpcrdma-serve; do
		grep -q 'Machine:.*AArch64' < <(readelf -h "$BUILD/arm64/tools/$d") ||
			die "build/arm64/tools/$d is not an arm64 program"
	done
}

case "${1:-}" in
modules) modules ;;
tools) tools ;;
*) die "usage: arm64-build.sh modules|tools" ;;
esac
