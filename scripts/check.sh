#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [qemu-run.sh options...] - everything `make check` runs:
#   1. series hygiene: patches/series applies with git am on the pristine
#      tree, checkpatch.pl --strict is clean on every patch, selftests/
#      matches the patched tree (./qemu-run.sh --check-series); shellcheck
#      on the project's own shell scripts;
#   2. ./qemu-run.sh with the normal, debug and default-on configs.
# Every step runs even if an earlier one failed.  Counts: each hygiene
# check is one test case, plus the suite's cases of each config (a config
# that fails before its tests ran counts as one failure).  The last line
# is the total "N passed, N failed, N skipped"; exit status 0 only if all
# passed.

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1

PASS=0 FAIL=0 SKIP=0
LINES=()
START=$SECONDS

note() { # RESULT NAME
	LINES+=("$(printf '%-4s %s' "$1" "$2")")
}

echo "=== series hygiene: git am, selftests/ vs patches/, checkpatch --strict"
out=$(./qemu-run.sh --check-series "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if grep -q '^\[source [0-9.]*\] [0-9]' <<<"$out"; then
	PASS=$((PASS + 1)); note ok "patches/series applies, selftests/ matches"
else
	FAIL=$((FAIL + 1)); note FAIL "patches/series applies, selftests/ matches"
fi
n_ok=$(grep -c '^  ok   checkpatch ' <<<"$out")
n_bad=$(grep -c '^  FAIL checkpatch ' <<<"$out")
PASS=$((PASS + n_ok)) FAIL=$((FAIL + n_bad))
note "$([[ $n_bad == 0 ]] && echo ok || echo FAIL)" "checkpatch --strict: $n_ok clean, $n_bad with problems"
if [[ $rc != 0 && $rc != 1 ]]; then
	FAIL=$((FAIL + 1)); note FAIL "qemu-run.sh --check-series exit status $rc"
fi

echo "=== shellcheck"
scripts=(qemu-run.sh .ci/run)
for f in scripts/*.sh; do [[ -e $f ]] && scripts+=("$f"); done
sc_bad=0
for f in "${scripts[@]}"; do
	if shellcheck -x "$f"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1)) sc_bad=$((sc_bad + 1)); note FAIL "shellcheck $f"
	fi
done
note "$([[ $sc_bad == 0 ]] && echo ok || echo FAIL)" \
	"shellcheck: ${#scripts[@]} script(s), $sc_bad with problems"

# nolongcreate differential test (fuzz/, README "Differential test"): the
# model's host check counts as one case; 5000 names (seed 1) then run in the
# normal config's boot, before the suite (a disagreement fails that boot).
echo "=== fuzz model check on the host, nlc-fuzz build"
fuzz_dir=$(mktemp -d)
fuzz_run=()
if fuzz/check-model.sh && fuzz/build-static.sh "$fuzz_dir"; then
	PASS=$((PASS + 1)); note ok "fuzz model: contract examples, CP437 table vs nls_cp437.c"
	fuzz_run=(--run "$fuzz_dir/nlc-fuzz --seed 1 --count 5000")
else
	FAIL=$((FAIL + 1)); note FAIL "fuzz model check or nlc-fuzz build"
fi

for cfg in normal debug default-on; do
	echo "=== ./qemu-run.sh --config $cfg"
	log=$(mktemp)
	extra=()
	[[ $cfg == normal ]] && extra=("${fuzz_run[@]}")
	./qemu-run.sh --config "$cfg" "${extra[@]}" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	rm -f "$log"
	if [[ -n $summary ]]; then
		read -r p _ f _ s _ <<<"${summary//,/}"
	else
		p=0 f=0 s=0
	fi
	if [[ $rc != 0 && $f == 0 ]]; then
		f=1
	fi
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	note "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
		"qemu-run.sh --config $cfg: $p passed, $f failed, $s skipped (exit $rc)"
done

echo "=== make check summary ($(( (SECONDS - START) / 60 ))m$(( (SECONDS - START) % 60 ))s)"
printf '%s\n' "${LINES[@]}"
printf '%d passed, %d failed, %d skipped\n' "$PASS" "$FAIL" "$SKIP"
[[ $FAIL == 0 && $PASS -gt 0 ]]
