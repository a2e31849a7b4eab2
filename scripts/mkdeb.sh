#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh - build the DKMS package vfat-nolongcreate-dkms_<ver>_all.deb:
# the fat, vfat and msdos modules of Debian's 6.1 kernel with
# patches/6.1/series applied, for DKMS to build for the stock kernel.
# Run ./scripts/mkdeb.sh --help for the options.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
LINE=6.1
TARBALL=${VFAT_KERNEL_TARBALL:-/usr/src/linux-source-$LINE.tar.xz}
OUT=
KABI=
REUSE=0

usage() {
	cat <<EOF
usage: $PROG [--out DIR] [--abi 6.1.0-N] [--reuse]

Generates the module sources from the series, never by hand: extracts fs/fat
of Debian's linux-source-$LINE ($TARBALL, installed when
missing), applies the fs/fat part of every patch in patches/$LINE/series with
git apply, adds dkms/ (Kbuild, dkms.conf, the version files, debian/), and
builds the package with dpkg-buildpackage (dh-dkms).  lintian must report no
error.

The package's dkms.conf builds only for the kernel ABI whose linux-image
package has linux-source-$LINE's version (6.1.192-3 is linux-image-6.1.0-57-*);
dkms refuses any other kernel with a message (exit 77), and the Kbuild file
refuses a kernel of another Linux version.

  --out DIR     where the .deb, .changes, .dsc and lintian.txt go
                (default: <cache>/deb)
  --abi ABI     the kernel ABI to build for (default: looked up with apt-cache)
  --reuse       keep the package in DIR if it was made from the same inputs
                (series, dkms/, this script, linux-source-$LINE's version)

Prints the path of the .deb as its last line.
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

while (($#)); do
	case $1 in
	--out) [[ $# -ge 2 ]] || die "--out needs a directory"; OUT=$2; shift 2 ;;
	--abi) [[ $# -ge 2 ]] || die "--abi needs an ABI (6.1.0-N)"; KABI=$2; shift 2 ;;
	--reuse) REUSE=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
OUT=${OUT:-$CACHE/deb}
[[ -z $KABI || $KABI =~ ^6\.1\.0-[0-9]+$ ]] || die "--abi wants 6.1.0-N, not '$KABI'"

# ------------------------------------------------------------------ deps ---
need=()
for d in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms dkms:dkms \
	lintian:lintian git:git xz:xz-utils "$TARBALL":linux-source-$LINE; do
	what=${d%:*} pkg=${d##*:}
	if [[ $what == /* ]]; then
		[[ -e $what ]] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	need+=("$pkg")
done
if ((${#need[@]})); then
	[[ $(id -u) == 0 ]] || die "missing packages: ${need[*]} (apt-get install --no-install-recommends ${need[*]})"
	echo "$PROG: installing: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null >/dev/null
fi

# ---------------------------------------------------------------- versions --
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-$LINE 2>/dev/null) ||
	die "linux-source-$LINE is not installed"
# What the package is made of: the series, dkms/, this script.
INPUTS=("patches/$LINE" dkms scripts/mkdeb.sh)
# Debian native version: the source's version, then the package's revision,
# the number of commits that changed what the package is made of (and
# ".local" for uncommitted changes), so that other content is another
# version; a shallow clone would count too few.
[[ $(git -C "$REPO" rev-parse --is-shallow-repository 2>/dev/null) == false ]] ||
	die "$REPO: not a git clone, or a shallow one (git fetch --unshallow): the version counts its commits"
REV=$(git -C "$REPO" rev-list --count HEAD -- "${INPUTS[@]}")
[[ -z $(git -C "$REPO" status --porcelain -- "${INPUTS[@]}") ]] || REV+=.local
PKGVER=${SRCVER//-/.}+nlc$REV
MAINT=$(git -C "$REPO" log -1 --format='%an <%ae>' -- "${INPUTS[@]}")
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git -C "$REPO" log -1 --format=%ct -- "${INPUTS[@]}")
key=$( {
	echo "$SRCVER $KABI $PKGVER $MAINT $SOURCE_DATE_EPOCH"
	(cd "$REPO" && find "${INPUTS[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
} | sha256sum | cut -d' ' -f1) || die "cannot hash the package's inputs"
if [[ $REUSE == 1 && -f $OUT/package.env && $(cat "$OUT/package.key" 2>/dev/null) == "$key" ]]; then
	# shellcheck source=/dev/null
	. "$OUT/package.env"
	if [[ -f $DEB ]]; then
		echo "$PROG: inputs unchanged, package kept"
		echo "$DEB"
		exit 0
	fi
fi
# Has apt a version of package $1 that is linux-source's version?
of_source_version() {
	apt-cache madison "$1" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$SRCVER"
}
if [[ -z $KABI ]]; then
	# The linux-image-6.1.0-N-amd64 built from this very source version.
	for p in $(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' | cut -d' ' -f1); do
		if of_source_version "$p"; then
			KABI=${p#linux-image-}
			KABI=${KABI%-amd64}
		fi
	done
	[[ -n $KABI ]] || die "no linux-image-6.1.0-N-amd64 of version $SRCVER in apt's lists: run apt-get update, or upgrade linux-source-$LINE to the version of the current kernel packages"
elif ! of_source_version "linux-image-$KABI-amd64"; then
	die "--abi $KABI: linux-image-$KABI-amd64 is not of linux-source-$LINE's version $SRCVER"
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
top=linux-source-$LINE
tar -xJf "$TARBALL" -C "$TMP" "$top/Makefile" "$top/fs/fat"
kv=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } END { print v "." p "." s }' "$TMP/$top/Makefile")
[[ $kv == "${SRCVER%%-*}" ]] || die "$TARBALL is Linux $kv, but linux-source-$LINE is $SRCVER"

# ------------------------------------------------------- sources, patched --
n=0
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	grep -q '^diff --git a/fs/fat/' "$REPO/patches/$LINE/$p" || continue
	(cd "$TMP" && git apply --directory="$top" --include="$top/fs/fat/*" \
		"$REPO/patches/$LINE/$p") 2>"$TMP/apply.err" ||
		die "patches/$LINE/$p does not apply to fs/fat of $top $SRCVER: $(cat "$TMP/apply.err")"
	n=$((n + 1))
done <"$REPO/patches/$LINE/series"
((n > 0)) || die "no patch of patches/$LINE/series touches fs/fat"
# git apply skips what --include leaves out (and, inside a git work tree,
# paths outside it): check that fs/fat changed as the series says.
grep -q 'fat_short_name_match' "$TMP/$top/fs/fat/dir.c" ||
	die "fs/fat/dir.c was not patched (no fat_short_name_match)"
for f in inode.c namei_vfat.c; do
	grep -q 'nolongcreate' "$TMP/$top/fs/fat/$f" || die "fs/fat/$f was not patched (no nolongcreate)"
done
# Kbuild.in lists fs/fat/Makefile's objects: they must still be these.
for m in fat vfat msdos; do
	want=$(awk -v m="$m-y" '$1 == m && ($2 == ":=" || $2 == "+=" || $2 == "=") { for (i = 3; i <= NF; i++) print $i }' \
		"$TMP/$top/fs/fat/Makefile" | sort | paste -sd' ')
	have=$(awk -v m="$m-y" '$1 == m && $2 == ":=" { for (i = 3; i <= NF; i++) if ($i !~ /_version/) print $i }' \
		"$REPO/dkms/Kbuild.in" | sort | paste -sd' ')
	[[ $want == "$have" ]] || die "dkms/Kbuild.in: $m-y is '$have', fs/fat/Makefile has '$want'"
done

pkg=$TMP/vfat-nolongcreate-dkms-$PKGVER
mkdir -p "$pkg/src" "$pkg/debian/source"
for f in "$TMP/$top"/fs/fat/*.[ch]; do
	[[ ${f##*/} == fat_test.c ]] && continue # KUnit, not built here
	cp "$f" "$pkg/src/"
done
cp "$REPO"/dkms/{Makefile,fat_version.c,vfat_version.c,msdos_version.c} "$pkg/src/"
sed_repl() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }
subst() {
	sed -e "s|@PKG_VERSION@|$PKGVER|g" -e "s|@KERNEL_VERSION@|$kv|g" \
		-e "s|@SOURCE_VERSION@|$SRCVER|g" -e "s|@KABI@|$KABI|g" \
		-e "s|@KABI_RE@|${KABI//./\\\\.}|g" -e "s|@MAINTAINER@|$(sed_repl "$MAINT")|g" "$1"
}
subst "$REPO/dkms/Kbuild.in" >"$pkg/src/Kbuild"
subst "$REPO/dkms/dkms.conf.in" >"$pkg/src/dkms.conf"
subst "$REPO/dkms/debian/control.in" >"$pkg/debian/control"
cp "$REPO/dkms/debian/rules" "$REPO/dkms/debian/copyright" "$pkg/debian/"
cp "$REPO/dkms/debian/source/format" "$pkg/debian/source/"
{
	echo "vfat-nolongcreate-dkms ($PKGVER) bookworm; urgency=medium"
	echo
	echo "  * fs/fat of linux-source-$LINE $SRCVER (Linux $kv) with"
	echo "    patches/$LINE/series applied ($n patches touch fs/fat), for"
	echo "    linux-image-$KABI-* kernels."
	echo
	echo " -- $MAINT  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} >"$pkg/debian/changelog"

# ------------------------------------------------------------------ build --
(cd "$pkg" && dpkg-buildpackage -us -uc -tc) >"$TMP/build.log" 2>&1 ||
	{ tail -n 30 "$TMP/build.log" >&2; die "dpkg-buildpackage failed"; }
deb=vfat-nolongcreate-dkms_${PKGVER}_all.deb
[[ -f $TMP/$deb ]] || die "dpkg-buildpackage made no $deb"
changes=$(ls "$TMP"/vfat-nolongcreate-dkms_"$PKGVER"_*.changes)
lintian --fail-on error --info "$changes" >"$TMP/lintian.txt" 2>&1 ||
	{ cat "$TMP/lintian.txt" >&2; die "lintian reports errors"; }

mkdir -p "$OUT"
rm -f "$OUT"/vfat-nolongcreate-dkms_* "$OUT/package.key"
cp "$TMP"/vfat-nolongcreate-dkms_"$PKGVER"* "$OUT/"
cp "$TMP/lintian.txt" "$TMP/build.log" "$OUT/"
{
	printf 'PKGVER=%q\n' "$PKGVER"
	printf 'KABI=%q\n' "$KABI"
	printf 'SRCVER=%q\n' "$SRCVER"
	printf 'KERNEL_VERSION=%q\n' "$kv"
	printf 'DEB=%q\n' "$OUT/$deb"
} >"$OUT/package.env"
printf '%s\n' "$key" >"$OUT/package.key"
echo "$PROG: linux-source-$LINE $SRCVER (Linux $kv), $n patches on fs/fat, for linux-image-$KABI-*"
echo "$PROG: lintian: $(grep -c '^E: ' "$OUT/lintian.txt" || true) errors, $(grep -c '^W: ' "$OUT/lintian.txt" || true) warnings"
echo "$OUT/$deb"
