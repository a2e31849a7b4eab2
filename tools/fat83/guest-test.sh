#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/fat83/guest-test.sh [--kernel LINE] [qemu-run.sh options...]
#
# fat83 on real vfat mounts, in the QEMU guest of ./qemu-run.sh (default
# --kernel 7.3; other options, e.g. --no-build, go to qemu-run.sh).  On the
# host: builds fat83 and the raw 8.3 reader fat83-rawls statically, then
#   ./qemu-run.sh --kernel LINE --no-suite --run 'fat83 --version'
#       --run 'fat83-rawls --help' --run 'guest-test.sh --in-guest'
# In the guest (--in-guest), for images with long names made by mtools
# (mcopy) and by Linux (a default vfat mount), each mounted as a plain vfat
# mount, with nolongcreate, and with nolongcreate,shortname=lower:
# fat83 check (exit 1, the list), fix --dry-run (exit 0, nothing changes),
# fix (exit 0), check (exit 0), the files' contents unchanged; then,
# unmounted, fat83-rawls reads the raw directory entries (what an 8.3-only
# reader sees): no live LFN slot, no ~N name, the expected 8.3 names; and
# fsck.vfat -n is clean; then fat83 undo (on a nolongcreate mount: refused
# and said, then after remount,longcreate) back to the same full listing
# (type, size, path), contents and raw 8.3 view (fat83-rawls, sorted) as
# before the fix, the journal gone.  Also: the one-name form, an owner's map
# (a bad line: exit 2, nothing renamed; a good one: its names), check on a
# non-FAT directory (exit 2), fix killed (-9) in the middle of 400 renames
# (every file under its old or its new name with its content, an R line in
# the journal for each rename made; undo puts all back; a second fix does
# the job), what fix leaves alone (dot-names, ATTR_HIDDEN, ATTR_SYS, System
# Volume Information, set by mtools' mattrib), an undo conflict (a name that
# came back: not overwritten, said, kept in the journal), an EFI System
# Partition (MBR type 0xef on a partitioned loop device), an active MBR
# partition and the mount points /boot/efi /efi /boot /boot/firmware
# refused, a read-only mount said before the plan, a
# long name over 255 bytes (200 Latin-1 letters on a utf8 mount) reported
# and skipped, names printed as ls -b (\ooo), and put: files copied onto a
# nolongcreate mount (which refuses a slicer's CUBE1.GCO.tmp) under 8.3
# names, never over one (--replace: over it, in place), in lower case on
# shortname=lower (its scratch name too, when the case is forced wrong),
# nothing left when the card fills up, no scratch F83Pnnnn.TMP left, no
# LFN slot in the raw entries.  Prints each command and
# its output, and last
# "fat83 guest test: N passed, N failed"; exit status 0 only if none failed
# (the qemu-run.sh run fails otherwise).  The kernel's exact errno for a
# refused name is not relied on.
set -uo pipefail

if [[ ${1:-} != --in-guest ]]; then
	set -e
	REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	line=7.3
	args=()
	while (($#)); do
		case $1 in
		--kernel) line=${2:?--kernel needs a line}; shift 2 ;;
		-h | --help) awk 'NR >= 4 && !/^#/ { exit } NR >= 4 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	make -s -C "$REPO/tools/fat83" static OUT="$tmp"
	cp "${BASH_SOURCE[0]}" "$tmp/guest-test.sh"
	"$REPO/qemu-run.sh" --kernel "$line" --no-suite "${args[@]}" \
		--run "$tmp/fat83 --version" --run "$tmp/fat83-rawls --help" \
		--run "$tmp/guest-test.sh --in-guest"
	exit
fi

