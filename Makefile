# SPDX-License-Identifier: GPL-2.0
#
# RFC 8797 CM Private Data for the Linux RPC-over-RDMA transport.
# Every target of the project starts here; see README.md.

# The one place the base kernel is pinned: Debian's package version of
# linux-source-6.12, linux-headers-*-amd64 and linux-image-*-amd64.
# scripts/deps.sh explains what happens when the archive moves on.
BASE_PKG_VERSION := 6.12.95-1~bpo12+1
export BASE_PKG_VERSION

# The mainline base, where the primary series applies: Debian's
# linux-source-7.3 from trixie-backports (scripts/mainline-deps.sh)
MAINLINE_PKG_VERSION := 7.3.4-1~bpo13+1
export MAINLINE_PKG_VERSION

# nfs-utils, for the mountstats patch of patches/nfs-utils: Debian's
# source package of trixie (scripts/nfs-utils.sh)
NFS_UTILS_PKG_VERSION := 1:2.8.3-1
export NFS_UTILS_PKG_VERSION

# The series that tree-wide targets (refresh, static) work on: mainline
# (Linux 7.3, the primary) or 6.12 (its backport). See patches/README.md.
SERIES_BASE ?= mainline
export SERIES_BASE

BUILD ?= $(CURDIR)/build
OUT   ?= $(CURDIR)/out
export BUILD OUT

TOOL_DIR := tools/net/sunrpc/rpcrdma-cm
CALL_DIR := tools/testing/rpcrdma-call
SERVE_DIR := tools/testing/rpcrdma-serve
WIRESHARK_DIR := tools/net/sunrpc/wireshark

.DEFAULT_GOAL := all

## all: deps, then rpcrdma.ko and rpcrdma-cm
all: deps modules tools

## demo: the main command: RFC 8797 between real kernels in a qemu VM
demo: deps modules tools
	@scripts/demo.sh

## deps: install the pinned base packages and build tools (root)
deps:
	@scripts/deps.sh

## deps-mainline: fetch the pinned linux-source-7.3 (apt-get download, no install)
deps-mainline: deps
	@scripts/mainline-deps.sh

## deps-test: every way deps can stop, with stand-ins for apt, dpkg and id
deps-test:
	@scripts/test-deps.sh

## stall-timeout-test: the hang guard's own test (scripts/test-stall-timeout.sh)
stall-timeout-test:
	@scripts/test-stall-timeout.sh

## fresh-root: make demo, then the install and build steps of make check, in a new minimal Debian root (FRESH_MODE=demo: the demo alone; check: make check)
FRESH_MODE ?= builds
fresh-root: deps
	@scripts/fresh-root.sh $(FRESH_MODE)

## tree: assemble build/linux-<ver> for both series: pristine base plus the series
tree: tree-mainline tree-6.12

## tree-mainline: build/linux-7.3.<n>: linux-source-7.3 plus patches/mainline
tree-mainline: deps-mainline
	@SERIES_BASE=mainline scripts/tree.sh

## tree-6.12: build/linux-6.12.<n>: linux-source-6.12 plus patches/6.12
tree-6.12: deps
	@SERIES_BASE=6.12 scripts/tree.sh

## refresh: write tree commits back into patches/$(SERIES_BASE)
refresh:
	@scripts/refresh.sh

## modules: build the 6.12 series' rpcrdma.ko against the Debian 6.12 headers
modules: tree-6.12
	@SERIES_BASE=6.12 TEST_MODULES=1 scripts/module.sh HEAD $(BUILD)/module

## modules-fixes: the 6.12 rpcrdma.ko with the stable fixes posting alone (build/module-fixes, for fixes.runs)
modules-fixes: tree-6.12
	@SERIES_BASE=6.12 scripts/module.sh \
		"$$(SERIES_BASE=6.12 scripts/posting-commit.sh fixes)" $(BUILD)/module-fixes

## modules-mainline: build the mainline rpcrdma.ko against Debian's 7.3 headers (trixie root)
modules-mainline: tree-mainline
	@SERIES_BASE=mainline TEST_MODULES=1 scripts/module.sh HEAD $(BUILD)/module-mainline

