#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refresh-selftest-patch.sh - write each line's selftest patch again from
# selftests/filesystems/fat/, the suite's one source (--help); --compare is
# qemu-run.sh's check that a line's patched tree holds that suite.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=scripts/lib/common.sh
. "$REPO/scripts/lib/common.sh"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate
SUITE=filesystems/fat
# a header shared with other suites that the suite adds to: copied over
# the tree's own where the tree has it (older trees lack it, and the
# suite then does without it)
SHARED=filesystems/wrappers.h
# selftests/$BACKPORT/LINE.diff: what a line's form of the suite differs
# in from mainline's (headers, harness features that line lacks)
BACKPORT=backport
SUBJECT="selftests: filesystems: fat: add nolongcreate tests"
DEFAULT_LINE=6.1
KLINES=()

usage() {
	cat <<EOF
usage: $PROG [--kernel LINE]... [--cache DIR]
       $PROG --compare LINE TREE

Rebuilds the selftest patch of patches/LINE/series from selftests/$SUITE/,
for every kernel line with a series or only those given with --kernel: in a
scratch clone of the line's pristine tree that ./qemu-run.sh keeps in its
cache (src/LINE/linux) it applies the series, except that at the selftest
patch's place it copies the line's form of selftests/$SUITE/ over the tree's
(and selftests/$SHARED over the tree's own, where there is one) and commits
that with the patch's whole message, author and date (a line without one
gets it last, with the $DEFAULT_LINE line's message); then git format-patch
writes patches/LINE/ and its series again, in the same order (the
0000-cover-letter.patch is left alone).  Run it after editing the suite:
./qemu-run.sh fails while the two disagree.

A line's form is selftests/$SUITE/ (mainline's) with
selftests/$BACKPORT/LINE.diff applied where there is one (patch -p1 in
selftests/, no fuzz): an older tree's compat differences.  When it no longer
applies, make the line's form by hand and write the diff again ("diff -u
--label a/$SUITE/F --label b/$SUITE/F" of each file changed).

  --kernel LINE  only this kernel line (repeatable; default: all lines)
  --cache DIR    the runner's cache (default: $CACHE)
  --compare LINE TREE
                 exit 1, with the difference, unless TREE's
                 tools/testing/selftests/$SUITE/ has LINE's form of
                 selftests/$SUITE/ (and its $SHARED, where TREE has one)
EOF
}

