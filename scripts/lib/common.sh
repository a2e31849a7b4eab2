# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the project's scripts: . "$REPO/scripts/lib/common.sh"
PROG=${PROG:-${0##*/}}

# die [STATUS] MESSAGE...: "PROG: MESSAGE" on stderr, exit STATUS (a digit; 1)
die() {
	local st=1
	[[ $# -gt 1 && $1 == [0-9] ]] && { st=$1; shift; }
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit "$st"
}

# A host test's cases: "ok: WHAT" / "FAIL: WHAT" lines, counted; that WHAT
# CMD... is ok when CMD succeeds; summary NAME prints the counts last and
# returns 0 only if none failed.
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
that() { if "${@:2}"; then ok "$1"; else bad "$1"; fi; }
summary() { echo "$1: $pass passed, $fail failed"; [[ $fail == 0 ]]; }
