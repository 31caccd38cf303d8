# SPDX-License-Identifier: GPL-2.0
#
# lib-kbuild.sh: building rpcrdma.ko of a commit of the series tree and
# reading its warnings, kernel-doc and documents, for the series checks
# (patchset.sh, static-checks.sh). Source it after lib.sh.

# build_warnings COMMIT DIR: build rpcrdma.ko of COMMIT in DIR with
# module.sh (incrementally: only what changed is compiled) under sparse
# (C=1) and W=1, and print the warnings of what was compiled, one per
# line, without line numbers or build paths, so code that merely moved
# does not count as new. Fails, showing the log, if the build fails.
build_warnings() {
	local commit=$1 dir=$2 log
	log=$(mktemp)
	if ! "$TOP/scripts/module.sh" "$commit" "$dir" C=1 W=1 >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	{ grep -E '(warning|error):|^WARNING: modpost:' "$log" || true; } |
		sed -E -e "s|$dir/src/||g" -e "s|$dir/include/||g" \
		       -e 's/:[0-9]+:[0-9]+:/:/' -e 's/:[0-9]+:/:/' | sort -u
	rm -f "$log"
}

# kernel_doc_of COMMIT FILE...: the kernel-doc -Wall warnings of COMMIT's
# version of the files, without line numbers, one per line
kernel_doc_of() {
	local commit=$1 tmp
	shift
	[ $# -gt 0 ] || return 0
	[ -f "$TREE/scripts/kernel-doc" ] || die "no scripts/kernel-doc in $TREE"
	tmp=$(mktemp -d)
	# (explicit: callers may run this where errexit is off)
	if ! tgit archive "$commit" -- "$@" | tar -x -C "$tmp"; then
		rm -rf "$tmp"
		echo "kernel_doc_of: cannot read $* of $commit" >&2
		return 1
	fi
	# kernel-doc's exit status counts warnings; its output says what they
	# are, with "FILE:LINE: " (the perl one) or "FILE:LINE " (the python
	# one of 6.16 on) in front, and the line number goes
	(cd "$tmp" && perl "$TREE/scripts/kernel-doc" -none -Wall "$@" 2>&1 || true) |
		sed -E 's/:[0-9]+:? /: /' | sort -u
	rm -rf "$tmp"
}

# rst_problems COMMIT FILE...: what docutils reports about COMMIT's
# version of the reStructuredText files (nothing when they are clean).
# Sphinx's own directives are not docutils', so leave index.rst out.
rst_problems() {
	local commit=$1 tmp
	shift
	[ $# -gt 0 ] || return 0
	/usr/bin/python3 -c 'import docutils' 2>/dev/null ||
		die "python3-docutils is not installed: run 'make deps'"
	tmp=$(mktemp -d)
	tgit archive "$commit" -- "$@" | tar -x -C "$tmp"
	# Problems are printed; a crash is one too
	(cd "$tmp" && /usr/bin/python3 - "$@") <<'PY' || echo "rst: docutils could not check $*"
import sys
import docutils.core
import docutils.utils

for path in sys.argv[1:]:
    try:
        docutils.core.publish_doctree(
            open(path, encoding="utf-8").read(), source_path=path,
            settings_overrides={"report_level": 2, "halt_level": 2})
    except docutils.utils.SystemMessage as e:
        print(f"{path}: {e}")
PY
	rm -rf "$tmp"
}

# doc_problems FROM TO: what is wrong with the kernel-doc and documents
# between two commits of $TREE (nothing when all is well): the files TO
# adds must have clean kernel-doc, the ones it changes must gain no
# kernel-doc warning, and its reStructuredText must parse
doc_problems() {
	local from=$1 to=$2 added changed docs old new list
	# (not in <(...): a failing git there would read as "no files")
	list=$(tgit diff --name-only --diff-filter=A "$from" "$to" -- '*.c' '*.h') || return 1
	mapfile -t added < <(printf '%s' "$list" | sed '/^$/d')
	list=$(tgit diff --name-only --diff-filter=M "$from" "$to" -- '*.c' '*.h') || return 1
	mapfile -t changed < <(printf '%s' "$list" | sed '/^$/d')
	list=$(tgit diff --name-only --diff-filter=AM "$from" "$to" -- 'Documentation/*.rst') ||
		return 1
	mapfile -t docs < <(printf '%s' "$list" | sed -e '/^$/d' -e '/\/index\.rst$/d')
	kernel_doc_of "$to" "${added[@]}" || return 1
	# Not in <(...): a failure there would read as "no warnings"
	old=$(kernel_doc_of "$from" "${changed[@]}") || return 1
	new=$(kernel_doc_of "$to" "${changed[@]}") || return 1
	comm -13 <(printf '%s\n' "$old") <(printf '%s\n' "$new") | sed '/^$/d'
	rst_problems "$to" "${docs[@]}"
}
