#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # sh -c scripts read the exported card variables
#
# In the Debian 12, 13 or 14 guest of scripts/card-guest.sh, booted as a
# desktop is: systemd as PID 1, systemd-udevd in its unit's sandbox, the
# system D-Bus, polkitd, udisks2 started by D-Bus activation, and a user
# "owner" (uid 1000) whom a polkit rule lets mount as an active desktop
# session may; Debian's own kernel with (nlc.dkms=1) or without
# (nlc.dkms=0) the fat modules the DKMS package built.  Cards (virtio
# disks, by their serial): PRINTER (UUID 1111-AAAA), STICK (2222-BBBB),
# OTHER (3333-CCCC), each holding "Old Long Name.gcode" (mtools), WRITERS
# (4444-DDDD) empty, and a disk with no filesystem; "MY CARD" (5555-EEEE)
# is made here and attached later, as a loop device.  Run by
# nlc-test.service; TAP on the console; with nlc.dkms=1 also the writers'
# table (tools/card/writers.sh) between "--- writers" and "--- end".
set -u

# shellcheck source=scripts/lib/guest-tap.sh
. "${0%/*}/guest-tap.sh"
DKMS=$(nlc_arg dkms 0) PKGVER=$(nlc_arg pkgver '')
SLICER=$(nlc_arg slicer 1) # 0: a root without the slicer's layer

mounted_without() { mounted "$1" && ! has_opt "$1" "$2"; }
mp_of() { awk -v d="$1" '$1 == d { print $2 }' /proc/mounts | sed 's/\\040/ /g'; }
umount_all() { for d in "$PRINTER" "$STICK" "$OTHER" ${MYCARD:+"$MYCARD"}; do mounted "$d" && as_owner udisksctl unmount -b "$d" >/dev/null 2>&1; done; true; }
# ENAMETOOLONG from touch: "File name too long"
refused_long() { ! runuser -u owner -- touch "$1" 2>/tmp/err && grep -q 'File name too long' /tmp/err && [ ! -e "$1" ]; }
card_props() { udevadm info --query=property --name="$1" | grep '^UDISKS_MOUNT_OPTIONS_VFAT_' || true; }

# ---------------------------------------------------------------- boot --
say "kernel $(uname -r), dkms=$DKMS"
desktop_ready
echo "TAP version 13"
dev() { readlink -f "/dev/disk/by-id/virtio-$1"; }
PRINTER=$(dev printer) STICK=$(dev stick) OTHER=$(dev other) WRITERS=$(dev writers) BLANK=$(dev blank) MYCARD=
export PRINTER STICK OTHER WRITERS BLANK
say "cards: PRINTER $PRINTER, STICK $STICK, OTHER $OTHER, WRITERS $WRITERS, no filesystem $BLANK"
check "PID 1 is systemd" test "$(cat /proc/1/comm)" = systemd
check "systemd-udevd runs in its unit, with its system call filter" \
	sh -c 'systemctl is-active -q systemd-udevd && systemctl show -p SystemCallFilter systemd-udevd | grep -q "SystemCallFilter=."'
check "polkitd and udisks2 run as services" sh -c 'systemctl is-active -q polkit && systemctl is-active -q udisks2'
check "udisksd answers the desktop's user (udisks2 $(dpkg-query -W -f '${Version}' udisks2))" as_owner timeout 10 udisksctl status
if [ $fails != 0 ]; then
	systemctl --no-pager status udisks2 polkit dbus 2>&1 | sed 's/^/# /'
	journalctl --no-pager -b -u udisks2 -u polkit -u dbus 2>&1 | tail -n 30 | sed 's/^/# /'
	tap_end card-guest
	exit 1
fi
check "the cards are there" test -b "$PRINTER" -a -b "$STICK" -a -b "$OTHER" -a -b "$WRITERS" -a -b "$BLANK"

