# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced.  debian_archive main|security: the Debian archive this machine's
# apt uses: $DEB_MIRROR when set (security: URI + "-security"); else apt's
# Debian source (apt-cache policy: o=Debian, l=Debian or Debian-Security,
# c=main, an http(s) or ftp URI ending in /debian or /debian-security); else
# the sources' (/etc/apt or APT_ETC: sources.list(.d), one-line and deb822)
# first deb entry of component main under /debian, for security its own
# /debian-security or URI + "-security".  Of several, those of this release's
# suite (VERSION_CODENAME of /etc/os-release or OS_RELEASE) and, in the
# sources, those signed by debian-archive-keyring first; then the first listed.
debian_archive() {
	local uri sec='' cn
	[[ ${1:-} == security ]] && sec=1
	if [[ -n ${DEB_MIRROR:-} ]]; then
		printf '%s\n' "${DEB_MIRROR%/}${sec:+-security}"
		return
	fi
	cn=$(sed -n 's/^VERSION_CODENAME=["'"'"']\{0,1\}\([a-z]*\).*/\1/p' "${OS_RELEASE:-/etc/os-release}" 2>/dev/null)
	if [[ -z ${APT_ETC:-} ]] && command -v apt-cache >/dev/null; then
		# apt prints the sources last first: the last of the best
		uri=$(apt-cache policy 2>/dev/null | awk -v l="l=Debian${sec:+-Security}," -v n="n=$cn${sec:+-security}," \
			-v re="^(https?|ftp)://.*/debian${sec:+-security}\$" '
			$1 ~ /^[0-9]+$/ { u = $2; sub(/\/+$/, "", u); next }
			$1 == "release" && u ~ re && index($0, "o=Debian,") && index($0, l) && index($0, "c=main,") {
				r = index($0, n) > 0; if (r >= best) { best = r; last = u } }
			{ u = "" }
			END { if (last != "") print last }')
		[[ -z $uri ]] || { printf '%s\n' "$uri"; return; }
	fi
	local f files=() e=${APT_ETC:-/etc/apt}
	for f in "$e/sources.list" "$e"/sources.list.d/*.list "$e"/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	# /dev/null first: no file, no stdin read
	uri=$(awk -v sec="$sec" -v cn="$cn" '
		function take(types, uris, suites, comps, key,   a, i, n) {
			if (types !~ /(^|[ \t])deb([ \t]|$)/ || comps !~ /(^|[ \t])main([ \t]|$)/) return
			n = split(uris, a, " ")
			for (i = 1; i <= n; i++) {
				sub(/\/+$/, "", a[i]); un++; U[un] = a[i]
				R[un] = 2 * (key ~ /debian-archive-keyring/) + (cn != "" && (" " suites " ") ~ (" " cn "(-security)? "))
			}
		}
		function flush() { if (!off) take(f["types"], f["uris"], f["suites"], f["components"], f["signed-by"]); delete f; k = ""; off = 0 }
		FNR == 1 { flush() }
		/^[ \t]*#/ { next }
		FILENAME ~ /\.sources$/ {   # deb822: stanzas, a blank line between
			if (NF == 0) flush()
			else if (/^[ \t]/ && k != "") f[k] = f[k] " " $0   # a folded line
			else if (match($0, /^[A-Za-z0-9-]+:/)) {
				k = tolower(substr($0, 1, RLENGTH - 1)); v = substr($0, RLENGTH + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); f[k] = v
				if (k == "enabled" && tolower(v) ~ /^(no|false|off|without|disable|0)$/) off = 1
			}
			next
		}
		$1 == "deb" { o = match($0, /\[[^]]*\]/) ? substr($0, RSTART, RLENGTH) : ""; sub(/\[[^]]*\][ \t]*/, "")
			v = ""; for (i = 4; i <= NF; i++) v = v " " $i; take("deb", $2, $3, v, o) }
		function pick(re, add,   p, i) {
			for (p = 3; p >= 0; p--) for (i = 1; i <= un; i++) if (R[i] >= p && U[i] ~ re) { print U[i] add; return 1 }
		}
		END { flush(); if (!(sec != "" && pick("^(https?|ftp)://.*/debian-security$", ""))) pick("^(https?|ftp)://.*/debian$", sec != "" ? "-security" : "") }' \
		/dev/null "${files[@]}")
	[[ -n $uri ]] ||
		{ echo "no Debian archive (apt-cache policy, or a deb entry of component main under /debian in $e/sources.list(.d)); set DEB_MIRROR" >&2; return 1; }
	printf '%s\n' "$uri"
}
