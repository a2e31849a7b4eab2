#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# submit.sh - make submission: the option series (patches/7.3/series but the
# fast path, with a cover letter) and the fast path as [RFC PATCH], each
# applied, built and checkpatch'ed on a mainline checkout (--tree) or on the
# pristine linux-source-7.3, written under <cache>/submission/ for git
# send-email.  --help for the options; docs/series.md for the checks.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
PROG=${0##*/}
# shellcheck source=scripts/lib/common.sh
. "$REPO/scripts/lib/common.sh"
export LC_ALL=C

LINE=7.3
PATCHDIR=$REPO/patches/$LINE
FASTDIR=$REPO/patches/fastpath
# a fast path left in patches/$LINE/series (v5's 0008) is not the option's
FASTPATH_PAT=fat-show-plain-ASCII-8.3-names
OPTION_SUBJECT="fat: add the nolongcreate mount option to vfat"
FASTPATH_SUBJECT="fat: show plain ASCII 8.3 names without the charset round trip"
# committer of the scratch commits git am makes (never in the patches)
NEUTRAL_NAME="vfat-nolongcreate runner"
NEUTRAL_EMAIL=runner@vfat-nolongcreate.invalid

CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
VERSION=1
DEBIAN_TAR=
MAINLINE=
# Beyond get_maintainer.pl (To: OGAWA Hirofumi, fat's maintainer; fat has
# no tree or list of its own in MAINTAINERS): Cc Andrew Morton, who has
# taken fat patches Hirofumi acked (e.g. 8cafcb881364, 2026), and the VFS
# maintainers and list, MAINTAINERS' "FILESYSTEMS (VFS and
# infrastructure)" M, R and L, which get_maintainer.pl does not name for
# fs/fat/ (its F: fs/* is the files in fs/ only).
EXTRA_TO=()
EXTRA_CC=("Andrew Morton <akpm@linux-foundation.org>" "Christian Brauner <brauner@kernel.org>"
	"Alexander Viro <viro@zeniv.linux.org.uk>" "Jan Kara <jack@suse.cz>"
	"linux-fsdevel@vger.kernel.org")
# User-space API changes are copied to linux-api (submitting-patches.rst):
# Cc it on the option's cover letter and on each patch that changes the
# documented mount options.
API_CC=linux-api@vger.kernel.org
API_DOC=Documentation/filesystems/vfat.rst

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Write the mainline patches as two postings for git send-email, From: and
Signed-off-by: you (your git identity: git config user.name / user.email,
or GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL):

  <cache>/submission/option/    patches/$LINE/series but the 8.3 fast path
                                (*$FASTPATH_PAT*), "[PATCH n/N]" with
                                a cover letter "$OPTION_SUBJECT"
                                (blurb: patches/$LINE/0000-cover-letter.patch)
  <cache>/submission/fastpath/  patches/fastpath/*.patch, the fast path as
                                "[RFC PATCH]" on the same base, on its own.
                                One patch goes alone, no cover letter: the
                                notes below its --- (how it meets the
                                series, the figures) are kept, on a first
                                posting too, with "It applies to <tag> on
                                its own." added.  A cover letter only for
                                several patches or with
                                patches/fastpath/0000-cover-letter.patch
                                (its blurb, else a built-in one).  Left
                                out, and said so, while patches/fastpath/
                                has no patch

The base, onto which the option series and the fast path are each applied
with plain git am:
  --tree DIR (make submission TREE=DIR)  the HEAD commit of DIR, a mainline
        checkout (a clone of torvalds/linux.git, or of the tree expected to
        take the series), read only: the patches are made in a scratch
        clone, <cache>/submission/tree-mainline, and written with git
        format-patch --base=<that commit>, so each posting ends with its
        base-commit: line; the cover letter names the commit's
        git describe.
  without --tree  the pristine linux-source-$LINE tree that ./qemu-run.sh
        --kernel $LINE keeps in <cache>/src/$LINE/linux (read only here),
        scratch clone <cache>/submission/tree.  It is a private import, so
        no base-commit: line; the cover letter (or a lone fast path's notes)
        names the upstream tag of the Debian version in use (v7.3-rc7 for
        7.3~rc7-1~exp1), and it is checked that Debian's patches leave the
        touched paths as that tag has them (below).  Said in one line.

Written by git format-patch --thread, To: the maintainers and Cc: the
reviewers and lists that the base tree's scripts/get_maintainer.pl names,
plus Cc: ${EXTRA_CC[*]}; and Cc: $API_CC on the option's
cover letter and on each patch that changes $API_DOC (the
user-space API).  A first posting carries no version notes:
neither the cover's "Changes in vN" sections nor the notes below an option
patch's ---; with --version N they are kept.  The fast path's notes are
kept on any posting (no "Changes in vN" in them on a first one).  Then
checked, each posting:
  - git am of the option series onto the base, and of the fast path onto
    the base alone, gives the tree of the base with the source patches
    applied;
  - fs/fat builds with W=1 and no warning (the config of a ./qemu-run.sh
    --kernel $LINE build in <cache>/build/$LINE/, fat_test.c included),
    and the selftests it touches compile (<cache>/submission/build);
  - checkpatch.pl --strict of the base tree: no error and no warning in
    any patch (the "does MAINTAINERS need updating?" warning passed over
    when MAINTAINERS covers every file a patch adds or deletes, as
    ./qemu-run.sh does);
  - no placeholder identity; with --tree the base-commit: line of the base
    and no prerequisite-patch-id: line, without it no
    base-commit/prerequisite-patch-id line and the tag named (in the cover
    letter, or below the --- of a fast path sent without one); the
    recipients above in every file;
and once, without --tree: the pristine tree's version is the tag's, and
none of the patches of Debian's source package (linux_<version>.debian.tar.xz,
from Debian's archive, checked against its Sources index:
scripts/debian-patches.sh) nor its Files-Excluded touches a path the
patches touch, so those paths are the tag's.

Options:
  --tree DIR        a mainline checkout to apply, build and base the
                    postings on (its HEAD); see above
  --version N       reroll count: git format-patch -v N, "[PATCH vN ...]"
                    (default: $VERSION)
  --debian-tar FILE Debian's linux_<version>.debian.tar.xz, fetched
                    elsewhere when Debian's pool does not serve it here
                    (still checked against the Sources index's SHA-256;
                    without --tree only)
  --cache DIR       cache dir (default: \${XDG_CACHE_HOME:-\$HOME/.cache}/vfat-nolongcreate)
  -h, --help        this text

Exit status: 0 written and checked; 1 a step or a check failed (the files
are then left in <cache>/submission/rejected/, not in option/ and
fastpath/); 2 bad usage, no usable git identity (placeholders such as the
repository's own "Seed ... maintainers" identity or addresses under
.example, .invalid, .test, .localhost or noreply are refused), no kernel
tree at --tree DIR, or no pristine tree without it (run ./qemu-run.sh
--kernel $LINE --check-series first).
EOF
}

die_usage() { die 2 "$* (see --help)"; }

while [[ $# -gt 0 ]]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--version)
		[[ $# -ge 2 ]] || die_usage "--version needs an argument"
		VERSION=$2
		shift 2
		;;
	--version=*) VERSION=${1#*=}; shift ;;
	--debian-tar)
		[[ $# -ge 2 ]] || die_usage "--debian-tar needs an argument"
		DEBIAN_TAR=$2
		shift 2
		;;
	--debian-tar=*) DEBIAN_TAR=${1#*=}; shift ;;
	--cache)
		[[ $# -ge 2 ]] || die_usage "--cache needs an argument"
		CACHE=$2
		shift 2
		;;
	--cache=*) CACHE=${1#*=}; shift ;;
	--tree)
		[[ $# -ge 2 ]] || die_usage "--tree needs an argument"
		MAINLINE=$2
		shift 2
		;;
	--tree=*) MAINLINE=${1#*=}; shift ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ $VERSION =~ ^[1-9][0-9]*$ ]] || die_usage "--version wants a positive number, not '$VERSION'"
[[ -n $CACHE ]] || die_usage "--cache wants a directory"
if [[ -n $DEBIAN_TAR ]]; then
	[[ -f $DEBIAN_TAR ]] || die_usage "--debian-tar: no file $DEBIAN_TAR"
	DEBIAN_TAR=$(cd "$(dirname "$DEBIAN_TAR")" && pwd -P)/${DEBIAN_TAR##*/}