# ---------------------------------------------------------------- udisks --
as_owner udisksctl mount -b "$OTHER" -o nolongcreate >/tmp/udisksctl.out 2>&1
as_owner udisksctl mount -b "$STICK" >/dev/null 2>&1
say "\$ udisksctl mount -b $OTHER -o nolongcreate"; sed 's/^/#   /' /tmp/udisksctl.out
check "without the package, udisks2 refuses -o nolongcreate (not allowed)" \
	grep -q "nolongcreate.* is not allowed" /tmp/udisksctl.out
if [ "$DKMS" = 1 ]; then
	check "vfat in use is the package's ($PKGVER)" grep -qxF "$PKGVER" /sys/module/vfat/version
else
	check "vfat in use is the kernel's own (no version)" sh -c 'test -d /sys/module/vfat && test ! -e /sys/module/vfat/version'
fi
umount_all

# card-guest.sh --card-rev REV: that revision's command and rule instead
over_rev() {
	[ -d /opt/nlc/rev ] || return 0
	install -m 755 /opt/nlc/rev/nolongcreate-card /usr/sbin/nolongcreate-card
	install -m 644 /opt/nlc/rev/61-vfat-nolongcreate.rules /usr/lib/udev/rules.d/61-vfat-nolongcreate.rules
	# the last rule: that revision's, none before it had one
	rm -f /usr/lib/udev/rules.d/99-zz-vfat-nolongcreate.rules
	[ ! -f /opt/nlc/rev/99-zz-vfat-nolongcreate.rules ] ||
		install -m 644 /opt/nlc/rev/99-zz-vfat-nolongcreate.rules /usr/lib/udev/rules.d/
	udevadm control --reload
	udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat
	udevadm settle
}
dpkg -i /opt/nlc/tools.deb >/tmp/dpkg.out 2>&1
check "dpkg -i vfat-nolongcreate-tools" test $? = 0
over_rev
[ -d /opt/nlc/rev ] && say "nolongcreate-card and its rule: card-guest.sh --card-rev's"
udevadm settle
A=$(sed -n "s/^BUILTIN_ALLOW='\(.*\)'$/\1/p" /usr/sbin/nolongcreate-card)
D=$(sed -n "s/^BUILTIN_DEFAULTS='\(.*\)'$/\1/p" /usr/sbin/nolongcreate-card)
check "nolongcreate-card's copies of udisks2's built-in vfat lists are the daemon's" \
	sh -c "test -n '$A' && test -n '$D' && grep -aqF 'vfat_allow=$A' /usr/libexec/udisks2/udisksd && grep -aqF 'vfat_defaults=$D' /usr/libexec/udisks2/udisksd"
if [ "$DKMS" = 1 ]; then
	check "fat83 supported: yes" fat83 supported
else
	check "fat83 supported: no (exit 1)" sh -c 'fat83 supported; test $? = 1'
fi

# The rule runs for every vfat device: it loads no module (a modprobe
# there loaded fat for any stick and ignored a blacklist); it reads what
# is loaded, else the running kernel's modules.symbols.
umount_all
modprobe -r vfat fat 2>/dev/null
udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat
udevadm settle
check "the rule loads no module: vfat and fat still unloaded after a change event of every vfat card" \
	sh -c 'test ! -d /sys/module/vfat && test ! -d /sys/module/fat'
if [ "$DKMS" = 1 ]; then
	check "vfat not loaded: the rule reads the option in the kernel's modules.symbols (VFAT_NOLONGCREATE_KERNEL=1)" \
		sh -c 'udevadm info -q property -n "$STICK" | grep -qx VFAT_NOLONGCREATE_KERNEL=1'
else
	check "vfat not loaded: the kernel's modules.symbols lack the option (VFAT_NOLONGCREATE_SKIP=kernel)" \
		sh -c 'udevadm info -q property -n "$STICK" | grep -qx VFAT_NOLONGCREATE_SKIP=kernel'
fi

run nolongcreate-card mark "$PRINTER"
check "nolongcreate-card mark $PRINTER: UUID=1111-AAAA listed" grep -qx 'UUID=1111-AAAA' /etc/vfat-nolongcreate/cards
run nolongcreate-card status "$PRINTER"
say "udev properties of $PRINTER:"; card_props "$PRINTER" | sed 's/^/#   /'
say "udev properties of $STICK (not marked):"; card_props "$STICK" | sed 's/^/#   /'

