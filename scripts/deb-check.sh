#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh - install and remove the DKMS package like a user would, in a
# throwaway Debian 12 root (debootstrap of bookworm, used as a chroot for
# dpkg only; nothing is installed on this machine or loaded into its kernel).
# Run ./scripts/deb-check.sh --help for what it checks.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
MIRROR=${DEB_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

usage() {
	cat <<EOF
usage: $PROG [--cache DIR]

Builds the package (scripts/mkdeb.sh --reuse), then in a fresh copy of a
bookworm root (debootstrap --variant=minbase, with dkms and Debian's
linux-image and linux-headers of the package's kernel ABI installed by apt;
kept as a tarball in <cache>/deb-check, made again when missing):
  1. dpkg -i the .deb: dkms builds fat, vfat and msdos for that kernel and
     installs them in /lib/modules/<release>/updates/dkms, where modinfo
     finds vfat first;
  2. the version guards: dkms refuses the next ABI's kernel release (exit
     77 and its BUILD_EXCLUSIVE message); the package's Kbuild, run by
     hand, refuses another kernel release and sources of another Linux
     version;
  3. dpkg -r: modinfo finds the stock vfat again, dpkg no longer knows the
     package, and the root's files (path, type, size, mode; the content of
     the kernel's modules.* indexes) are as before dpkg -i (dpkg's own
     database and logs aside, and dkms's signing key /var/lib/dkms/mok.*,
     which dkms makes on its first build for any package and keeps).
Exit status 0 when all holds.

  --cache DIR   the cache (default: $CACHE)
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}
step() { echo "== $PROG: $*"; }

