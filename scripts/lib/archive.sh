# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced.  debian_archive main|security: the Debian archive this machine's apt
# uses (/etc/apt/sources.list and sources.list.d, one-line and deb822; APT_ETC
# for another folder than /etc/apt), or $DEB_MIRROR when set; "security": the
# sources' debian-security archive, else the main one's URI + "-security".
debian_archive() {
	local uri sec=
	[[ ${1:-} == security ]] && sec=1
	if [[ -n ${DEB_MIRROR:-} ]]; then
		uri=${DEB_MIRROR%/}${sec:+-security}
	else
		local f files=()
		local e=${APT_ETC:-/etc/apt}
		for f in "$e/sources.list" "$e"/sources.list.d/*.list "$e"/sources.list.d/*.sources; do
			[[ -f $f ]] && files+=("$f")
		done
		# the first URI ending in /debian; for security the sources' own
		# /debian-security if they list one
		uri=$(awk -v sec="$sec" '/^[ \t]*#/ { next }
			/^deb[ \t]/ { sub(/\[[^]]*\][ \t]*/, ""); u[++n] = $2; next }
			/^URIs:/ { for (i = 2; i <= NF; i++) u[++n] = $i }
			END { for (i = 1; i <= n; i++) { sub(/\/+$/, "", u[i]); if (sec != "" && u[i] ~ /\/debian-security$/) { print u[i]; exit } }
				for (i = 1; i <= n; i++) if (u[i] ~ /\/debian$/) { print u[i] (sec != "" ? "-security" : ""); exit } }' \
			/dev/null "${files[@]}")
		[[ -n $uri ]] ||
			{ echo "no Debian archive (a URI ending in /debian) in $e/sources.list(.d); set DEB_MIRROR" >&2; return 1; }
	fi
	printf '%s\n' "$uri"
}
