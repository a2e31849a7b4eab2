#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # sh -c scripts read the exported variables
#
# In the Debian 12, 13 or 14 guest of scripts/sigenforce-guest.sh: systemd as PID 1,
# udev, D-Bus, polkitd, udisks2, Debian's own kernel with the fat modules
# the DKMS package built in updates/dkms/ (unsigned, or signed by dkms's
# own key, which this kernel does not trust) and the package's modprobe
# rule, booted with module.sig_enforce=1 (nlc.enforce=1) or without
# (nlc.enforce=0).  /etc/fstab mounts LABEL=EFI on /boot/efi (vfat), as an
# EFI machine's does: the boot gets here, to multi-user.target, only if
# that mount worked (else: emergency mode, no TAP, the host fails it).
# Disk PRINTER (virtio serial "printer"): a vfat card for udisks2.
# Run by nlc-sig.service; TAP on the console.
set -u

# shellcheck source=scripts/lib/guest-tap.sh
. "${0%/*}/guest-tap.sh"
ENFORCE=$(nlc_arg enforce 0) PKGVER=$(nlc_arg pkgver '') DEBVER=$(nlc_arg debver 12)
# where fat, vfat, msdos in use come from: the package's (its version) or
# the kernel's own ("own": no version)
from() { if [ -f "/sys/module/$1/version" ]; then cat "/sys/module/$1/version"; else echo own; fi; }
all_from() { # all_from WHAT: fat, vfat and msdos (those loaded) are WHAT's
	local m
	for m in fat vfat msdos; do
		[ -d /sys/module/$m ] || continue
		echo "$m: $(from $m)"
		[ "$(from $m)" = "$1" ] || return 1
	done
}
export PKGVER
export -f from all_from

desktop_ready
echo "TAP version 13"
say "kernel $(uname -r), module.sig_enforce=$(cat /sys/module/module/parameters/sig_enforce), package $PKGVER"
say "the boot's kernel log, fat and module signatures:"
dmesg | grep -E 'Loading of|vfat-nolongcreate|module verification|signature|FAT-fs|taints' | sed 's/^/#   /'
run findmnt -n /boot/efi
say "fat, vfat, msdos in use: fat $(from fat), vfat $(from vfat)"
check "the boot reached multi-user.target: /boot/efi (vfat, in /etc/fstab) mounted" \
	sh -c 'test "$(findmnt -n -o FSTYPE /boot/efi)" = vfat && systemctl is-active -q boot-efi.mount'
check "the system is not in emergency or rescue mode" \
	sh -c '! systemctl is-active -q emergency.target && ! systemctl is-active -q rescue.target'

PRINTER=$(readlink -f /dev/disk/by-id/virtio-printer)
run ls /usr/lib/vfat-nolongcreate-dkms/stock/"$(uname -r)"
if [ "$DEBVER" -ge 13 ]; then
	# dkms 3.2: the kernel's own fat modules only where it keeps them
	check "Debian $DEBVER: the kernel's own fat.ko is in dkms's original_module, not in kernel/fs/fat" \
		sh -c '! ls /lib/modules/$(uname -r)/kernel/fs/fat/fat.ko* 2>/dev/null && ls /var/lib/dkms/vfat-nolongcreate/original_module/$(uname -r)/*/fat.ko*'
	# /var on a disk of its own, mounted only once /boot/efi was: when
	# vfat first loaded, original_module was not there
	run systemctl show -p ActiveEnterTimestampMonotonic boot-efi.mount
	run systemctl show -p InactiveExitTimestampMonotonic var.mount
	check "Debian $DEBVER: /var is the ext4 disk VAR, and its mount began after /boot/efi was mounted" \
		sh -c 'test "$(findmnt -n -o FSTYPE /var)" = ext4 &&
			test "$(systemctl show -P InactiveExitTimestampMonotonic var.mount)" -gt "$(systemctl show -P ActiveEnterTimestampMonotonic boot-efi.mount)"'
fi
if [ "$ENFORCE" = 1 ]; then
	check "module.sig_enforce=1 is in force" grep -qx Y /sys/module/module/parameters/sig_enforce
	check "the kernel refused the DKMS-built fat.ko" sh -c 'dmesg | grep -E "Loading of (unsigned module|module with unavailable key) is rejected"'
	check "the package said why, in one line of the kernel log (the journal)" \
		sh -c 'dmesg | grep "vfat-nolongcreate: this kernel refused the DKMS-built fat.ko" | tee /dev/stderr | test $(wc -l) = 1'
	check "fat and vfat in use are the kernel's own" all_from own
	# kmod: "modprobe vfat" runs the rule of fat (its dependency) first,
	# then vfat's; and each load of the set goes the same way
	systemctl stop boot-efi.mount
	run modprobe -r vfat fat
	if run modprobe -v vfat; then ok "with none loaded: modprobe -v vfat exits 0"; else notok "with none loaded: modprobe -v vfat exits 0"; fi
	check "modprobe ran fat's install rule, then vfat's" \
		sh -c 'test "$(grep -o "modprobe-fat [a-z][a-z]*" /tmp/run.out | paste -sd" ")" = "modprobe-fat fat modprobe-fat vfat"'
	check "modprobe vfat said why, on stderr" grep -q 'vfat-nolongcreate: this kernel refused the DKMS-built fat.ko' /tmp/run.out
	check "modprobe msdos exits 0" modprobe msdos
	check "fat, vfat and msdos in use are the kernel's own, all three" all_from own
	check "/boot/efi mounts again" systemctl start boot-efi.mount
	mkdir -p /mnt/t
	check "mount -o nolongcreate is refused (EINVAL): this kernel's vfat lacks the option" \
		sh -c '! mount -t vfat -o nolongcreate "$0" /mnt/t 2>/tmp/err; cat /tmp/err; grep -q "Invalid argument\|bad option\|wrong fs type\|Unknown parameter" /tmp/err' "$PRINTER"
	umount /mnt/t 2>/dev/null
