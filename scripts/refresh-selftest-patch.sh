#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the series' selftest patch from selftests/filesystems/fat/, the
# one source of truth for the suite, and renumber patches/ and its series.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate
SUITE=filesystems/fat
SUBJECT="selftests: filesystems: fat: add nolongcreate tests"

usage() {
	cat <<EOF
usage: $PROG [--cache DIR]

Rebuilds the selftest patch of patches/series from selftests/$SUITE/:
applies the other patches of the series to a scratch clone of the pristine
tree that ./qemu-run.sh keeps in its cache, replaces
tools/testing/selftests/$SUITE/ with selftests/$SUITE/, commits that with
the current selftest patch's message and author (or a default one), and
writes the series out again with git format-patch.  The hand-written
0000-cover-letter.patch is left alone.  ./qemu-run.sh fails when
selftests/$SUITE/ and the series disagree: run this after editing the suite.

  --cache DIR   the runner's cache (default: $CACHE)
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

while (($#)); do
	case $1 in
	--cache) [[ $# -ge 2 ]] || die "--cache needs a directory"; CACHE=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

SRC=$CACHE/src/linux
git -C "$SRC" rev-parse -q --verify pristine >/dev/null 2>&1 ||
	die "no pristine kernel tree in $SRC: run ./qemu-run.sh --check-series first"
[[ -d $REPO/selftests/$SUITE ]] || die "no selftests/$SUITE in $REPO"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git clone -q --shared --no-checkout "$SRC" "$TMP/linux"
cd "$TMP/linux"
git config user.name "$(git -C "$REPO" config user.name)"
git config user.email "$(git -C "$REPO" config user.email)"
git checkout -q -b series pristine

selftest_patch=
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	if [[ $p == *-selftests-* ]]; then
		selftest_patch=$REPO/patches/$p
		continue
	fi
	git am -q "$REPO/patches/$p" || die "patches/$p does not apply"
done <"$REPO/patches/series"

rm -rf "tools/testing/selftests/$SUITE"
cp -a "$REPO/selftests/$SUITE" "tools/testing/selftests/$SUITE"
git add -f -A "tools/testing/selftests/$SUITE"

if [[ -n $selftest_patch ]]; then
	git mailinfo "$TMP/msg" /dev/null <"$selftest_patch" >"$TMP/info"
	subject=$(sed -n 's/^Subject: //p' "$TMP/info")
	author="$(sed -n 's/^Author: //p' "$TMP/info") <$(sed -n 's/^Email: //p' "$TMP/info")>"
	date=$(sed -n 's/^Date: //p' "$TMP/info")
	{ printf '%s\n\n' "$subject"; cat "$TMP/msg"; } >"$TMP/commit-msg"
	git commit -q --allow-empty --author="$author" --date="$date" -F "$TMP/commit-msg"
else
	git commit -q -s -m "$SUBJECT"
fi

find "$REPO/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-*' -delete
git format-patch -q --zero-commit --no-signature -o "$REPO/patches" pristine..series
for f in "$REPO"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
	f=${f##*/}
	[[ $f == 0000-* ]] || printf '%s\n' "$f"
done >"$REPO/patches/series"
echo "$PROG: patches/ regenerated:"
sed 's/^/  /' "$REPO/patches/series"
