#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-series.sh LINE TREE LOGDIR PATCH... - the checks of qemu-run.sh
# --check-series on the series applied in TREE: checkpatch.pl --strict of
# TREE on each PATCH (scripts/checkpatch-one.sh: ERRORs and WARNINGs fail,
# CHECKs are shown) and, where patches/fastpath-LINE/ is, fastpath-stacked.sh.
# One "  ok   ..." or "  FAIL ..." line each; exit status 1 if any failed.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LINE=$1 TREE=$2 LOGDIR=$3
shift 3
bad=0
for f in "$REPO/patches/$LINE"/*.patch; do
	[[ -e $f && ${f##*/} != 0000-cover-letter.patch && " $* " != *" $f "* ]] &&
		echo "qemu-run.sh: warning: patches/$LINE/${f##*/} is not listed in patches/$LINE/series" >&2
done
for p; do
	log=$LOGDIR/checkpatch-${p##*/}.log
	if "$REPO/scripts/checkpatch-one.sh" "$TREE" "$p" >"$log"; then
		echo "  ok   checkpatch ${p##*/} ($(tail -n 1 "$log" | sed 's/^verdict: clean, //'))"
		grep -A2 '^CHECK:' "$log" | sed 's/^/  | /'
	else
		echo "  FAIL checkpatch ${p##*/}"
		sed 's/^/  | /' "$log"
		bad=1
	fi
done
# the fast path stacked on this line's series: the posted RFC's change
if [[ -f $REPO/patches/fastpath-$LINE/resolution.txt ]]; then
	if "$REPO/scripts/fastpath-stacked.sh" >"$LOGDIR/fastpath-stacked.log" 2>&1; then
		echo "  ok   $(cat "$LOGDIR/fastpath-stacked.log")"
	else
		echo "  FAIL patches/fastpath-$LINE is not the change of patches/fastpath"
		sed 's/^/  | /' "$LOGDIR/fastpath-stacked.log"
		bad=1
	fi
fi
exit "$bad"
