#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the whole series: kernel-doc of the files it adds is
# clean and the upstream files it changes gain no kernel-doc warning; the
# documents it adds parse with docutils; and net/sunrpc/xprtrdma, built
# with sparse (C=1) and extra warnings (W=1), has no warning the
# pristine base does not have. Warnings are compared without line
# numbers, so code that merely moved does not count as new. make
# patchset runs the same checks after each patch.

. "$(dirname "$0")/lib.sh"
load_base

OUTDIR=$BUILD/static

# Build one commit from scratch; print its warnings, normalised
warnings_of() {
	rm -rf "${OUTDIR:?}/$2"
	build_warnings "$1" "$OUTDIR/$2" || die "the W=1 C=1 build of $2 failed"
}

# kernel-doc of the files the series adds: complete, and warning-free
check_kernel_doc() {
	local files out
	mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=A base HEAD -- '*.c' '*.h')
	out=$(cd "$TREE" && perl scripts/kernel-doc -none -Wall "${files[@]}" 2>&1)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		die "kernel-doc reports problems in new files"
	fi
	echo "kernel-doc: clean (${files[*]})"
	check_kernel_doc_changed
}

# The upstream files the series changes gain no kernel-doc warning
check_kernel_doc_changed() {
	local files new
	mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=M base HEAD -- '*.c' '*.h')
	new=$(comm -13 <(kernel_doc_of base "${files[@]}") <(kernel_doc_of HEAD "${files[@]}"))
	if [ -n "$new" ]; then
		printf '%s\n' "$new"
		die "kernel-doc: new warnings in files the series changes"
	fi
	echo "kernel-doc: no new warnings in the ${#files[@]} upstream files the series changes"
}

# The reStructuredText the series adds or changes parses with docutils
# without a warning (index.rst, with Sphinx's toctree, is left to
# "make htmldocs")
check_rst() {
	local files out
	mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=AM base HEAD -- \
		'Documentation/*.rst' | grep -v '/index\.rst$' || true)
	out=$(rst_problems HEAD "${files[@]}")
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		die "rst: docutils reports problems"
	fi
	echo "rst: clean (${files[*]:-no documents changed})"
}

main() {
	local base head new
	check_kernel_doc
	check_rst
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
