#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mainline-source.sh CACHE LINE - Debian's newest linux-source-LINE (7.x,
# experimental or unstable) through a private apt configuration in CACHE
# (the host's apt sources untouched), its tarball in CACHE/mainline/.
# Prints the tarball's path and the package version; a later 7.x in the
# archive is said on stderr; offline, the cached .deb is used.

set -euo pipefail

CACHE=${1:?usage: mainline-source.sh CACHE LINE}
LINE=${2:?usage: mainline-source.sh CACHE LINE}
PKG=linux-source-$LINE
APTDIR=$CACHE/apt-mainline
OUT=$CACHE/mainline
SUITES=(experimental unstable)
# shellcheck source=scripts/lib/archive.sh
. "$(dirname "$0")/lib/archive.sh"
MIRROR=$(debian_archive main) || exit 1
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$OUT"

{
	for s in "${SUITES[@]}"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $s main"
	done
} >"$APTDIR/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o Dir::State::status=/dev/null -o Acquire::Languages=none
	-o APT::Architecture=all -o APT::Architectures::=all)

say() { echo "mainline-source.sh: $*" >&2; }

# the newest cached .deb of PKG, if any
cached_deb() {
	local d
	d=$(find "$OUT" -maxdepth 1 -name "${PKG}_*_all.deb" -printf '%f\n' |
		sed "s/^${PKG}_\(.*\)_all\.deb$/\1 &/" | sort -V | tail -n 1 | cut -d' ' -f2)
	[[ -n $d ]] && printf '%s\n' "$OUT/$d"
}

ver="" deb=""
if apt-get "${APT_OPTS[@]}" -q update >"$APTDIR/update.log" 2>&1; then
	newest=$(apt-cache "${APT_OPTS[@]}" pkgnames linux-source-7. | sort -V | tail -n 1)
	if [[ -n $newest && $newest != "$PKG" ]] &&
		[[ $(printf '%s\n' "$newest" "$PKG" | sort -V | tail -n 1) == "$newest" ]]; then
		say "Debian's newest mainline source is now $newest, patches/$LINE is for $PKG: port the series to it"
	fi
	ver=$(apt-cache "${APT_OPTS[@]}" madison "$PKG" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		sort -V | tail -n 1)
	if [[ -n $ver ]]; then
		deb=$OUT/${PKG}_${ver//:/%3a}_all.deb
		if [[ ! -s $deb ]]; then
			(cd "$OUT" && apt-get "${APT_OPTS[@]}" -q download "$PKG=$ver") >"$APTDIR/download.log" 2>&1 || {
				say "apt-get download $PKG=$ver failed:"
				sed 's/^/  /' "$APTDIR/download.log" >&2
				exit 1
			}
		fi
		# keep only the version in use
		find "$OUT" -maxdepth 1 -name "${PKG}_*_all.deb" ! -path "$deb" -delete
	fi
else
	say "cannot reach Debian's archive (log: $APTDIR/update.log)"
fi
if [[ -z $deb ]]; then
	deb=$(cached_deb || true)
	[[ -n $deb ]] || { say "$PKG is in neither experimental nor unstable, and no copy is cached"; exit 1; }
	ver=${deb##*/"${PKG}"_}
	ver=${ver%_all.deb}
	ver=${ver//%3a/:}
	say "using the cached $PKG $ver"
fi

tarball=$OUT/$PKG.tar.xz
stamp=$OUT/$PKG.version
if [[ ! -s $tarball || $(cat "$stamp" 2>/dev/null) != "$ver" ]]; then
	rm -f "$tarball" "$stamp"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$PKG.tar.xz" >"$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
	printf '%s\n' "$ver" >"$stamp"
fi
printf '%s\n%s\n' "$tarball" "$ver"
