#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/card/host-test.sh [NOLONGCREATE_CARD]: how nolongcreate-card reads
# a hand-edited list of cards (NOLONGCREATE_CARDS, a temporary file): the
# entries "list" prints and the lines it warns about; a mount point given
# for a device; what the last rule (--udev-last) does with a marked card's
# defaults; --udev and status (verdict) with mount_options.conf; mark,
# list and unmark of labels.  Nothing is marked on the host (a temporary
# list), no udev event is sent.  Prints "ok:"/"FAIL:" lines and last
# "card host test: N passed, N failed"; exit status 0 only if none failed.
# shellcheck disable=SC2016 # code for lib(), expanded there
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CARD=${1:-$HERE/nolongcreate-card}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { if "${@:2}"; then ok "$1"; else bad "$1"; fi; } # expect DESCRIPTION COMMAND...

# as a Windows editor, blkid's output and a hand would write it
printf '\357\273\277# my cards\r\nUUID="BBBB-2222"\r\nLABEL=PRINTER  # my printer\n' >"$T/cards"
printf "  label = 'MY #1'  # quoted\nLABEL=A#B\nuuid = 1111-AAAA\nFOO=bar\nUUID=\n# the end\nLABEL=LAST" >>"$T/cards"
rc=0
NOLONGCREATE_CARDS=$T/cards bash "$CARD" list >"$T/out" 2>"$T/err" || rc=$?
sed 's/^/  /' "$T/out" "$T/err"
if [[ $rc == 0 ]]; then ok "list: exit 0"; else bad "list: exit $rc"; fi
want=$(printf '%s\n' UUID=BBBB-2222 LABEL=PRINTER 'label=MY #1' 'LABEL=A#B' uuid=1111-AAAA FOO=bar UUID= LABEL=LAST)
if [[ $(cat "$T/out") == "$want" ]]; then
	ok "list: BOM, quotes, trailing comments, CR and blanks dropped"
else
	bad "list: the entries are not the normalised ones"
	diff <(echo "$want") "$T/out" | sed 's/^/  /'
fi
for l in 7:FOO=bar 8:UUID=; do
	if grep -q "warning: $T/cards:${l%%:*}: \"${l#*:}\" is not UUID=... or LABEL=..." "$T/err"; then
		ok "list: line ${l%%:*} (${l#*:}) warned about"
	else
		bad "list: no warning about line ${l%%:*} (${l#*:})"
	fi
done
if [[ $(wc -l <"$T/err") == 2 ]]; then ok "list: no other warning"; else bad "list: $(wc -l <"$T/err") warnings, want 2"; fi

# a mount point stands for the device mounted there; a directory that is
# not one is refused, nothing marked (as a user, e.g. make deb's build:
# mark is refused first, nothing marked)
if [[ $EUID != 0 ]]; then
	rc=0
	NOLONGCREATE_CARDS=$T/cards bash "$CARD" mark "$T" >"$T/out" 2>&1 || rc=$?
	expect "mark as a user: exit 2, needs root ($(cat "$T/out"))" test "$rc" = 2 -a "$(cat "$T/out")" = "nolongcreate-card: mark: needs root"
	expect "mark as a user: the list unchanged" test "$(NOLONGCREATE_CARDS=$T/cards bash "$CARD" list 2>/dev/null | wc -l)" = 8
else
	rc=0
	NOLONGCREATE_CARDS=$T/cards bash "$CARD" mark "$T" >"$T/out" 2>&1 || rc=$?
	if [[ $rc == 2 ]] && grep -q "$T: not a mount point" "$T/out"; then
		ok "mark DIR: not a mount point, exit 2"
	else
		bad "mark DIR: exit $rc, $(cat "$T/out")"
	fi
	mp=/ # (in a build chroot / is no mount point: /proc)
	findmnt -M / >/dev/null || mp=/proc
	src=$(findmnt -n -o SOURCE -M "$mp")
	rc=0
	NOLONGCREATE_CARDS=$T/cards bash "$CARD" mark "$mp" >"$T/out" 2>&1 || rc=$?
	if [[ -n $src && $rc == 2 ]] && grep -qF "nolongcreate-card: $src: " "$T/out"; then
		ok "mark $mp: the device mounted there ($src) is judged: $(cat "$T/out")"
	else
		bad "mark $mp: exit $rc, $(cat "$T/out") (want ${src:-a device} judged)"
	fi
