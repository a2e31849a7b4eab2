# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced.  debian_archive main|security: the Debian archive this machine's apt
# uses (/etc/apt/sources.list and sources.list.d, one-line and deb822; APT_ETC
# for another folder than /etc/apt): the first "deb" entry with component main
# whose URI ends in /debian (a Docker or VirtualBox list does not: no main);
# "security": the sources' own /debian-security, else that URI + "-security".
# $DEB_MIRROR, when set, is the URI instead.
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
		uri=$(awk -v sec="$sec" '
			function take(types, uris, comps,   a, i, n) {
				if (types !~ /(^| )deb( |$)/ || comps !~ /(^| )main( |$)/) return
				n = split(uris, a, " ")
				for (i = 1; i <= n; i++) { sub(/\/+$/, "", a[i]); u[++un] = a[i] }
			}
			function flush() { if (!off) take(t, us, c); t = us = c = ""; off = 0 }
			FNR == 1 { flush() }
			/^[ \t]*#/ { next }
			FILENAME ~ /\.sources$/ {   # deb822: a stanza ends at a blank line
				if (NF == 0) { flush(); next }
				k = tolower($1); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
				if (k == "types:") t = v; else if (k == "uris:") us = v
				else if (k == "components:") c = v; else if (k == "enabled:" && tolower(v) == "no") off = 1
				next
			}
			$1 == "deb" { sub(/\[[^]]*\][ \t]*/, ""); v = ""; for (i = 4; i <= NF; i++) v = v " " $i; take("deb", $2, v) }
			END {
				flush()
				for (i = 1; i <= un; i++) if (sec != "" && u[i] ~ /\/debian-security$/) { print u[i]; exit }
				for (i = 1; i <= un; i++) if (u[i] ~ /\/debian$/) { print u[i] (sec != "" ? "-security" : ""); exit }
			}' /dev/null "${files[@]}")
		[[ -n $uri ]] ||
			{ echo "no Debian archive (a deb entry of component main, its URI ending in /debian) in $e/sources.list(.d); set DEB_MIRROR" >&2; return 1; }
	fi
	printf '%s\n' "$uri"
}
