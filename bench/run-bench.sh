#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh [--rounds R] [--sizes N,...] [--big-sizes N,...] [--big-rounds R]
#              [--no-copy] [--kernel LINE] [qemu-run.sh options...]
# make bench: nolongcreate against default vfat and msdos (bench/bench.c) on
# the kernel with the 8.3 fast path (patch $FAST) and without it, boots
# alternating; bench/results.md and plot.png (docs/benchmarks.md).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
FAST=fat-show-plain-ASCII-8.3-names
ROUNDS=3 SIZES=500,2000,4000 BIG_SIZES=8000 BIG_ROUNDS=1 COPY=1 KLINE=6.1
QARGS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--big-sizes) BIG_SIZES=$2; shift 2 ;;
	--big-rounds) BIG_ROUNDS=$2; shift 2 ;;
	--no-copy) COPY=0; shift ;;
	--cache) CACHE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	--kernel) KLINE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	*) QARGS+=("$1"); shift ;;
	esac
done
OUT=$CACHE/bench
mkdir -p "$OUT"

if ! command -v gnuplot >/dev/null 2>&1; then
	if [[ $(id -u) == 0 ]]; then
		echo "[bench] installing gnuplot-nox"
		DEBIAN_FRONTEND=noninteractive apt-get update </dev/null >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnuplot-nox </dev/null >/dev/null
	else
		echo "run-bench.sh: gnuplot missing: apt-get install gnuplot-nox" >&2
		exit 2
	fi
fi

"$REPO/fuzz/build-static.sh" "$OUT/bin"
echo "[bench] building the kernel with the fast path, and without it"
"$REPO/qemu-run.sh" --kernel-only "${QARGS[@]}"
"$REPO/qemu-run.sh" --kernel-only --without "$FAST" "${QARGS[@]}"
start=$SECONDS

: >"$OUT/raw.txt"
boots=0
boot() { # KERNEL ROUND SIZES SETS
	local k=$1 args=() log=$OUT/qemu-run-$1-$2-$3.log rc=0 t=$SECONDS runs
	runs=$(grep -c '^RUN ' "$OUT/raw.txt" || true)
	[[ $k == without ]] && args=(--without "$FAST")
	"$REPO/qemu-run.sh" --no-build "${args[@]}" --no-suite --timeout 5400 \
		--run "$OUT/bin/nlc-bench --kernel $k --round $2 --sizes $3 --sets $4" \
		"${QARGS[@]}" >"$log" 2>&1 || rc=$?
	# qemu-run.sh prints the guest job's output between these lines
	sed -n '/^--- guest command output/,/^--- end of guest command output/p' "$log" |
		tr -d '\r' | grep -E '^(RAW|RUN) ' >>"$OUT/raw.txt" || true
	# this boot's own RUN line: one more than before it
	if [[ $rc != 0 ]] || [[ $(grep -c "^RUN " "$OUT/raw.txt" || true) != $((runs + 1)) ]] ||
		[[ $(grep '^RUN ' "$OUT/raw.txt" | tail -n 1) != "RUN kernel=$k round=$2 "* ]]; then
		tail -n 40 "$log" >&2
		echo "run-bench.sh: the $k boot of round $2 did not complete (qemu-run.sh exit $rc); log: $log" >&2
		exit 1
	fi
	boots=$((boots + 1))
	echo "[bench] round $2, sizes $3, kernel $k: $((SECONDS - t)) s"
}
pair() { # ROUND SIZES SETS: the two kernels, in turn first
	if (((boots / 2) % 2 == 0)); then
		boot without "$@"; boot with "$@"
	else
		boot with "$@"; boot without "$@"
	fi
}
for ((r = 1; r <= ROUNDS; r++)); do
	pair "$r" "$SIZES" lower,upper,long
done
for ((r = 1; r <= BIG_ROUNDS; r++)); do
	[[ -n $BIG_SIZES ]] && pair "$r" "$BIG_SIZES" lower,upper
done
secs=$((SECONDS - start))

"$OUT/bin/nlc-bench" --report "$OUT/raw.txt" >"$OUT/report.txt"
section() {
	sed -n "/^@@@NLC-BENCH-BEGIN $1\$/,/^@@@NLC-BENCH-END $1\$/p" "$OUT/report.txt" | sed '1d;$d'
}
section plot.dat >"$OUT/plot.dat"
{
	section results.md
	echo
	echo "Kernel: linux-source-$KLINE with patches/$KLINE/ (normal config), and the same without"
	echo "the patch $FAST (\`qemu-run.sh --without $FAST\`)."
	echo "\`make bench\`: $ROUNDS round(s) of N = $SIZES, $BIG_ROUNDS of N = $BIG_SIZES; $boots boots,"
	echo "${secs} s on the host in all (both kernels already built)."
	echo "Raw per-round numbers: \`RAW\` lines of <cache>/bench/raw.txt."
} >"$OUT/results.md"
gnuplot -e "datafile='$OUT/plot.dat'; outfile='$OUT/plot.png'; subtitle='$ROUNDS round(s) of N = $SIZES, $BIG_ROUNDS of N = $BIG_SIZES'" \
	"$REPO/bench/plot.gp"
cat "$OUT/results.md"
echo "bench: $OUT/results.md $OUT/plot.png"
if [[ $COPY == 1 ]]; then
	cp "$OUT/results.md" "$REPO/bench/results.md"
	cp "$OUT/plot.png" "$REPO/bench/plot.png"
	cp "$OUT/raw.txt" "$REPO/bench/raw.txt"
	echo "bench: copied to bench/results.md, bench/plot.png and bench/raw.txt"
fi