run as_owner udisksctl mount -b "$PRINTER"
check "marked card: udisksctl mount" mounted "$PRINTER"
check "mounted for the desktop's user (uid=1000, udisks2's \$UID)" has_opt "$PRINTER" uid=1000
MP=$(mp_of "$PRINTER")
say "/proc/mounts: $(grep "^$PRINTER " /proc/mounts)"
if [ "$DKMS" = 1 ]; then
	check "marked card: mounted with nolongcreate" has_opt "$PRINTER" nolongcreate
	check "marked card: udisks2's other defaults kept (shortname=mixed, showexec, utf8, flush)" \
		sh -c "grep '^$PRINTER ' /proc/mounts | grep -q 'shortname=mixed,showexec,utf8,.*flush'"
	check "marked card: a long name is refused (File name too long)" refused_long "$MP/Benchy Final.gcode"
	check "marked card: an 8.3 name is written" as_owner touch "$MP/CUBE.GCO"
	check "marked card: the existing long name is read" grep -q old "$MP/Old Long Name.gcode"
else
	check "marked card, kernel without the option: mounted without it" mounted_without "$PRINTER" nolongcreate
	check "marked card, kernel without the option: a long name is written" as_owner touch "$MP/Benchy Final.gcode"
fi
umount_all

run as_owner udisksctl mount -b "$STICK"
check "unmarked card: udisksctl mount" mounted "$STICK"
check "unmarked card: mounted without nolongcreate" mounted_without "$STICK" nolongcreate
check "unmarked card: a long name is written" as_owner touch "$(mp_of "$STICK")/Benchy Final.gcode"
umount_all

run as_owner udisksctl mount -b "$OTHER" -o nolongcreate
if [ "$DKMS" = 1 ]; then
	check "any card: udisksctl mount -o nolongcreate" has_opt "$OTHER" nolongcreate
	check "any card: a long name is refused" refused_long "$(mp_of "$OTHER")/Benchy Final.gcode"
	umount_all
	run as_owner udisksctl mount -b "$PRINTER" -o longcreate
	check "marked card: -o longcreate overrides the mark" mounted_without "$PRINTER" nolongcreate
	umount_all
	run nolongcreate-card mark LABEL=STICK
	run as_owner udisksctl mount -b "$STICK"
	check "card marked by LABEL=STICK: mounted with nolongcreate" has_opt "$STICK" nolongcreate
	umount_all
	run nolongcreate-card unmark LABEL=STICK
else
	check "kernel without the option: -o nolongcreate is refused by udisks2, nothing mounted" \
		sh -c '! mounted "$OTHER" 2>/dev/null; ! grep -q "^$OTHER " /proc/mounts'
fi
umount_all

run nolongcreate-card unmark "$PRINTER"
run as_owner udisksctl mount -b "$PRINTER"
check "unmarked again: mounted without nolongcreate" mounted_without "$PRINTER" nolongcreate
umount_all

# A card plugged in later, marked by a label with a space (udev's
# ID_FS_LABEL_ENC "MY\x20CARD"): a loop device, its "add" event.
mkfs.vfat -C -F 16 -i 5555EEEE -n "MY CARD" /tmp/mycard.img 16384 >/dev/null
run nolongcreate-card mark "LABEL=MY CARD"
MYCARD=$(losetup -f --show /tmp/mycard.img)
export MYCARD
udevadm settle
say "udev properties of $MYCARD (MY CARD):"; card_props "$MYCARD" | sed 's/^/#   /'
run as_owner udisksctl mount -b "$MYCARD"
if [ "$DKMS" = 1 ]; then
	check "card plugged in later, marked by LABEL=MY CARD: mounted with nolongcreate" has_opt "$MYCARD" nolongcreate
