# SPDX-License-Identifier: GPL-2.0
#
# ktap.sh: the one place where this repository's shell runners print
# KTAP (Documentation/dev-tools/ktap.rst). POSIX sh, so that bash, dash
# and the test VMs' busybox sh source it alike; the names follow
# kselftest's ktap_helpers.sh.
#
#   ktap_print_header          "KTAP version 1"; the counts start again
#                              (the first line of a document prints it
#                              if it was not called)
#   ktap_set_plan N            "1..N"
#   ktap_test_pass DESC [NOTE] "ok N DESC", NOTE in parentheses after it
#   ktap_test_skip DESC WHY    "ok N DESC # SKIP WHY"
#   ktap_test_fail DESC WHY    "not ok N DESC # WHY"
#   ktap_print_msg MSG         "# MSG", a diagnostic line
#   ktap_subtest_begin         a nested document: its lines go two spaces
#                              deeper, with counts of their own
#   ktap_subtest_end DESC [pass|skip WHY|fail WHY]
#                              ends it with its result at the level
#                              above: as given, or else "not ok N DESC
#                              # K of M failed" if any of its tests
#                              failed, and ok if none did
#   ktap_finished NAME         the plan, if none was set; then
#                              "# NAME: P passed, F failed[, S skipped]";
#                              returns 1 if a test failed; the next
#                              line starts a new document
#
# A description loses '#' and line breaks (a '#' would end it); a
# reason or a message loses line breaks. KTAP_PASS, KTAP_FAIL and
# KTAP_SKIP count the tests of the current document; KTAP_ALL_PASS,
# KTAP_ALL_FAIL and KTAP_ALL_SKIP the tests without subtests of every
# document since the outermost header.

KTAP_INDENT=
KTAP_STACK=
KTAP_HEADER=
KTAP_N=0 KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0 KTAP_PLANNED=
KTAP_ALL_PASS=0 KTAP_ALL_FAIL=0 KTAP_ALL_SKIP=0

# (no "local" in POSIX sh: the helpers' own variables start with _ktap)
_ktap_desc() { printf '%s' "$1" | tr '#\n' '_ ' | sed 's/ *$//'; }
_ktap_line() { printf '%s' "$1" | tr '\n' ' ' | sed 's/ *$//'; }

ktap_print_header() {
	printf '%s\n' "${KTAP_INDENT}KTAP version 1"
	KTAP_HEADER=1
	KTAP_N=0 KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0 KTAP_PLANNED=
	if [ -z "$KTAP_STACK" ]; then
		KTAP_ALL_PASS=0 KTAP_ALL_FAIL=0 KTAP_ALL_SKIP=0
	fi
}

# the header of the current document, unless it was printed
_ktap_begin() { [ -n "$KTAP_HEADER" ] || ktap_print_header; }

ktap_set_plan() {
	_ktap_begin
	printf '%s\n' "${KTAP_INDENT}1..$1"
	KTAP_PLANNED=$1
}

ktap_test_pass() {
	_ktap_begin
	KTAP_N=$((KTAP_N + 1)) KTAP_PASS=$((KTAP_PASS + 1))
	KTAP_ALL_PASS=$((KTAP_ALL_PASS + 1))
	printf '%s\n' "${KTAP_INDENT}ok $KTAP_N $(_ktap_desc "$1${2:+ ($2)}")"
}

ktap_test_skip() {
	_ktap_begin
	KTAP_N=$((KTAP_N + 1)) KTAP_SKIP=$((KTAP_SKIP + 1))
	KTAP_ALL_SKIP=$((KTAP_ALL_SKIP + 1))
	_ktap_why=$(_ktap_line "${2:-}")
	printf '%s\n' "${KTAP_INDENT}ok $KTAP_N $(_ktap_desc "$1") # SKIP${_ktap_why:+ $_ktap_why}"
}

