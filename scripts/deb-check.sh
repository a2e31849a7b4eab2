#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh - install the DKMS package like a user would, then upgrade
# the kernel, in a throwaway Debian root (debootstrap of Debian 12
# "bookworm", 13 "trixie" or 14 "forky", used as a chroot for dpkg and apt only;
# nothing is installed on this machine or loaded into its kernel).
# Run ./scripts/deb-check.sh --help for what it checks.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "$0")/lib/guest.sh"
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
SUITE=bookworm
LINE=
EXPORT=
REUSE_EXPORT=0

usage() {
	cat <<EOF
usage: $PROG [--suite bookworm|trixie|forky] [--line 6.1|6.12|7.2] [--cache DIR]
       [--export DIR [--reuse-export]]

Builds the package (scripts/mkdeb.sh --reuse), then, in a fresh copy of a
root of the suite (debootstrap --variant=minbase with dkms and Debian's
linux-image and linux-headers of an OLDER kernel ABI of the line installed
(no initramfs: update-initramfs is diverted in this root to a script
making an empty one; dpkg with force-unsafe-io, no fsync),
and the packages of the NEWER ABI and linux-source-LINE downloaded into
its apt cache, and only those; kept as a tarball in <cache>/deb-check-12
or -13, made again when missing or made by an older recipe; the check
goes on in the root it has just made).  Each suite has its own lock: the
two suites' checks can run at once.  NEWER is the ABI whose version is the suite's newest
linux-source-LINE, OLDER the ABI of the line just before it: both looked
up with apt-cache in the root when the tarball is made.
  1. apt-get install the .deb (it pulls linux-source-LINE, the newest):
     exit 0, and for the OLDER kernel, whose sources are not that
     linux-source, one line saying why nothing is built; modinfo -k
     finds the stock vfat there, and the package keeps no copies of it
     (forky has one ABI of its line: no OLDER kernel, no line);
  1b. apt-get install the tools .deb (fat83, same source): exit 0, fat83
     name prints BENCHYFI.GCO for "Benchy Final.gcode", fat83 check of a
     directory not on FAT exits 2;
  2. apt-get install linux-image-NEWER linux-headers-NEWER: exit 0, the
     package's kernel hook builds fat, vfat and msdos for it, and
     modinfo -k NEWER finds them in updates/dkms with the package's
     version, fat's nlc_source linux-source-LINE of its version; the hook's copies of the kernel's own three in
     /usr/lib/vfat-nolongcreate-dkms/stock/NEWER/ are the files dkms
     left in kernel/fs/fat (Debian 12) or moved to /var/lib/dkms (13);
  2b. apt-get install --reinstall linux-source-LINE, which fires the
     package's trigger (as a new linux-source would): exit 0, the OLDER
     kernel refused again in one line, the NEWER one left alone;
  2c. dpkg-reconfigure of the package with a stand-in /sys whose
     module.sig_enforce is Y (NLC_SYSFS): exit 0, one line saying that
     the running kernel loads only signed modules; the modprobe rule of
     fat, vfat and msdos installed;
  2d. mkinitramfs for NEWER with vfat in its modules list (a config
     directory of its own, MODULES=list; forky: dracut, its default
     modules and vfat): the initramfs holds the
     modprobe rule, the package's vfat, modprobe-fat, insmod, modinfo,
     flock and the copies of the kernel's own fat, vfat, msdos; in it
     (chroot) modinfo reads the package's vfat and modprobe shows the
     rule;
  2e. trixie: the update to trixie-backports' kernel (its
     linux-image-amd64's): exit 0 and one line naming the linux-source
     of its version to install; then that owner's step, apt-get install
     linux-source-LINE=VERSION: the package's trigger builds for it;
  3. a deliberately broken build (an #error in the package's sources, the
     NEWER kernel's modules removed, apt-get install --reinstall of its
     linux-headers, whose hook builds): exit 0, one line saying the build
     failed, the stock vfat again;
  4. apt-get purge of the NEWER kernel (exit 0; its copies of the
     kernel's own modules are gone: the package's postrm.d hook), then
     apt-get purge --autoremove of the packages, and apt-get autoremove
     --purge: exit 0, and the root's files (path, type, size, mode; the
     content of the kernels' modules.* indexes) are as before step 1
     (dpkg's and apt's own state and logs aside, and dkms's signing key
     /var/lib/dkms/mok.*, which dkms makes on its first build and keeps);
  5. trixie only: make deb on Debian 13, from the source package (.dsc)
     mkdeb.sh made (no git history there): its build dependencies
     installed from the root's apt cache, scripts/mkdeb.sh run in the
     root with its gcc and lintian: exit 0, both .debs, lintian 0 errors
     and 0 warnings.
With --export DIR, after step 2: the NEWER kernel's vmlinuz, the modules
the suite needs and the built ones (DIR/KREL/, DIR/export.env), and the
two .debs they were built from and installed (DIR/*.deb, named in
export.env as DEB and TOOLS_DEB: mkdeb.sh's own copies in the cache go
when the package is made again), for ./qemu-run.sh --distro-kernel,
card-guest.sh and sigenforce-guest.sh; in step 2d, the files of the
initramfs it made (DIR/KREL/initramfs.cpio, uncompressed, for
sigenforce-guest.sh); --reuse-export: if DIR holds an export of this
package version that a run which passed made, only say so and exit 0.
Exit status 0 when all holds.

  --suite S     bookworm (Debian 12, default line 6.1), trixie (Debian
                13, line 6.12) or forky (Debian 14, line 7.2)
  --line LINE   the kernel line (6.1 or 6.12 on bookworm)
  --cache DIR   the cache (default: $CACHE)
EOF
}

while (($#)); do
	case $1 in
	--suite) [[ $# -ge 2 ]] || die "--suite needs a suite"; SUITE=$2; shift 2 ;;
	--line) [[ $# -ge 2 ]] || die "--line needs a line"; LINE=$2; shift 2 ;;
	--cache) [[ $# -ge 2 ]] || die "--cache needs a directory"; CACHE=$2; shift 2 ;;
	--export) [[ $# -ge 2 ]] || die "--export needs a directory"; EXPORT=$2; shift 2 ;;
	--reuse-export) REUSE_EXPORT=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
debian_suite "$SUITE" || die "--suite wants bookworm, trixie or forky, not '$SUITE'"
LINE=${LINE:-$DLINE}
case $LINE in
6.1) IMAGE_RE='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12 | 7.2) IMAGE_RE="^linux-image-${LINE/./\\.}\\.[0-9]+\\+deb$DEBVER(\\.[0-9]+)?-amd64\$" ;;
*) die "--line wants 6.1, 6.12 or 7.2, not '$LINE'" ;;
esac
# Debian 14's kernels come with dracut, not initramfs-tools
INITRD=initramfs-tools
[[ $DEBVER -lt 14 ]] || INITRD=dracut
[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot)"
host_need debootstrap:debootstrap

START=$SECONDS
mkdir -p "$CACHE"
if [[ -z ${VFAT_NOLONGCREATE_LOCKED:-} ]]; then
	exec 9>"$CACHE/.lock" # the runner's lock (qemu-run.sh holds it when it runs this)
	flock 9
fi
step "package"
"$REPO/scripts/mkdeb.sh" --reuse --out "$CACHE/deb-dkms" | tail -n 1
# shellcheck source=/dev/null
. "$CACHE/deb-dkms/package.env" # PKGVER DEB TOOLS_DEB DSC
# an export is of this package version, made by this script and its library
# (all of guest.sh: an edit of the booted guests' part also makes a new one)
EXPORT_KEY="$PKGVER $(cat "$0" "$REPO/scripts/lib/guest.sh" | sha256sum | cut -c 1-16)"
if [[ -n $EXPORT && $REUSE_EXPORT == 1 && -f $EXPORT/export.env ]] &&
	grep -qxF "EXPORT_KEY=$(printf '%q' "$EXPORT_KEY")" "$EXPORT/export.env"; then
	echo "  export of $PKGVER kept: $EXPORT"
	exit 0
fi

W=$CACHE/deb-check-$DEBVER
TARBALL=$W/$SUITE-$LINE-root.tar
R=$W/root
mkdir -p "$W"
# The suite's own lock: the two suites' checks may run at once (make
# check runs them so, under the runner's lock).
exec 8>"$W/.lock"
flock 8
# How the root is made (the steps below): a tarball of another format is
# made again.  2: dpkg's unsafe-io, no .debs of installed packages kept;
# 3: the update-initramfs stand-in answers --version; 4: forky, dracut,
# trixie-backports' kernel; 5: forky's libbpf1 and others.
# 6: Debian 13's and 14's roots have make deb's build dependencies in
# their apt cache too (step 5; "c"), desktop-file-validate for its tests.
BUILD_DEPS=()
[[ $SUITE == bookworm ]] || BUILD_DEPS=(dpkg-dev build-essential debhelper lintian git desktop-file-utils)
ROOT_FORMAT=6${BUILD_DEPS[0]:+c}

apt_root() {
	in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends "$@"
}
# newest of the versions on stdin (Debian version order)
newest() {
	local v best=
	while read -r v; do
		[[ -z $best ]] && { best=$v; continue; }
		dpkg --compare-versions "$v" gt "$best" && best=$v
	done
	printf '%s\n' "$best"
}
versions() { in_root apt-cache madison "$1" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u; }

if [[ ! -f $TARBALL || ! -f $TARBALL.env ]] || ! grep -qx "ROOT_FORMAT=$ROOT_FORMAT" "$TARBALL.env"; then
	t0=$SECONDS
	step "debootstrap --variant=minbase $SUITE, then the OLDER $LINE kernel and dkms"
	debian_bootstrap "$SUITE" "$W/debootstrap.log"
	[[ $SUITE != trixie ]] || echo "deb $(debian_archive main) $SUITE-backports main" >>"$R/etc/apt/sources.list"
	apt_root update >"$W/apt.log" 2>&1 || { tail -n 20 "$W/apt.log" >&2; die "apt-get update in the root failed"; }
	# No initramfs in this root, which never boots (the kernel's postinst
	# hook would make one per kernel install, ~30-60 s each): its
	# update-initramfs is diverted, before initramfs-tools comes with the
	# first kernel, to a script that makes an empty /boot/initrd.img-KREL
	# (-c, -u) and removes it (-d), so that the /initrd.img links behave as
	# usual.  It says it is initramfs-tools when asked --version: Debian
	# 13's kernel hook (/etc/kernel/postinst.d/initramfs-tools) makes no
	# initrd otherwise, while linux-update-symlinks links /initrd.img to
	# it all the same, and removes that link again on a purge.  (The
	# package's hook runs before initramfs-tools's:
	# "dkms-vfat-nolongcreate" sorts first.)
	in_root dpkg-divert --local --rename --divert /usr/sbin/update-initramfs.real \
		--add /usr/sbin/update-initramfs >>"$W/apt.log" 2>&1 || die "dpkg-divert in the root failed"
	cat >"$R/usr/sbin/update-initramfs" <<'EOF'
#!/bin/sh
# deb-check.sh: no initramfs in this root, which never boots; an empty file stands for it
op='' k=''
while [ $# -gt 0 ]; do
	case $1 in
	-c | -u) op=make ;;
	-d) op=del ;;
	-k) k=$2; shift ;;
	--version) echo 'initramfs-tools (deb-check.sh: an empty initrd)'; exit 0 ;;
	esac
	shift
done
[ -n "$k" ] && [ "$k" != all ] || exit 0
case $op in
make) echo "update-initramfs (deb-check.sh): empty /boot/initrd.img-$k"; : >"/boot/initrd.img-$k" ;;
del) rm -f "/boot/initrd.img-$k" ;;
esac
exit 0
EOF
	chmod 755 "$R/usr/sbin/update-initramfs"
	# dracut's kernel hook runs dracut itself: an empty initrd too
	if [[ $INITRD == dracut ]]; then
		in_root dpkg-divert --local --rename --divert /usr/bin/dracut.real --add /usr/bin/dracut >>"$W/apt.log" 2>&1 ||
			die "dpkg-divert in the root failed"
		# shellcheck disable=SC2016 # the stand-in's own variables
		printf '#!/bin/sh\n# deb-check.sh: an empty initrd\nfor a; do f=$k k=$a; done\n: >"$f"\n' >"$R/usr/bin/dracut"
		chmod 755 "$R/usr/bin/dracut"
	fi
	# The ABIs, looked up: NEWER is of the newest linux-source-LINE's
	# version, OLDER the newest ABI of an older version.
	SV=$(versions "linux-source-$LINE" | newest)
	[[ -n $SV ]] || die "$SUITE has no linux-source-$LINE"
	NEW='' OLD='' OLDV=''
	for p in $(in_root apt-cache pkgnames linux-image- | grep -E "$IMAGE_RE"); do
		v=$(versions "$p" | newest)
		if [[ $v == "$SV" ]]; then
			NEW=${p#linux-image-}
		elif dpkg --compare-versions "$v" lt "$SV" && { [[ -z $OLDV ]] || dpkg --compare-versions "$v" gt "$OLDV"; }; then
			OLD=${p#linux-image-} OLDV=$v
		fi
	done
	[[ -n $NEW ]] || die "$SUITE: no linux-image of linux-source-$LINE's version $SV"
	[[ -n $OLD || $SUITE == forky ]] || die "$SUITE: no linux-image of the $LINE line older than $SV"
	echo "  looked up: linux-source-$LINE $SV; older ABI ${OLD:-none} ($OLDV), newer ABI $NEW ($SV)"
	older=()
	[[ -z $OLD ]] || older=("linux-image-$OLD=$OLDV" "linux-headers-$OLD=$OLDV")
	# (forky: the kernel's headers bring libbpf1, libdw1t64, libelf1t64, which
	# systemd recommends, so that autoremove keeps them: in the root from the start)
	[[ $INITRD != dracut ]] || older+=(libbpf1 libdw1t64 libelf1t64)
	apt_root install dkms openssl "$INITRD" "${older[@]}" >>"$W/apt.log" 2>&1 ||
		{ tail -n 20 "$W/apt.log" >&2; die "apt-get install of the older kernel in the root failed"; }
	# trixie-backports' kernel (its linux-image-amd64's) and its linux-source
	BPK='' BPV=''
	if [[ $SUITE == trixie ]]; then
		BPV=$(versions linux-image-amd64 | grep '~bpo' | newest)
		for p in $(in_root apt-cache pkgnames linux-image- | grep -E '^linux-image-[0-9.]+\+deb13-amd64$'); do
			versions "$p" | grep -qxF "$BPV" && BPK=${p#linux-image-}
		done
		[[ -n $BPK ]] || die "$SUITE-backports: no linux-image of linux-image-amd64's version ${BPV:-(none)}"
		echo "  looked up: $SUITE-backports' kernel $BPK ($BPV)"
		# (its linux-base, which it pre-depends on, in the root from the start)
		apt_root install -t "$SUITE-backports" linux-base >>"$W/apt.log" 2>&1 ||
			{ tail -n 20 "$W/apt.log" >&2; die "apt-get install -t $SUITE-backports linux-base failed"; }
	fi
	# what the check installs later, in the root's apt cache (no network
	# then), and nothing else: the .debs of the installed packages go
	apt_root clean >>"$W/apt.log" 2>&1
	apt_root install --download-only "linux-image-$NEW=$SV" "linux-headers-$NEW=$SV" \
		"linux-source-$LINE=$SV" patch xz-utils "${BUILD_DEPS[@]}" >>"$W/apt.log" 2>&1 ||
		{ tail -n 20 "$W/apt.log" >&2; die "apt-get install --download-only of the newer kernel failed"; }
	[[ -z $BPK ]] || apt_root install --download-only -t "$SUITE-backports" "linux-image-$BPK=$BPV" "linux-headers-$BPK=$BPV" \
		"linux-source-${BPK%.*+*}=$BPV" >>"$W/apt.log" 2>&1 ||
		{ tail -n 20 "$W/apt.log" >&2; die "apt-get install --download-only of $SUITE-backports' kernel failed"; }
	rm -f "$W"/*-root.tar "$W"/*-root.tar.env
	tar -C "$R" -cf "$TARBALL.tmp" .
	{
		printf 'SV=%q\n' "$SV"
		printf 'NEW=%q\n' "$NEW"
		printf 'OLD=%q\n' "$OLD"
		printf 'OLDV=%q\n' "$OLDV"
		printf 'BPK=%q\n' "$BPK"
		printf 'BPV=%q\n' "$BPV"
		printf 'ROOT_FORMAT=%q\n' "$ROOT_FORMAT"
	} >"$TARBALL.env"
	mv "$TARBALL.tmp" "$TARBALL"
	# $R is the tarball's content: the check goes on in it
	echo "  root made in $((SECONDS - t0)) s: $TARBALL"
else
	t0=$SECONDS
	step "a fresh root from $TARBALL"
	rm -rf "$R"
	mkdir -p "$R"
	tar -C "$R" -xf "$TARBALL"
	echo "  extracted in $((SECONDS - t0)) s"
fi
# shellcheck source=/dev/null
. "$TARBALL.env" # SV NEW OLD OLDV BPK BPV ROOT_FORMAT
KOLD=$OLD KNEW=$NEW
# shellcheck disable=SC2016 # dpkg-query formats
echo "  $SUITE: $(in_root dpkg-query -W -f='${Package} ${Version}\n' dkms "$INITRD" ${KOLD:+"linux-image-$KOLD"} | paste -sd,); linux-source-$LINE $SV and linux-image-$KNEW in the apt cache"

# The root's files (and symlinks), with what may change aside: dpkg's and
# apt's own state, caches and logs.
file_list() {
	{
		# (a directory's size only grows: not compared)
		in_root find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp \
			-o -path /run -o -path /var/lib/dpkg -o -path /var/log -o -path /var/cache/apt \
			-o -path /var/lib/apt \) -prune \
			-o -type d -printf '%p %y - %m\n' -o -printf '%p %y %s %m\n' || die "find in the root failed"
		# shellcheck disable=SC2016 # expanded in the root
		in_root sh -c 'for d in /lib/modules/*/; do [ ! -d "$d" ] || (cd "$d" && sha256sum modules.* | sed "s|  |  $d|"); done' ||
			die "no modules.* in the root"
	} | LC_ALL=C sort
}
# where modinfo -k finds module $2 of kernel $1
resolve() { in_root modinfo -k "$1" -n "$2" 2>&1 || true; }
# the package's lines in an apt log
pkg_lines() { grep -E '^vfat-nolongcreate: ' "$1" || true; }
problems=()
# the /initrd.img links point at the kernels' (empty) initrds, as on a
# machine; a dangling one would go on a purge
for l in initrd.img initrd.img.old; do
	[[ -L $R/$l && ! -e $R/$l ]] && problems+=("root: /$l -> $(readlink "$R/$l"), which does not exist")
