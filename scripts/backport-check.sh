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
# 6.12 commit message; apart from that note the messages must match; a
# 6.12 patch with no mainline counterpart must say "6.12 only" in its
# note. Prints KTAP: one case per 6.12 patch.

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
    if line.startswith("[ 6.12"):
        innote = True
    (note if innote else msg).append(line)
    if innote and line.rstrip().endswith("]"):
        innote = False
diff = diff[diff.find("diff --git"):] if "diff --git" in diff else ""
diff = "\n".join(l for l in diff.split("\n") if not l.startswith("index "))
diff = re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@.*$", "@@", diff, flags=re.M)
open(f"{out}/subject", "w").write(subject + "\n")
msg = re.sub(r"\n{3,}", "\n\n", "\n".join(msg).strip("\n"))
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

main() {
	local pairs n=0 line num subject back main_c state slug differs
	rm -rf "$WORK"
	mkdir -p "$WORK"
	git -C "$WORK" init -q
	git -C "$WORK" config user.name "backport check"
	git -C "$WORK" config user.email "nfs-rdma@example.org"
	commit_series "$MAIN_DIR" mainline
	commit_series "$BACK_DIR" backport
	# --no-dual-color: plain "-"/"+" lines for the differences
	git -C "$WORK" range-diff --no-color --creation-factor=100 \
		mainline~"$(lines "$MAIN_DIR" | wc -l)"..mainline \
		backport~"$(lines "$BACK_DIR" | wc -l)"..backport >"$WORK/range-diff"
	# Each pair's header: "N: sha ! M: sha subject" (! differs, =
	# same), "-: ---- > M: sha subject" (6.12 only), "N: sha < -:
	# ----" (missing from 6.12)
	pairs=$(grep -E '^ *([0-9]+|-): +[0-9a-f-]+ [=!<>] +([0-9]+|-): ' "$WORK/range-diff")
	ktap_plan "$(grep -c -E '[=!>] +[0-9]+: ' <<<"$pairs")"
	while IFS= read -r line; do
		read -r _ main_c state num _ subject <<<"$line"
		num=${num%:}
		[ "$state" = "<" ] && {
			echo "# mainline patch missing from the 6.12 series: $line"
			continue
		}
		n=$((n + 1))
		back=$(git -C "$WORK" rev-parse "backport~$(( $(lines "$BACK_DIR" | wc -l) - num ))")
		if [ "$state" = ">" ]; then
			slug=$(git -C "$WORK" diff-tree --no-commit-id --name-only "$back" | head -n 1)
			if git -C "$WORK" show "$back:$slug/note" | grep -q "6.12 only"; then
				ktap_ok "6.12 patch $num ($subject)" "6.12 only, and its note says so"
			else
				ktap_not_ok "6.12 patch $num ($subject)" "no mainline counterpart, and no '[ 6.12 only: ... ]' note"
			fi
			continue
		fi
		# The pair's part of the range-diff, shown when it fails: the
		# lines after its header up to the next header
		awk -v h="$line" '$0 == h { p = 1; next } p && /^ *([0-9]+|-): +[0-9a-f-]+ [=!<>] / { exit } p' \
			"$WORK/range-diff" >"$WORK/pair"
		# What differs: the paired commits' own directories compared
		# file by file (the note only exists on the 6.12 side)
		slug=$(git -C "$WORK" diff-tree --no-commit-id --name-only "$back" | head -n 1)
		main_c=$(git -C "$WORK" rev-parse "$main_c")
		differs=$(git -C "$WORK" diff --name-only "$main_c:$slug" "$back:$slug" | grep -v -x -e note -e subject || true)
		if grep -q -x message <<<"$differs"; then
			sed -n '1,40s/^/# /p' "$WORK/pair"
			ktap_not_ok "6.12 patch $num ($subject)" "its commit message differs from mainline's beyond the [ 6.12: ] note"
		elif [ -z "$differs" ]; then
			ktap_ok "6.12 patch $num ($subject)" "the same as mainline's${state:+}"
		elif git -C "$WORK" show "$back:$slug/note" | grep -q '^\[ 6\.12'; then
			ktap_ok "6.12 patch $num ($subject)" "differs from mainline's in $(tr '\n' ' ' <<<"$differs")as its note says"
		else
			sed -n '1,40s/^/# /p' "$WORK/pair"
			ktap_not_ok "6.12 patch $num ($subject)" "differs from mainline's in $(tr '\n' ' ' <<<"$differs")with no [ 6.12: ... ] note"
		fi
	done <<<"$pairs"
	ktap_finish "backport check"
}

main "$@"