fi
rc=0
bash "$CARD" status "$T" >"$T/out" 2>&1 || rc=$?
if [[ $rc == 2 ]] && grep -q "$T: not a mount point" "$T/out"; then
	ok "status DIR: not a mount point, exit 2"
else
	bad "status DIR: exit $rc, $(cat "$T/out")"
fi

# the last rule (99-zz-vfat-nolongcreate.rules): a marked card's
# defaults lose nolongcreate where the final allow lists (a later rule's
# properties, else mount_options.conf's) lack it
# shellcheck disable=SC2016 # udisks2's $UID, not expanded
A0='uid=$UID,gid=$GID,flush,utf8,shortname,umask,dmask,fmask,codepage,iocharset,usefree,showexec'
# shellcheck disable=SC2016
D0='uid=$UID,gid=$GID,shortname=mixed,utf8=1,showexec,flush'
last() { # last WANT DESCRIPTION VAR=VALUE...: --udev-last's output
	local want=$1 what=$2 out rc=0
	shift 2
	out=$(env -i PATH="$PATH" NOLONGCREATE_UDISKS_CONF="$T/udisks.conf" DEVNAME=/dev/sdz1 \
		DEVLINKS=/dev/disk/by-uuid/1111-AAAA UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS="$D0,nolongcreate" \
		"$@" bash "$CARD" --udev-last 2>&1) || rc=$?
	if [[ $rc == 0 && $out == "$want" ]]; then
		ok "--udev-last, $what"
	else
		bad "--udev-last, $what: exit $rc, got '$out', want '$want'"
	fi
}
dropped=$(printf '%s\n' "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=$D0" "VFAT_NOLONGCREATE_SKIP=later-allow")
rm -f "$T/udisks.conf"
last "$dropped" "a later rule's vfat allow list without the option: the default dropped" \
	UDISKS_MOUNT_OPTIONS_VFAT_ALLOW="$A0"
last "" "a later rule's vfat allow list with the option: kept" \
	UDISKS_MOUNT_OPTIONS_VFAT_ALLOW="$A0,nolongcreate,longcreate"
last "" "the generic allow list with the option: kept" \
	UDISKS_MOUNT_OPTIONS_VFAT_ALLOW="$A0" UDISKS_MOUNT_OPTIONS_ALLOW=nolongcreate
last "$dropped" "no vfat allow list left (udisks2's built-in one): the default dropped"
last "$(printf '%s\n' "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=$D0" "VFAT_NOLONGCREATE_SKIP=udisks-lists later-allow")" \
	"the earlier skips kept" UDISKS_MOUNT_OPTIONS_VFAT_ALLOW="$A0" VFAT_NOLONGCREATE_SKIP=udisks-lists
printf '[/dev/disk/by-uuid/1111-AAAA]\nvfat_allow=%s,nolongcreate\n' "$A0" >"$T/udisks.conf"
last "" "no property, the card's group of mount_options.conf allows it: kept"
printf '[defaults]\nvfat_allow=%s\n' "$A0" >"$T/udisks.conf"
last "$dropped" "no property, mount_options.conf's list lacks it: the default dropped"

