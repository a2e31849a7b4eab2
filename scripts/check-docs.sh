#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-docs.sh [--list] [FILE.md...] - make docs-check, make check's first
# step: the make targets, qemu-run.sh options and relative links that
# README.md and docs/*.md (or the FILEs) name must exist, and README.md stays
# at most 150 lines.  One FILE:LINE: line per problem, a summary last;
# --list prints every command word and link it checks.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

README_MAX=150

LIST=0
if [[ ${1:-} == --list ]]; then
	LIST=1
	shift
fi
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
	files=(README.md)
	for f in docs/*.md; do [[ -e $f ]] && files+=("$f"); done
fi

# What exists: the targets make help lists, the options qemu-run.sh --help
# lists (its option column).
targets=$(make -s --no-print-directory help | sed -n 's/^make \([a-z][a-z0-9-]*\).*/\1/p' | sort -u)
options=$(./qemu-run.sh --help | sed -n 's/^  \(-h, \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u)
if [[ -z $targets || -z $options ]]; then
	echo "check-docs.sh: could not read make help or ./qemu-run.sh --help" >&2
	exit 1
fi

problems=0
if [[ " ${files[*]} " == *" README.md "* ]]; then
	n=$(wc -l <README.md)
	if [[ $n -gt $README_MAX ]]; then
		echo "README.md: $n lines, more than $README_MAX: move the detail into docs/"
		problems=$((problems + 1))
	fi
fi

# The awk part finds the commands and links and prints them as
#   FILE<TAB>LINE<TAB>make<TAB>TARGET|ARGS=VALUE (for each make word)
#   FILE<TAB>LINE<TAB>qemu<TAB>OPTION
#   FILE<TAB>LINE<TAB>link<TAB>PATH
# shellcheck disable=SC2016 # awk program
scan='
# Split a shell fragment into commands (at ; | & outside quotes) and words
# (quotes removed); an unquoted # at a word start comments out the rest.
# Calls command(words, n) for each command.
function shell(s,    i, c, q, w, inword, words, n, st, ln) {
	# a command substitution is a command of its own (match() of the
	# recursion moves RSTART and RLENGTH: keep them first)
	while (match(s, /\$\([^()]*\)/)) {
		st = RSTART; ln = RLENGTH
		shell(substr(s, st + 2, ln - 3))
		s = substr(s, 1, st - 1) "X" substr(s, st + ln)
	}
	q = ""; w = ""; inword = 0; n = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (q != "") {
			if (c == q) q = ""; else w = w c
			continue
		}
		if (c == "\047" || c == "\"") { q = c; inword = 1; continue }
		if (c == " " || c == "\t") {
			if (inword) { words[++n] = w; w = ""; inword = 0 }
			continue
		}
		if (c == ";" || c == "|" || c == "&" || c == "(" || c == ")") {
			if (inword) { words[++n] = w; w = ""; inword = 0 }
			command(words, n); n = 0; delete words
			continue
		}
		if (c == "#" && !inword) break
		w = w c; inword = 1
	}
	if (inword) words[++n] = w
	command(words, n)
}
function command(words, n,    i, name, tgt, qargs) {
	i = 1
	while (i <= n && (words[i] == "$" || words[i] == "sudo" || words[i] == "time" ||
	       words[i] ~ /^[A-Za-z_][A-Za-z0-9_]*=/))
		i++
	if (i > n) return
	if (words[i] == "make") {
		if (i < n && words[i + 1] == "-C") return	# make -C DIR: not ours
		for (i++; i <= n; i++) {
			if (words[i] ~ /^[A-Za-z_][A-Za-z0-9_]*=/) {
				if (words[i] ~ /^ARGS=/) qargs = substr(words[i], 6)
			} else if (words[i] ~ /^[a-z][a-z0-9-]*$/) {
				print FN "\t" LN "\tmake\t" words[i]
				if (words[i] ~ /^(run|check|debug|shell|distro)$/) tgt = 1
			}
		}
		if (tgt && qargs != "") options(qargs)
		return
	}
	if (words[i] ~ /(^|\/)qemu-run\.sh$/)
		for (i++; i <= n; i++) if (words[i] ~ /^-/) options(words[i])
}
function options(s,    k, m, o) {
	m = split(s, o, /[ \t]+/)
	for (k = 1; k <= m; k++)
		if (o[k] ~ /^-/) { sub(/=.*/, "", o[k]); print FN "\t" LN "\tqemu\t" o[k] }
}
# Paragraphs are scanned whole, so that a code span may wrap; a problem
# is reported at the line its code span starts on.
function para(    rest, base, k, p, span, st, ln) {
	rest = ptext; base = 0
	while (match(rest, /`[^`]+`/)) {
		st = RSTART; ln = RLENGTH	# shell() calls match() too
		for (k = pn; k > 1 && poff[k] > base + st; k--) ;
		LN = pline[k]
		span = substr(rest, st + 1, ln - 2)
		# the option table of docs/runner.md: each `--option ...` is one
		if (FN ~ /(^|\/)runner\.md$/ && section == "Options" && span ~ /^--/)
			options(span)
		else
			shell(span)
		base += st + ln - 1
		rest = substr(rest, st + ln)
	}
	rest = ptext; base = 0
	while (match(rest, /\]\([^)# ]+/)) {
		p = substr(rest, RSTART + 2, RLENGTH - 2)
		for (k = pn; k > 1 && poff[k] > base + RSTART; k--) ;
		if (p !~ /^[a-z]+:/) print FN "\t" pline[k] "\tlink\t" p
		base += RSTART + RLENGTH - 1
		rest = substr(rest, RSTART + RLENGTH)
	}
	ptext = ""; pn = 0
}
FNR == 1 { para(); fence = 0; FN = FILENAME }
{ LN = FNR }
/^[ \t]*```/ { para(); fence = !fence; next }
fence { shell($0); next }
/^[ \t]*$/ { para(); next }
/^#+ / { para(); section = $0; sub(/^#+ +/, "", section); next }
{
	poff[++pn] = length(ptext) + 1; pline[pn] = FNR
	ptext = ptext $0 " "
	# a line that starts with a command (an indented code block)
	if ($0 ~ /^(    |\t)[ \t]*(\$ )?(\.\/qemu-run\.sh|make )/) shell($0)
}
END { para() }
'

n_make=0 n_qemu=0 n_link=0
while IFS=$'\t' read -r file line kind what; do
	[[ $LIST == 1 ]] && printf '%s:%s: %s %s\n' "$file" "$line" "$kind" "$what"
	case $kind in
	make)
		n_make=$((n_make + 1))
		if ! grep -qxF -- "$what" <<<"$targets"; then
			echo "$file:$line: make $what: no such target in make help"
			problems=$((problems + 1))
		fi
		;;
	qemu)
		n_qemu=$((n_qemu + 1))
		if ! grep -qxF -- "$what" <<<"$options"; then
			echo "$file:$line: ./qemu-run.sh $what: no such option in ./qemu-run.sh --help"
			problems=$((problems + 1))
		fi
		;;
	link)
		n_link=$((n_link + 1))
		if [[ ! -e $(dirname "$file")/$what ]]; then
			echo "$file:$line: link to $what: no such file"
			problems=$((problems + 1))
		fi
		;;
	esac
done < <(awk "$scan" "${files[@]}")

summary="${#files[@]} file(s): $n_make make target(s), $n_qemu qemu-run.sh option(s), $n_link link(s) checked, $problems problem(s)"
echo "docs: $summary"
[[ $problems -eq 0 ]]
