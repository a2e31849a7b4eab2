#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # sh -c scripts read the exported card variables
#
# In the Debian 12 guest of scripts/card-guest.sh, as a desktop has it:
# systemd-udevd, the system D-Bus and the real udisks2 daemon, Debian's
# own kernel with (nlc.dkms=1) or without (nlc.dkms=0) the fat modules the
# DKMS package built.  Cards (virtio disks, by their serial): PRINTER
# (UUID 1111-AAAA), STICK (2222-BBBB), OTHER (3333-CCCC), each holding "Old
# Long Name.gcode" (mtools), WRITERS (4444-DDDD) empty, and a disk with no
# filesystem.  TAP on stdout; with nlc.dkms=1 also the writers' table
# (tools/card/writers.sh) between "--- writers" and "--- end".
set -u

DKMS=0 PKGVER=
read -r -a args </proc/cmdline
for a in "${args[@]}"; do
	case $a in
	nlc.dkms=*) DKMS=${a#*=} ;;
	nlc.pkgver=*) PKGVER=${a#*=} ;;
	esac
done

n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local d=$1
	shift
	if "$@" >/tmp/out 2>&1; then ok "$d"; else notok "$d"; sed 's/^/# /' /tmp/out; fi
}
# the options of DEV's mount in /proc/mounts ("" when not mounted)
opts_of() { awk -v d="$1" '$1 == d { print $4 }' /proc/mounts; }
has_opt() { case ",$(opts_of "$1")," in *",$2,"*) return 0 ;; esac; return 1; }
mounted() { [ -n "$(opts_of "$1")" ]; }
mp_of() { awk -v d="$1" '$1 == d { print $2 }' /proc/mounts | sed 's/\\040/ /g'; }
say() { echo "# $*"; }
run() { # show a command and its output, as a transcript
	echo "# \$ $*"
	"$@" 2>&1 | sed 's/^/#   /'
	return "${PIPESTATUS[0]}"
}
umount_all() { for d in "$PRINTER" "$STICK" "$OTHER"; do mounted "$d" && udisksctl unmount -b "$d" >/dev/null 2>&1; done; true; }
# ENAMETOOLONG from touch: "File name too long"
refused_long() { ! touch "$1" 2>/tmp/err && grep -q 'File name too long' /tmp/err && [ ! -e "$1" ]; }
card_props() { udevadm info --query=property --name="$1" | grep '^UDISKS_MOUNT_OPTIONS_VFAT_' || true; }

# ---------------------------------------------------------------- boot --
say "kernel $(uname -r), dkms=$DKMS"
depmod -a
/lib/systemd/systemd-udevd --daemon
udevadm trigger --action=add --type=subsystems
udevadm trigger --action=add --type=devices
udevadm settle --timeout=120
mkdir -p /run/dbus
dbus-daemon --system --fork
/usr/libexec/udisks2/udisksd --no-debug >/tmp/udisksd.log 2>&1 &
for _ in $(seq 1 120); do udisksctl status >/dev/null 2>&1 && break; sleep 1; done
echo "TAP version 13"
dev() { readlink -f "/dev/disk/by-id/virtio-$1"; }
PRINTER=$(dev printer) STICK=$(dev stick) OTHER=$(dev other) WRITERS=$(dev writers) BLANK=$(dev blank)
export PRINTER STICK OTHER WRITERS BLANK
say "cards: PRINTER $PRINTER, STICK $STICK, OTHER $OTHER, WRITERS $WRITERS, no filesystem $BLANK"
check "udisksd answers on the system bus (udisks2 $(dpkg-query -W -f '${Version}' udisks2))" udisksctl status
check "the cards are there" test -b "$PRINTER" -a -b "$STICK" -a -b "$OTHER" -a -b "$WRITERS" -a -b "$BLANK"

modprobe vfat
if [ "$DKMS" = 1 ]; then
	check "vfat in use is the package's ($PKGVER)" grep -qxF "$PKGVER" /sys/module/vfat/version
else
	check "vfat in use is the kernel's own (no version)" test ! -e /sys/module/vfat/version
fi

# ---------------------------------------------------------------- udisks --
udisksctl mount -b "$OTHER" -o nolongcreate >/tmp/udisksctl.out 2>&1
say "\$ udisksctl mount -b $OTHER -o nolongcreate"; sed 's/^/#   /' /tmp/udisksctl.out
check "without the package, udisks2 refuses -o nolongcreate (not allowed)" \
	grep -q "nolongcreate.* is not allowed" /tmp/udisksctl.out
umount_all

