#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sigenforce-guest.sh: the DKMS package on a kernel that refuses its
# modules (Secure Boot, or module.sig_enforce=1, without dkms's key
# enrolled), in a QEMU guest.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "$0")/lib/guest.sh"
CACHE=${VFAT_NOLONGCREATE_CACHE:-$HOME/.cache/vfat-nolongcreate}
MODES=(1 0)
SUITES=()
DEB_UNDER_TEST=
TIMEOUT=900

usage() {
	cat <<EOF
Usage: $PROG [--suite bookworm|trixie|forky]... [--enforce | --no-enforce] [--deb FILE] [--cache DIR] [--timeout S]

Boots Debian 12's own kernel (6.1; --suite bookworm) and Debian 13's
(6.12; --suite trixie; default: both, one after the other) in QEMU
(TCG), each in the Debian root of scripts/card-guest.sh (systemd, udev,
D-Bus, udisks2; scripts/lib/guest.sh), with the fat modules the DKMS package
built for that kernel in updates/dkms/ (scripts/deb-check.sh --export:
unsigned, or signed by the root's dkms key, which the kernel does not
trust) and the DKMS package's modprobe rule and modprobe-fat, a vfat
/boot/efi in /etc/fstab and a vfat card; runs
scripts/sigenforce-guest-test.sh:

  --suite S     bookworm (Debian 12), trixie (Debian 13) or forky (Debian
                14: dracut's initramfs; the boot with enforcement only);
                repeatable.  On Debian 13 and 14 the root is made as dkms 3.2 leaves it: the
                kernel's own fat, vfat and msdos moved out of kernel/fs/fat
                to /var/lib/dkms/vfat-nolongcreate/original_module/; and
                /var is on a disk of its own (ext4, LABEL=VAR) that
                /etc/fstab mounts after /boot/efi, so that when vfat first
                loads only the package's copies of them on the root
                filesystem (/usr/lib/vfat-nolongcreate-dkms/stock/KREL/,
                made by its kernel hook in deb-check.sh's root) are there
  --enforce     only the boot with module.sig_enforce=1: the boot mounts
                /boot/efi (the kernel's own fat modules), the kernel log
                says why, modprobe vfat works and loads the kernel's own
                fat and vfat, udisks2 mounts a marked card without
                nolongcreate, nolongcreate-card status says why
  --no-enforce  only the boot without: the package's modules, the option
  (default: both boots)
  --deb FILE    take the modprobe rule and modprobe-fat from this
                vfat-nolongcreate-dkms .deb (default: the one of
                deb-check.sh's export, whose modules the guest loads), on
                the root and in the initramfs; an older package without
                them shows what happened before
                (module.sig_enforce=1: /boot/efi fails, emergency mode)

Each boot also runs modprobe vfat in Debian's initramfs for the kernel,
made by mkinitramfs in deb-check.sh's root with vfat in it (the
package's initramfs-tools hook put modprobe-fat, what it runs and the
copies of the kernel's own modules there): chroot into its files, with
/proc, /sys, /dev and an empty /run mounted as its init mounts them, its
own sh and kmod; with enforcement the copies load, else the package's.

Writes the guests' output to CACHE/sigenforce-guest/out-SUITE-ENFORCE.txt.
Prints the TAP and "N passed, N failed, N skipped".  Exit status: 0 all
passed, 1 failure, 2 usage.
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--suite) SUITES+=("$2"); shift 2 ;;
	--enforce) MODES=(1); shift ;;
	--no-enforce) MODES=(0); shift ;;
	--deb) DEB_UNDER_TEST=$(realpath "$2"); shift 2 ;;
	--cache) CACHE=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot)"

W=$CACHE/sigenforce-guest
mkdir -p "$W"

