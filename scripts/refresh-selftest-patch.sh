#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the series' selftest patch of each kernel line from
# selftests/filesystems/fat/, the one source of truth for the suite (shared
# by all lines), and renumber patches/<line>/ and its series.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate
SUITE=filesystems/fat
SUBJECT="selftests: filesystems: fat: add nolongcreate tests"
DEFAULT_LINE=6.1
KLINES=()

usage() {
	cat <<EOF
usage: $PROG [--kernel LINE]... [--cache DIR]

Rebuilds the selftest patch of patches/LINE/series from selftests/$SUITE/,
for every kernel line (every patches/LINE/ with a series file) or only the
ones given with --kernel: applies the other patches of that line's series
to a scratch clone of the line's pristine tree that ./qemu-run.sh keeps in
its cache (src/LINE/linux), copies selftests/$SUITE/ over
tools/testing/selftests/$SUITE/ (upstream files that selftests/ does not
hold, such as run_fat_tests.sh, stay as that tree has them), commits that with the line's current selftest patch's
message and author (a line without one yet takes the $DEFAULT_LINE line's),
and writes patches/LINE/ and its series out again with git format-patch.
The hand-written 0000-cover-letter.patch is left alone.  ./qemu-run.sh
fails when selftests/$SUITE/ and a line's series disagree: run this after
editing the suite.

  --kernel LINE  only this kernel line (repeatable; default: all lines)
  --cache DIR    the runner's cache (default: $CACHE)
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

while (($#)); do
	case $1 in
	--cache) [[ $# -ge 2 ]] || die "--cache needs a directory"; CACHE=$2; shift 2 ;;
	--kernel) [[ $# -ge 2 ]] || die "--kernel needs a kernel line"; KLINES+=("$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

[[ -d $REPO/selftests/$SUITE ]] || die "no selftests/$SUITE in $REPO"
if [[ ${#KLINES[@]} -eq 0 ]]; then
	for d in "$REPO"/patches/*/series; do
		[[ -e $d ]] || continue
		d=${d%/series}
		KLINES+=("${d##*/}")
	done
	[[ ${#KLINES[@]} -gt 0 ]] || die "no patches/LINE/series in $REPO"
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The selftest patch named in a line's series (empty if none).
selftest_patch_of() { # LINE
	local p
	[[ -f $REPO/patches/$1/series ]] || return 0
	while read -r p; do
		[[ $p == *-selftests-* ]] && { printf '%s\n' "$REPO/patches/$1/$p"; return 0; }
	done <"$REPO/patches/$1/series"
}

refresh() { # LINE
	local line=$1 pdir=$REPO/patches/$1 src=$CACHE/src/$1/linux work=$TMP/$1
	local p f selftest_patch msg_from subject author date
	[[ -f $pdir/series ]] || die "no patches/$line/series"
	git -C "$src" rev-parse -q --verify pristine >/dev/null 2>&1 ||
		die "no pristine $line kernel tree in $src: run ./qemu-run.sh --kernel $line --check-series first"
	git clone -q --shared --no-checkout "$src" "$work"
	cd "$work"
	git config user.name "$(git -C "$REPO" config user.name)"
	git config user.email "$(git -C "$REPO" config user.email)"
	git checkout -q -b series pristine

	selftest_patch=
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		if [[ $p == *-selftests-* ]]; then
			selftest_patch=$pdir/$p
			continue
		fi
		git am -q "$pdir/$p" || die "patches/$line/$p does not apply"
	done <"$pdir/series"

	mkdir -p "tools/testing/selftests/$SUITE"
	cp -a "$REPO/selftests/$SUITE/." "tools/testing/selftests/$SUITE/"
	git add -f -A "tools/testing/selftests/$SUITE"

	msg_from=$selftest_patch
	[[ -n $msg_from ]] || msg_from=$(selftest_patch_of "$DEFAULT_LINE")
	if [[ -n $msg_from ]]; then
		git mailinfo "$TMP/msg" /dev/null <"$msg_from" >"$TMP/info"
		subject=$(sed -n 's/^Subject: //p' "$TMP/info")
		author="$(sed -n 's/^Author: //p' "$TMP/info") <$(sed -n 's/^Email: //p' "$TMP/info")>"
		date=$(sed -n 's/^Date: //p' "$TMP/info")
		{ printf '%s\n\n' "$subject"; cat "$TMP/msg"; } >"$TMP/commit-msg"
		git commit -q --allow-empty --author="$author" --date="$date" -F "$TMP/commit-msg"
	else
		git commit -q -s -m "$SUBJECT"
	fi

	find "$pdir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' -delete
	git format-patch -q --zero-commit --no-signature -o "$pdir" pristine..series
	for f in "$pdir"/[0-9][0-9][0-9][0-9]-*.patch; do
		f=${f##*/}
		[[ $f == 0000-* ]] || printf '%s\n' "$f"
	done >"$pdir/series"
	cd "$REPO"
	echo "$PROG: patches/$line/ regenerated:"
	sed 's/^/  /' "$pdir/series"
}

for l in "${KLINES[@]}"; do
	refresh "$l"
done
