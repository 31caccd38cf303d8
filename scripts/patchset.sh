#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the $SERIES_BASE series as git format-patch mail, one directory
# per posting (the series file's "#posting NAME" lines) with its own
# cover letter (cover-NAME), to $OUT/patchset/$SERIES_BASE, then prove
# it. The mails carry the sender: git's user.name and user.email of
# this repository take the place of the placeholder author and
# Signed-off-by of our commits (a commit by someone else keeps its
# author and sign-offs, and gains the sender's). Without a sender the
# export stops, unless asked for a dry run (--dry-run), which keeps
# the placeholder; make check runs the dry run. Each posting goes to
# the people and lists get_maintainer.pl names for its patches.
#
# The checks print KTAP. Each posting applies, with git am, to the
# pristine base plus exactly the postings its cover letter names on its
# "After:" line, and after every patch of it checkpatch --strict is
# clean, net/sunrpc/xprtrdma builds with no sparse or W=1 warning the
# base does not have, the kernel-doc of the files the patch adds is
# clean and that of the files it changes gains no warning, and the
# documents it adds or changes parse with docutils: one test for each
# posting's git am and one per patch, whose "not ok" line names the
# patch and the first problem. Two more: all postings in order
# reproduce our tree, and the base builds. A last one proves the
# dependency check can fail: the posting whose cover names the most
# predecessors, applied without the last of them, must be refused.
#
# PATCHSET_AFTER="NAME=OTHER..." replaces a cover's After: line for one
# run, to try a posting on other predecessors.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kbuild.sh"
. "$(dirname "$0")/lib-apt.sh"
load_base

DEST=$OUT/patchset/$SERIES_BASE
# The author and Signed-off-by of our commits until the sender's
# identity replaces it in the mails
PLACEHOLDER='NFS/RDMA developers <nfs-rdma@example.org>'
DRY_RUN=
AMTREE=$BUILD/patchset-check-$SERIES_BASE
# New files are covered by the existing net/sunrpc/ and
# include/linux/sunrpc/ MAINTAINERS entries; see the cover letters.
# The trees are Debian's linux-source, a git repository without
# upstream history, so checkpatch knows no upstream commit id: a
# Fixes: tag would always draw UNKNOWN_COMMIT_ID here.
CHECKPATCH_IGNORE=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
# A backport says which stable series it is for; a cover's Prefix:
# line can say more (the 6.12 DKMS backport)
SUBJECT_PREFIX=PATCH
[ "$SERIES_BASE" = mainline ] || SUBJECT_PREFIX="PATCH $SERIES_BASE"
# The upstream release the series is based on, as a maintainer names it
UPSTREAM_TAG=v$(pkg_upstream "$BASE_VERSION")

# sender: "Name <address>" from git's user.name and user.email of this
# repository, or nothing when either is unset, malformed or the
# placeholder
sender() {
	local name email
	name=$(git -C "$TOP" config user.name 2>/dev/null) || return 0
	email=$(git -C "$TOP" config user.email 2>/dev/null) || return 0
	[[ "$email" =~ ^[^@[:space:]\<\>]+@[^@[:space:]\<\>]+$ ]] || return 0
	[ "$name <$email>" != "$PLACEHOLDER" ] || return 0
	printf '%s <%s>\n' "$name" "$email"
}

# sign_off SENDER MAIL...: put SENDER for the placeholder in the From:
# header (quoted or RFC 2047 encoded as the name needs) and in the
# Signed-off-by; a mail whose author is someone else keeps the author
# and the sign-offs, and the sender's is added after them
sign_off() {
	python3 - "$PLACEHOLDER" "$@" <<'PY'
import email.utils
import re
import sys

placeholder, sender, *paths = sys.argv[1:]
name, addr = email.utils.parseaddr(sender)
header = email.utils.formataddr((name, addr), charset="utf-8")
trailer = f"{name} <{addr}>"
for path in paths:
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line == f"From: {placeholder}":
            lines[i] = f"From: {header}"
        elif line == f"Signed-off-by: {placeholder}":
            lines[i] = f"Signed-off-by: {trailer}"
        elif re.fullmatch(re.escape(placeholder.split(" <")[0]) + r" \(\d+\):", line):
            # a cover letter's shortlog
            lines[i] = name + line[len(placeholder.split(" <")[0]):]
    open(path, "w", encoding="utf-8").write("\n".join(lines))
PY
}

