#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/fat83/host-test.sh [FAT83]: fat83's journal, undo, what fix leaves
# alone and how it prints names, on the host, without mounting anything:
# fakevfat.so (LD_PRELOAD) makes fat83 take a plain temporary directory for
# a vfat one (see fakevfat.c; the kernel's vfat is guest-test.sh's).  FAT83:
# the fat83 to test (default: ./fat83, built).  Prints "ok:"/"FAIL:" lines
# and last "fat83 host test: N passed, N failed"; exit status 0 only if
# none failed.
set -uo pipefail
# a script's background job (make check under nohup, &) starts with SIGINT
# and SIGQUIT ignored: the Ctrl-C cases need them at their default
[[ -n ${FAT83_TEST_SIGDFL:-} ]] || FAT83_TEST_SIGDFL=1 exec env --default-signal=INT,QUIT "$BASH" "$0" "$@"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
make -s -C "$HERE" fat83 >/dev/null
cc -shared -fPIC -O2 -o "$T/fakevfat.so" "$HERE/fakevfat.c" -ldl || exit 2
FAT83=${1:-$HERE/fat83}
C=$T/card
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
run() { # run WANT ARGS...: fat83 ARGS on the fake vfat (through $WRAP); its output in $out
	local want=$1 rc=0
	shift
	echo "# ${WRAP:+$WRAP }fat83 $*"
	# shellcheck disable=SC2086 # WRAP: a command and its arguments
	out=$(LD_PRELOAD=$T/fakevfat.so ${WRAP:-} "$FAT83" "$@" 2>&1) || rc=$?
	[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/  /'
	if [[ $rc == "$want" ]]; then ok "exit $rc: fat83 $*"; else bad "exit $rc, want $want: fat83 $*"; fi
}
expect() { if grep -Eq -- "$1" <<<"$out"; then ok "$2"; else bad "$2 (no line /$1/)"; fi; }
that() { local w=$1; shift; if "$@"; then ok "$w"; else bad "$w"; fi; }
listing() { (cd "$C" && find . -printf '%y %s %p\n' | LC_ALL=C sort); }

mkdir -p "$C/Long Directory" "$C/.Trash-1000/files" "$C/HIDDEN long dir" "$C/System Volume Information"
for f in "Benchy Final.gcode" "Benchy Final v2.gcode" "BENCHYFI.GCO" "Long Directory/part one.gcode" \
	".Trash-1000/files/trashed one.gcode" "._Benchy Final.gcode" "HIDDEN long dir/inner one.txt" \
	"SYSTEM long file.dat" "System Volume Information/IndexerVolumeGuid" "Ätzung.gcode" \
	'back\slash.txt' $'ctl\001 caf\xe9.txt'; do
	echo "content of $f" >"$C/$f"
done
before=$(listing)

run 1 check "$C"
expect '^left alone: \.Trash-1000/ \(a dot-name\)$' "check: a dot-name left alone"
expect '^left alone: HIDDEN long dir/ \(hidden: FAT attribute\)$' "check: a hidden directory left alone"
expect '^left alone: SYSTEM long file\.dat \(system: FAT attribute\)$' "check: a system file left alone"
expect "^left alone: System Volume Information/ \\(Windows' System Volume Information\\)$" "check: System Volume Information left alone"
expect '^ctl\\001 caf\\351\.txt: 8\.3 readers see ' "names printed as ls -b: \\001, \\351"
expect '^back\\\\slash\.txt: 8\.3 readers see ' "names printed as ls -b: a backslash doubled"
run 0 fix --dry-run "$C"
that "dry run: no journal" test ! -e "$C/FAT83UND.LOG"
run 0 fix "$C"
expect '^Ätzung\.gcode -> ATZUNG\.GCO$' "fix: Ätzung.gcode -> ATZUNG.GCO"
expect 'each rename is recorded first in .*/FAT83UND\.LOG' "fix: says where the journal is"
n=$(grep -c $'^R\t' "$C/FAT83UND.LOG")
r=$(grep -c -- ' -> ' <<<"$out")
that "journal: an R line for each of the $r renames (got $n)" test "$n" = "$r"
out=$(cat "$C/FAT83UND.LOG")
expect $'^R\tLong Directory\tpart one\\.gcode\tPARTONE\\.GCO\tPARTON~1\\.GCO$' "journal: a line with the directory, old, new, 8.3 name"
expect $'^R\t\tctl\\\\001 caf\\\\351\\.txt\t' "journal: names escaped as ls -b"
that "left alone: untouched" test -f "$C/HIDDEN long dir/inner one.txt" -a -f "$C/._Benchy Final.gcode" \
	-a -f "$C/SYSTEM long file.dat" -a -f "$C/.Trash-1000/files/trashed one.gcode"

echo "a new one" >"$C/Benchy Final.gcode"
# the user's own files under the names of journal temporaries (review S8)
echo "the user's own FAT83UND.TMP" >"$C/FAT83UND.TMP"
echo "the user's own FAT83U00.TMP" >"$C/FAT83U00.TMP"
run 1 undo "$C"
that "undo: a user's file FAT83UND.TMP not overwritten" test "$(cat "$C/FAT83UND.TMP")" = "the user's own FAT83UND.TMP"
that "undo: a user's file FAT83U00.TMP not overwritten" test "$(cat "$C/FAT83U00.TMP")" = "the user's own FAT83U00.TMP"
that "undo: no temporary file of its own left" test -z "$(find "$C" -maxdepth 1 -name 'FAT83U[0-9][0-9].TMP' ! -name FAT83U00.TMP)"
rm "$C/FAT83UND.TMP" "$C/FAT83U00.TMP"
expect '^LONGDIRE -> Long Directory$' "undo: the directory back first"
expect '^Long Directory/PARTONE\.GCO -> Long Directory/part one\.gcode$' "undo: then its entries"
expect 'conflict: Benchy Final\.gcode and BENCHYF[0-9]\.GCO both exist' "undo: a conflict said"
that "undo: the new file not overwritten" test "$(cat "$C/Benchy Final.gcode")" = "a new one"
that "undo: the conflict kept in the journal, alone" test "$(grep -c $'^R\t' "$C/FAT83UND.LOG")" = 1
rm "$C/Benchy Final.gcode"
run 0 undo "$C"
that "undo: the journal removed" test ! -e "$C/FAT83UND.LOG"
that "undo: the listing of before the fix" test "$(listing)" = "$before"
run 2 undo "$C"
expect 'no undo journal' "undo without a journal: said"

run 0 fix --journal "$T/elsewhere.log" "$C"
that "--journal: not on the card" test ! -e "$C/FAT83UND.LOG" -a -s "$T/elsewhere.log"
mv "$C/ATZUNG.GCO" "$C/Ätzung.gcode"
run 0 undo --journal "$T/elsewhere.log" "$C"
expect '^Ätzung\.gcode: already under its old name' "undo: one already under its old name said"
that "undo --journal: the listing of before the fix" test "$(listing)" = "$before"

printf 'R\t\tBenchy Final.gcode\tBENCHYF1.GCO\tBENCHY~1.GCO\nF\t\tBenchy Final.gcode\tBENCHYF1.GCO\tBENCHY~1.GCO\n' >"$C/FAT83UND.LOG"
run 0 undo "$C"
expect ': 0 rename\(s\) to put back' "undo: a rename whose F line follows was not made"
printf 'R\t\tBenchy Final.gcode\tBENCHYF1.GCO\tBENC' >"$C/FAT83UND.LOG"
run 0 undo "$C"
expect 'FAT83UND\.LOG:1: an unfinished line .*ignored' "undo: a line cut short by a crash ignored (its rename was never made)"
printf '# x\nR\t\tBenchy Final.gcode\tBENCHYF1.GCO\tBENC' >"$C/FAT83UND.LOG"
run 0 fix "$C"
that "fix after a crash: the unfinished line cut off, the new lines on their own" \
	test "$(grep -c $'^R\t' "$C/FAT83UND.LOG")" = "$(grep -c -- ' -> ' <<<"$out")"
run 0 undo "$C"
that "undo after it: the listing of before the fix" test "$(listing)" = "$before"
printf 'X what\n' >"$C/FAT83UND.LOG"
run 2 undo "$C"
expect 'FAT83UND\.LOG:1: not a journal line' "undo: a bad journal line, nothing done"
rm "$C/FAT83UND.LOG"
that "the card as it was" test "$(listing)" = "$before"

# put: files copied onto the card under the 8.3 names fix gives, never
# over an existing one, nothing left behind on an error
P=$T/put H=$T/home
mkdir -p "$P" "$H"
printf 'G1 X1\n' >"$H/CUBE1.GCO"
printf 'G1 X2\n' >"$H/Benchy Final.gcode"
printf 'G1 X3\n' >"$H/"$'ctl\001 x.gcode'
head -c 100000 /dev/zero >"$H/BIG.BIN"
echo old >"$P/BENCHYFI.GCO"
C=$P
before=$(listing)
run 0 put --dry-run "$H/CUBE1.GCO" "$H/Benchy Final.gcode" "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE1\\.GCO\$" "put --dry-run: CUBE1.GCO keeps its name"
that "put --dry-run: nothing copied" test "$(listing)" = "$before"
run 0 put "$H/CUBE1.GCO" "$H/Benchy Final.gcode" "$H/"$'ctl\001 x.gcode' "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE1\\.GCO\$" "put: CUBE1.GCO -> CUBE1.GCO"
expect "^$H/Benchy Final\\.gcode -> $P/BENCHYF1\\.GCO\$" "put: Benchy Final.gcode -> BENCHYF1.GCO (BENCHYFI.GCO exists)"
expect "^$H/ctl\\\\001 x\\.gcode -> $P/CTLX\\.GCO\$" "put: the mapping escaped as ls -b"
that "put: the existing BENCHYFI.GCO untouched" test "$(cat "$P/BENCHYFI.GCO")" = old
that "put: the contents identical" cmp -s "$H/CUBE1.GCO" "$P/CUBE1.GCO"
that "put: the contents identical (a long name)" cmp -s "$H/Benchy Final.gcode" "$P/BENCHYF1.GCO"
printf 'G1 X9\n' >"$H/CUBE1.GCO"
run 0 put "$H/CUBE1.GCO" "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE11\\.GCO\$" "put again: never over CUBE1.GCO: CUBE11.GCO"
that "put again: CUBE1.GCO not overwritten" test "$(cat "$P/CUBE1.GCO")" = "G1 X1"
that "put again: CUBE11.GCO the new content" cmp -s "$H/CUBE1.GCO" "$P/CUBE11.GCO"
before=$(listing)
FAKEVFAT_FULL=50000 run 2 put "$H/CUBE1.GCO" "$H/BIG.BIN" "$P"
expect 'BIG\.BIN: No space left on device' "put on a full card: said"
expect "F83P0000\\.TMP: removed \\(the copy of .*/CUBE1\\.GCO\\)" "put on a full card: the file copied before it removed"
that "put on a full card: nothing left behind" test "$(listing)" = "$before"
that "put on a full card: no scratch file left" test -z "$(find "$P" -name 'F83P*')"
# Ctrl-C in the middle of the second file's copy: both files removed, then
# the signal ends fat83 (bash: 130), nothing cut short left on the card
FAKEVFAT_SIGNAL=70000 run 130 put "$H/CUBE1.GCO" "$H/BIG.BIN" "$P"
expect "BIG\\.BIN: stopped \\(a signal" "put, Ctrl-C during a copy: said"
expect "F83P0000\\.TMP: removed \\(the copy of .*/CUBE1\\.GCO\\)" "put, Ctrl-C during a copy: the file copied before it removed"
that "put, Ctrl-C during a copy: nothing left behind" test "$(listing)" = "$before"
# the same with SIGINT ignored from the start (a script's background job): it copies on
mkdir "$T/ign"
WRAP='env --ignore-signal=INT' FAKEVFAT_SIGNAL=70000 run 0 put "$H/CUBE1.GCO" "$H/BIG.BIN" "$T/ign"
both_copied() { cmp -s "$H/CUBE1.GCO" "$T/ign/CUBE1.GCO" && cmp -s "$H/BIG.BIN" "$T/ign/BIG.BIN"; }
that "put, SIGINT ignored from the start: a Ctrl-C ignored, both files copied" both_copied
rm -rf "$T/ign"
run 2 put "$H/CUBE1.GCO" "$H/no such file" "$P"
expect 'no such file: No such file or directory' "put of a missing file: said"
run 2 put "$H" "$P"
expect 'not a regular file' "put of a directory: refused"
that "put refused: nothing copied" test "$(listing)" = "$before"
run 2 put "$H/CUBE1.GCO"
# a card pulled (SIGKILL: nothing removes anything) in the middle of a
# copy: the copy cut short under a scratch name only, never under BIG.BIN,
# which a printer would print; check and the next put point it out
names() { find "$P" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort; }
n_before=$(names)
FAKEVFAT_SIGNAL=70000 FAKEVFAT_SIGNO=9 run 137 put "$H/BIG.BIN" "$P"
that "put killed mid-copy: no BIG.BIN under its name" test ! -e "$P/BIG.BIN"
that "put killed mid-copy: the part written under a scratch name only, F83P0000.TMP" \
	test "$(comm -13 <(echo "$n_before") <(names))" = F83P0000.TMP
run 1 check "$P"
expect ', 1 file\(s\) left by a put stopped short$' "check: a scratch file left by put counted, exit 1"
expect '^F83P0000\.TMP: left by a fat83 put stopped short \(a card pulled, a power cut\): unmount the card, run fsck\.fat -a on it, remove this file, then put the file again with --replace$' "check: a scratch file left by put said"
printf 'G1 X10\n' >"$H/CUBE1.GCO"
run 0 put --dry-run --replace "$H/CUBE1.GCO" "$P"
expect "^$P/F83P0000\\.TMP: left by a fat83 put stopped short \\(a card pulled, a power cut\\): unmount the card, run fsck\\.fat -a on it, remove this file, then put the file again with --replace\$" "put: a scratch file left by put said"
rm "$P/F83P0000.TMP"
# --replace: an export of CUBE1.GCO again, over the old CUBE1.GCO
expect "^$H/CUBE1\\.GCO -> $P/CUBE1\\.GCO \\(would replace it\\)\$" "put --dry-run --replace: says it would replace CUBE1.GCO"
that "put --dry-run --replace: nothing copied" test "$(listing)" = "$before"
n_before=$(names)
run 0 put --replace "$H/CUBE1.GCO" "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE1\\.GCO \\(replaced\\)\$" "put --replace: CUBE1.GCO replaced"
that "put --replace: CUBE1.GCO the new content" cmp -s "$H/CUBE1.GCO" "$P/CUBE1.GCO"
that "put --replace: the same entries as before (no CUBE12.GCO, no scratch file)" \
	test "$(names)" = "$n_before"
that "put --replace: one CUBE1.GCO" test "$(find "$P" -iname CUBE1.GCO | wc -l)" = 1
# without --replace, never over it: the next free name
printf 'G1 X11\n' >"$H/CUBE1.GCO"
run 0 put "$H/CUBE1.GCO" "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE12\\.GCO\$" "put without --replace: the next free name, CUBE12.GCO"
that "put without --replace: CUBE1.GCO untouched" test "$(cat "$P/CUBE1.GCO")" = "G1 X10"
rm "$P/CUBE12.GCO"
# CUBE12.GCO made by someone else between the plan and the rename: not
# replaced, the next free name
FAKEVFAT_RACE=CUBE12.GCO run 0 put "$H/CUBE1.GCO" "$P"
expect "^$H/CUBE1\\.GCO -> $P/CUBE13\\.GCO\$" "put, CUBE12.GCO taken before the rename: the next free name, CUBE13.GCO"
that "put, CUBE12.GCO taken before the rename: not replaced" test "$(cat "$P/CUBE12.GCO")" = raced
rm "$P/CUBE12.GCO" "$P/CUBE13.GCO"
# no RENAME_NOREPLACE (ENOSYS; EINVAL, the flag refused): said, nothing left
before=$(listing)
for e in ENOSYS EINVAL; do
	FAKEVFAT_NOFLAGS=$e run 2 put "$H/CUBE1.GCO" "$H/Benchy Final.gcode" "$P"
	expect "renameat2 with RENAME_NOREPLACE: .*does not support it" "put, renameat2 without RENAME_NOREPLACE ($e): said"
	that "put, renameat2 without RENAME_NOREPLACE ($e): nothing left behind" test "$(listing)" = "$before"
done
# --replace never replaces a directory
mkdir "$P/PARTS"
printf 'G1 X12\n' >"$H/PARTS"
before=$(listing)
run 2 put --replace "$H/CUBE1.GCO" "$H/PARTS" "$P"
expect "^fat83: $P/PARTS: a directory, not replaced" "put --replace: a directory refused"
that "put --replace of a directory: nothing copied" test "$(listing)" = "$before"

# 8.3 names some firmware cannot open ('^', non-ASCII): flagged, exit 1;
# a lower-case 8.3 name is an 8.3 entry (its case only), which fix leaves
O=$T/odd
mkdir -p "$O"
for f in 'A^B.GCO' 'É.TXT' 'cube.gco' 'OK~1.GCO' '-X.GCO'; do echo x >"$O/$f"; done
run 1 check "$O"
expect "^A\^B\.GCO: an 8\.3 name some firmware cannot open .*fix leaves it: rename it by hand to what fat83 name gives, AB\.GCO$" "check: A^B.GCO flagged, by hand"
expect "^É\.TXT: an 8\.3 name some firmware cannot open" "check: É.TXT flagged"
expect ": 0 long name\(s\) 8\.3 readers do not see, 2 8\.3 name\(s\) some firmware cannot open" "check: 2 such names counted, nothing else"
run 1 check --case "$O"
expect '^cube\.gco: 8\.3 readers see CUBE\.GCO \(other case\)$' "check --case: cube.gco, an 8.3 entry in lower case"
run 0 fix --dry-run "$O"
expect 'dry run: 0 rename\(s\) planned' "fix: leaves the case-only and odd 8.3 names alone"
rm -rf "$O"

# fix refuses a boot partition it recognises, without --force
for b in EFI/BOOT boot/grub syslinux/ isolinux/ ldlinux.sys syslinux.cfg bootcode.bin start4.elf config.txt+bcm2711-rpi-4-b.dtb; do
	B=$T/boot
	rm -rf "$B"
	mkdir -p "$B"
	for f in ${b//+/ }; do
		case $f in */*) mkdir -p "$B/$f" ;; *) echo x >"$B/$f" ;; esac
	done
	echo x >"$B/Long Name.txt"
	before=$(cd "$B" && find . | sort)
	run 2 fix "$B"
	expect "refused: a boot or EFI System Partition \(.* holds (${b%%/*}|${b%%+*})" "fix: refused where the top holds ${b//+/ and }"
	that "fix refused ($b): nothing renamed" test "$(cd "$B" && find . | sort)" = "$before"
	run 0 fix --force --dry-run "$B"
done
echo x >"$B/config.txt"
rm "$B"/*.dtb
run 0 fix --dry-run "$B"
expect 'Long Name\.txt -> LONGNAME\.TXT' "fix: config.txt without a *.dtb is no boot partition"

# "Put on card as 8.3" (tools/desktop/put-on-card) with stand-ins for
# zenity (what it shows), findmnt (the cards mounted) and fat83 (this
# one on the fake vfat); installed by make install, its .desktop checked
S=$T/stand-ins
mkdir -p "$S" "$T/card2"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s/zenity.out"\n' "$T" >"$S/zenity"
printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$T/fakevfat.so" "$FAT83" >"$S/fat83"
# shellcheck disable=SC2016 # the stand-in expands it
printf '#!/bin/sh\nprintf "%%s" "$MOUNTED"\n' >"$S/findmnt"
chmod 755 "$S"/*
poc() { rc=0; PATH=$S:$PATH USER=tester "$HERE/../desktop/put-on-card" "$@" >/dev/null 2>&1 || rc=$?; }
rm -f "$T/zenity.out"
FAT83_CARD=$T/card2 poc "$H/CUBE1.GCO"
that "put-on-card, FAT83_CARD: exit 0, CUBE1.GCO on the card" test "$rc" = 0 -a -f "$T/card2/CUBE1.GCO"
that "put-on-card: a window with fat83's line" grep -qx -- "$H/CUBE1.GCO -> $T/card2/CUBE1.GCO" "$T/zenity.out"
rm -f "$T/zenity.out"
MOUNTED='' poc "$H/CUBE1.GCO"
that "put-on-card, no card mounted: exit 2, an error window" sh -c "test $rc = 2 && grep -qx -- --error '$T/zenity.out' && grep -q 'No FAT card is mounted' '$T/zenity.out'"
rm -f "$T/zenity.out"
mv "$S/fat83" "$S/fat83.real"
printf '#!/bin/sh\necho fat83 "$@"\n' >"$S/fat83"
chmod 755 "$S/fat83"
MOUNTED="/media/other/X
/media/tester/MY CARD" poc "$H/CUBE1.GCO"
that "put-on-card, one card of this user's mounted: fat83 put onto it" grep -qx "fat83 put -- $H/CUBE1.GCO /media/tester/MY CARD" "$T/zenity.out"
# kdialog, no zenity (PATH: the stand-ins alone): two cards, one with a blank, both offered
K=$T/kde
mkdir -p "$K"
ln -s "$(command -v grep)" "$K/grep"
cp "$S/findmnt" "$S/fat83" "$K/"
# shellcheck disable=SC2016 # the stand-in expands them
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s/kdialog.out"\n[ "$3" != --radiolist ] || echo "/media/tester/MY CARD"\n' "$T" >"$K/kdialog"
chmod 755 "$K/kdialog"
rc=0
MOUNTED="/media/tester/X
/media/tester/MY CARD" PATH=$K USER=tester "$HERE/../desktop/put-on-card" "$H/CUBE1.GCO" >/dev/null 2>&1 || rc=$?
that "put-on-card with kdialog: a card whose mount point has a blank offered, picked, fat83 put onto it" \
	test "$rc" = 0 -a "$(grep -cx '/media/tester/MY CARD' "$T/kdialog.out")" = 2 -a \
	-n "$(grep -x "fat83 put -- $H/CUBE1.GCO /media/tester/MY CARD" "$T/kdialog.out")"
make -s -C "$HERE" install DESTDIR="$T/inst" PREFIX=/usr >/dev/null
D=$T/inst/usr/share/fat83/put-on-card.desktop
that "make install: put-on-card and its .desktop in /usr/share/fat83" test -x "$T/inst/usr/share/fat83/put-on-card" -a -f "$D"
that "the .desktop runs the installed put-on-card with the selected files" grep -qx 'Exec=/usr/share/fat83/put-on-card %F' "$D"
if command -v desktop-file-validate >/dev/null; then
	# a KDE service menu (Type=Service) holds MimeType and Actions, which the spec has for applications only
	v=$(desktop-file-validate "$D" | grep -v 'key "\(MimeType\|Actions\)" is present in group "Desktop Entry", but the type is "Service"')
	that "desktop-file-validate: nothing but a service menu's MimeType and Actions${v:+: $v}" test -z "$v"
else
	echo "skip: no desktop-file-validate (apt install desktop-file-utils)"
fi

echo "fat83 host test: $pass passed, $fail failed"
[[ $fail == 0 ]]
