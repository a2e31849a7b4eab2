#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-hook-test.sh [KERNEL-HOOK] - host test of the DKMS package's
# kernel hook (dkms/kernel-hook, or KERNEL-HOOK) on a stand-in machine: a
# copy of the hook whose absolute paths (/lib/modules, /usr/src,
# /var/lib/dkms, /usr/lib/linux-kbuild-*, /run/udev, /var/log) are moved
# under a temporary directory, and stand-ins for dkms, modinfo, dpkg-query,
# mokutil and udevadm first in PATH that log what they are asked.  Nothing
# is built, installed or loaded.  Checks: modules installed unsigned are
# built again (dkms unbuild, then install) once dkms can sign, signed ones
# are left alone; udev is asked again after a build and only then; a
# kernel update on a kernel that enforces signatures says one line.
# Prints "ok:"/"FAIL:" lines and last "kernel-hook test: N passed, N
# failed"; make kernel-hook-test; part of make check's host checks.  Then
# the package's postinst (dkms/debian/postinst.in) the same way: dkms add
# only where needed, never failing, udev asked again at its end.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HOOK=${1:-$HERE/../dkms/kernel-hook}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PKG=vfat-nolongcreate VER=6.12+nlc1 K=6.1.0-99-amd64
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
that() { local w=$1; shift; if "$@"; then ok "$w"; else bad "$w"; fi; }

sed -e "s|@PKG_VERSION@|$VER|g" -e "s|/usr/lib/linux-kbuild-|$T/usr/lib/linux-kbuild-|g" \
	-e "s|/lib/modules/|$T/lib/modules/|g" -e "s|/usr/src/|$T/usr/src/|g" \
	-e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" -e "s|/run/udev|$T/run/udev|g" \
	-e "s|/var/log/|$T/var/log/|g" "$HOOK" >"$T/kernel-hook"
mkdir -p "$T/bin" "$T/usr/src/$PKG-$VER" "$T/lib/modules/$K/kernel" "$T/lib/modules/$K/build/include" \
	"$T/lib/modules/$K/updates/dkms" "$T/var/lib/dkms" "$T/usr/lib/linux-kbuild-6.1/scripts" "$T/run/udev" "$T/var/log" \
	"$T/sys/module/module/parameters"
cat >"$T/usr/src/$PKG-$VER/nlc-prepare" <<EOS
#!/bin/sh
echo "$PKG: kernel \$2: fs/fat of linux-source-6.1 6.1.999-1 with patches/6.1"
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
install) if [ -e "$T/signs" ]; then echo SIGNED; else echo unsigned; fi >"$T/lib/modules/$K/updates/dkms/fat.ko" ;;
esac
exit 0
EOS
cat >"$T/bin/modinfo" <<'EOS'
#!/bin/sh
# modinfo -F signer FILE
grep -q SIGNED "$3" && echo "DKMS module signing key"
exit 0
EOS
printf '#!/bin/sh\necho "udevadm $*" >>"%s/calls"\n' "$T" >"$T/bin/udevadm"
printf '#!/bin/sh\necho "ii "\n' >"$T/bin/dpkg-query"
printf '#!/bin/sh\necho "%s is not enrolled"\n' /var/lib/dkms/mok.pub >"$T/bin/mokutil"
chmod 755 "$T"/bin/* "$T/usr/src/$PKG-$VER/nlc-prepare" "$T/usr/lib/linux-kbuild-6.1/scripts/sign-file"

run() { # run ARGS...: the hook; its output (stdout and stderr) in $out, what it called in $calls
	: >"$T/calls"
	echo "# kernel-hook $*"
	out=$(PATH=$T/bin:$PATH NLC_SYSFS=$T/sys bash "$T/kernel-hook" "$@" 2>&1)
	[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/  /'
	calls=$(cat "$T/calls")
}
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
echo Y >"$T/sys/module/module/parameters/sig_enforce"
run --headers "$K"
that "--headers under enforcement: one line" lines 1
that "--headers under enforcement: it says built and installed, and that the key is not enrolled" \
	said "built and installed fat, vfat, msdos for kernel $K .*loads only signed modules"
that "--headers after a build: udev asked again" called "udevadm trigger --action=change"

# 5. --all under enforcement, nothing to build: the note alone, once
run --all
that "--all under enforcement, nothing built: one line" lines 1
that "--all under enforcement, nothing built: the signing note" said "^vfat-nolongcreate: the running kernel loads only signed modules"

# 6. the package's postinst (its paths moved the same way, the hook a
# stand-in): dkms add only where the source is not registered, a dangling
# link counting as registered; a failed dkms add one line, exit 0; udev
# asked again at the end
sed -e "s|@PKG_VERSION@|$VER|g" -e "s|/var/lib/dkms/|$T/var/lib/dkms/|g" -e "s|/run/udev|$T/run/udev|g" \
	-e "s|/usr/lib/vfat-nolongcreate-dkms/kernel-hook|$T/bin/kernel-hook|g" "$HERE/../dkms/debian/postinst.in" >"$T/postinst"
printf '#!/bin/sh\necho "kernel-hook $*" >>"%s/calls"\n' "$T" >"$T/bin/kernel-hook"
chmod 755 "$T/bin/kernel-hook"
postinst() { # postinst ARGS...: as run() for the postinst; its exit status in $rc
	: >"$T/calls"
	echo "# postinst $*"
	rc=0
	out=$(PATH=$T/bin:$PATH sh "$T/postinst" "$@" 2>&1) || rc=$?
	[[ -n $out ]] && printf '%s\n' "$out" | sed 's/^/  /'
	calls=$(cat "$T/calls")
}
D=$T/var/lib/dkms/$PKG/$VER
mkdir -p "$D"
ln -s /nowhere "$D/source"
postinst configure
that "postinst, a dangling source link: exit 0" test "$rc" = 0
that "postinst, a dangling source link: no dkms add" not called "^dkms add"
that "postinst: kernel-hook --all" called "^kernel-hook --all"
that "postinst: udev asked again for vfat devices at the end" called "^udevadm trigger --action=change --subsystem-match=block --property-match=ID_FS_TYPE=vfat"
rm "$D/source"
printf '#!/bin/sh\necho "dkms $*" >>"%s/calls"\nexit 3\n' "$T" >"$T/bin/dkms"
postinst triggered
that "postinst, not registered: dkms add" called "^dkms add -m $PKG -v $VER"
that "postinst, dkms add failing: exit 0" test "$rc" = 0
that "postinst, dkms add failing: one line saying so" said "^$PKG: dkms add -m $PKG -v $VER failed"

echo "kernel-hook test: $pass passed, $fail failed"
[[ $fail == 0 ]]