else
	check "card plugged in later, marked by label, kernel without the option: mounted without it" \
		mounted_without "$MYCARD" nolongcreate
fi
umount_all
run nolongcreate-card unmark "LABEL=MY CARD"

if [ "$DKMS" = 1 ]; then
	# The administrator's own vfat_defaults in udisks2's mount_options.conf:
	# a marked card gets them plus nolongcreate, an unmarked one them alone.
	printf '[defaults]\nvfat_defaults=uid=$UID,gid=$GID,shortname=lower,utf8=1,flush\n' >/etc/udisks2/mount_options.conf
	run nolongcreate-card mark "$PRINTER"
	say "udev properties of $PRINTER:"; card_props "$PRINTER" | sed 's/^/#   /'
	run as_owner udisksctl mount -b "$PRINTER"
	check "mount_options.conf sets vfat_defaults: a marked card gets them plus nolongcreate" \
		eval 'has_opt "$PRINTER" shortname=lower && has_opt "$PRINTER" nolongcreate'
	run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
	check "mount_options.conf sets vfat_defaults: status says it mounts with nolongcreate, no advice about vfat_defaults" \
		sh -c 'grep -q "udisks2 mounts it with nolongcreate" /tmp/status.out && ! grep -q "vfat_defaults" /tmp/status.out'
	umount_all
	run as_owner udisksctl mount -b "$STICK"
	check "mount_options.conf sets vfat_defaults: an unmarked card gets them, without nolongcreate" \
		eval 'has_opt "$STICK" shortname=lower && mounted_without "$STICK" nolongcreate'
	umount_all
	run as_owner udisksctl mount -b "$PRINTER" -o nolongcreate
	check "mount_options.conf sets vfat_defaults: -o nolongcreate still allowed" has_opt "$PRINTER" nolongcreate
	umount_all

	# vfat_allow without vfat_defaults: udisks2 would refuse a default
	# it does not allow, so the rule adds none and mark and status say
	# what to add.
	A0='uid=$UID,gid=$GID,flush,utf8,shortname,umask,dmask,fmask,codepage,iocharset,usefree,showexec'
	printf '[defaults]\nvfat_allow=%s\n' "$A0" >/etc/udisks2/mount_options.conf
	run nolongcreate-card mark "$PRINTER" | tee /tmp/mark.out
	check "vfat_allow without nolongcreate in mount_options.conf: mark says to add it there" \
		grep -q "add nolongcreate to that vfat_allow" /tmp/mark.out
	run as_owner udisksctl mount -b "$PRINTER"
	check "vfat_allow without nolongcreate: the marked card mounts, without it" mounted_without "$PRINTER" nolongcreate
	umount_all
	run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
	check "vfat_allow without nolongcreate: status says the card mounts without it and what to add" \
		sh -c 'grep -q "mounts it without nolongcreate: the vfat_allow of" /tmp/status.out && ! grep -q "mounts it with nolongcreate" /tmp/status.out'
	printf '[defaults]\nvfat_allow=%s,nolongcreate\n' "$A0" >/etc/udisks2/mount_options.conf
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	run as_owner udisksctl mount -b "$PRINTER"
	check "nolongcreate added to that vfat_allow: the marked card mounts with it" has_opt "$PRINTER" nolongcreate
	umount_all

	# Only [defaults] and the groups naming the device count.
	printf '[/dev/disk/by-uuid/3333-CCCC]\nvfat_allow=%s\n' "$A0" >/etc/udisks2/mount_options.conf
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	run as_owner udisksctl mount -b "$PRINTER"
	check "vfat_allow in the group of another card ([/dev/disk/by-uuid/3333-CCCC]): the marked card mounts with nolongcreate" \
		has_opt "$PRINTER" nolongcreate
	umount_all
	printf '# vfat_allow=x\n[/dev/disk/by-label/PRINTER]\nvfat_allow=%s\n' "$A0" >/etc/udisks2/mount_options.conf
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	run as_owner udisksctl mount -b "$PRINTER"
	check "vfat_allow in the card's own group ([/dev/disk/by-label/PRINTER]): it mounts, without nolongcreate" \
		mounted_without "$PRINTER" nolongcreate
	umount_all
	rm /etc/udisks2/mount_options.conf

	# An installed udisksd whose built-in vfat lists are not the ones the
	# script knows (a udisks2 update): the rule sets none, and says so.
	U=/usr/libexec/udisks2/udisksd
	cp -p "$U" /tmp/udisksd.orig
	python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(b.replace(b",usefree,showexec\n", b",usefreX,showexec\n"))' "$U" /tmp/udisksd.new
	chmod 755 /tmp/udisksd.new
	mv /tmp/udisksd.new "$U" # a new file: the running udisksd keeps its own
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	say "udev properties of $PRINTER:"; udevadm info -q property -n "$PRINTER" | grep -E '^(UDISKS|VFAT)_' | sed 's/^/#   /'
	check "udisksd's built-in vfat lists differ from the script's: no UDISKS_MOUNT_OPTIONS_VFAT_* set, VFAT_NOLONGCREATE_SKIP=udisks-lists" \
		sh -c 'p=$(udevadm info -q property -n "$PRINTER"); ! echo "$p" | grep -q "^UDISKS_MOUNT_OPTIONS_VFAT_" && echo "$p" | grep -qx "VFAT_NOLONGCREATE_SKIP=udisks-lists"'
	run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
	check "udisksd's lists differ: status says so" grep -q "are not the ones nolongcreate-card knows" /tmp/status.out
	run as_owner udisksctl mount -b "$PRINTER"
	check "udisksd's lists differ: the marked card mounts, without nolongcreate" mounted_without "$PRINTER" nolongcreate
	umount_all
	mv /tmp/udisksd.orig "$U"
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	run nolongcreate-card unmark "$PRINTER"

	# An administrator's udev rule after the package's 61- one, where
	# udisks2's documentation puts it (99-*.rules), that sets udisks2's
	# vfat allow list without nolongcreate: the marked card still mounts,
	# without it (the last rule, 99-zz-vfat-nolongcreate.rules, drops the
	# default), and status says why; with the option in that list it
	# mounts with it.  ($$: udev's "$")
	admin_rule() {
		printf 'SUBSYSTEM=="block", ENV{ID_FS_TYPE}=="vfat", ENV{UDISKS_MOUNT_OPTIONS_VFAT_ALLOW}="%s"\n' \
			"$(printf '%s' "$1" | sed 's/\$/$$/g')" >/etc/udev/rules.d/99-local-vfat.rules
		run cat /etc/udev/rules.d/99-local-vfat.rules
		udevadm control --reload
		udevadm trigger --action=change "$PRINTER"; udevadm settle
		say "udev properties of $PRINTER:"; udevadm info -q property -n "$PRINTER" | grep -E '^(UDISKS|VFAT)_' | sed 's/^/#   /'
	}
	run nolongcreate-card mark "$PRINTER"
	admin_rule "$A0"
	run as_owner udisksctl mount -b "$PRINTER"
	check "an administrator's 99- rule sets a vfat allow list without nolongcreate: the marked card mounts, without it" \
		mounted_without "$PRINTER" nolongcreate
	umount_all
	run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
	check "that 99- rule: status says the card mounts without nolongcreate because a later rule's list lacks it" \
		sh -c 'grep -q "mounts it without nolongcreate: a udev rule after 61-vfat-nolongcreate.rules" /tmp/status.out && ! grep -q "mounts it with nolongcreate" /tmp/status.out'
	admin_rule "$A0,nolongcreate"
	run as_owner udisksctl mount -b "$PRINTER"
	check "the administrator's 99- rule's vfat allow list has nolongcreate: the marked card mounts with it" \
		has_opt "$PRINTER" nolongcreate
	umount_all
	run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
	check "that 99- rule: status says udisks2 mounts it with nolongcreate" grep -q "udisks2 mounts it with nolongcreate" /tmp/status.out
	rm /etc/udev/rules.d/99-local-vfat.rules
	udevadm control --reload

	# A marked card present while no vfat with the option is loaded and
	# the option is not promised (VFAT_NOLONGCREATE_SKIP=kernel: at boot on
	# a kernel that enforces module signatures; here the kernel's own vfat
	# loaded, the card looked at, and that vfat unloaded): once the vfat
	# with the option loads, its "add" event has udev look at the card
	# again.
	KD=/usr/lib/modules/$(uname -r)/kernel/fs/fat
	modprobe -r vfat fat
	run insmod "$(ls "$KD"/fat.ko*)"
	run insmod "$(ls "$KD"/vfat.ko*)"
	udevadm trigger --action=change "$PRINTER"; udevadm settle
	rmmod vfat fat
	say "the kernel's own vfat loaded, then unloaded; udev properties of $PRINTER:"
	udevadm info -q property -n "$PRINTER" | grep -E '^(UDISKS|VFAT)_' | sed 's/^/#   /'
	check "vfat not loaded, the card looked at while the kernel's own was: VFAT_NOLONGCREATE_SKIP=kernel" \
		sh -c '! test -d /sys/module/vfat && udevadm info -q property -n "$PRINTER" | grep -qx VFAT_NOLONGCREATE_SKIP=kernel'
	run modprobe vfat
	for _ in $(seq 1 20); do
		udevadm settle
		udevadm info -q property -n "$PRINTER" | grep -q '^UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=.*nolongcreate' && break
		sleep 0.5
	done
	say "vfat with the option loaded; udev properties of $PRINTER:"
	udevadm info -q property -n "$PRINTER" | grep -E '^(UDISKS|VFAT)_' | sed 's/^/#   /'
	check "vfat with the option loaded: udev looked at the card again (nolongcreate in its defaults)" \
		sh -c 'udevadm info -q property -n "$PRINTER" | grep -q "^UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=.*nolongcreate"'
	run as_owner udisksctl mount -b "$PRINTER"
	check "vfat with the option loaded after the card: udisks2 mounts it with nolongcreate" has_opt "$PRINTER" nolongcreate
	umount_all
	run nolongcreate-card unmark "$PRINTER"
