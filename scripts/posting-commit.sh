#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# posting-commit.sh NAME: the commit of $TREE (SERIES_BASE's tree,
# branch series) that ends posting NAME of its series file, that is the
# series applied up to and including that posting's last patch. The
# tree's commits must be the series' patches in order, by subject.
. "$(dirname "$0")/lib.sh"
load_base

name=${1:?usage: posting-commit.sh NAME}
# the number of patches up to the end of posting NAME, counted as
# series_lines() counts them; 0 if NAME has none
n=$(sed -e 's/^#posting[[:space:]]\{1,\}/@posting /' -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES" | awk -v name="$name" '
	$1 == "@posting" { if (p) exit; p = ($2 == name); next }
	{ n++; if (p) in_posting++ }
	END { print (p && in_posting) ? n : 0 }')
[ "$n" -gt 0 ] || die "$SERIES: no posting '$name', or it has no patch"
c=$(tgit rev-list --reverse base..series | sed -n "${n}p")
[ -n "$c" ] || die "$TREE has fewer than $n commits on base: run 'make tree'"
# the commit is the patch it should be
patch=$(series_lines | sed -n "${n}p" | awk '{ print $1 }')
want=$(sed -n '/^Subject: /{s/^Subject: \[PATCH\] //;N;s/\n / /;s/\n.*//;p;q}' "$SERIES_DIR/$patch")
got=$(tgit log -1 --format=%s "$c")
[ "$got" = "$want" ] || die "$TREE's commit $n is '$got', but $patch is '$want': run 'make tree'"
echo "$c"
