#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh OUT.cpio
#
# Build the base initramfs of the NFS/RDMA test VMs: busybox, the kernel
# modules of a Debian kernel (6.12 or 7.3) in load order (both the stock
# rpcrdma.ko and ours), rdma-core with the rxe provider, the nfs-utils
# pieces, and rpcrdma-cm. The guest scripts and scenarios are not in it:
# run.sh appends them as a second, small archive on every run.
#
# Environment: KVER, MODROOT (the root its lib/modules/KVER is under:
# / for an installed kernel, an unpacked image otherwise), RPCRDMA_OURS
# (path to our rpcrdma.ko for KVER), RPCRDMA_CM, RPCRDMA_CALL and
# RPCRDMA_SERVE (paths to rpcrdma-cm, rpcrdma-call and rpcrdma-serve),
# DEBS (download cache for the nfs-utils .debs), SIW_KO (siw.ko for
# KVER, optional: with it, the siw provider of rdma-core goes in too). GUEST_ARCH=arm64 builds
# it for an arm64 guest: every program and library then comes from
# SYSROOT, the arm64 user space arm64-deps.sh unpacked, and the
# libraries a program needs are found by its ELF headers (the host's
# ldd cannot run it); the module is stripped by STRIP.

set -euo pipefail
shopt -s inherit_errexit

OUT=$1
: "${KVER:?}" "${RPCRDMA_OURS:?}" "${RPCRDMA_CM:?}" "${RPCRDMA_CALL:?}" "${RPCRDMA_SERVE:?}" "${DEBS:?}"
SIW_KO=${SIW_KO:-}
MODROOT=${MODROOT:-/}
MODDIR=${MODROOT%/}/lib/modules/$KVER
GUEST_ARCH=${GUEST_ARCH:-amd64}
case $GUEST_ARCH in
amd64)
	ARCHLIB=lib/x86_64-linux-gnu
	SYS=
	STRIP=${STRIP:-strip}
	;;
arm64)
	ARCHLIB=lib/aarch64-linux-gnu
	SYS=${SYSROOT:?GUEST_ARCH=arm64 needs SYSROOT}
	STRIP=${STRIP:-aarch64-linux-gnu-strip}
	;;
*) echo "initramfs.sh: GUEST_ARCH=$GUEST_ARCH: use amd64 or arm64" >&2; exit 1 ;;
esac

# Modules the guests need, by name; modprobe --show-depends adds the rest.
# crc32_generic: 6.12's rdma_rxe needs it and modules.dep does not say
# so. 7.3 has none: its rdma_rxe calls the built-in crc32 library.
# rpcsec_gss_krb5 serves the krb5 scenario (loaded at every boot, as
# on a host with nfs-common: an NFSv4 client then tries krb5i for its
# lease first and, with no rpc.gssd running, goes on with AUTH_SYS at
# once), with the crypto templates
# its enctypes are built from (cts(cbc(aes)); on 7.3 also 7.3's krb5
# library's authenc and krb5enc), which the kernel would otherwise ask
# a modprobe for, and which some kernels build in.
# virtio_blk and ext4 hold the block-device export of nfsd-direct-write.
# libcrc32c: what 6.12's siw.ko (built apart, not in modules.dep) needs.
# sch_prio, sch_netem and cls_u32: server-close-reads holds the server's
# segments back on lo (tc).
MODULES="crc32_generic virtio_net dummy rdma_rxe rdma_ucm sunrpc nfsd nfsv4 nfsv3 rpcrdma
 cts authenc krb5enc rpcsec_gss_krb5 virtio_blk ext4 libcrc32c sch_prio sch_netem cls_u32"
OPTIONAL_MODULES=" crc32_generic cts authenc krb5enc virtio_blk ext4 libcrc32c sch_prio sch_netem cls_u32 "
# Soft dependencies that need a CPU feature qemu's TCG CPU lacks (the
# insmod fails with ENODEV); the generic module beside each serves
SKIP_MODULES=" crc32c-intel "

# nfs-utils and rpcbind come from their .debs, unpacked, so that nothing
# NFS-related is installed (or started) on the host.
NFS_DEBS="nfs-kernel-server nfs-common rpcbind libnfsidmap1 libevent-core-2.1-7
 libwrap0 libtirpc3 libtirpc-common"
