#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-times.sh [--rounds N] [--old-init REV]: how long the test guest takes
# from the QEMU process start to the suite's first TAP line, under TCG, on
# this machine.  Boots the normal-config kernel of ./qemu-run.sh (built
# first if needed) with the runner's initramfs, round robin in one run:
#   runner     what ./qemu-run.sh does (qboot, scripts/guest-init.sh)
#   seabios    the same with QEMU's default firmware
#   old-init   the same with scripts/guest-init.sh of REV as /init (default
#              f5f9839~, before its preamble used busybox and builtins)
# Each boot is killed once "TAP version" is on the console.  Host times:
# QEMU start -> first kernel line, -> "vfat-runner: guest up", -> TAP.
# Writes <cache>/boot-times/boot-times.md and copies it to bench/.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
ROUNDS=5
OLD_REV=f5f9839~

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--old-init) OLD_REV=${2:?}; shift 2 ;;
	-h | --help) sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "boot-times.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "boot-times.sh: --rounds wants a number" >&2; exit 2; }

OUT=$CACHE/boot-times
BUILD=$CACHE/build/6.1/normal  # the default kernel line
mkdir -p "$OUT"
echo "boot-times: building (or reusing) the normal kernel"
"$REPO/qemu-run.sh" --kernel-only >"$OUT/build.log" 2>&1 ||
	{ echo "boot-times: ./qemu-run.sh --kernel-only failed (see $OUT/build.log)" >&2; exit 1; }

# The runner's initramfs for a test boot, and one with the old /init on top
# (a later archive's file replaces an earlier one's).
conf=$OUT/conf
rm -rf "$conf" "$OUT/old"
mkdir -p "$conf" "$OUT/old"
{
	echo "MODE=tests"
	echo "NONCE=boot-times"
	echo "SUITE=filesystems/fat"
	echo "RUN_SUITE=1"
	echo "SPLAT_RE='BUG:|WARNING:'"
} >"$conf/runner.conf"
"$REPO/scripts/mkinitramfs.sh" "$CACHE/initramfs-base" "$OUT/staging" \
	"$OUT/runner.cpio" "$BUILD/kselftest_install" "$conf"
git -C "$REPO" show "$OLD_REV:scripts/guest-init.sh" >"$OUT/old/init"
chmod 755 "$OUT/old/init"
(cd "$OUT/old" && echo init | cpio -o -H newc --owner 0:0 --quiet) >"$OUT/init-old.cpio"
cat "$OUT/runner.cpio" "$OUT/init-old.cpio" >"$OUT/old-init.cpio"

now() { date +%s.%N; }

# boot VARIANT: one boot; appends "variant kernel up tap" to $OUT/samples.
boot() {
	local v=$1 initrd=$OUT/runner.cpio bios=(-bios /usr/share/qemu/qboot.rom)
	local con=$OUT/console-$v.log t0 tk='' tu='' tt='' q i
	[[ $v == seabios ]] && bios=()
	[[ $v == old-init ]] && initrd=$OUT/old-init.cpio
	: >"$con"
	t0=$(now)
	# the flags of qemu-run.sh's qemu_cmd
	qemu-system-x86_64 -accel tcg -nographic -monitor none -no-reboot "${bios[@]}" \
		-m 1G -smp 2,sockets=2,cores=1,threads=1 \
		-kernel "$BUILD/arch/x86/boot/bzImage" -initrd "$initrd" \
		-serial "file:$con" -serial null -serial null -net none \
		-append "console=ttyS0 panic=-1 panic_on_warn=1 oops=panic loglevel=7" \
		</dev/null >/dev/null 2>&1 &
	q=$!
	for ((i = 0; i < 1500; i++)); do
		[[ -z $tk ]] && grep -q 'Linux version' "$con" && tk=$(now)
		[[ -z $tu ]] && grep -q '^vfat-runner: guest up' "$con" && tu=$(now)
		if grep -q '^TAP version' "$con"; then
			tt=$(now)
			break
		fi
		sleep 0.02
	done
	kill "$q" 2>/dev/null || true
	wait "$q" 2>/dev/null || true
	[[ -n $tt ]] || { echo "boot-times: $v: no TAP line within 30 s (console: $con)" >&2; exit 1; }
	awk -v v="$v" -v a="$t0" -v k="$tk" -v u="$tu" -v t="$tt" \
		'BEGIN { printf "%s %.3f %.3f %.3f\n", v, k - a, u - a, t - a }' >>"$OUT/samples"
}

VARIANTS=(runner seabios old-init)
: >"$OUT/samples"
for ((r = 1; r <= ROUNDS; r++)); do
	for v in "${VARIANTS[@]}"; do
		boot "$v"
	done
	echo "boot-times: round $r/$ROUNDS: $(tail -n 3 "$OUT/samples" | awk '{ printf "%s %.2fs  ", $1, $4 }')"
done

# median and min-max of column C for variant V
stat_of() {
	awk -v v="$1" -v c="$2" '$1 == v { print $c }' "$OUT/samples" | sort -n |
		awk '{ x[NR] = $1 } END { m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
			printf "%.2f (%.2f-%.2f)", m, x[1], x[NR] }'
}
median_of() { stat_of "$1" "$2" | cut -d' ' -f1; }

machine() {
	local cpu mem
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "Machine: $(nproc) CPUs ($cpu), $mem RAM; QEMU $(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //'), TCG."
}

base=$(median_of runner 4)
{
	echo "# Boot times"
	echo
	machine
	echo
	echo "Measured by \`bench/boot-times.sh\` on $(date -u +%Y-%m-%d) at commit $(git -C "$REPO" rev-parse --short HEAD), $ROUNDS rounds, the variants alternating in one run; host seconds from the QEMU process start, median (min-max). old-init: \`scripts/guest-init.sh\` of $OLD_REV ($(git -C "$REPO" rev-parse --short "$OLD_REV"))."
	echo
	echo "| variant | first kernel line | guest up | first TAP line | TAP / runner's |"
	echo "|---|---:|---:|---:|---:|"
	for v in "${VARIANTS[@]}"; do
		echo "| $v | $(stat_of "$v" 2) | $(stat_of "$v" 3) | $(stat_of "$v" 4) | $(awk -v a="$(median_of "$v" 4)" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
	done
} >"$OUT/boot-times.md"
cat "$OUT/boot-times.md"
cp "$OUT/boot-times.md" "$REPO/bench/boot-times.md"
