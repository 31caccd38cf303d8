#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# arm64-deps.sh: everything the arm64 lane needs, in $BUILD/arm64, with
# nothing installed on the host beyond the cross compiler:
#  - Debian's arm64 kernels of both bases, as roots the test VMs boot
#    (image-6.12, image-7.3: lib/modules/KVER with vmlinuz and a
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
failing_as arm64-deps
SERIES_BASE=6.12 load_base
[ -r "$MAINLINE_ENV" ] || fail "$MAINLINE_ENV is missing: run 'make deps-mainline' first"
# shellcheck source=/dev/null
. "$MAINLINE_ENV"

DIR=$BUILD/arm64
DEBS=$DIR/debs
ENV_FILE=$BUILD/arm64.env
KVER_6_12=$BASE_ABI-arm64
KVER_7_3=${MAINLINE_KVER%-amd64}-arm64
# The user space of the guests; apt adds what they depend on
USER_PKGS="busybox-static iproute2 ibverbs-utils ibverbs-providers libibverbs-dev
 librdmacm-dev e2fsprogs nfs-kernel-server nfs-common rpcbind krb5-kdc
 krb5-admin-server krb5-user"

# arm_apt DIR SUITES: an arm64-only private apt state of SUITES
arm_apt_setup() {
	local dir=$1 suites=$2 keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$suites" "$keyring" >"$dir/sources.list.d/debian.sources"
	[ -n "$(ls "$dir/lists" | grep -v partial || true)" ] ||
		QUIET_WHAT="arm64-deps: apt-get update of $suites" quiet arm_apt "$dir" apt-get update
}
arm_apt() {
	local dir=$1 cmd=$2
	shift 2
	private_apt "$dir" "$cmd" -o APT::Architecture=arm64 \
		-o APT::Architectures::=arm64 -o APT::Sandbox::User=root "$@"
}

# download APT-DIR PKG...: the .debs of PKG=VERSION... into $DEBS,
# unless there already
download() {
	local apt=$1 p missing=()
	shift
	for p in "$@"; do
		compgen -G "$DEBS/${p%%=*}_*_arm64.deb" >/dev/null ||
			compgen -G "$DEBS/${p%%=*}_*_all.deb" >/dev/null || missing+=("$p")
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	log "downloading ${#missing[@]} arm64 packages"
	(cd "$DEBS" && QUIET_WHAT="arm64-deps: apt-get download ${missing[*]}" \
		quiet arm_apt "$apt" apt-get download "${missing[@]}")
}

# deb_file NAME: the downloaded .deb of package NAME
deb_file() {
	compgen -G "$DEBS/${1}_*_arm64.deb" || compgen -G "$DEBS/${1}_*_all.deb" ||
		fail "no .deb of $1 in $DEBS"
}

