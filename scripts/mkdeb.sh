#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh - make deb: the source package vfat-nolongcreate-dkms (this
# tree, debian/ at its top) and its two binary packages, built with
# dpkg-buildpackage in an export of the tree: vfat-nolongcreate-dkms (the
# fs/fat part of patches/LINE/series, which dkms applies on the user's
# machine to fs/fat of each kernel's own linux-source-LINE) and
# vfat-nolongcreate-tools (fat83, nolongcreate-card).
# Run ./scripts/mkdeb.sh --help for the options.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=scripts/lib/common.sh
. "$REPO/scripts/lib/common.sh"
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
# The kernel lines the package serves: debian/rules' NLC_LINES.
read -ra LINES < <(sed -n 's/^NLC_LINES := //p' "$REPO/debian/rules")
OUT=
REUSE=0
UPLOAD=0
TOOLS=0
# the lines not checked on linux-source-LINE (--unchecked, or not installable here)
declare -A UNCHECKED=()

usage() {
	cat <<EOF
usage: $PROG [--out DIR] [--reuse] [--unchecked LINE] [--upload] [--tools-only]

Exports the tree (git's files, uncommitted changes included; without git
history the directory as it is), fills in the builder's identity and the
upstream address (below) and runs dpkg-buildpackage -us -uc there: the
source package (.dsc and .tar.xz, the tree with debian/ at its top) and
the two .debs; lintian must report no error or warning.  debian/rules puts
the fs/fat C files' part of each patch of patches/LINE/series (lines
${LINES[*]}: debian/rules' NLC_LINES; dkms/series-diffs) into the DKMS
package.  First, for each line whose linux-source-LINE is installable here
(installed when missing, marked automatic), those diffs are checked on its
fs/fat: patch --fuzz=0 of them (what dkms/nlc-prepare does on the user's
machine) must give git apply's fs/fat of the series, and dkms/Kbuild.in's
object lists must be fs/fat/Makefile's.  A line without (Debian 13 has no
linux-source-6.1) is taken unchecked and the build says so; dkms checks
it on the user's machine.

Version: debian/changelog's.  In a git clone with commits to the package
since debian/changelog last changed, or uncommitted changes, it gets
+gitN (and .local) and a local entry on top of the changelog, in the
export only.  Without git history (a ZIP download) it is debian/changelog's.

Identity and addresses, from what the builder sets:
  DEBFULLNAME, DEBEMAIL  Maintainer and the changelog entry's identity
                (else git's user.name and user.email)
  NLC_COPYRIGHT debian/copyright's holder ("2026 Your Name <you@...>")
  NLC_UPSTREAM  the project's web address: Source, Homepage, Vcs-Browser
  NLC_VCS_GIT   its clone address, Vcs-Git (default NLC_UPSTREAM)
A local build takes what is set; --upload refuses a placeholder identity,
an unset NLC_COPYRIGHT or NLC_UPSTREAM, and changes that debian/changelog
has no entry for, each in one line saying what to set.

  --out DIR     where the .debs, .dsc, .tar.xz, .changes, .buildinfo and
                lintian.txt go (default: <cache>/deb-dkms)
  --reuse       keep the packages in DIR if made from the same inputs
  --unchecked LINE  do not check LINE on linux-source-LINE (repeatable)
  --upload      a build for upload (see above)
  --tools-only  only vfat-nolongcreate-tools (dpkg-buildpackage -B): no
                linux-source needed, no DKMS package, no source package

Prints the path of the tools .deb, then the DKMS .deb as its last line
(--tools-only: the tools .deb alone, in <cache>/deb-tools by default).
EOF
}


while (($#)); do
	case $1 in
	--out) [[ $# -ge 2 ]] || die "--out needs a directory"; OUT=$2; shift 2 ;;
	--reuse) REUSE=1; shift ;;
	--upload) UPLOAD=1; shift ;;
	--tools-only) TOOLS=1; shift ;;
	--unchecked)
		[[ " ${LINES[*]} " == *" ${2:-} "* ]] || die "--unchecked needs a line: ${LINES[*]}"
		UNCHECKED[$2]=1; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
