# SPDX-License-Identifier: GPL-2.0
#
# RFC 8797 CM Private Data for the Linux RPC-over-RDMA transport.
# Every target of the project starts here; see README.md.

# The one place the base kernel is pinned: Debian's package version of
# linux-source-6.12, linux-headers-*-amd64 and linux-image-*-amd64.
# scripts/deps.sh explains what happens when the archive moves on.
BASE_PKG_VERSION := 6.12.95-1~bpo12+1
export BASE_PKG_VERSION

BUILD ?= $(CURDIR)/build
OUT   ?= $(CURDIR)/out
export BUILD OUT

TOOL_DIR := tools/net/sunrpc/rpcrdma-cm

.DEFAULT_GOAL := all

## all: deps, then rpcrdma.ko and rpcrdma-cm
all: deps modules tools

## demo: the main command: RFC 8797 between real kernels in a qemu VM
demo: deps modules tools
	@E2E_RUNS_FILE=tools/testing/nfsrdma/demo.runs scripts/e2e.sh demo

## deps: install the pinned base packages and build tools (root)
deps:
	@scripts/deps.sh

## deps-test: every way deps can stop, with stand-ins for apt, dpkg and id
deps-test:
	@scripts/test-deps.sh

## fresh-root: make demo in a new minimal Debian root (FRESH_MODE=check: make check)
FRESH_MODE ?= demo
fresh-root: deps
	@scripts/fresh-root.sh $(FRESH_MODE)

## tree: assemble build/linux-<ver>: pristine base plus our series
tree: deps
	@scripts/tree.sh

## refresh: write tree commits back into patches/
refresh:
	@scripts/refresh.sh

## modules: build rpcrdma.ko against the Debian 6.12 headers
modules: tree
	@scripts/module.sh HEAD $(BUILD)/module

## tools: build the rpcrdma-cm user-space command (no kernel tree needed)
tools:
	@$(MAKE) -s -C $(TOOL_DIR)

## kunit: run the KUnit suites under UML with kunit.py
kunit: tree
	@scripts/kunit.sh

## kunit-san: the KUnit suites again with KASAN and UBSAN (build/kunit-san)
kunit-san: tree
	@KUNIT_BUILD=$(BUILD)/kunit-san scripts/kunit.sh \
		--kconfig_add CONFIG_KASAN=y --kconfig_add CONFIG_KASAN_GENERIC=y \
		--kconfig_add CONFIG_UBSAN=y --kconfig_add CONFIG_UBSAN_BOUNDS=y \
		--kconfig_add CONFIG_UBSAN_ALIGNMENT=n

## tools-check: test rpcrdma-cm
tools-check: tools
	@$(TOOL_DIR)/test-rpcrdma-cm.sh $(TOOL_DIR)/rpcrdma-cm

## e2e: NFS over soft-RoCE in qemu (RUNS="single-ours ..." to pick runs)
e2e: modules tools
	@scripts/e2e.sh $(RUNS)

## bench: the benchmark, stock vs ours, report in out/bench (QUICK=1: smoke test)
bench: modules tools
	@scripts/bench.sh $(if $(QUICK),--quick)

## fuzz: libFuzzer + ASan/UBSan on the codec for FUZZ_SECONDS (default 600)
FUZZ_SECONDS ?= 600
fuzz: deps
	@tools/testing/rpcrdma-cm-fuzz/run.sh $(FUZZ_SECONDS)

## static: sparse (C=1) and W=1 on net/sunrpc/xprtrdma, compared with base
static: tree
	@scripts/static-checks.sh

## patchset: export the series to out/patchset and check each patch (SIGNOFF="Name <addr>" signs it)
patchset: tree
	@scripts/patchset.sh

# The DKMS package: /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
DKMS_NAME    := rpcrdma-rfc8797
DKMS_VERSION := 1.0
export DKMS_NAME DKMS_VERSION

## dkms-tarball: the DKMS source package as out/dkms/<name>-<version>.tar.gz
dkms-tarball: tree
	@scripts/dkms.sh tarball

## dkms-install: dkms add, build and install for the pinned kernel (DKMS_KVER=...)
dkms-install: tree
	@scripts/dkms.sh install

## dkms-uninstall: dkms remove from every kernel; the stock rpcrdma.ko is used again
dkms-uninstall:
	@scripts/dkms.sh remove

## dkms-check: install, inspect, boot in a VM and mount, remove, inspect again
dkms-check: modules tools
	@scripts/dkms.sh check

## install: without DKMS, put rpcrdma.ko in /lib/modules/<kver>/updates (INSTALL_KVER=...)
install: modules
	@scripts/install.sh install

## uninstall: remove what make install put there
uninstall:
	@scripts/install.sh uninstall

## install-check: make install, check, make uninstall, check again
install-check: modules
	@scripts/install.sh check

## check: the whole test suite, with a summary line
check:
	@scripts/check.sh

## check-full: check with the long variants (storms, restarts, fuzzing, make check in a fresh root)
check-full:
	@FULL=1 scripts/check.sh

## clean: remove build products of the module and the tool
clean:
	rm -rf --one-file-system $(BUILD)/module $(BUILD)/static $(BUILD)/patchset-check \
		$(BUILD)/fresh-root/root $(BUILD)/fresh-root/project $(OUT)
	@$(MAKE) -s -C $(TOOL_DIR) clean

## distclean: also remove the kernel tree and the KUnit build
distclean: clean
	rm -rf --one-file-system $(BUILD)

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

.PHONY: all demo deps deps-test fresh-root tree refresh modules tools kunit kunit-san tools-check e2e bench fuzz static \
	patchset dkms-tarball dkms-install dkms-uninstall dkms-check install uninstall install-check \
	check check-full clean distclean help
