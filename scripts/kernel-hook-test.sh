#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-hook-test.sh [KERNEL-HOOK] - the DKMS package's kernel hook, postinst,
# postrm.d, prerm, modprobe-fat and nlc-prepare --check on a stand-in machine
# (their paths moved under a temporary directory, stand-ins for dkms, modinfo,
# dpkg-query, mokutil, udevadm, insmod, uname); nothing is built or loaded.
# Each case prints its "ok:"/"FAIL:" line, the counts last; make kernel-hook-test.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HOOK=${1:-$HERE/../dkms/kernel-hook}
MODPROBE_FAT=${MODPROBE_FAT:-$HERE/../dkms/modprobe-fat}
NLC_PREPARE=${NLC_PREPARE:-$HERE/../dkms/nlc-prepare}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PKG=vfat-nolongcreate VER=6.12+nlc1 K=6.1.0-99-amd64
# shellcheck source=scripts/lib/common.sh
. "$HERE/lib/common.sh"

sed -e "s|@PKG_VERSION@|$VER|g" -e "s|/usr/lib/linux-kbuild-|$T/usr/lib/linux-kbuild-|g" \
	-e "s|/lib/modules/|$T/lib/modules/|g" -e "s|/usr/src/|$T/usr/src/|g" \
	-e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" -e "s|/run/udev|$T/run/udev|g" \
	-e "s|/var/log/|$T/var/log/|g" -e "s|/usr/lib/\$PKG-dkms/|$T/usr/lib/\$PKG-dkms/|g" "$HOOK" >"$T/kernel-hook"
mkdir -p "$T/bin" "$T/usr/src/$PKG-$VER" "$T/lib/modules/$K/kernel" "$T/lib/modules/$K/build/include" \
	"$T/lib/modules/$K/updates/dkms" "$T/var/lib/dkms" "$T/usr/lib/linux-kbuild-6.1/scripts" "$T/run/udev" "$T/var/log" \
	"$T/sys/module/module/parameters"
# nlc-prepare --check KREL: the linux-source version in $T/srcver (else
# 6.1.999-1); refused while $T/no-source exists
cat >"$T/usr/src/$PKG-$VER/nlc-prepare" <<EOS
#!/bin/sh
sv=\$(cat "$T/srcver" 2>/dev/null || echo 6.1.999-1)
if [ -e "$T/no-source" ]; then
	echo "$PKG: not built for kernel \$2: its fs/fat sources must be its own, from linux-source-6.1 \$(cat "$T/hdrver"), but linux-source-6.1 is \$sv (...)"
	exit 1
fi
echo "$PKG: kernel \$2: fs/fat of linux-source-6.1 \$sv with patches/6.1"
EOS
printf '#!/bin/sh\n' >"$T/usr/lib/linux-kbuild-6.1/scripts/sign-file"
# dkms: status says installed while updates/dkms/fat.ko is there; install
# makes it, signed when $T/signs exists (dkms could sign)
cat >"$T/bin/dkms" <<EOS
#!/bin/sh
echo "dkms \$*" >>"$T/calls"
case \$1 in
status) [ -f "$T/lib/modules/$K/updates/dkms/fat.ko" ] && echo "$PKG/$VER, $K, x86_64: installed" ;;
unbuild) rm -f "$T/lib/modules/$K/updates/dkms/fat.ko" ;;
install)
	[ -e "$T/dkms-fails" ] && exit 10
	{ if [ -e "$T/signs" ]; then echo SIGNED; else echo unsigned; fi
	echo "nlc_source=linux-source-6.1 \$(cat "$T/srcver" 2>/dev/null || echo 6.1.999-1)"; } >"$T/lib/modules/$K/updates/dkms/fat.ko"
	# dkms 3.2: the kernel's own moved aside, to /var/lib/dkms
	if [ -e "$T/dkms32" ] && [ -n "\$(ls "$T/lib/modules/$K/kernel/fs/fat/")" ]; then
		mkdir -p "$T/var/lib/dkms/$PKG/original_module/$K/x86_64"
		mv "$T/lib/modules/$K/kernel/fs/fat/"* "$T/var/lib/dkms/$PKG/original_module/$K/x86_64/"
	fi
	;;
