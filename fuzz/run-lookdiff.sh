#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-lookdiff.sh [--count N] [--seed S] [--per-batch L] [--kernel LINE] [qemu-run.sh options...]
# The lookup differential test of the 8.3 fast path (patch $FAST): nlc-lookdiff
# (fuzz/lookdiff.c) on the kernel with it and without it (qemu-run.sh
# --without), batch by batch; a differing batch is run again verbosely.  A
# vacuous run fails too.  Exit status 0: no disagreement; make lookdiff;
# docs/differential-tests.md.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
FAST=fat-show-plain-ASCII-8.3-names
COUNT=100000 SEED='' PER=100
QARGS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--count) COUNT=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--per-batch) PER=$2; shift 2 ;;
	--cache) CACHE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	*) QARGS+=("$1"); shift ;;
	esac
done
[[ -n $SEED ]] || SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
OUT=$CACHE/lookdiff
mkdir -p "$OUT"
"$REPO/fuzz/build-static.sh" "$OUT/bin"
ARGS="--seed $SEED --count $COUNT --per-batch $PER"
REPRO="$0 $ARGS${QARGS[*]:+ ${QARGS[*]}}"
echo "=== nlc-lookdiff $ARGS, kernel with and without $FAST"

# guest KERNEL TAG NLC-ARGS: boot, keep the guest job's output in $OUT/TAG.txt
guest() {
	local args=() rc=0 t=$SECONDS
	[[ $1 == without ]] && args=(--without "$FAST")
	# ~1000-2500 cold lookups/s under TCG (drop_caches twice each); ample margin
	"$REPO/qemu-run.sh" "${args[@]}" --no-suite --timeout $((600 + COUNT / 100)) \
		--run "$OUT/bin/nlc-lookdiff $3" "${QARGS[@]}" >"$OUT/$2.log" 2>&1 || rc=$?
	sed -n '/^--- guest command output/,/^--- end of guest command output/p' "$OUT/$2.log" |
		tr -d '\r' | grep -E '^(BATCH|TOTAL|LIST|LOOKUP|PROBE) ' >"$OUT/$2.txt" || true
	if [[ $rc != 0 ]] || ! grep -q '^TOTAL ' "$OUT/$2.txt"; then
		tail -n 30 "$OUT/$2.log" >&2
		echo "run-lookdiff.sh: the $1 kernel's run failed (qemu-run.sh exit $rc; log $OUT/$2.log)" >&2
		echo "reproduce: $REPRO" >&2
		exit 1
	fi
	echo "  $1: $(grep '^TOTAL ' "$OUT/$2.txt") (boot and all: $((SECONDS - t)) s)"
	echo "  $1: $(grep '^PROBE ' "$OUT/$2.txt")"
}
guest with with "$ARGS"
guest without without "$ARGS"

total() { # FILE FIELD
	sed -n "s/^TOTAL .*\\<$2=\\([0-9]*\\).*/\\1/p" "$1"
}
batches=$(grep -c '^BATCH ' "$OUT/with.txt")
first=$(diff <(grep '^BATCH ' "$OUT/with.txt") <(grep '^BATCH ' "$OUT/without.txt") |
	sed -n 's/^[<>] BATCH \([0-9]*\) .*/\1/p' | head -n 1) || true
lookups=$(total "$OUT/with.txt" lookups)
if [[ -n $first ]]; then
	ndiff=$(diff <(grep '^BATCH ' "$OUT/with.txt") <(grep '^BATCH ' "$OUT/without.txt") | grep -c '^<' || true)
	echo "DISAGREEMENT: $ndiff of $batches batches differ; the first is batch $first:"
	grep "^BATCH $first " "$OUT/with.txt" | sed 's/^/  with:    /'
	grep "^BATCH $first " "$OUT/without.txt" | sed 's/^/  without: /'
	guest with "with-$first" "$ARGS --only-batch $first --verbose"
	guest without "without-$first" "$ARGS --only-batch $first --verbose"
	echo "  lines that differ (< with, > without; names in hex, answer: size and mode of the entry, or -errno):"
	{ diff "$OUT/with-$first.txt" "$OUT/without-$first.txt" | grep '^[<>]' | head -n 40 | sed 's/^/  /'; } || true
	echo "run-lookdiff.sh: FAILED; reproduce: $REPRO" >&2
	exit 1
fi
# not vacuous
fail=()
# whole batches: --count rounded up to a multiple of --per-batch
want=$(((COUNT + PER - 1) / PER * PER))
[[ $lookups == "$(total "$OUT/without.txt" lookups)" && $lookups == "$want" ]] ||
	fail+=("lookups: $lookups, want $want on both kernels")
for f in with without; do
	grep -q '^PROBE .*after drop_caches: No such file or directory' "$OUT/$f.txt" ||
		fail+=("the $f kernel's probe did not show lookups after drop_caches reading the directory")
done
found=$(total "$OUT/with.txt" found) plain=$(total "$OUT/with.txt" found_plain)
other=$(total "$OUT/with.txt" found_other) nonascii=$(total "$OUT/with.txt" nonascii)
mfail=$(total "$OUT/with.txt" mount_fail)
((found * 10 >= lookups)) || fail+=("only $found of $lookups lookups found an entry")
((plain * 20 >= lookups)) || fail+=("only $plain lookups found an entry the fast path shows")
((other * 50 >= lookups)) || fail+=("only $other lookups found an entry the old path shows")
((nonascii * 20 >= lookups)) || fail+=("only $nonascii names with a byte >= 0x80")
((mfail * 10 <= batches)) || fail+=("$mfail of $batches mounts failed")
for f in fat12 fat16 fat32 in_sub; do
	(($(total "$OUT/with.txt" $f) > 0)) || fail+=("no lookup in a $f directory")
done
(($(total "$OUT/with.txt" in_sub) < lookups)) || fail+=("no lookup in a root directory")
if [[ ${#fail[@]} -gt 0 ]]; then
	printf 'run-lookdiff.sh: vacuous run: %s\n' "${fail[@]}" >&2
	echo "reproduce: $REPRO" >&2
	exit 1
fi
for f in with without; do
	echo "  $f: drop_caches took $(sed -n 's/^TOTAL .*drop_caches_s=\([0-9.]*\).*/\1/p' "$OUT/$f.txt") s and the lookups $(sed -n 's/^TOTAL .*lookup_s=\([0-9.]*\).*/\1/p' "$OUT/$f.txt") s of $(sed -n 's/^TOTAL .*seconds=\([0-9.]*\).*/\1/p' "$OUT/$f.txt") s"
done
echo "lookdiff: 0 disagreements in $lookups cold lookups ($batches batches, seed $SEED): found $found ($plain through entries the fast path shows, $other through the old path), $nonascii names with bytes >= 0x80, $mfail mounts refused; lookups in FAT12/16/32 $(total "$OUT/with.txt" fat12)/$(total "$OUT/with.txt" fat16)/$(total "$OUT/with.txt" fat32), in a subdirectory $(total "$OUT/with.txt" in_sub)"