# below_the_cut MAIL...: move each paragraph of a commit message that
# starts with "Stable: " (what we ask of stable, for the maintainers
# who decide it, as the NFSD entry profile wants) below the mail's
# "---", where it is read but not committed
below_the_cut() {
	python3 - "$@" <<'PY'
import sys

for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    cut = text.find("\n---\n")
    if cut < 0:
        continue
    head, tail = text[:cut], text[cut + len("\n---\n"):]
    paras = head.split("\n\n")
    notes = [p for p in paras if p.startswith("Stable: ")]
    if not notes:
        continue
    head = "\n\n".join(p for p in paras if not p.startswith("Stable: "))
    text = head + "\n---\n" + "\n\n".join(notes) + "\n\n" + tail
    open(path, "w", encoding="utf-8").write(text)
PY
}

# postings: one line "NAME COUNT" per posting of the series, in order,
# from its "#posting NAME" lines
postings() {
	awk '/^#posting[ \t]/ { if (n) print name, c; name = $2; c = 0; n = 1; next }
	     { sub(/#.*/, "") } NF && n { c++ } END { if (n) print name, c }' "$SERIES"
}

# cover_header NAME FIELD: the value of a header line ("FIELD: value",
# after the subject and before the first blank line) of cover-NAME
cover_header() {
	sed -n "2,/^\$/s/^$2: //p" "$SERIES_DIR/cover-$1"
}

# after NAME: the postings NAME goes on top of, from its cover's After:
# line or PATCHSET_AFTER
after() {
	local o
	for o in ${PATCHSET_AFTER:-}; do
		[ "${o%%=*}" != "$1" ] || { printf '%s\n' "${o#*=}" | tr ',' ' '; return; }
	done
	cover_header "$1" After
}

# recipients FIRST LAST: "TO<TAB>CC" for the commits FIRST..LAST, as
# b4 picks them: get_maintainer.pl's maintainers and reviewers go in
# To:, its lists in Cc:. Read from mainline's MAINTAINERS, which has
# today's addresses, for a backport too (from its own without a
# mainline tree). Less the NETWORKING [GENERAL] entry, which names
# everything under net/: sunrpc goes through the NFS trees, and the
# NFSD entry profile addresses nfsd patches to NFSD's maintainers and
# reviewers with linux-nfs, not to netdev, whose patchwork would take
# them up.
recipients() {
	local mbox gm to cc where=$TREE
	# shellcheck source=/dev/null
	[ "$SERIES_BASE" = mainline ] || [ ! -r "$MAINLINE_ENV" ] ||
		where=$(. "$MAINLINE_ENV" && echo "$MAINLINE_TREE")
	[ -f "$where/MAINTAINERS" ] || where=$TREE
	mbox=$(mktemp)
	tgit format-patch -q --stdout "$1^..$2" >"$mbox"
	gm=(perl scripts/get_maintainer.pl --nogit --nogit-fallback
	    --nogit-chief-penguins --rolestats)
	# (it asks git about Fixes: ids our trees do not have: quiet)
	to=$(cd "$where" && "${gm[@]}" --nol "$mbox" 2>/dev/null) ||
		die "get_maintainer.pl failed on $1..$2"
	cc=$(cd "$where" && "${gm[@]}" --nom --nor "$mbox" 2>/dev/null) ||
		die "get_maintainer.pl failed on $1..$2"
	rm -f "$mbox"
	printf '%s\t%s\n' "$(printf '%s\n' "$to" | not_netdev)" \
		"$(printf '%s\n' "$cc" | not_netdev)"
}

# not_netdev: get_maintainer.pl's lines with roles on stdin, one
# comma-separated line out, without the roles and the NETWORKING
# [GENERAL] entry's people and list
not_netdev() {
	grep -v 'NETWORKING \[GENERAL\]' | sed 's/ (.*)$//' | paste -s -d, | sed 's/,/, /g' || true
}

# export_posting K NAME FIRST LAST PREREQ...: mail the commits
# FIRST..LAST (git revisions) with $SERIES_DIR/cover-NAME as cover
# letter into $DEST/K-NAME/. The cover's first line is the subject,
# then header lines: To: and Cc: (recipients beyond get_maintainer.pl's),
# After: (the postings this one goes on top of) and Prefix: (the
# subject prefix, if not the series'), then the text. PREREQ...: the
# commits of the postings named on After:, whose patch ids the cover
# letter lists after the base, as git format-patch --base does.
export_posting() {
	local k=$1 name=$2 first=$3 last=$4 cover dir to cc prefix rcpt a subjects=() ids
	shift 4
	cover=$SERIES_DIR/cover-$name
	[ -f "$cover" ] || die "$SERIES: posting '$name' has no $cover"
	dir=$DEST/$k-$name
	rcpt=$(recipients "$first" "$last")
	to=$(printf '%s\n%s\n' "$(cover_header "$name" To)" "${rcpt%%$'\t'*}" | addresses)
	cc=$(printf '%s\n%s\n' "${rcpt#*$'\t'}" "$(cover_header "$name" Cc)" | addresses "$to")
	prefix=$(cover_header "$name" Prefix)
	for a in $(after "$name"); do
		[ -f "$SERIES_DIR/cover-$a" ] || die "cover-$name: After: names '$a', which is no posting"
		subjects+=("\"$(head -n 1 "$SERIES_DIR/cover-$a")\" ($a)")
	done
	ids=$(for c in "$@"; do tgit show "$c" | git patch-id --stable | cut -d' ' -f1; done)
	tgit format-patch -q --cover-letter --no-signature --zero-commit \
		--subject-prefix="${prefix:-$SUBJECT_PREFIX}" ${to:+--to="$to"} ${cc:+--cc="$cc"} \
		-o "$dir" "$first^..$last"
	python3 - "$dir/0000-cover-letter.patch" "$cover" "$UPSTREAM_TAG" "$BASE_TITLE" \
		"$ids" "${subjects[@]}" <<'PY'
import sys
import textwrap
path, cover_file, tag, title, ids, *after = sys.argv[1:]
lines = open(cover_file).read().split("\n")
subject, rest = lines[0], lines[1:]
while rest and rest[0].split(":")[0] in ("To", "Cc", "After", "Prefix"):
    rest = rest[1:]
blurb = "\n".join(rest).strip("\n")
base = f"Based on Linux {tag}"
if after:
    base += ", after " + ("the posting " if len(after) == 1 else "the postings ")
    base += ", ".join(after[:-1]) + (" and " if len(after) > 1 else "") + after[-1]
base += (f". Checked there patch by patch on {title}, which is {tag}"
         " with Debian's patches applied.")
blurb += "\n\n" + textwrap.fill(base, 72, break_on_hyphens=False)
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject)
text = text.replace("*** BLURB HERE ***", blurb)
# Where git format-patch --base would put them: the base and the patch
# ids of the postings this one needs
trailer = f"base-commit: {tag}\n" + "".join(
    f"prerequisite-patch-id: {i}\n" for i in ids.split())
text = text.rstrip("\n") + "\n\n" + trailer
open(path, "w").write(text)
PY
}

# addresses [EXCLUDE]: the addresses on stdin (comma-separated, on any
# number of lines) as one comma-separated line, each once, less those
# in EXCLUDE
addresses() {
	python3 -c '
import email.utils, sys
seen = {a.lower() for _, a in email.utils.getaddresses([sys.argv[1]])}
out = []
for name, addr in email.utils.getaddresses(sys.stdin.read().splitlines()):
    if addr and addr.lower() not in seen:
        seen.add(addr.lower())
        out.append(email.utils.formataddr((name, addr)))
print(", ".join(out))' "${1:-}"
}

# The postings, filled in by export_series: name, index of the first
# commit in COMMITS, number of commits, mail files
P_NAME=()
P_FIRST=()
P_COUNT=()

# posting_index NAME: K (from 0) of posting NAME
posting_index() {
	local k
	for k in "${!P_NAME[@]}"; do
		[ "${P_NAME[$k]}" != "$1" ] || { echo "$k"; return; }
	done
	die "no posting '$1' in $SERIES"
}

# posting_commits K: the commits of posting K, one a line
posting_commits() {
	printf '%s\n' "${COMMITS[@]:${P_FIRST[$1]}:${P_COUNT[$1]}}"
}

# posting_mails K: the mails of posting K, in order
posting_mails() {
	local m
	for m in "$DEST/$(($1 + 1))-${P_NAME[$1]}"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "${m##*/}" = 0000-cover-letter.patch ] || echo "$m"
	done
}

