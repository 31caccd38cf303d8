#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# python-layer.sh OUT.cpio NAME=SCRIPT...
#
# An initramfs layer for amd64 guests: the host's Python 3 interpreter
# with only the part of its standard library that the SCRIPTs load, and
# each SCRIPT as /usr/sbin/NAME. run.sh appends it to the boot archive
# of a run that has a scenario saying "# e2e-needs: python3"; the other
# boots do without. The SCRIPTs are versions of nfs-utils' mountstats.
#
# What goes in is found by running each SCRIPT on the host under
# "python3 -I -v", with every subcommand and display option of
# mountstats, against a sample /proc/self/mountstats (an NFSv4.1 and
# an NFSv3 mount over rdma, the "xprt: rdma" lines of 32 and 29 words):
# every module it loads from the standard library goes in, as a
# sourceless .pyc (nothing to check against a source's time stamp),
# each extension module and shared library with it; os.py goes in too,
# the landmark by which the interpreter finds its library. The layer is
# then tried in a chroot: every SCRIPT must run the same commands there
# with exit status 0 and nothing on stderr.
#
# Environment: E2E_PYTHON, the interpreter (default /usr/bin/python3,
# Debian's; not a pyenv one, whose library lives elsewhere).

set -euo pipefail
shopt -s inherit_errexit

OUT=$1
shift
PYTHON=$(readlink -f "${E2E_PYTHON:-/usr/bin/python3}")

die() { printf 'python-layer.sh: %s\n' "$*" >&2; exit 1; }

[ -x "$PYTHON" ] || die "no Python interpreter at ${E2E_PYTHON:-/usr/bin/python3} (make deps)"
[ $# -gt 0 ] || die "no scripts given"
STDLIB=$("$PYTHON" -I -c 'import os; print(os.path.dirname(os.__file__))')
[ -f "$STDLIB/os.py" ] || die "$PYTHON has no $STDLIB/os.py"

STAGE=$(mktemp -d)
WORK=$(mktemp -d)
trap 'rm -rf "$STAGE" "$WORK"' EXIT

# The sample: what the guests' kernels write, in shape, with a line
# for each of the ops OPS (as the kernel writes one for every op)
sample() {
	local mnt=$1 vers=$2 fstype=$3 stats=$4 extra=$5 ops=$6 op
	cat <<EOF
device 192.0.2.1:/export mounted on $mnt with fstype $fstype statvers=1.1
	opts:	rw,vers=$vers,rsize=1048576,wsize=1048576,namlen=255,hard,proto=rdma,port=20049,timeo=600,retrans=2,sec=sys
	age:	42
	caps:	caps=0x3fff7,wtmult=512,dtsize=32768,bsize=0,namlen=255
	sec:	flavor=1,pseudoflavor=1
	events:	10 20 0 1 2 3 40 0 0 0 0 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0
	bytes:	1048576 2097152 0 0 1048576 2097152 256 512
	RPC iostats version: 1.1  p/v: 100003/$stats (nfs)
	xprt:	rdma 0 0 1 42 0 120 120 0 240 0 8 16 2 1048576 2048 0 0 0 0 0 0 0 0 18 0 0 0$extra
	per-op statistics
EOF
	for op in $ops; do
		case $op in
		READ) printf '\t%12s: 16 16 0 2304 1050000 1 80 90 0\n' "$op" ;;
		WRITE) printf '\t%12s: 32 32 0 2100000 3840 2 150 170 0\n' "$op" ;;
		*) printf '\t%12s: 2 2 0 280 240 0 2 3 0\n' "$op" ;;
		esac
	done
	echo
}
{
	echo "device proc mounted on /proc with fstype proc"
	sample /mnt/a 4.1 nfs4 4 " 8192 16384 1" "NULL READ WRITE COMMIT OPEN CLOSE GETATTR LOOKUP SEQUENCE"
	sample /mnt/b 3 nfs 3 "" "NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE MKDIR
		SYMLINK MKNOD REMOVE RMDIR RENAME LINK READDIR READDIRPLUS FSSTAT FSINFO PATHCONF COMMIT"
} >"$WORK/mountstats"

# The commands each SCRIPT runs, here and in the chroot
RUNS="mountstats
mountstats --nfs
mountstats --rpc
mountstats --raw
mountstats --xprt
mountstats --xprt --since MS
mountstats --raw --since MS /mnt/a
nfsstat
nfsstat -3 --since MS
iostat
iostat --since MS /mnt/b"

