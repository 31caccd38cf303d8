#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the $SERIES_BASE series as git format-patch mail, one directory
# per posting (the series file's "#posting NAME" lines) with its own
# cover letter (cover-NAME), to $OUT/patchset/$SERIES_BASE, then prove
# it: checkpatch --strict is clean, git am applies the postings in order
# to a pristine base and yields our tree, and after every
# patch net/sunrpc/xprtrdma builds with no sparse or W=1 warning the
# base does not have, the kernel-doc of the files the patch adds is
# clean and that of the files it changes gains no warning, and the
# documents it adds or changes parse with docutils. The checks print
# KTAP: one test for git am, one for the pristine base's build, and one
# per patch (checkpatch, build, warnings, kernel-doc, rst), whose
# "not ok" line names the patch and the first problem; every patch is
# checked even when an earlier one failed.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kbuild.sh"
load_base

DEST=$OUT/patchset/$SERIES_BASE
# The author and Signed-off-by of every commit until someone posts it
PLACEHOLDER='NFS/RDMA developers <nfs-rdma@example.org>'
# make patchset SIGNOFF="Name <address>" puts a real one in the mails
SIGNOFF=${SIGNOFF:-}
AMTREE=$BUILD/patchset-check-$SERIES_BASE
# New files are covered by the existing net/sunrpc/ and
# include/linux/sunrpc/ MAINTAINERS entries; see the cover letters.
# The trees are Debian's linux-source, a git repository without
# upstream history, so checkpatch knows no upstream commit id: a
# Fixes: tag would always draw UNKNOWN_COMMIT_ID here.
CHECKPATCH_IGNORE=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
# A backport says which stable series it is for
SUBJECT_PREFIX=PATCH
[ "$SERIES_BASE" = mainline ] || SUBJECT_PREFIX="PATCH $SERIES_BASE"

# sign_off MAIL...: put $SIGNOFF for the placeholder in the From: header
# (quoted or RFC 2047 encoded as the name needs) and the Signed-off-by
sign_off() {
	python3 - "$PLACEHOLDER" "$SIGNOFF" "$@" <<'PY'
import email.utils
import re
import sys

placeholder, signoff, *paths = sys.argv[1:]
name, addr = email.utils.parseaddr(signoff)
if not name or not re.fullmatch(r"[^@\s<>]+@[^@\s<>]+", addr):
    sys.exit(1)
header = email.utils.formataddr((name, addr), charset="utf-8")
trailer = f"{name} <{addr}>"
for path in paths:
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line == f"From: {placeholder}":
            lines[i] = f"From: {header}"
        elif line == f"Signed-off-by: {placeholder}":
            lines[i] = f"Signed-off-by: {trailer}"
    open(path, "w", encoding="utf-8").write("\n".join(lines))
PY
}