## deps-arm64: fetch Debian's arm64 kernels, headers and user space for the arm64 lane (apt-get download)
deps-arm64: deps-mainline
	@scripts/arm64-deps.sh

## modules-arm64: cross-build both series' rpcrdma.ko for Debian's arm64 6.12 and 7.3
modules-arm64: tree-6.12 tree-mainline deps-arm64
	@scripts/arm64-build.sh modules

## tools-arm64: cross-build rpcrdma-cm, rpcrdma-call and rpcrdma-serve for the arm64 guests
tools-arm64: deps-arm64
	@scripts/arm64-build.sh tools

## e2e-arm64: arm64.runs: arm64 guests of both kernels, and arm64 with x86-64 both ways (RUNS= to pick)
e2e-arm64: modules-arm64 tools-arm64 modules modules-mainline tools
	@scripts/e2e.sh --arm64 $(RUNS)

## kunit-x86_64: the KUnit suites on x86_64 under qemu, as kernel CI runs them (kunit.py --arch=x86_64)
kunit-x86_64: tree-mainline
	@SERIES_BASE=mainline KUNIT_BUILD=$(BUILD)/kunit-x86_64 KUNIT_ARCH=x86_64 scripts/kunit.sh

## kunit-arm64: the KUnit suites on arm64 under qemu, as kernel CI runs them (kunit.py --arch=arm64)
kunit-arm64: tree-mainline
	@SERIES_BASE=mainline KUNIT_BUILD=$(BUILD)/kunit-arm64 KUNIT_ARCH=arm64 scripts/kunit.sh

## modules-siw: soft-iWARP (siw.ko) for Debian's 6.12 and 7.3, built out of tree from each base's source (Debian builds none)
modules-siw: tree-6.12 tree-mainline
	@scripts/siw-module.sh 6.12 $(BUILD)/siw-6.12
	@scripts/siw-module.sh 7.3 $(BUILD)/siw-7.3

## e2e-siw: siw.runs: NFS over soft-iWARP, ours and stock, and a mount moved from rxe to siw (RUNS= to pick)
e2e-siw: modules-siw modules modules-mainline tools
	@scripts/e2e.sh --siw $(RUNS)

## debug-kernel: the harness's debug kernel (KASAN, DEBUG_SG, lockdep...) from the mainline tree, in the trixie root
debug-kernel: tree-mainline
	@scripts/debug-kernel.sh

## tools: build the rpcrdma-cm user-space command, the test client rpcrdma-call, the test server rpcrdma-serve and the cost mode's instruction counter (no kernel tree needed)
tools:
	@$(MAKE) -s -C $(TOOL_DIR)
	@$(MAKE) -s -C $(CALL_DIR)
	@$(MAKE) -s -C $(SERVE_DIR)
	@$(MAKE) -s -C tools/testing/nfsrdma/bench/cost

## kunit: run the KUnit suites under UML with kunit.py, on mainline (7.3)
kunit: tree-mainline
	@SERIES_BASE=mainline scripts/kunit.sh

## kunit-config: kunit.py's config of the mainline KUnit build and its check that every option of .kunitconfig took, without building
kunit-config: tree-mainline
	@SERIES_BASE=mainline KUNIT_CONFIG_ONLY=1 scripts/kunit.sh

## fuzz-build: build the codec fuzzer (clang, libFuzzer) without running it
fuzz-build:
	@$(MAKE) -s -C tools/testing/rpcrdma-cm-fuzz

## kunit-6.12: the KUnit suites on the 6.12 series (build/kunit-6.12)
kunit-6.12: tree-6.12
	@SERIES_BASE=6.12 KUNIT_BUILD=$(BUILD)/kunit-6.12 scripts/kunit.sh

## kunit-san: the KUnit suites again with KASAN and UBSAN (build/kunit-san), on mainline
kunit-san: tree-mainline
	@SERIES_BASE=mainline KUNIT_BUILD=$(BUILD)/kunit-san scripts/kunit.sh \
		--kconfig_add CONFIG_KASAN=y --kconfig_add CONFIG_KASAN_GENERIC=y \
		--kconfig_add CONFIG_UBSAN=y --kconfig_add CONFIG_UBSAN_BOUNDS=y \
		--kconfig_add CONFIG_UBSAN_ALIGNMENT=n