# MIT Kerberos for the krb5 scenario: a KDC, its admin tool, and the
# GSS-API libraries rpc.gssd and rpc.svcgssd link against
KRB5_DEBS="krb5-kdc krb5-admin-server krb5-user libkrb5-3 libgssapi-krb5-2
 libk5crypto3 libkrb5support0 libkadm5srv-mit12 libkadm5clnt-mit12 libkdb5-10
 libgssrpc4 libverto1 libverto-libev1 libev4 libkeyutils1 libcom-err2 libss2"

die() { printf 'initramfs.sh: %s\n' "$*" >&2; exit 1; }

ROOT=$(mktemp -d)
if [ -n "$SYS" ]; then
	# The arm64 user space holds nfs-utils and Kerberos already
	XROOT=$SYS
	trap 'rm -rf "$ROOT"' EXIT
else
	XROOT=$(mktemp -d)
	trap 'rm -rf "$ROOT" "$XROOT"' EXIT
fi

fetch_nfs_utils() {
	local p missing=()
	[ -z "$SYS" ] || return 0
	mkdir -p "$DEBS"
	for p in $NFS_DEBS $KRB5_DEBS; do
		compgen -G "$DEBS/${p}_*.deb" >/dev/null || missing+=("$p")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		(cd "$DEBS" && apt-get download -qq -o APT::Sandbox::User=root "${missing[@]}") >/dev/null ||
			die "apt-get download ${missing[*]} failed (try apt-get update)"
	fi
	for p in "$DEBS"/*.deb; do
		dpkg-deb -x "$p" "$XROOT"
	done
}

# sys PATH: PATH in the guest's user space: the host's (amd64) or the
# arm64 sysroot's, where a package may keep it without /usr
sys() {
	local p=$1
	if [ -z "$SYS" ]; then
		echo "$p"
	elif [ -e "$SYS$p" ]; then
		echo "$SYS$p"
	elif [ -e "$SYS${p#/usr}" ]; then
		echo "$SYS${p#/usr}"
	else
		echo "$SYS/usr$p"
	fi
}

# find_lib NAME: NAME in the sysroot's library directories
find_lib() {
	local d
	for d in "$ARCHLIB" "usr/$ARCHLIB" lib usr/lib; do
		[ ! -e "$SYS/$d/$1" ] || { echo "$SYS/$d/$1"; return 0; }
	done
	die "no library $1 in $SYS (add its package to arm64-deps.sh)"
}

# elf_closure FILE: the libraries FILE needs, transitively, as sysroot
# paths (readelf's DT_NEEDED entries)
elf_closure() {
	local todo=("$1") seen=" " f n lib
	while [ "${#todo[@]}" -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[[ "$seen" != *" $n "* ]] || continue
			seen="$seen$n "
			lib=$(find_lib "$n")
			echo "$lib"
			todo+=("$lib")
		done
	done
}

# Copy the shared libraries that $1 needs (ldd closure)
copy_libs() {
	local lib
	if [ -n "$SYS" ]; then
		elf_closure "$1" | while read -r lib; do
			[ -e "$ROOT/$ARCHLIB/${lib##*/}" ] || cp -L "$lib" "$ROOT/$ARCHLIB/"
		done
		return
	fi
	LD_LIBRARY_PATH=$XROOT/$ARCHLIB:$XROOT/usr/$ARCHLIB ldd "$1" |
	awk '/=> \// { print $3 } /^\t\/lib64\// { print $1 }' |
	while read -r lib; do
		case "$lib" in
		/lib64/*) [ -e "$ROOT/lib64/${lib##*/}" ] || cp -L "$lib" "$ROOT/lib64/" ;;
		*) [ -e "$ROOT/$ARCHLIB/${lib##*/}" ] || cp -L "$lib" "$ROOT/$ARCHLIB/" ;;
		esac
	done
}

# X PATH: PATH among the unpacked nfs-utils and Kerberos packages (the
# arm64 sysroot is usrmerged by nobody: a path may lack its /usr)
X() {
	if [ -e "$XROOT$1" ]; then
		echo "$XROOT$1"
	elif [ -e "$XROOT${1#/usr}" ]; then
		echo "$XROOT${1#/usr}"
	else
		echo "$XROOT/usr$1"
	fi
}

copy_bin() {
	[ -x "$1" ] || die "missing program $1"
	cp -L "$1" "$ROOT/$2/"
	copy_libs "$1"
}

