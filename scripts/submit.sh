#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# submit.sh - write the mainline series (patches/7.3/series) as two patch
# series ready for git send-email, signed by the person running it:
#
#   option/    every patch of the series but the 8.3 fast path, with a cover
#              letter: "fat: add the nolongcreate mount option to vfat"
#   fastpath/  the 8.3 fast path alone, with a cover letter, as a follow-up
#              on top of option/ (base-commit + prerequisite-patch-id lines)
#
# under <cache>/submission/, checked: git am of option/ then fastpath/ onto
# the pristine tree gives the tree of the whole series, and checkpatch.pl
# --strict finds no error and no warning in any patch.
#
# Run scripts/submit.sh --help for the options.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
PROG=${0##*/}
export LC_ALL=C

LINE=7.3
PATCHDIR=$REPO/patches/$LINE
FASTPATH_PAT=fat-show-plain-ASCII-8.3-names
OPTION_SUBJECT="fat: add the nolongcreate mount option to vfat"
FASTPATH_SUBJECT="fat: show plain ASCII 8.3 names without the charset round trip"
# committer of the scratch commits git am makes (never in the patches)
NEUTRAL_NAME="vfat-nolongcreate runner"
NEUTRAL_EMAIL=runner@vfat-nolongcreate.invalid

CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
VERSION=1

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Write patches/$LINE/series (the mainline line) as two patch series for
git send-email, From: and Signed-off-by: you (your git identity:
git config user.name / user.email, or GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL):

  <cache>/submission/option/    every patch but the 8.3 fast path
                                (*$FASTPATH_PAT*), with a cover letter
                                "$OPTION_SUBJECT"
                                (blurb: patches/$LINE/0000-cover-letter.patch)
  <cache>/submission/fastpath/  the 8.3 fast path alone, with a cover letter,
                                on top of option/ (its base-commit and
                                prerequisite-patch-id lines)

written by git format-patch --cover-letter --thread --base, To: the
maintainers and Cc: the reviewers and lists that the kernel tree's
scripts/get_maintainer.pl names.  The patches are made in a scratch clone,
<cache>/submission/tree, of the pristine linux-source-$LINE tree that
./qemu-run.sh --kernel $LINE keeps in <cache>/src/$LINE/linux (read only
here).  Then checked:
  - git am of option/ and then fastpath/ onto the pristine tree gives the
    very tree of the pristine tree with patches/$LINE/series applied;
  - checkpatch.pl --strict: no error and no warning in any patch (the
    "does MAINTAINERS need updating?" warning passed over when MAINTAINERS
    covers every file a patch adds or deletes, as ./qemu-run.sh does).

Options:
  --version N   reroll count: git format-patch -v N, "[PATCH vN ...]"
                (default: $VERSION)
  --cache DIR   cache dir (default: \${XDG_CACHE_HOME:-\$HOME/.cache}/vfat-nolongcreate)
  -h, --help    this text

Exit status: 0 written and checked; 1 a step or a check failed (the files
are then left in <cache>/submission/rejected/, not in option/ and
fastpath/); 2 bad usage, no usable git identity (placeholders such as the
repository's own "Seed ... maintainers" identity or addresses under
.example, .invalid, .test, .localhost or noreply are refused), or no
pristine tree (run ./qemu-run.sh --kernel $LINE --check-series first).
EOF
}