done
links=$(cd "$R" && for l in initrd.img initrd.img.old; do [[ ! -L $l ]] || printf ', /%s -> %s' "$l" "$(readlink "$l")"; done)
echo "  initrds: $(find "$R/boot" -name 'initrd.img-*' -printf '%f (%s bytes) ' | sed 's/ $//')$links"
file_list >"$W/files.before"
cp "$DEB" "$TOOLS_DEB" "$R/tmp/"

t0=$SECONDS
step "1. apt-get install ./${DEB##*/} (on the older ABI ${KOLD:-: none})"
rc=0
apt_root install "/tmp/${DEB##*/}" >"$W/1-install.log" 2>&1 || rc=$?
grep -E '^(Setting up|Unpacking) ' "$W/1-install.log" | sed 's/^/  | /'
pkg_lines "$W/1-install.log" | sed 's/^/  | /'
echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/1-install.log" >&2; problems+=("1: apt-get install of the package: exit $rc"); }
# shellcheck disable=SC2016 # a dpkg-query format
got=$(in_root dpkg-query -W -f='${Version}' "linux-source-$LINE" 2>/dev/null) || true
echo "  linux-source-$LINE pulled by the package's Depends: ${got:-not installed}"
[[ $got == "$SV" ]] || problems+=("1: the package's Depends did not bring linux-source-$LINE $SV (${got:-none})")
STOCK=/usr/lib/vfat-nolongcreate-dkms/stock
if [[ -n $KOLD ]]; then
	[[ $(pkg_lines "$W/1-install.log" | grep -c "not built for kernel $KOLD: ") == 1 ]] ||
		problems+=("1: not one line saying why nothing is built for $KOLD")
	got=$(resolve "$KOLD" vfat)
	echo "  modinfo -k $KOLD -n vfat: $got"
	[[ $got == "/lib/modules/$KOLD/kernel/fs/fat/vfat.ko"* ]] || problems+=("1: vfat of $KOLD resolves to $got")
	[[ ! -e $R$STOCK/$KOLD ]] || problems+=("1: copies of the stock modules of $KOLD, for which nothing was built: $(ls "$R$STOCK/$KOLD")")