while (($#)); do
	case $1 in
	--cache) [[ $# -ge 2 ]] || die "--cache needs a directory"; CACHE=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || {
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null >/dev/null
	apt-get install -y -q --no-install-recommends debootstrap </dev/null >/dev/null
}

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock" # the runner's lock: mkdeb.sh --reuse rewrites <cache>/deb
flock 9
step "package"
"$REPO/scripts/mkdeb.sh" --reuse --out "$CACHE/deb" | tail -n 1
# shellcheck source=/dev/null
. "$CACHE/deb/package.env" # PKGVER KABI SRCVER KERNEL_VERSION DEB
KREL=$KABI-amd64
W=$CACHE/deb-check
TARBALL=$W/bookworm-${KABI}_$SRCVER.tar
R=$W/root
mkdir -p "$W"

# Run a command in the root: its own mount and pid namespace, /proc of its own.
in_root() {
	unshare --mount --pid --fork --mount-proc="$R/proc" chroot "$R" "$@"
}

if [[ ! -f $TARBALL ]]; then
	step "debootstrap --variant=minbase bookworm, then apt-get install dkms linux-image-$KREL linux-headers-$KREL"
	rm -rf "$R"
	debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$W/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$W/debootstrap.log" >&2; die "debootstrap failed"; }
	cat >"$R/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
EOF
	in_root env DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -q &&
		apt-get install -y -q --no-install-recommends dkms openssl \
		linux-image-$KREL=$SRCVER linux-headers-$KREL=$SRCVER" >"$W/apt.log" 2>&1 ||
		{ tail -n 20 "$W/apt.log" >&2; die "apt-get install in the root failed"; }
	in_root apt-get clean
	rm -f "$W"/bookworm-*.tar
	tar -C "$R" -cf "$TARBALL.tmp" .
	mv "$TARBALL.tmp" "$TARBALL"
else
	step "a fresh root from $TARBALL"
fi
rm -rf "$R"
mkdir -p "$R"
tar -C "$R" -xf "$TARBALL"
# shellcheck disable=SC2016 # dpkg-query formats
echo "  $(in_root dpkg-query -W -f='${Package} ${Version}\n' dkms "linux-image-$KREL" "linux-headers-$KREL" | paste -sd,)"

# The root's files (and symlinks), with what may change aside: dpkg's own
# database and logs.
file_list() {
	{
		# (a directory's size only grows: not compared)
		in_root find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp \
			-o -path /run -o -path /var/lib/dpkg -o -path /var/log \) -prune \
			-o -type d -printf '%p %y - %m\n' -o -printf '%p %y %s %m\n' || die "find in the root failed"
		in_root sh -c "cd /lib/modules/$KREL && sha256sum modules.*" || die "no modules.* in the root"
	} | LC_ALL=C sort
}
file_list >"$W/files.before"
problems=()

step "dpkg -i ${DEB##*/}"
cp "$DEB" "$R/tmp/"
in_root dpkg -i "/tmp/${DEB##*/}" >"$W/dpkg-i.log" 2>&1 ||
	{ cat "$W/dpkg-i.log" >&2; die "dpkg -i failed"; }
sed 's/^/  | /' "$W/dpkg-i.log"
M=/lib/modules/$KREL/updates/dkms
for m in fat vfat msdos; do
	if [[ -f $R$M/$m.ko ]]; then
		echo "  $M/$m.ko: version $(modinfo -F version "$R$M/$m.ko"), vermagic $(modinfo -F vermagic "$R$M/$m.ko")"
	else
		problems+=("dpkg -i installed no $M/$m.ko")
	fi
done
got=$(in_root modinfo -k "$KREL" -n vfat 2>&1 || true)
echo "  modinfo -k $KREL -n vfat: $got"
[[ $got == "$M/vfat.ko" ]] || problems+=("vfat of $KREL resolves to $got, not $M/vfat.ko")
echo "  dkms status: $(in_root dkms status | paste -sd';')"

step "version guards"
n=${KABI##*-}
other=${KABI%-*}-$((n + 1))-amd64 # the next ABI
rc=0
out=$(in_root dkms build -m vfat-nolongcreate -v "$PKGVER" -k "$other" \
	--kernelsourcedir "/usr/src/linux-headers-$KREL" 2>&1) || rc=$?
printf '%s\n' "$out" | sed 's/^/  | /'
if [[ $rc == 77 && $out == *BUILD_EXCLUSIVE* ]]; then
	echo "  dkms build -k $other: refused (exit 77)"
else
	problems+=("dkms build -k $other: exit $rc, not 77 with the BUILD_EXCLUSIVE message")
fi
# The Kbuild file's own checks, for a build by hand: another kernel
# release, and the sources of another Linux version than the kernel's.
in_root cp -r "/usr/src/vfat-nolongcreate-$PKGVER" /tmp/kb
for what in "KERNELRELEASE=$other" "VFAT_NOLONGCREATE_KERNEL=6.1.1"; do
	rc=0
	out=$(in_root make -C "/usr/src/linux-headers-$KREL" M=/tmp/kb "$what" modules 2>&1) || rc=$?
	printf '%s\n' "$out" | grep 'refusing' | sed 's/^/  | /'
	if [[ $rc != 0 && $out == *"refusing to build"* ]]; then
		echo "  Kbuild with $what: refused"
	else
		problems+=("Kbuild with $what: built (exit $rc)")
	fi
done
rm -rf "$R/tmp/kb"

step "dpkg -r vfat-nolongcreate-dkms"
in_root dpkg -r vfat-nolongcreate-dkms >"$W/dpkg-r.log" 2>&1 ||
	{ cat "$W/dpkg-r.log" >&2; die "dpkg -r failed"; }
sed 's/^/  | /' "$W/dpkg-r.log"
file_list >"$W/files.after"
# dkms's own key for signing modules, made by its first build on a machine
# (not a file of this package; Secure Boot users enroll it, so it stays).
dkms_key='^/var/lib/dkms/mok\.(key|pub) '
LC_ALL=C comm -13 "$W/files.before" "$W/files.after" | grep -E "$dkms_key" | sed 's/^/  kept by dkms, its signing key: /' || true
if diff -u "$W/files.before" <(grep -vE "$dkms_key" "$W/files.after") >"$W/files.diff"; then
	echo "  file list after dpkg -r = before dpkg -i ($(wc -l <"$W/files.before") paths)"
else
	sed 's/^/  | /' "$W/files.diff" | head -n 40
	problems+=("dpkg -r left the root's file list changed (see above)")
fi
# shellcheck disable=SC2016 # a dpkg-query format
status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' vfat-nolongcreate-dkms 2>/dev/null || true)
echo "  dpkg status after -r: ${status:-not known to dpkg}"
[[ -z $status ]] || problems+=("dpkg still knows the package after dpkg -r: $status")
got=$(in_root modinfo -k "$KREL" -n vfat 2>&1 || true)
echo "  modinfo -k $KREL -n vfat: $got"
[[ $got == /lib/modules/$KREL/kernel/fs/fat/vfat.ko* ]] || problems+=("after dpkg -r, vfat resolves to $got")

if ((${#problems[@]})); then
	printf '%s: %s\n' "$PROG" "${problems[@]}" >&2
	echo "deb-check: FAILED"
	exit 1
fi
rm -rf "$R" # 1 GB; the tarball stays
echo "deb-check: ok (${DEB##*/} on linux-image-$KREL $SRCVER)"