else
	for d in "$PRINTER" "$STICK" "$OTHER"; do
		as_owner udisksctl mount -b "$d" >/dev/null 2>&1
		check "kernel without the option: $d mounts, without nolongcreate" \
			mounted_without "$d" nolongcreate
		umount_all
	done
	# the administrator's vfat_defaults in mount_options.conf and a marked
	# card, on the kernel's own vfat: every card mounts, with those defaults
	printf '[defaults]\nvfat_defaults=uid=$UID,gid=$GID,shortname=lower,utf8=1,flush\n' >/etc/udisks2/mount_options.conf
	run nolongcreate-card mark "$PRINTER"
	for c in "$PRINTER" "$STICK" "$OTHER"; do # (check's own variable is d)
		as_owner udisksctl mount -b "$c" >/dev/null 2>&1
		check "vfat_defaults in mount_options.conf, a marked card, kernel without the option: $c mounts with them" \
			eval 'has_opt "$c" shortname=lower && mounted_without "$c" nolongcreate'
		umount_all
	done
	rm /etc/udisks2/mount_options.conf
	run nolongcreate-card unmark "$PRINTER"
fi

cp /etc/vfat-nolongcreate/cards /tmp/cards.before
run nolongcreate-card mark "$BLANK"
check "mark of a device without vfat: exit 2, nothing changed" \
	sh -c 'nolongcreate-card mark "$BLANK" >/dev/null 2>&1; test $? = 2 && cmp -s /tmp/cards.before /etc/vfat-nolongcreate/cards'