else
	[[ -z $(pkg_lines "$W/1-install.log") ]] || problems+=("1: no kernel installed, yet the package said something")
fi

t0=$SECONDS
step "1b. apt-get install ./${TOOLS_DEB##*/}: fat83"
rc=0
apt_root install "/tmp/${TOOLS_DEB##*/}" >"$W/1b-tools.log" 2>&1 || rc=$?
grep -E '^(Setting up|Unpacking) ' "$W/1b-tools.log" | sed 's/^/  | /'
echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/1b-tools.log" >&2; problems+=("1b: apt-get install of the tools package: exit $rc"); }
got=$(in_root fat83 name "Benchy Final.gcode" 2>&1) || true
echo "  fat83 name 'Benchy Final.gcode': $got"
[[ $got == BENCHYFI.GCO ]] || problems+=("1b: fat83 name printed '$got', not BENCHYFI.GCO")
rc=0
got=$(in_root fat83 check /tmp 2>&1) || rc=$?
echo "  fat83 check /tmp (not FAT): exit $rc, $got"
[[ $rc == 2 ]] || problems+=("1b: fat83 check of a directory not on FAT: exit $rc, not 2")

t0=$SECONDS
step "2. apt-get install linux-image-$KNEW linux-headers-$KNEW (the kernel update)"
rc=0
apt_root install "linux-image-$KNEW" "linux-headers-$KNEW" >"$W/2-upgrade.log" 2>&1 || rc=$?
grep -E '^(Setting up|Unpacking|run-parts|update-initramfs|dkms|Autoinstall)' "$W/2-upgrade.log" | sed 's/^/  | /'
pkg_lines "$W/2-upgrade.log" | sed 's/^/  | /'
echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/2-upgrade.log" >&2; problems+=("2: apt-get install of the newer kernel: exit $rc"); }
pkg_lines "$W/2-upgrade.log" | grep -q "built and installed fat, vfat, msdos for kernel $KNEW " ||
	problems+=("2: no line saying the modules were built for $KNEW")