esac
exit 0
EOS
cat >"$T/bin/modinfo" <<'EOS'
#!/bin/sh
# modinfo -F signer|nlc_source FILE
case $2 in
signer) grep -q SIGNED "$3" && echo "DKMS module signing key" ;;
nlc_source) sed -n 's/^nlc_source=//p' "$3" ;;
esac
exit 0
EOS
printf '#!/bin/sh\necho "udevadm $*" >>"%s/calls"\n' "$T" >"$T/bin/udevadm"
# (the package's own status: $T/pkg-status, else "ii "; a version: $T/hdrver, else 6.1.999-1)
printf '#!/bin/sh\ncase "$*" in *Version*) cat %s 2>/dev/null || echo 6.1.999-1 ;; *%s-dkms*) cat %s 2>/dev/null || echo "ii " ;; *) echo "ii " ;; esac\n' \
	"$T/hdrver" "$PKG" "$T/pkg-status" >"$T/bin/dpkg-query"
# dpkg --print-architecture: $NLC_TEST_ARCH, else amd64
# shellcheck disable=SC2016 # expanded by the stand-in
printf '#!/bin/sh\necho "${NLC_TEST_ARCH:-amd64}"\n' >"$T/bin/dpkg"
printf '#!/bin/sh\necho "%s is not enrolled"\n' /var/lib/dkms/mok.pub >"$T/bin/mokutil"
chmod 755 "$T"/bin/* "$T/usr/src/$PKG-$VER/nlc-prepare" "$T/usr/lib/linux-kbuild-6.1/scripts/sign-file"

# in_run SHELL SCRIPT ARGS...: SHELL $T/SCRIPT; its output (stdout and
# stderr) in $out, its exit status in $rc, what it called in $calls
in_run() {
	local shell=$1 script=$2
	shift 2
	: >"$T/calls"
	echo "# $script $*"
	rc=0
	out=$(PATH=$T/bin:$PATH "$shell" "$T/$script" "$@" 2>&1) || rc=$?
	[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/  /'
	calls=$(cat "$T/calls")
}
run() { NLC_SYSFS=$T/sys in_run bash kernel-hook "$@"; } # run ARGS...: the hook
sh_run() { in_run sh "$@"; } # sh_run SCRIPT ARGS...: sh $T/SCRIPT
called() { grep -q -- "$1" <<<"$calls"; }
said() { grep -q -- "$1" <<<"$out"; }
lines() { [[ $(wc -l <<<"$out") == "$1" ]]; }
not() { ! "$@"; }

# 1. installed before dkms could sign: built again once it can
echo unsigned >"$T/lib/modules/$K/updates/dkms/fat.ko"
touch "$T/var/lib/dkms/mok.key" "$T/var/lib/dkms/mok.pub" "$T/signs"
run --all
that "--all, an unsigned fat.ko, dkms's key there: dkms unbuild" called "^dkms unbuild .*-k $K"
that "--all, an unsigned fat.ko, dkms's key there: then dkms install" called "^dkms install .*-k $K"
that "--all: one line saying the modules were built again, signed" \
	test "$(grep -c "built again and installed fat, vfat, msdos for kernel $K, which were not signed .*; signed now" <<<"$out")" = 1
that "--all: fat.ko signed now" grep -q SIGNED "$T/lib/modules/$K/updates/dkms/fat.ko"
that "--all after a build: udev asked again for vfat devices" called "udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat"

# 2. signed: left alone
run --all
that "--all, a signed fat.ko: no dkms unbuild" not called "^dkms unbuild"
that "--all, a signed fat.ko: no dkms install" not called "^dkms install"
that "--all, nothing built: udev not asked" not called udevadm
that "--all, nothing built, no enforcement: nothing said" test -z "$out"

# 3. unsigned, but dkms cannot sign (no sign-file): left alone
echo unsigned >"$T/lib/modules/$K/updates/dkms/fat.ko"
mv "$T/usr/lib/linux-kbuild-6.1/scripts/sign-file" "$T/sign-file"
run --all
that "--all, unsigned, no sign-file: no dkms unbuild" not called "^dkms unbuild"
mv "$T/sign-file" "$T/usr/lib/linux-kbuild-6.1/scripts/sign-file"

# 3a. built again, and dkms did not sign after all: said so
echo unsigned >"$T/lib/modules/$K/updates/dkms/fat.ko"
rm -f "$T/signs"
run --all
that "--all, built again but not signed: one line saying so" \
	test "$(grep -c "built again and installed fat, vfat, msdos for kernel $K, which were not signed .*; still not signed (log: " <<<"$out")" = 1

# 3b. built where dkms cannot sign: on a kernel that does not enforce
# signatures nothing more is said; on one that does, how to have them signed
rm -f "$T/lib/modules/$K/updates/dkms/fat.ko" "$T/signs"
run --image "$K"
that "--image, built unsigned, no enforcement: one line" lines 1
that "--image, built unsigned, no enforcement: no more said" not said "not signed"
rm -f "$T/lib/modules/$K/updates/dkms/fat.ko"
echo Y >"$T/sys/module/module/parameters/sig_enforce"
run --image "$K"
that "--image, built unsigned, enforcement: one line" lines 1
that "--image, built unsigned, enforcement: it says so, and what to install" \
	said "built and installed .*; not signed: .*apt install openssl, then dpkg-reconfigure"
echo N >"$T/sys/module/module/parameters/sig_enforce"
touch "$T/signs"

# 4. a kernel update on a kernel that enforces signatures: one line
rm -f "$T/lib/modules/$K/updates/dkms/fat.ko"
# (first the headers' hook while the package is unpacked, not configured:
# in one apt run with it; its postinst --all builds)
for st in "iU " "iF "; do
	echo "$st" >"$T/pkg-status"
	run --headers "$K"
	that "--headers while the package is not configured yet ($st): nothing done, nothing said" \
		test -z "$out" -a ! -e "$T/lib/modules/$K/updates/dkms/fat.ko"
	that "--headers while the package is not configured yet ($st): dkms not asked" not called "^dkms "
done
# (a kernel update that brings a new linux-source too: the package's
# trigger pending, "it ", while the headers' hook runs: it builds)
echo "it " >"$T/pkg-status"
echo Y >"$T/sys/module/module/parameters/sig_enforce"
run --headers "$K"
that "--headers under enforcement: one line" lines 1
that "--headers under enforcement: it says built and installed, and that the key is not enrolled" \
	said "built and installed fat, vfat, msdos for kernel $K .*loads only signed modules"
that "--headers after a build: udev asked again" called "udevadm trigger --action=change"
rm -f "$T/pkg-status"

# 5. --all under enforcement, nothing to build: the note alone, once
run --all
that "--all under enforcement, nothing built: one line" lines 1
that "--all under enforcement, nothing built: the signing note" said "^vfat-nolongcreate: the running kernel loads only signed modules"

# 6. the copies of the kernel's own modules, on the root filesystem
S=$T/usr/lib/$PKG-dkms/stock
F=$T/lib/modules/$K/kernel/fs/fat
OM=$T/var/lib/dkms/$PKG/original_module/$K/x86_64
echo N >"$T/sys/module/module/parameters/sig_enforce"
stock_modules() { # the kernel's own, as its package installs them
	rm -rf "$F" "$OM" "$T/lib/modules/$K/updates/dkms/fat.ko"
	mkdir -p "$F"
	for m in fat vfat msdos; do echo "the kernel's own $m" >"$F/$m.ko"; done
}
same_as_stock() { # the copies in $S/$K are the kernel's own
	local m
	for m in fat vfat msdos; do
		[[ $(cat "$S/$K/$m.ko" 2>/dev/null) == "the kernel's own $m" ]] || return 1
	done
	[[ $(find "$S/$K" -type f | wc -l) == 3 ]]
}
for dk in 3.0 3.2; do
	stock_modules
	rm -f "$T/dkms32"
	[[ $dk == 3.2 ]] && touch "$T/dkms32"
	run --image "$K"
	that "dkms $dk, --image: built, and the kernel's own fat, vfat, msdos copied to stock/$K" same_as_stock
	if [[ $dk == 3.2 ]]; then
		that "dkms $dk: kernel/fs/fat emptied by dkms (the stand-in moved them to /var/lib/dkms)" test -z "$(ls "$F")"
	else
		that "dkms $dk: kernel/fs/fat left alone" test -f "$F/fat.ko"
	fi
	rm -rf "${S:?}/$K"
	run --all
	that "dkms $dk, --all, installed already and no copies: copied again (from $([[ $dk == 3.2 ]] && echo original_module || echo kernel/fs/fat))" same_as_stock
done
# a kernel removed: its copies go, and the empty directory
run --removed ..
that "--removed ..: nothing removed" same_as_stock
DEB_MAINT_PARAMS="upgrade 6.1.999-2" run --removed "$K"
that "--removed $K, the kernel's package upgraded (DEB_MAINT_PARAMS=upgrade ...): nothing removed" same_as_stock
run --removed "$K"
that "--removed $K by hand (no DEB_MAINT_PARAMS), the kernel still there: nothing removed" same_as_stock
DEB_MAINT_PARAMS="remove" run --removed "$K"
that "--removed $K: its copies removed, exit 0" test ! -e "$S/$K" -a ! -e "$S"
# a failed build leaves no copies (the kernel keeps its own in its tree)
stock_modules
rm -f "$T/dkms32"
touch "$T/dkms-fails"
run --image "$K"
that "a failed dkms install: no copies" test ! -e "$S/$K"
rm -f "$T/dkms-fails"

# 6b. the package's prerm removes them all (the paths moved)
stock_modules
run --image "$K"
sed -e "s|@PKG_VERSION@|$VER|g" -e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" \
	-e "s|/usr/lib/vfat-nolongcreate-dkms/|$T/usr/lib/vfat-nolongcreate-dkms/|g" "$HERE/../debian/prerm.in" >"$T/prerm"
rc=0
PATH=$T/bin:$PATH sh "$T/prerm" remove || rc=$?
that "prerm remove: exit 0, the copies removed" test "$rc" = 0 -a ! -e "$S"

# 6c. modprobe-fat, dkms 3.2's layout, a kernel that refuses the package's
# modules, /var not mounted (original_module not there): the kernel's own
# from the copies; never the package's fat with the kernel's vfat
stock_modules
touch "$T/dkms32"
run --image "$K"
for m in vfat msdos; do echo "the package's $m" >"$T/lib/modules/$K/updates/dkms/$m.ko"; done
mv "$T/var/lib/dkms/$PKG" "$T/var-not-mounted"
sed -e "s|^PATH=.*|PATH=$T/bin:/usr/sbin:/usr/bin:/sbin:/bin|" -e "s|/lib/modules/|$T/lib/modules/|g" \
	-e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" -e "s|/usr/lib/\$PKG-dkms/|$T/usr/lib/\$PKG-dkms/|g" \
	-e "s|/sys/module/|$T/sys/module/|g" -e "s|/run/lock/|$T/run/|g" -e "s|/dev/kmsg|$T/kmsg|g" \
	"$MODPROBE_FAT" >"$T/modprobe-fat"
printf '#!/bin/sh\necho %s\n' "$K" >"$T/bin/uname"
cat >"$T/bin/insmod" <<EOS
#!/bin/sh
case \$1 in
*/updates/dkms/*) echo "insmod: ERROR: could not insert module \$1: Key was rejected by service" >&2; exit 1 ;;
esac
[ -f "\$1" ] || { echo "insmod: ERROR: could not load module \$1: No such file or directory" >&2; exit 1; }
m=\${1##*/}
mkdir -p "$T/sys/module/\${m%%.ko*}"
echo "insmod \$1" >>"$T/calls"
EOS
chmod 755 "$T/bin/uname" "$T/bin/insmod"
mp() { sh_run modprobe-fat "$@"; } # mp MODULE: modprobe-fat
rm -rf "$T/sys/module/fat" "$T/sys/module/vfat" "$T/sys/module/msdos"
mp vfat
that "modprobe-fat vfat, refused, /var not mounted: exit 0" test "$rc" = 0
that "modprobe-fat vfat: it says why, in one line" test "$(grep -c "this kernel refused the DKMS-built fat.ko (Key was rejected by service" <<<"$out")" = 1
that "modprobe-fat vfat: the kernel's own fat and vfat, from the copies on the root filesystem" \
	test "$(paste -sd' ' <<<"$calls")" = "insmod $S/$K/fat.ko insmod $S/$K/vfat.ko"
mp msdos
that "modprobe-fat msdos then: the kernel's own, from the copies" test "$rc" = 0 -a "$calls" = "insmod $S/$K/msdos.ko"
# no copies, /var not mounted: it fails, and says where it looked
rm -rf "$T/sys/module/fat" "$T/sys/module/vfat" "$T/sys/module/msdos" "$S"
mp vfat
that "no copies, /var not mounted: exit 1, one line naming where it looked" \
	test "$rc" = 1 -a "$(grep -c "cannot load the kernel's own fat.ko: it is in none of .*original_module" <<<"$out")" = 1
# /var mounted: from where dkms 3.2 keeps them
mv "$T/var-not-mounted" "$T/var/lib/dkms/$PKG"
rm -rf "$T/sys/module/fat" "$T/sys/module/vfat"
mp vfat
that "no copies, /var mounted: the kernel's own from original_module" \
	test "$rc" = 0 -a "$(paste -sd' ' <<<"$calls")" = "insmod $OM/fat.ko insmod $OM/vfat.ko"
# no /run/lock (Debian's initramfs makes only /run/initramfs): no lock,
# the load still runs (sh exits on a failed exec redirection)
cp "$T/modprobe-fat" "$T/modprobe-fat.locked"
sed "s|$T/run/|$T/no-run-lock/|g" "$T/modprobe-fat.locked" >"$T/modprobe-fat"
rm -rf "$T/sys/module/fat" "$T/sys/module/vfat"
mp vfat
that "no /run/lock (an initramfs): exit 0, the kernel's own fat and vfat loaded" \
	test "$rc" = 0 -a "$(paste -sd' ' <<<"$calls")" = "insmod $OM/fat.ko insmod $OM/vfat.ko"
mv "$T/modprobe-fat.locked" "$T/modprobe-fat"
rm -rf "$T/sys/module/fat" "$T/sys/module/vfat" "$T/sys/module/msdos" "$T/dkms32" "$F" "$OM"
rm -f "$T/lib/modules/$K/updates/dkms/"*

# a kernel of a line the package does not carry: one line with its image
run --image 7.0.13+deb13-amd64
that "--image of a kernel of a line not carried: exit 0, nlc-prepare --check's one line" \
	test "$rc" = 0 -a "$out" = "$PKG: kernel 7.0.13+deb13-amd64: fs/fat of linux-source-6.1 6.1.999-1 with patches/6.1"
run --headers 7.0.13+deb13-amd64
that "--headers of that kernel: nothing said" test "$rc" = 0 -a -z "$out"
# a kernel of a line served, its image installed without its headers: one line
run --image 6.1.0-98-amd64
that "--image of a kernel without its headers: exit 0, one line naming them" \
	test "$rc" = 0 -a "$(wc -l <<<"$out")" = 1 -a -n "$(grep -F "for kernel 6.1.0-98-amd64: its headers are not installed (apt install linux-headers-6.1.0-98-amd64)" <<<"$out")"

# 8. an in-place upgrade of the kernel's packages (a Debian revision of the
# same release): modules built from the linux-source of before are built
# again from the new one, or removed while it is not there yet
touch "$T/signs"
run --image "$K"
echo 6.1.999-2 >"$T/srcver"
echo 6.1.999-2 >"$T/hdrver"
run --headers "$K"
that "--headers, built from linux-source 6.1.999-1, headers and linux-source now 6.1.999-2: dkms unbuild, then install" \
	test "$(grep -c '^dkms \(unbuild\|install\) .*-k '"$K" <<<"$calls")" = 2
that "--headers, built again from 6.1.999-2: one line naming the source of before and the new one" \
	test "$(grep -c "built again and installed fat, vfat, msdos for kernel $K, which were built from linux-source-6.1 6.1.999-1 (fs/fat of linux-source-6.1 6.1.999-2" <<<"$out")" = 1
that "--headers: fat.ko built from linux-source-6.1 6.1.999-2 now" grep -qx "nlc_source=linux-source-6.1 6.1.999-2" "$T/lib/modules/$K/updates/dkms/fat.ko"
run --all
that "--all, built from the headers' version: left alone" not called "^dkms \(unbuild\|install\)"
echo 6.1.999-3 >"$T/hdrver"
touch "$T/no-source"
run --headers "$K"
that "--headers, headers 6.1.999-3, linux-source still 6.1.999-2 (refused): the modules removed, one line saying why" \
	test ! -e "$T/lib/modules/$K/updates/dkms/fat.ko" -a "$(grep -c "removed the modules of kernel $K, built from linux-source-6.1 6.1.999-2, not its headers' version: its fs/fat sources must be its own" <<<"$out")" = 1
rm -f "$T/no-source" "$T/srcver" "$T/hdrver" "$T/lib/modules/$K/updates/dkms/"*

# 7. the package's postinst (its paths moved the same way, the hook a
# stand-in): dkms add only where the source is not registered, a dangling
# link counting as registered; a failed dkms add one line, exit 0; udev
# asked again at the end
sed -e "s|@PKG_VERSION@|$VER|g" -e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" -e "s|/run/udev|$T/run/udev|g" \
	-e "s|/usr/lib/vfat-nolongcreate-dkms/kernel-hook|$T/bin/kernel-hook|g" "$HERE/../debian/postinst.in" >"$T/postinst"
printf '#!/bin/sh\necho "kernel-hook $*" >>"%s/calls"\n' "$T" >"$T/bin/kernel-hook"
chmod 755 "$T/bin/kernel-hook"
postinst() { sh_run postinst "$@"; } # postinst ARGS...: the postinst
D=$T/var/lib/dkms/$PKG/$VER
mkdir -p "$D"
ln -s /nowhere "$D/source"
postinst configure
that "postinst, a dangling source link: exit 0" test "$rc" = 0
that "postinst, a dangling source link: no dkms add" not called "^dkms add"
that "postinst: kernel-hook --all" called "^kernel-hook --all"
that "postinst: udev asked again for vfat devices at the end" called "^udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat"
NLC_TEST_ARCH=arm64 postinst configure
that "postinst on arm64: exit 0, one line saying amd64 only, no dkms add nor build" \
	test "$rc" = 0 -a "$(grep -c "amd64 kernels only" <<<"$out")" = 1 -a -z "$calls"
rm "$D/source"
printf '#!/bin/sh\necho "dkms $*" >>"%s/calls"\nexit 3\n' "$T" >"$T/bin/dkms"
postinst triggered
that "postinst, not registered: dkms add" called "^dkms add -m $PKG -v $VER"
that "postinst, dkms add failing: exit 0" test "$rc" = 0
that "postinst, dkms add failing: one line saying so" said "^$PKG: dkms add -m $PKG -v $VER failed"

# 8. nlc-prepare --check: the linux-source of the kernel's line, or why
# not (headers installed as 9.9-1, no linux-source installed)
mkdir -p "$T/np/bin" "$T/np/patches/6.1" "$T/np/patches/6.12" "$T/np/patches/7.3"
touch "$T/np/patches/6.1/series" "$T/np/patches/6.12/series" "$T/np/patches/7.3/series"
cp "$NLC_PREPARE" "$T/np/nlc-prepare"
printf '#!/bin/sh\ncase "$*" in *linux-headers-*) printf 9.9-1 ;; *) exit 1 ;; esac\n' >"$T/np/bin/dpkg-query"
chmod 755 "$T/np/bin/dpkg-query"
for c in "6.12.48+deb13-amd64:from linux-source-6.12 9.9-1, which is not installed" \
	"7.2.12+deb14-amd64:from linux-source-7.2 9.9-1, which is not installed (apt install linux-source-7.2=9.9-1," \
	"7.3.4+deb13-amd64:from linux-source-7.3 9.9-1, which is not installed (apt install linux-source-7.3=9.9-1," \
	"7.0.13+deb13-amd64:a Debian kernel of the 7.0 line, which this package does not carry" \
	"5.10.0-30-amd64:a Debian kernel of the 5.10 line, which this package does not carry" \
	"7.2.0-mine:not one of Debian's kernels"; do
	k=${c%%:*}
	rc=0
	out=$(PATH=$T/np/bin:$PATH bash "$T/np/nlc-prepare" --check "$k" 2>&1) || rc=$?
	echo "  $out"
	that "nlc-prepare --check $k: exit 1, one line: ...${c#*:}..." \
		test "$rc" = 1 -a "$(wc -l <<<"$out")" = 1 -a -n "$(grep -F -- "for kernel $k: " <<<"$out" | grep -F -- "${c#*:}")"
done
# the image alone (trixie-backports' linux-image-amd64): its headers and
# its linux-source named in one apt install, at the image's version
printf '#!/bin/sh\ncase "$*" in *linux-image-*) printf "9.9-1\\n" ;; *) exit 1 ;; esac\n' >"$T/np/bin/dpkg-query"
k=7.3.4+deb13-amd64
rc=0
out=$(PATH=$T/np/bin:$PATH bash "$T/np/nlc-prepare" --check "$k" 2>&1) || rc=$?
echo "  $out"
that "nlc-prepare --check $k, only its image installed: exit 1, headers and linux-source in one apt install" \
	test "$rc" = 1 -a "$(wc -l <<<"$out")" = 1 -a -n "$(grep -F -- "for kernel $k: its headers are not installed (apt install linux-headers-$k linux-source-7.3=9.9-1)" <<<"$out")"

summary "kernel-hook test"
