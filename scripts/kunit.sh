#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites of net/sunrpc/xprtrdma under UML with the
# kernel's own kunit.py. The build directory is kept in $BUILD/kunit, so
# a second run only recompiles what changed (a clean build takes about
# ten minutes on two cores).
#
# Environment: KUNIT_ARCH (um, the default; x86_64 or arm64: kunit.py's
# qemu run of such a kernel, arm64 cross-built with
# gcc-aarch64-linux-gnu, as kernel CI runs them), KUNIT_BUILD (the build directory),
# KUNIT_NICE (the build's nice level, default 0), KUNIT_STALL (seconds
# without CPU use that make the build a hang, default 600),
# KUNIT_EXEC_TIMEOUT (the run's limit, default 900;
# KUNIT_KERNEL_TIMEOUT, default 60 s less, is kunit.py's on the test
# kernel), KUNIT_CPU (the CPU seconds any one process of the build may
# use, default 3600), KUNIT_CONFIG_ONLY (1: only kunit.py's config
# step, make kunit-config).

. "$(dirname "$0")/lib.sh"
KUNIT_BUILD=${KUNIT_BUILD:-$BUILD/kunit}
# make check counts the KTAP kunit.py leaves here: never an old one
rm -f "$KUNIT_BUILD/test.log"
load_base


# The build and the run are two kunit.py commands, bounded differently
# (scripts/README.md, "The schedule"):
# - "kunit.py build" (config, then make) has no wall-clock limit: beside
#   make check's lanes it runs at KUNIT_NICE (make check gives 19) and
#   takes what CPU they leave, which may be very little for a long time.
#   stall-timeout ends it only if nothing in it used any CPU for
#   KUNIT_STALL seconds, which is a hang, not a slow build; a CPU-time
#   limit per process (ulimit -t, KUNIT_CPU seconds; load does not
#   change it) ends one that spins.
# - "kunit.py exec" runs the UML kernel and parses its log at normal
#   priority. kunit.py's --timeout bounds the kernel, not its own
#   parsing (a badly truncated log has been seen to make the parser
#   spin), so stall-timeout --wall bounds the whole exec, counted from
#   its start. Alone it takes a second or two; KUNIT_EXEC_TIMEOUT is a
#   hang guard.
# Both stay in this script's process group, so an interrupt reaches
# them. Standard input is /dev/null so that kunit.py's "stty sane"
# cannot stop a run in the background of an interactive terminal.
#
# UML's defaults build subsystems the suites never touch. Leaving out
# IPv6, io_uring, the input layer and ethtool's netlink interface takes
# about 130 of the 1000 objects out of a clean build. That is test
# harness configuration, so it is passed here (for UML only: on arm64
# the console selects the input layer) and not written into the
# series' .kunitconfig, which lists only what the suites need.
#
# Extra arguments (make kunit-san's --kconfig_add) go to both commands,
# so they must be options both take: kunit.py's common ones.
TRIM=(CONFIG_IPV6=n CONFIG_ETHTOOL_NETLINK=n CONFIG_EXPERT=y CONFIG_IO_URING=n
      CONFIG_INPUT=n)
KUNIT_NICE=${KUNIT_NICE:-0}
KUNIT_STALL=${KUNIT_STALL:-600}
KUNIT_CPU=${KUNIT_CPU:-3600}
KUNIT_EXEC_TIMEOUT=${KUNIT_EXEC_TIMEOUT:-900}
# kunit.py's own bound on the test kernel: an x86_64 or arm64 kernel
# under TCG boots and runs the suites in about 2 to 5 minutes, more
# when the e2e lanes share the CPUs
KUNIT_KERNEL_TIMEOUT=${KUNIT_KERNEL_TIMEOUT:-$((KUNIT_EXEC_TIMEOUT - 60))}
# The series' .kunitconfig names what the suites need on any
# architecture; kunit.py adds UML's PCI layer itself (arch_uml.config).
KUNIT_ARCH=${KUNIT_ARCH:-um}
case $KUNIT_ARCH in
um) ARCH_ARGS=(--arch=um "${TRIM[@]/#/--kconfig_add=}") ;;
arm64)
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "no aarch64-linux-gnu-gcc: run 'make deps' (gcc-aarch64-linux-gnu)"
	command -v qemu-system-aarch64 >/dev/null ||
		die "no qemu-system-aarch64: run 'make deps' (qemu-system-arm)"
	ARCH_ARGS=(--arch=arm64 --cross_compile=aarch64-linux-gnu-) ;;
