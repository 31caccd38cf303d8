#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The backport check: every difference between the 6.12 series and the
# mainline series must be named. Both series are turned into commits of
# one scratch repository, each commit holding one patch as it would be
# mailed: the edits to upstream files, and the new files it adds (in
# mainline form on the mainline side, with the backport's adjustment on
# the 6.12 side). git range-diff then pairs the commits by what they
# change and shows, per pair, how the 6.12 patch differs. A pair that
# differs in its code must say how in a "[ 6.12: ... ]" note of the
# 6.12 commit message; apart from that note, the "[ Upstream commit:
# ... ]" line of a stable backport and the "Stable: " paragraphs of a
# mainline fix (what we ask of stable, which the mails carry below the
# cut) the messages must match; a
# 6.12 patch with no mainline counterpart must say "6.12 only" in its
# note, and every mainline patch must be in the 6.12 series, unless the
# 6.12 series file names it in a line "#mainline-only SUBJECT -- WHY".
# Prints KTAP: one case per 6.12 patch and one per mainline patch
# missing.

. "$(dirname "$0")/lib.sh"

WORK=${BACKPORT_WORK:-$BUILD/backport-check}
MAIN_DIR=$TOP/patches/mainline
BACK_DIR=$TOP/patches/6.12

# lines PATCH-DIR: "PATCH NEWFILE..." per series line, new files as
# repository paths (a =TREEPATH suffix names where the file goes)
lines() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/series"; }

# commit_series DIR BRANCH: one commit per patch on a root commit. A
# commit adds one directory, named after the patch's subject, holding
# "message" (the commit message without the note lines of a backport),
# "note" (the note, if any), "diff" (the patch's edits to upstream
# files, index lines and hunk headers dropped, since the two bases
# differ there) and under new/ every new file it adds as the
# repository has it. Earlier commits' directories stay, so that each
# commit's diff is its own patch and nothing of its parent.
commit_series() {
	local dir=$1 branch=$2 patch entry src slug
	git -C "$WORK" checkout -q --orphan "$branch"
	git -C "$WORK" rm -q -r -f --ignore-unmatch . >/dev/null
	git -C "$WORK" commit -q --allow-empty -m "$branch base"
	while read -r patch entry; do
		rm -rf "${WORK:?}"/files && mkdir -p "$WORK/files"
		slug=$(sed -n 's/^Subject: \(\[[^]]*\] \)\{0,1\}//p' "$dir/$patch" | head -n 1 |
			tr -c 'A-Za-z0-9\n' '-')
		python3 - "$dir/$patch" "$WORK/files" <<'PY'
import re, sys
path, out = sys.argv[1:]
text = open(path, encoding="utf-8").read()
head, _, rest = text.partition("\n\n")
subject = re.search(r"^Subject: (?:\[[^\]]*\] )?(.*(?:\n .*)*)", head, re.M)
subject = " ".join(subject.group(1).split()) if subject else "?"
body, _, diff = rest.partition("\n---\n")
note, msg, innote = [], [], False
for line in body.split("\n"):
    if line.startswith("[ 6.12") or line.startswith("[ Upstream commit"):
        innote = True
    (note if innote else msg).append(line)
    if innote and line.rstrip().endswith("]"):
        innote = False
diff = diff[diff.find("diff --git"):] if "diff --git" in diff else ""
diff = "\n".join(l for l in diff.split("\n") if not l.startswith("index "))
diff = re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@.*$", "@@", diff, flags=re.M)
open(f"{out}/subject", "w").write(subject + "\n")
msg = "\n\n".join(p for p in "\n".join(msg).split("\n\n")
                  if not p.startswith("Stable: "))
msg = re.sub(r"\n{3,}", "\n\n", msg.strip("\n"))
open(f"{out}/message", "w").write(msg + "\n")
open(f"{out}/note", "w").write("\n".join(note).strip("\n") + "\n" if note else "")
open(f"{out}/diff", "w").write(diff)
PY
		for src in $entry; do
			src=${src%%=*}
			mkdir -p "$WORK/files/new/$(dirname "$src")"
			cp "$TOP/$src" "$WORK/files/new/$src"
		done
		mkdir -p "$WORK/$slug"
		cp -r "$WORK/files/." "$WORK/$slug/"
		rm -rf "${WORK:?}"/files
		git -C "$WORK" add -A "$slug"
		git -C "$WORK" commit -q --allow-empty -F "$WORK/$slug/subject"
	done < <(lines "$dir")
}