export_series() {
	local name count k=0 i=0 p a me prereq mails
	rm -rf "$DEST"
	mapfile -t COMMITS < <(tgit rev-list --reverse base..HEAD)
	[ -n "$(postings)" ] || die "$SERIES has no '#posting NAME' line"
	# The postings are counted in series lines: the tree must hold those
	# patches, in that order, for them to name the right commits
	i=0
	while read -r p _; do
		[ "$(tgit log -1 --format=%s "${COMMITS[$i]}" 2>/dev/null)" = \
			"$(tgit mailinfo /dev/null /dev/null <"$SERIES_DIR/$p" | sed -n 's/^Subject: //p')" ] ||
			die "$TREE: commit $((i + 1)) is not $p; run 'make tree' (or 'make refresh') first"
		i=$((i + 1))
	done < <(series_lines)
	[ "$i" = "${#COMMITS[@]}" ] ||
		die "$SERIES lists $i patches, $TREE has ${#COMMITS[@]}"
	i=0
	while read -r name count; do
		[ "$count" -gt 0 ] || die "$SERIES: posting '$name' is empty"
		[ "$count" -le 15 ] || [ "$SERIES_BASE" != mainline ] ||
			die "$SERIES: posting '$name' has $count patches; a posting is at most 15"
		for p in "${P_NAME[@]}"; do
			[ "$p" != "$name" ] || die "$SERIES: two postings are named '$name'"
		done
		P_NAME+=("$name")
		P_FIRST+=("$i")
		P_COUNT+=("$count")
		i=$((i + count))
	done < <(postings)
	[ "$i" = "${#COMMITS[@]}" ] ||
		die "$SERIES: the postings hold $i patches, the tree has ${#COMMITS[@]}"
	for k in "${!P_NAME[@]}"; do
		prereq=()
		for a in $(after "${P_NAME[$k]}"); do
			[ "$(posting_index "$a")" -lt "$k" ] ||
				die "cover-${P_NAME[$k]}: After: names '$a', which comes later in $SERIES"
			mapfile -t -O "${#prereq[@]}" prereq < <(posting_commits "$(posting_index "$a")")
		done
		export_posting "$((k + 1))" "${P_NAME[$k]}" "${COMMITS[${P_FIRST[$k]}]}" \
			"${COMMITS[$((P_FIRST[k] + P_COUNT[k] - 1))]}" "${prereq[@]}"
	done
	for k in "${!P_NAME[@]}"; do
		mapfile -t mails < <(posting_mails "$k")
		below_the_cut "${mails[@]}"
	done
	me=$(sender)
	if [ -n "$me" ]; then
		sign_off "$me" "$DEST"/*/*.patch
		! grep -l "$PLACEHOLDER" "$DEST"/*/*.patch ||
			die "the placeholder is still in the files above"
		echo "# patchset: sent by $me (git config user.name, user.email)"
	elif [ -n "$DRY_RUN" ]; then
		echo "# patchset: dry run: no sender (git config user.name and user.email)," \
			"so the mails keep the placeholder '$PLACEHOLDER'"
	else
		rm -rf "$DEST"
		die "no sender: set git config user.name and user.email (the mails carry them as author and Signed-off-by), or run a dry run (DRY_RUN=1)"
	fi
	echo "# patchset: ${#P_NAME[@]} postings, ${#COMMITS[@]} patches in $DEST"
}

