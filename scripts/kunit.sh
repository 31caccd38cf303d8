#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites of net/sunrpc/xprtrdma under UML with the
# kernel's own kunit.py. The build directory is kept in $BUILD/kunit, so
# a second run only recompiles what changed (a clean build takes about
# ten minutes on two cores).

. "$(dirname "$0")/lib.sh"
KUNIT_BUILD=${KUNIT_BUILD:-$BUILD/kunit}
# make check counts the KTAP kunit.py leaves here: never an old one
rm -f "$KUNIT_BUILD/test.log"
load_base


# kunit.py bounds the UML run with --timeout, but not its own parsing of
# the log; a badly truncated log has been seen to make the parser spin.
# The outer timeout covers a clean build as well. Standard input is
# /dev/null so that kunit.py's "stty sane" cannot stop a run that
# timeout(1) has put in the background of an interactive terminal.
#
# UML's defaults build subsystems the suites never touch. Leaving out
# IPv6, io_uring, the input layer and ethtool's netlink interface takes
# about 130 of the 1000 objects out of a clean build. That is test
# harness configuration, so it is passed here and not written into the
# series' .kunitconfig, which lists only what the suites need.
TRIM=(CONFIG_IPV6=n CONFIG_ETHTOOL_NETLINK=n CONFIG_EXPERT=y CONFIG_IO_URING=n
      CONFIG_INPUT=n)
cd "$TREE"
exec timeout --kill-after=30 1800 python3 tools/testing/kunit/kunit.py run \
	--kunitconfig=net/sunrpc/xprtrdma \
	--build_dir="$KUNIT_BUILD" \
	--arch=um \
	--jobs="$(nproc)" \
	"${TRIM[@]/#/--kconfig_add=}" \
	--timeout=300 \
	"$@" </dev/null
