#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-one.sh TREE PATCH - checkpatch.pl --strict of TREE on PATCH,
# its report on stdout, then one verdict line, the last: "verdict: clean,
# N CHECK(s)" (exit status 0) when the "total:" line says 0 errors and 0
# warnings (--strict's CHECKs do not count), else "verdict: NOT clean
# (REASON)" (exit status 1): the total: line, or that there was none.
# checkpatch asks "does MAINTAINERS need updating?" for every file a patch
# adds or deletes; that warning is passed over only when the answer is no:
# every such file is covered by an F: pattern of TREE's MAINTAINERS
# (directory prefixes and exact paths).  Otherwise the uncovered files are
# listed after the report.  Used by qemu-run.sh and scripts/submit.sh.
set -uo pipefail
TREE=${1:?usage: checkpatch-one.sh TREE PATCH}
PATCH=${2:?usage: checkpatch-one.sh TREE PATCH}

uncovered=$(awk 'prev == "--- /dev/null" && /^\+\+\+ b\// { print substr($0, 7) }
	/^\+\+\+ \/dev\/null/ && prev ~ /^--- a\// { print substr(prev, 7) }
	{ prev = $0 }' "$PATCH" |
	while IFS= read -r f; do
		awk -v f="$f" '/^F:/ { p = $2
			if ((p ~ /\/$/ && index(f, p) == 1) || f == p) found = 1 }
			END { exit !found }' "$TREE/MAINTAINERS" || printf '%s\n' "$f"
	done)
ignore=()
[[ -z $uncovered ]] && ignore=(--ignore FILE_PATH_CHANGES)
report=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --color=never "${ignore[@]}" "$PATCH" 2>&1)
printf '%s\n' "$report"
[[ -n $uncovered ]] && printf 'files not covered by MAINTAINERS:\n%s\n' "$uncovered"

total=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks' <<<"$report" | tail -n 1)
if [[ $total =~ ^total:\ 0\ errors,\ 0\ warnings,\ ([0-9]+)\ checks ]]; then
	echo "verdict: clean, ${BASH_REMATCH[1]} CHECK(s)"
	exit 0
fi
echo "verdict: NOT clean (${total:-no total: line from checkpatch})"
exit 1
