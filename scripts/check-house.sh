#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check-house.sh: the layout rules of docs/architecture.md, one "ok:" line a
# rule and file: no archive host written into the code (the archive is read
# from apt sources: scripts/lib/archive.sh, tried here), one guest harness
# (no six lines of one guest script again in another), no fat83 C file over
# 800 lines, scripts/ and qemu-run.sh under 6 795 lines.  make house-check.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1
# shellcheck source=scripts/lib/common.sh
. scripts/lib/common.sh

# the archive comes from the machine's apt sources (scripts/lib/archive.sh)
HOSTS='(deb|ftp[.a-z0-9]*|security|snapshot|archive)\.debian\.org|archive\.ubuntu\.com'
nohost() { ! grep -nE "$HOSTS" "$1"; }
mapfile -t sh < <(scripts/shellcheck.sh --list)
for f in Makefile "${sh[@]}"; do
	that "no archive host in $f" nohost "$f"
done

# ... from the machine's apt sources: archive SOURCES-LIST SOURCES-FILE [security]
archive() {
	local d; d=$(mktemp -d) && mkdir "$d/sources.list.d" || return
	printf '%b' "$1" >"$d/sources.list"
	printf '%b' "$2" >"$d/sources.list.d/x.sources"
	local st=0
	APT_ETC=$d debian_archive "${@:3}" 2>&1 || st=$?
	rm -rf "$d"
	return "$st"
}
# shellcheck source=scripts/lib/archive.sh
. scripts/lib/archive.sh
machine() { [[ $(DEB_MIRROR='' debian_archive) == */debian ]]; }
that "archive: the machine's own ends in /debian" machine
that "archive: one-line entry with options" test "$(archive '# deb http://x/debian a main\ndeb [signed-by=/k.gpg] http://m.example/debian/ bookworm main\n' '')" = http://m.example/debian
that "archive: deb822 entry, first URI under /debian" test "$(archive '' 'Types: deb\nURIs: http://o.example/other http://m.example/debian\nSuites: trixie\n')" = http://m.example/debian
that "archive: its security archive" test "$(archive 'deb http://m.example/debian bookworm main\n' '' security)" = http://m.example/debian-security
that "archive: DEB_MIRROR first" test "$(DEB_MIRROR=http://p.example/debian/ archive 'deb http://m.example/debian a main\n' '')" = http://p.example/debian
none() { [[ $(archive 'deb http://x.example/ubuntu a main\n' '' || echo "status $?") == *"set DEB_MIRROR"*"status 1" ]]; }
that "archive: none found says so, status 1" none

# dup6 FILE...: the runs of six lines (blank and comment lines passed over,
# white space folded) that stand in two of the files; none prints nothing
dup6() {
	awk 'FNR == 1 { n = 0 }
	{ s = $0; gsub(/^[ \t]+|[ \t]+$/, "", s); gsub(/[ \t]+/, " ", s) }
	s == "" || s ~ /^#/ { next }
	{ w[++n % 6] = s; if (n < 6) next
	  k = w[(n - 5) % 6]; for (i = n - 4; i <= n; i++) k = k "\n" w[i % 6]
	  if ((k in at) && at[k] !~ "^" FILENAME ":") print at[k] " ~ " FILENAME ":" FNR
	  else if (!(k in at)) at[k] = FILENAME ":" FNR }' "$@"
}
# nodup FILE OTHER...: FILE shares no run of six lines with the others
nodup() { ! dup6 "$@" | grep -m 3 "^$1:"; }
# the guest scripts: the harness and every file that sources it
mapfile -t guests < <(git grep -l 'shellcheck source=scripts/lib/guest' -- '*.sh'; echo scripts/lib/guest.sh)
that "guest scripts found (${#guests[@]})" test "${#guests[@]}" -ge 6
for f in "${guests[@]}"; do
	others=()
	for g in "${guests[@]}"; do [[ $g == "$f" ]] || others+=("$g"); done
	that "no six lines of $f again in another guest script" nodup "$f" "${others[@]}"
done

# fat83: a file a concern (tools/fat83/README.md)
mapfile -t cfiles < <(git ls-files 'tools/fat83/*.[ch]')
that "fat83 C files found (${#cfiles[@]})" test "${#cfiles[@]}" -ge 7
for f in "${cfiles[@]}"; do
	n=$(wc -l <"$f")
	that "$f: $n lines, at most 800" test "$n" -le 800
done

n=$(cat scripts/*.sh scripts/lib/*.sh qemu-run.sh | wc -l)
that "scripts/ and qemu-run.sh: $n lines, fewer than 6 795" test "$n" -lt 6795
summary house