## backport-check: every difference of the 6.12 series from mainline's must be named in a [ 6.12: ] note (git range-diff)
backport-check:
	@scripts/backport-check.sh

## tools-check: test rpcrdma-cm, rpcrdma-call and rpcrdma-serve, and that every e2e scenario is in a runs file (one KTAP document)
tools-check: tools
	@scripts/tools-check.sh

## nfs-utils-mountstats: nfs-utils' mountstats with patches/nfs-utils applied, as build/nfs-utils/mountstats (apt-get source of trixie's nfs-utils)
nfs-utils-mountstats:
	@scripts/nfs-utils.sh

## wireshark: build the Wireshark plugin that decodes RFC 8797 CM Private Data (needs wireshark-dev)
wireshark:
	@$(MAKE) -s -C $(WIRESHARK_DIR)

## install-wireshark: install that plugin for the current user (~/.local/lib/wireshark/plugins/<version>/epan)
install-wireshark:
	@$(MAKE) -s -C $(WIRESHARK_DIR) install

## uninstall-wireshark: remove it again
uninstall-wireshark:
	@$(MAKE) -s -C $(WIRESHARK_DIR) uninstall

## wireshark-check: test the plugin with tshark on crafted captures and the sample capture
wireshark-check:
	@$(MAKE) -s -C $(WIRESHARK_DIR) check

## wireshark-sample: make the plugin's sample.pcap again: the CM messages of the wire-ours run on 6.12
wireshark-sample: modules tools
	@E2E_KERNEL=6.12 E2E_KEEP_CAPTURE=1 scripts/e2e.sh wire-ours
	@tshark -r $(BUILD)/e2e/6.12/wire-ours.pcap -Y 'infiniband.mad.mgmtclass == 0x07' \
		-w $(WIRESHARK_DIR)/sample.pcap

## e2e: NFS over soft-RoCE in qemu (RUNS="single-ours ..." to pick runs, KERNEL=7.3 to boot 7.3)
KERNEL ?= $(or $(E2E_KERNEL),6.12)
e2e: modules tools nfs-utils-mountstats $(if $(filter 7.3,$(KERNEL)),modules-mainline)
	@E2E_KERNEL=$(KERNEL) scripts/e2e.sh $(RUNS)

## e2e-fixes: fixes.runs: Debian's 6.12 with the stable fixes posting alone, the scenarios those fixes answer
e2e-fixes: modules modules-fixes tools
	@E2E_RUNS_FILE=$(CURDIR)/tools/testing/nfsrdma/fixes.runs scripts/e2e.sh

## e2e-debug: the single-VM scenarios on the debug kernel (KASAN, DEBUG_SG, lockdep...); any splat fails (DEBUG_RUNS=quick: nine of them)
DEBUG_RUNS ?= full
e2e-debug: modules tools nfs-utils-mountstats debug-kernel
	@E2E_KERNEL=7.3-debug E2E_SCENARIO_TIMEOUT=$${E2E_SCENARIO_TIMEOUT:-3600} \
		E2E_RUNS_FILE=$(CURDIR)/tools/testing/nfsrdma/debug.runs scripts/e2e.sh debug-$(DEBUG_RUNS)

## e2e-interop: two hosts of different kernels and modules (7.3 with 6.12, ours with stock)
e2e-interop: modules modules-mainline tools
	@scripts/e2e.sh --interop $(RUNS)

## bench: the benchmark, stock vs ours, report in out/bench (QUICK=1: smoke test; MEM=1: memory per connection only; COST=1: instructions per RPC by layer under -icount, out/bench-cost, COST=quick its short form; SCALE=1: nfsd's memory against 1-256 connections, out/bench-scale, SCALE=quick its short form; BENCH_KERNEL=7.3: out/bench-7.3)
BENCH_KERNEL ?= $(or $(E2E_KERNEL),6.12)
bench: modules tools $(if $(filter 7.3,$(BENCH_KERNEL)),modules-mainline)
	@BENCH_KERNEL=$(BENCH_KERNEL) scripts/bench.sh $(if $(QUICK),--quick,$(if $(MEM),--mem,$(if $(filter quick,$(COST)),--cost-quick,$(if $(COST),--cost,$(if $(filter quick,$(SCALE)),--scale-quick,$(if $(SCALE),--scale))))))

