#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-fuzz.sh [--count N] [--seed S] [--batch B] [qemu-run.sh options...]
#
# The randomized differential test of nolongcreate: checks the model on the
# host (contract examples per mount configuration, its CP437 and iso8859-1
# tables against the kernel's fs/nls), builds nlc-fuzz, then boots the
# patched kernel (./qemu-run.sh, normal config, building it if needed) with
# only nlc-fuzz as the guest job.  Each batch of names runs on a random
# mount configuration; after it the raw image is compared with the model
# and every accepted name is looked up again after a cold mount.
# Without --seed a random seed is drawn (and printed) here.
# Output: the guest's output; results in <cache>/fuzz/last-run.txt.
# Exit status 0: no disagreement between kernel and model.
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