die() { # STATUS MESSAGE...
	local st=$1
	shift
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit "$st"
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
	--cache)
		[[ $# -ge 2 ]] || die_usage "--cache needs an argument"
		CACHE=$2
		shift 2
		;;
	--cache=*) CACHE=${1#*=}; shift ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ $VERSION =~ ^[1-9][0-9]*$ ]] || die_usage "--version wants a positive number, not '$VERSION'"
[[ -n $CACHE ]] || die_usage "--cache wants a directory"

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
name_lc=${SENDER_NAME,,}
email_lc=${SENDER_EMAIL,,}
why=
if [[ -z ${SENDER_NAME//[[:space:]]/} ]]; then
	why="the name is empty"
elif [[ $name_lc =~ (^|[^a-z])seed([^a-z]|$) || $name_lc == *maintainers* ]]; then
	why="the name is the repository's placeholder ('Seed ... maintainers')"
elif [[ ! $email_lc =~ ^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$ ]]; then
	why="the email is not an address of a real domain"
elif [[ $email_lc == *noreply* ]]; then
	why="the email is a noreply address"
elif [[ $email_lc =~ [@.](example|invalid|test|localhost|localdomain)$ ||
	$email_lc =~ [@.]example\.(com|net|org)$ ]]; then
	why="the email's domain is reserved (.example, .invalid, .test, .localhost, example.com...)"
fi
[[ -z $why ]] ||
	die 2 "refusing to sign the patches as '$SENDER': $why; $set_how (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)"
# From here on git takes identities only from what this script passes.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE EMAIL

# ------------------------------------------------------------------- paths --
SRC_HINT="run ./qemu-run.sh --kernel $LINE --check-series first"
[[ -d $CACHE ]] || die 2 "no cache dir $CACHE (no pristine linux-source-$LINE tree); $SRC_HINT"
CACHE=$(cd "$CACHE" && pwd -P)
case $CACHE/ in
"$REPO"/*) die_usage "the cache dir must not be inside the repository ($CACHE)" ;;
esac
SRC=$CACHE/src/$LINE/linux
OUT=$CACHE/submission
TREE=$OUT/tree
PRISTINE=$(git -C "$SRC" rev-parse -q --verify 'pristine^{commit}' 2>/dev/null) ||
	die 2 "no pristine linux-source-$LINE tree (git tag 'pristine' in $SRC); $SRC_HINT"
git -C "$SRC" cat-file -e "$PRISTINE:scripts/checkpatch.pl" 2>/dev/null ||
	die 2 "$SRC is not a kernel tree; $SRC_HINT"

# ------------------------------------------------------------------ series --
[[ -f $PATCHDIR/series ]] || die 1 "no patches/$LINE/series"
SERIES=()
while IFS= read -r l || [[ -n $l ]]; do
	l=${l%%#*}
	l=${l//[[:space:]]/}
	[[ -z $l ]] && continue
	[[ -f $PATCHDIR/$l ]] || die 1 "patches/$LINE/series names $l, which does not exist"
	SERIES+=("$PATCHDIR/$l")
done <"$PATCHDIR/series"
OPTION=()
FASTPATH=()
for p in "${SERIES[@]}"; do
	if [[ ${p##*/} == *"$FASTPATH_PAT"* ]]; then
		FASTPATH+=("$p")
	else
		OPTION+=("$p")
	fi
done
[[ ${#FASTPATH[@]} -eq 1 ]] ||
	die 1 "patches/$LINE/series has ${#FASTPATH[@]} patches named *$FASTPATH_PAT*, not one"
[[ ${#OPTION[@]} -ge 1 ]] || die 1 "patches/$LINE/series has no patch besides the fast path"
NOPT=${#OPTION[@]}

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
# still has the same pristine commit.
STEP="scratch tree"
if [[ -d $TREE/.git ]] && [[ $(git_t rev-parse -q --verify 'pristine^{commit}' 2>/dev/null || true) == "$PRISTINE" ]] &&
	git_t cat-file -e "$PRISTINE^{tree}" 2>/dev/null; then
	echo "  scratch tree $TREE reused" >>"$LOG"
else
	echo "$PROG: cloning $SRC into $TREE (once)"
	rm -rf "$TREE"
	run git clone -q --shared --no-checkout --template= "$SRC" "$TREE" ||
		fail "git clone --shared $SRC failed"
	[[ $(git_t rev-parse -q --verify 'pristine^{commit}') == "$PRISTINE" ]] ||
		fail "the clone's tag pristine is not $PRISTINE"
fi

reset_tree() {
	if [[ -d $TREE/.git/rebase-apply ]]; then
		git_t am --abort >>"$LOG" 2>&1 || true
	fi
	run git_t checkout -q -f --detach "$PRISTINE" || fail "git checkout pristine failed"
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
# The tree the whole series gives, in the series' order.
STEP="series"
reset_tree
am "patches/$LINE/series" "${SERIES[@]}"
REF_TREE=$(git_t rev-parse 'HEAD^{tree}')

# The option patches, then the fast path.
STEP="commits"
reset_tree
am "option series" "${OPTION[@]}"
am "fast path on the option series" "${FASTPATH[@]}"
mapfile -t COMMITS < <(git_t rev-list --reverse "$PRISTINE..HEAD")
[[ ${#COMMITS[@]} -eq $((NOPT + 1)) ]] ||
	fail "git am made ${#COMMITS[@]} commits of $((NOPT + 1)) patches"

# Each commit again with the sender as author (and committer), its author
# date kept, and the patch author's Signed-off-by replaced by the sender's;
# nothing else in the message changes.
TMP=$(mktemp -d "$OUT/tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
parent=$PRISTINE
NEW=()
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
	NEW+=("$parent")
done
OPT_TIP=${NEW[NOPT - 1]}
FAST_TIP=${NEW[NOPT]}
run git_t update-ref refs/heads/submission-option "$OPT_TIP"
run git_t update-ref refs/heads/submission-fastpath "$FAST_TIP"

# ----------------------------------------------------------- format-patch --
# A first posting has no version: "[PATCH 0/7]", 0000-cover-letter.patch.
VARGS=() VPFX=
if [[ $VERSION != 1 ]]; then
	VARGS=(-v "$VERSION") VPFX=v$VERSION-
fi
# format_patch DIR RANGE [ARGS...]: the cover letter's From: is the
# committer, hence the sender here too.
format_patch() {
	local dir=$1 range=$2
	shift 2
	rm -rf "$dir"
	GIT_COMMITTER_NAME=$SENDER_NAME GIT_COMMITTER_EMAIL=$SENDER_EMAIL \
		run git_t format-patch -q --cover-letter --thread --base="$PRISTINE" \
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
# the tree (no git history, no network); a person already in To (by name or
# address) and the sender are left out of Cc.
recipients() {
	local files=() gm=(perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback)
	mapfile -t files < <(patches_in "$1")
	(cd "$TREE" && "${gm[@]}" --m --no-r --no-l "${files[@]}") >"$TMP/to" 2>>"$LOG" ||
		fail "scripts/get_maintainer.pl (maintainers) failed"
	(cd "$TREE" && "${gm[@]}" --no-m --r --l "${files[@]}") >"$TMP/cc" 2>>"$LOG" ||
		fail "scripts/get_maintainer.pl (reviewers, lists) failed"
	awk -v me="${SENDER_EMAIL,,}" '
		function addr(s) { if (match(s, /<[^>]*>/)) s = substr(s, RSTART + 1, RLENGTH - 2); return tolower(s) }
		function name(s) { if (!match(s, / *<[^>]*>/)) return ""; return substr(s, 1, RSTART - 1) }
		/^[ \t]*$/ { next }
		FNR == NR { if (addr($0) == me) next
			to_a[addr($0)] = 1; if (name($0) != "") to_n[name($0)] = 1
			print "--to=" $0; next }
		{ a = addr($0); n = name($0)
		  if (a == me || (a in to_a) || (n != "" && (n in to_n)) || (a in cc)) next
		  cc[a] = 1; print "--cc=" $0 }' "$TMP/to" "$TMP/cc"
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

STEP="format-patch"
STAGE=$OUT/staging
rm -rf "$STAGE"
mkdir -p "$STAGE"

# The option series' blurb: the body of the hand-written cover letter, up to
# the shortlog ("Name (N):") or the diffstat git put under it.  A first
# posting (--version 1) leaves out its "Changes in vN" sections: those
# rounds were the project's reviews, not the list's.
awk -v first="$([[ $VERSION == 1 ]] && echo 1)" 'hdr == 0 { if (/^$/) hdr = 1; next }
	/^[^ \t].* \([0-9]+\):$/ || /^ [^ ].* +\| +[0-9]+/ || /^-- $/ || /^base-commit:/ { exit }
	/^Patch [0-9]+, posted on its own/ { exit }
	first && /^Changes in v[0-9]+$/ { skip = 1; next }
	skip && /^[^ =]/ && !/^Changes in v[0-9]+$/ { skip = 0 }
	!skip { print }' "$PATCHDIR/0000-cover-letter.patch" |
	awk '{ l[NR] = $0 } /[^ \t]/ { last = NR } END { for (i = 1; i <= last; i++) print l[i] }' \
		>"$TMP/option.blurb"
[[ -s $TMP/option.blurb ]] || fail "no text in patches/$LINE/0000-cover-letter.patch"

for s in option fastpath; do
	if [[ $s == option ]]; then
		range=$PRISTINE..$OPT_TIP
	else
		range=$OPT_TIP..$FAST_TIP
	fi
	format_patch "$TMP/$s" "$range"
	recipients "$TMP/$s" >"$TMP/$s.recipients"
	mapfile -t hdr <"$TMP/$s.recipients"
	format_patch "$STAGE/$s" "$range" "${hdr[@]}"
done

oprefix="[PATCH ${VARGS:+v$VERSION }0/$NOPT]"
cat >"$TMP/fastpath.blurb" <<EOF
This patch makes vfat show plain ASCII 8.3 names, and rule entries out in
lookups, from a per-mount table instead of converting every 8.3 name through
the codepage and the iocharset one character at a time.  What readdir shows
and what a lookup finds are unchanged.

It applies on top of the nolongcreate series, sent separately:

  $oprefix $OPTION_SUBJECT

(the base-commit and prerequisite-patch-id lines below name its base and
its $NOPT patches): its context includes that series' changes to
fs/fat/dir.c and fs/fat/fat_test.c, and it calls fat_short_name_match()
from its patch 1.  A KUnit case in fat_test.c, run for ten mount
settings, shows some 10000 8.3 names with the table and without it and
checks that a name the table rules out in a lookup (the name shown, in
the other case, and another entry's) is one the full comparison does
not match.

The figures (cold lookups, absent names and readdir in directories of
4000 8.3 and long names, measured under UML on the host CPU with and
without this patch, side by side in one run) are in its commit message.
EOF

fill_cover "$STAGE/option/${VPFX}0000-cover-letter.patch" "$OPTION_SUBJECT" "$TMP/option.blurb"
fill_cover "$STAGE/fastpath/${VPFX}0000-cover-letter.patch" "$FASTPATH_SUBJECT" "$TMP/fastpath.blurb"

# ------------------------------------------------------------------ checks --
STEP="checks"
bad=0
echo "$PROG: checks"
mapfile -t OPT_FILES < <(patches_in "$STAGE/option")
mapfile -t FAST_FILES < <(patches_in "$STAGE/fastpath")
[[ ${#OPT_FILES[@]} -eq $NOPT && ${#FAST_FILES[@]} -eq 1 ]] ||
	fail "format-patch wrote ${#OPT_FILES[@]} + ${#FAST_FILES[@]} patches, not $NOPT + 1"

# base-commit and prerequisite-patch-id: what git am of fastpath/ needs
ocover=$STAGE/option/${VPFX}0000-cover-letter.patch
fcover=$STAGE/fastpath/${VPFX}0000-cover-letter.patch
nprereq=$(grep -c '^prerequisite-patch-id: ' "$fcover" || true)
if grep -qx "base-commit: $PRISTINE" "$ocover" && grep -qx "base-commit: $PRISTINE" "$fcover" &&
	[[ $nprereq == "$NOPT" ]]; then
	echo "  ok   base-commit $PRISTINE in both cover letters, $nprereq prerequisite-patch-id(s) in fastpath/"
else
	echo "  FAIL base-commit / prerequisite-patch-id lines (fastpath/ lists $nprereq of $NOPT)"
	bad=$((bad + 1))
fi

# nothing of the placeholder identity the repository's patches carry
leak=$(grep -l -i -e 'a-seed-' -e 'Seed [0-9a-f]\{8\} maintainers' -e 'noreply' \
	"$STAGE"/option/*.patch "$STAGE"/fastpath/*.patch || true)
if [[ -z $leak ]]; then
	echo "  ok   no placeholder identity left; From: and Signed-off-by: $SENDER"
else
	echo "  FAIL placeholder identity left in: ${leak//$'\n'/ }"
	bad=$((bad + 1))
fi

# (1) git am of option/ then fastpath/ on the pristine tree = the whole series
reset_tree
am "option/ on pristine" "${OPT_FILES[@]}"
am "fastpath/ on option/" "${FAST_FILES[@]}"
got=$(git_t rev-parse 'HEAD^{tree}')
if [[ $got == "$REF_TREE" ]]; then
	echo "  ok   git am option/ then fastpath/ on pristine: tree $got, that of pristine + patches/$LINE/series"
else
	echo "  FAIL git am option/ then fastpath/ on pristine: tree $got, not $REF_TREE (pristine + patches/$LINE/series)"
	bad=$((bad + 1))
fi

# (2) checkpatch.pl --strict of the (patched) tree on every patch.
for p in "${OPT_FILES[@]}" "${FAST_FILES[@]}"; do
	name=${p#"$STAGE"/}
	log=$TMP/checkpatch.log
	# the last line is the verdict, "verdict: clean, N CHECK(s)"
	if "$REPO/scripts/checkpatch-one.sh" "$TREE" "$p" >"$log"; then
		echo "  ok   checkpatch --strict $name (0 errors, 0 warnings, $(tail -n 1 "$log" | sed 's/^verdict: clean, //'))"
	else
		echo "  FAIL checkpatch --strict $name"
		sed 's/^/  | /' "$log"
		bad=$((bad + 1))
	fi
	cat "$log" >>"$LOG"
done

if [[ $bad -gt 0 ]]; then
	rm -rf "$OUT/option" "$OUT/fastpath" "$OUT/rejected"
	mv "$STAGE" "$OUT/rejected"
	STEP=
	LOG=
	fail "$bad check(s) failed; nothing in $OUT/option or $OUT/fastpath, the files are in $OUT/rejected"
fi

rm -rf "$OUT/option" "$OUT/fastpath" "$OUT/rejected"
mv "$STAGE/option" "$STAGE/fastpath" "$OUT/"
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
}
echo "$PROG: written and checked, From: $SENDER"
list option "option series ($NOPT patches + cover letter, on pristine linux-source-$LINE)"
list fastpath "fast-path series (1 patch + cover letter, on top of the option series)"
echo "Send with: git send-email $OUT/option/*.patch; then the same for $OUT/fastpath/"
