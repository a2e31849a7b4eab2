#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# distro-kernel.sh CACHE WORK [--no-dkms]
#
# For ./qemu-run.sh --distro-kernel: Debian's own kernel and the DKMS-built
# fat modules, with nothing installed for or loaded into this machine's
# kernel (no file under /boot, /lib/modules, /usr/src or /var/lib/dkms):
#   1. the package: scripts/mkdeb.sh --reuse (CACHE/deb);
#   2. linux-image-ABI-amd64, linux-headers-ABI-amd64, -common and
#      linux-kbuild-6.1 of linux-source-6.1's version, fetched with
#      apt-get download and unpacked with dpkg-deb -x into
#      CACHE/distro/ABI_VERSION;
#   3. dkms build of the package's own /usr/src tree (dpkg-deb -x of the
#      .deb) against those headers, in scratch dkms trees under WORK, the
#      modules signed with a scratch key (the kernel does not trust it);
#   4. WORK/modroot/usr/lib/modules/RELEASE: the stock modules the suite
#      needs (loop, nls_*) and the stock fat, vfat, msdos, plus the built
#      ones in updates/dkms/, indexed by depmod -b, as a system with the
#      package installed has them.  --no-dkms leaves the built ones out
#      (they are still built: the guest must then find the stock ones
#      loaded, not these).
# Writes WORK/distro.env (VMLINUZ, KREL, MODROOT, LOAD, EXPECT, ...).
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
[[ $# -ge 2 ]] || { echo "usage: $PROG CACHE WORK [--no-dkms]" >&2; exit 2; }
CACHE=$1 WORK=$2
NO_DKMS=0
[[ ${3:-} == --no-dkms ]] && NO_DKMS=1
LINE=6.1
# Modules the guest loads, in order: what the suite mounts with (loop,
# codepages 437 and 932, iocharsets iso8859-1, utf8, cp932 and Debian's
# default ascii), then fat, vfat and msdos.
LOAD="loop nls_cp437 nls_cp932 nls_iso8859-1 nls_utf8 nls_ascii fat vfat msdos"

die() {
	echo "$PROG: $*" >&2
	exit 1
}
step() { echo "== $PROG: $*"; }

# ---------------------------------------------------------------- package --
step "package (scripts/mkdeb.sh)"
"$REPO/scripts/mkdeb.sh" --reuse --out "$CACHE/deb"
# shellcheck source=/dev/null
. "$CACHE/deb/package.env" # PKGVER KABI SRCVER KERNEL_VERSION DEB
KREL=$KABI-amd64

# ------------------------------------------------------------ distro debs --
D=$CACHE/distro/${KABI}_$SRCVER
ROOT=$D/root
step "Debian's kernel $KREL ($SRCVER): apt-get download, dpkg-deb -x into $D"
pkgs=("linux-image-$KREL" "linux-headers-$KREL" "linux-headers-$KABI-common" "linux-kbuild-$LINE")
if [[ ! -f $D/extracted.stamp ]]; then
	rm -rf "$D"
	mkdir -p "$D/debs"
	for p in "${pkgs[@]}"; do
		# The kernel's packages of the source's version; linux-kbuild may
		# have moved on (">=" in the headers' Depends)
		(cd "$D/debs" && apt-get download -q -o APT::Sandbox::User=root "$p=$SRCVER" ||
			{ [[ $p == linux-kbuild-* ]] && apt-get download -q -o APT::Sandbox::User=root "$p"; }) >/dev/null ||
			die "apt-get download $p=$SRCVER failed (apt-get update?)"
	done
	mkdir -p "$ROOT"
	for f in "$D"/debs/*.deb; do dpkg-deb -x "$f" "$ROOT"; done
	# The headers' Makefile includes -common by its absolute /usr/src path:
	# point it at the unpacked copy (this copy only).
	sed -i "s|^include /usr/src/|include $ROOT/usr/src/|" "$ROOT/usr/src/linux-headers-$KREL/Makefile"
	(cd "$D/debs" && ls) >"$D/extracted.stamp"
fi
for p in "${pkgs[@]}"; do
	f=$(ls "$D/debs/${p}_"*.deb)
	v=$(dpkg-deb -f "$f" Version)
	echo "  Package: $p Version: $v"
	[[ $v == "$SRCVER" || $p == linux-kbuild-* ]] || die "$f: version $v, not linux-source-$LINE's $SRCVER"
done
VMLINUZ=$ROOT/boot/vmlinuz-$KREL
HDRS=$ROOT/usr/src/linux-headers-$KREL
STOCK=$ROOT/lib/modules/$KREL
[[ -f $VMLINUZ && -f $HDRS/Makefile && -d $STOCK/kernel ]] || die "incomplete unpacked kernel in $ROOT"

# ------------------------------------------------------------ dkms build --
rm -rf "$WORK"
mkdir -p "$WORK"
declare -A built=()
expect= # "fat=SRCVERSION ...": what the guest must find loaded
# dkms sources /etc/dkms/framework.conf*, whose signing settings win over
# the environment's (the trees come from the command line, after it): a
# key set there would be made or used in the host's /var/lib/dkms.
# (comments stripped first: the stock file shows the settings commented out)
if cat /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2>/dev/null | sed 's/#.*//' |
	grep -qE '(^|[;&|[:space:]])(export[[:space:]]+)?(sign_file|mok_signing_key|mok_certificate)\+?='; then
	die "/etc/dkms/framework.conf* sets the module signing key: the scratch build would not be scratch"
fi
host_dkms_before=$(ls -la /var/lib/dkms 2>&1 || true)
step "dkms build -m vfat-nolongcreate -v $PKGVER -k $KREL (scratch trees)"
dpkg-deb -x "$DEB" "$WORK/pkgroot"
mkdir -p "$WORK/dkms" "$WORK/install" "$CACHE/distro/mok"
# A scratch signing key: dkms would otherwise make /var/lib/dkms/mok.*
sign_file=$ROOT/usr/lib/linux-kbuild-$LINE/scripts/sign-file \
	mok_signing_key=$CACHE/distro/mok/mok.key \
	mok_certificate=$CACHE/distro/mok/mok.pub \
	dkms build -m vfat-nolongcreate -v "$PKGVER" -k "$KREL" \
	--dkmstree "$WORK/dkms" --sourcetree "$WORK/pkgroot/usr/src" \
	--installtree "$WORK/install" --kernelsourcedir "$HDRS" ||
	{
		tail -n 30 "$WORK/dkms/vfat-nolongcreate/$PKGVER/build/make.log" >&2 2>/dev/null
		die "dkms build failed"
	}
[[ $(ls -la /var/lib/dkms 2>&1 || true) == "$host_dkms_before" ]] ||
	die "dkms build changed the host's /var/lib/dkms"
for m in fat vfat msdos; do
	f=$(ls "$WORK/dkms/vfat-nolongcreate/$PKGVER/$KREL/x86_64/module/$m.ko"*) ||
		die "dkms build made no $m.ko"
	[[ $f == *.ko ]] || die "dkms built $f: compressed modules are not expected here"
	[[ $(modinfo -F vermagic "$f") == "$(modinfo -F vermagic "$(find "$STOCK/kernel/fs/fat" -name "$m.ko")")" ]] ||
		die "$m.ko: vermagic differs from the stock module's"
	built[$m]=$f
	srcversion=$(modinfo -F srcversion "$f")
	expect+="$m=$srcversion "
	echo "  $m.ko: version $(modinfo -F version "$f"), srcversion $srcversion, signer: $(modinfo -F signer "$f")"
done

# -------------------------------------------------------- module tree ----
step "modules for the guest: $LOAD"
M=$WORK/modroot/usr/lib/modules/$KREL
mkdir -p "$M/updates/dkms"
cp "$STOCK"/modules.order "$STOCK"/modules.builtin "$STOCK"/modules.builtin.modinfo "$M/"
for m in ${LOAD}; do
	f=$(find "$STOCK/kernel" -name "$m.ko*" | head -n 1)
	[[ -n $f ]] || die "no stock module $m in $STOCK"
	rel=${f#"$STOCK"/}
	mkdir -p "$M/${rel%/*}"
	cp "$f" "$M/$rel"
done
if [[ $NO_DKMS == 0 ]]; then
	for m in "${!built[@]}"; do cp "${built[$m]}" "$M/updates/dkms/"; done
fi
mkdir -p "$WORK/depmod.d" # not the host's /etc/depmod.d
depmod -C "$WORK/depmod.d" -b "$WORK/modroot/usr" "$KREL" || die "depmod failed"
{
	printf 'KREL=%q\n' "$KREL"
	printf 'KABI=%q\n' "$KABI"
	printf 'SRCVER=%q\n' "$SRCVER"
	printf 'PKGVER=%q\n' "$PKGVER"
	printf 'DEB=%q\n' "$DEB"
	printf 'VMLINUZ=%q\n' "$VMLINUZ"
	printf 'MODROOT=%q\n' "$WORK/modroot"
	printf 'LOAD=%q\n' "$LOAD"
	printf 'EXPECT=%q\n' "${expect% }"
} >"$WORK/distro.env"
v=$(modinfo -b "$WORK/modroot/usr" -k "$KREL" -n vfat)
echo "  vfat resolves to: ${v#"$WORK/modroot/usr"}"
