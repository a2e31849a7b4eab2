#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh - build the DKMS package vfat-nolongcreate-dkms_<ver>_all.deb:
# the fs/fat part of patches/6.1, 6.12 and 7.3's series, which dkms
# applies, on the user's machine, to fs/fat of each kernel's own
# linux-source-LINE (dkms/nlc-prepare), for Debian 12, 13 and 14; and from the
# same source vfat-nolongcreate-tools_<ver>_<arch>.deb, the fat83 command
# (tools/fat83).
# Run ./scripts/mkdeb.sh --help for the options.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
# The series the package carries: Debian 12's 6.1, Debian 13's 6.12 (and
# Debian 12's bookworm-security 6.12), and the mainline line's 7.3, which
# nlc-prepare applies to Debian's 7.2 and 7.3.  The newest is the version's.
LINES=(6.1 6.12 7.3)
OUT=
REUSE=0
# the lines whose diffs are taken from patches/LINE as they are, not made
# and checked on linux-source-LINE (--unchecked, or not installable here)
declare -A UNCHECKED=()

usage() {
	cat <<EOF
usage: $PROG [--out DIR] [--reuse] [--unchecked LINE]

Generates the package from the series, never by hand: for each line
(${LINES[*]}) extracts fs/fat of this machine's Debian linux-source-LINE
(/usr/src/linux-source-LINE.tar.xz, installed when missing), applies the
fs/fat part of every patch of patches/LINE/series with git apply, one
patch at a time, and keeps each step as a diff of fs/fat's C files alone
(src/patches/LINE/NNNN-*.patch, with their series file; Kconfig, Makefile
and the KUnit test are not built by the package); checks that
patch --fuzz=0 of those diffs (what dkms/nlc-prepare does on the user's
machine) gives the same fs/fat as git apply, and that dkms/Kbuild.in's
object lists are fs/fat/Makefile's.  Adds dkms/ (Kbuild, dkms.conf,
nlc-prepare, the version files, the kernel hooks, debian/) and the fat83
command's sources (tools/fat83: built, its unit test run, and installed
as the second binary package, vfat-nolongcreate-tools) and builds the
packages with dpkg-buildpackage; lintian must report no error or warning.

A line whose linux-source-LINE this machine cannot install (Debian 13 has
no linux-source-6.1) is not checked here: its diffs are the fs/fat C files'
part of each patch of patches/LINE/series as it is (paths made relative
to fs/fat), and dkms/nlc-prepare's patch --fuzz=0 on the user's machine
is their first check; the build says so.  Where both sources are here,
these diffs are checked too (patch --fuzz=0 of them must give git
apply's fs/fat), so that this route is known to work.

The package carries no fs/fat: on the user's machine dkms/nlc-prepare takes
fs/fat of the kernel's own linux-source-LINE (its version must be the
kernel's linux-headers package's) and applies these diffs.

  --out DIR     where the .deb, .changes, .dsc and lintian.txt go
                (default: <cache>/deb-dkms)
  --reuse       keep the package in DIR if it was made from the same inputs
                (series, dkms/, this script, the linux-source versions)
  --unchecked LINE  take LINE's diffs from patches/LINE unchecked, as on a
                machine without linux-source-LINE (repeatable)

Prints the path of the tools .deb, then the DKMS .deb as its last line.
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