# image ROOT KVER DEB...: a root of the kernel KVER from its packages
image() {
	local root=$1 kver=$2 deb img
	shift 2
	[ -s "$root/lib/modules/$kver/modules.dep" ] && [ -e "$root/lib/modules/$kver/vmlinuz" ] && return 0
	rm -rf "$root"
	for deb in "$@"; do
		dpkg-deb -x "$(deb_file "$deb")" "$root" || fail "dpkg-deb -x $deb failed"
	done
	# Debian 13 ships the modules under /usr/lib; modprobe -d looks in lib
	[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
	img=$(compgen -G "$root/boot/vmlinuz-$kver" ||
	      compgen -G "$root/lib/modules/$kver/vmlinuz*" | head -n 1) ||
		fail "the $kver packages hold no vmlinuz"
	[ "$img" = "$root/lib/modules/$kver/vmlinuz" ] ||
		ln -sf "$(realpath --relative-to="$root/lib/modules/$kver" "$img")" \
			"$root/lib/modules/$kver/vmlinuz"
	depmod -b "$root" "$kver" || fail "depmod of the $kver image failed"
}

kernels() {
	local v612=$BASE_VERSION v73=$MAINLINE_VERSION
	arm_apt_setup "$DIR/apt-bookworm" "bookworm bookworm-backports"
	arm_apt_setup "$DIR/apt-trixie" "trixie-backports"
	download "$DIR/apt-bookworm" "linux-image-$KVER_6_12-unsigned=$v612" \
		"linux-headers-$KVER_6_12=$v612" "linux-headers-$BASE_ABI-common=$v612"
	download "$DIR/apt-trixie" "linux-binary-unsigned-$KVER_7_3=$v73" \
		"linux-modules-$KVER_7_3=$v73" "linux-base-$KVER_7_3=$v73" \
		"linux-headers-$KVER_7_3=$v73"
	image "$DIR/image-6.12" "$KVER_6_12" "linux-image-$KVER_6_12-unsigned"
	image "$DIR/image-7.3" "$KVER_7_3" "linux-binary-unsigned-$KVER_7_3" \
		"linux-modules-$KVER_7_3" "linux-base-$KVER_7_3"

	# 6.12's headers, with the host's kbuild tools of the same version
	if [ ! -s "$DIR/headers-6.12/usr/src/linux-headers-$KVER_6_12/Module.symvers" ]; then
		rm -rf "$DIR/headers-6.12"
		dpkg-deb -x "$(deb_file "linux-headers-$KVER_6_12")" "$DIR/headers-6.12"
		dpkg-deb -x "$(deb_file "linux-headers-$BASE_ABI-common")" "$DIR/headers-6.12"
		[ -d "/usr/lib/linux-kbuild-${BASE_ABI%+*}" ] ||
		[ -d "/usr/lib/linux-kbuild-$BASE_ABI" ] ||
			fail "no /usr/lib/linux-kbuild-$BASE_ABI on the host: run 'make deps'"
	fi
	local k
	mkdir -p "$DIR/headers-6.12/usr/lib"
	for k in "/usr/lib/linux-kbuild-$BASE_ABI" "/usr/lib/linux-kbuild-${BASE_ABI%+*}"; do
		if [ -d "$k" ] && [ ! -e "$DIR/headers-6.12$k" ]; then
			ln -s "$k" "$DIR/headers-6.12$k"
		fi
	done
	# The headers refer to each other by absolute path
	sed -i "s|^include /usr/src/linux-headers-|include $DIR/headers-6.12/usr/src/linux-headers-|" \
		"$DIR/headers-6.12/usr/src/linux-headers-$KVER_6_12/Makefile"

	# 7.3's, in the trixie root beside the amd64 ones
	"$TOP/scripts/trixie-root.sh" ensure
	if [ ! -s "$BUILD/trixie-root/usr/src/linux-headers-$KVER_7_3/Module.symvers" ]; then
		dpkg-deb -x "$(deb_file "linux-headers-$KVER_7_3")" "$BUILD/trixie-root" ||
			fail "unpacking the $KVER_7_3 headers into the trixie root failed"
	fi
}

userspace() {
	local pkgs
	[ -x "$DIR/sysroot/bin/busybox" ] && [ "$(cat "$DIR/sysroot.pkgs" 2>/dev/null)" = "$USER_PKGS" ] &&
		return 0
	# Every package the list needs, with versions, as apt would install
	# them on an empty arm64 system
	# shellcheck disable=SC2086
	pkgs=$(arm_apt "$DIR/apt-bookworm" apt-get -s -qq install --no-install-recommends \
		-t bookworm $USER_PKGS | awk '$1 == "Inst" { print $2 }') ||
		fail "apt cannot resolve the arm64 user space ($USER_PKGS)"
	[ -n "$pkgs" ] || fail "apt resolved no arm64 packages"
	# shellcheck disable=SC2086
	download "$DIR/apt-bookworm" $pkgs
	rm -rf "$DIR/sysroot"
	for p in $pkgs; do
		dpkg-deb -x "$(deb_file "$p")" "$DIR/sysroot" || fail "dpkg-deb -x $p failed"
	done
	printf '%s\n' "$USER_PKGS" >"$DIR/sysroot.pkgs"
	# (what the harness keys its cached arm64 initramfs by)
	(cd "$DEBS" && ls) >"$DIR/sysroot.debs"
}

main() {
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		fail "no aarch64-linux-gnu-gcc: run 'make deps' (gcc-aarch64-linux-gnu)"
	command -v qemu-system-aarch64 >/dev/null ||
		fail "no qemu-system-aarch64: run 'make deps' (qemu-system-arm)"
	mkdir -p "$DEBS"
	kernels
	userspace
	cat >"$ENV_FILE" <<EOF
ARM64_KVER_6_12='$KVER_6_12'
ARM64_ROOT_6_12='$DIR/image-6.12'
ARM64_HEADERS_6_12='$DIR/headers-6.12/usr/src/linux-headers-$KVER_6_12'
ARM64_KVER_7_3='$KVER_7_3'
ARM64_ROOT_7_3='$DIR/image-7.3'
ARM64_HEADERS_7_3='/usr/src/linux-headers-$KVER_7_3'
ARM64_SYSROOT='$DIR/sysroot'
EOF
	log "arm64: kernels $KVER_6_12 and $KVER_7_3, user space in $DIR/sysroot"
}

main "$@"