# exercise ROOT PYTHON SCRIPT MS [-v]: run every command of RUNS;
# ROOT is "" on the host or the chroot's directory
exercise() {
	local root=$1 py=$2 script=$3 ms=$4 verbose=${5:-} cmd rc
	while read -r cmd; do
		# shellcheck disable=SC2086
		set -- ${cmd//MS/$ms}
		rc=0
		if [ -z "$root" ]; then
			"$py" -I ${verbose:+"$verbose"} "$script" "$@" -f "$ms" >/dev/null 2>>"$WORK/err" || rc=$?
		else
			# (with the environment of the guest's init)
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" "$py" "$script" "$@" -f "$ms" >/dev/null 2>>"$WORK/err" || rc=$?
		fi
		[ $rc = 0 ] || die "${root:+in the chroot: }$script $* -f $ms exited with $rc: $(tail -n 3 "$WORK/err")"
	done <<<"$RUNS"
}

# What the SCRIPTs load from the standard library: modules (the
# source file of each .pyc) and extension modules
: >"$WORK/loaded"
for arg in "$@"; do
	script=${arg#*=}
	[ -s "$script" ] || die "no script $script"
	: >"$WORK/err"
	exercise "" "$PYTHON" "$script" "$WORK/mountstats" -v
	sed -n -e "s/^# code object from '\\(.*\\)'\$/\\1/p" \
	       -e "s/^# extension module '[^']*' loaded from '\\(.*\\)'\$/\\1/p" \
		"$WORK/err" >>"$WORK/loaded"
done
sed -e 's,/__pycache__/\([^./]*\)\.[^/]*\.pyc$,/\1.py,' "$WORK/loaded" |
	grep "^$STDLIB/" | grep -v -e '/site-packages/' -e '/dist-packages/' -e '/sitecustomize\.py$' |
	LC_ALL=C sort -u >"$WORK/files"
grep -q "^$STDLIB/argparse\.py\$" "$WORK/files" ||
	die "no module found in $STDLIB: did python3 -v change what it prints?"

# stage_libs FILE: the shared libraries FILE loads, at their paths
stage_libs() {
	local lib
	for lib in $(ldd "$1" | awk '/=> \// { print $3 } /^\t\/lib64\// { print $1 }'); do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}

mkdir -p "$STAGE/usr/bin" "$STAGE/usr/sbin" "$STAGE$STDLIB"
cp "$PYTHON" "$STAGE/usr/bin/"
ln -s "${PYTHON##*/}" "$STAGE/usr/bin/python3"
stage_libs "$PYTHON"
cp "$STDLIB/os.py" "$STAGE$STDLIB/"
while read -r f; do
	mkdir -p "$STAGE$(dirname "$f")"
	case "$f" in
	*.py)
		"$PYTHON" -I -c 'import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)' \
			"$f" "$STAGE${f}c" ;;
	*.so)
		cp "$f" "$STAGE$f"
		stage_libs "$f" ;;
	*) die "loaded from neither a .py nor a .so: $f" ;;
	esac
done <"$WORK/files"
for arg in "$@"; do
	install -m 755 "${arg#*=}" "$STAGE/usr/sbin/${arg%%=*}"
done

# The layer alone, with the loader and libc it brought, must run them
# all. mountstats opens /proc/self/mountstats whatever -f says: a plain
# file stands in for it there, and goes before the archive is made.
mkdir -p "$STAGE/proc/self" "$STAGE/tmp"
cp "$WORK/mountstats" "$STAGE/proc/self/mountstats"
cp "$WORK/mountstats" "$STAGE/tmp/mountstats"
: >"$WORK/err"
for arg in "$@"; do
	exercise "$STAGE" /usr/bin/python3 "/usr/sbin/${arg%%=*}" /tmp/mountstats
done
[ ! -s "$WORK/err" ] || die "in the chroot, stderr said: $(head -n 5 "$WORK/err")"
rm -rf "$STAGE/proc" "$STAGE/tmp"
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +

(cd "$STAGE" && find . ! -name . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "python-layer.sh: $OUT: $(wc -l <"$WORK/files") modules of $STDLIB, $(du -sk "$STAGE" | cut -f1) KiB" >&2
