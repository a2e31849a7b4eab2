#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-fuzz.sh [--count N] [--seed S] [--batch B] [qemu-run.sh options...]
# make fuzz: the model's host check, then nlc-fuzz in the guest of
# ./qemu-run.sh: random names on random mount configurations against the
# model (docs/differential-tests.md).  Exit status 0: no disagreement.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
COUNT=100000 SEED='' BATCH=200 KLINE=6.1
QARGS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--count) COUNT=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--batch) BATCH=$2; shift 2 ;;
	--cache) CACHE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	--kernel) KLINE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	*) QARGS+=("$1"); shift ;;
	esac
done
[[ -n $SEED ]] || SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
OUT=$CACHE/fuzz
mkdir -p "$OUT"
echo "=== model check on the host (fuzz/check-model.sh)"
VFAT_CACHE=$CACHE "$REPO/fuzz/check-model.sh" "$CACHE/src/$KLINE/linux"
echo "=== nlc-fuzz in the guest: --seed $SEED --count $COUNT --batch $BATCH"
"$REPO/fuzz/build-static.sh" "$OUT/bin"
# ~1000 names/s under TCG on a 2-core host; allow for 4x slower.
timeout=$((300 + COUNT / 250))
rc=0
"$REPO/qemu-run.sh" --no-suite --timeout "$timeout" \
	--run "$OUT/bin/nlc-fuzz --seed $SEED --count $COUNT --batch $BATCH" \
	"${QARGS[@]}" 2>&1 | tee "$OUT/last-run.txt" || rc=$?
if [[ $rc != 0 ]]; then
	echo "run-fuzz.sh: FAILED (seed $SEED); reproduce: $0 --seed $SEED --count $COUNT --batch $BATCH" >&2
fi
exit "$rc"
