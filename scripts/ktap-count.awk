# SPDX-License-Identifier: GPL-2.0
#
# ktap-count.awk LOG: count the test cases of a KTAP log, as make check
# does for each step. Prints "PASSED SKIPPED FAILED COMPLETE":
#   - a case is a result line ("ok N ..." / "not ok N ...", indented by
#     its nesting) that has no subtests of its own: a result line right
#     after deeper results is a parent and sums them, so it is not
#     counted again, unless it failed while none of its cases did (a
#     runner that ended early), which counts as one failure;
#   - "# SKIP" cases are skipped, neither passed nor failed;
#   - COMPLETE is 1 when the outermost results have a plan ("1..N" at
#     their indentation, before or after them) that matches their
#     number, else 0.
# Lines that are not KTAP (kernel messages, a runner's own output) are
# ignored wherever they are.

function indent_of(s) {
	match(s, /^ */)
	return RLENGTH
}

{
	sub(/\r$/, "")
}

/^ *1\.\.[0-9]+$/ {
	d = indent_of($0)
	if (top < 0 || d < top) {
		top = d
		plan = substr($0, d + 4) + 0
	}
	next
}

/^ *(not )?ok [0-9]+/ {
	d = indent_of($0)
	line = substr($0, d + 1)
	bad = line ~ /^not ok/
	skip = line ~ /# *SKIP/
	at[d]++
	if (rtop < 0 || d < rtop)
		rtop = d
	if (n > 0 && last > d) {
		# a parent: its cases were counted already, unless it
		# failed while none of them did
		if (bad && !deeper_bad[d])
			failed++
	} else if (skip) {
		skipped++
	} else if (bad) {
		failed++
	} else {
		passed++
	}
	# deeper_bad[k]: a failure below level k since the last result at
	# level k or above
	for (k = d; k <= maxd; k++)
		deeper_bad[k] = 0
	if (bad)
		for (k = 0; k < d; k++)
			deeper_bad[k] = 1
	if (d > maxd)
		maxd = d
	last = d
	n++
	next
}

BEGIN {
	top = -1
	rtop = -1
	n = 0
	maxd = 0
}

END {
	print passed + 0, skipped + 0, failed + 0, (top >= 0 && top == rtop && at[top] == plan) ? 1 : 0
}