# The script's functions without its command line (a copy up to it,
# sourced): the kernel taken to have the option or not, no udev event.
sed '/^\[\[ \$# -ge 1 \]\]/,$d' "$CARD" >"$T/lib.sh"
expect "udev() and verdict() found in $CARD" test "$(grep -cE '^(udev|verdict)\(\) \{' "$T/lib.sh")" = 2
printf 'vfat_allow=%s\nvfat_defaults=%s\n' "$A0" "$D0" >"$T/udisksd" # a udisksd whose lists are the known ones
# lib KERNEL(0|1) CODE...: CODE run with the functions, a marked card
lib() {
	local k=$1
	shift
	env -i PATH="$PATH" NOLONGCREATE_CARDS="$T/mcards" NOLONGCREATE_UDISKS_CONF="$T/udisks.conf" \
		NOLONGCREATE_UDISKSD="$T/udisksd" DEVNAME=/dev/sdz1 DEVLINKS="/dev/disk/by-uuid/1111-AAAA /dev/disk/by-label/MY\x20CARD" \
		ID_FS_UUID=1111-AAAA ID_FS_LABEL_ENC='MY\x20CARD' K="$k" bash -c '. "$1"; c=$2; shift 2
		kernel_has_option() { KERNEL_WHY="no option here"; return "$K"; }
		retrigger() { :; }; mark_note() { :; }
		eval "$c"' sh "$T/lib.sh" "$@" 2>&1
}
# udev_case WANT DESCRIPTION KERNEL CONF: --udev's properties, and what
# status (verdict) says with them
udev_case() {
	local want=$1 what=$2 out
	printf '%b' "$4" >"$T/udisks.conf"
	out=$(lib "$3" udev)
	if [[ $out == "$want" ]]; then ok "--udev, $what"; else bad "--udev, $what: got '$out', want '$want'"; fi
	lib "$3" 'verdict /dev/sdz1 "$(printf "%s\n" "$1" DEVNAME=/dev/sdz1 "DEVLINKS=$DEVLINKS")" "$2"' "$out" "${5:-yes}" >"$T/verdict"
}
echo 'UUID=1111-AAAA' >"$T/mcards"
udev_case "$(printf '%s\n' VFAT_NOLONGCREATE_KERNEL=1 "UDISKS_MOUNT_OPTIONS_VFAT_ALLOW=$A0,nolongcreate,longcreate" \
	VFAT_NOLONGCREATE_CARD=1 "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=$D0,nolongcreate")" \
	"no conf: the built-in defaults plus the option" 0 ''
# shellcheck disable=SC2016
C='uid=$UID,gid=$GID,shortname=lower,utf8=1,noexec'
for g in defaults '/dev/disk/by-uuid/1111-AAAA' '/dev/disk/by-label/MY\\x20CARD'; do
	udev_case "$(printf '%s\n' VFAT_NOLONGCREATE_KERNEL=1 "UDISKS_MOUNT_OPTIONS_VFAT_ALLOW=$A0,nolongcreate,longcreate" \
		VFAT_NOLONGCREATE_CARD=1 "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=$C,nolongcreate")" \
		"vfat_defaults in [$g]: the conf's defaults kept, plus the option" 0 "[$g]\nvfat_defaults=$C\n"
	if grep -qx 'udisks2 mounts it with nolongcreate' "$T/verdict"; then
		ok "status, vfat_defaults in [$g]: mounts it with nolongcreate"
	else
		bad "status, vfat_defaults in [$g]: $(cat "$T/verdict")"
	fi
done
udev_case "$(printf '%s\n' VFAT_NOLONGCREATE_KERNEL=1 VFAT_NOLONGCREATE_CARD=1 VFAT_NOLONGCREATE_SKIP=conf-allow)" \
	"vfat_defaults and a vfat_allow without the option: no default added" 0 "[defaults]\nvfat_defaults=$C\nvfat_allow=$A0\n"
expect "status, that vfat_allow: says to add the option to vfat_allow" \
	grep -q 'lacks nolongcreate.*add nolongcreate to that vfat_allow' "$T/verdict"
udev_case VFAT_NOLONGCREATE_SKIP=kernel "vfat_defaults in [defaults], a kernel without the option: nothing set" 1 \
	"[defaults]\nvfat_defaults=$C\n"
