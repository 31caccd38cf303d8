#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the series commits of $TREE back into patches/$SERIES_BASE/:
# each commit's message and its edits to upstream files. New files are
# edited in the repository, not in the tree: the repository holds a new
# file as the series leaves it, and the patch that adds it keeps only
# what the tree's copy then differs by (what later patches add to it,
# so that a helper arrives with its first user; or a backport's
# adjustment to its base), and refresh says so. On mainline the tree's
# last commit must hold the repository's copy.

. "$(dirname "$0")/lib.sh"
load_base

STAMP=$BUILD/tree-$SERIES_BASE.stamp

# tree_with_new_files COMMIT NEWFILE[=TREEPATH]...: the tree of COMMIT's
# parent with the repository's version of the new files added
tree_with_new_files() {
	local c=$1 idx src dst blob
	shift
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx tgit read-tree "$c^"
	for src in "$@"; do
		dst=${src#*=}
		src=${src%%=*}
		blob=$(tgit hash-object -w "$TOP/$src")
		GIT_INDEX_FILE=$idx tgit update-index --add --cacheinfo "100644,$blob,$dst"
	done
	GIT_INDEX_FILE=$idx tgit write-tree
	rm -f "$idx"
}

# Mail-form patch of commit $1 whose new files are $2...: the message,
# then the diff from the parent plus the repository's new files
write_patch() {
	local c=$1 from
	shift
	from=$(tree_with_new_files "$c" "$@")
	tgit log -1 --format=email "$c" |
		sed '1s/^From [0-9a-f]*/From 0000000000000000000000000000000000000000/'
	echo '---'
	tgit diff --stat "$from" "$c"
	echo
	tgit diff --no-ext-diff "$from" "$c"
}

main() {
	local commits n i patch entry src dst
	[ -z "$(tgit status --porcelain)" ] ||
		die "$TREE has uncommitted edits: commit them (git commit --fixup, then git rebase -i --autosquash base) first"
	mapfile -t commits < <(tgit rev-list --reverse base..HEAD)
	n=$(series_lines | wc -l)
	[ "${#commits[@]}" = "$n" ] ||
		die "$TREE has ${#commits[@]} commits on base but $SERIES lists $n. Squash or split commits to match, or edit the series file"

	i=0
	while read -r patch entry; do
		for src in $entry; do
			dst=${src#*=}
			src=${src%%=*}
			if ! tgit show "${commits[$i]}:$dst" | cmp -s - "$TOP/$src"; then
				tgit show "HEAD:$dst" | cmp -s - "$TOP/$src" ||
					[ "$SERIES_BASE" != mainline ] ||
					die "$dst differs between the tree's last commit and $src; edit new files in the repository"
				log "$patch: keeps the $SERIES_BASE tree's difference to $src (what later patches add to it, or a backport adjustment)"
			fi
		done
		# shellcheck disable=SC2086 # entry is a list of words
		write_patch "${commits[$i]}" $entry >"$SERIES_DIR/$patch.new"
		mv "$SERIES_DIR/$patch.new" "$SERIES_DIR/$patch"
		i=$((i + 1))
	done < <(series_lines)
	rm -f "$STAMP"
	log "patches/$SERIES_BASE refreshed from $TREE; 'make tree' rebuilds the series from them"
}

main "$@"
