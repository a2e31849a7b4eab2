#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# transcript.sh [--kernel LINE] [--print] [qemu-run.sh options...] - make
# transcript: boots LINE's kernel (default 7.3) with ./qemu-run.sh
# --guest-cmd, runs the README's nolongcreate session there and writes it
# between README.md's "transcript: begin" and "end" markers (--print: only
# prints it).  The README is left alone unless the long name was refused,
# the 8.3 name found and the old long name read.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

LINE=7.3
PRINT=0
QARGS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) LINE=${2:?--kernel needs a line}; shift 2 ;;
	--kernel=*) LINE=${1#*=}; shift ;;
	--print) PRINT=1; shift ;;
	-h | --help) sed -n '4,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) QARGS+=("$1"); shift ;;
	esac
done

BEGIN='<!-- transcript: begin (make transcript) -->'
END='<!-- transcript: end -->'

# The guest side.  Setup is silent; each shown command is echoed with a
# "# " prompt, then run with its output (stderr too) as a terminal shows it.
# shellcheck disable=SC2016 # expanded in the guest
GUEST='
set -u
truncate -s 32M /tmp/usb.img
mkfs.vfat -n USBSTICK /tmp/usb.img >/dev/null
losetup /dev/loop0 /tmp/usb.img
mkdir -p /mnt
mount -t vfat /dev/loop0 /mnt
echo "written without nolongcreate" >"/mnt/Holiday Photos 2025.txt"
umount /mnt
show() { printf "# %s\n" "$1"; eval "$1" 2>&1; }
echo "@@transcript@@"
show "uname -r"
show "mount -t vfat -o nolongcreate /dev/loop0 /mnt"
show "grep /mnt /proc/mounts"
show "touch \"/mnt/Long Report 2026.txt\""
show "touch /mnt/REPORT26.TXT"
show "touch /mnt/ReadMe.txt"
show "touch /mnt/notes.txt"
show "umount /mnt && mount -t vfat -o nolongcreate /dev/loop0 /mnt"
show "ls /mnt"
show "cat \"/mnt/Holiday Photos 2025.txt\""
echo "@@transcript-end@@"
[[ ! -e "/mnt/Long Report 2026.txt" && -e /mnt/REPORT26.TXT ]] &&
	ls /mnt | grep -qx notes.txt && ! ls /mnt | grep -qix readme.txt &&
	grep -q "^written" "/mnt/Holiday Photos 2025.txt"
'

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "=== ./qemu-run.sh --kernel $LINE --no-suite --guest-cmd '<the session>' ${QARGS[*]}"
if ! ./qemu-run.sh --kernel "$LINE" --no-suite --guest-cmd "$GUEST" "${QARGS[@]}" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "transcript.sh: the guest run failed; README.md left as it is" >&2
	exit 1
fi
session=$(tr -d '\r' <"$log" | sed -n '/^@@transcript@@$/,/^@@transcript-end@@$/p' | sed '1d;$d')
if ! grep -q 'File name too long' <<<"$session" || ! grep -q 'Invalid argument' <<<"$session" ||
	! grep -q 'REPORT26.TXT' <<<"$session"; then
	printf '%s\n' "$session" >&2
	echo "transcript.sh: the session does not show what it must; README.md left as it is" >&2
	exit 1
fi

block=$(
	echo "$BEGIN"
	echo '```console'
	printf '%s\n' "$session"
	echo '```'
	echo "$END"
)
if [[ $PRINT == 1 ]]; then
	printf '%s\n' "$block"
	exit 0
fi
if ! grep -qxF "$BEGIN" README.md || ! grep -qxF "$END" README.md; then
	echo "transcript.sh: README.md has no transcript markers ($BEGIN ... $END)" >&2
	exit 1
fi
BLOCK=$block awk -v b="$BEGIN" -v e="$END" '
	$0 == b { print ENVIRON["BLOCK"]; skip = 1; next }
	$0 == e { skip = 0; next }
	!skip
' README.md >README.md.new
mv README.md.new README.md
echo "README.md: transcript rewritten ($(wc -l <<<"$session") lines, linux-source-$LINE)"
