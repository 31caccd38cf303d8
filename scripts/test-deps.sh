#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-deps.sh: every way scripts/deps.sh can go, with stand-ins for
# dpkg-query, apt-cache, apt-get and id on PATH, so nothing is installed
# and no root is needed. Each case runs the real deps.sh against a
# made-up machine (what dpkg has installed, what the archive offers,
# whether apt works, who we are) and checks its exit status, what it
# said and what it did. Prints KTAP.

. "$(dirname "$0")/lib.sh"

PIN=6.12.95-1~bpo12+1
NEWER=6.12.117-1~deb12u1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# --- the stand-ins; they keep their state in $DEPS_TEST_STATE ---------
SHIMS=$WORK/shims
mkdir -p "$SHIMS"

# dpkg-query -W -f FORMAT PKG: "installed VERSION" from the state file
# "installed" (lines "PKG VERSION"; "* VERSION" for every other
# package, "!PKG" for one dpkg has never heard of); exit 1 like the
# real one for an unknown package, 2 when the state says dpkg is broken
cat >"$SHIMS/dpkg-query" <<'SH'
#!/bin/bash
s=$DEPS_TEST_STATE
[ ! -e "$s/dpkg-broken" ] || { echo "dpkg-query: error: parsing file '/var/lib/dpkg/status'" >&2; exit 2; }
pkg=${!#}
v=$(awk -v p="$pkg" '$1 == p { print $2; f = 1; exit } $1 == "!" p { f = 1; exit }
	$1 == "*" { d = $2 } END { if (!f && d != "") print d }' "$s/installed")
[ -n "$v" ] || { echo "dpkg-query: no packages found matching $pkg" >&2; exit 1; }
echo "installed $v"
SH

# apt-cache madison PKG: the lines "PKG VERSION [src]" of the state
# file "archive", as madison prints them ("src": a deb-src line)
cat >"$SHIMS/apt-cache" <<'SH'
#!/bin/bash
s=$DEPS_TEST_STATE
[ "$1" = madison ] || { echo "apt-cache shim: $*" >&2; exit 99; }
[ ! -e "$s/apt-cache-broken" ] || { echo "E: The package cache file is corrupted" >&2; exit 100; }
out=$(awk -v p="$2" '$1 == p { printf "%10s | %s | http://deb.debian.org/debian bookworm-backports/main %s\n", $1, $2,
	$3 == "src" ? "Sources" : "amd64 Packages" }' "$s/archive")
[ -n "$out" ] || echo "N: Unable to locate package $2" >&2
[ -z "$out" ] || echo "$out"
SH

# apt-get update|install: logged; fails when the state says so; install
# records the packages as installed unless the state says it loses them
cat >"$SHIMS/apt-get" <<'SH'
#!/bin/bash
s=$DEPS_TEST_STATE
echo "$*" >>"$s/apt-get.log"
case $1 in
update)
	[ -e "$DEPS_APT_ETC/sources.list.d/bookworm-backports.sources" ] &&
		echo "  with the backports source" >>"$s/apt-get.log"
	[ ! -e "$s/fail-update" ] || { echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm-backports/InRelease" >&2; exit 100; }
	;;
install)
	[ ! -e "$s/fail-install" ] || { echo "E: Unable to fetch some archives" >&2; exit 100; }
	[ ! -e "$s/install-loses" ] || exit 0
	for a in "$@"; do
		case $a in
		-*|install) ;;
		*=*) echo "${a%%=*} ${a#*=}" ;;
		*) echo "$a 1.0" ;;
		esac
	done >>"$s/installed.new"
	cat "$s/installed" >>"$s/installed.new"
	mv "$s/installed.new" "$s/installed"
	;;
*) echo "apt-get shim: $*" >&2; exit 99 ;;
esac
SH