ktap_test_fail() {
	_ktap_begin
	KTAP_N=$((KTAP_N + 1)) KTAP_FAIL=$((KTAP_FAIL + 1))
	KTAP_ALL_FAIL=$((KTAP_ALL_FAIL + 1))
	printf '%s\n' "${KTAP_INDENT}not ok $KTAP_N $(_ktap_desc "$1") # $(_ktap_line "${2:-failed}")"
}

ktap_print_msg() {
	_ktap_begin
	printf '%s\n' "${KTAP_INDENT}# $(_ktap_line "${1:-}")"
}

ktap_subtest_begin() {
	_ktap_begin
	KTAP_STACK="$KTAP_N $KTAP_PASS $KTAP_FAIL $KTAP_SKIP ${KTAP_PLANNED:--}/$KTAP_STACK"
	KTAP_INDENT="$KTAP_INDENT  "
	ktap_print_header
}

ktap_subtest_end() {
	_ktap_failed=$KTAP_FAIL
	_ktap_total=$((KTAP_PASS + KTAP_FAIL + KTAP_SKIP))
	[ -n "$KTAP_PLANNED" ] || printf '%s\n' "${KTAP_INDENT}1..$KTAP_N"
	KTAP_INDENT=${KTAP_INDENT#  }
	_ktap_top=${KTAP_STACK%%/*}
	KTAP_STACK=${KTAP_STACK#*/}
	_ktap_desc_=$1 _ktap_res=${2:-} _ktap_why=${3:-}
	# shellcheck disable=SC2086 # five numbers
	set -- $_ktap_top
	KTAP_N=$1 KTAP_PASS=$2 KTAP_FAIL=$3 KTAP_SKIP=$4 KTAP_PLANNED=$5
	set -- "$_ktap_desc_" "$_ktap_res" "$_ktap_why"
	[ "$KTAP_PLANNED" != - ] || KTAP_PLANNED=
	# the subtests were counted in the totals already: the result of
	# a document that had any is not counted again there
	# a document with a failed test failed, whatever the caller says
	[ "$2" != pass ] || [ "$_ktap_failed" = 0 ] || set -- "$1" ""
	case "$2" in
	pass) ktap_test_pass "$1"
		[ "$_ktap_total" = 0 ] || KTAP_ALL_PASS=$((KTAP_ALL_PASS - 1)) ;;
	skip) ktap_test_skip "$1" "$3"
		[ "$_ktap_total" = 0 ] || KTAP_ALL_SKIP=$((KTAP_ALL_SKIP - 1)) ;;
	fail) ktap_test_fail "$1" "$3"
		# counted once, as ktap-count.awk does, when none below failed
		[ "$_ktap_failed" = 0 ] || KTAP_ALL_FAIL=$((KTAP_ALL_FAIL - 1)) ;;
	'')
		if [ "$_ktap_failed" = 0 ]; then
			ktap_test_pass "$1"
			[ "$_ktap_total" = 0 ] || KTAP_ALL_PASS=$((KTAP_ALL_PASS - 1))
		else
			ktap_test_fail "$1" "$_ktap_failed of $_ktap_total failed"
			KTAP_ALL_FAIL=$((KTAP_ALL_FAIL - 1))
		fi ;;
	*)
		printf 'ktap.sh: ktap_subtest_end: unknown result %s\n' "$2" >&2
		ktap_test_fail "$1" "ktap_subtest_end: unknown result '$2'" ;;
	esac
}

ktap_finished() {
	_ktap_begin
	[ -n "$KTAP_PLANNED" ] || ktap_set_plan "$KTAP_N"
	_ktap_skipped=
	[ "$KTAP_SKIP" = 0 ] || _ktap_skipped=", $KTAP_SKIP skipped"
	ktap_print_msg "$1: $KTAP_PASS passed, $KTAP_FAIL failed$_ktap_skipped"
	KTAP_HEADER= KTAP_PLANNED=
	[ "$KTAP_FAIL" = 0 ]
}
