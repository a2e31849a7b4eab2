#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-times.sh [--skip-cold-check] [--skip-warm-check] [--skip-cold-run]
#                [--line LINE] [--work DIR] [--append]
#
# How long `make check` and a cold runner take on this machine, each in a
# fresh clone of the repository's HEAD (uncommitted edits do not count):
#   1. cold `make check`: .ci/run (CI=true, stdin closed) with an empty cache
#      (XDG_CACHE_HOME=WORK/cold-check, ccache included; packages are
#      already installed);
#   2. warm `make check`: the same again, nothing changed, that cache kept;
#   3. cold `./qemu-run.sh --kernel LINE` (default 6.12): normal config,
#      another empty cache (WORK/cold-run).
# Writes WORK/check-times.md (wall times, the stage times of every runner
# call, make check's per-step lines and totals) and copies it to bench/.
# WORK defaults to /var/tmp/vfat-check-times; its caches are deleted
# before each cold run.  --append: keep the sections of the last report
# (WORK/check-times.md) and add this run's after them, e.g. a warm make
# check of a later commit after a cold one.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=/var/tmp/vfat-check-times
LINE=6.12
DO_COLD=1 DO_WARM=1 DO_RUN=1 APPEND=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--skip-cold-check) DO_COLD=0; shift ;;
	--skip-warm-check) DO_WARM=0; shift ;;
	--skip-cold-run) DO_RUN=0; shift ;;
	--line) LINE=${2:?}; shift 2 ;;
	--work) WORK=${2:?}; shift 2 ;;
	--append) APPEND=1; shift ;;
	-h | --help) sed -n '4,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-times.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
mkdir -p "$WORK"
CLONE=$WORK/repo
rm -rf "$CLONE"
git clone -q "$REPO" "$CLONE"
HEADREV=$(git -C "$CLONE" rev-parse --short HEAD)
SECTIONS=()

fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# timed NAME CACHE CMD...: run CMD in the clone with XDG_CACHE_HOME=CACHE,
# log to WORK/NAME.log; sets WALL and RC.
timed() {
	local name=$1 cache=$2 t0
	shift 2
	mkdir -p "$cache"
	t0=$SECONDS
	RC=0
	(cd "$CLONE" && XDG_CACHE_HOME=$cache CI=true "$@" </dev/null) >"$WORK/$name.log" 2>&1 || RC=$?
	WALL=$((SECONDS - t0))
	echo "check-times: $name: $(fmt "$WALL") (exit $RC), log $WORK/$name.log"
}

# report TITLE NAME: a markdown section from WORK/NAME.log
report() {
	local title=$1 log=$WORK/$2.log
	SECTIONS+=("$(
		echo "## $title"
		echo
		echo "Wall: **$(fmt "$WALL")** (exit status $RC)."
		echo
		echo "Runner stages, in order (\`[stage line] time (detail)\`):"
		echo
		echo '```'
		grep -E '^\[(deps|source|checkpatch|config|build|distro|selftests|initramfs|boot|tests) [0-9.]+\] [0-9]+m[0-9]+s' "$log" |
			sed -E 's/^(.{0,110}).*/\1/' || true
		echo '```'
		if grep -q '^=== make check summary' "$log"; then
			echo
			echo "make check's summary:"
			echo
			echo '```'
			sed -n '/^=== make check summary/,$p' "$log"
			echo '```'
		else
			echo
			echo '```'
			grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1 || true
			echo '```'
		fi
	)")
}

machine() {
	local cpu mem
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "Machine: $(nproc) CPUs ($cpu), $mem RAM, $(uname -r) host kernel; QEMU $(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //'), TCG; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
}
MACHINE=$(machine)

if [[ $DO_COLD == 1 ]]; then
	rm -rf "$WORK/cold-check"
	timed cold-check "$WORK/cold-check" bash .ci/run
	report "cold \`make check\` (.ci/run, empty cache)" cold-check
fi
if [[ $DO_WARM == 1 ]]; then
	timed warm-check "$WORK/cold-check" bash .ci/run
	report "warm \`make check\`, no change (the cache of the cold run)" warm-check
fi
if [[ $DO_RUN == 1 ]]; then
	rm -rf "$WORK/cold-run"
	timed cold-run "$WORK/cold-run" ./qemu-run.sh --kernel "$LINE"
	report "cold \`./qemu-run.sh --kernel $LINE\` (normal config, empty cache)" cold-run
fi

PREV=
if [[ $APPEND == 1 && -s $WORK/check-times.md ]]; then
	PREV=$(cat "$WORK/check-times.md")
fi
{
	if [[ -n $PREV ]]; then
		printf '%s\n\n' "$PREV"
		echo "Appended on $(date -u +%Y-%m-%d) at commit $HEADREV, in a fresh clone. $MACHINE"
	else
		echo "# make check and runner timings"
		echo
		echo "$MACHINE"
		echo
		echo "Measured by \`bench/check-times.sh\` on $(date -u +%Y-%m-%d) at commit $HEADREV, one run each, in a fresh clone; other users' QEMU guests and builds may have shared the machine."
	fi
	echo
	printf '%s\n\n' "${SECTIONS[@]}"
} >"$WORK/check-times.md"
cat "$WORK/check-times.md"
cp "$WORK/check-times.md" "$REPO/bench/check-times.md"