fi
if [[ -n $MAINLINE ]]; then
	[[ -n $DEBIAN_TAR ]] && die_usage "--debian-tar is for Debian's tree, not with --tree"
	[[ -d $MAINLINE ]] || die 2 "--tree: no directory $MAINLINE"
	MAINLINE=$(cd "$MAINLINE" && pwd -P)
fi

# Not run from inside some other git command's environment.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_PREFIX

# ---------------------------------------------------------------- identity --
# The sender, as git itself would sign a commit in this repository:
# GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL, else user.name / user.email (else
# EMAIL); an identity git only guessed from the system is refused.
set_how="set yours with: git config user.name \"Your Name\"; git config user.email you@your.domain"
ident=$(git -C "$REPO" var GIT_AUTHOR_IDENT 2>/dev/null) ||
	die 2 "no git identity for the From: and Signed-off-by: lines; $set_how"
if [[ -z ${GIT_AUTHOR_EMAIL:-} && -z $(git -C "$REPO" config user.email || true) &&
	-z ${EMAIL:-} ]] || [[ -z ${GIT_AUTHOR_NAME:-} && -z $(git -C "$REPO" config user.name || true) ]]; then
	die 2 "no git identity set (git would guess '${ident% * *}' from the system); $set_how"
fi
[[ $ident =~ ^(.*)\ \<([^\<\>]*)\>\ [0-9]+\ [-+][0-9]{4}$ ]] ||
	die 2 "cannot read the git identity '$ident'; $set_how"
SENDER_NAME=${BASH_REMATCH[1]}
SENDER_EMAIL=${BASH_REMATCH[2]}
SENDER="$SENDER_NAME <$SENDER_EMAIL>"
# shellcheck source=scripts/identity.sh
. "$REPO/scripts/identity.sh"
why=$(placeholder_why "$SENDER_NAME" "$SENDER_EMAIL")
[[ -z $why ]] ||
	die 2 "refusing to sign the patches as '$SENDER': $why; $set_how (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)"
# From here on git takes identities only from what this script passes.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE EMAIL

# ------------------------------------------------------------------- paths --
SRC_HINT="run ./qemu-run.sh --kernel $LINE --check-series first"
if [[ -n $MAINLINE ]]; then
	mkdir -p "$CACHE"
else
	[[ -d $CACHE ]] || die 2 "no cache dir $CACHE (no pristine linux-source-$LINE tree); $SRC_HINT"
