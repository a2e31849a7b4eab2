#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kcsan-mutant.sh [--cache DIR] [--seconds N] - make kcsan-mutant: the 6.12
# kcsan boot under tools/kcsan-stress/chmod-stress.c must fail with the
# series plus tools/kcsan-stress/mutants/fat-get-attributes-without-i_rwsem.patch
# (a report of fs/fat's unlocked read of i_mode against setattr_copy's
# write, judged by scripts/kcsan-judge.awk) and pass with the series alone.
# One "ok"/"not ok" line per check; exit status 0 when both hold.
set -uo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate
SECS=60
MUTANT=$REPO/tools/kcsan-stress/mutants/fat-get-attributes-without-i_rwsem.patch

usage() { sed -n '4,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--cache) CACHE=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$PROG: unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
done
[[ $SECS =~ ^[1-9][0-9]*$ ]] || { echo "$PROG: --seconds wants a positive number" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -static -pthread -o "$TMP/chmod-stress" "$REPO/tools/kcsan-stress/chmod-stress.c" ||
	{ echo "$PROG: cannot build chmod-stress" >&2; exit 1; }
GC='truncate -s 16M /tmp/k.img && mkfs.vfat /tmp/k.img >/dev/null && mkdir -p /tmp/k && mount -t vfat -o loop /tmp/k.img /tmp/k'

n=0 fails=0
check() { # DESCRIPTION: the last command's status
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
boot() { # NAME [qemu-run.sh options...]
	local name=$1
	shift
	"$REPO/qemu-run.sh" --cache "$CACHE" --kernel 6.12 --config kcsan "$@" --no-suite \
		--guest-cmd "$GC" --run "$TMP/chmod-stress /tmp/k $SECS" >"$TMP/$name.out" 2>&1
	echo $? >"$TMP/$name.rc"
	sed 's/^/# /' "$TMP/$name.out" | grep -E 'KCSAN|kcsan|chmod-stress|data-race|passed, |qemu-run.sh:' | head -n 40
}

boot mutant --plus "$MUTANT"
out=$TMP/mutant.out
check "$([[ $(cat "$TMP/mutant.rc") == 1 ]]; echo $?)" "mutant: the run fails (exit $(cat "$TMP/mutant.rc"))"
check "$(grep -q 'chmod-stress: [1-9][0-9]* chmods' "$out"; echo $?)" "mutant: the load ran (chmod-stress counts)"
check "$(grep -qE 'KCSAN: [1-9][0-9]* data race report\(s\) with an fs/fat frame' "$out"; echo $?)" \
	"mutant: KCSAN reported a race with an fs/fat frame, and the judge failed it"
# KCSAN's title names the two accesses' functions in name order: fs/fat's
# read of i_mode (fat_make_attrs() or fat_mode_can_hold_ro(), inlined
# into fat_ioctl_get_attributes() and fat_generic_ioctl()), chmod's write
check "$(grep -qE 'BUG: KCSAN: data-race in (fat_make_attrs|fat_mode_can_hold_ro|fat_ioctl_get_attributes|fat_generic_ioctl) / setattr_copy' "$out"; echo $?)" \
	"mutant: a report is fs/fat's read of i_mode against core code's write (fat_make_attrs / setattr_copy)"

boot series
out=$TMP/series.out
check "$([[ $(cat "$TMP/series.rc") == 0 ]]; echo $?)" "series: the same load passes (exit $(cat "$TMP/series.rc"))"
check "$(grep -q 'chmod-stress: [1-9][0-9]* chmods' "$out"; echo $?)" "series: the load ran (chmod-stress counts)"
# (a core report lists fs/fat's frames deeper in a stack after its title)
check "$(! grep -qE 'BUG: KCSAN: data-race in [^[]*(fat_|vfat_|msdos_)' "$out"; echo $?)" \
	"series: no KCSAN report whose title names an fs/fat function"
echo "1..$n"
echo "# $PROG: $((n - fails)) passed, $fails failed"
[[ $fails == 0 ]]