install_programs() {
	local b
	cp "$(sys /bin/busybox)" "$ROOT/bin/busybox"
	# (the host's busybox-static lists the applets: same package)
	for b in $(/bin/busybox --list); do
		[ "$b" = busybox ] || ln -sf busybox "$ROOT/bin/$b"
	done
	if [ -n "$SYS" ]; then
		# The program interpreter, where arm64 binaries look for it
		cp -L "$(find_lib ld-linux-aarch64.so.1)" "$ROOT/$ARCHLIB/"
		ln -sf "${ARCHLIB#lib/}/ld-linux-aarch64.so.1" "$ROOT/lib/ld-linux-aarch64.so.1"
	fi
	# iproute2's ip, tc and rdma, ahead of busybox on PATH
	copy_bin "$(sys /usr/sbin/ip)" usr/sbin
	copy_bin "$(sys /usr/sbin/tc)" usr/sbin
	copy_bin "$(sys /usr/bin/rdma)" usr/bin
	copy_bin "$(sys /usr/bin/ibv_devices)" usr/bin
	copy_bin "$RPCRDMA_CM" usr/bin
	copy_bin "$RPCRDMA_CALL" usr/bin
	copy_bin "$RPCRDMA_SERVE" usr/bin
	copy_bin "$(X /sbin/mount.nfs)" sbin
	for b in umount.nfs mount.nfs4 umount.nfs4; do
		ln -sf mount.nfs "$ROOT/sbin/$b"
	done
	for b in exportfs rpc.mountd rpcinfo; do
		copy_bin "$(X /usr/sbin/$b)" usr/sbin
	done
	copy_bin "$(X /sbin/rpcbind)" sbin
	copy_bin "$(sys /sbin/mke2fs)" sbin
	ln -sf mke2fs "$ROOT/sbin/mkfs.ext4"
	# Kerberos: the KDC with its database plugin, and GSS on both ends
	for b in rpc.gssd rpc.svcgssd rpc.idmapd krb5kdc kdb5_util kadmin.local; do
		copy_bin "$(X /usr/sbin/$b)" usr/sbin
	done
	copy_bin "$(X /usr/bin/klist)" usr/bin
	mkdir -p "$ROOT/usr/$ARCHLIB/krb5/plugins/kdb"
	cp -L "$XROOT/usr/$ARCHLIB/krb5/plugins/kdb/db2.so" "$ROOT/usr/$ARCHLIB/krb5/plugins/kdb/"
	copy_libs "$XROOT/usr/$ARCHLIB/krb5/plugins/kdb/db2.so"
	# libnfsidmap's name mapping (rpc.idmapd, rpc.svcgssd)
	mkdir -p "$ROOT/usr/$ARCHLIB/libnfsidmap"
	cp -L "$XROOT/usr/$ARCHLIB/libnfsidmap/nsswitch.so" "$ROOT/usr/$ARCHLIB/libnfsidmap/"
	# libverto looks for its event-loop module beside itself
	cp -L "$XROOT/usr/$ARCHLIB/libverto-libev.so.1" "$ROOT/$ARCHLIB/"
	copy_libs "$XROOT/usr/$ARCHLIB/libverto-libev.so.1"
	# rdma-core's soft-RoCE provider
	cp -L "$SYS"/usr/$ARCHLIB/libibverbs/librxe-rdmav*.so "$ROOT/usr/$ARCHLIB/libibverbs/"
	copy_libs "$(echo "$SYS"/usr/$ARCHLIB/libibverbs/librxe-rdmav*.so)"
	cp "$SYS/etc/libibverbs.d/rxe.driver" "$ROOT/etc/libibverbs.d/"
	# and its soft-iWARP one, for the guests that run siw.ko
	if [ -n "$SIW_KO" ]; then
		cp -L "$SYS"/usr/$ARCHLIB/libibverbs/libsiw-rdmav*.so "$ROOT/usr/$ARCHLIB/libibverbs/"
		cp "$SYS/etc/libibverbs.d/siw.driver" "$ROOT/etc/libibverbs.d/"
	fi
	# glibc loads libgcc_s for thread cancellation; ldd does not list it
	if [ -n "$SYS" ]; then
		cp -L "$(find_lib libgcc_s.so.1)" "$ROOT/$ARCHLIB/"
	else
		cp -L /$ARCHLIB/libgcc_s.so.1 "$ROOT/$ARCHLIB/"
	fi
}