x86_64)
	command -v qemu-system-x86_64 >/dev/null ||
		die "no qemu-system-x86_64: run 'make deps' (qemu-system-x86)"
	# kunit.py asks qemu for KVM first. This machine has a /dev/kvm
	# that cannot run a guest (the kernel then never prints), so the
	# qemu kunit.py finds first takes only TCG, as run.sh's does
	mkdir -p "$KUNIT_BUILD/qemu-tcg"
	cat >"$KUNIT_BUILD/qemu-tcg/qemu-system-x86_64" <<EOF
#!/bin/sh
# kunit.sh: qemu-system-x86_64 without KVM or HVF (only -accel tcg)
n=\$#
while [ "\$n" -gt 0 ]; do
	a=\$1; shift; n=\$((n - 1))
	if [ "\$a" = -accel ] && [ "\$1" != tcg ]; then
		shift; n=\$((n - 1)); continue
	fi
	set -- "\$@" "\$a"
done
exec $(command -v qemu-system-x86_64) "\$@"
EOF
	chmod +x "$KUNIT_BUILD/qemu-tcg/qemu-system-x86_64"
	export PATH="$KUNIT_BUILD/qemu-tcg:$PATH"
	ARCH_ARGS=(--arch=x86_64) ;;
*) die "KUNIT_ARCH=$KUNIT_ARCH: use um, x86_64 or arm64" ;;
esac
COMMON=(--kunitconfig=net/sunrpc/xprtrdma --build_dir="$KUNIT_BUILD" "${ARCH_ARGS[@]}" "$@")
cd "$TREE"
# KUNIT_CONFIG_ONLY=1 (make kunit-config): kunit.py's config step alone,
# which writes the .config and fails if an option of .kunitconfig did
# not take; the fresh root checks that far what the build needs
if [ -n "${KUNIT_CONFIG_ONLY:-}" ]; then
	python3 tools/testing/kunit/kunit.py config "${COMMON[@]}" </dev/null ||
		die "kunit.py config failed"
	exit 0
fi
t0=$SECONDS
rc=0
(
	ulimit -t "$KUNIT_CPU"
	exec nice -n "$KUNIT_NICE" "$TOP/scripts/stall-timeout" "$KUNIT_STALL" \
		python3 tools/testing/kunit/kunit.py build "${COMMON[@]}" \
		--jobs="$(nproc)" </dev/null
) || rc=$?
echo "# kunit: build (nice $KUNIT_NICE) took $((SECONDS - t0)) s"
if [ "$rc" != 0 ]; then
	echo "ERROR: kunit.py build failed (exit status $rc)" >&2
	exit "$rc"
fi
t0=$SECONDS
"$TOP/scripts/stall-timeout" --wall "$KUNIT_EXEC_TIMEOUT" "$KUNIT_EXEC_TIMEOUT" \
	python3 tools/testing/kunit/kunit.py exec "${COMMON[@]}" \
	--timeout="$KUNIT_KERNEL_TIMEOUT" </dev/null || rc=$?
echo "# kunit: exec took $((SECONDS - t0)) s"
[ "$rc" != 124 ] ||
	echo "ERROR: kunit.py exec did not end within $KUNIT_EXEC_TIMEOUT s of its start" >&2
exit "$rc"
