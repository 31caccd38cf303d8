#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the whole series: kernel-doc of the files it adds is
# clean and the upstream files it changes gain no kernel-doc warning; the
# documents it adds parse with docutils; and net/sunrpc/xprtrdma, built
# with sparse (C=1) and extra warnings (W=1), has no warning the
# pristine base does not have. Warnings are compared without line
# numbers, so code that merely moved does not count as new. make
# patchset runs the same checks after each patch, so make check runs
# that and not this; this is the quick look at the whole series.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kbuild.sh"
load_base

OUTDIR=$BUILD/static-$SERIES_BASE

# Build one commit from scratch; print its warnings, normalised
warnings_of() {
	rm -rf "${OUTDIR:?}/$2"
	build_warnings "$1" "$OUTDIR/$2" || die "the W=1 C=1 build of $2 failed"
}

main() {
	local base head new
	new=$(doc_problems base HEAD)
	if [ -n "$new" ]; then
		printf '%s\n' "$new"
		die "kernel-doc or rst problems in the series"
	fi
	echo "kernel-doc and rst: clean"
	command -v sparse >/dev/null || die "sparse is not installed: run 'make deps'"
	log "W=1 C=1 build of the pristine base"
	base=$(warnings_of base base)
	log "W=1 C=1 build of the series"
	head=$(warnings_of HEAD series)
	new=$(comm -13 <(printf '%s\n' "$base") <(printf '%s\n' "$head") | sed '/^$/d')
	printf 'base: %d distinct warnings; series: %d\n' \
		"$(printf '%s' "$base" | grep -c . || true)" \
		"$(printf '%s' "$head" | grep -c . || true)"
	if [ -n "$new" ]; then
		echo "New warnings from the series:"
		printf '%s\n' "$new"
		exit 1
	fi
	echo "static: no new sparse or W=1 warnings"
}

main "$@"