[[ ${#SUITES[@]} -gt 0 ]] || SUITES=(bookworm trixie)
if [[ ${#SUITES[@]} -gt 1 ]]; then
	# one run per suite, in turn; the totals of all
	args=()
	[[ ${#MODES[@]} == 1 ]] && args+=("$([[ ${MODES[0]} == 1 ]] && echo --enforce || echo --no-enforce)")
	[[ -n $DEB_UNDER_TEST ]] && args+=(--deb "$DEB_UNDER_TEST")
	tp=0 tf=0
	for suite in "${SUITES[@]}"; do
		out=$("$0" --suite "$suite" "${args[@]}" --cache "$CACHE" --timeout "$TIMEOUT" 2>&1) || true
		printf '%s\n' "$out"
		read -r sp _ sf _ < <(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1) ||
			{ sp=0 sf=1; }
		tp=$((tp + sp)) tf=$((tf + sf))
	done
	echo "$tp passed, $tf failed, 0 skipped"
	[[ $tf == 0 ]]
	exit
fi
SUITE=${SUITES[0]}
debian_suite "$SUITE" || { usage >&2; exit 2; }
[[ $SUITE != forky || ${#MODES[@]} == 1 ]] || MODES=(1)

# The export is shared: another run (card-guest.sh of another checkout)
# may make it again, for its package, before this one boots.  So, under
# the runner's lock, made (or kept) and copied here (~20 MB), and that
# copy is what this run boots.
if [[ -z ${VFAT_NOLONGCREATE_LOCKED:-} ]]; then
	exec 9>"$CACHE/.lock"
	flock 9
fi
VFAT_NOLONGCREATE_LOCKED=1 guest_export "$SUITE" || die "deb-check.sh --suite $SUITE failed"
EXPORT=$W/export-$SUITE.$$
trap 'rm -rf "$EXPORT"' EXIT
cp -a "$CACHE/deb-check-$DEBVER/export" "$EXPORT"
[[ -n ${VFAT_NOLONGCREATE_LOCKED:-} ]] || exec 9>&-
# the .debs of the export, of the same build as its modules
export_env "$EXPORT"
[[ -n $DEB_UNDER_TEST ]] || DEB_UNDER_TEST=$DEB
# The root of card-guest.sh and the kernel's own modules.
mkdir -p "$CACHE/card-guest"
exec 7>"$CACHE/card-guest/.lock"
flock 7
guest_root "$SUITE"

# ------------------------------------------------------------ the overlay --
T=$W/run
rm -rf "$T"
O=$T/o
mkdir -p "$O/opt/nlc" "$O/boot/efi" "$O/etc"
guest_modules "$EXPORT" "$O"
for f in "$O/usr/lib/modules/$KREL/updates/dkms"/*.ko; do
	echo "  ${f##*/}: version $(modinfo -F version "$f"), signer: $(modinfo -F signer "$f" | grep . || echo none)"
done
# the index of the kernel's own modules plus these (udev loads virtio_blk
# before anything could run depmod)
mkdir -p "$T/dep/lib/modules"
cp -a "$K/usr/lib/modules/$KREL" "$T/dep/lib/modules/"
# the package's copies of the kernel's own fat modules on the root
# filesystem, as its kernel hook made them in deb-check.sh's root
if [[ -d $EXPORT/$KREL/stock ]]; then
	mkdir -p "$O/usr/lib/vfat-nolongcreate-dkms/stock"
	cp -a "$EXPORT/$KREL/stock" "$O/usr/lib/vfat-nolongcreate-dkms/stock/$KREL"
	echo "  the kernel hook's copies of the kernel's own: /usr/lib/vfat-nolongcreate-dkms/stock/$KREL/: $(cd "$EXPORT/$KREL/stock" && echo *)"
fi
if [[ $DEBVER -ge 13 ]]; then
	# /var on a disk of its own: the root's /var, on it
	V=$T/var
	mkdir -p "$V"
	cp -a "$R/var/." "$V/"
	# dkms 3.2 (Debian 13) moves the kernel's own fat, vfat and msdos out
	# of kernel/fs/fat while the package's are installed (docs/debian.md)
	OM=$V/lib/dkms/vfat-nolongcreate/original_module/$KREL/x86_64
	mkdir -p "$OM"
	cp "$K/usr/lib/modules/$KREL/kernel/fs/fat"/*.ko* "$OM/"
	rm -rf "$T/dep/lib/modules/$KREL/kernel/fs/fat"
	echo "  the kernel's own fat, vfat, msdos: in /var${OM#"$V"}, as dkms 3.2 keeps them, on the /var disk"
	# ext4 for /var: the kernel's own modules of the export, but fat
	(cd "$EXPORT/$KREL/modules" && find kernel -name '*.ko*' ! -path 'kernel/fs/fat/*' | while read -r f; do
		[[ -e $T/dep/lib/modules/$KREL/$f ]] && continue
		cp --parents "$f" "$T/dep/lib/modules/$KREL/"
		cp --parents "$f" "$O/usr/lib/modules/$KREL/"
	done)
	[[ -n $(find "$O/usr/lib/modules/$KREL/kernel/fs/ext4" -name 'ext4.ko*' 2>/dev/null) ]] ||
		die "$EXPORT/$KREL/modules has no ext4 (an export of an older deb-check.sh?)"
fi
guest_index "$T/dep" "$O"
# the package's modprobe rule and modprobe-fat, as dpkg installs them
# (usr/lib: the root's /lib is a link to it; an older package shipped
# the rule in /lib/modprobe.d)
dpkg-deb -x "$DEB_UNDER_TEST" "$T/deb"
echo "  the package under test: $(dpkg-deb -f "$DEB_UNDER_TEST" Package Version | paste -sd' ')"
for d in "$T/deb/lib/modprobe.d" "$T/deb/usr/lib/modprobe.d"; do
	[[ -d $d ]] || continue
	mkdir -p "$O/usr/lib/modprobe.d"
	cp -a "$d/." "$O/usr/lib/modprobe.d/"
done
if [[ -d $T/deb/usr/lib/vfat-nolongcreate-dkms ]]; then
	mkdir -p "$O/usr/lib/vfat-nolongcreate-dkms"
	cp -a "$T/deb/usr/lib/vfat-nolongcreate-dkms/." "$O/usr/lib/vfat-nolongcreate-dkms/"
fi
echo "  modprobe rules: $(cd "$O" && find usr/lib/modprobe.d -type f 2>/dev/null | paste -sd' ' | grep . || echo none)"
# The initramfs deb-check.sh made with mkinitramfs for this kernel, vfat in
# it (its files: DIR/KREL/initramfs.cpio of the export), in
# /opt/nlc/initramfs: the guest runs modprobe vfat in it (chroot), with
# its own sh, kmod and no /run/lock, as its init would.  With --deb, the
# package's modprobe rule and modprobe-fat in it are that package's, as
# its initramfs-tools hook would have copied them.
IR=$O/opt/nlc/initramfs
[[ -f $EXPORT/$KREL/initramfs.cpio ]] || die "$EXPORT/$KREL: no initramfs.cpio (an export of an older deb-check.sh?)"
mkdir -p "$IR"
(cd "$IR" && cpio -idm --quiet --no-absolute-filenames <"$EXPORT/$KREL/initramfs.cpio") || die "cannot unpack $EXPORT/$KREL/initramfs.cpio"
if [[ $DEB_UNDER_TEST != "$DEB" ]]; then
	rm -f "$IR/usr/lib/modprobe.d/vfat-nolongcreate.conf" "$IR/usr/lib/vfat-nolongcreate-dkms/modprobe-fat"
	for d in "$T/deb/lib/modprobe.d" "$T/deb/usr/lib/modprobe.d"; do
		if [[ -d $d ]]; then cp -a "$d/." "$IR/usr/lib/modprobe.d/"; fi
	done
	if [[ -f $T/deb/usr/lib/vfat-nolongcreate-dkms/modprobe-fat ]]; then
		cp -a "$T/deb/usr/lib/vfat-nolongcreate-dkms/modprobe-fat" "$IR/usr/lib/vfat-nolongcreate-dkms/"
	fi
	echo "  in it, the modprobe rule and modprobe-fat of the package under test"
fi
echo "  the initramfs of mkinitramfs (deb-check.sh), in /opt/nlc/initramfs: $(find "$IR" -type f | wc -l) files"
cp "$TOOLS_DEB" "$O/opt/nlc/tools.deb"
cp "$REPO/scripts/sigenforce-guest-test.sh" "$REPO/scripts/lib/guest-tap.sh" "$O/opt/nlc/"
# an EFI machine's /etc/fstab; on Debian 13 /var on a disk of its own,
# mounted after /boot/efi (nothing orders the two on a machine: here
# /var/lib/dkms is surely not there when vfat first loads)
cat >"$O/etc/fstab" <<-'EOF'
	LABEL=EFI /boot/efi vfat umask=0077 0 1
EOF
[[ $DEBVER -ge 13 ]] && echo 'LABEL=VAR /var ext4 defaults,x-systemd.after=boot-efi.mount 0 0' >>"$O/etc/fstab"
guest_service "$O" nlc-sig /opt/nlc/sigenforce-guest-test.sh \
	"vfat-nolongcreate: the package under module signature enforcement" local-fs.target
# emergency or rescue mode (a failed /etc/fstab mount) powers off, not waiting for a password
guest_no_emergency "$O" sigenforce-guest
cpio_of "$O" >"$T/overlay.cpio"
if [[ $DEBVER -ge 13 ]]; then
	# the root without what is in /var (on its disk) and the kernel's
	# modules without kernel/fs/fat (R.cpio has them: an initramfs cannot
	# delete a file of an earlier archive)
	mkdir -p "$T/k"
	cp -a "$K/." "$T/k/"
	rm -rf "$T/k/usr/lib/modules/$KREL/kernel/fs/fat"
	{
		(cd "$R" && find . \( -path ./proc/\* -o -path ./var/\* \) -prune -o -print | cpio -o -H newc --quiet)
		cpio_of "$T/k"
		cat "$T/overlay.cpio"
	} >"$T/initrd"
else
	cat "$R.cpio" "$T/overlay.cpio" >"$T/initrd"
fi

fails=0 total=0
for enforce in "${MODES[@]}"; do
	rm -f "$T/var.img"
	guest_vfat "$T/efi.img" 0EF10EF1 EFI
	guest_vfat "$T/printer.img" 1111AAAA PRINTER
	vardisk=()
	if [[ $DEBVER -ge 13 ]]; then
		# (no metadata checksums: crc32c need not be loaded)
		mkfs.ext4 -q -F -L VAR -O ^metadata_csum -d "$V" "$T/var.img" 1G >/dev/null ||
			die "mkfs.ext4 -d $V failed"
		vardisk=("$T/var.img:var")
	fi
	step "boot: Debian $DEBVER, $KREL, DKMS-built modules in updates/dkms, $([[ $enforce == 1 ]] && echo "module.sig_enforce=1" || echo "no signature enforcement")"
	out=$W/out-$SUITE-$enforce.txt
	append="nlc.enforce=$enforce nlc.pkgver=$PKGVER nlc.debver=$DEBVER"
	[[ $enforce == 1 ]] && append+=" module.sig_enforce=1"
	guest_boot "$out" 2048 "$append" "$T/efi.img:efi" "$T/printer.img:printer" "${vardisk[@]}"
	guest_tap "$out" sigenforce-guest "module.sig_enforce=$enforce"
	total=$((total + P + F))
	fails=$((fails + F))
done
echo "$((total - fails)) passed, $fails failed, 0 skipped"
[[ $fails == 0 ]]
