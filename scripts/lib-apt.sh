# SPDX-License-Identifier: GPL-2.0
#
# lib-apt.sh: apt against a private state of Debian's archive, for the
# scripts that fetch packages without installing them on the host
# (mainline-deps.sh, arm64-deps.sh, nfs-utils.sh, trixie-root.sh).
# Source it after lib.sh.

# private_apt_setup DIR SUITE...: a private apt state in DIR whose only
# sources are Debian's SUITEs (main), signed by the archive keyring; the
# host's apt.conf.d (proxies, validity checks) still applies. Binary
# packages, or source packages with PRIVATE_APT_TYPES=deb-src. Then
# private_apt DIR apt-get|apt-cache ARGS... runs apt against it,
# installing nothing on the host; with PRIVATE_APT_ARCH (arm64) set,
# for that architecture alone.
private_apt_setup() {
	local dir=$1 keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	[ -r "$keyring" ] ||
		die "no $keyring: install debian-archive-keyring (it carries trixie's and sid's keys)"
	mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
	cat >"$dir/sources.list.d/$1.sources" <<EOF
Types: ${PRIVATE_APT_TYPES:-deb}
URIs: http://deb.debian.org/debian
Suites: $*
Components: main
Signed-By: $keyring
EOF
	QUIET_WHAT="apt-get update of $*" quiet private_apt "$dir" apt-get update
}
private_apt() {
	local dir=$1 cmd=$2 arch=()
	shift 2
	[ -z "${PRIVATE_APT_ARCH:-}" ] ||
		arch=(-o APT::Architecture="$PRIVATE_APT_ARCH" -o APT::Architectures::="$PRIVATE_APT_ARCH"
		      -o APT::Sandbox::User=root)
	"$cmd" "${arch[@]}" -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$dir/sources.list.d" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" \
		-o Dir::State::Status=/dev/null \
		-o Debug::NoLocking=true "$@"
}
