#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# arm64-deps.sh: everything the arm64 lane needs, in $BUILD/arm64, with
# nothing installed on the host beyond the cross compiler:
#  - Debian's arm64 kernels of both bases, with 4 KiB and with 16 KiB
#    pages, as roots the test VMs boot (image-6.12, image-7.3,
#    image-6.12-16k, image-7.3-16k: lib/modules/KVER with vmlinuz and a
#    modules.dep from the host's depmod), of the same package versions
#    as the amd64 ones (BASE_PKG_VERSION, MAINLINE_VERSION);
#  - their headers, to cross-build our rpcrdma.ko: 6.12's in
#    headers-6.12 (built on the host with gcc-aarch64-linux-gnu, using
#    the host's linux-kbuild of the same version), 7.3's unpacked into
#    the trixie root, whose gcc-aarch64-linux-gnu matches the compiler
#    Debian built that kernel with (trixie-root.sh installs it);
#  - an arm64 user space from bookworm's arm64 .debs and everything they
#    depend on, unpacked in sysroot: busybox, iproute2, rdma-core,
#    nfs-utils, MIT Kerberos, e2fsprogs, and the librdmacm headers the
#    tools are cross-built against.
# All .debs come through private apt states (apt-get download) and are
# unpacked with dpkg-deb -x. Records the paths in $BUILD/arm64.env.
# A second run with the same versions downloads nothing.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-apt.sh"
failing_as arm64-deps
SERIES_BASE=6.12 load_base
[ -r "$MAINLINE_ENV" ] || stop "$MAINLINE_ENV is missing: run 'make deps-mainline' first"
# shellcheck source=/dev/null
. "$MAINLINE_ENV"

DIR=$BUILD/arm64
DEBS=$DIR/debs
ENV_FILE=$BUILD/arm64.env
# Debian's arm64 kernel flavours: 4 KiB pages, and 16 KiB pages, where
# PAGE_SIZE is not the 4096 an x86-64 host makes easy to assume
FLAVOURS="arm64 arm64-16k"
ENV=
# The user space of the guests; apt adds what they depend on
USER_PKGS="busybox-static iproute2 ibverbs-utils ibverbs-providers libibverbs-dev
 librdmacm-dev e2fsprogs nfs-kernel-server nfs-common rpcbind krb5-kdc
 krb5-admin-server krb5-user"

# The private apt states of lib.sh, for arm64 packages only
export PRIVATE_APT_ARCH=arm64

# arm_apt_setup DIR SUITE...: a private apt state of the SUITEs, made
# (with an apt-get update) unless it has package lists already
arm_apt_setup() {
	compgen -G "$1/lists/*_Packages*" >/dev/null || private_apt_setup "$@"
}

# download APT-DIR NAME=VERSION...: those .debs into $DEBS, unless there
# already; with lists that lack a version, after an apt-get update
download() {
	local apt=$1 p missing=()
	shift
	for p in "$@"; do
		have_deb "$p" || missing+=("$p")
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	log "downloading ${#missing[@]} arm64 packages"
	if ! (cd "$DEBS" && private_apt "$apt" apt-get download -qq "${missing[@]}") >/dev/null 2>&1; then
		QUIET_WHAT="arm64-deps: apt-get update ($apt)" quiet private_apt "$apt" apt-get update
		(cd "$DEBS" && QUIET_WHAT="arm64-deps: apt-get download ${missing[*]}" \
			quiet private_apt "$apt" apt-get download "${missing[@]}")
	fi
}