# The upstream release's own source, as Debian's source package carries
# it (the .orig tarball, without Debian's patches), kept in $BUILD/orig
ORIG_DIR=$BUILD/orig
ORIG=$ORIG_DIR/linux_$(pkg_upstream "$BASE_VERSION").orig.tar.xz

# fetch_orig: download $ORIG with apt-get source (deb-src of sid, which
# lists every version still in the pool); fails when the archive does
# not serve it
fetch_orig() {
	local apt=$ORIG_DIR/apt
	[ -s "$ORIG" ] && return
	mkdir -p "$ORIG_DIR"
	# (in a subshell: private_apt_setup stops the script when apt fails)
	(PRIVATE_APT_TYPES=deb-src private_apt_setup "$apt" sid "$(apt_suite)") >/dev/null 2>&1 ||
		return 1
	(cd "$ORIG_DIR" && private_apt "$apt" apt-get source -q --download-only --tar-only \
		"linux=$BASE_VERSION" >/dev/null 2>&1) || true
	rm -f "$ORIG_DIR"/linux_*.debian.tar.xz "$ORIG_DIR"/linux_*.dsc
	[ -s "$ORIG" ]
}

# apt_suite: the suite of the base's source package
apt_suite() {
	case $BASE_VERSION in
	*~bpo12*) echo bookworm-backports ;;
	*~bpo13*) echo trixie-backports ;;
	*) echo sid ;;
	esac
}