check "unmark of a card not marked: exit 1" sh -c 'nolongcreate-card unmark UUID=9999-9999 >/dev/null; test $? = 1'

# The list edited by hand: a comment, blanks around an entry and its "=",
# a DOS line end, a lower-case key, no newline after the last line.
cp /etc/vfat-nolongcreate/cards /tmp/cards.saved
printf '# my cards\n\n  UUID = 1111-AAAA  \r\n   # the stick\nlabel=STICK' >/etc/vfat-nolongcreate/cards
udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat; udevadm settle
run nolongcreate-card list
check "hand-edited list: list prints its two entries" \
	sh -c 'test "$(nolongcreate-card list | tr "\n" " ")" = "UUID=1111-AAAA label=STICK "'
check "hand-edited list: status says both cards are marked" \
	sh -c 'nolongcreate-card status "$PRINTER" | grep -q "marked: yes" && nolongcreate-card status "$STICK" | grep -q "marked: yes"'
if [ "$DKMS" = 1 ]; then
	as_owner udisksctl mount -b "$PRINTER" >/dev/null 2>&1
	as_owner udisksctl mount -b "$STICK" >/dev/null 2>&1
	check "hand-edited list: both cards mount with nolongcreate" \
		eval 'has_opt "$PRINTER" nolongcreate && has_opt "$STICK" nolongcreate'
	umount_all
