#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs-base.sh STAGING-DIR: the part of the test initramfs that comes
# from this host, made anew in STAGING-DIR: bash, dash (/bin/sh), coreutils,
# util-linux, dosfstools, mtools, e2fsprogs' chattr/lsattr, busybox (for
# every applet not otherwise present, and reboot -f), a sudo shim, /etc and
# the shared libraries they need (ldd).  mkinitramfs.sh adds /init, the
# runner's files and the kselftests.
#
# initramfs-base.sh --key: print a hash of what the result depends on: this
# script, the path, size, mtime and inode of every host command it copies,
# the dpkg database (any package change) and /etc/mtools.conf.

set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 STAGING | --key" >&2; exit 2; }
STAGING=$1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Required commands (missing one is an error).
REQUIRED=(
	bash dash
	mount umount losetup mountpoint findmnt blkid setsid dmesg flock
	mkfs.vfat mkfs.fat mkdosfs fsck.vfat fsck.fat fatlabel
	mtools
	mktemp truncate tee sync dd cat ls timeout sed grep egrep fgrep tr cut
	basename dirname realpath readlink wc uniq sort head tail mkdir rmdir rm
	mv cp ln touch chmod chown stat sleep env id uname date seq printf echo
	test true false expr nproc du df yes md5sum sha1sum sha256sum od cmp
	diff find xargs mawk stty tac rev install mknod fallocate
	iconv getconf
)
# Optional commands (copied when the host has them).
OPTIONAL=(chattr lsattr hexdump xxd strace gawk)

PROG=initramfs-base # its messages as before the shared die
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

if [[ $STAGING == --key ]]; then
	paths=()
	for c in "${REQUIRED[@]}" "${OPTIONAL[@]}" busybox; do
		p=$(type -P "$c" 2>/dev/null) && paths+=("$p")
	done
	{
		sha256sum <"${BASH_SOURCE[0]}"
		stat -L -c '%n %s %Y %i' "${paths[@]}" /var/lib/dpkg/status
		cat /etc/mtools.conf 2>/dev/null || true
	} | sha256sum | cut -d' ' -f1
	exit 0
fi

rm -rf "$STAGING"
mkdir -p "$STAGING"
cd "$STAGING"
mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 \
	dev proc sys tmp run mnt root etc var/tmp
ln -s usr/bin bin
ln -s usr/sbin sbin
ln -s usr/lib lib
ln -s usr/lib64 lib64
chmod 1777 tmp var/tmp

declare -A COPIED=()

# copy_path /abs/path: copy a file (following symlink chains, recreating
# each link) to the same path in the staging tree, with its libraries.
copy_path() {
	local p=$1 dst t
	[[ -n ${COPIED[$p]:-} ]] && return 0
	COPIED[$p]=1
	dst=$STAGING$p
	mkdir -p "$(dirname "$dst")"
	if [[ -L $p ]]; then
		t=$(readlink "$p")
		[[ -e $dst || -L $dst ]] || ln -s "$t" "$dst"
		[[ $t == /* ]] || t=$(dirname "$p")/$t
		copy_path "$(realpath -s "$t")"
		return 0
	fi
	[[ -e $dst ]] || cp -p "$p" "$dst"
	if [[ -f $p && -x $p ]] && head -c 4 "$p" | grep -q 'ELF'; then
		copy_libs "$p"
	fi
}

copy_libs() {
	local lib
	while read -r lib; do
		[[ -n $lib ]] && copy_path "$lib"
	done < <(ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }')
}

# Merged /usr: refer to binaries by their /usr path.
usrpath() {
	local p=$1
	case $p in
	/bin/* | /sbin/* | /lib/* | /lib64/*) [[ -e /usr$p ]] && p=/usr$p ;;
	esac
	printf '%s\n' "$p"
}

copy_cmd() {
	local p
	p=$(type -P "$1" 2>/dev/null) || return 1
	[[ $p == /* ]] || return 1
	copy_path "$(usrpath "$p")"
}

for c in "${REQUIRED[@]}"; do
	copy_cmd "$c" || die "required command '$c' not found on the host"
done
for c in "${OPTIONAL[@]}"; do
	copy_cmd "$c" || true
done

# mtools: all the m* commands are links to mtools.
while IFS= read -r l; do
	copy_path "$l"
done < <(find /usr/bin -maxdepth 1 -lname mtools)
[[ -f /etc/mtools.conf ]] && cp /etc/mtools.conf etc/
# Let mtools work on image files without complaining about geometry.
echo 'mtools_skip_check=1' >>etc/mtools.conf

# iconv modules (mtools converts names through the codepage) and C.UTF-8.
GCONV=/usr/lib/x86_64-linux-gnu/gconv
if [[ -d $GCONV ]]; then
	mkdir -p ".$GCONV"
	cp -a "$GCONV"/gconv-modules* ".$GCONV"/ 2>/dev/null || true
	for m in IBM437 IBM850 IBM852 IBM932 SJIS CP932 EUC-JP ISO8859-1 ISO8859-15 \
		UNICODE UTF-16 UTF-32 UTF-7 libJIS; do
		[[ -f $GCONV/$m.so ]] && copy_path "$GCONV/$m.so"
	done
fi
[[ -d /usr/lib/locale/C.utf8 ]] && mkdir -p usr/lib/locale && cp -a /usr/lib/locale/C.utf8 usr/lib/locale/

# awk and sh
ln -sf mawk usr/bin/awk
ln -sf dash usr/bin/sh

# busybox (static or not) fills every gap: reboot, any missing applet.
BB=/bin/busybox
[[ -x $BB ]] || BB=$(command -v busybox) || die "busybox not found"
copy_path "$(usrpath "$BB")"
[[ -e usr/bin/busybox ]] || ln -s "$(usrpath "$BB")" usr/bin/busybox
while read -r applet; do
	applet=${applet#/}
	case $applet in
	bin/* | sbin/* | usr/bin/* | usr/sbin/*) ;;
	*) continue ;;
	esac
	name=${applet##*/}
	[[ $name == init || $name == linuxrc ]] && continue
	if [[ ! -e usr/bin/$name && ! -e usr/sbin/$name && ! -L usr/bin/$name && ! -L usr/sbin/$name ]]; then
		ln -s /usr/bin/busybox "usr/bin/$name"
	fi
done < <("$BB" --list-full)

# sudo shim: the guest runs everything as root (upstream run_fat_tests.sh
# calls sudo).
cat >usr/bin/sudo <<'EOF'
#!/bin/sh
# sudo shim for the test guest: everything already runs as root.
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	-u | -g | -C | -D | -h | -p | -r | -t | -U | -T) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
exec "$@"
EOF
chmod 755 usr/bin/sudo

# /etc
cat >etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >etc/group <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo vfat-guest >etc/hostname
ln -s /proc/self/mounts etc/mtab
cat >etc/profile <<'EOF'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
PS1='vfat-guest:\w# '
EOF