COMPARE=
while (($#)); do
	case $1 in
	--compare)
		[[ $# -ge 3 ]] || die "--compare needs a kernel line and a tree"
		KLINES=("$2"); COMPARE=$3; shift 3 ;;
	--cache) [[ $# -ge 2 ]] || die "--cache needs a directory"; CACHE=$2; shift 2 ;;
	--kernel) [[ $# -ge 2 ]] || die "--kernel needs a kernel line"; KLINES+=("$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

[[ -d $REPO/selftests/$SUITE ]] || die "no selftests/$SUITE in $REPO"

# LINE's form of selftests/$SUITE/ into DIR/$SUITE/: mainline's, with
# selftests/$BACKPORT/LINE.diff applied where there is one
line_form() { # LINE DIR
	local diff=$REPO/selftests/$BACKPORT/$1.diff
	mkdir -p "$2/$SUITE"
	cp -a "$REPO/selftests/$SUITE/." "$2/$SUITE/"
	[[ -f $diff ]] || return 0
	patch -s -p1 -F0 -N -r - --no-backup-if-mismatch -d "$2" -i "$diff" >&2 ||
		die "selftests/$BACKPORT/$1.diff does not apply to selftests/$SUITE/ (see $PROG --help)"
}

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

if [[ -n $COMPARE ]]; then
	# the suite's own files (the tree's others, run_fat_tests.sh..., stay its own)
	kdir=$COMPARE/tools/testing/selftests
	line_form "${KLINES[0]}" "$TMP/form"
	differ=$(diff -r "$TMP/form/$SUITE" "$kdir/$SUITE" 2>&1 | grep -v "^Only in $kdir/$SUITE" || true)
	if [[ -f $REPO/selftests/$SHARED && -f $kdir/$SHARED ]]; then
		differ+=$(diff "$REPO/selftests/$SHARED" "$kdir/$SHARED" 2>&1 || true)
	fi
	[[ -z $differ ]] && exit 0
	printf '%s\n' "$differ"
	die "selftests/$SUITE (line ${KLINES[0]}'s form) differs from $kdir/$SUITE"
fi

# The selftest patch named in a line's series (empty if none).
selftest_patch_of() { # LINE
	local p
	[[ -f $REPO/patches/$1/series ]] || return 0
	while read -r p; do
		[[ $p == *-selftests-* ]] && { printf '%s\n' "$REPO/patches/$1/$p"; return 0; }
	done <"$REPO/patches/$1/series"
}

# The commit message of a format-patch file, whole: the body runs from the
# headers to the "---" line before the diffstat, the last one before the
# first "diff --git".  git mailinfo (so git am) stops at the first "---"
# and would drop the notes (v4: ...) the message carries below its own.
patch_body() { # PATCH
	awk 'body { l[++n] = $0; if ($0 == "---") sep = n; if (/^diff --git /) exit; next }
		/^$/ { body = 1 }
		END { if (!sep) exit 1; for (i = 1; i < sep; i++) print l[i] }' "$1"
}

# PATCH's whole commit message (subject, blank line, body) to
# $TMP/commit-msg, and its headers as git mailinfo reads them to $TMP/info.
patch_message() { # PATCH
	git mailinfo "$TMP/msg" /dev/null <"$1" >"$TMP/info"
	{
		printf '%s\n\n' "$(sed -n 's/^Subject: //p' "$TMP/info")"
		patch_body "$1" || die "${1#"$REPO"/}: no \"---\" line before the diff"
	} >"$TMP/commit-msg"
}

# git am of PATCH, then its whole message back in the commit.
apply_patch() { # PATCH
	git am -q -3 "$1" || die "${1#"$REPO"/} does not apply"
	patch_message "$1"
	# whitespace, not strip: a "#" line of the message is text, not a comment
	git commit -q --amend --allow-empty --cleanup=whitespace -F "$TMP/commit-msg"
}

# In the current directory (a tree with the series applied up to the
# selftest patch's place): copy LINE's form of selftests/$SUITE/ into the
# tree and commit
# it with MSGFROM's subject, whole message, author and date, or with
# "$SUBJECT" and a sign-off when MSGFROM is empty.
commit_selftests() { # LINE MSGFROM
	local line=$1 msg_from=$2 author date
	line_form "$line" "$TMP/form-$line"
	mkdir -p "tools/testing/selftests/$SUITE"
	cp -a "$TMP/form-$line/$SUITE/." "tools/testing/selftests/$SUITE/"
	git add -f -A "tools/testing/selftests/$SUITE"
	# the suite's additions to a shared header, on trees that have it
	if [[ -f $REPO/selftests/$SHARED && -f tools/testing/selftests/$SHARED ]]; then
		cp "$REPO/selftests/$SHARED" "tools/testing/selftests/$SHARED"
		git add -f "tools/testing/selftests/$SHARED"
	fi
	if [[ -z $msg_from ]]; then
		git commit -q -s -m "$SUBJECT"
		return
	fi
	patch_message "$msg_from"
	author="$(sed -n 's/^Author: //p' "$TMP/info") <$(sed -n 's/^Email: //p' "$TMP/info")>"
	date=$(sed -n 's/^Date: //p' "$TMP/info")
	git commit -q --allow-empty --cleanup=whitespace --author="$author" \
		--date="$date" -F "$TMP/commit-msg"
}

refresh() { # LINE
	local line=$1 pdir=$REPO/patches/$1 src=$CACHE/src/$1/linux work=$TMP/$1
	local p f found="" abbrev
	[[ -f $pdir/series ]] || die "no patches/$line/series"
	git -C "$src" rev-parse -q --verify pristine >/dev/null 2>&1 ||
		die "no pristine $line kernel tree in $src: run ./qemu-run.sh --kernel $line --check-series first"
	git clone -q --shared --no-checkout "$src" "$work"
	cd "$work"
	git config user.name "$(git -C "$REPO" config user.name)"
	git config user.email "$(git -C "$REPO" config user.email)"
	git checkout -q -b series pristine

	# the series in order, the selftest patch replaced by selftests/ at
	# its own place (the fast path after it stays after it)
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		if [[ $p == *-selftests-* ]]; then
			commit_selftests "$line" "$pdir/$p"
			found=1
			continue
		fi
		apply_patch "$pdir/$p"
	done <"$pdir/series"
	[[ -n $found ]] || commit_selftests "$line" "$(selftest_patch_of "$DEFAULT_LINE")"

	# the hash length of the index lines the patches have (git's default
	# depends on the object count of the tree they came from), so that a
	# refresh changes only what changed
	abbrev=$(awk '/^index [0-9a-f]+\.\./ { split($2, h, "."); print length(h[1]); exit }' \
		"$pdir"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
	cp "$pdir/series" "$pdir/series.old"
	find "$pdir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' -delete
	# entries of another directory (../fastpath/...), last in the series,
	# stay as they are; only the line's own patches are written out
	local -a ext=()
	mapfile -t ext < <(grep '/' "$pdir/series.old" || true)
	git format-patch -q --zero-commit --no-signature ${abbrev:+--abbrev="$abbrev"} \
		-o "$pdir" "pristine..series~${#ext[@]}"
	{
		for f in "$pdir"/[0-9][0-9][0-9][0-9]-*.patch; do
			f=${f##*/}
			[[ $f == 0000-* ]] || printf '%s\n' "$f"
		done
		printf '%s\n' "${ext[@]}"
	} >"$pdir/series"
	rm -f "$pdir/series.old"
	cd "$REPO"
	echo "$PROG: patches/$line/ regenerated:"
	sed 's/^/  /' "$pdir/series"
}

for l in "${KLINES[@]}"; do
	refresh "$l"
done