# postings: one line "NAME COUNT" per posting of the series, in order,
# from its "#posting NAME" lines
postings() {
	awk '/^#posting[ \t]/ { if (n) print name, c; name = $2; c = 0; n = 1; next }
	     { sub(/#.*/, "") } NF && n { c++ } END { if (n) print name, c }' "$SERIES"
}

# export_posting K NAME FIRST LAST: mail the commits FIRST..LAST (git
# revisions) with $SERIES_DIR/cover-NAME as cover letter into
# $DEST/K-NAME/. The cover's first line is the subject, then To: and
# Cc: lines for the mail headers, then the text.
export_posting() {
	local k=$1 name=$2 first=$3 last=$4 cover dir to cc
	cover=$SERIES_DIR/cover-$name
	[ -f "$cover" ] || die "$SERIES: posting '$name' has no $cover"
	dir=$DEST/$k-$name
	to=$(sed -n '2,/^$/s/^To: //p' "$cover")
	cc=$(sed -n '2,/^$/s/^Cc: //p' "$cover")
	tgit format-patch -q --cover-letter --no-signature --zero-commit \
		--subject-prefix="$SUBJECT_PREFIX" ${to:+--to="$to"} ${cc:+--cc="$cc"} \
		-o "$dir" "$first^..$last"
	python3 - "$dir/0000-cover-letter.patch" "$cover" "$k" \
		"$(pkg_upstream "$BASE_VERSION")" "$BASE_TITLE" <<'PY'
import sys
path, cover_file, k, version, title = sys.argv[1:]
lines = open(cover_file).read().split("\n")
subject, rest = lines[0], lines[1:]
while rest and (rest[0].startswith("To: ") or rest[0].startswith("Cc: ")):
    rest = rest[1:]
blurb = "\n".join(rest).strip("\n")
# The base, as a maintainer needs it to apply the posting: the Debian
# source package is no git commit, so name its version
base = (f"It applies to Linux {version}, as shipped in {title} (the same"
        " tree with Debian's patches applied), with git am")
if k != "1":
    base += ", on top of the postings this letter names"
blurb += f"\n\n{base}."
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject)
text = text.replace("*** BLURB HERE ***", blurb)
open(path, "w").write(text)
PY
}

export_series() {
	local commits name count k=0 i=0 p
	rm -rf "$DEST"
	mapfile -t commits < <(tgit rev-list --reverse base..HEAD)
	[ -n "$(postings)" ] || die "$SERIES has no '#posting NAME' line"
	# The postings are counted in series lines: the tree must hold those
	# patches, in that order, for them to name the right commits
	i=0
	while read -r p _; do
		[ "$(tgit log -1 --format=%s "${commits[$i]}" 2>/dev/null)" = \
			"$(tgit mailinfo /dev/null /dev/null <"$SERIES_DIR/$p" | sed -n 's/^Subject: //p')" ] ||
			die "$TREE: commit $((i + 1)) is not $p; run 'make tree' (or 'make refresh') first"
		i=$((i + 1))
	done < <(series_lines)
	[ "$i" = "${#commits[@]}" ] ||
		die "$SERIES lists $i patches, $TREE has ${#commits[@]}"
	i=0
	while read -r name count; do
		k=$((k + 1))
		[ "$count" -gt 0 ] || die "$SERIES: posting '$name' is empty"
		[ "$count" -le 15 ] || [ "$SERIES_BASE" != mainline ] ||
			die "$SERIES: posting '$name' has $count patches; a posting is at most 15"
		export_posting "$k" "$name" "${commits[$i]}" "${commits[$((i + count - 1))]}"
		i=$((i + count))
	done < <(postings)
	[ "$i" = "${#commits[@]}" ] ||
		die "$SERIES: the postings hold $i patches, the tree has ${#commits[@]}"
	if [ -n "$SIGNOFF" ]; then
		sign_off "$DEST"/*/*.patch ||
			die "SIGNOFF='$SIGNOFF': use SIGNOFF=\"Full Name <address>\""
		! grep -l "$PLACEHOLDER" "$DEST"/*/*.patch ||
			die "SIGNOFF: the placeholder is still in the files above"
		echo "# patchset: author and Signed-off-by set to $SIGNOFF"
	else
		echo "# patchset: author and Signed-off-by are the placeholder '$PLACEHOLDER';" \
			"make patchset SIGNOFF=\"Name <address>\" puts yours in"
	fi
	PATCHES=()
	for p in "$DEST"/*/[0-9][0-9][0-9][0-9]-*.patch; do
		case "$p" in */0000-cover-letter.patch) ;; *) PATCHES+=("$p") ;; esac
	done
	echo "# patchset: $k postings, ${#PATCHES[@]} patches in $DEST"
}

# Trace events are laid out as every event in include/trace/events/
# is: each section opens on a line of its own, one item per line, two
# tabs in. checkpatch --strict's CHECKs against a line ending in "(" and
# against arguments not aligned with the parenthesis fire on that layout
# alone, so in include/trace/events/ those two, and only they, are
# waived, and counted.
WAIVED_TYPES='OPEN_ENDED_LINE|PARENTHESIS_ALIGNMENT'
WAIVED_FILES='include/trace/events/'

# checkpatch_of PATCH: checkpatch --strict's complaints about one mail
# (nothing when it is clean), less the waived ones; WAIVED: how many
checkpatch_of() {
	local out
	# checkpatch runs scripts/spdxcheck.py with "python3", which needs
	# Debian's python3-ply and python3-git: prefer /usr/bin
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --quiet \
		--no-summary --show-types --ignore "$CHECKPATCH_IGNORE" "$1" 2>&1) || true
	WAIVED=$(printf '%s\n' "$out" | awk -v t="$WAIVED_TYPES" -v f="$WAIVED_FILES" '
		BEGIN { RS = "" } $0 ~ "^CHECK:(" t "):" && index($0, "FILE: " f) { n++ } END { print n + 0 }')
	printf '%s\n' "$out" | awk -v t="$WAIVED_TYPES" -v f="$WAIVED_FILES" '
		BEGIN { RS = ""; ORS = "\n\n" } !($0 ~ "^CHECK:(" t "):" && index($0, "FILE: " f))'
}