fi
CACHE=$(cd "$CACHE" && pwd -P)
case $CACHE/ in
"$REPO"/*) die_usage "the cache dir must not be inside the repository ($CACHE)" ;;
esac
OUT=$CACHE/submission
if [[ -n $MAINLINE ]]; then
	# A mainline checkout: its HEAD commit is the base (its working tree,
	# index and branches are not touched).
	SRC=$MAINLINE
	PRISTINE=$(git -C "$SRC" rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null) ||
		die 2 "--tree $SRC: not a git checkout with a HEAD commit (clone https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git)"
	for f in scripts/checkpatch.pl scripts/get_maintainer.pl fs/fat/namei_vfat.c; do
		git -C "$SRC" cat-file -e "$PRISTINE:$f" 2>/dev/null ||
			die 2 "--tree $SRC: its HEAD is not a kernel tree (no $f)"
	done
	TREE=$OUT/tree-mainline
	# how the cover letter names the base: its git describe (v7.3-rc7, or
	# v7.3-rc7-123-g0123456789ab), else the commit
	TAG=$(git -C "$SRC" describe --tags --abbrev=12 "$PRISTINE" 2>/dev/null) ||
		TAG=$(git -C "$SRC" rev-parse --short=12 "$PRISTINE")
	SRCVER=
	BASEDESC="the mainline checkout $SRC at $TAG (${PRISTINE:0:12})"
else
	SRC=$CACHE/src/$LINE/linux
	TREE=$OUT/tree
	PRISTINE=$(git -C "$SRC" rev-parse -q --verify 'pristine^{commit}' 2>/dev/null) ||
		die 2 "no pristine linux-source-$LINE tree (git tag 'pristine' in $SRC); $SRC_HINT"
	git -C "$SRC" cat-file -e "$PRISTINE:scripts/checkpatch.pl" 2>/dev/null ||
		die 2 "$SRC is not a kernel tree; $SRC_HINT"
	# The Debian version the pristine tree was extracted from (the last
	# field of the stamp ./qemu-run.sh writes), and the upstream tag of its
	# upstream part: 7.3~rc7-1~exp1 -> v7.3-rc7, 7.3.2-1 -> v7.3.2.
	SRCVER=$(awk '{ print $NF }' "$CACHE/src/$LINE/pristine.stamp" 2>/dev/null || true)
	[[ -n $SRCVER ]] || die 2 "no $CACHE/src/$LINE/pristine.stamp (the Debian version of the tree); $SRC_HINT"
	upver=${SRCVER#*:}
	upver=${upver%-*}
	TAG=v${upver//\~/-}
	BASEDESC="Debian's linux-source-$LINE $SRCVER (upstream $TAG)"
	echo "$PROG: no TREE= (--tree): applying, building and checking on $BASEDESC, not on a mainline checkout; the postings name $TAG and carry no base-commit:"
fi

# ------------------------------------------------------------------ series --
[[ -f $PATCHDIR/series ]] || die 1 "no patches/$LINE/series"
OPTION=()
while IFS= read -r l || [[ -n $l ]]; do
	l=${l%%#*}
	l=${l//[[:space:]]/}
	[[ -z $l ]] && continue
	[[ -f $PATCHDIR/$l ]] || die 1 "patches/$LINE/series names $l, which does not exist"
	if [[ $l == *"$FASTPATH_PAT"* ]]; then
		echo "$PROG: leaving patches/$LINE/$l out of the option series (the fast path is posted from patches/fastpath/)"
		continue
	fi
	OPTION+=("$PATCHDIR/$l")
done <"$PATCHDIR/series"
[[ ${#OPTION[@]} -ge 1 ]] || die 1 "patches/$LINE/series has no patch besides the fast path"
FASTPATH=()
for p in "$FASTDIR"/*.patch; do
	[[ -e $p && ${p##*/} != 0000-cover-letter.patch ]] && FASTPATH+=("$p")