# have_deb NAME=VERSION: whether that .deb is in $DEBS
have_deb() {
	local n=${1%%=*} v=${1#*=}
	v=${v//:/%3a}
	compgen -G "$DEBS/${n}_${v}_arm64.deb" >/dev/null ||
		compgen -G "$DEBS/${n}_${v}_all.deb" >/dev/null
}

# deb_file NAME=VERSION: the downloaded .deb of that version
deb_file() {
	local n=${1%%=*} v=${1#*=}
	v=${v//:/%3a}
	compgen -G "$DEBS/${n}_${v}_arm64.deb" || compgen -G "$DEBS/${n}_${v}_all.deb" ||
		stop "no .deb of $1 in $DEBS"
}

# image ROOT KVER NAME=VERSION...: a root of the kernel KVER from those
# packages, remade when they change
image() {
	local root=$1 kver=$2 deb img
	shift 2
	[ "$(cat "$root.stamp" 2>/dev/null)" = "$*" ] && return 0
	rm -rf "$root" "$root.stamp"
	for deb in "$@"; do
		dpkg-deb -x "$(deb_file "$deb")" "$root" || stop "dpkg-deb -x $deb failed"
	done
	# Debian 13 ships the modules under /usr/lib; modprobe -d looks in lib
	[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
	img=$(compgen -G "$root/boot/vmlinuz-$kver" ||
	      compgen -G "$root/lib/modules/$kver/vmlinuz*" | head -n 1) ||
		stop "the $kver packages hold no vmlinuz"
	[ "$img" = "$root/lib/modules/$kver/vmlinuz" ] ||
		ln -sf "$(realpath --relative-to="$root/lib/modules/$kver" "$img")" \
			"$root/lib/modules/$kver/vmlinuz"
	depmod -b "$root" "$kver" || stop "depmod of the $kver image failed"
	echo "$*" >"$root.stamp"
}

# kernel_6_12 FLAVOUR, kernel_7_3 FLAVOUR: Debian's arm64 kernel of the
# base in that flavour (arm64: 4 KiB pages; arm64-16k: 16 KiB), its
# image root and its headers
kernel_6_12() {
	local kver=$BASE_ABI-$1 v=$BASE_VERSION sfx=${1#arm64} hdr=$DIR/headers-6.12 k
	download "$DIR/apt-bookworm" "linux-image-$kver-unsigned=$v" \
		"linux-headers-$kver=$v" "linux-headers-$BASE_ABI-common=$v"
	image "$DIR/image-6.12$sfx" "$kver" "linux-image-$kver-unsigned=$v"
	# The headers, with the host's kbuild tools of the same version
	if [ "$(cat "$hdr/$kver.stamp" 2>/dev/null)" != "$v" ]; then
		rm -rf "$hdr/usr/src/linux-headers-$kver" "$hdr/$kver.stamp"
		dpkg-deb -x "$(deb_file "linux-headers-$kver=$v")" "$hdr"
		dpkg-deb -x "$(deb_file "linux-headers-$BASE_ABI-common=$v")" "$hdr"
		[ -d "/usr/lib/linux-kbuild-$BASE_ABI" ] ||
			stop "no /usr/lib/linux-kbuild-$BASE_ABI on the host: run 'make deps'"
		echo "$v" >"$hdr/$kver.stamp"
	fi
	mkdir -p "$hdr/usr/lib"
	k=/usr/lib/linux-kbuild-$BASE_ABI
	[ -e "$hdr$k" ] || ln -s "$k" "$hdr$k"
	# The headers refer to each other by absolute path
	sed -i "s|^include /usr/src/linux-headers-|include $hdr/usr/src/linux-headers-|" \
		"$hdr/usr/src/linux-headers-$kver/Makefile"
	ENV="${ENV}ARM64_KVER_6_12${sfx/-/_}='$kver'
ARM64_ROOT_6_12${sfx/-/_}='$DIR/image-6.12$sfx'
ARM64_HEADERS_6_12${sfx/-/_}='$hdr/usr/src/linux-headers-$kver'
"
}
kernel_7_3() {
	local kver=${MAINLINE_KVER%-amd64}-$1 v=$MAINLINE_VERSION sfx=${1#arm64}
	download "$DIR/apt-trixie" "linux-binary-unsigned-$kver=$v" \
		"linux-modules-$kver=$v" "linux-base-$kver=$v" "linux-headers-$kver=$v"
	image "$DIR/image-7.3$sfx" "$kver" "linux-binary-unsigned-$kver=$v" \
		"linux-modules-$kver=$v" "linux-base-$kver=$v"
	# In the trixie root beside the amd64 ones (remade with it)
	if [ "$(cat "$BUILD/trixie-root/usr/src/$kver.stamp" 2>/dev/null)" != "$v" ]; then
		rm -rf "$BUILD/trixie-root/usr/src/linux-headers-$kver"
		dpkg-deb -x "$(deb_file "linux-headers-$kver=$v")" "$BUILD/trixie-root" ||
			stop "unpacking the $kver headers into the trixie root failed"
		echo "$v" >"$BUILD/trixie-root/usr/src/$kver.stamp"
	fi
	ENV="${ENV}ARM64_KVER_7_3${sfx/-/_}='$kver'
ARM64_ROOT_7_3${sfx/-/_}='$DIR/image-7.3$sfx'
ARM64_HEADERS_7_3${sfx/-/_}='/usr/src/linux-headers-$kver'
"
}

kernels() {
	local f
	arm_apt_setup "$DIR/apt-bookworm" bookworm bookworm-backports
	arm_apt_setup "$DIR/apt-trixie" trixie-backports
	# 7.3's arm64 headers go into the trixie root
	"$TOP/scripts/trixie-root.sh" ensure
	for f in $FLAVOURS; do
		kernel_6_12 "$f"
		kernel_7_3 "$f"
	done
}

userspace() {
	local pkgs
	[ -x "$DIR/sysroot/bin/busybox" ] && [ "$(cat "$DIR/sysroot.pkgs" 2>/dev/null)" = "$USER_PKGS" ] &&
		[ -s "$DIR/sysroot.debs" ] && return 0
	# Every package the list needs, with versions, as apt would install
	# them on an empty arm64 system
	# shellcheck disable=SC2086
	pkgs=$(private_apt "$DIR/apt-bookworm" apt-get -s -qq install --no-install-recommends \
		-t bookworm $USER_PKGS | awk '$1 == "Inst" { v = $3; gsub(/[()]/, "", v); print $2 "=" v }') ||
		stop "apt cannot resolve the arm64 user space ($USER_PKGS)"
	[ -n "$pkgs" ] || stop "apt resolved no arm64 packages"
	# shellcheck disable=SC2086
	download "$DIR/apt-bookworm" $pkgs
	rm -rf "$DIR/sysroot"
	for p in $pkgs; do
		dpkg-deb -x "$(deb_file "$p")" "$DIR/sysroot" || stop "dpkg-deb -x $p failed"
	done
	# (what the harness keys its cached arm64 initramfs by)
	printf '%s\n' $pkgs >"$DIR/sysroot.debs"
	printf '%s\n' "$USER_PKGS" >"$DIR/sysroot.pkgs"
}

main() {
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		stop "no aarch64-linux-gnu-gcc: run 'make deps' (gcc-aarch64-linux-gnu)"
	# The C library of the cross compiler, a Recommends of
	# gcc-aarch64-linux-gnu that deps installs by name
	echo '#include <stdio.h>' | aarch64-linux-gnu-gcc -E -o /dev/null - 2>/dev/null ||
		stop "aarch64-linux-gnu-gcc finds no C library headers: run 'make deps' (libc6-dev-arm64-cross)"
	command -v qemu-system-aarch64 >/dev/null ||
		stop "no qemu-system-aarch64: run 'make deps' (qemu-system-arm)"
	mkdir -p "$DEBS"
	kernels
	userspace
	printf '%sARM64_SYSROOT=%s\n' "$ENV" "'$DIR/sysroot'" >"$ENV_FILE"
	log "arm64: Debian's 6.12 and 7.3 kernels ($FLAVOURS), user space in $DIR/sysroot"
}

main "$@"
