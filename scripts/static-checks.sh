#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build net/sunrpc/xprtrdma of the pristine base and of the series with
# sparse (C=1) and extra warnings (W=1), and fail if the series adds any
# warning. Warnings are compared without line numbers, so code that
# merely moved does not count as new.

. "$(dirname "$0")/lib.sh"
load_base

OUTDIR=$BUILD/static

# Build one commit from scratch; print its warnings, normalised
warnings_of() {
	local commit=$1 dir=$OUTDIR/$2 log
	rm -rf "$dir"
	log=$(mktemp)
	if ! "$TOP/scripts/module.sh" "$commit" "$dir" C=1 W=1 >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "the W=1 C=1 build of $2 failed"
	fi
	{ grep -E '(warning|error):' "$log" || true; } |
		sed -E -e "s|$dir/src/||g" -e "s|$dir/include/||g" \
		       -e 's/:[0-9]+:[0-9]+:/:/' -e 's/:[0-9]+:/:/' | sort -u
	rm -f "$log"
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
}

main() {
	local base head new
	check_kernel_doc
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
