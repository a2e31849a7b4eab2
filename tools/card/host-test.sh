#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/card/host-test.sh [NOLONGCREATE_CARD]: how nolongcreate-card reads
# a hand-edited list of cards (NOLONGCREATE_CARDS, a temporary file): the
# entries "list" prints and the lines it warns about; a mount point given
# for a device; what the last rule (--udev-last) does with a marked card's
# defaults.  Nothing is marked,
# no udev event is sent.  Prints "ok:"/"FAIL:" lines and last
# "card host test: N passed, N failed"; exit status 0 only if none failed.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CARD=${1:-$HERE/nolongcreate-card}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

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
# not one is refused, nothing marked
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

echo "card host test: $pass passed, $fail failed"
[[ $fail == 0 ]]
