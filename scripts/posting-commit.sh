#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# posting-commit.sh NAME: the commit of $TREE (SERIES_BASE's tree) that
# ends posting NAME of its series file, that is the series applied up to
# and including that posting's last patch
. "$(dirname "$0")/lib.sh"
load_base

name=${1:?usage: posting-commit.sh NAME}
n=$(awk -v name="$name" '
	/^#posting / { if (p) exit; p = ($2 == name); next }
	/^#/ || !NF { next }
	{ n++ }
	END { print p ? n : 0 }' "$SERIES")
[ "$n" -gt 0 ] || die "$SERIES: no posting '$name'"
c=$(tgit rev-list --reverse base..HEAD | sed -n "${n}p")
[ -n "$c" ] || die "$TREE has fewer than $n commits on base: run 'make tree'"
echo "$c"