# slug_of BRANCH N: the directory of commit N (1-based) of BRANCH's series
slug_of() {
	git -C "$WORK" diff-tree --no-commit-id --name-only "$1~$(($2 - 1))" | head -n 1
}

main() {
	local nmain nback missing=() i num slug subject main_c back differs why
	rm -rf "$WORK"
	mkdir -p "$WORK"
	git -C "$WORK" init -q
	git -C "$WORK" config user.name "backport check"
	git -C "$WORK" config user.email "nfs-rdma@example.org"
	commit_series "$MAIN_DIR" mainline
	commit_series "$BACK_DIR" backport
	nmain=$(lines "$MAIN_DIR" | wc -l)
	nback=$(lines "$BACK_DIR" | wc -l)
	# A patch is paired with the patch of the other series that has its
	# subject, as git range-diff pairs the two ranges below (its output
	# is what a failing case shows)
	git -C "$WORK" range-diff --no-color \
		mainline~"$nmain"..mainline backport~"$nback"..backport >"$WORK/range-diff"
	for ((i = nmain; i >= 1; i--)); do
		slug=$(slug_of mainline "$i")
		git -C "$WORK" cat-file -e "backport:$slug/subject" 2>/dev/null ||
			missing+=("$(git -C "$WORK" show "mainline:$slug/subject")")
	done
	ktap_set_plan $((nback + ${#missing[@]}))
	for ((num = 1; num <= nback; num++)); do
		back=$(git -C "$WORK" rev-parse "backport~$((nback - num))")
		slug=$(git -C "$WORK" diff-tree --no-commit-id --name-only "$back" | head -n 1)
		subject=$(git -C "$WORK" show "$back:$slug/subject")
		if ! git -C "$WORK" cat-file -e "mainline:$slug/subject" 2>/dev/null; then
			if git -C "$WORK" show "$back:$slug/note" | grep -q "6.12 only"; then
				ktap_test_pass "6.12 patch $num ($subject)" "6.12 only, and its note says so"
			else
				ktap_test_fail "6.12 patch $num ($subject)" "no mainline patch has its subject, and its note does not say '6.12 only'"
			fi
			continue
		fi
		main_c=$(git -C "$WORK" log -n 1 --format=%H mainline -- "$slug/subject")
		# The pair's part of the range-diff, shown when it fails
		awk -v s="$subject" '
			/^ *([0-9]+|-): +[0-9a-f-]+ [=!<>] / { p = (substr($0, length($0) - length(s) + 1) == s); if (p) print; next }
			p' "$WORK/range-diff" >"$WORK/pair"
		# What differs: the two patches' directories compared file by
		# file (the note only exists on the 6.12 side)
		differs=$(git -C "$WORK" diff --name-only "$main_c:$slug" "$back:$slug" |
			grep -v -x -e note -e subject) || true
		if grep -q -x message <<<"$differs"; then
			sed -n '1,40s/^/# /p' "$WORK/pair"
			ktap_test_fail "6.12 patch $num ($subject)" "its commit message differs from mainline's beyond the [ 6.12: ] note"
		elif [ -z "$differs" ]; then
			ktap_test_pass "6.12 patch $num ($subject)" "the same as mainline's"
		elif git -C "$WORK" show "$back:$slug/note" | grep -q '^\[ 6\.12'; then
			ktap_test_pass "6.12 patch $num ($subject)" "differs from mainline's in $(tr '\n' ' ' <<<"$differs")as its note says"
		else
			sed -n '1,40s/^/# /p' "$WORK/pair"
			ktap_test_fail "6.12 patch $num ($subject)" "differs from mainline's in $(tr '\n' ' ' <<<"$differs")with no [ 6.12: ... ] note"
		fi
	done
	for subject in "${missing[@]}"; do
		why=$(sed -n "s/^#mainline-only $(sed 's/[][\\.*^$/]/\\&/g' <<<"$subject") -- //p" \
			"$BACK_DIR/series")
		if [ -n "$why" ]; then
			ktap_test_pass "mainline patch ($subject)" "not in 6.12: $why"
		else
			ktap_test_fail "mainline patch ($subject)" "missing from the 6.12 series"
		fi
	done
	ktap_finished "backport check"
}

main "$@"
