#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-patches.sh CACHE VERSION [--tar FILE] PATH... - does Debian's linux
# source package VERSION leave PATH... (a PATH ending in / for all under it)
# as upstream has them?  Its debian.tar.xz is fetched through a private apt
# configuration in CACHE (or --tar FILE) and checked against the Sources
# index; its patches and copyright's Files-Excluded are read.  Exit status 0
# none touches them, 1 one does or no check, 2 bad usage, 3 not fetchable.

set -euo pipefail

usage() { echo "usage: debian-patches.sh CACHE VERSION [--tar FILE] PATH..." >&2; exit 2; }
CACHE=${1:-}
VER=${2:-}
[[ -n $CACHE && -n $VER ]] || usage
shift 2
TARIN=
if [[ ${1:-} == --tar ]]; then
	[[ $# -ge 2 ]] || usage
	TARIN=$2
	shift 2
fi
[[ $# -ge 1 ]] || usage
PATHS=("$@")

say() { echo "debian-patches.sh: $*" >&2; }
APTDIR=$CACHE/apt-debian-src
# shellcheck source=scripts/lib/archive.sh
. "$(dirname "$0")/lib/archive.sh"
MIRROR=$(debian_archive main) || exit 1
OUT=$CACHE/mainline
NAME=linux_${VER#*:}.debian.tar.xz
TAR=$OUT/$NAME
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$OUT"
for s in experimental unstable; do
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $s main"
done >"$APTDIR/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o Dir::State::status=/dev/null -o Acquire::Languages=none)

# The SHA-256 and pool directory of $NAME, from the (signed) Sources index.
sha="" dir=""
if apt-get "${APT_OPTS[@]}" -q update >"$APTDIR/update.log" 2>&1; then
	read -r sha dir < <(apt-cache "${APT_OPTS[@]}" showsrc linux 2>/dev/null | awk -v f="$NAME" '
		/^Package: / { sha = ""; dir = "" }
		/^Checksums-Sha256:/ { insha = 1; next }
		/^[^ ]/ { insha = 0 }
		insha && $3 == f { sha = $1 }
		/^Directory: / { dir = $2 }
		/^$/ { if (sha != "" && dir != "") { print sha, dir; exit } }
		END { if (sha != "" && dir != "") print sha, dir }' | head -n 1) || true
else
	say "cannot reach Debian's archive (log: $APTDIR/update.log)"
fi
if [[ -n $sha ]]; then
	printf '%s\n' "$sha" >"$TAR.sha256.new"
	mv "$TAR.sha256.new" "$TAR.sha256"
fi
[[ -s $TAR.sha256 ]] || { say "$NAME is in neither experimental's nor unstable's Sources index, and was never checked here"; exit 1; }
sha=$(cat "$TAR.sha256")

if [[ -n $TARIN ]]; then
	[[ $(sha256sum <"$TARIN" | cut -d' ' -f1) == "$sha" ]] ||
		{ say "$TARIN is not Debian's $NAME (SHA-256 differs from the Sources index's $sha)"; exit 1; }
	cp "$TARIN" "$TAR.tmp" && mv "$TAR.tmp" "$TAR"
elif [[ ! -s $TAR || $(sha256sum <"$TAR" | cut -d' ' -f1) != "$sha" ]]; then
	rm -f "$TAR"
	[[ -n $dir ]] || { say "no pool directory for $NAME (Debian's archive not reached)"; exit 1; }
	url=$MIRROR/$dir/${NAME//\~/%7e}
	if ! /usr/lib/apt/apt-helper "${APT_OPTS[@]}" download-file "$url" "$TAR.tmp" "SHA256:$sha" \
		>"$APTDIR/download.log" 2>&1; then
		rm -f "$TAR.tmp"
		say "cannot fetch $url:"
		sed 's/^/  /' "$APTDIR/download.log" >&2
		say "fetch $NAME (SHA-256 $sha) elsewhere and pass it: --tar FILE"
		exit 3
	fi
	mv "$TAR.tmp" "$TAR"
fi
[[ $(sha256sum <"$TAR" | cut -d' ' -f1) == "$sha" ]] || { say "$TAR: SHA-256 is not $sha"; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
tar -C "$TMP" -xJf "$TAR" --wildcards 'debian/patches*' debian/copyright
printf '%s\n' "${PATHS[@]}" >"$TMP/paths"
npatches=$(find "$TMP"/debian/patches* -type f ! -name 'series*' | wc -l)

# the files each patch touches (quilt -p1: the first component dropped)
# shellcheck disable=SC2016 # awk's $2, not the shell's
hits=$(find "$TMP"/debian/patches* -type f ! -name 'series*' -print0 | sort -z |
	xargs -0 awk '
		function strip(p) { sub(/\t.*/, "", p); if (p == "/dev/null") return ""; sub(/^[^\/]*\//, "", p); return p }
		/^(---|\+\+\+) [^ ]/ { p = strip($2); if (p != "") print FILENAME "\t" p; next }
		/^diff --git / { print FILENAME "\t" strip($3); print FILENAME "\t" strip($4); next }
		/^(rename|copy) (from|to) / { print FILENAME "\t" $3 }' |
	awk -F'\t' 'FNR == NR { want[NR] = $0; n = NR; next }
		{ for (i = 1; i <= n; i++) {
			w = want[i]
			if ($2 == w || (w ~ /\/$/ && index($2, w) == 1)) print $1 ": " $2
		} }' "$TMP/paths" - | sed "s|^$TMP/||" | sort -u)

# Files-Excluded of debian/copyright: what the orig tarball removes
excl=$(awk '/^Files-Excluded:/ { sub(/^Files-Excluded:/, ""); on = 1 }
	on && /^[^ \t]/ && !/^Files-Excluded:/ { on = 0 }
	on { for (i = 1; i <= NF; i++) print $i }' "$TMP/debian/copyright")
while IFS= read -r pat; do
	[[ -n $pat ]] || continue
	for p in "${PATHS[@]}"; do
		# shellcheck disable=SC2053 # pat is a glob
		if [[ $p == $pat || $p == $pat/* ]] || [[ $p == */ && $pat == "$p"* ]]; then
			hits+=${hits:+$'\n'}"debian/copyright Files-Excluded: $pat"
		fi
	done
done <<<"$excl"

if [[ -n $hits ]]; then
	echo "Debian's $NAME changes what the series touches:"
	sort -u <<<"$hits" | sed 's/^/  /'
	exit 1
fi
echo "no Debian patch touches ${PATHS[*]} ($npatches patches of $NAME, SHA-256 ${sha:0:12}..., and its Files-Excluded)"