expect "status, a kernel without the option: says why" grep -q 'without nolongcreate: no option here' "$T/verdict"
# nolongcreate in vfat_defaults (the previous release's advice), an
# unmarked card: udisks2 mounts it with the option, or refuses it on a
# kernel without; status says so and to take it out
: >"$T/mcards"
for k in 0 1; do
	udev_case "$([[ $k == 1 ]] && echo VFAT_NOLONGCREATE_SKIP=kernel ||
		printf '%s\n' VFAT_NOLONGCREATE_KERNEL=1)" "nolongcreate in [defaults] vfat_defaults, an unmarked card, kernel $k: nothing set" \
		"$k" "[defaults]\nvfat_defaults=$C,nolongcreate\nvfat_allow=$A0,nolongcreate\n" no
	want='udisks2 mounts it with nolongcreate'
	[[ $k == 1 ]] && want='udisks2 refuses to mount it: .*no option here'
	if grep -qx "$want.*" "$T/verdict" && grep -q 'udisks2 mounts every card that group covers with it.*take nolongcreate out of vfat_defaults' "$T/verdict"; then
		ok "status, nolongcreate in vfat_defaults, kernel $k: what udisks2 does, and to take it out"
	else
		bad "status, nolongcreate in vfat_defaults, kernel $k: $(cat "$T/verdict")"
	fi
done
echo 'UUID=1111-AAAA' >"$T/mcards"
echo 'vfat_allow=x' >"$T/udisksd"
udev_case "$(printf '%s\n' VFAT_NOLONGCREATE_KERNEL=1 VFAT_NOLONGCREATE_CARD=1 VFAT_NOLONGCREATE_SKIP=udisks-lists)" \
	"an unknown udisksd: nothing set" 0 ''
if grep -q 'not the ones' "$T/verdict" && ! grep -Eq 'nolongcreate (in|to) (vfat_allow and )?vfat_defaults|vfat_defaults.*: add nolongcreate' "$T/verdict"; then
	ok "status, an unknown udisksd: what to copy, no nolongcreate in vfat_defaults"
else
	bad "status, an unknown udisksd: $(cat "$T/verdict")"
fi
# no message, the man page nor card-owner.md advises nolongcreate in vfat_defaults (M1)
adv=$(grep -nE 'nolongcreate (to|in|into) (vfat_allow and )?vfat_defaults|vfat_defaults[^.]*: add nolongcreate|is left alone: add nolongcreate to it' \
	"$CARD" "$HERE/nolongcreate-card.8" "$HERE/../../docs/card-owner.md")
if [[ -z $adv ]]; then ok "no advice to add nolongcreate to vfat_defaults"; else bad "advice to add nolongcreate to vfat_defaults: $adv"; fi

# mark -> list -> unmark, labels with blanks, # and quotes; a label matched
# as it is, a UUID ignoring case
: >"$T/mcards"
for l in 'ENDER #2' 'MY CARD' "Bob's" 'say "hi"' 'A\tB'; do
	lib 0 'mark "LABEL=$1" >/dev/null; cards' "$l" >"$T/out"
	if grep -qxF "LABEL=$l" "$T/out" && lib 0 'is_marked "LABEL=$1"' "$l"; then
		ok "mark LABEL=$l: list prints it, it is marked"
	else
		bad "mark LABEL=$l: list prints $(paste -sd'|' "$T/out")"
	fi
done
expect "labels compared exactly: not LABEL=ENDER nor LABEL=ender #2" \
	lib 0 '! is_marked LABEL=ENDER && ! is_marked "LABEL=ender #2"'
echo 'uuid=abcd-0001' >>"$T/mcards"
expect "UUIDs compared ignoring case" lib 0 'is_marked UUID=ABCD-0001'
for l in 'ENDER #2' 'MY CARD' "Bob's" 'say "hi"' 'A\tB'; do
	lib 0 'unmark "LABEL=$1" >/dev/null' "$l" || bad "unmark LABEL=$l: exit $?"
done
lib 0 'unmark UUID=ABCD-0001 >/dev/null'
if [[ -z $(lib 0 cards) ]]; then ok "unmark: every line gone"; else bad "unmark left: $(lib 0 cards | paste -sd'|')"; fi

echo "card host test: $pass passed, $fail failed"
[[ $fail == 0 ]]