# id -u: the state file "uid", 0 when there is none
cat >"$SHIMS/id" <<'SH'
#!/bin/bash
[ "$1" = -u ] || exec /usr/bin/id "$@"
cat "$DEPS_TEST_STATE/uid" 2>/dev/null || echo 0
SH
chmod +x "$SHIMS"/*

# --- a made-up machine per case ---------------------------------------
# new_case: a state with the backports source, root, nothing installed
# and the pin (source, headers, image) in the archive
new_case() {
	S=$WORK/case$((KTAP_N + 1))
	mkdir -p "$S/apt/sources.list.d" "$S/build"
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-backports\nComponents: main\n' \
		>"$S/apt/sources.list.d/debian.sources"
	: >"$S/installed"
	: >"$S/keyring.gpg"
	archive "$PIN"
}
# archive VERSION...: the base packages in these versions
archive() {
	local v u
	for v in "$@"; do
		u=${v%%-*}
		printf '%s %s\n' linux-source-6.12 "$v" "linux-headers-$u+deb12-amd64" "$v" \
			"linux-image-$u+deb12-amd64" "$v"
	done >>"$S/archive"
}
# installed LINE...: add lines to what dpkg has installed
installed() { printf '%s\n' "$@" >>"$S/installed"; }
# all installed at the pin (every tool too)
all_installed() {
	local u=${PIN%%-*}
	installed "linux-source-6.12 $PIN" "linux-headers-$u+deb12-amd64 $PIN" \
		"linux-image-$u+deb12-amd64 $PIN" "* 1.0"
}

# run_deps: run the real deps.sh on the case; sets RC, OUTPUT (stdout
# and stderr)
run_deps() {
	RC=0
	OUTPUT=$(cd "$TOP" && env PATH="$SHIMS:$PATH" DEPS_TEST_STATE="$S" \
		BUILD="${CASE_BUILD:-$S/build}" DEPS_APT_ETC="$S/apt" \
		DEPS_KEYRING="${CASE_KEYRING:-$S/keyring.gpg}" BASE_PKG_VERSION="${CASE_PIN-$PIN}" \
		bash scripts/deps.sh 2>&1) || RC=$?
	touch "$S/apt-get.log"
}

# --- verdicts ---------------------------------------------------------
WHY=
# want DESCRIPTION CONDITION...: remember the first unmet condition
want() {
	local what=$1
	shift
	[ -n "$WHY" ] && return 0
	"$@" || WHY=$what
}
has() { grep -qF -- "$1" <<<"$OUTPUT"; }
apt_calls() { grep -c "^$1" "$S/apt-get.log" || true; }
base_env() { grep -qxF -- "$1" "$S/build/base.env"; }
# A stop: exit status 1 and one line that says why, never a bare
# failure, nor a second line about the same stop
stopped_saying() {
	[ "$RC" = 1 ] && [ "$(grep -c '^ERROR: ' <<<"$OUTPUT")" = 1 ] &&
		grep -q '^ERROR: deps: ' <<<"$OUTPUT" && has "$1"
}
verdict() {
	if [ -z "$WHY" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "wanted: $WHY; deps.sh exited with $RC"
		sed 's/^/# | /' <<<"$OUTPUT"
	fi
	WHY=
}

ktap_set_plan 23

new_case
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "apt-get install of the pinned base" grep -qF "linux-source-6.12=$PIN linux-headers-6.12.95+deb12-amd64=$PIN linux-image-6.12.95+deb12-amd64=$PIN" "$S/apt-get.log"
want "ibverbs-utils installed" grep -qw ibverbs-utils "$S/apt-get.log"
want "netbase installed" grep -qw netbase "$S/apt-get.log"
want "mmdebstrap installed" grep -qw mmdebstrap "$S/apt-get.log"
want "base.env records the pin" base_env "BASE_VERSION='$PIN'"
verdict "fresh machine: packages dpkg has never heard of are installed"

want "apt-get update ran once, not $(apt_calls update) times" [ "$(apt_calls update)" = 1 ]
verdict "fresh machine: apt-get update runs once"

new_case
all_installed
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "no apt-get call" [ ! -s "$S/apt-get.log" ]
want "silent" [ -z "$OUTPUT" ]
verdict "all installed: nothing to do, nothing said"

new_case
installed "linux-source-6.12 $PIN" "* 1.0" "!netbase"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "only netbase and the headers and image installed" grep -qxF "install -y --no-install-recommends linux-headers-6.12.95+deb12-amd64=$PIN linux-image-6.12.95+deb12-amd64=$PIN netbase" "$S/apt-get.log"
verdict "partly installed: only what is missing"

new_case
: >"$S/archive"
archive 6.12.100-1~bpo12+1 "$NEWER"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "a warning naming the pin and its replacement" has "WARNING: pinned base $PIN is no longer in the archive; using $NEWER"
want "headers and image of the newest version" grep -qF "linux-source-6.12=$NEWER linux-headers-6.12.117+deb12-amd64=$NEWER linux-image-6.12.117+deb12-amd64=$NEWER" "$S/apt-get.log"
want "base.env follows" base_env "KVER='6.12.117+deb12-amd64'"
verdict "pinned version gone from the archive: the newest, with a warning"

new_case
: >"$S/archive"
run_deps
want "says no linux-source-6.12" stopped_saying "no linux-source-6.12 in the apt sources"
want "no install" [ "$(apt_calls install)" = 0 ]
verdict "no linux-source-6.12 in the archive at all: stops, saying so"

new_case
grep -v '^linux-headers' "$S/archive" >"$S/archive.new"
mv "$S/archive.new" "$S/archive"
run_deps
want "names the headers package" stopped_saying "linux-headers-6.12.95+deb12-amd64 $PIN is not in the apt sources"
want "no install" [ "$(apt_calls install)" = 0 ]
verdict "pinned headers gone from the archive: stops, naming the package"

new_case
rm "$S/apt/sources.list.d/debian.sources"
printf 'deb http://deb.debian.org/debian bookworm main\n' >"$S/apt/sources.list"
printf 'Types: deb\nSuites: bookworm-backports\n' >"$S/apt/sources.list.d/old.sources.disabled"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "says it adds the source" has "adding the bookworm-backports apt source"
want "the source file" grep -qx 'Suites: bookworm-backports' "$S/apt/sources.list.d/bookworm-backports.sources"
want "apt-get update after adding it" grep -qxF "  with the backports source" "$S/apt-get.log"
verdict "no backports source: deps adds it, then updates"

new_case
rm "$S/apt/sources.list.d/debian.sources"
echo 1000 >"$S/uid"
run_deps
want "says not root and why" stopped_saying "not root: adding the bookworm-backports apt source"
want "writes nothing" [ ! -e "$S/apt/sources.list.d/bookworm-backports.sources" ]
verdict "no backports source, not root: stops, saying so"

new_case
installed "linux-source-6.12 $PIN" "* 1.0" "!netbase"
echo 1000 >"$S/uid"
run_deps
want "says not root, naming the packages" stopped_saying "not root: installing linux-headers-6.12.95+deb12-amd64=$PIN linux-image-6.12.95+deb12-amd64=$PIN netbase needs root"
want "no apt-get call" [ ! -s "$S/apt-get.log" ]
verdict "missing packages, not root: stops, naming them"

new_case
all_installed
echo 1000 >"$S/uid"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "base.env written" base_env "BASE_VERSION='$PIN'"
verdict "all installed, not root: nothing needs root"

new_case
touch "$S/fail-update"
run_deps
want "says what the update was for" stopped_saying "ERROR: deps: apt-get update, for linux-source-6.12 $PIN: 'apt-get update' exited with 100"
want "shows apt's own error" has "E: Failed to fetch"
want "no install" [ "$(apt_calls install)" = 0 ]
verdict "apt-get update failing: stops, with apt's reason"

new_case
touch "$S/fail-install"
run_deps
want "says what was being installed" grep -qE "^ERROR: deps: installing [0-9]+ packages: 'apt-get install \.\.\.' exited with 100" <<<"$OUTPUT"
want "and nothing more" stopped_saying "(its last lines are above)"
want "lists the packages" has ">>> installing: linux-source-6.12=$PIN linux-headers-6.12.95+deb12-amd64=$PIN"
want "shows apt's own error" has "E: Unable to fetch some archives"
want "no base.env" [ ! -e "$S/build/base.env" ]
verdict "apt-get install failing: stops, with apt's reason"

new_case
touch "$S/install-loses"
run_deps
want "says what is still missing" stopped_saying "apt-get install succeeded but these are still not installed: linux-source-6.12=$PIN"
verdict "apt-get install claiming success: stops, naming what is missing"

new_case
touch "$S/dpkg-broken"
run_deps
want "says dpkg-query failed and why" stopped_saying "dpkg-query -W linux-source-6.12 exited with 2: dpkg-query: error: parsing file"
verdict "dpkg-query failing: stops, with its reason"

new_case
all_installed
CASE_BUILD=$S/not-a-dir
touch "$CASE_BUILD"
run_deps
unset CASE_BUILD
want "names the command that failed" stopped_saying "\"mkdir -p \"\$BUILD\"\" exited with 1"
verdict "an unforeseen failure still names its command"

new_case
touch "$S/apt-cache-broken"
run_deps
want "says apt-cache failed and why" stopped_saying "apt-cache madison linux-source-6.12 exited with 100: E: The package cache file is corrupted"
verdict "apt-cache failing: stops, with its reason"

new_case
rm "$S/apt/sources.list.d/debian.sources"
CASE_KEYRING=$S/no-such-keyring.gpg
run_deps
unset CASE_KEYRING
want "names the keyring" stopped_saying "no $S/no-such-keyring.gpg to check bookworm-backports with: install debian-archive-keyring"
want "writes nothing" [ ! -e "$S/apt/sources.list.d/bookworm-backports.sources" ]
verdict "no backports source and no archive key: stops, naming the key"

# The pin left the archive and an earlier run installed the newest
new_case
: >"$S/archive"
archive "$NEWER"
installed "linux-source-6.12 $NEWER" "linux-headers-6.12.117+deb12-amd64 $NEWER" \
	"linux-image-6.12.117+deb12-amd64 $NEWER" "* 1.0"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "no apt-get call" [ ! -s "$S/apt-get.log" ]
want "a warning naming both" has "WARNING: pinned base $PIN is not in the apt lists; using the installed $NEWER"
want "base.env follows" base_env "KVER='6.12.117+deb12-amd64'"
verdict "pin gone, newest installed earlier: kept, without apt"

echo 1000 >"$S/uid"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "no apt-get call" [ ! -s "$S/apt-get.log" ]
want "base.env follows" base_env "KVER='6.12.117+deb12-amd64'"
verdict "pin gone, newest installed earlier, not root: kept"

new_case
installed "linux-source-6.12 $NEWER" "* 1.0"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "says it downgrades" has "linux-source-6.12 $NEWER is installed; the base is $PIN: downgrading it"
want "apt-get allowed to downgrade to the pin" grep -qF -- "--allow-downgrades linux-source-6.12=$PIN" "$S/apt-get.log"
verdict "a newer linux-source-6.12 installed: back to the pin"

new_case
echo "linux-source-6.12 9.9.9-1 src" >>"$S/archive"
grep -v "^linux-source-6.12 $PIN" "$S/archive" >"$S/archive.new"
mv "$S/archive.new" "$S/archive"
archive "$NEWER"
run_deps
want "exit status 0" [ "$RC" = 0 ]
want "the newest binary version, not the source-only one" base_env "BASE_VERSION='$NEWER'"
verdict "deb-src versions are not candidates"

new_case
CASE_PIN=
run_deps
unset CASE_PIN
want "says the pin is not set" stopped_saying "BASE_PKG_VERSION is not set"
verdict "no pin: stops, saying so"

ktap_finished deps-test
