#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/fastpath-stacked.sh [--write] - is patches/fastpath-7.3/ (the 8.3
# fast path on top of the option series, which patches/7.3/series applies
# for qemu-run.sh's kernels) the same change as patches/fastpath/ (the RFC
# as posted, on pristine 7.3)?  Their added and removed lines, file by
# file, may differ only as patches/fastpath-7.3/resolution.txt records:
# where the two meet (NLS lines and the KUnit namespace import the series
# already has, the remount comment).  Exit status 0: no other difference;
# 1: another one (shown: change both copies alike, then --write records
# the new difference, to be read before committing).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ALONE=$REPO/patches/fastpath
STACKED=$REPO/patches/fastpath-7.3
RES=$STACKED/resolution.txt

# the added and removed lines of a patch, each with its file
lines() {
	awk '/^diff --git /{ f = $3 } /^(\+\+\+|---) /{ next } f && /^[-+]/ { print f ": " $0 }' "$@"
}
got=$(diff <(lines "$ALONE"/0001-*.patch) <(lines "$STACKED"/0001-*.patch) || true)
if [[ ${1:-} == --write ]]; then
	printf '%s\n' "$got" >"$RES"
	echo "fastpath-stacked.sh: wrote ${RES#"$REPO"/} ($(wc -l <"$RES") lines)"
	exit 0
fi
if [[ $got == "$(cat "$RES")" ]]; then
	echo "fastpath-stacked.sh: patches/fastpath-7.3 is patches/fastpath but for the $(grep -c '^[<>]' "$RES") lines of ${RES#"$REPO"/}"
	exit 0
fi
echo "fastpath-stacked.sh: patches/fastpath and patches/fastpath-7.3 differ beyond ${RES#"$REPO"/}:" >&2
diff <(cat "$RES") <(printf '%s\n' "$got") >&2 || true
exit 1
