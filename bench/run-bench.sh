#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh [--rounds R] [--sizes N,N,...] [--no-copy] [--kernel LINE] [qemu-run.sh options...]
#
# Benchmark of vfat nolongcreate against default vfat and msdos in the QEMU
# guest (bench/bench.c): builds nlc-bench, boots the patched kernel (normal
# config, built if needed) with nlc-bench as the only guest job, and writes
# <cache>/bench/{raw.txt,results.md,plot.dat,plot.png}.  Unless --no-copy,
# results.md and plot.png are copied to bench/ in the repository.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
ROUNDS=3 SIZES=500,2000,4000 COPY=1 KLINE=6.1
QARGS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
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
start=$SECONDS
rc=0
"$REPO/qemu-run.sh" --no-suite --timeout 2400 \
	--run "$OUT/bin/nlc-bench --rounds $ROUNDS --sizes $SIZES" \
	"${QARGS[@]}" >"$OUT/qemu-run.log" 2>&1 || rc=$?
secs=$((SECONDS - start))
# qemu-run.sh prints the guest job's output between these lines
sed -n '/^--- guest command output/,/^--- end of guest command output/p' "$OUT/qemu-run.log" |
	sed '1d;$d' | tr -d '\r' >"$OUT/raw.txt"
if [[ $rc != 0 ]] || ! grep -q '^@@@NLC-BENCH-END plot.dat' "$OUT/raw.txt"; then
	tail -n 40 "$OUT/qemu-run.log" >&2
	echo "run-bench.sh: the benchmark did not complete (qemu-run.sh exit $rc); log: $OUT/qemu-run.log" >&2
	exit 1
fi
section() {
	sed -n "/^@@@NLC-BENCH-BEGIN $1\$/,/^@@@NLC-BENCH-END $1\$/p" "$OUT/raw.txt" | sed '1d;$d'
}
section plot.dat >"$OUT/plot.dat"
{
	section results.md
	echo
	echo "Kernel: linux-source-$KLINE with patches/$KLINE/ (normal config)."
	echo "Whole \`make bench\` (boot included, kernel already built): ${secs} s on the host."
	echo "Raw per-round numbers: \`RAW\` lines of <cache>/bench/raw.txt."
} >"$OUT/results.md"
gnuplot -e "datafile='$OUT/plot.dat'; outfile='$OUT/plot.png'; subtitle='rounds: $ROUNDS, sizes: $SIZES'" \
	"$REPO/bench/plot.gp"
cat "$OUT/results.md"
echo "bench: $OUT/results.md $OUT/plot.png"
if [[ $COPY == 1 ]]; then
	cp "$OUT/results.md" "$REPO/bench/results.md"
	cp "$OUT/plot.png" "$REPO/bench/plot.png"
	echo "bench: copied to bench/results.md and bench/plot.png"
fi