OUT=${OUT:-$CACHE/deb-$([[ $TOOLS == 1 ]] && echo tools || echo dkms)}
((${#LINES[@]})) || die "debian/rules names no kernel line (NLC_LINES := ...)"
[[ $TOOLS == 0 || $UPLOAD == 0 ]] || die "--tools-only is not a build for upload (no source package)"
# the tools alone: no line's diffs checked, none packaged
if [[ $TOOLS == 1 ]]; then for l in "${LINES[@]}"; do UNCHECKED[$l]=1; done; fi

# -------------------------------------------------- identity, addresses ---
# the builder: DEBFULLNAME/DEBEMAIL (DEBEMAIL may be "Name <address>"),
# else git's user.name/user.email (never one git guesses)
git_cfg() { git -c safe.directory="$REPO" -C "$REPO" config "$1" 2>/dev/null || true; }
NAME=${DEBFULLNAME:-} EMAIL=${DEBEMAIL:-}
if [[ $EMAIL =~ ^(.*[^[:space:]])[[:space:]]*\<(.*)\>$ ]]; then
	NAME=${NAME:-${BASH_REMATCH[1]}} EMAIL=${BASH_REMATCH[2]}
fi
NAME=${NAME:-$(git_cfg user.name)} EMAIL=${EMAIL:-$(git_cfg user.email)}
SET_ID="set DEBFULLNAME=\"Your Name\" DEBEMAIL=you@your.domain (or git config user.name, user.email)"
SET_UP="set NLC_COPYRIGHT=\"$(date -u +%Y) Your Name <you@your.domain>\" and NLC_UPSTREAM=https://... (the project's published address; NLC_VCS_GIT if its clone address differs)"
if [[ $UPLOAD == 1 ]]; then
	# shellcheck source=scripts/identity.sh
	. "$REPO/scripts/identity.sh"
	[[ -n $NAME && -n $EMAIL ]] || die "--upload: no identity for Maintainer and debian/changelog; $SET_ID"
	why=$(placeholder_why "$NAME" "$EMAIL")
	[[ -z $why ]] || die "--upload: refusing '$NAME <$EMAIL>' as Maintainer: $why; $SET_ID"
	[[ -n ${NLC_COPYRIGHT:-} && -n ${NLC_UPSTREAM:-} ]] ||
		die "--upload: debian/copyright needs the copyright holder and the upstream address; $SET_UP"
fi

# ------------------------------------------------------------------ deps ---
need=()
deps=(dpkg-buildpackage:dpkg-dev /usr/share/build-essential/list:build-essential dh:debhelper lintian:lintian git:git
	xz:xz-utils patch:patch)
# the linux-source a line is checked on: its own; patches/7.3 also on
# Debian's 7.2 (forky, sid: no linux-source-7.3), as nlc-prepare builds it
src_of() { if [[ $1 == 7.3 ]]; then echo linux-source-7.3 linux-source-7.2; else echo "linux-source-$1"; fi; }
declare -A SRCPKG=()
srcneed=()
for l in "${LINES[@]}"; do
	[[ -n ${UNCHECKED[$l]:-} ]] && continue
	for p in $(src_of "$l"); do
		[[ -e /usr/src/$p.tar.xz ]] && SRCPKG[$l]=$p && break
	done
	[[ -n ${SRCPKG[$l]:-} ]] || srcneed+=("$l")
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
# make check's deb-checks run this at once: one apt-get at a time
apt_locked() { mkdir -p "$CACHE" && flock "$CACHE/.apt.lock" apt-get "$@" </dev/null >/dev/null; }
if ((${#need[@]} + ${#srcneed[@]})) && [[ $(id -u) == 0 ]]; then
	export DEBIAN_FRONTEND=noninteractive
	apt_locked update -q
fi
# a line none of whose linux-source this release has: unchecked
for l in "${srcneed[@]}"; do
	for p in $(src_of "$l"); do
		[[ -n $(apt-cache madison "$p" 2>/dev/null) ]] && SRCPKG[$l]=$p && need+=("$p") && break
	done
	[[ -n ${SRCPKG[$l]:-} ]] && continue
	UNCHECKED[$l]=1
	echo "$PROG: $(src_of "$l" | sed 's/ / or /'): not installable here; patches/$l's diffs are taken as they are, unchecked (checked by dkms on the user's machine)"
done
((TOOLS || ${#UNCHECKED[@]} < ${#LINES[@]})) ||
	die "no line checked: no linux-source of ${LINES[*]} is installable here (Debian 12 has 6.1, Debian 13 6.12, Debian 14 7.2)"
if ((${#need[@]})); then
	[[ $(id -u) == 0 ]] || die "missing packages: ${need[*]} (apt-get install --no-install-recommends ${need[*]})"
	echo "$PROG: installing: ${need[*]}"
	apt_locked install -y -q --no-install-recommends "${need[@]}"
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
	SRCVER[$l]=$(dpkg-query -W -f='${Version}' "${SRCPKG[$l]}" 2>/dev/null) ||
		die "${SRCPKG[$l]} is not installed"
done
CLVER=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version) || die "debian/changelog: dpkg-parsechangelog cannot read it"
PKGVER=$CLVER LOCAL=''
# git on the clone, also when it belongs to another user than the one this
# runs as (root by "su -": git's "dubious ownership" check), only for it
repo_git() { git -c safe.directory="$REPO" -C "$REPO" "$@"; }
GIT=0
if [[ -d $REPO/.git || -f $REPO/.git ]] && [[ $(repo_git rev-parse --is-shallow-repository 2>/dev/null) == false ]]; then
	GIT=1
	# what the package is made of; commits since debian/changelog last changed
	INPUTS=(debian dkms tools/fat83 tools/card scripts/mkdeb.sh scripts/identity.sh scripts/kernel-hook-test.sh
		tools/desktop docs/debian.md docs/card-owner.md docs/writers.md)
	for l in "${LINES[@]}"; do INPUTS+=("patches/$l"); done
	base=$(repo_git log -1 --format=%H -- debian/changelog)
	n=$(repo_git rev-list --count "${base:+$base..}HEAD" -- "${INPUTS[@]}")
	dirty=$(repo_git status --porcelain -- "${INPUTS[@]}")
	if [[ $n != 0 || -n $dirty ]]; then
		[[ $UPLOAD == 0 ]] ||
			die "--upload: debian/changelog's $CLVER has no entry for $n commit(s)${dirty:+ and uncommitted changes} to the package since: add one (dch -v VERSION) and commit it"
		PKGVER=$CLVER+git$n${dirty:+.local}
		LOCAL="$n commit(s) after $CLVER, $(repo_git rev-parse --short HEAD)${dirty:+, with uncommitted changes}"
	fi
elif [[ -e $REPO/.git ]]; then
	echo "$PROG: a shallow clone: the version is debian/changelog's, $CLVER, whatever came after it"
else
	echo "$PROG: no git history (a downloaded archive): the version is debian/changelog's, $CLVER"
fi
[[ $UPLOAD == 0 || $GIT == 1 ]] || die "--upload: no git history here, so no proof that debian/changelog covers the tree: build from a git clone"
# the newest Standards-Version the builder's lintian knows (debian/control's
# is lowered to it, not raised: a build on an older suite)
POLICY=$(grep -o '"version" *: *"[0-9.]*"' /usr/share/lintian/data/debian-policy/releases.json 2>/dev/null |
	grep -o '[0-9][0-9.]*' | sort -V | tail -n 1 | cut -d. -f1-3)

# ------------------------------------------------------------ the export --
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SRCNAME=vfat-nolongcreate-dkms
X=$TMP/$SRCNAME-$PKGVER
mkdir -p "$X"
if [[ $GIT == 1 ]]; then
	repo_git ls-files -z --cached --others --exclude-standard |
		(cd "$REPO" && while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done) |
		tar -C "$REPO" --null -T - -cf - | tar -xf - -C "$X" || die "cannot export the tree"
else
	(cd "$REPO" && tar -cf - --exclude=./.git .) | tar -xf - -C "$X" || die "cannot export the tree"
fi
# fill in who builds it and where the project is
sed_repl() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }
if [[ -n $NAME && -n $EMAIL ]]; then
	sed -i "s|^Maintainer: .*|Maintainer: $(sed_repl "$NAME <$EMAIL>")|" "$X/debian/control"
	# the identity of the changelog's top entry (the one released)
	sed -i "0,/^ -- .*>  /s|^ -- .*>  | -- $(sed_repl "$NAME <$EMAIL>")  |" "$X/debian/changelog"
fi
if [[ -n ${NLC_UPSTREAM:-} ]]; then
	printf 'Homepage: %s\nVcs-Browser: %s\nVcs-Git: %s\n' "$NLC_UPSTREAM" "$NLC_UPSTREAM" "${NLC_VCS_GIT:-$NLC_UPSTREAM}" >"$TMP/vcs"
	sed -i "/^Standards-Version: /r $TMP/vcs" "$X/debian/control"
fi
up=${NLC_UPSTREAM:-"not published yet: this package was built from a copy of the project's tree"}
holder=${NLC_COPYRIGHT:-"the vfat-nolongcreate authors (not named: a local build)"}
sed -i -e "s|@UPSTREAM@|$(sed_repl "$up")|" -e "s|@COPYRIGHT@|$(sed_repl "$holder")|" "$X/debian/copyright"
sv=$(sed -n 's/^Standards-Version: //p' "$X/debian/control")
if [[ -n $POLICY ]] && dpkg --compare-versions "$POLICY" lt "$sv"; then
	sed -i "s|^Standards-Version: .*|Standards-Version: $POLICY|" "$X/debian/control"
	echo "$PROG: Standards-Version $POLICY, the newest this lintian knows (debian/control: $sv)"
fi
if [[ -n $LOCAL ]]; then
	dist=$(dpkg-parsechangelog -l "$X/debian/changelog" -S Distribution)
	who=$(sed -n '0,/^ -- /s/^ -- \(.*>\)  .*/\1/p' "$X/debian/changelog")
	# HEAD's time, or just after the entry below
	t=$(dpkg-parsechangelog -l "$X/debian/changelog" -S Timestamp) h=$(repo_git log -1 --format=%ct)
	t=$((h > t ? h : t + 1))
	{
		echo "$SRCNAME ($PKGVER) $dist; urgency=medium"
		echo
		echo "  * Local build, not a release:"
		echo "    $LOCAL."
		echo
		echo " -- $who  $(date -R -u -d "@$t")"
		echo
		cat "$X/debian/changelog"
	} >"$TMP/changelog"
	mv "$TMP/changelog" "$X/debian/changelog"
fi

key=$( {
	echo "$PKGVER $UPLOAD $TOOLS $POLICY $(lintian --version 2>/dev/null)"
	for l in "${LINES[@]}"; do echo "$l ${SRCVER[$l]}"; done
	(cd "$X" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
} | sha256sum | cut -d' ' -f1) || die "cannot hash the package's inputs"
if [[ $REUSE == 1 && -f $OUT/package.env && $(cat "$OUT/package.key" 2>/dev/null) == "$key" ]]; then
	# shellcheck source=/dev/null
	. "$OUT/package.env"
	if [[ ($TOOLS == 1 || -f $DEB) && -f ${TOOLS_DEB:-} ]]; then
		echo "$PROG: inputs unchanged, package kept"
		echo "$TOOLS_DEB"
		[[ $TOOLS == 1 ]] || echo "$DEB"
		exit 0
	fi
fi

# -------------------------- the series' diffs, checked on linux-source --
declare -A NP=()
# the C files of fs/fat that the module build uses, as nlc-prepare copies
# them (not fat_test.c, the KUnit test)
ccopy() {
	mkdir -p "$2"
	find "$1" -maxdepth 1 -name '*.[ch]' ! -name fat_test.c -exec cp {} "$2/" \;
}
for LINE in "${LINES[@]}"; do
	D=$TMP/diffs/$LINE
	"$REPO/dkms/series-diffs" "$REPO/patches/$LINE" "$D" || die "dkms/series-diffs of patches/$LINE failed"
	NP[$LINE]=$(wc -l <"$D/series")
	[[ -z ${UNCHECKED[$LINE]:-} ]] || continue
	top=${SRCPKG[$LINE]}
	W=$TMP/$LINE
	mkdir -p "$W"
	tar -xJf "/usr/src/$top.tar.xz" -C "$W" "$top/Makefile" "$top/fs/fat"
	# the Makefile's version against the package's, as dkms/nlc-prepare (7.3~rc7: 7.3.0-rc7)
	kv=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 } END { print v "." p "." s e }' "$W/$top/Makefile")
	up=${SRCVER[$LINE]%%-*}
	[[ $up =~ ^([0-9]+\.[0-9]+)~(rc[0-9]+)$ ]] && up=${BASH_REMATCH[1]}.0-${BASH_REMATCH[2]}
	[[ $kv == "$up" ]] || die "/usr/src/$top.tar.xz is Linux $kv, but $top is ${SRCVER[$LINE]}"
	ccopy "$W/$top/fs/fat" "$W/pristine"
	# the series with git apply, the option series only (not ../fastpath*/)
	while read -r p; do
		[[ -z $p || $p == \#* || $p == */* ]] && continue
		(cd "$W" && git apply --directory="$top" --include="$top/fs/fat/*" \
			"$REPO/patches/$LINE/$p") 2>"$TMP/apply.err" ||
			die "patches/$LINE/$p does not apply to fs/fat of $top ${SRCVER[$LINE]}: $(cat "$TMP/apply.err")"
	done <"$REPO/patches/$LINE/series"
	# git apply skips what --include leaves out: check that fs/fat changed
	grep -q 'fat_short_name_shown' "$W/$top/fs/fat/dir.c" ||
		die "$LINE: fs/fat/dir.c was not patched (no fat_short_name_shown)"
	for f in inode.c namei_vfat.c; do
		grep -q 'nolongcreate' "$W/$top/fs/fat/$f" || die "$LINE: fs/fat/$f was not patched (no nolongcreate)"
	done
	# what nlc-prepare does on the user's machine: patch --fuzz=0 of the
	# package's diffs on the pristine fs/fat must give git apply's result
	while read -r p; do
		patch -d "$W/pristine" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch -s <"$D/$p" ||
			die "$LINE: patch --fuzz=0 of $p (dkms/series-diffs) fails on the pristine fs/fat"
	done <"$D/series"
	ccopy "$W/$top/fs/fat" "$W/patched"
	diff -r "$W/pristine" "$W/patched" >/dev/null ||
		die "$LINE: patch --fuzz=0 of the package's diffs does not give the series' fs/fat"
	# Kbuild.in lists fs/fat/Makefile's objects: they must still be these.
	for m in fat vfat msdos; do
		want=$(awk -v m="$m-y" '$1 == m && ($2 == ":=" || $2 == "+=" || $2 == "=") { for (i = 3; i <= NF; i++) print $i }' \
			"$W/$top/fs/fat/Makefile" | sort | paste -sd' ')
		have=$(awk -v m="$m-y" '$1 == m && $2 == ":=" { for (i = 3; i <= NF; i++) if ($i !~ /_version/) print $i }' \
			"$REPO/dkms/Kbuild.in" | sort | paste -sd' ')
		[[ $want == "$have" ]] || die "dkms/Kbuild.in: $m-y is '$have', fs/fat/Makefile of $LINE has '$want'"
	done
done

# ------------------------------------------------------------------ build --
# (no debug symbols package: the .changes names only the two .debs, which
# the docs' apt install vfat-nolongcreate-*.deb takes)
only=()
[[ $TOOLS == 0 ]] || only=(-B) # the arch-dependent package alone: the tools
(cd "$X" && DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc "${only[@]}") >"$TMP/build.log" 2>&1 ||
	{ grep -E '^(FAIL|not ok)' "$TMP/build.log" >&2; tail -n 30 "$TMP/build.log" >&2; die "dpkg-buildpackage failed (log: the lines above)"; }
deb=${SRCNAME}_${PKGVER}_all.deb
tdeb=vfat-nolongcreate-tools_${PKGVER}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[[ ($TOOLS == 1 || -f $TMP/$deb) && -f $TMP/$tdeb ]] || die "dpkg-buildpackage made no $deb or $tdeb"
[[ $TOOLS == 0 ]] || deb=
changes=$(ls "$TMP/${SRCNAME}_${PKGVER}"_*.changes)
lintian --fail-on error,warning --info "$changes" >"$TMP/lintian.txt" 2>&1 ||
	{ cat "$TMP/lintian.txt" >&2; die "lintian reports errors or warnings"; }

mkdir -p "$OUT"
rm -f "$OUT/${SRCNAME}"_* "$OUT"/vfat-nolongcreate-tools_* "$OUT/package.key"
cp "$TMP/${SRCNAME}_${PKGVER}"[._]* "$TMP/$tdeb" "$TMP/lintian.txt" "$TMP/build.log" "$OUT/"
{
	printf 'PKGVER=%q\n' "$PKGVER"
	printf 'DEB=%q\n' "${deb:+$OUT/$deb}"
	printf 'TOOLS_DEB=%q\n' "$OUT/$tdeb"
	printf 'DSC=%q\n' "${deb:+$OUT/${SRCNAME}_$PKGVER.dsc}"
} >"$OUT/package.env"
printf '%s\n' "$key" >"$OUT/package.key"
for l in "${LINES[@]}"; do
	if [[ $TOOLS == 1 ]]; then
		echo "$PROG: the tools package only (--tools-only), no DKMS package" && break
	elif [[ -n ${UNCHECKED[$l]:-} ]]; then
		echo "$PROG: patches/$l: ${NP[$l]} patches on fs/fat, NOT checked here (--unchecked, or no $(src_of "$l" | sed "s/ / or /")): dkms checks them on the user's machine"
	else
		echo "$PROG: patches/$l: ${NP[$l]} patches on fs/fat, checked on ${SRCPKG[$l]} ${SRCVER[$l]}"
	fi
done
echo "$PROG: $([[ $UPLOAD == 1 ]] && echo "for upload" || echo "a local build"), Maintainer: $(sed -n 's/^Maintainer: //p' "$X/debian/control"); source package: $([[ -n $deb ]] && echo "$OUT/${SRCNAME}_$PKGVER.dsc" || echo "none (--tools-only)")"
echo "$PROG: lintian: $(grep -c '^E: ' "$OUT/lintian.txt" || true) errors, $(grep -c '^W: ' "$OUT/lintian.txt" || true) warnings"
echo "$OUT/$tdeb"
[[ -z $deb ]] || echo "$OUT/$deb"
