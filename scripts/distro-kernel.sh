#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# distro-kernel.sh CACHE WORK LINE [--no-dkms]: for ./qemu-run.sh
# --distro-kernel, Debian's kernel of LINE and the fat modules the DKMS
# package built for it (deb-check.sh --export of the line's suite), as a
# module root in WORK/modroot (--no-dkms: the stock ones only) and
# WORK/distro.env (VMLINUZ, KREL, MODROOT, LOAD, EXPECT, ...); nothing on
# this machine installed or loaded.  docs/debian.md, "How it is made and proven".
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "$0")/lib/guest.sh"
[[ $# -ge 3 ]] || { echo "usage: $PROG CACHE WORK LINE [--no-dkms]" >&2; exit 2; }
CACHE=$1 WORK=$2 LINE=$3
NO_DKMS=0
[[ ${4:-} == --no-dkms ]] && NO_DKMS=1
case $LINE in
6.1) SUITE=bookworm ;;
6.12) SUITE=trixie ;;
7.3) SUITE=forky ;; # Debian 14's 7.2, with the mainline series
*) echo "$PROG: no Debian kernel for line $LINE" >&2; exit 2 ;;
esac
debian_suite "$SUITE"
# Modules the guest loads, in order: what the suite mounts with (loop,
# codepages 437, 850 and 932, iocharsets iso8859-1, utf8, cp932 and Debian's
# default ascii), then fat, vfat and msdos.
LOAD="loop nls_cp437 nls_cp850 nls_cp932 nls_iso8859-1 nls_utf8 nls_ascii fat vfat msdos"

# ------------------------------------------- the root's kernel and modules --
EXPORT=$CACHE/deb-check-$DEBVER/export
step "Debian $DEBVER ($SUITE): scripts/deb-check.sh --suite $SUITE --export $EXPORT --reuse-export"
# (qemu-run.sh holds the cache's lock)
VFAT_NOLONGCREATE_LOCKED=1 "$REPO/scripts/deb-check.sh" --suite "$SUITE" --line "$DLINE" --cache "$CACHE" \
	--export "$EXPORT" --reuse-export || die "deb-check.sh --suite $SUITE failed"
export_env "$EXPORT"
E=$EXPORT/$KREL STOCK=$EXPORT/$KREL/modules
[[ -d $STOCK/kernel && -d $STOCK/updates/dkms ]] || die "incomplete export in $E"
echo "  Package: linux-image-$KREL Version: $KVERSION ($SUITE); vfat-nolongcreate-dkms $PKGVER"

# -------------------------------------------------------- module tree ----
rm -rf "$WORK"
mkdir -p "$WORK"
expect= # "fat=SRCVERSION ...": what the guest must find loaded
step "modules for the guest: $LOAD"
M=$WORK/modroot/usr/lib/modules/$KREL
mkdir -p "$M/updates/dkms"
cp "$STOCK"/modules.order "$STOCK"/modules.builtin "$STOCK"/modules.builtin.modinfo "$M/"
for m in ${LOAD}; do
	f=$(find "$STOCK/kernel" -name "$m.ko*" | head -n 1)
	if [[ -z $f ]]; then
		grep -q "/$m\.ko\$" "$STOCK/modules.builtin" && continue # built in
		die "no stock module $m in $STOCK"
	fi
	rel=${f#"$STOCK"/}
	mkdir -p "$M/${rel%/*}"
	put_module "$f" "$M/${rel%/*}"
done
for m in fat vfat msdos; do
	f=$(ls "$STOCK/updates/dkms/$m.ko"*) || die "the root built no $m.ko"
	mkdir -p "$WORK/built"
	put_module "$f" "$WORK/built"
	f=$WORK/built/$m.ko
	[[ $(modinfo -F vermagic "$f") == "$(modinfo -F vermagic "$(find "$M/kernel/fs/fat" -name "$m.ko")")" ]] ||
		die "$m.ko: vermagic differs from the stock module's"
	srcversion=$(modinfo -F srcversion "$f")
	expect+="$m=$srcversion "
	echo "  $m.ko: version $(modinfo -F version "$f"), srcversion $srcversion, signer: $(modinfo -F signer "$f")"
	[[ $NO_DKMS == 1 ]] || cp "$f" "$M/updates/dkms/"
done
mkdir -p "$WORK/depmod.d" # not the host's /etc/depmod.d
depmod -C "$WORK/depmod.d" -b "$WORK/modroot/usr" "$KREL" || die "depmod failed"
{
	printf 'KREL=%q\n' "$KREL"
	printf 'SRCVER=%q\n' "$KVERSION"
	printf 'PKGVER=%q\n' "$PKGVER"
	printf 'VMLINUZ=%q\n' "$VMLINUZ"
	printf 'MODROOT=%q\n' "$WORK/modroot"
	printf 'LOAD=%q\n' "$LOAD"
	printf 'EXPECT=%q\n' "${expect% }"
} >"$WORK/distro.env"
v=$(modinfo -b "$WORK/modroot/usr" -k "$KREL" -n vfat)
echo "  vfat resolves to: ${v#"$WORK/modroot/usr"}"