# One KTAP test: every upstream file the series changes is the same in
# the upstream release (Debian's .orig tarball) as in Debian's tree the
# checks run on, so what applies and builds here applies to upstream.
# Skipped, saying so, when the archive does not serve the tarball.
upstream_files() {
	local tmp files=() f differ=()
	if ! fetch_orig; then
		ktap_test_skip "upstream $UPSTREAM_TAG" \
			"the archive serves no ${ORIG##*/}: the checks name Debian's tree"
		return
	fi
	mapfile -t files < <(tgit diff --name-only --diff-filter=MD base HEAD)
	tmp=$(mktemp -d)
	tar -xJf "$ORIG" -C "$tmp" --strip-components=1 --wildcards \
		"${files[@]/#/*/}" 2>/dev/null || true
	for f in "${files[@]}"; do
		tgit show "base:$f" | cmp -s - "$tmp/$f" || differ+=("$f")
	done
	rm -rf "$tmp"
	if [ "${#differ[@]}" -gt 0 ]; then
		printf '# differs from %s: %s\n' "${ORIG##*/}" "${differ[@]}"
		ktap_test_fail "upstream $UPSTREAM_TAG" \
			"Debian's tree differs from upstream in ${#differ[@]} of the files the series changes"
	else
		ktap_test_pass "upstream $UPSTREAM_TAG" \
			"the ${#files[@]} upstream files the series changes are the same in ${ORIG##*/} as in Debian's tree"
	fi
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

# am_onto_base MAIL...: check out the pristine base in $AMTREE and git am
# the mails onto it; on failure print, as KTAP diagnostics, which mail
# did not apply and why, and fail
am_onto_base() {
	# (called in conditions, where errexit does not hold: each step
	# stops the script itself, so that git am never runs on a stale tree)
	if [ ! -d "$AMTREE" ] || ! git -C "$AMTREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$AMTREE"
		tgit worktree prune || die "git worktree prune failed in $TREE"
		tgit worktree add -q --detach "$AMTREE" base ||
			die "cannot add the worktree $AMTREE"
	fi
	git -C "$AMTREE" am --abort >/dev/null 2>&1 || true
	git -C "$AMTREE" checkout -q -f --detach base ||
		die "cannot check out the base in $AMTREE"
	git -C "$AMTREE" clean -q -f -d -x || die "cannot clean $AMTREE"
	[ "$(git -C "$AMTREE" rev-parse HEAD)" = "$(tgit rev-parse base)" ] ||
		die "$AMTREE is not at the base"
	if ! git -C "$AMTREE" am -q "$@" >"$AMTREE.log" 2>&1; then
		sed -e '/^hint: /d' -e 's/^/# /' "$AMTREE.log"
		git -C "$AMTREE" am --abort >/dev/null 2>&1 || true
		return 1
	fi
}

# One KTAP test: the postings in order reproduce the tree
whole_series() {
	if ! am_onto_base "${MAILS[@]}"; then
		ktap_test_fail "series" "the postings in order do not apply to pristine $BASE_VERSION"
	elif [ "$(git -C "$AMTREE" rev-parse 'HEAD^{tree}')" != "$(tgit rev-parse 'HEAD^{tree}')" ]; then
		ktap_test_fail "series" "the postings applied to pristine $BASE_VERSION do not reproduce $TREE"
	else
		ktap_test_pass "series" "the postings in order apply to pristine $BASE_VERSION and reproduce the tree"
	fi
}

# posting_stack K: the mails of the postings posting K names on After:,
# in series order, then its own
posting_stack() {
	local j a
	for j in "${!P_NAME[@]}"; do
		[ "$j" -lt "$1" ] || break
		for a in $(after "${P_NAME[$1]}"); do
			[ "$a" != "${P_NAME[$j]}" ] || posting_mails "$j"
		done
	done
	posting_mails "$1"
}

# on_what K: "base" or "base + NAME + ..." for posting K
on_what() {
	local a s="pristine $BASE_VERSION"
	for a in $(after "${P_NAME[$1]}"); do s+=" + $a"; done
	echo "$s"
}

# check_patch N COMMIT MAIL BASE-WARNINGS: one KTAP test for one patch
check_patch() {
	local n=$1 c=$2 mail=$3 base=$4 what new waived=
	what="patch $n ($(tgit log -1 --format=%s "$c"))"
	# (not in $(...): checkpatch_of sets WAIVED; a file per series, as
	# make check runs both at once)
	checkpatch_of "$mail" >"$BUILD/checkpatch-$SERIES_BASE.out"
	new=$(cat "$BUILD/checkpatch-$SERIES_BASE.out")
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

# check_posting K BASE-WARNINGS: a test for posting K's git am onto the
# base and the postings it names, then one per patch; N counts patches
check_posting() {
	local k=$1 base=$2 stack mine commits c i on
	mapfile -t stack < <(posting_stack "$k")
	mapfile -t mine < <(posting_mails "$k")
	on=$(on_what "$k")
	if ! am_onto_base "${stack[@]}"; then
		ktap_test_fail "posting ${P_NAME[$k]} applies" "it does not apply to $on"
		for i in "${!mine[@]}"; do
			N=$((N + 1))
			ktap_test_fail "patch $N ($(sed -n 's/^Subject: //p' "${mine[$i]}" | head -n 1))" \
				"posting ${P_NAME[$k]} does not apply to $on"
		done
		return
	fi
	ktap_test_pass "posting ${P_NAME[$k]} applies" "to $on"
	mapfile -t commits < <(git -C "$AMTREE" rev-list --reverse "HEAD~${#mine[@]}..HEAD")
	for i in "${!commits[@]}"; do
		N=$((N + 1))
		check_patch "$N" "${commits[$i]}" "${mine[$i]}" "$base"
	done
}

# One KTAP test: the dependency check is not vacuous. The posting that
# names the most predecessors, without the last of them, must not
# apply; passes when git am refuses it
needs_what_it_names() {
	local k best=-1 n most=0 a drop keep=() stack
	for k in "${!P_NAME[@]}"; do
		n=$(after "${P_NAME[$k]}" | wc -w)
		[ "$n" -le "$most" ] || { most=$n; best=$k; }
	done
	if [ "$best" -lt 0 ]; then
		ktap_test_skip "a missing predecessor is refused" "no cover names an After: posting"
		return
	fi
	for a in $(after "${P_NAME[$best]}"); do drop=$a; done
	for a in $(after "${P_NAME[$best]}"); do [ "$a" = "$drop" ] || keep+=("$a"); done
	mapfile -t stack < <(PATCHSET_AFTER="${P_NAME[$best]}=$(IFS=,; echo "${keep[*]}")" posting_stack "$best")
	if am_onto_base "${stack[@]}" >/dev/null; then
		ktap_test_fail "a missing predecessor is refused" \
			"posting ${P_NAME[$best]} applies without $drop, which its cover names"
	else
		ktap_test_pass "a missing predecessor is refused" \
			"posting ${P_NAME[$best]} without $drop: git am stops at \"$(sed -n 's/^Patch failed at [0-9]* //p' "$AMTREE.log")\""
	fi
}

check_series() {
	local k base
	ktap_set_plan $((4 + ${#P_NAME[@]} + ${#MAILS[@]}))
	whole_series
	upstream_files
	# The pristine base, from scratch: the warnings every patch may keep
	rm -rf "$BUILD/patchset-build-$SERIES_BASE"
	if ! base=$(build_warnings base "$BUILD/patchset-build-$SERIES_BASE" 2>&1); then
		printf '%s\n' "$base" | tail -n 30 | sed 's/^/# /'
		ktap_test_fail "base build" "the pristine base does not build"
		echo "Bail out! the patches cannot be checked one by one"
		return 1
	fi
	ktap_test_pass "base build" "the pristine base builds; its warnings are every patch's allowance"
	N=0
	for k in "${!P_NAME[@]}"; do
		check_posting "$k" "$base"
	done
	needs_what_it_names
	# The checkout and the build take about 2 GiB: make check runs
	# with both series' at once, beside the fresh root's
	[ -n "${PATCHSET_KEEP:-}" ] || {
		tgit worktree remove --force "$AMTREE" 2>/dev/null || rm -rf "$AMTREE"
		rm -rf "$BUILD/patchset-build-$SERIES_BASE"
	}
	ktap_finished "patchset $SERIES_BASE"
}

main() {
	local export_only=
	while [ $# -gt 0 ]; do
		case $1 in
		--export-only) export_only=1 ;;
		--dry-run) DRY_RUN=1 ;;
		*) die "usage: $0 [--export-only] [--dry-run]" ;;
		esac
		shift
	done
	export_series
	mapfile -t MAILS < <(for k in "${!P_NAME[@]}"; do posting_mails "$k"; done)
	[ -n "$export_only" ] && return
	check_series
}

main "$@"