fi
run nolongcreate-card mark LABEL=OTHER
check "mark after a last line without newline: the entry on a line of its own, the others intact" \
	bash -c 'tail -n 2 /etc/vfat-nolongcreate/cards | cmp -s - <(printf "label=STICK\nLABEL=OTHER\n")'
run nolongcreate-card unmark "$PRINTER"
check "unmark of a hand-written entry: its line removed, the comments kept" \
	sh -c '! grep -qi 1111-AAAA /etc/vfat-nolongcreate/cards && grep -qx "# my cards" /etc/vfat-nolongcreate/cards && grep -qx "   # the stick" /etc/vfat-nolongcreate/cards'
cp /tmp/cards.saved /etc/vfat-nolongcreate/cards

# Installed from the sources under /usr/local (tools/card/Makefile's
# default PREFIX, made by card-guest.sh with DESTDIR) instead of the
# package, so without the package's fat83.
run nolongcreate-card mark "$PRINTER" >/dev/null
dpkg -r vfat-nolongcreate-tools >/tmp/dpkg.out 2>&1
cp -a /opt/nlc/local/. /
udevadm control --reload
udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat; udevadm settle
run /usr/local/sbin/nolongcreate-card status "$PRINTER"
as_owner udisksctl mount -b "$PRINTER" >/dev/null 2>&1
if [ "$DKMS" = 1 ]; then
	check "installed under /usr/local (make install, no fat83): the marked card mounts with nolongcreate" \
		has_opt "$PRINTER" nolongcreate
else
	check "installed under /usr/local, kernel without the option: the marked card mounts, without it" \
		mounted_without "$PRINTER" nolongcreate
fi
umount_all
(cd /opt/nlc/local && find . ! -type d) | (cd / && xargs rm -f)
dpkg -i /opt/nlc/tools.deb >/tmp/dpkg.out 2>&1
check "the package installed again" test $? = 0
over_rev

# docs/card-owner.md's Undo block, each line as written (sudo: as root,
# else as the user; a removal line, apt purge or make -C, not run), on a marked card udisks2 mounted and fat83 fixed:
# every line exits 0, the card is mounted again without nolongcreate,
# its old long name is back, it is no longer marked.
run nolongcreate-card mark "$PRINTER" >/dev/null
run as_owner udisksctl mount -b "$PRINTER"
# the file managers' "Put on card as 8.3" (tools/desktop/put-on-card), no
# zenity here: what it did on stdout; the card found under /media/owner
as_owner sh -c 'echo G1 >"$HOME/Benchy Final.gcode"'
run as_owner env USER=owner /opt/nlc/put-on-card "/home/owner/Benchy Final.gcode" | tee /tmp/poc.out
check "put-on-card: the export on the card udisks2 mounted, as BENCHYFI.GCO" \
	eval 'grep -q "Benchy Final.gcode -> $(mp_of "$PRINTER")/BENCHYFI.GCO" /tmp/poc.out && cmp -s "/home/owner/Benchy Final.gcode" "$(mp_of "$PRINTER")/BENCHYFI.GCO"'