done
SERIESNAMES=(option)
# A cover letter for the fast path only when it is more than one patch or
# has a hand-written one: a [PATCH 0/1] is unusual, the notes below the
# patch's --- say what a cover would.
FAST_COVER=0
if [[ ${#FASTPATH[@]} -gt 1 || -f $FASTDIR/0000-cover-letter.patch ]]; then
	FAST_COVER=1
fi
if [[ ${#FASTPATH[@]} -gt 0 ]]; then
	SERIESNAMES+=(fastpath)
else
	echo "$PROG: no patches/fastpath/*.patch: the fast path is not written this time"
fi

# -------------------------------------------------------------- scratch tree --
mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock -n 9 || die 1 "another $PROG is using $OUT"
LOG=$OUT/submit.log
: >"$LOG"
STEP=

# fail MESSAGE...: a step failed; the log's tail and exit 1.
fail() {
	printf '%s: %s%s\n' "$PROG" "${STEP:+$STEP: }" "$*" >&2
	if [[ -s $LOG ]]; then
		echo "  log: $LOG; its last 20 lines:" >&2
		tail -n 20 "$LOG" | sed 's/^/  | /' >&2
	fi
	exit 1
}
trap 'fail "unexpected failure (line $LINENO)"' ERR

# run CMD...: with its output in the log.
run() {
	printf '+ %s\n' "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1
}

# git in the scratch clone: no user or system config (no hooks, am.*,
# format.* settings of the user's), the neutral committer.
git_t() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$TREE" \
		-c user.name="$NEUTRAL_NAME" -c user.email="$NEUTRAL_EMAIL" \
		-c advice.detachedHead=false -c gc.auto=0 -c core.hooksPath=/dev/null "$@"
}

# A clone of $SRC sharing its objects (git clone --shared); reused while it
# is a clone of $SRC that has the base commit (Debian's tree: as its tag
# pristine).
STEP="scratch tree"
scratch_ok() {
	[[ -d $TREE/.git ]] &&
		[[ $(git_t config --get remote.origin.url 2>/dev/null || true) == "$SRC" ]] &&
		git_t cat-file -e "$PRISTINE^{commit}" 2>/dev/null || return 1
	[[ -n $MAINLINE ]] ||
		[[ $(git_t rev-parse -q --verify 'pristine^{commit}' 2>/dev/null || true) == "$PRISTINE" ]]
}
if scratch_ok; then
	echo "  scratch tree $TREE reused" >>"$LOG"
else
	echo "$PROG: cloning $SRC into $TREE (once)"
	rm -rf "$TREE"
	run git clone -q --shared --no-checkout --template= "$SRC" "$TREE" ||
		fail "git clone --shared $SRC failed"
	scratch_ok || fail "the clone $TREE of $SRC has not the base commit $PRISTINE"
fi

reset_tree() {
	if [[ -d $TREE/.git/rebase-apply ]]; then
		git_t am --abort >>"$LOG" 2>&1 || true
	fi
	run git_t checkout -q -f --detach "$PRISTINE" || fail "git checkout of the base $PRISTINE failed"
	run git_t clean -fdxq || fail "git clean failed"
}

# am NAME PATCH...: git am onto HEAD, aborted on failure.
am() {
	local what=$1 p
	shift
	for p in "$@"; do
		if ! run git_t am -q --committer-date-is-author-date "$p"; then
			git_t am --abort >>"$LOG" 2>&1 || true
			fail "$what: ${p#"$REPO"/} does not apply (git am failed)"
		fi
	done
}

# ---------------------------------------------------------------- commits --
# make_commits NAME BASE PATCH...: the patches git am'd onto BASE (the base
# tree's commit), then each
# commit again with the sender as author (and committer), its
# author date kept, and the patch author's Signed-off-by replaced by the
# sender's; nothing else in the message changes.  Sets REF[NAME] (the tree)
# and TIP[NAME].
TMP=$(mktemp -d "$OUT/tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
declare -A REF TIP
make_commits() {
	local name=$1 base=$2 c aline orig adate parent=$2
	shift 2
	STEP="commits ($name)"
	reset_tree
	am "$name series on the base" "$@"
	REF[$name]=$(git_t rev-parse 'HEAD^{tree}')
	mapfile -t COMMITS < <(git_t rev-list --reverse "$base..HEAD")
	[[ ${#COMMITS[@]} -eq $# ]] || fail "git am made ${#COMMITS[@]} commits of $# patches"
	for c in "${COMMITS[@]}"; do
		git_t cat-file commit "$c" >"$TMP/raw"
		aline=$(sed -n '/^author /{p;q}' "$TMP/raw")
		[[ $aline =~ ^author\ (.*\ \<[^\<\>]*\>)\ ([0-9]+\ [-+][0-9]{4})$ ]] ||
			fail "cannot read the author of $c"
		orig=${BASH_REMATCH[1]} adate=${BASH_REMATCH[2]}
		sed '1,/^$/d' "$TMP/raw" >"$TMP/msg"
		awk -v old="Signed-off-by: $orig" -v new="Signed-off-by: $SENDER" '
			$0 == old { print new; n++; next }
			{ print }
			END { exit n == 0 }' "$TMP/msg" >"$TMP/msg.new" ||
			fail "$(git_t log -1 --format=%s "$c"): no 'Signed-off-by: $orig' to replace"
		[[ $(grep -cxF "Signed-off-by: $SENDER" "$TMP/msg.new") == 1 ]] ||
			fail "$(git_t log -1 --format=%s "$c"): not one 'Signed-off-by: $SENDER' after the rewrite"
		parent=$(GIT_AUTHOR_NAME=$SENDER_NAME GIT_AUTHOR_EMAIL=$SENDER_EMAIL GIT_AUTHOR_DATE="@$adate" \
			GIT_COMMITTER_NAME=$SENDER_NAME GIT_COMMITTER_EMAIL=$SENDER_EMAIL GIT_COMMITTER_DATE="@$adate" \
			git_t commit-tree "$c^{tree}" -p "$parent" -F "$TMP/msg.new") ||
			fail "git commit-tree failed"
	done
	TIP[$name]=$parent
	run git_t update-ref "refs/heads/submission-$name" "$parent"
}
make_commits option "$PRISTINE" "${OPTION[@]}"
if [[ ${#FASTPATH[@]} -gt 0 ]]; then
	make_commits fastpath "$PRISTINE" "${FASTPATH[@]}"
fi

# ----------------------------------------------------------- format-patch --
# A first posting has no version: "[PATCH 0/7]", 0000-cover-letter.patch.
VARGS=() VPFX=
if [[ $VERSION != 1 ]]; then
	VARGS=(-v "$VERSION") VPFX=v$VERSION-
fi
# has_cover NAME: whether posting NAME gets a cover letter.
has_cover() { [[ $1 == option || $FAST_COVER == 1 ]]; }

# format_patch NAME DIR RANGE [ARGS...]: the cover letter's From: is the
# committer, hence the sender here too.  The fast path is an RFC; on a
# mainline checkout each posting names its base (base-commit:).
format_patch() {
	local name=$1 dir=$2 range=$3 cover=--cover-letter base=--no-base rfc=()
	shift 3
	has_cover "$name" || cover=--no-cover-letter
	[[ -n $MAINLINE ]] && base=--base=$PRISTINE
	[[ $name == fastpath ]] && rfc=(--rfc)
	rm -rf "$dir"
	GIT_COMMITTER_NAME=$SENDER_NAME GIT_COMMITTER_EMAIL=$SENDER_EMAIL \
		run git_t format-patch -q "$cover" --thread "$base" "${rfc[@]}" \
		"${VARGS[@]}" -o "$dir" "$@" "$range" ||
		fail "git format-patch $range failed"
}

# the patches (not the cover letter) of a format-patch dir, in order
patches_in() {
	local f
	for f in "$1"/*.patch; do
		[[ -e $f && ${f##*/} != *0000-cover-letter.patch ]] && printf '%s\n' "$f"
	done
	return 0
}

# recipients DIR: "--to=..." and "--cc=..." lines for the patches in DIR:
# To the maintainers, Cc the reviewers and lists, per get_maintainer.pl of
# the tree (no git history, no network), and EXTRA_TO / EXTRA_CC; each
# address once, a person already in To (by name or address) and the sender
# left out of Cc.
recipients() {
	local files=() gm=(perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback)
	mapfile -t files < <(patches_in "$1")
	(cd "$TREE" && "${gm[@]}" --m --no-r --no-l "${files[@]}") >"$TMP/to" 2>>"$LOG" ||
		fail "scripts/get_maintainer.pl (maintainers) failed"
	(cd "$TREE" && "${gm[@]}" --no-m --r --l "${files[@]}") >"$TMP/cc" 2>>"$LOG" ||
		fail "scripts/get_maintainer.pl (reviewers, lists) failed"
	printf '%s\n' "${EXTRA_TO[@]}" >>"$TMP/to"
	printf '%s\n' "${EXTRA_CC[@]}" >>"$TMP/cc"
	awk -v me="${SENDER_EMAIL,,}" '
		function addr(s) { if (match(s, /<[^>]*>/)) s = substr(s, RSTART + 1, RLENGTH - 2); return tolower(s) }
		function name(s) { if (!match(s, / *<[^>]*>/)) return ""; return substr(s, 1, RSTART - 1) }
		/^[ \t]*$/ { next }
		FNR == NR { if (addr($0) == me || (addr($0) in to_a)) next
			to_a[addr($0)] = 1; if (name($0) != "") to_n[name($0)] = 1
			print "--to=" $0; next }
		{ a = addr($0); n = name($0)
		  if (a == me || (a in to_a) || (n != "" && (n in to_n)) || (a in cc)) next
		  cc[a] = 1; print "--cc=" $0 }' "$TMP/to" "$TMP/cc"
}

# api_patch FILE: is FILE the cover letter or a patch that changes the
# documented user-space API (API_DOC)?
api_patch() {
	[[ $1 == *0000-cover-letter.patch ]] || grep -qF "diff --git a/$API_DOC " "$1"
}

# api_cc DIR: a "Cc: $API_CC" header in each api_patch of DIR
api_cc() {
	local f
	for f in "$1"/*.patch; do
		api_patch "$f" || continue
		awk -v cc="Cc: $API_CC" '!done && /^Subject: / { print cc; done = 1 } { print }' \
			"$f" >"$f.new" && mv "$f.new" "$f"
	done
}

# fill_cover COVER SUBJECT BLURBFILE: the *** SUBJECT HERE *** and
# *** BLURB HERE *** of a format-patch cover letter; the Subject: header
# folded at 78 columns as git folds it, MIME headers when the blurb is not
# plain ASCII.
fill_cover() {
	local cover=$1 subject=$2 blurb=$3 mime=0
	if ! grep -qxF '*** BLURB HERE ***' "$cover" || ! grep -qF '*** SUBJECT HERE ***' "$cover"; then
		fail "${cover##*/}: no *** SUBJECT HERE *** / *** BLURB HERE *** to fill"
	fi
	if grep -q '[^[:print:][:space:]]' "$blurb"; then
		mime=1
	fi
	awk -v subject="$subject" -v blurbfile="$blurb" -v mime="$mime" '
		function fold(s,   out, cut, i) {
			out = ""
			while (length(s) > 78) {
				cut = 0
				for (i = 78; i > 1; i--) if (substr(s, i, 1) == " ") { cut = i; break }
				if (!cut) break
				out = out substr(s, 1, cut - 1) "\n"
				s = " " substr(s, cut + 1)
			}
			return out s
		}
		!body && /^Subject: / {
			i = index($0, "*** SUBJECT HERE ***")
			if (i) $0 = substr($0, 1, i - 1) subject substr($0, i + 20)
			print fold($0); insubj = 1; next
		}
		!body && insubj && /^[ \t]/ { print; next }
		!body { insubj = 0 }
		!body && /^Content-Type:/ { hasmime = 1 }
		!body && /^$/ {
			body = 1
			if (mime && !hasmime) {
				print "MIME-Version: 1.0"
				print "Content-Type: text/plain; charset=UTF-8"
				print "Content-Transfer-Encoding: 8bit"
			}
		}
		body && $0 == "*** BLURB HERE ***" {
			while ((getline l < blurbfile) > 0) print l
			close(blurbfile); next
		}
		{ print }' "$cover" >"$cover.new" && mv "$cover.new" "$cover"
	if grep -qF -e '*** SUBJECT HERE ***' -e '*** BLURB HERE ***' "$cover"; then
		fail "${cover##*/}: left unfilled"
	fi
}

# notes_of PATCH: a patch file's notes, between the --- under its message
# and its diffstat (or a second ---, or the diff): git am drops them.
notes_of() {
	awk 'hdr == 0 { if (/^$/) hdr = 1; next }
		!sep { if ($0 == "---") sep = 1; next }
		$0 == "---" || /^ [^ ].* +\| +[0-9]+/ || /^ [0-9]+ files? changed/ || /^diff --git / { exit }
		{ l[++n] = $0; if (/[^ \t]/) last = n }
		END { for (i = 1; i <= last; i++) print l[i] }' "$1"
}

# put_notes SRC OUTFILE [LINE]: the notes of the source patch SRC put back
# under the --- of the written patch (a reroll's, and the fast path's), and
# LINE after them unless they already have it.
put_notes() {
	notes_of "$1" >"$TMP/notes"
	if [[ -n ${3:-} ]] && ! grep -qF "$3" "$TMP/notes"; then
		[[ -s $TMP/notes ]] && echo >>"$TMP/notes"
		printf '%s\n' "$3" >>"$TMP/notes"
	fi
	[[ -s $TMP/notes ]] || return 0
	awk -v notes="$TMP/notes" '!done && $0 == "---" {
			print; while ((getline l < notes) > 0) print l
			print "---"; done = 1; next }
		{ print }' "$2" >"$2.new" && mv "$2.new" "$2"
}

STEP="format-patch"
STAGE=$OUT/staging
rm -rf "$STAGE"
mkdir -p "$STAGE"

# blurb COVER OUT: the body of a hand-written cover letter, up to the
# shortlog ("Name (N):") or the diffstat git put under it.  A first posting
# (--version 1) leaves out its "Changes in vN" sections: those rounds were
# the project's reviews, not the list's.
blurb() {
	awk -v first="$([[ $VERSION == 1 ]] && echo 1)" 'hdr == 0 { if (/^$/) hdr = 1; next }
		/^[^ \t].* \([0-9]+\):$/ || /^ [^ ].* +\| +[0-9]+/ || /^-- $/ || /^base-commit:/ { exit }
		first && /^Changes in v[0-9]+$/ { skip = 1; next }
		skip && /^[^ =]/ && !/^Changes in v[0-9]+$/ { skip = 0 }
		!skip { print }' "$1" |
		awk '{ l[NR] = $0 } /[^ \t]/ { last = NR } END { for (i = 1; i <= last; i++) print l[i] }' >"$2"
	[[ -s $2 ]] || fail "no text in ${1#"$REPO"/}"
}
blurb "$PATCHDIR/0000-cover-letter.patch" "$TMP/option.blurb"
# the fast path's own cover letter, else the text below
if [[ -f $FASTDIR/0000-cover-letter.patch ]]; then
	blurb "$FASTDIR/0000-cover-letter.patch" "$TMP/fastpath.blurb"
else
	cat >"$TMP/fastpath.blurb" <<EOB
This patch makes vfat show plain ASCII 8.3 names, and rule entries out in
lookups, from a per-mount table instead of converting every 8.3 name through
the codepage and the iocharset one character at a time.  What readdir shows
and what a lookup finds are unchanged.  It is an RFC, speed only and
independent of the series "$OPTION_SUBJECT", sent apart so that each can
be judged without the other.  Its figures are in its commit message.
EOB
fi

# Which tree: said plainly at the end of each blurb (the cover letter's
# prose names none, as the base is chosen here), unless it already is.
if [[ -n $MAINLINE ]]; then
	ON="$TAG (base-commit below)"
else
	ON=$TAG
fi
FAST_ON="It applies to $ON on its own."
for s in "${SERIESNAMES[@]}"; do
	if [[ $s == option ]]; then
		grep -qF "The series applies to $ON." "$TMP/$s.blurb" ||
			printf '\nThe series applies to %s.\n' "$ON" >>"$TMP/$s.blurb"
	else
		grep -qF "$FAST_ON" "$TMP/$s.blurb" || printf '\n%s\n' "$FAST_ON" >>"$TMP/$s.blurb"
	fi
done

for s in "${SERIESNAMES[@]}"; do
	range=$PRISTINE..${TIP[$s]}
	format_patch "$s" "$TMP/$s" "$range"
	recipients "$TMP/$s" >"$TMP/$s.recipients"
	mapfile -t hdr <"$TMP/$s.recipients"
	format_patch "$s" "$STAGE/$s" "$range" "${hdr[@]}"
	[[ $s == option ]] && api_cc "$STAGE/$s"
	if [[ $s == option ]]; then
		subject=$OPTION_SUBJECT
		srcs=("${OPTION[@]}")
	else
		subject=$FASTPATH_SUBJECT
		# the cover letter's own subject, if it has one
		if [[ -f $FASTDIR/0000-cover-letter.patch ]]; then
			fsubj=$(git mailinfo "$TMP/mi.msg" "$TMP/mi.patch" <"$FASTDIR/0000-cover-letter.patch" |
				sed -n 's/^Subject: //p')
			[[ -z $fsubj || $fsubj == *'*** SUBJECT HERE ***'* ]] || subject=$fsubj
		fi
		srcs=("${FASTPATH[@]}")
	fi
	if has_cover "$s"; then
		fill_cover "$STAGE/$s/${VPFX}0000-cover-letter.patch" "$subject" "$TMP/$s.blurb"
	fi
	mapfile -t outs < <(patches_in "$STAGE/$s")
	[[ ${#outs[@]} -eq ${#srcs[@]} ]] ||
		fail "format-patch wrote ${#outs[@]} patches for $s, not ${#srcs[@]}"
	# the fast path's notes (how it meets the series, the figures) on any
	# posting; without a cover letter they also say what it applies to
	if [[ $s == fastpath ]] && ! has_cover "$s"; then
		put_notes "${srcs[0]}" "${outs[0]}" "$FAST_ON"
	elif [[ $VERSION != 1 || $s == fastpath ]]; then
		for i in "${!outs[@]}"; do
			put_notes "${srcs[i]}" "${outs[i]}"
		done
	fi
done

# ------------------------------------------------------------------ checks --
STEP="checks"
bad=0
echo "$PROG: checks"
ok() { echo "  ok   $*"; }
notok() {
	echo "  FAIL $*"
	bad=$((bad + 1))
}

# The files the patches touch (from the source patches), and the paths
# whose equality with the tag is checked: each file, and the directory of
# each one outside Documentation/ (what its build reads along with it).
mapfile -t TOUCHED < <(cat "${OPTION[@]}" "${FASTPATH[@]}" |
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' | sort -u)
CHECKPATHS=()
for f in "${TOUCHED[@]}"; do
	CHECKPATHS+=("$f")
	[[ $f == Documentation/* || $f != */* ]] || CHECKPATHS+=("${f%/*}/")
done
mapfile -t CHECKPATHS < <(printf '%s\n' "${CHECKPATHS[@]}" | sort -u)

# (1) The base.  A mainline checkout is its own reference.  Debian's
# tree: its version is the tag's, and Debian's patches leave the touched
# paths as the upstream tarball has them.
if [[ -n $MAINLINE ]]; then
	ok "base: $BASEDESC; written with base-commit: ${PRISTINE:0:12}"
else
	kver=$(make -s -C "$TREE" kernelversion 2>>"$LOG" || true)
	if [[ v${kver/.0-/-} == "$TAG" || v$kver == "$TAG" || v${kver%.0} == "$TAG" ]]; then
		ok "the pristine tree is $kver, Debian's $SRCVER: upstream $TAG"
	else
		notok "the pristine tree is '$kver', not the $TAG of Debian's $SRCVER"
	fi
	dargs=()
	[[ -n $DEBIAN_TAR ]] && dargs=(--tar "$DEBIAN_TAR")
	printf '+ scripts/debian-patches.sh %s %s %s\n' "$CACHE" "$SRCVER" "${CHECKPATHS[*]}" >>"$LOG"
	drc=0
	"$REPO/scripts/debian-patches.sh" "$CACHE" "$SRCVER" "${dargs[@]}" "${CHECKPATHS[@]}" >"$TMP/debian.log" 2>&1 || drc=$?
	if ((drc == 0)); then
		ok "equal to $TAG where touched: $(tail -n 1 "$TMP/debian.log")"
	elif ((drc == 3)); then
		echo "  WARN equality with $TAG NOT verified: Debian's source package cannot be fetched here;"
		echo "       run again with SUBMIT_ARGS='--debian-tar FILE' before sending"
		sed 's/^/  | /' "$TMP/debian.log"
	else
		notok "cannot show that the touched paths are those of $TAG (scripts/debian-patches.sh):"
		sed 's/^/  | /' "$TMP/debian.log"
	fi
	cat "$TMP/debian.log" >>"$LOG"
fi

# The W=1 build: one output dir, the config of a ./qemu-run.sh build of
# this line; shared CPUs, so -j2 and after any ./qemu-run.sh using the cache.
BUILD=$OUT/build
CONFIG=
for c in "$CACHE/build/$LINE/normal/.config" "$CACHE/build/$LINE"/*/.config; do
	[[ -f $c ]] && { CONFIG=$c; break; }
done
CC_CMD=gcc
command -v ccache >/dev/null && CC_CMD="ccache gcc"
exec 8>"$CACHE/.lock"
if ! flock -n 8; then
	echo "  (waiting for the ./qemu-run.sh using $CACHE)"
	flock 8
fi
if [[ -n $CONFIG ]] && ! cmp -s "$CONFIG" "$BUILD/.config.src"; then
	mkdir -p "$BUILD"
	cp "$CONFIG" "$BUILD/.config"
	cp "$CONFIG" "$BUILD/.config.src"
fi

# build_check NAME: fs/fat of the checked-out tree with W=1, every object
# rebuilt; the selftest directories the posting touches.
build_check() {
	local name=$1 log=$TMP/build-$1.log nw targets=() f d
	if [[ -z $CONFIG ]]; then
		notok "$name: no kernel config in $CACHE/build/$LINE/ to build fs/fat with (run ./qemu-run.sh --kernel $LINE)"
		return 0
	fi
	rm -rf "$BUILD/fs/fat"
	if ! make -C "$TREE" O="$BUILD" CC="$CC_CMD" -s olddefconfig >"$log" 2>&1 ||
		! make -C "$TREE" O="$BUILD" CC="$CC_CMD" W=1 -j2 fs/fat/ >>"$log" 2>&1; then
		notok "$name: make W=1 fs/fat/ failed"
		grep -E 'error|Error' "$log" | head -n 20 | sed 's/^/  | /'
	else
		nw=$(grep -c 'warning:' "$log" || true)
		if [[ $nw != 0 ]]; then
			notok "$name: make W=1 fs/fat/: $nw warning(s)"
			grep -A3 'warning:' "$log" | head -n 30 | sed 's/^/  | /'
		elif git_t diff --quiet "$PRISTINE" HEAD -- fs/fat/fat_test.c || [[ -f $BUILD/fs/fat/fat_test.o ]]; then
			ok "$name: make W=1 fs/fat/ ($(find "$BUILD/fs/fat" -name '*.o' ! -name '*.mod.o' | wc -l) objects, no warning; config ${CONFIG#"$CACHE"/})"
		else
			notok "$name: fat_test.c changed but not built (CONFIG_FAT_KUNIT_TEST off in ${CONFIG#"$CACHE"/})"
		fi
	fi
	cat "$log" >>"$LOG"
	# the selftest targets: the nearest directory with a Makefile
	while IFS= read -r f; do
		d=${f%/*}
		while [[ $d == tools/testing/selftests/?* && ! -f $TREE/$d/Makefile ]]; do d=${d%/*}; done
		[[ $d == tools/testing/selftests/?* ]] && targets+=("${d#tools/testing/selftests/}")
	done < <(git_t diff --name-only "$PRISTINE" HEAD -- tools/testing/selftests/)
	mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sed '/^$/d' | sort -u)
	[[ ${#targets[@]} -gt 0 ]] || return 0
	if make -C "$TREE" O="$BUILD" -s headers >"$log" 2>&1 &&
		make -C "$TREE/tools/testing/selftests" O="$BUILD" TARGETS="${targets[*]}" \
			KHDR_INCLUDES="-isystem $BUILD/usr/include" -j2 >>"$log" 2>&1; then
		ok "$name: selftests ${targets[*]} compile ($(grep -c 'warning:' "$log" || true) warning(s))"
	else
		notok "$name: selftests ${targets[*]} do not compile"
		grep -E 'error' "$log" | head -n 20 | sed 's/^/  | /'
	fi
	cat "$log" >>"$LOG"
}

for s in "${SERIESNAMES[@]}"; do
	mapfile -t FILES < <(patches_in "$STAGE/$s")
	cover=$STAGE/$s/${VPFX}0000-cover-letter.patch
	# where the tag is named: the cover letter, else the (one) patch
	tagfile=$cover
	has_cover "$s" || tagfile=${FILES[0]}

	# (2) git am of this posting onto the base, alone
	reset_tree
	onto="the base"
	am "$s/ on $onto" "${FILES[@]}"
	got=$(git_t rev-parse 'HEAD^{tree}')
	if [[ $got == "${REF[$s]}" ]]; then
		ok "$s: git am of its ${#FILES[@]} patch(es) on $onto: tree $got, that of its source patches"
	else
		notok "$s: git am on $onto: tree $got, not ${REF[$s]} (the base + the source patches)"
	fi

	# (3) the build, on that tree
	build_check "$s"

	# (4) checkpatch.pl --strict of the (patched) tree on every patch
	for p in "${FILES[@]}"; do
		name=${p#"$STAGE"/}
		log=$TMP/checkpatch.log
		# the last line is the verdict, "verdict: clean, N CHECK(s)"
		if "$REPO/scripts/checkpatch-one.sh" "$TREE" "$p" >"$log"; then
			ok "checkpatch --strict $name (0 errors, 0 warnings, $(tail -n 1 "$log" | sed 's/^verdict: clean, //'))"
		else
			notok "checkpatch --strict $name"
			sed 's/^/  | /' "$log"
		fi
		cat "$log" >>"$LOG"
	done

	# (5) the headers and the text around the patches
	leak=$(grep -l -i -e 'a-seed-' -e 'Seed [0-9a-f]\{8\} maintainers' -e 'noreply' \
		"$STAGE/$s"/*.patch || true)
	if [[ -z $leak ]]; then
		ok "$s: no placeholder identity left; From: and Signed-off-by: $SENDER"
	else
		notok "$s: placeholder identity left in: ${leak//$'\n'/ }"
	fi
	if [[ -n $MAINLINE ]]; then
		# base-commit: in the cover letter, else in the last patch;
		# each posting stands on the base alone
		last=${FILES[-1]}
		has_cover "$s" && last=$cover
		npre=$(cat "$STAGE/$s"/*.patch | grep -c '^prerequisite-patch-id: ' || true)
		if ! grep -qx "base-commit: $PRISTINE" "$last"; then
			notok "$s: no 'base-commit: $PRISTINE' in ${last##*/}"
		elif [[ $npre != 0 ]]; then
			notok "$s: $npre prerequisite-patch-id: line(s), not 0"
		elif ! grep -qF "$TAG" "$tagfile"; then
			notok "$s: ${tagfile##*/} does not name $TAG"
		else
			ok "$s: base-commit: ${PRISTINE:0:12}, $npre prerequisite-patch-id: line(s); ${tagfile##*/} names $TAG"
		fi
	elif grep -l -E '^(base-commit|prerequisite-patch-id):' "$STAGE/$s"/*.patch >/dev/null; then
		notok "$s: a base-commit: or prerequisite-patch-id: line"
	elif ! grep -qF "$TAG" "$tagfile"; then
		notok "$s: ${tagfile##*/} does not name $TAG"
	else
		ok "$s: no base-commit/prerequisite-patch-id line; ${tagfile##*/} names $TAG"
	fi
	if [[ $s == fastpath ]]; then
		if grep -q '^Subject: \[RFC PATCH' "${FILES[@]}"; then
			ok "$s: sent as [RFC PATCH], on the base alone"
		else
			notok "$s: not an [RFC PATCH]"
		fi
		# the copy qemu-run.sh tests on top of the series: the same change
		if out=$("$REPO/scripts/fastpath-stacked.sh" 2>&1); then
			ok "$s: ${out#*: }"
		else
			notok "$s: patches/fastpath-$LINE is not the change posted"
			printf '%s\n' "$out" | sed 's/^/  | /'
		fi
	fi
	missing=()
	for f in "$STAGE/$s"/*.patch; do
		# the header, unfolded
		awk '/^$/ { exit } /^[ \t]/ { printf " %s", $0; next } { printf "\n%s", $0 } END { print "" }' \
			"$f" >"$TMP/hdr"
		for r in "${EXTRA_TO[@]/#/To:}" "${EXTRA_CC[@]/#/Cc:}"; do
			kind=${r%%:*} addr=${r#*:}
			[[ $addr =~ \<(.*)\> ]] && addr=${BASH_REMATCH[1]}
			grep -i "^$kind:" "$TMP/hdr" | grep -qiF "$addr" || missing+=("${f##*/}: $kind $addr")
		done
	done
	if [[ ${#missing[@]} -eq 0 ]]; then
		ok "$s: ${EXTRA_TO[*]:+To: ${EXTRA_TO[*]}; }Cc: ${EXTRA_CC[*]} (besides get_maintainer.pl's) in every file"
	else
		notok "$s: recipients missing: ${missing[*]}"
	fi
	if [[ $s == option ]]; then
		api=() missing=()
		for f in "$STAGE/$s"/*.patch; do
			api_patch "$f" || continue
			api+=("${f##*/}")
			sed '/^$/q' "$f" | grep -qixF "Cc: $API_CC" || missing+=("${f##*/}")
		done
		if [[ ${#api[@]} -lt 2 || ${#missing[@]} -gt 0 ]]; then
			notok "$s: Cc: $API_CC missing on: ${missing[*]:-no patch changes $API_DOC}"
		else
			ok "$s: Cc: $API_CC on ${api[*]}"
		fi
	fi
	if [[ $VERSION == 1 && $s == fastpath ]]; then
		# a first posting: the fast path's notes are kept, but carry no
		# version history
		vnotes=$(for p in "${FILES[@]}"; do notes_of "$p" | grep -E '^Changes (in|since) v[0-9]+' >/dev/null && echo "${p##*/}"; done
			has_cover "$s" && grep -l -E '^Changes in v[0-9]+' "$cover"; true)
		if [[ -z $vnotes ]]; then
			ok "$s: a first posting: no \"Changes in vN\" in its notes or cover letter"
		else
			notok "$s: a first posting with version notes in: ${vnotes//$'\n'/ }"
		fi
	elif [[ $VERSION == 1 ]]; then
		# a first posting: nothing between a patch's --- and its diffstat,
		# no "Changes in vN" in the cover letter
		vnotes=$(for p in "${FILES[@]}"; do [[ -n $(notes_of "$p") ]] && echo "${p##*/}"; done
			grep -l -E '^Changes in v[0-9]+' "$cover" || true)
		if [[ -z $vnotes ]]; then
			ok "$s: a first posting: no version notes in the cover letter or below a patch's ---"
		else
			notok "$s: a first posting with version notes in: ${vnotes//$'\n'/ }"
		fi
	fi
done
exec 8>&-

if [[ $bad -gt 0 ]]; then
	rm -rf "$OUT/option" "$OUT/fastpath" "$OUT/rejected"
	mv "$STAGE" "$OUT/rejected"
	STEP=
	LOG=
	fail "$bad check(s) failed; nothing in $OUT/option or $OUT/fastpath, the files are in $OUT/rejected"
fi

rm -rf "$OUT/option" "$OUT/fastpath" "$OUT/rejected"
for s in "${SERIESNAMES[@]}"; do
	mv "$STAGE/$s" "$OUT/"
done
rmdir "$STAGE"

# ------------------------------------------------------------------ report --
list() { # SERIES DESCRIPTION
	local f
	echo "$2:"
	echo "  $OUT/$1/"
	for f in "$OUT/$1"/*.patch; do
		echo "    ${f##*/}"
	done
	sed -e 's/^--to=/    To: /' -e 's/^--cc=/    Cc: /' "$TMP/$1.recipients"
	[[ $1 != option ]] || echo "    Cc: $API_CC (the cover letter and the patches that change $API_DOC)"
}
echo "$PROG: written and checked, From: $SENDER, applying to $BASEDESC"
list option "option series (${#OPTION[@]} patches + cover letter)"
if [[ ${#FASTPATH[@]} -gt 0 ]]; then
	if has_cover fastpath; then
		list fastpath "fast path (RFC, ${#FASTPATH[@]} patch(es) + cover letter, on the base alone)"
	else
		list fastpath "fast path (RFC, ${#FASTPATH[@]} patch, no cover letter, on the base alone)"
	fi
	echo "Send the option series and the RFC as two threads: git send-email $OUT/option/*.patch; git send-email $OUT/fastpath/*.patch"
else
	echo "No fast path (patches/fastpath/ has no patch).  Send with: git send-email $OUT/option/*.patch"
fi