# ------------------------------------------------------------ the guest --
BIN=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PATH=$BIN:$PATH
export MTOOLS_SKIP_CHECK=1
pass=0 fail=0
MNT=/tmp/fat83-mnt
mkdir -p "$MNT"

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run WANT CMD...: print "# CMD", run it, print its output (not with
# QUIET=1); pass if its exit status is WANT.  The output is kept in $out.
run() {
	local want=$1 rc=0
	shift
	echo "# $*"
	out=$("$@" 2>&1) || rc=$?
	[[ -n $out && -z ${QUIET:-} ]] && printf '%s\n' "$out"
	if [[ $rc == "$want" ]]; then ok "exit $rc: $*"; else bad "exit $rc, want $want: $*"; fi
}

that() { # that WHAT CMD...: pass if CMD succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

expect() { # expect PATTERN WHAT: $out has a line matching the ERE
	if grep -Eq -- "$1" <<<"$out"; then ok "$2"; else bad "$2 (no line matching /$1/)"; fi
}

same() { # same WHAT A B: pass if the texts A and B are the same, else the diff
	if [[ $2 == "$3" ]]; then
		ok "$1"
	else
		bad "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/    /'
	fi
}

# The full listing of the mount: type, size and path of every entry.
listing() { (cd "$MNT" && find . -printf '%y %s %p\n' | LC_ALL=C sort); }
# fat83-rawls's lines in $out, sorted, without its summary line.
rawsorted() { grep -v '^rawls: ' <<<"$out" | LC_ALL=C sort; }
journal() { find "$MNT" -maxdepth 1 -iname fat83und.log; }

# The card: long names, one per reason, and 8.3 names that must stay.
CONTENT=(
	"Benchy Final.gcode" "Benchy Final v2.gcode" "quick-start.gcode"
	"STACKCHAN.RON" "Long Directory/part one.gcode" "Long Directory/OK.GCO"
	"SUB/Another long one.txt" "BENCHYFI.GCO" "ok.txt" "README.TXT"
)
# After fix: the 8.3 names an 8.3-only reader must see, as fat83-rawls
# prints them (BENCHYFI.GCO exists: Benchy Final takes BENCHYF1).  ok.txt
# is OK.TXT to them; Linux writes it with an LFN slot (shortname=mixed),
# which fix cannot drop (a rename that changes only the case is no rename
# on vfat), mtools with the lower-case flags: rawls --case-ok.
EXPECT_RAW=(
	"BENCHYF1.GCO" "BENCHYF2.GCO" "QUICK-ST.GCO" "STACKCHA.RON"
	"LONGDIRE/PARTONE.GCO" "LONGDIRE/OK.GCO" "SUB/ANOTHERL.TXT" "BENCHYFI.GCO"
	"OK.TXT" "README.TXT"
)

# blank_card IMAGE: a new empty 16 MiB vfat image
blank_card() {
	rm -f "$1"
	truncate -s 16M "$1"
	mkfs.vfat "$1" >/dev/null
}

# make_card mtools|linux IMAGE
make_card() {
	local how=$1 img=$2 f src
	blank_card "$img"
	src=$(mktemp -d)
	for f in "${CONTENT[@]}"; do
		mkdir -p "$src/$(dirname "$f")"
		echo "content of $f" >"$src/$f"
	done
	if [[ $how == mtools ]]; then
		mmd -i "$img" "::/Long Directory" ::/SUB
		for f in "${CONTENT[@]}"; do mcopy -i "$img" "$src/$f" "::/$f"; done
	else
		mount -t vfat "$img" "$MNT"
		mkdir -p "$MNT/Long Directory" "$MNT/SUB"
		for f in "${CONTENT[@]}"; do cp "$src/$f" "$MNT/$f"; done
		umount "$MNT"
	fi
	rm -rf "$src"
}

sums() { (cd "$MNT" && find . -type f ! -iname FAT83UND.LOG -exec cat {} + | sort | md5sum); }

# scenario mtools|linux MOUNT-OPTIONS
scenario() {
	local how=$1 opts=$2 img=/tmp/card-$1.img before tree sum n
	echo
	echo "=== image by $how, mounted -o ${opts:-(defaults)}${FAT83_FORCE_CASE:+, FAT83_FORCE_CASE=$FAT83_FORCE_CASE}"
	make_card "$how" "$img"
	run 1 fat83-rawls "$img"
	expect '^BENCHY~1\.GCO  \[LFN' "raw: Benchy Final.gcode is BENCHY~1.GCO before fix"
	raw_before=$(rawsorted)
	mount -t vfat ${opts:+-o "$opts"} "$img" "$MNT" || { bad "mount -o $opts"; return; }
	grep " $MNT " /proc/mounts
	if [[ $opts == *nolongcreate* ]]; then
		that "nolongcreate in /proc/mounts" grep -q " $MNT .*nolongcreate" /proc/mounts
		if touch "$MNT/A new long name.gcode"; then
			bad "the nolongcreate mount took a long name"
		else
			ok "the nolongcreate mount refuses a long name (any errno)"
		fi
	fi
	run 1 fat83 check "$MNT"
	expect '^Benchy Final\.gcode: 8\.3 readers see BENCHY~1\.GCO$' "check lists Benchy Final.gcode"
	expect '^Long Directory/part one\.gcode: 8\.3 readers see PARTON~1\.GCO$' "check lists a name in a long-named directory"
	expect '^Long Directory: ' "check lists the directory"
	n=$(grep -c ': 8.3 readers see' <<<"$out")
	that "check: 7 entries (got $n)" test "$n" = 7
	run 1 fat83 check --case "$MNT"
	expect '^ok\.txt: 8\.3 readers see OK\.TXT \(other case\)$' "check --case lists ok.txt"
	tree=$(cd "$MNT" && find . | sort)
	list_before=$(listing)
	sum=$(sums)
	run 0 fat83 fix --dry-run "$MNT"
	expect '^Benchy Final\.gcode -> BENCHYF1\.GCO$|^Benchy Final\.gcode -> benchyf1\.gco$' "dry run: Benchy Final.gcode -> BENCHYF1.GCO"
	that "dry run changed nothing" test "$(cd "$MNT" && find . | sort)" = "$tree"
	that "dry run: no journal" test -z "$(journal)"
	before=$out
	run 0 fat83 fix "$MNT"
	fix_out=$out
	# (in another case where the mount refused the case fat83 typed first)
	that "fix did what the dry run said" \
		test "$(grep -- ' -> ' <<<"$out" | tr '[:lower:]' '[:upper:]')" = "$(grep -- ' -> ' <<<"$before" | tr '[:lower:]' '[:upper:]')"
	run 0 fat83 check "$MNT"
	that "contents unchanged" test "$(sums)" = "$sum"
	(cd "$MNT" && find . | sort)
	umount "$MNT"
	run 0 fat83-rawls --case-ok "$img"
	for f in "${EXPECT_RAW[@]}"; do
		that "raw: $f" grep -Eq -- "^${f//./\\.}($|  \\[LFN 1: ok\\.txt, the same name in another case\\]$)" <<<"$out"
	done
	run 0 fsck.vfat -n "$img"

	# undo: back to the listing before the fix, and to its raw 8.3 view
	mount -t vfat ${opts:+-o "$opts"} "$img" "$MNT" || { bad "mount -o $opts again"; return; }
	# R lines less the F lines of refused attempts (the forced case)
	n=$(($(grep -c $'^R\t' "$(journal)") - $(grep -c $'^F\t' "$(journal)")))
	that "the journal $(journal): an R line for each of the 7 renames (got $n)" test "$n" = 7
	if [[ $opts == *nolongcreate* ]]; then
		run 2 fat83 undo "$MNT"
		expect 'mounted with nolongcreate.*remount,longcreate' "undo on a nolongcreate mount: refused, says how"
		mount -o remount,longcreate "$MNT"
	fi
	run 0 fat83 undo "$MNT"
	expect '^(BENCHYF1\.GCO|benchyf1\.gco) -> Benchy Final\.gcode$' "undo: BENCHYF1.GCO -> Benchy Final.gcode"
	expect '^Long Directory/(PARTONE\.GCO|partone\.gco) -> Long Directory/part one\.gcode$' "undo: in a directory whose own rename it undid first"
	same "undo: the full listing of before the fix (no journal left)" "$list_before" "$(listing)"
	that "undo: contents unchanged" test "$(sums)" = "$sum"
	run 1 fat83 check "$MNT"
	umount "$MNT"
	run 1 fat83-rawls "$img"
	same "undo: the raw 8.3 view of before the fix (fat83-rawls)" "$raw_before" "$(rawsorted)"
	run 0 fsck.vfat -n "$img"
}

echo "kernel: $(uname -r)"
run 0 fat83 name "Benchy Final.gcode"
that "name: BENCHYFI.GCO" test "$out" = BENCHYFI.GCO
run 2 fat83 check /tmp
# the patched kernel's vfat has the option (on 6.1, a legacy context: the
# kernel's symbols tell; on 6.12 and 7.3 the context refuses an unknown key)
run 0 fat83 supported
expect 'takes nolongcreate' "supported: this kernel's vfat takes nolongcreate"

scenario mtools ""
scenario linux ""
scenario mtools nolongcreate
scenario linux nolongcreate
scenario mtools nolongcreate,shortname=lower
# The case fat83 types new names in, forced to the one this mount does not
# show as typed: the kernel may refuse it (v6) and fat83 retries in the
# other, or take it without long-name slots (v5); the raw view decides.
FAT83_FORCE_CASE=upper scenario linux nolongcreate,shortname=lower
refused=$(grep -c 'the mount refused' <<<"$fix_out")
echo "(the mount refused the forced case $refused time(s): at most once)"
that "a refused case is tried once, then the other kept" test "$refused" -le 1

echo
echo "=== the owner's map, on a nolongcreate mount"
make_card linux /tmp/card-map.img
mount -t vfat -o nolongcreate /tmp/card-map.img "$MNT"
tree=$(cd "$MNT" && find . | sort)
printf 'Benchy Final.gcode\tBENCHY.GCO\nquick-start.gcode\tquick start.gco\n' >/tmp/bad.map
run 2 fat83 fix --map /tmp/bad.map "$MNT"
expect 'bad.map:2: "quick start.gco" is no 8.3 name' "a bad map line named"
printf 'Benchy Final.gcode\tBENCHY.GCO\nno such file\tX.GCO\n' >/tmp/bad2.map
run 2 fat83 fix --map /tmp/bad2.map "$MNT"
expect 'bad2.map:2: no such file: no such entry' "a map line for no entry named"
printf 'Benchy Final.gcode\tBENCHYFI.GCO\n' >/tmp/bad3.map
run 2 fat83 fix --map /tmp/bad3.map "$MNT"
expect 'BENCHYFI.GCO is taken' "a map line to a taken name refused"
that "bad maps renamed nothing" test "$(cd "$MNT" && find . | sort)" = "$tree"
printf '# mine\nBenchy Final.gcode\tBENCHY.GCO\nLong Directory/part one.gcode\tpart1.gco\n' >/tmp/good.map
run 0 fat83 fix --map /tmp/good.map "$MNT"
expect '^Benchy Final\.gcode -> BENCHY\.GCO  \(map\)$' "map: Benchy Final.gcode -> BENCHY.GCO"
expect '^Long Directory/part one\.gcode -> Long Directory/PART1\.GCO  \(map\)$' "map: part one.gcode -> PART1.GCO"
run 0 fat83 check "$MNT"
umount "$MNT"
run 0 fat83-rawls --case-ok /tmp/card-map.img
for f in BENCHY.GCO LONGDIRE/PART1.GCO; do
	that "raw: $f" grep -qx -- "$f" <<<"$out"
done

echo
echo "=== an interrupted fix (kill -9 during the renames, on a sync mount)"
N=400 D=$MNT/MANY # (a subdirectory: FAT16's fixed root holds 512 slots)
blank_card /tmp/card-kill.img
mount -t vfat /tmp/card-kill.img "$MNT"
mkdir "$D"
for ((i = 0; i < N; i++)); do printf '%d\n' "$i" >"$D/$(printf %03d "$i") a long name.gcode"; done
umount "$MNT"
mount -t vfat -o nolongcreate,sync /tmp/card-kill.img "$MNT"
fat83 fix "$MNT" >/tmp/kill.out 2>&1 &
kpid=$!
# killed once it printed a rename (a fixed 0.3 s came before the first
# one on a loaded host: nothing to undo, undo exit 2)
for ((w = 0; w < 1200; w++)); do
	grep -q ' -> ' /tmp/kill.out && break
	sleep 0.05
done
kill -9 "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
long=$(find "$D" -name '* a long name.gcode' | wc -l)
short=$(find "$D" -name '[0-9][0-9][0-9]ALONG.GCO' | wc -l)
echo "killed after $(grep -c ' -> ' /tmp/kill.out) rename(s) printed: $long under the old name, $short under the new, of $N"
# (a kill after the last rename would prove nothing about an
# interruption: said, not failed, for a faster guest)
((short > 0 && short < N)) || echo "NOTE: fix was not interrupted (renamed $short of $N): nothing learnt here"
# every file under its old or its new name, its content its own
that "after the kill: every file under its old or its new name" test "$((long + short))" = "$N"
that "after the kill: no other name" test "$(find "$MNT" -type f ! -iname fat83und.log | wc -l)" = "$N"
# each rename made has its R line, written before it
jr=$(grep -c $'^R\t' "$(journal)")
that "after the kill: an R line in the journal for each of the $short renames (got $jr)" test "$jr" -ge "$short"
bad_content=0
for ((i = 0; i < N; i++)); do
	f=$(printf %03d "$i")
	c=$(cat "$D/$f a long name.gcode" "$D/${f}ALONG.GCO" 2>/dev/null)
	[[ $c == "$i" ]] || bad_content=$((bad_content + 1))
done
that "after the kill: each file's content under its name ($bad_content wrong)" test "$bad_content" = 0
# undo after the kill: every file under its old name again
mount -o remount,longcreate "$MNT"
QUIET=1 run 0 fat83 undo "$MNT"
echo "# fat83 undo: $(grep -c ' -> ' <<<"$out") put back; $(tail -n 2 <<<"$out" | head -n 1)"
that "undo after the kill: all $N under their old names" test "$(find "$D" -name '* a long name.gcode' | wc -l)" = "$N"
that "undo after the kill: the journal is gone" test -z "$(journal)"
mount -o remount,nolongcreate "$MNT"
QUIET=1 run 0 fat83 fix "$MNT"
echo "# fat83 fix again: $(tail -n 1 <<<"$out")"
run 0 fat83 check "$MNT"
umount "$MNT"
QUIET=1 run 0 fat83-rawls /tmp/card-kill.img
echo "# fat83-rawls: $(tail -n 1 <<<"$out")"

echo
echo "=== what fix leaves alone: dot-names, hidden and system entries, System Volume Information"
img=/tmp/card-alone.img
blank_card "$img"
src=$(mktemp -d)
echo x >"$src/f"
mmd -i "$img" ::/.Trash-1000 ::/.Trash-1000/files "::/System Volume Information" "::/Hidden Long Dir"
for f in ".Trash-1000/files/Some trashed one.gcode" "._Benchy Final.gcode" \
	"Hidden long name.gcode" "System long name.gcode" "Both long name.gcode" \
	"System Volume Information/IndexerVolumeGuid" "Hidden Long Dir/inner long name.gcode" \
	"Benchy Final.gcode"; do
	mcopy -i "$img" "$src/f" "::/$f"
done
rm -rf "$src"
mattrib -i "$img" +h "::/Hidden long name.gcode" "::/Hidden Long Dir"
mattrib -i "$img" +s "::/System long name.gcode"
mattrib -i "$img" +h +s "::/Both long name.gcode"
mount -t vfat "$img" "$MNT"
list_before=$(listing)
run 0 fat83 fix "$MNT"
expect '^left alone: \.Trash-1000/ \(a dot-name\)$' "left alone: .Trash-1000"
expect '^left alone: \._Benchy Final\.gcode \(a dot-name\)$' "left alone: ._Benchy Final.gcode"
expect '^left alone: Hidden long name\.gcode \(hidden: FAT attribute\)$' "left alone: a hidden file (ATTR_HIDDEN)"
expect '^left alone: Hidden Long Dir/ \(hidden: FAT attribute\)$' "left alone: a hidden directory, and what is in it"
expect '^left alone: System long name\.gcode \(system: FAT attribute\)$' "left alone: a system file (ATTR_SYS)"
expect '^left alone: Both long name\.gcode \(system and hidden: FAT attributes\)$' "left alone: a system and hidden file"
expect "^left alone: System Volume Information/ \\(Windows' System Volume Information\\)$" "left alone: System Volume Information (no attributes)"
that "fix renamed only Benchy Final.gcode" test "$(grep -c -- ' -> ' <<<"$out")" = 1
expect '^Benchy Final\.gcode -> BENCHYFI\.GCO$' "fix: Benchy Final.gcode -> BENCHYFI.GCO"
same "the rest untouched" "$(grep -v ' \./Benchy Final\.gcode$' <<<"$list_before")" \
	"$(listing | grep -Ev 'BENCHYFI.GCO$|FAT83UND.LOG$')"
run 0 fat83 check "$MNT"
expect '^left alone: ' "check says what it leaves alone too"
run 0 fat83 undo "$MNT"
same "undo: the listing of before the fix" "$list_before" "$(listing)"
umount "$MNT"

echo
echo "=== undo never overwrites: a name that came back meanwhile"
make_card linux /tmp/card-conflict.img
mount -t vfat /tmp/card-conflict.img "$MNT"
QUIET=1 run 0 fat83 fix "$MNT"
echo "a new file" >"$MNT/Benchy Final.gcode"
run 1 fat83 undo "$MNT"
expect "conflict: Benchy Final\\.gcode and BENCHYF1\\.GCO both exist" "undo: the conflict said"
that "undo: the new file not overwritten" test "$(cat "$MNT/Benchy Final.gcode")" = "a new file"
that "undo: BENCHYF1.GCO kept" test "$(cat "$MNT/BENCHYF1.GCO")" = "content of Benchy Final.gcode"
that "undo: the others put back" test -f "$MNT/Long Directory/part one.gcode"
n=$(grep -c $'^R\t' "$(journal)")
that "undo: the conflict kept in the journal, only it (got $n)" test "$n" = 1
mv "$MNT/Benchy Final.gcode" "$MNT/NEWFILE.GCO"
run 0 fat83 undo "$MNT"
expect '^BENCHYF1\.GCO -> Benchy Final\.gcode$' "undo again: the conflict's rename now made"
that "undo again: the journal gone" test -z "$(journal)"
umount "$MNT"

echo
echo "=== an EFI System Partition: refused without --force"
img=/tmp/card-esp.img
rm -f "$img"
truncate -s 20M "$img"
# an MBR with one partition of type 0xef (EFI System) from sector 2048
printf '\x00\x00\x02\x00\xef\x00\x00\x00\x00\x08\x00\x00\x00\x98\x00\x00' |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
loop=$(losetup -P -f --show "$img")
for _ in $(seq 20); do [[ -b ${loop}p1 ]] && break; sleep 0.1; done
if [[ -b ${loop}p1 ]]; then
	mkfs.vfat "${loop}p1" >/dev/null
	mount -t vfat "${loop}p1" "$MNT"
	echo x >"$MNT/Boot Loader Entry.conf"
	list_before=$(listing)
	run 2 fat83 fix "$MNT"
	expect "refused: a boot or EFI System Partition \\(partition 1 of $loop has the MBR type 0xef" "ESP by its partition type (MBR 0xef): refused, says which"
	same "ESP: nothing renamed" "$list_before" "$(listing)"
	run 1 fat83 check "$MNT"
	run 0 fat83 fix --force "$MNT"
	expect '^Boot Loader Entry\.conf -> BOOTLOAD\.CON$' "ESP with --force: renamed"
	umount "$MNT"
else
	bad "no ${loop}p1: the kernel did not read the MBR partition table"
fi
losetup -d "$loop"
# a FAT32 partition (MBR type 0x0c) marked active: a stick made bootable
printf '\x80\x00\x02\x00\x0c\x00\x00\x00\x00\x08\x00\x00\x00\x98\x00\x00' |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
loop=$(losetup -P -f --show "$img")
for _ in $(seq 20); do [[ -b ${loop}p1 ]] && break; sleep 0.1; done
if [[ -b ${loop}p1 ]]; then
	mount -t vfat "${loop}p1" "$MNT"
	run 2 fat83 fix "$MNT"
	expect "refused: a boot or EFI System Partition \\(partition 1 of $loop is marked active" "an active MBR partition: refused, says which"
	umount "$MNT"
else
	bad "no ${loop}p1: the kernel did not read the MBR partition table"
fi
losetup -d "$loop"
make_card linux /tmp/card-boot.img
for point in /boot/efi /efi /boot /boot/firmware; do
	mkdir -p "$point"
	mount -t vfat /tmp/card-boot.img "$point"
	run 2 fat83 fix "$point"
	expect "refused: a boot or EFI System Partition \\(it is mounted on $point\\)" "mounted on $point: refused, says which"
	umount "$point"
done

echo
echo "=== a read-only mount: said before the plan, nothing renamed"
make_card linux /tmp/card-ro.img
mount -t vfat -o ro /tmp/card-ro.img "$MNT"
list_before=$(listing)
run 1 fat83 fix "$MNT"
expect 'is mounted read-only: nothing will be renamed' "read-only: said"
ro_line=$(grep -n 'mounted read-only' <<<"$out" | head -n 1 | cut -d: -f1)
plan_line=$(grep -n -- ' -> ' <<<"$out" | head -n 1 | cut -d: -f1)
that "read-only: said before the plan (line ${ro_line:-none}, the plan from line ${plan_line:-none})" \
	test "${ro_line:-99}" -lt "${plan_line:-0}"
expect '^Benchy Final\.gcode -> BENCHYF1\.GCO$' "read-only: the plan shown"
same "read-only: nothing renamed, no journal" "$list_before" "$(listing)"
run 2 fat83 undo "$MNT"
expect 'mounted read-only' "undo on a read-only mount: said"
umount "$MNT"

echo
echo "=== a long name over 255 bytes (UTF-8), and names printed as ls -b does"
img=/tmp/card-255.img
blank_card "$img"
# written on an iso8859-1 mount (the kernel default here): one byte a letter
mount -t vfat -o iocharset=iso8859-1 "$img" "$MNT"
long=$(printf '\xe4%.0s' $(seq 200))
echo long >"$MNT/$long.gcode"
echo c1 >"$MNT/Caf"$'\xe9'" "$'\x85'" long.gcode"
echo b >"$MNT/Benchy Final.gcode"
run 1 fat83 check "$MNT"
expect '^Caf\\351 \\205 long\.gcode: 8\.3 readers see ' "ls -b: bytes of no UTF-8 as \\ooo"
umount "$MNT"
# on a utf8 mount the 200 letters are 400 bytes: READDIR_BOTH gives 255
mount -t vfat -o utf8 "$img" "$MNT"
run 1 fat83 check "$MNT"
expect '^(\\303\\244|ä)+.*\.\.\.: a long name over 255 bytes' "check: the over-255-byte name said"
expect '^Café \\302\\205 long\.gcode: 8\.3 readers see ' "ls -b: a C1 control as \\ooo"
run 0 fat83 fix "$MNT"
expect 'a long name over 255 bytes, which Linux cannot rename: left alone' "fix: the over-255-byte name reported and skipped"
expect '^Benchy Final\.gcode -> BENCHYFI\.GCO$' "fix: the rest renamed all the same"
# (a glob: readdir only; find or ls -l would stat the 400-byte name and fail)
shopt -s nullglob
g=("$MNT"/ää*)
shopt -u nullglob
that "the over-255-byte name still there (${#g[@]})" test "${#g[@]}" = 1
run 0 fat83 undo "$MNT"
umount "$MNT"

echo
echo "=== put: files copied onto a nolongcreate mount under 8.3 names"
img=/tmp/card-put.img
blank_card "$img"
H=$(mktemp -d)
printf 'G1 X1\n' >"$H/CUBE1.GCO"
printf 'G1 X2\n' >"$H/Benchy Final.gcode"
mount -t vfat -o nolongcreate "$img" "$MNT"
echo old >"$MNT/BENCHYFI.GCO"
# what a slicer's export writes first: refused, which put is there for
if cp "$H/CUBE1.GCO" "$MNT/CUBE1.GCO.tmp" 2>/dev/null; then
	bad "the nolongcreate mount took CUBE1.GCO.tmp"
else
	ok "the nolongcreate mount refuses CUBE1.GCO.tmp (a slicer's temporary name)"
fi
list_before=$(listing)
run 0 fat83 put --dry-run "$H/CUBE1.GCO" "$MNT"
same "put --dry-run: nothing copied" "$list_before" "$(listing)"
run 0 fat83 put "$H/CUBE1.GCO" "$H/Benchy Final.gcode" "$MNT"
expect "^$H/CUBE1\\.GCO -> $MNT/CUBE1\\.GCO\$" "put: CUBE1.GCO keeps its name"
expect "^$H/Benchy Final\\.gcode -> $MNT/BENCHYF1\\.GCO\$" "put: Benchy Final.gcode -> BENCHYF1.GCO (BENCHYFI.GCO taken)"
that "put: CUBE1.GCO's content identical" cmp -s "$H/CUBE1.GCO" "$MNT/CUBE1.GCO"
that "put: BENCHYF1.GCO's content identical" cmp -s "$H/Benchy Final.gcode" "$MNT/BENCHYF1.GCO"
that "put: BENCHYFI.GCO untouched" test "$(cat "$MNT/BENCHYFI.GCO")" = old
printf 'G1 X9\n' >"$H/CUBE1.GCO"
run 0 fat83 put "$H/CUBE1.GCO" "$MNT"
expect "^$H/CUBE1\\.GCO -> $MNT/CUBE11\\.GCO\$" "put again: never over CUBE1.GCO, CUBE11.GCO"
that "put again: CUBE1.GCO not overwritten" test "$(cat "$MNT/CUBE1.GCO")" = "G1 X1"
# --replace: the same export again, over CUBE1.GCO (a rename over the
# scratch file's), no CUBE12.GCO
list_before=$(listing | awk '{ print $1, $3 }')
run 0 fat83 put --replace "$H/CUBE1.GCO" "$MNT"
expect "^$H/CUBE1\\.GCO -> $MNT/CUBE1\\.GCO \\(replaced\\)\$" "put --replace: CUBE1.GCO replaced"
that "put --replace: CUBE1.GCO the new content" cmp -s "$H/CUBE1.GCO" "$MNT/CUBE1.GCO"
same "put --replace: the same entries (no CUBE12.GCO, no F83P0000.TMP)" "$list_before" \
	"$(listing | awk '{ print $1, $3 }')"
umount "$MNT"
mount -t vfat -o nolongcreate,shortname=lower "$img" "$MNT"
run 0 fat83 put "$H/Benchy Final.gcode" "$MNT"
expect "^$H/Benchy Final\\.gcode -> $MNT/benchyf2\\.gco\$" "put on shortname=lower: typed in lower case (benchyf2.gco)"
# the case forced wrong: the mount refuses F83P0000.TMP, put types it and
# the final name in lower case
FAT83_FORCE_CASE=upper run 0 fat83 put "$H/CUBE1.GCO" "$MNT"
expect 'the mount refused F83P0000\.TMP .*trying it in lower case' "put, the case forced wrong: the scratch name refused in upper case, said"
expect "^$H/CUBE1\\.GCO -> $MNT/cube12\\.gco\$" "put, the case forced wrong: then in lower case (cube12.gco)"
run 0 fat83 put --replace "$H/CUBE1.GCO" "$MNT"
expect "^$H/CUBE1\\.GCO -> $MNT/cube1\\.gco \\(replaced\\)\$" "put --replace on shortname=lower: cube1.gco replaced"
# --replace over a file written before the card was marked, in lower case
# (a long name cube9.gco, alias CUBE9.GCO): vfat's rename over it keeps
# that entry, long name too; put says so, exit 0
umount "$MNT"
mount -t vfat "$img" "$MNT"
echo old >"$MNT/cube9.gco"
umount "$MNT"
mount -t vfat -o nolongcreate "$img" "$MNT"
printf 'G1 X7\n' >"$H/CUBE9.GCO"
run 0 fat83 put --replace "$H/CUBE9.GCO" "$MNT"
expect "^$H/CUBE9\\.GCO -> $MNT/cube9\\.gco \\(replaced\\)\$" "put --replace over a long-named cube9.gco: replaced (the name it shows)"
expect "^$MNT/CUBE9\\.GCO: the file replaced had the long name cube9\\.gco, the same name in another case, which the new one keeps \\(readers of 8\\.3 names see CUBE9\\.GCO\\)" "put --replace over a long-named cube9.gco: the long name kept, said"
that "put --replace over a long-named cube9.gco: the new content" cmp -s "$H/CUBE9.GCO" "$MNT/CUBE9.GCO"
rm "$MNT/cube9.gco"
# a card that fills up at the second file: both removed, nothing left
head -c 20000000 /dev/zero >"$H/BIG.BIN"
list_before=$(listing)
run 2 fat83 put "$H/CUBE1.GCO" "$H/BIG.BIN" "$MNT"
expect 'BIG\.BIN: No space left on device' "put on a full card: said"
same "put on a full card: nothing left behind" "$list_before" "$(listing)"
umount "$MNT"
run 0 fat83-rawls "$img"
that "raw: no scratch F83Pnnnn.TMP left" test -z "$(grep -E '^F83P[0-9]{4}\.TMP$' <<<"$out")"
for f in CUBE1.GCO BENCHYF1.GCO CUBE11.GCO BENCHYF2.GCO CUBE12.GCO; do
	that "raw: $f, no LFN slot" grep -qx -- "${f//./\\.}" <<<"$out"
done
run 0 fsck.vfat -n "$img"
rm -rf "$H"

echo
echo "fat83 guest test: $pass passed, $fail failed"
[[ $fail == 0 ]]