run as_owner fat83 fix "$(mp_of "$PRINTER")"
check "Undo: the card fixed first (Old Long Name.gcode renamed)" test ! -e "$(mp_of "$PRINTER")/Old Long Name.gcode"
run nolongcreate-card status "$PRINTER" | tee /tmp/status.out
check "status of a mounted card: what the mount has now" grep -q "#   $PRINTER: mounted now at $(mp_of "$PRINTER"), with" /tmp/status.out
awk '/^## Undo/ { u = 1 } u && /^```/ { if (b) exit; b = 1; next } b' /opt/nlc/card-owner.md >/tmp/undo.sh
# the path as the doc's opening says: Debian 14's udisks2 mounts under /run/media
case $(mp_of "$PRINTER") in /run/media/*) sed -i 's#/media/\$USER/#/run/media/$USER/#g' /tmp/undo.sh ;; esac
check "Undo: card-owner.md's Undo block found ($(grep -c . /tmp/undo.sh) lines)" grep -q 'fat83 undo' /tmp/undo.sh
undo_rc=0
while IFS= read -r l; do
	case $l in '' | *"apt purge"* | *"make -C"*) [ -z "$l" ] || say "not run (removal): $l"; continue ;; esac
	say "undo line: $l"
	case $l in
	sudo\ *) env USER=owner sh -c "${l#sudo }" >/tmp/undo.out 2>&1 ;;
	*) as_owner env USER=owner sh -c "$l" >/tmp/undo.out 2>&1 ;;
	esac
	r=$?
	sed 's/^/#   /' /tmp/undo.out
	[ $r = 0 ] || { say "exit $r"; undo_rc=1; }
done </tmp/undo.sh
check "Undo: every line of the block exits 0" test $undo_rc = 0
check "Undo: the card mounted again, without nolongcreate" mounted_without "$PRINTER" nolongcreate
check "Undo: the old long name back" test -f "$(mp_of "$PRINTER")/Old Long Name.gcode"
check "Undo: the card no longer marked" sh -c '! nolongcreate-card list | grep -qx UUID=1111-AAAA'
umount_all

# ------------------------------------------------------------ the slicer --
# Debian's prusa-slicer on a marked card, an unmarked one, and fat83 put
# (tools/card/slicer-test.sh; makes /home/owner/cube.stl)
if [ "$DKMS" = 1 ] && [ "$SLICER" = 1 ]; then
	# shellcheck source=tools/card/slicer-test.sh
	. /opt/nlc/slicer-test.sh
fi

# -------------------------------------------------------------- writers --
if [ "$DKMS" = 1 ] && [ "$SLICER" = 1 ]; then
	echo "--- writers"
	bash /opt/nlc/writers.sh "$WRITERS" /home/owner/cube.stl
	echo "--- end"
fi

if [ "$DKMS" = 1 ]; then
	# The DKMS package removed (what its prerm's "dkms remove" does: the
	# modules and depmod; then its postrm) while its vfat is still
	# loaded: no card keeps a nolongcreate default, which the kernel's own
	# vfat, loaded from then on, would refuse at every mount.
	run nolongcreate-card mark "$PRINTER" >/dev/null
	umount_all
	rm -rf "/usr/lib/modules/$(uname -r)/updates/dkms"
	depmod -a
	sh /opt/nlc/dkms.postrm remove
	udevadm settle
	check "DKMS package removed: no vfat device has nolongcreate in its defaults" \
		sh -c '! udevadm info --export-db | grep -q "^E: UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=.*nolongcreate"'
	run nolongcreate-card status "$PRINTER"
	modprobe -r vfat fat
	run as_owner udisksctl mount -b "$PRINTER"
	check "DKMS package removed, the kernel's own vfat loaded: the marked card mounts, without nolongcreate" \
		mounted_without "$PRINTER" nolongcreate
	check "that vfat is the kernel's own" sh -c 'test ! -e /sys/module/vfat/version'
	umount_all
fi

tap_end card-guest