while (($#)); do
	case $1 in
	--out) [[ $# -ge 2 ]] || die "--out needs a directory"; OUT=$2; shift 2 ;;
	--reuse) REUSE=1; shift ;;
	--unchecked)
		[[ " ${LINES[*]} " == *" ${2:-} "* ]] || die "--unchecked needs a line: ${LINES[*]}"
		UNCHECKED[$2]=1; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
OUT=${OUT:-$CACHE/deb-dkms}

# ------------------------------------------------------------------ deps ---
need=()
deps=(dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian git:git xz:xz-utils patch:patch)
for l in "${LINES[@]}"; do
	[[ -n ${UNCHECKED[$l]:-} ]] || deps+=("/usr/src/linux-source-$l.tar.xz:linux-source-$l")
done
for d in "${deps[@]}"; do
	what=${d%:*} pkg=${d##*:}
	if [[ $what == /* ]]; then
		[[ -e $what ]] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	need+=("$pkg")
done
if ((${#need[@]})) && [[ $(id -u) == 0 ]]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null >/dev/null
fi
# a linux-source-LINE this release does not have: that line unchecked
left=()
for pkg in "${need[@]}"; do
	if [[ $pkg == linux-source-* && -z $(apt-cache madison "$pkg" 2>/dev/null) ]]; then
		l=${pkg#linux-source-}
		UNCHECKED[$l]=1
		echo "$PROG: $pkg: not installable here; patches/$l's diffs are taken as they are, unchecked (checked by dkms on the user's machine)"
	else
		left+=("$pkg")
	fi
done
need=("${left[@]}")
((${#UNCHECKED[@]} < ${#LINES[@]})) ||
	die "no line checked: none of linux-source-${LINES[*]} is installable here (Debian 12 has both, Debian 13 linux-source-6.12)"
if ((${#need[@]})); then
	[[ $(id -u) == 0 ]] || die "missing packages: ${need[*]} (apt-get install --no-install-recommends ${need[*]})"
	echo "$PROG: installing: ${need[*]}"
	apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null >/dev/null
	# only for this build: apt autoremove takes them away again (the
	# package keeps its own linux-source while it is installed)
	apt-mark auto "${need[@]}" >/dev/null
	echo "$PROG: marked as installed automatically (apt autoremove removes them once nothing needs them): ${need[*]}"
fi

# ---------------------------------------------------------------- versions --
declare -A SRCVER=()
for l in "${LINES[@]}"; do
	[[ -n ${UNCHECKED[$l]:-} ]] && SRCVER[$l]=unchecked && continue
	# shellcheck disable=SC2016 # a dpkg-query format
	SRCVER[$l]=$(dpkg-query -W -f='${Version}' "linux-source-$l" 2>/dev/null) ||
		die "linux-source-$l is not installed"
done
# What the package is made of: the series, dkms/, fat83, this script.
INPUTS=(dkms tools/fat83 tools/card scripts/mkdeb.sh)
for l in "${LINES[@]}"; do INPUTS+=("patches/$l"); done
# Debian native version: the newest line served, then the package's
# revision, the number of commits that changed what the package is made of
# (and ".local" for uncommitted changes), so that other content is another
# version (and one above the 6.1-only package's 6.1.192.3+nlcN); a shallow
# clone would count too few.
# git on the clone, also when it belongs to another user than the one this
# runs as: root by "su -" (git's "dubious ownership" check; under sudo git
# takes SUDO_UID's clone as safe), only for this clone
repo_git() { git -c safe.directory="$REPO" -C "$REPO" "$@"; }
shallow=$(repo_git rev-parse --is-shallow-repository 2>&1) ||
	die "$REPO: git cannot read it: ${shallow%%$'\n'*} (the version counts its commits: a git clone is needed)"
[[ $shallow == false ]] ||
	die "$REPO: a shallow clone (git fetch --unshallow): the version counts its commits"
REV=$(repo_git rev-list --count HEAD -- "${INPUTS[@]}")
[[ -z $(repo_git status --porcelain -- "${INPUTS[@]}") ]] || REV+=.local
PKGVER=${LINES[-1]}+nlc$REV
MAINT=$(repo_git log -1 --format='%an <%ae>' -- "${INPUTS[@]}")
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(repo_git log -1 --format=%ct -- "${INPUTS[@]}")
key=$( {
	echo "$PKGVER $MAINT $SOURCE_DATE_EPOCH"
	for l in "${LINES[@]}"; do echo "$l ${SRCVER[$l]}"; done
	# not the files git ignores (fat83's build products)
	(cd "$REPO" && repo_git ls-files -z --cached --others --exclude-standard -- "${INPUTS[@]}" |
		LC_ALL=C sort -z | xargs -0 sha256sum)
} | sha256sum | cut -d' ' -f1) || die "cannot hash the package's inputs"
if [[ $REUSE == 1 && -f $OUT/package.env && $(cat "$OUT/package.key" 2>/dev/null) == "$key" ]]; then
	# shellcheck source=/dev/null
	. "$OUT/package.env"
	if [[ -f $DEB && -f ${TOOLS_DEB:-} ]]; then
		echo "$PROG: inputs unchanged, package kept"
		echo "$TOOLS_DEB"
		echo "$DEB"
		exit 0
	fi
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pkg=$TMP/vfat-nolongcreate-dkms-$PKGVER
mkdir -p "$pkg/src" "$pkg/hooks" "$pkg/debian/source" "$pkg/fat83" "$pkg/card"

# --------------------------------------------- the series, as fs/fat diffs --
declare -A NP=()
# The C files of fs/fat that the module build uses, as nlc-prepare copies
# them (fs/fat/Kconfig and Makefile, and the KUnit test fat_test.c, are not
# built here): only their changes are kept.
ccopy() {
	mkdir -p "$2"
	find "$1" -maxdepth 1 -name '*.[ch]' ! -name fat_test.c -exec cp {} "$2/" \;
}
# from_series PATCH: the patch's diff of the C files of fs/fat the module
# build uses (not fat_test.c), paths relative to fs/fat (a/dir.c), as
# nlc-prepare applies them; hunks read by their line counts (a removed
# "- " line is "-- ", as format-patch's signature is)
from_series() {
	awk '
	function path(p) { sub(/^[ab]\/fs\/fat\//, substr(p, 1, 2), p); return p }
	old > 0 || new > 0 {
		if (keep) print
		c = substr($0, 1, 1)
		if (c == " ") { old--; new-- } else if (c == "-") old--; else if (c == "+") new--
		next
	}
	/^diff --git / {
		keep = $3 ~ /^a\/fs\/fat\/[^\/]+\.[ch]$/ && $3 != "a/fs/fat/fat_test.c"
		if (keep) print "diff --git " path($3) " " path($4)
		next
	}
	keep && /^(---|\+\+\+) / { print $1 " " path($2); next }
	keep && /^@@ / {
		split($2, o, ","); split($3, n, ",")
		old = (2 in o) ? o[2] : 1; new = (2 in n) ? n[2] : 1
		print; next
	}
	keep && /^\\/ { print; next }
	keep && /^(index|new file mode|deleted file mode|old mode|new mode) / { print }
	' "$1"
}
# series_diffs LINE DIR: from_series of each patch of patches/LINE/series
# that touches those files, as DIR/PATCH, their names in DIR/series
series_diffs() {
	local p
	mkdir -p "$2"
	while read -r p; do
		[[ -z $p || $p == \#* || $p == */* ]] && continue
		from_series "$REPO/patches/$1/$p" >"$2/$p"
		[[ -s $2/$p ]] || { rm "$2/$p"; continue; }
		echo "$p" >>"$2/series"
	done <"$REPO/patches/$1/series"
}

for LINE in "${LINES[@]}"; do
	top=linux-source-$LINE
	D=$pkg/src/patches/$LINE
	mkdir -p "$D"
	if [[ -n ${UNCHECKED[$LINE]:-} ]]; then
		series_diffs "$LINE" "$D"
		[[ -s $D/series ]] || die "no patch of patches/$LINE/series touches fs/fat"
		NP[$LINE]=$(wc -l <"$D/series")
		continue
	fi
	W=$TMP/$LINE
	mkdir -p "$W"
	tar -xJf "/usr/src/$top.tar.xz" -C "$W" "$top/Makefile" "$top/fs/fat"
	kv=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { print v "." p "." s }' "$W/$top/Makefile")
	[[ $kv == "${SRCVER[$LINE]%%-*}" ]] || die "/usr/src/$top.tar.xz is Linux $kv, but $top is ${SRCVER[$LINE]}"
	ccopy "$W/$top/fs/fat" "$W/pristine"
	cp -a "$W/pristine" "$W/fromseries"
	n=0
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		# the option series only: the 8.3 fast path (../fastpath*/), an
		# independent patch posted on its own, is not in the package
		[[ $p == */* ]] && continue
		grep -q '^diff --git a/fs/fat/' "$REPO/patches/$LINE/$p" || continue
		rm -rf "$W/a" "$W/b"
		ccopy "$W/$top/fs/fat" "$W/a"
		(cd "$W" && git apply --directory="$top" --include="$top/fs/fat/*" \
			"$REPO/patches/$LINE/$p") 2>"$TMP/apply.err" ||
			die "patches/$LINE/$p does not apply to fs/fat of $top ${SRCVER[$LINE]}: $(cat "$TMP/apply.err")"
		ccopy "$W/$top/fs/fat" "$W/b"
		rc=0
		(cd "$W" && LC_ALL=C diff -Nru a b) >"$D/$p" || rc=$?
		case $rc in
		0) rm "$D/$p"; continue ;; # Kconfig (or KUnit) only: nothing the module build uses
		1) ;;
		*) die "patches/$LINE/$p: diff of fs/fat failed (exit $rc)" ;;
		esac
		echo "$p" >>"$D/series"
		n=$((n + 1))
	done <"$REPO/patches/$LINE/series"
	((n > 0)) || die "no patch of patches/$LINE/series touches fs/fat"
	# git apply skips what --include leaves out (and, inside a git work
	# tree, paths outside it): check that fs/fat changed as the series says.
	grep -q 'fat_short_name_shown' "$W/$top/fs/fat/dir.c" ||
		die "$LINE: fs/fat/dir.c was not patched (no fat_short_name_shown)"
	for f in inode.c namei_vfat.c; do
		grep -q 'nolongcreate' "$W/$top/fs/fat/$f" || die "$LINE: fs/fat/$f was not patched (no nolongcreate)"
	done
	# What nlc-prepare does on the user's machine: patch --fuzz=0 of the
	# diffs on the pristine fs/fat must give git apply's result.
	while read -r p; do
		patch -d "$W/pristine" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch -s <"$D/$p" ||
			die "$LINE: patch --fuzz=0 of $p fails on the pristine fs/fat"
	done <"$D/series"
	ccopy "$W/$top/fs/fat" "$W/patched"
	diff -r "$W/pristine" "$W/patched" >/dev/null ||
		die "$LINE: patch --fuzz=0 of the diffs does not give the series' fs/fat"
	# The diffs a machine without linux-source-$LINE takes (--unchecked)
	# must give the same.
	series_diffs "$LINE" "$W/fromseries.d"
	while read -r p; do
		patch -d "$W/fromseries" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch -s <"$W/fromseries.d/$p" ||
			die "$LINE: patch --fuzz=0 of $p's fs/fat part as it is (what --unchecked takes) fails on the pristine fs/fat"
	done <"$W/fromseries.d/series"
	diff -r "$W/fromseries" "$W/patched" >/dev/null ||
		die "$LINE: the fs/fat part of the series as it is (what --unchecked takes) does not give the series' fs/fat"
	# Kbuild.in lists fs/fat/Makefile's objects: they must still be these.
	for m in fat vfat msdos; do
		want=$(awk -v m="$m-y" '$1 == m && ($2 == ":=" || $2 == "+=" || $2 == "=") { for (i = 3; i <= NF; i++) print $i }' \
			"$W/$top/fs/fat/Makefile" | sort | paste -sd' ')
		have=$(awk -v m="$m-y" '$1 == m && $2 == ":=" { for (i = 3; i <= NF; i++) if ($i !~ /_version/) print $i }' \
			"$REPO/dkms/Kbuild.in" | sort | paste -sd' ')
		[[ $want == "$have" ]] || die "dkms/Kbuild.in: $m-y is '$have', fs/fat/Makefile of $LINE has '$want'"
	done
	NP[$LINE]=$n
done

# ------------------------------------------------------------ the package --
cp "$REPO"/dkms/{Makefile,fat_version.c,vfat_version.c,msdos_version.c,nlc-prepare} "$pkg/src/"
cp "$REPO"/tools/fat83/{Makefile,fat83.c,fat83.1,suggest.c,suggest.h,suggest_test.c} "$pkg/fat83/"
cp "$REPO"/tools/card/{Makefile,nolongcreate-card,nolongcreate-card.8,61-vfat-nolongcreate.rules,99-zz-vfat-nolongcreate.rules} "$pkg/card/"
sed_repl() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }
subst() {
	sed -e "s|@PKG_VERSION@|$PKGVER|g" -e "s|@MAINTAINER@|$(sed_repl "$MAINT")|g" "$1"
}
subst "$REPO/dkms/Kbuild.in" >"$pkg/src/Kbuild"
subst "$REPO/dkms/dkms.conf.in" >"$pkg/src/dkms.conf"
subst "$REPO/dkms/kernel-hook" >"$pkg/hooks/kernel-hook"
cp "$REPO"/dkms/{etc-kernel-hook,modprobe-fat,modprobe.conf,initramfs-hook,dracut-module} "$pkg/hooks/"
chmod 755 "$pkg/hooks/kernel-hook" "$pkg/hooks/modprobe-fat" "$pkg/hooks/initramfs-hook" "$pkg/hooks/dracut-module" "$pkg/src/nlc-prepare"
subst "$REPO/dkms/debian/control.in" >"$pkg/debian/control"
subst "$REPO/dkms/debian/postinst.in" >"$pkg/debian/postinst"
subst "$REPO/dkms/debian/prerm.in" >"$pkg/debian/prerm"
cp "$REPO"/dkms/debian/{rules,copyright,postrm,triggers,vfat-nolongcreate-tools.postinst,vfat-nolongcreate-tools.postrm} "$pkg/debian/"
cp "$REPO/dkms/debian/source/format" "$pkg/debian/source/"
{
	echo "vfat-nolongcreate-dkms ($PKGVER) bookworm; urgency=medium"
	echo
	for l in "${LINES[@]}"; do
		if [[ -n ${UNCHECKED[$l]:-} ]]; then
			echo "  * patches/$l/series: the fs/fat part of ${NP[$l]} patches as they are,"
			echo "    not checked on a linux-source-$l at the build, for the kernels of"
			echo "    linux-source-$l."
		else
			echo "  * patches/$l/series: the fs/fat part of ${NP[$l]} patches, checked on"
			echo "    linux-source-$l ${SRCVER[$l]}, for the kernels of linux-source-$l."
		fi
	done
	echo "  * modprobe-fat, the modprobe rule of fat, vfat and msdos: the kernel's own"
	echo "    modules where the running kernel refuses the DKMS-built ones, from the"
	echo "    kernel hook's copies of them on the root filesystem (/usr/lib/...-dkms/"
	echo "    stock/KREL: dkms 3.2 moves them to /var); the initramfs-tools hook"
	echo "    and the dracut module copy modprobe-fat and those copies into the"
	echo "    initramfs."
	echo "  * vfat-nolongcreate-tools: fat83 (check, fix, undo, put, name,"
	echo "    supported) from tools/fat83; nolongcreate-card and its udev rule for"
	echo "    udisks2 from tools/card."
	echo
	echo " -- $MAINT  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} >"$pkg/debian/changelog"

# ------------------------------------------------------------------ build --
# (no debug symbols package: the .changes names only the two .debs, which
# the docs' apt install vfat-nolongcreate-*.deb takes)
(cd "$pkg" && DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -tc) >"$TMP/build.log" 2>&1 ||
	{ tail -n 30 "$TMP/build.log" >&2; die "dpkg-buildpackage failed"; }
deb=vfat-nolongcreate-dkms_${PKGVER}_all.deb
[[ -f $TMP/$deb ]] || die "dpkg-buildpackage made no $deb"
tdeb=vfat-nolongcreate-tools_${PKGVER}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[[ -f $TMP/$tdeb ]] || die "dpkg-buildpackage made no $tdeb"
changes=$(ls "$TMP"/vfat-nolongcreate-dkms_"$PKGVER"_*.changes)
lintian --fail-on error,warning --info "$changes" >"$TMP/lintian.txt" 2>&1 ||
	{ cat "$TMP/lintian.txt" >&2; die "lintian reports errors or warnings"; }

mkdir -p "$OUT"
rm -f "$OUT"/vfat-nolongcreate-dkms_* "$OUT"/vfat-nolongcreate-tools_* "$OUT"/vfat-nolongcreate-tools-dbgsym_* "$OUT/package.key"
cp "$TMP"/vfat-nolongcreate-dkms_"$PKGVER"* "$TMP/$tdeb" "$OUT/"
cp "$TMP/lintian.txt" "$TMP/build.log" "$OUT/"
{
	printf 'PKGVER=%q\n' "$PKGVER"
	printf 'DEB=%q\n' "$OUT/$deb"
	printf 'TOOLS_DEB=%q\n' "$OUT/$tdeb"
} >"$OUT/package.env"
printf '%s\n' "$key" >"$OUT/package.key"
for l in "${LINES[@]}"; do
	if [[ -n ${UNCHECKED[$l]:-} ]]; then
		echo "$PROG: patches/$l: ${NP[$l]} patches on fs/fat, NOT checked here (no linux-source-$l): dkms checks them on the user's machine"
	else
		echo "$PROG: patches/$l: ${NP[$l]} patches on fs/fat, checked on linux-source-$l ${SRCVER[$l]}"
	fi
done
echo "$PROG: lintian: $(grep -c '^E: ' "$OUT/lintian.txt" || true) errors, $(grep -c '^W: ' "$OUT/lintian.txt" || true) warnings"
echo "$OUT/$tdeb"
echo "$OUT/$deb"