M=/lib/modules/$KNEW/updates/dkms
for m in fat vfat msdos; do
	got=$(resolve "$KNEW" "$m")
	ver=$(in_root modinfo -k "$KNEW" -F version "$m" 2>/dev/null || true)
	echo "  modinfo -k $KNEW $m: $got, version ${ver:--}"
	[[ $got == "$M/$m.ko"* && $ver == "$PKGVER" ]] || problems+=("2: $m of $KNEW is $got version ${ver:--}, not $M/$m.ko* version $PKGVER")
done
got=$(in_root modinfo -k "$KNEW" -F nlc_source fat 2>/dev/null || true)
echo "  modinfo -k $KNEW -F nlc_source fat: ${got:--}"
[[ $got == "linux-source-$LINE $SV" ]] || problems+=("2: fat of $KNEW records its fs/fat from ${got:-nothing}, not linux-source-$LINE $SV")
echo "  dkms status: $(in_root dkms status | paste -sd';')"
# the kernel hook's copies of the kernel's own modules, on the root
# filesystem: the files dkms left in kernel/fs/fat (3.0) or moved (3.2)
O=/var/lib/dkms/vfat-nolongcreate/original_module/$KNEW/x86_64
for m in fat vfat msdos; do
	orig=''
	for f in "$R/lib/modules/$KNEW/kernel/fs/fat/$m.ko"* "$R$O/$m.ko"*; do
		[[ -f $f ]] && { orig=$f; break; }
	done
	copy=''
	for f in "$R$STOCK/$KNEW/$m.ko"*; do [[ -f $f ]] && copy=$f; done
	echo "  $STOCK/$KNEW/${copy##*/}: $(if [[ -n $copy && -n $orig ]] && cmp -s "$copy" "$orig"; then echo "the same as ${orig#"$R"}"; else echo "NOT the kernel's own (${orig#"$R"})"; fi)"
	[[ -n $copy && -n $orig ]] && cmp -s "$copy" "$orig" ||
		problems+=("2: no copy of the kernel's own $m.ko of $KNEW in $STOCK/$KNEW, or not the same as ${orig:-none}")
done
[[ $(find "$R$STOCK/$KNEW" -type f 2>/dev/null | wc -l) == 3 ]] || problems+=("2: $STOCK/$KNEW holds other than 3 files")

if [[ -n $EXPORT && ${#problems[@]} == 0 ]]; then
	step "export of $KNEW for qemu-run.sh --distro-kernel: $EXPORT"
	rm -rf "$EXPORT"
	E=$EXPORT/$KNEW
	mkdir -p "$E/boot" "$E/modules"
	cp "$R/boot/vmlinuz-$KNEW" "$E/boot/"
	S=$R/lib/modules/$KNEW
	(cd "$S" && cp --parents modules.order modules.builtin modules.builtin.modinfo "$E/modules/")
	(cd "$S" && find kernel updates -name '*.ko*' \( -path 'updates/*' -o -name 'loop.ko*' -o -name 'nls_*.ko*' \
		-o -path 'kernel/fs/fat/*' \) -exec cp --parents {} "$E/modules/" \;)
	# ext4 and the modules it needs, for sigenforce-guest.sh's /var on a
	# disk of its own
	for f in $(in_root modprobe -S "$KNEW" --show-depends ext4 | awk '$1 == "insmod" { print $2 }'); do
		f=${f#/usr}
		(cd "$S" && cp --parents "${f#"/lib/modules/$KNEW/"}" "$E/modules/") || problems+=("export: cannot copy $f")
	done
	# dkms 3.2 (Debian 13) moves the kernel's own fat modules aside while
	# the package's are installed (and back on removal): the stock ones,
	# for --no-dkms and the vermagic check, from where it keeps them
	O=$R/var/lib/dkms/vfat-nolongcreate/original_module/$KNEW/x86_64
	for f in "$O"/*.origin; do
		[[ -e $f ]] || continue
		orig=$(cat "$f")
		mkdir -p "$E/modules/$(dirname "${orig#"/lib/modules/$KNEW/"}")"
		cp "${f%.origin}" "$E/modules/${orig#"/lib/modules/$KNEW/"}"
		echo "  ${orig#"/lib/modules/$KNEW/"}: the stock module, kept by dkms in ${O#"$R"}"
	done
	# the package's copies of the kernel's own (the guests install them
	# where the package's kernel hook made them)
	cp -a "$R$STOCK/$KNEW" "$E/stock"
	# the packages these modules are of: the guests install the tools
	# .deb of the same build
	cp "$DEB" "$TOOLS_DEB" "$EXPORT/"
	{
		printf 'PKGVER=%q\n' "$PKGVER"
		printf 'DEB=%q\n' "$EXPORT/${DEB##*/}"
		printf 'TOOLS_DEB=%q\n' "$EXPORT/${TOOLS_DEB##*/}"
		printf 'SUITE=%q\n' "$SUITE"
		printf 'KREL=%q\n' "$KNEW"
		printf 'KVERSION=%q\n' "$SV"
		printf 'LINE=%q\n' "$LINE"
	} >"$EXPORT/export.env"
	echo "  $(find "$E/modules" -name '*.ko*' | wc -l) modules, $(du -sk "$E" | cut -f1) KiB"
fi

t0=$SECONDS
step "2b. apt-get install --reinstall linux-source-$LINE: the package's trigger"
# A new linux-source-LINE (here the same one again) runs the package's
# hook for every kernel: the older one is refused again in one line, the
# newer one has its modules already and is left alone.
rc=0
apt_root install --reinstall "linux-source-$LINE" >"$W/2b-trigger.log" 2>&1 || rc=$?
grep -E '^Processing triggers for vfat' "$W/2b-trigger.log" | sed 's/^/  | /'
pkg_lines "$W/2b-trigger.log" | sed 's/^/  | /'
echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/2b-trigger.log" >&2; problems+=("2b: apt-get install --reinstall linux-source-$LINE: exit $rc"); }
grep -q '^Processing triggers for vfat-nolongcreate-dkms' "$W/2b-trigger.log" ||
	problems+=("2b: the package's trigger did not run")
[[ $(pkg_lines "$W/2b-trigger.log" | grep -c "not built for kernel ${KOLD:-(none)}: ") == $((${#KOLD} > 0)) &&
	$(pkg_lines "$W/2b-trigger.log" | grep -c "kernel $KNEW") == 0 ]] ||
	problems+=("2b: the trigger did not say one line for $KOLD and nothing for $KNEW")
got=$(resolve "$KNEW" vfat)
[[ $got == "/lib/modules/$KNEW/updates/dkms/vfat.ko"* ]] || problems+=("2b: vfat of $KNEW is $got after the trigger")

t0=$SECONDS
step "2c. dpkg-reconfigure vfat-nolongcreate-dkms on a kernel that enforces module signatures (NLC_SYSFS: a stand-in /sys with sig_enforce Y)"
# The kernel hook says so in one line (dkms's key cannot be checked: no
# mokutil in the root); the modprobe rule that then loads the kernel's own
# fat modules is installed.
mkdir -p "$R/tmp/sys/module/module/parameters"
echo Y >"$R/tmp/sys/module/module/parameters/sig_enforce"
rc=0
in_root env NLC_SYSFS=/tmp/sys DEBIAN_FRONTEND=noninteractive dpkg-reconfigure vfat-nolongcreate-dkms >"$W/2c-sigenforce.log" 2>&1 || rc=$?
rm -rf "$R/tmp/sys"
pkg_lines "$W/2c-sigenforce.log" | sed 's/^/  | /'
echo "  dpkg-reconfigure exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/2c-sigenforce.log" >&2; problems+=("2c: dpkg-reconfigure: exit $rc"); }
[[ $(pkg_lines "$W/2c-sigenforce.log" | grep -c "the running kernel loads only signed modules") == 1 ]] ||
	problems+=("2c: not one line saying that the running kernel loads only signed modules")
got=$(in_root sh -c 'test -x /usr/lib/vfat-nolongcreate-dkms/modprobe-fat && grep -c "^install \(fat\|vfat\|msdos\) .*/modprobe-fat " /usr/lib/modprobe.d/vfat-nolongcreate.conf' 2>&1) || true
echo "  /usr/lib/modprobe.d/vfat-nolongcreate.conf: install rules of fat, vfat, msdos: ${got:-none}"
[[ $got == 3 ]] || problems+=("2c: the modprobe rules of fat, vfat and msdos, or modprobe-fat, are not installed ($got)")

t0=$SECONDS
step "2d. $INITRD: an initramfs for $KNEW with vfat in it: what it holds"
IC=/tmp/nlc-initramfs
rm -rf "$R$IC"
mkdir -p "$R$IC/conf" "$R$IC/x"
rc=0
if [[ $INITRD == dracut ]]; then
	# its default modules (the package's by its check()) but the kernel's
	# drivers, and vfat; uncompressed, no microcode part: one cpio
	in_root dracut.real --force --no-hostonly --no-compress --no-early-microcode --omit "kernel-modules kernel-modules-extra" \
		--add-drivers vfat "$IC/initrd.img" "$KNEW" >"$W/2d-initramfs.log" 2>&1 || rc=$?
	# (dracut writes several cpio archives, one after the other)
	off=0
	while read -r end; do
		(cd "$R$IC/x" && cpio -idu --quiet < <(tail -c +$((off + 1)) "$R$IC/initrd.img")) || problems+=("2d: cannot unpack the initramfs")
		off=$(grep -abo 070701 "$R$IC/initrd.img" | awk -F: -v e="$end" '$1 > e && o == "" { o = $1 } END { print o }')
		[[ -n $off ]] || break
	done < <(grep -abo 'TRAILER!!!' "$R$IC/initrd.img" | cut -d: -f1)
	(cd "$R$IC/x" && find . | sed 's|^\./||') >"$W/2d-lsinitramfs.txt"
	X=$IC/x
else
	# A config directory of its own (the root's /etc stays as it was):
	# MODULES=list, vfat in its modules list, gzip.
	cp -a "$R/etc/initramfs-tools/." "$R$IC/conf/"
	sed -i -e 's/^MODULES=.*/MODULES=list/' -e 's/^COMPRESS=.*/COMPRESS=gzip/' "$R$IC/conf/initramfs.conf"
	echo vfat >>"$R$IC/conf/modules"
	in_root mkinitramfs -d "$IC/conf" -o "$IC/initrd.img" "$KNEW" >"$W/2d-initramfs.log" 2>&1 || rc=$?
	in_root lsinitramfs "$IC/initrd.img" >"$W/2d-lsinitramfs.txt" 2>&1 || problems+=("2d: lsinitramfs failed")
	in_root sh -c "cd $IC/x && unmkinitramfs $IC/initrd.img . && { [ ! -d main ] || cd main; } && pwd" >"$W/2d-unpack.txt" 2>&1 ||
		problems+=("2d: unmkinitramfs failed")
	X=$(tail -n 1 "$W/2d-unpack.txt")
fi
echo "  $INITRD exit status: $rc ($((SECONDS - t0)) s)"
[[ $rc == 0 ]] || { tail -n 30 "$W/2d-initramfs.log" >&2; problems+=("2d: $INITRD: exit $rc"); }
# what mkinitramfs copies for vfat (hook-functions' manual_add_modules)
echo "  modprobe --ignore-install --show-depends vfat: $(in_root modprobe -S "$KNEW" --ignore-install --show-depends vfat 2>&1 | paste -sd' ')"
for want in "usr/lib/modprobe.d/vfat-nolongcreate.conf" "usr/lib/modules/$KNEW/updates/dkms/vfat.ko" "usr/lib/modules/$KNEW/updates/dkms/fat.ko" \
	usr/lib/vfat-nolongcreate-dkms/modprobe-fat usr/sbin/insmod usr/sbin/modinfo usr/bin/flock \
	"usr/lib/vfat-nolongcreate-dkms/stock/$KNEW/fat.ko" "usr/lib/vfat-nolongcreate-dkms/stock/$KNEW/vfat.ko" \
	"usr/lib/vfat-nolongcreate-dkms/stock/$KNEW/msdos.ko"; do
	# (/lib, /sbin: links to usr/ in the initramfs, or not; .ko or .ko.xz)
	got=$(awk -v w="${want#usr/}" '{ p = $0; sub(/^usr\//, "", p); sub(/\.xz$/, "", p) } p == w { print; exit }' "$W/2d-lsinitramfs.txt")
	echo "  initramfs: ${got:-NO $want}"
	[[ -n $got ]] || problems+=("2d: the initramfs lacks $want")
done
# in the initramfs: the programs modprobe-fat runs, modinfo reading the
# package's vfat, and modprobe showing the rule
# (no /dev there: the paths command -v finds are printed)
# shellcheck disable=SC2016 # expanded in the initramfs
in_root chroot "$X" /bin/sh -c 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; for t in insmod modinfo flock uname cat rmmod; do command -v $t || echo "no $t"; done
	for f in /lib/modules/'"$KNEW"'/updates/dkms/vfat.ko*; do modinfo -F version "$f"; done' >"$W/2d-chroot.txt" 2>&1
rules=$(in_root chroot "$X" /usr/sbin/modprobe --showconfig 2>&1 | grep -c "^install \(fat\|vfat\|msdos\) .*/modprobe-fat ")
echo "  in the initramfs (chroot): the programs modprobe-fat runs there: $(head -n 6 "$W/2d-chroot.txt" | paste -sd' '); modinfo -F version of the package's vfat: $(tail -n +7 "$W/2d-chroot.txt" | paste -sd' '); install rules of fat, vfat, msdos: $rules"
[[ $(grep -c '^/' "$W/2d-chroot.txt") == 6 && $(tail -n +7 "$W/2d-chroot.txt") == "$PKGVER" && $rules == 3 ]] ||
	problems+=("2d: in the initramfs: not all of the programs modprobe-fat runs, or modinfo cannot read the package's vfat, or not 3 rules")
# the initramfs's files for sigenforce-guest.sh, which runs modprobe vfat
# in them (chroot) on a kernel that refuses the package's modules
if [[ -n $EXPORT && -f $EXPORT/export.env ]]; then
	cpio_of "$R$X" >"$EXPORT/$KNEW/initramfs.cpio" ||
		problems+=("2d: cannot write $EXPORT/$KNEW/initramfs.cpio")
	echo "  export: $KNEW/initramfs.cpio, $(du -k "$EXPORT/$KNEW/initramfs.cpio" | cut -f1) KiB"
fi
rm -rf "$R$IC"

if [[ -n $BPK ]]; then
	t0=$SECONDS
	BPSRC=linux-source-${BPK%.*+*}
	step "2e. apt-get install -t $SUITE-backports linux-image-$BPK linux-headers-$BPK (the backports kernel), then the owner's step: apt-get install $BPSRC=$BPV"
	rc=0
	apt_root install -t "$SUITE-backports" "linux-image-$BPK" "linux-headers-$BPK" >"$W/2e-backports.log" 2>&1 || rc=$?
	pkg_lines "$W/2e-backports.log" | sed 's/^/  | /'
	echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
	[[ $rc == 0 ]] || { tail -n 30 "$W/2e-backports.log" >&2; problems+=("2e: apt-get install of the backports kernel: exit $rc"); }
	[[ $(pkg_lines "$W/2e-backports.log" | grep -c "not built for kernel $BPK: .*apt install $BPSRC=$BPV") == 1 ]] ||
		problems+=("2e: not one line naming $BPSRC=$BPV for $BPK")
	rc=0
	apt_root install "$BPSRC=$BPV" >"$W/2e-source.log" 2>&1 || rc=$?
	pkg_lines "$W/2e-source.log" | sed 's/^/  | /'
	echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
	[[ $rc == 0 ]] || { tail -n 30 "$W/2e-source.log" >&2; problems+=("2e: apt-get install $BPSRC=$BPV: exit $rc"); }
	pkg_lines "$W/2e-source.log" | grep -q "built and installed fat, vfat, msdos for kernel $BPK " ||
		problems+=("2e: after the owner's step, no line saying the modules were built for $BPK")
	got=$(resolve "$BPK" vfat)
	echo "  modinfo -k $BPK -n vfat: $got"
	[[ $got == "/lib/modules/$BPK/updates/dkms/vfat.ko"* ]] || problems+=("2e: vfat of $BPK resolves to $got")
fi

t0=$SECONDS
step "3. a deliberately broken build: #error in the sources, apt-get install --reinstall linux-headers-$KNEW"
SRC=/usr/src/vfat-nolongcreate-$PKGVER
in_root dkms remove -m vfat-nolongcreate -v "$PKGVER" -k "$KNEW" >/dev/null 2>&1 || true
cp "$R$SRC/vfat_version.c" "$W/vfat_version.c.orig"
echo '#error deliberately broken by deb-check.sh' >>"$R$SRC/vfat_version.c"
rc=0
apt_root install --reinstall "linux-headers-$KNEW" >"$W/3-broken.log" 2>&1 || rc=$?
pkg_lines "$W/3-broken.log" | sed 's/^/  | /'
echo "  apt-get exit status: $rc ($((SECONDS - t0)) s)"
grep -h 'deliberately broken' "$R/var/lib/dkms/vfat-nolongcreate/$PKGVER/build/make.log" 2>/dev/null |
	head -n 1 | sed 's/^/  make.log: /' || true
[[ $rc == 0 ]] || { tail -n 30 "$W/3-broken.log" >&2; problems+=("3: apt-get install --reinstall with a broken build: exit $rc"); }
[[ $(pkg_lines "$W/3-broken.log" | grep -c "not built for kernel $KNEW: dkms install failed") == 1 ]] ||
	problems+=("3: not one line saying the build for $KNEW failed")
got=$(resolve "$KNEW" vfat)
echo "  modinfo -k $KNEW -n vfat: $got"
[[ $got == "/lib/modules/$KNEW/kernel/fs/fat/vfat.ko"* ]] || problems+=("3: vfat of $KNEW resolves to $got after a failed build")
cp "$W/vfat_version.c.orig" "$R$SRC/vfat_version.c"

t0=$SECONDS
step "4. apt-get purge of the newer kernel, then --autoremove vfat-nolongcreate-dkms vfat-nolongcreate-tools, then apt-get autoremove --purge"
# The modules are built again first (step 3 left none): the kernel's
# purge runs the package's postrm.d hook, which removes its copies.
in_root /usr/lib/vfat-nolongcreate-dkms/kernel-hook --headers "$KNEW" >/dev/null 2>&1
[[ -d $R$STOCK/$KNEW ]] || problems+=("4: no $STOCK/$KNEW after building again")
rc0=0
apt_root purge "linux-image-$KNEW" "linux-headers-$KNEW" ${BPK:+"linux-image-$BPK" "linux-headers-$BPK" "$BPSRC"} >"$W/4-purge.log" 2>&1 || rc0=$?
grep -E '^(Removing|Purging) ' "$W/4-purge.log" | sed 's/^/  | /'
[[ $rc0 == 0 ]] || { tail -n 30 "$W/4-purge.log" >&2; problems+=("4: apt-get purge of the newer kernel: exit $rc0"); }
echo "  $STOCK after the purge of $KNEW: $(find "$R$STOCK" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null | grep . || echo "none")"
[[ ! -e $R$STOCK/$KNEW ]] || problems+=("4: $STOCK/$KNEW is still there after the purge of $KNEW")
rc=0
apt_root purge --autoremove vfat-nolongcreate-dkms vfat-nolongcreate-tools >>"$W/4-purge.log" 2>&1 || rc=$?
grep -E '^(Removing|Purging) vfat' "$W/4-purge.log" | sed 's/^/  | /'
[[ $rc == 0 ]] || { tail -n 30 "$W/4-purge.log" >&2; problems+=("4: apt-get purge of the package: exit $rc"); }
# shellcheck disable=SC2016 # a dpkg-query format
status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' vfat-nolongcreate-dkms vfat-nolongcreate-tools 2>/dev/null || true)
echo "  dpkg status after purge: ${status:-not known to dpkg}"
[[ -z $status ]] || problems+=("4: dpkg still knows the packages after purge: $status")
rc2=0
apt_root autoremove --purge >>"$W/4-purge.log" 2>&1 || rc2=$?
echo "  apt-get exit status: $rc0, $rc, then $rc2 ($((SECONDS - t0)) s)"
[[ $rc2 == 0 ]] || { tail -n 30 "$W/4-purge.log" >&2; problems+=("4: apt-get autoremove --purge: exit $rc2"); }
file_list >"$W/files.after"
# dkms's own key for signing modules, made by its first build on a machine
# (not a file of this package; Secure Boot users enroll it, so it stays).
dkms_key='^/var/lib/dkms/mok\.(key|pub) '
LC_ALL=C comm -13 "$W/files.before" "$W/files.after" | grep -E "$dkms_key" | sed 's/^/  kept by dkms, its signing key: /' || true
if diff -u "$W/files.before" <(grep -vE "$dkms_key" "$W/files.after") >"$W/files.diff"; then
	echo "  file list after the purges = before step 1 ($(wc -l <"$W/files.before") paths)"
else
	sed 's/^/  | /' "$W/files.diff" | head -n 40
	problems+=("4: the purges left the root's file list changed (see above)")
fi
if [[ -n $KOLD ]]; then
	got=$(resolve "$KOLD" vfat)
	echo "  modinfo -k $KOLD -n vfat: $got"
	[[ $got == "/lib/modules/$KOLD/kernel/fs/fat/vfat.ko"* ]] || problems+=("4: vfat of $KOLD resolves to $got")
fi

if ((${#BUILD_DEPS[@]})); then
	t0=$SECONDS
	step "5. make deb on Debian $DEBVER: scripts/mkdeb.sh in the root, from ${DSC##*/}"
	rc=0
	apt_root install "${BUILD_DEPS[@]}" "linux-source-$LINE=$SV" patch xz-utils >"$W/5-mkdeb.log" 2>&1 || rc=$?
	rm -rf "$R/tmp/src" "$R/tmp/deb5"
	cp "$DSC" "${DSC%.dsc}.tar.xz" "$R/tmp/"
	[[ $rc != 0 ]] || in_root dpkg-source -x "/tmp/${DSC##*/}" /tmp/src >>"$W/5-mkdeb.log" 2>&1 || rc=$?
	# (the lines of another linux-source than this suite's: unchecked, as
	# without it; Debian's 7.2 takes the mainline line's series, patches/7.3)
	series=$LINE
	[[ $LINE != 7.2 ]] || series=7.3
	args=()
	read -ra lines < <(sed -n 's/^NLC_LINES := //p' "$R/tmp/src/debian/rules" 2>/dev/null)
	for l in "${lines[@]}"; do
		[[ $l == "$series" ]] || args+=(--unchecked "$l")
	done
	[[ $rc != 0 ]] || in_root /tmp/src/scripts/mkdeb.sh --out /tmp/deb5 "${args[@]}" >>"$W/5-mkdeb.log" 2>&1 || rc=$?
	grep -E '^mkdeb.sh: ' "$W/5-mkdeb.log" | sed 's/^/  | /'
	echo "  $(in_root gcc --version | head -n 1), lintian $(in_root lintian --version | awk '{ print $2 }'); exit status: $rc ($((SECONDS - t0)) s)"
	[[ $rc == 0 ]] || { tail -n 30 "$W/5-mkdeb.log" >&2; problems+=("5: make deb on Debian $DEBVER: exit $rc"); }
	[[ $(find "$R/tmp/deb5" -name 'vfat-nolongcreate-*.deb' 2>/dev/null | wc -l) == 2 ]] &&
		grep -q '^mkdeb.sh: lintian: 0 errors, 0 warnings$' "$W/5-mkdeb.log" ||
		problems+=("5: make deb on Debian $DEBVER: not two .debs, or lintian not 0 errors 0 warnings")
	grep -q "^mkdeb.sh: patches/$series: .* checked on linux-source-$LINE $SV\$" "$W/5-mkdeb.log" ||
		problems+=("5: make deb on Debian $DEBVER: patches/$series not checked on linux-source-$LINE $SV")
fi

if ((${#problems[@]})); then
	for p in "${problems[@]}"; do echo "$PROG: $p" >&2; done
	echo "deb-check $SUITE: FAILED ($((SECONDS - START)) s)"
	exit 1
fi
# the export is kept (--reuse-export) only if all of it held
[[ -z $EXPORT || ! -f $EXPORT/export.env ]] || printf 'EXPORT_KEY=%q\n' "$EXPORT_KEY" >>"$EXPORT/export.env"
rm -rf "$R" # 1-2 GB; the tarball stays
echo "deb-check $SUITE: ok in $((SECONDS - START)) s (${DEB##*/}: ${KOLD:+$KOLD refused in one line, }$KNEW built on upgrade, a broken build refused in one line, apt exit 0 throughout, purge leaves the root as it was)"
