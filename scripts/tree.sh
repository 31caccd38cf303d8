#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Materialise $TREE: the pristine base source (Debian's linux-source-7.3
# for SERIES_BASE=mainline, linux-source-6.12 for SERIES_BASE=6.12) with
# that series on top, one git commit per line of patches/$SERIES_BASE/series.
#
# The pristine source is committed once and tagged "base". The series
# is rebuilt with git plumbing in a private index, without touching the
# work tree, and then checked out; so only files whose content changed
# get a new mtime and incremental kernel builds stay incremental.
# Nothing happens when the inputs are unchanged.

. "$(dirname "$0")/lib.sh"
load_base

STAMP=$BUILD/tree-$SERIES_BASE.stamp
AUTHOR_FALLBACK="NFS/RDMA developers <nfs-rdma@example.org>"

inputs_hash() {
	local files
	files=$(series_lines | tr ' \t' '\n\n' | sed -e '/^$/d' -e 's/=.*//' |
		sort -u)
	{
		echo "$BASE_VERSION"
		cat "$SERIES"
		# patch files and new files, by content
		# (a missing one is build_series' to report, by name)
		for f in $files; do
			if [ -f "$SERIES_DIR/$f" ]; then
				sha256sum "$SERIES_DIR/$f"
			elif [ -f "$TOP/$f" ]; then
				sha256sum "$TOP/$f"
			else
				echo "missing $f"
			fi
		done
	} | sha256sum | cut -d' ' -f1
}

make_base() {
	[ -d "$TREE/.git" ] && tgit rev-parse -q --verify base >/dev/null && return
	log "unpacking $SRC_TARBALL into $TREE"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$SRC_TARBALL" -C "$TREE.tmp" --strip-components=1
	mv "$TREE.tmp" "$TREE"
	log "recording the pristine tree as git tag 'base'"
	tgit init -q -b series
	tgit config user.name "${AUTHOR_FALLBACK% <*}"
	tgit config user.email "nfs-rdma@example.org"
	tgit config core.autocrlf false
	tgit add -A -f .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		tgit commit -q -m "$BASE_TITLE"
	tgit tag base
}

# Build the series commits on top of "base" in a private index.
# Each commit first gets its new files from the repository, then the
# patch's diff: that holds the edits to upstream files and, in a
# backport, the adjustments a new file needs on that base.
# Prints the final commit id.
build_series() {
	local idx work parent patch entry src dst blob treeid commit
	work=$(mktemp -d)
	idx=$work/index
	parent=$(tgit rev-parse base)
	GIT_INDEX_FILE=$idx tgit read-tree base

	while read -r patch entry; do
		[ -f "$SERIES_DIR/$patch" ] || die "$SERIES: no such patch '$patch'"
		tgit mailinfo "$work/msg" "$work/diff" \
			<"$SERIES_DIR/$patch" >"$work/info"
		for src in $entry; do
			dst=${src#*=}
			src=${src%%=*}
			[ -f "$TOP/$src" ] || die "$SERIES: $patch adds missing file '$src'"
			blob=$(tgit hash-object -w "$TOP/$src")
			GIT_INDEX_FILE=$idx tgit update-index --add \
				--cacheinfo "100644,$blob,$dst"
		done
		if [ -s "$work/diff" ]; then
			GIT_INDEX_FILE=$idx tgit apply --cached --whitespace=error-all \
				"$work/diff" ||
				die "patches/$SERIES_BASE/$patch does not apply; see patches/README.md, 'Working on the tree'"
		fi
		treeid=$(GIT_INDEX_FILE=$idx tgit write-tree)
		commit=$(commit_from_mail "$work" "$treeid" "$parent")
		parent=$commit
	done < <(series_lines)
	rm -rf "$work"
	echo "$parent"
}

# Create a commit from a parsed mail ($1: mailinfo dir) for tree $2 on
# parent $3, keeping the patch's author and date.
commit_from_mail() {
	local work=$1 treeid=$2 parent=$3 name email date subject
	name=$(sed -n 's/^Author: //p' "$work/info")
	email=$(sed -n 's/^Email: //p' "$work/info")
	date=$(sed -n 's/^Date: //p' "$work/info")
	subject=$(sed -n 's/^Subject: //p' "$work/info")
	[ -n "$subject" ] || die "a patch in patches/ has no Subject"
	{ printf '%s\n\n' "$subject"; cat "$work/msg"; } >"$work/commitmsg"
	GIT_AUTHOR_NAME=${name:-${AUTHOR_FALLBACK% <*}} \
	GIT_AUTHOR_EMAIL=${email:-nfs-rdma@example.org} \
	GIT_AUTHOR_DATE=${date:-2000-01-01T00:00:00Z} \
	GIT_COMMITTER_NAME=${name:-${AUTHOR_FALLBACK% <*}} \
	GIT_COMMITTER_EMAIL=${email:-nfs-rdma@example.org} \
	GIT_COMMITTER_DATE=${date:-2000-01-01T00:00:00Z} \
		tgit commit-tree "$treeid" -p "$parent" -F "$work/commitmsg"
}

main() {
	local hash head
	make_base
	hash=$(inputs_hash)
	head=$(tgit rev-parse -q --verify series || true)
	if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$hash $head" ] &&
	   [ "$(tgit rev-parse HEAD)" = "$head" ] &&
	   [ -z "$(tgit status --porcelain)" ]; then
		return
	fi
	if [ -f "$STAMP" ] && [ -n "$head" ] &&
	   [ "$(cut -d' ' -f2 "$STAMP")" != "$head" ] && [ -z "${FORCE:-}" ]; then
		die "$TREE has commits that are not in patches/$SERIES_BASE yet. Run 'make refresh SERIES_BASE=$SERIES_BASE' to keep them, or 'make tree FORCE=1' to drop them"
	fi
	if [ -n "$(tgit status --porcelain)" ]; then
		# head may close the pipe on git: that is no failure
		{ tgit status --short || true; } | head -n 20 >&2
		die "$TREE has uncommitted edits. Commit them and run 'make refresh SERIES_BASE=$SERIES_BASE', or discard them with 'git -C $TREE checkout -f .'"
	fi
	head=$(build_series)
	tgit checkout -q -f -B series "$head"
	echo "$hash $head" >"$STAMP"
	log "tree ready: $TREE ($(tgit rev-list --count base..series) patches on base)"
}

main "$@"