dpkg -i /opt/nlc/tools.deb >/tmp/dpkg.out 2>&1
check "dpkg -i vfat-nolongcreate-tools" test $? = 0
udevadm settle
if [ "$DKMS" = 1 ]; then
	check "fat83 supported: yes" fat83 supported
else
	check "fat83 supported: no (exit 1)" sh -c 'fat83 supported; test $? = 1'
fi

run nolongcreate-card mark "$PRINTER"
check "nolongcreate-card mark $PRINTER: UUID=1111-AAAA listed" grep -qx 'UUID=1111-AAAA' /etc/vfat-nolongcreate/cards
run nolongcreate-card status "$PRINTER"
say "udev properties of $PRINTER:"; card_props "$PRINTER" | sed 's/^/#   /'
say "udev properties of $STICK (not marked):"; card_props "$STICK" | sed 's/^/#   /'

run udisksctl mount -b "$PRINTER"
check "marked card: udisksctl mount" mounted "$PRINTER"
MP=$(mp_of "$PRINTER")
say "/proc/mounts: $(grep "^$PRINTER " /proc/mounts)"
if [ "$DKMS" = 1 ]; then
	check "marked card: mounted with nolongcreate" has_opt "$PRINTER" nolongcreate
	check "marked card: udisks2's other defaults kept (shortname=mixed, showexec, utf8, flush)" \
		sh -c "grep '^$PRINTER ' /proc/mounts | grep -q 'shortname=mixed,showexec,utf8,.*flush'"
	check "marked card: a long name is refused (File name too long)" refused_long "$MP/Benchy Final.gcode"
	check "marked card: an 8.3 name is written" touch "$MP/CUBE.GCO"
	check "marked card: the existing long name is read" grep -q old "$MP/Old Long Name.gcode"
else
	check "marked card, kernel without the option: mounted without it" sh -c '! grep "^$PRINTER " /proc/mounts | grep -q nolongcreate'
	check "marked card, kernel without the option: a long name is written" touch "$MP/Benchy Final.gcode"
fi
umount_all

run udisksctl mount -b "$STICK"
check "unmarked card: udisksctl mount" mounted "$STICK"
check "unmarked card: mounted without nolongcreate" sh -c '! grep "^$STICK " /proc/mounts | grep -q nolongcreate'
check "unmarked card: a long name is written" touch "$(mp_of "$STICK")/Benchy Final.gcode"
umount_all

run udisksctl mount -b "$OTHER" -o nolongcreate
if [ "$DKMS" = 1 ]; then
	check "any card: udisksctl mount -o nolongcreate" has_opt "$OTHER" nolongcreate
	check "any card: a long name is refused" refused_long "$(mp_of "$OTHER")/Benchy Final.gcode"
	umount_all
	run udisksctl mount -b "$PRINTER" -o longcreate
	check "marked card: -o longcreate overrides the mark" sh -c 'grep -q "^$PRINTER " /proc/mounts && ! grep "^$PRINTER " /proc/mounts | grep -q nolongcreate'
	umount_all
	run nolongcreate-card mark LABEL=STICK
	run udisksctl mount -b "$STICK"
	check "card marked by LABEL=STICK: mounted with nolongcreate" has_opt "$STICK" nolongcreate
	umount_all
	run nolongcreate-card unmark LABEL=STICK
else
	check "kernel without the option: -o nolongcreate is refused by udisks2, nothing mounted" \
		sh -c '! mounted "$OTHER" 2>/dev/null; ! grep -q "^$OTHER " /proc/mounts'
fi
umount_all

run nolongcreate-card unmark "$PRINTER"
run udisksctl mount -b "$PRINTER"
check "unmarked again: mounted without nolongcreate" sh -c 'grep -q "^$PRINTER " /proc/mounts && ! grep "^$PRINTER " /proc/mounts | grep -q nolongcreate'
umount_all

cp /etc/vfat-nolongcreate/cards /tmp/cards.before
run nolongcreate-card mark "$BLANK"
check "mark of a device without vfat: exit 2, nothing changed" \
	sh -c 'nolongcreate-card mark "$BLANK" >/dev/null 2>&1; test $? = 2 && cmp -s /tmp/cards.before /etc/vfat-nolongcreate/cards'
check "unmark of a card not marked: exit 1" sh -c 'nolongcreate-card unmark UUID=9999-9999 >/dev/null; test $? = 1'

# -------------------------------------------------------------- writers --
if [ "$DKMS" = 1 ]; then
	echo "--- writers"
	bash /opt/nlc/writers.sh "$WRITERS"
	echo "--- end"
fi

echo "1..$n"
echo "# card-guest: $((n - fails)) passed, $fails failed"