install_config() {
	cp "$XROOT/etc/netconfig" "$ROOT/etc/" 2>/dev/null || cp /etc/netconfig "$ROOT/etc/"
	cp /etc/services /etc/protocols /etc/rpc "$ROOT/etc/"
	cat >"$ROOT/etc/passwd" <<'PW'
root:x:0:0:root:/:/bin/sh
_rpc:x:100:65534::/run/rpcbind:/bin/false
nobody:x:65534:65534:nobody:/:/bin/false
PW
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$ROOT/etc/group"
	printf '%s: files\n' passwd group hosts services protocols rpc >"$ROOT/etc/nsswitch.conf"
	printf '127.0.0.1 localhost\n192.0.2.1 e2e-server\n192.0.2.2 e2e-client\n' >"$ROOT/etc/hosts"
	ln -sf /proc/mounts "$ROOT/etc/mtab"
	# The kernel registers with rpcbind through /var/run/rpcbind.sock
	ln -sf /run "$ROOT/var/run"
}

# Decompress modules (busybox insmod wants plain ELF) and write the load
# order, one file name per line, to /modules.list
install_modules() {
	local m f n stock
	[ -s "$MODDIR/modules.dep" ] || die "no $MODDIR/modules.dep: is linux-image-$KVER installed?"
	# The stock rpcrdma.ko is the kernel's own, even when one installed
	# under updates/ (make install, DKMS) is what modprobe would pick
	stock=$(find "$MODDIR/kernel/net/sunrpc/xprtrdma" -name 'rpcrdma.ko*' 2>/dev/null || true)
	[ -n "$stock" ] || die "no stock rpcrdma.ko under $MODDIR/kernel"
	for m in $MODULES; do
		if [[ "$OPTIONAL_MODULES" == *" $m "* ]] &&
		   ! modprobe -d "$MODROOT" -S "$KVER" --show-depends "$m" >/dev/null 2>&1; then
			continue
		fi
		modprobe -d "$MODROOT" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }' ||
			die "modprobe finds no module $m for $KVER (in $MODDIR)"
	done | awk '!seen[$0]++' | while read -r f; do
		case "${f##*/}" in rpcrdma.ko*) f=$stock ;; esac
		n=${f##*/}
		[[ "$SKIP_MODULES" != *" ${n%%.ko*} "* ]] || continue
		case "$n" in
		*.ko.xz) n=${n%.xz}; xz -dc "$f" >"$ROOT/lib/modules/e2e/$n" ;;
		*.ko.zst) n=${n%.zst}; zstd -qdc "$f" >"$ROOT/lib/modules/e2e/$n" ;;
		*) cp "$f" "$ROOT/lib/modules/e2e/" ;;
		esac
		echo "$n"
	done >"$ROOT/modules.list"
	grep -qx rpcrdma.ko "$ROOT/modules.list" || die "rpcrdma.ko is not in the module list"
	mv "$ROOT/lib/modules/e2e/rpcrdma.ko" "$ROOT/lib/modules/e2e/rpcrdma-stock.ko"
	"$STRIP" --strip-debug -o "$ROOT/lib/modules/e2e/rpcrdma-ours.ko" "$RPCRDMA_OURS"
	# soft-iWARP, built out of tree (scripts/siw-module.sh), if given;
	# what it needs (6.12: libcrc32c) must be in the load order
	if [ -n "$SIW_KO" ]; then
		for m in $(modinfo -F depends "$SIW_KO" | tr , ' '); do
			grep -qx "$m.ko" "$ROOT/modules.list" ||
				die "siw.ko needs $m, which is not among the modules"
		done
		"$STRIP" --strip-debug -o "$ROOT/lib/modules/e2e/siw.ko" "$SIW_KO"
	fi
	# The test-only module "make modules" builds next to ours, if any
	frag=$(dirname "$RPCRDMA_OURS")/nfsrdma_fragment.ko
	if [ -f "$frag" ]; then
		"$STRIP" --strip-debug -o "$ROOT/lib/modules/e2e/nfsrdma_fragment.ko" "$frag"
	fi
}

main() {
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,lib64,etc,proc,sys,dev,tmp,run,mnt,export} \
		"$ROOT"/{$ARCHLIB,usr/$ARCHLIB/libibverbs,etc/libibverbs.d,lib/modules/e2e} \
		"$ROOT"/var/lib/nfs/{v4recovery,rpc_pipefs} "$ROOT/sys/kernel/tracing"
	fetch_nfs_utils
	install_programs
	install_config
	install_modules
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
}

main "$@"
