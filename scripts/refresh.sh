#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the series commits of $TREE back into patches/: each commit's
# message and its edits to upstream files. New files are edited in the
# repository, not in the tree; refresh refuses to lose such an edit.

. "$(dirname "$0")/lib.sh"
load_base

STAMP=$BUILD/tree.stamp

# Mail-form patch of commit $1, limited to upstream files: every path
# but the ones excluded by the remaining pathspec arguments.
write_patch() {
	local c=$1
	shift
	tgit log -1 --format=email "$c" |
		sed '1s/^From [0-9a-f]*/From 0000000000000000000000000000000000000000/'
	echo '---'
	tgit diff --stat "$c^" "$c" -- . "$@"
	echo
	tgit diff --no-ext-diff "$c^" "$c" -- . "$@"
}

main() {
	local commits n i patch entry src dst excludes
	[ -z "$(tgit status --porcelain)" ] ||
		die "$TREE has uncommitted edits: commit them (git commit --fixup, then git rebase -i --autosquash base) first"
	mapfile -t commits < <(tgit rev-list --reverse base..HEAD)
	n=$(series_lines | wc -l)
	[ "${#commits[@]}" = "$n" ] ||
		die "$TREE has ${#commits[@]} commits on base but patches/series lists $n. Squash or split commits to match, or edit patches/series"

	i=0
	while read -r patch entry; do
		excludes=()
		for src in $entry; do
			dst=${src#*=}
			src=${src%%=*}
			if ! tgit show "${commits[$i]}:$dst" | cmp -s - "$TOP/$src"; then
				die "$dst differs between the tree and $src; edit new files in the repository"
			fi
			excludes+=(":(exclude)$dst")
		done
		write_patch "${commits[$i]}" "${excludes[@]}" \
			>"$TOP/patches/$patch.new"
		mv "$TOP/patches/$patch.new" "$TOP/patches/$patch"
		i=$((i + 1))
	done < <(series_lines)
	rm -f "$STAMP"
	log "patches/ refreshed from $TREE; 'make tree' rebuilds the series from them"
}

main "$@"