else
	check "module.sig_enforce is off" grep -qx N /sys/module/module/parameters/sig_enforce
	check "fat and vfat in use are the package's ($PKGVER)" all_from "$PKGVER"
	check "no fallback line in the kernel log" sh -c '! dmesg | grep vfat-nolongcreate:'
	check "modprobe msdos: the package's too" bash -c 'modprobe msdos && all_from "$PKGVER"'
	mkdir -p /mnt/t
	check "mount -o nolongcreate works, and refuses a long name" \
		sh -c 'mount -t vfat -o nolongcreate "$0" /mnt/t && ! touch "/mnt/t/A long name.txt" && umount /mnt/t' "$PRINTER"
fi

# Debian's initramfs (mkinitramfs in deb-check.sh's root, vfat in it; the
# package's initramfs-tools hook put modprobe-fat, what it runs and the
# copies of the kernel's own modules in it): modprobe vfat there, chroot
# into its files with /proc, /sys, /dev and an empty /run as its init
# mounts them (no /run/lock), its own sh and kmod, nothing of the root
IR=/opt/nlc/initramfs
EFI=$(readlink -f /dev/disk/by-label/EFI)
systemctl stop boot-efi.mount
for m in vfat msdos fat; do [ -d /sys/module/$m ] && modprobe -r $m; done
for d in proc sys dev run mnt; do mkdir -p $IR/$d; done
mount -t proc proc $IR/proc && mount -t sysfs sysfs $IR/sys && mount -t devtmpfs udev $IR/dev &&
	mount -t tmpfs -o nodev,noexec,nosuid,mode=0755 tmpfs $IR/run
say "the initramfs: $(cd $IR/usr/lib/modules/*/updates/dkms && echo *) in updates/dkms; $(cd $IR/usr/lib/vfat-nolongcreate-dkms/stock/* 2>/dev/null && echo *) in the package's copies; its sh: $(stat -c %s $IR/usr/bin/sh) bytes"
check "in the initramfs: fat, vfat and msdos not loaded, /boot/efi unmounted, no /run/lock" \
	sh -c '! test -d /sys/module/fat && ! test -d /sys/module/vfat && ! mountpoint -q /boot/efi && ! test -e "$0/run/lock"' "$IR"
run chroot $IR /usr/bin/sh -c 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; export PATH; modprobe -v vfat; echo "modprobe vfat: exit $?"'
check "in the initramfs: modprobe -v vfat ran modprobe-fat and exits 0" \
	sh -c 'grep -q "modprobe-fat vfat" /tmp/run.out && grep -qx "modprobe vfat: exit 0" /tmp/run.out'
if [ "$ENFORCE" = 1 ]; then
	check "in the initramfs: modprobe-fat said why, on stderr" \
		grep -q 'vfat-nolongcreate: this kernel refused the DKMS-built fat.ko' /tmp/run.out
	check "in the initramfs: fat and vfat loaded, the kernel's own (the copies in the initramfs)" \
		bash -c 'test -d /sys/module/vfat && all_from own'
	opts=umask=0077
else
	check "in the initramfs: fat and vfat loaded, the package's ($PKGVER)" \
		bash -c 'test -d /sys/module/vfat && all_from "$PKGVER"'
	opts=nolongcreate
fi
# (vfat loaded first: else the kernel would load it for the mount with
# the root's modprobe, not the initramfs's)
check "in the initramfs: vfat loaded there, then its mount -t vfat -o $opts of the EFI disk ($EFI) works" \
	sh -c 'test -d /sys/module/vfat && chroot "$0" /usr/bin/mount -t vfat -o "$1" "$2" /mnt && grep -q "^$2 $0/mnt vfat " /proc/mounts' "$IR" "$opts" "$EFI"
for d in mnt run dev sys proc; do mountpoint -q $IR/$d && umount $IR/$d; done
check "/boot/efi mounts again, after the initramfs" systemctl start boot-efi.mount

# udisks2, with the tools package: a marked card
run dpkg -i /opt/nlc/tools.deb
run nolongcreate-card mark "$PRINTER"
udevadm settle
check "udisks2 mounts the marked card for the desktop's user" as_owner udisksctl mount -b "$PRINTER"
run nolongcreate-card status "$PRINTER"
if [ "$ENFORCE" = 1 ]; then
	check "... without nolongcreate (the kernel's own vfat)" sh -c '! grep -q "^$0 .*nolongcreate" /proc/mounts' "$PRINTER"
	check "nolongcreate-card status: the kernel's own vfat, because signatures are enforced, and the key to enroll" \
		sh -c "grep -q 'enforces module signatures and refused the DKMS-built one' /tmp/run.out && grep -q 'mokutil --import' /tmp/run.out"
else
	check "... with nolongcreate" has_opt "$PRINTER" nolongcreate
fi
as_owner udisksctl unmount -b "$PRINTER" >/dev/null 2>&1
mounted "$PRINTER" && umount "$PRINTER"
tap_end sigenforce-guest