## fuzz: libFuzzer + ASan/UBSan on the codec for FUZZ_SECONDS (default 600)
FUZZ_SECONDS ?= 600
fuzz: deps
	@tools/testing/rpcrdma-cm-fuzz/run.sh $(FUZZ_SECONDS)

## static: sparse (C=1) and W=1 on net/sunrpc/xprtrdma of $(SERIES_BASE), compared with base
static: tree
	@scripts/static-checks.sh

## patchset: export the mainline series to out/patchset/mainline, sent and signed by git's user.name and user.email, and check each posting on its base (DRY_RUN=1: without a sender; EXPORT_ONLY=1: export without the checks)
patchset: tree-mainline
	@SERIES_BASE=mainline scripts/patchset.sh $(if $(EXPORT_ONLY),--export-only) $(if $(DRY_RUN),--dry-run)

## patchset-6.12: the same for the 6.12 backport (out/patchset/6.12)
patchset-6.12: tree-6.12
	@SERIES_BASE=6.12 scripts/patchset.sh $(if $(EXPORT_ONLY),--export-only) $(if $(DRY_RUN),--dry-run)

# The DKMS package: /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
DKMS_NAME    := rpcrdma-rfc8797
DKMS_VERSION := 1.0
export DKMS_NAME DKMS_VERSION

## dkms-tarball: the DKMS source package as out/dkms/<name>-<version>.tar.gz
dkms-tarball: tree
	@scripts/dkms.sh tarball

## dkms-install: dkms add, build and install for the pinned kernel (DKMS_KVER=..., DKMS_KERNEL=7.3)
dkms-install: tree
	@scripts/dkms.sh install

## dkms-uninstall: dkms remove from every kernel; the stock rpcrdma.ko is used again
dkms-uninstall:
	@scripts/dkms.sh remove

## dkms-check: install, inspect, boot in a VM and mount, remove, inspect again (DKMS_KERNEL=7.3: in the trixie root)
dkms-check: tree tools
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

## check-full: check with the long variants (storms, restarts, fuzzing, the 6.12 series patch by patch, make check in a fresh root)
check-full:
	@FULL=1 scripts/check.sh

## clean: remove build products of the module and the tool
clean:
	rm -rf --one-file-system $(BUILD)/module $(BUILD)/module-mainline $(BUILD)/static-* $(BUILD)/patchset-check-* \
		$(BUILD)/fresh-root/root $(BUILD)/fresh-root/project $(OUT)
	@$(MAKE) -s -C $(TOOL_DIR) clean
	@$(MAKE) -s -C $(CALL_DIR) clean
	@$(MAKE) -s -C $(SERVE_DIR) clean
	@$(MAKE) -s -C $(WIRESHARK_DIR) clean
	@$(MAKE) -s -C tools/testing/nfsrdma/bench/cost clean

## distclean: also remove the kernel tree and the KUnit build
distclean: clean
	rm -rf --one-file-system $(BUILD)

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

.PHONY: all demo deps deps-mainline deps-test debug-kernel e2e-debug fresh-root tree tree-mainline tree-6.12 refresh \
	modules modules-mainline modules-fixes tools nfs-utils-mountstats kunit kunit-config kunit-6.12 kunit-san kunit-x86_64 fuzz-build tools-check backport-check e2e e2e-fixes e2e-interop bench fuzz static \
	wireshark install-wireshark uninstall-wireshark wireshark-check wireshark-sample \
	patchset patchset-6.12 dkms-tarball dkms-install dkms-uninstall dkms-check install uninstall install-check \
	deps-arm64 modules-arm64 tools-arm64 e2e-arm64 stall-timeout-test kunit-arm64 modules-siw e2e-siw \
	check check-full clean distclean help