# One KTAP test: git am applies the mails to a pristine base and yields
# the tree. Without it no patch can be checked: the rest bail out.
apply_to_pristine() {
	if [ ! -d "$AMTREE" ] || ! git -C "$AMTREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$AMTREE"
		tgit worktree prune
		tgit worktree add -q --detach "$AMTREE" base
	fi
	git -C "$AMTREE" am --abort >/dev/null 2>&1 || true
	git -C "$AMTREE" checkout -q -f --detach base
	git -C "$AMTREE" clean -q -f -d -x
	if ! git -C "$AMTREE" am -q "${PATCHES[@]}" >"$AMTREE.log" 2>&1; then
		sed 's/^/# /' "$AMTREE.log"
		ktap_test_fail "git am" "the series does not apply to pristine $BASE_VERSION"
		return 1
	fi
	if [ "$(git -C "$AMTREE" rev-parse 'HEAD^{tree}')" != "$(tgit rev-parse 'HEAD^{tree}')" ]; then
		ktap_test_fail "git am" "the series applied to pristine $BASE_VERSION does not reproduce $TREE"
		return 1
	fi
	ktap_test_pass "git am" "the series applies to pristine $BASE_VERSION and reproduces the tree"
}

# check_patch N COMMIT MAIL BASE-WARNINGS: one KTAP test for one patch
check_patch() {
	local n=$1 c=$2 mail=$3 base=$4 what new waived=
	what="patch $n ($(tgit log -1 --format=%s "$c"))"
	checkpatch_of "$mail" >"$BUILD/checkpatch.out"
	new=$(cat "$BUILD/checkpatch.out")
	if [ -n "$new" ]; then
		printf '%s\n' "$new" | sed 's/^/# /'
		ktap_test_fail "$what" "checkpatch --strict is not clean"
		return
	fi
	if ! new=$(build_warnings "$c" "$BUILD/patchset-build-$SERIES_BASE" 2>&1); then
		printf '%s\n' "$new" | tail -n 30 | sed 's/^/# /'
		ktap_test_fail "$what" "net/sunrpc/xprtrdma does not build"
		return
	fi
	new=$(comm -13 <(printf '%s\n' "$base") <(printf '%s\n' "$new") | sed '/^$/d')
	if [ -n "$new" ]; then
		printf '%s\n' "$new" | sed 's/^/# /'
		ktap_test_fail "$what" "new sparse or W=1 warnings"
		return
	fi
	if ! new=$(doc_problems "$c^" "$c"); then
		ktap_test_fail "$what" "the kernel-doc and rst checks could not run"
		return
	fi
	if [ -n "$new" ]; then
		printf '%s\n' "$new" | sed 's/^/# /'
		ktap_test_fail "$what" "kernel-doc or rst problems"
		return
	fi
	[ "$WAIVED" = 0 ] || waived=" ($WAIVED trace-event layout checks waived)"
	ktap_test_pass "$what" "checkpatch --strict clean$waived, builds, no new sparse, W=1 or kernel-doc warning, rst clean"
}

check_series() {
	local c n=0 base commits
	ktap_set_plan $((2 + ${#PATCHES[@]}))
	if ! apply_to_pristine; then
		echo "Bail out! the patches cannot be checked one by one"
		return 1
	fi
	# The pristine base, from scratch: the warnings every patch may keep
	rm -rf "$BUILD/patchset-build-$SERIES_BASE"
	if ! base=$(build_warnings base "$BUILD/patchset-build-$SERIES_BASE" 2>&1); then
		printf '%s\n' "$base" | tail -n 30 | sed 's/^/# /'
		ktap_test_fail "base build" "the pristine base does not build"
		echo "Bail out! the patches cannot be checked one by one"
		return 1
	fi
	ktap_test_pass "base build" "the pristine base builds; its warnings are every patch's allowance"
	mapfile -t commits < <(git -C "$AMTREE" rev-list --reverse base..HEAD)
	for c in "${commits[@]}"; do
		check_patch "$((n + 1))" "$c" "${PATCHES[$n]}" "$base"
		n=$((n + 1))
	done
	# The checkout and the build take about 2 GiB: make check runs
	# with both series' at once, beside the fresh root's
	[ -n "${PATCHSET_KEEP:-}" ] || {
		tgit worktree remove --force "$AMTREE" 2>/dev/null || rm -rf "$AMTREE"
		rm -rf "$BUILD/patchset-build-$SERIES_BASE"
	}
	ktap_finished "patchset $SERIES_BASE"
}

main() {
	export_series
	[ "${1:-}" = --export-only ] && return
	check_series
}

main "$@"
