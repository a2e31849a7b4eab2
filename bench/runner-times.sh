#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# runner-times.sh: the warm runner's times on this machine (./qemu-run.sh
# twice unchanged, with a one-line fs/fat change, and back), with stage and
# boot-to-TAP times, into bench/runner-times.md (docs/benchmarks.md).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
OUT=$CACHE/runner-times
RES=$CACHE/results/6.1/normal  # the default kernel line
SRC=$CACHE/src/6.1/linux
mkdir -p "$OUT"
rm -f "$OUT"/run-*.log
ROWS=()

now() { date +%s.%N; }

# measure LABEL DIR: run DIR/qemu-run.sh and time it
measure() {
	local label=$1 dir=$2 log t0 t1 tq='' tt='' pid rc=0 n
	n=$(( ${#ROWS[@]} + 1 ))
	log=$OUT/run-$n.log
	# wait for any other user of the cache first (not timed)
	flock "$CACHE/.lock" true
	t0=$(now)
	"$dir/qemu-run.sh" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [[ -z $tq ]] && pgrep -f -- "-initrd $RES/initramfs.cpio" >/dev/null 2>&1; then
			tq=$(now)
		fi
		if [[ -n $tq && -z $tt ]] && grep -q '^TAP version' "$RES/console.log" 2>/dev/null; then
			tt=$(now)
		fi
		sleep 0.1
	done
	wait "$pid" || rc=$?
	t1=$(now)
	local stages up total b2t summary
	stages=$(grep -oE '^\[(deps|source|config|build|initramfs|boot|tests) [0-9.]+\] [0-9]+m[0-9]+s' "$log" |
		sed 's/^\[\(.*\)\] /\1 /' | paste -sd, - | sed 's/,/, /g')
	up=$(tr -d '\r' <"$RES/console.log" | sed -n 's/.*guest up (.*uptime \([0-9.]*\)s.*/\1/p' | head -n 1)
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	b2t=n/a
	[[ -n $tq && -n $tt ]] && b2t=$(awk -v a="$tq" -v b="$tt" 'BEGIN { printf "%.1f", b - a }')
	ROWS+=("| $label | $total | $b2t | ${up:-?} | $stages | ${summary:-?} (exit $rc) |")
	echo "runner-times: $label: ${total}s, boot-to-TAP ${b2t}s, guest up at ${up:-?}s; $stages"
}

# A scratch clone with one extra patch: a comment line in namei_vfat.c.
make_scratch() {
	local scr=$1 tmp blob tree commit base
	rm -rf "$scr"
	git clone -q "$HEADREPO" "$scr"
	# base: the tree with the series applied, as the runner left it
	base=$(git -C "$SRC" rev-parse HEAD)
	tmp=$(mktemp -d)
	git clone -q --shared --no-checkout "$SRC" "$tmp/k"
	(
		cd "$tmp/k"
		git read-tree "$base"
		blob=$( { git show "$base:fs/fat/namei_vfat.c" | sed -n 1p
			echo "/* runner-times.sh: a one-line change for the warm rebuild timing */"
			git show "$base:fs/fat/namei_vfat.c" | sed 1d; } | git hash-object -w --stdin)
		git update-index --cacheinfo "100644,$blob,fs/fat/namei_vfat.c"
		tree=$(git write-tree)
		commit=$(git -c user.name=runner-times -c user.email=runner-times@invalid \
			commit-tree "$tree" -p "$base" -m "fat: one-line comment (runner-times.sh scratch patch)")
		git format-patch -q -1 "$commit" --stdout >"$scr/patches/9999-runner-times-one-line.patch"
	)
	rm -rf "$tmp"
	echo "9999-runner-times-one-line.patch" >>"$scr/patches/series"
}

machine() {
	local cpu mem
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "Machine: $(nproc) CPUs ($cpu), $mem RAM, $(uname -r) host kernel; QEMU $(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //'), TCG; cache $CACHE."
}

HEADREPO=$OUT/head-repo
rm -rf "$HEADREPO"
git clone -q "$REPO" "$HEADREPO"
HEADREV=$(git -C "$HEADREPO" rev-parse --short HEAD)
echo "runner-times: repository HEAD $HEADREV"
measure "warm, no change (1st)" "$HEADREPO"
measure "warm, no change (2nd)" "$HEADREPO"
SCR=$OUT/scratch-repo
make_scratch "$SCR"
measure "one-line change in fs/fat/namei_vfat.c (extra patch)" "$SCR"
measure "back to the series (undo the one-line change)" "$HEADREPO"
rm -rf "$SCR" "$HEADREPO"

{
	echo "# Runner timings"
	echo
	machine
	echo
	echo "Measured by \`bench/runner-times.sh\` on $(date -u +%Y-%m-%d) at commit $HEADREV, one run each, \`./qemu-run.sh\` (normal config: build check, initramfs, boot, fat kselftests)."
	echo "Boot-to-first-TAP: host time from the QEMU process start to the \`TAP version\` line in the console log; guest up: kernel uptime when /init starts."
	echo
	echo "| run | wall s | boot-to-first-TAP s | guest up at s | runner stages | result |"
	echo "|---|---:|---:|---:|---|---|"
	printf '%s\n' "${ROWS[@]}"
} >"$OUT/runner-times.md"
cat "$OUT/runner-times.md"
cp "$OUT/runner-times.md" "$REPO/bench/runner-times.md"
