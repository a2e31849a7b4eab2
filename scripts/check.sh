#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [--kernel LINE]... [--debian-only] [qemu-run.sh options...]: what
# `make check` runs, step by step as docs/testing.md lists them: the docs
# check; per line the series hygiene, the suites in QEMU and the fuzzers;
# then shellcheck and the host tests; Debian's kernels with the DKMS package
# (--debian-only: that part alone, default lines 6.1 and 6.12).  Every step
# runs even if an earlier one failed; the last line is "N passed, N failed,
# N skipped", exit status 0 only if all passed.

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1

# One kernel per line (a build is most of the time; docs/testing.md says
# why these); a line missing here runs normal.
declare -A CONFIG=([6.1]=normal [6.12]=kcsan [7.3]=debug)

CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
KLINES=()
QARGS=()
DEB_ONLY=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) KLINES+=("${2:?--kernel needs a line}"); shift 2 ;;
	--kernel=*) KLINES+=("${1#*=}"); shift ;;
	--cache) CACHE=${2:?--cache needs a directory}; QARGS+=("$1" "$2"); shift 2 ;;
	--cache=*) CACHE=${1#*=}; QARGS+=("$1"); shift ;;
	--debian-only) DEB_ONLY=1; shift ;;
	*) QARGS+=("$1"); shift ;;
	esac
done
if [[ ${#KLINES[@]} -eq 0 ]]; then
	# every line with a series, the default (6.1) first
	mapfile -t KLINES < <(for s in patches/*/series; do s=${s%/series}; echo "${s#patches/}"; done | sort -V)
fi

# the lines' own parts (1-3); --debian-only: none, only part 4
RUN_LINES=("${KLINES[@]}")
((DEB_ONLY)) && RUN_LINES=()

PASS=0 FAIL=0 SKIP=0
declare -A LP=() LF=() LS=()
LINES=()
START=$SECONDS

note() { # RESULT NAME
	LINES+=("$(printf '%-4s %s' "$1" "$2")")
}
count() { # LINE PASS FAIL SKIP
	PASS=$((PASS + $2)) FAIL=$((FAIL + $3)) SKIP=$((SKIP + $4))
	LP[$1]=$((${LP[$1]:-0} + $2)) LF[$1]=$((${LF[$1]:-0} + $3)) LS[$1]=$((${LS[$1]:-0} + $4))
}
elapsed() { # SINCE
	printf '%dm%02ds' $(((SECONDS - $1) / 60)) $(((SECONDS - $1) % 60))
}
# tally LINE STATUS PASSED FAILED OK-NOTE FAIL-NOTE: ok with status 0, none
# failed and some passed; else the failed ones, at least one
tally() {
	if [[ $2 == 0 && ${4:-1} == 0 && ${3:-0} -gt 0 ]]; then
		count "$1" "$3" 0 0; note ok "$5"
	else
		count "$1" "${3:-0}" "$(( ${4:-0} > 0 ? ${4:-0} : 1 ))" 0; note FAIL "$6"
	fi
}

if ((!DEB_ONLY)); then
	echo "=== docs: README.md and docs/ against make help and ./qemu-run.sh --help"
	t0=$SECONDS
	if out=$(scripts/check-docs.sh 2>&1); then
		printf '%s\n' "$out"
		count all 1 0 0; note ok "${out##*$'\n'} ($(elapsed "$t0"))"
	else
		printf '%s\n' "$out"
		count all 0 1 0; note FAIL "${out##*$'\n'} ($(elapsed "$t0"))"
	fi
fi

for kl in "${RUN_LINES[@]}"; do
	echo "=== $kl: series hygiene: git am, selftests/ vs patches/$kl/, checkpatch --strict"
	t0=$SECONDS
	out=$(./qemu-run.sh --kernel "$kl" --check-series "${QARGS[@]}" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if grep -q "^\[source $kl\] [0-9]" <<<"$out"; then
		count "$kl" 1 0 0; note ok "$kl: patches/$kl/series applies, selftests/ matches"
	else
		count "$kl" 0 1 0; note FAIL "$kl: patches/$kl/series applies, selftests/ matches"
	fi
	n_ok=$(grep -c '^  ok   checkpatch ' <<<"$out")
	n_bad=$(grep -c '^  FAIL checkpatch ' <<<"$out")
	count "$kl" "$n_ok" "$n_bad" 0
	note "$([[ $n_bad == 0 ]] && echo ok || echo FAIL)" \
		"$kl: checkpatch --strict: $n_ok clean, $n_bad with problems ($(elapsed "$t0"))"
	if [[ $rc != 0 && $rc != 1 ]]; then
		count "$kl" 0 1 0; note FAIL "$kl: qemu-run.sh --check-series exit status $rc"
	fi
done

if ((DEB_ONLY == 0)); then
	echo "=== shellcheck"
	# the list of make shellcheck, one case per script
	mapfile -t scripts < <(scripts/shellcheck.sh --list)
	sc_bad=0
	for f in "${scripts[@]}"; do
		if shellcheck -x "$f"; then
			count all 1 0 0
		else
			count all 0 1 0; sc_bad=$((sc_bad + 1)); note FAIL "shellcheck $f"
		fi
	done
	note "$([[ $sc_bad == 0 ]] && echo ok || echo FAIL)" \
		"shellcheck: ${#scripts[@]} script(s), $sc_bad with problems"
fi

# fat83's suggester, one case per table row
if ((!DEB_ONLY)); then
	echo "=== make fat83-test"
	if out=$(make -s fat83-test 2>&1); then
		printf '%s\n' "$out" | tail -n 1
		read -r p f < <(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -n 1)
		count all "${p:-0}" "${f:-1}" 0; note ok "fat83 suggester: ${p:-0} passed, ${f:-?} failed"
	else
		printf '%s\n' "$out" | tail -n 20
		count all 0 1 0; note FAIL "fat83 suggester (make fat83-test)"
	fi
fi

# the host tests, one case per "ok:" line
if ((!DEB_ONLY)); then
	for t in fat83-host-test:"fat83 host test" card-host-test:"card host test" kernel-hook-test:"kernel-hook test" \
		kcsan-judge-test:kcsan-judge house-check:house; do
		echo "=== make ${t%%:*}"
		out=$(make -s "${t%%:*}" 2>&1)
		rc=$?
		printf '%s\n' "$out" | grep -E '^FAIL: ' | tail -n 40
		printf '%s\n' "$out" | tail -n 1
		read -r p f < <(printf '%s\n' "$out" | sed -n "s/^${t#*:}: \([0-9]*\) passed, \([0-9]*\) failed\$/\1 \2/p" | tail -n 1)
		tally all "$rc" "$p" "$f" "${t#*:}: ${p:-0} passed, 0 failed" "${t#*:} (make ${t%%:*})"
	done
fi

# the fuzz model's host check, one case per line; nlc-fuzz then runs in each boot
fuzz_dir=$(mktemp -d)
trap 'rm -rf "$fuzz_dir"' EXIT
fuzz_built=0
((DEB_ONLY)) || echo "=== nlc-fuzz build"
((DEB_ONLY)) || { fuzz/build-static.sh "$fuzz_dir" && fuzz_built=1; }
for kl in "${RUN_LINES[@]}"; do
	echo "=== $kl: fuzz model check on the host (fs/nls of linux-source-$kl)"
	tree=$CACHE/src/$kl/linux
	if [[ $fuzz_built == 1 && -f $tree/fs/nls/nls_cp437.c ]] &&
		VFAT_CACHE=$CACHE fuzz/check-model.sh "$tree"; then
		count "$kl" 1 0 0; note ok "$kl: fuzz model: contract examples, CP437 table vs nls_cp437.c"
	else
		count "$kl" 0 1 0
		note FAIL "$kl: fuzz model check or nlc-fuzz build$([[ -f $tree/fs/nls/nls_cp437.c ]] || echo " (no $tree)")"
	fi
done
fuzz_run=()
[[ $fuzz_built == 1 ]] && fuzz_run=(--run "$fuzz_dir/nlc-fuzz --seed 1 --count 5000")

# run_suite LINE CONFIG [qemu-run.sh options...]
run_suite() {
	local kl=$1 cfg=$2 log rc summary p f s t0=$SECONDS label copt kcsan
	shift 2
	# LINE "distro": Debian's kernel with the DKMS modules
	copt=(--kernel "$kl" --config "$cfg")
	label="$kl: qemu-run.sh --config $cfg${*:+ $*}"
	if [[ $kl == distro ]]; then
		copt=(--distro-kernel)
		label="$kl: qemu-run.sh --distro-kernel${*:+ $*}"
	fi
	echo "=== ./qemu-run.sh ${copt[*]} $*"
	log=$(mktemp)
	./qemu-run.sh "${copt[@]}" "$@" "${QARGS[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	# the kcsan config: core code's race reports, listed, not judged
	kcsan=$(grep -oE '^KCSAN: ([0-9]+ race report\(s\) of core code only|no race report of core code only)' "$log" |
		sed -E 's/^KCSAN: ([0-9]+) race report\(s\) of core code only/KCSAN: \1 core-only race report(s) not judged/')
	rm -f "$log"
	if [[ -n $summary ]]; then
		read -r p _ f _ s _ <<<"${summary//,/}"
	else
		p=0 f=0 s=0
	fi
	if [[ $rc != 0 && $f == 0 ]]; then
		f=1
	fi
	count "$kl" "$p" "$f" "$s"
	note "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
		"${label//$fuzz_dir\//}: $p passed, $f failed, $s skipped (exit $rc, $(elapsed "$t0"))${kcsan:+; $kcsan}"
}

# make lookdiff-short with the line's config, one case
run_lookdiff() {
	local kl=$1 t0=$SECONDS out cfg=${CONFIG[$1]-normal}
	echo "=== fuzz/run-lookdiff.sh --kernel $kl --config $cfg --count 2000 --seed 1"
	if out=$(fuzz/run-lookdiff.sh --kernel "$kl" --config "$cfg" --count 2000 --seed 1 "${QARGS[@]}" 2>&1); then
		printf '%s\n' "$out"
		count "$kl" 1 0 0
		note ok "$kl: lookdiff: ${out##*lookdiff: } ($(elapsed "$t0"))"
	else
		printf '%s\n' "$out"
		count "$kl" 0 1 0; note FAIL "$kl: lookdiff: fast path vs without it ($(elapsed "$t0"))"
	fi
}

# make corrupt-short on the two kernels lookdiff built, its checks counted
run_corrupt() {
	local kl=$1 t0=$SECONDS out p f cfg=${CONFIG[$1]-normal}
	echo "=== fuzz/run-corrupt.sh --kernel $kl --config $cfg --count 8 --seed 1"
	out=$(fuzz/run-corrupt.sh --kernel "$kl" --config "$cfg" --count 8 --seed 1 "${QARGS[@]}" 2>&1)
	printf '%s\n' "$out"
	read -r p f < <(printf '%s\n' "$out" | sed -n 's/^corrupt: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -n 1)
	if [[ ${f:-x} == 0 && ${p:-0} -gt 0 ]]; then
		count "$kl" "$p" 0 0; note ok "$kl: $(grep -o 'corrupt: seed .*' <<<"$out" | head -n 1) ($(elapsed "$t0"))"
	else
		count "$kl" "${p:-0}" "$(( ${f:-0} > 0 ? f : 1 ))" 0; note FAIL "$kl: corruption fuzzer (make corrupt-short) ($(elapsed "$t0"))"
	fi
}

# make fat83-guest on the line's kernel just built, its checks counted
run_fat83_guest() {
	local kl=$1 t0=$SECONDS out p f cfg=${CONFIG[$1]-normal}
	echo "=== tools/fat83/guest-test.sh --kernel $kl --config $cfg --no-build"
	out=$(tools/fat83/guest-test.sh --kernel "$kl" --config "$cfg" --no-build "${QARGS[@]}" 2>&1)
	read -r p f < <(printf '%s\n' "$out" | sed -n 's/.*fat83 guest test: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' | tail -n 1)
	if [[ ${f:-x} == 0 && ${p:-0} -gt 0 ]] && grep -q 'fat83 guest test' <<<"$out"; then
		count "$kl" "$p" 0 0; note ok "$kl: fat83 guest test: $p passed ($(elapsed "$t0"))"
	else
		printf '%s\n' "$out" | tail -n 40
		count "$kl" "${p:-0}" "$(( ${f:-0} > 0 ? f : 1 ))" 0; note FAIL "$kl: fat83 guest test ($(elapsed "$t0"))"
	fi
}

# make kunit (kunit.py under UML), one case
run_kunit_uml() {
	local kl=$1 t0=$SECONDS out
	echo "=== scripts/kunit-uml.sh --kernel $kl"
	if out=$(scripts/kunit-uml.sh --kernel "$kl" 2>&1); then
		printf '%s\n' "$out" | tail -n 4
		count "$kl" 1 0 0
		note ok "$kl: kunit.py under UML: $(printf '%s\n' "$out" | grep -o 'Testing complete\..*' | tail -n 1) ($(elapsed "$t0"))"
	else
		printf '%s\n' "$out" | tail -n 40
		count "$kl" 0 1 0; note FAIL "$kl: kunit.py under UML ($(elapsed "$t0"))"
	fi
}

# make kcsan-mutant, one case per check of its TAP
run_kcsan_mutant() {
	local kl=$1 t0=$SECONDS out rc p f
	echo "=== scripts/kcsan-mutant.sh --seconds 30"
	out=$(scripts/kcsan-mutant.sh --cache "$CACHE" --seconds 30 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^#   kcsan: |' | tail -n 30
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	tally "$kl" "$rc" "$p" "$f" \
		"$kl: KCSAN mutant (fs/fat's read of i_mode without the lock vs chmod): caught and judged, the series passes: $p passed ($(elapsed "$t0"))" \
		"$kl: KCSAN mutant (make kcsan-mutant): $p passed, $f failed, exit $rc ($(elapsed "$t0"))"
}

# Debian's kernels and the DKMS package (docs/debian.md): the package is
# made under the runner's lock, then each suite's deb-check runs in the
# background while the lines build and boot, and exports the kernel and
# modules that qemu-run.sh --distro-kernel boots after them.
DLINES=()
declare -A DEB_SUITE=([6.1]=bookworm [6.12]=trixie [7.3]=forky) DEB_NUM=([6.1]=12 [6.12]=13 [7.3]=14)
for kl in 6.1 6.12 7.3; do
	[[ " ${KLINES[*]} " == *" $kl "* ]] && DLINES+=("$kl")
done
declare -A DPID=()
if ((${#DLINES[@]})); then
	deb_t0=$SECONDS
	echo "=== scripts/mkdeb.sh, then scripts/deb-check.sh of $(for kl in "${DLINES[@]}"; do printf '%s ' "${DEB_SUITE[$kl]}"; done)at once, in the background"
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock" # the runner's lock, while the package is made
	flock 9
	mkdeb_ok=0
	scripts/mkdeb.sh --reuse --out "$CACHE/deb-dkms" && mkdeb_ok=1
	exec 9>&-
	if [[ $mkdeb_ok == 1 ]]; then
		for kl in "${DLINES[@]}"; do
			VFAT_NOLONGCREATE_LOCKED=1 scripts/deb-check.sh --suite "${DEB_SUITE[$kl]}" --cache "$CACHE" \
				--export "$CACHE/deb-check-${DEB_NUM[$kl]}/export" </dev/null >"$fuzz_dir/deb-check-$kl.log" 2>&1 &
			DPID[$kl]=$!
		done
	fi
fi

for kl in "${RUN_LINES[@]}"; do
	run_suite "$kl" "${CONFIG[$kl]-normal}" "${fuzz_run[@]}"
	# the fast path (0008) is the same code on every line: its lookup
	# differential test on the newest line, mainline
	[[ $kl == "${RUN_LINES[-1]}" ]] && run_lookdiff "$kl"
	[[ $kl == "${RUN_LINES[-1]}" ]] && run_corrupt "$kl"
	[[ $kl == "${RUN_LINES[-1]}" ]] && run_kunit_uml "$kl"
	[[ $kl == "${RUN_LINES[0]}" ]] && run_fat83_guest "$kl"
	[[ ${CONFIG[$kl]-normal} == kcsan ]] && run_kcsan_mutant "$kl"
done

for kl in "${DLINES[@]}"; do
	suite=${DEB_SUITE[$kl]}
	rc=1
	[[ -n ${DPID[$kl]:-} ]] && { wait "${DPID[$kl]}"; rc=$?; }
	echo "=== scripts/deb-check.sh --suite $suite"
	cat "$fuzz_dir/deb-check-$kl.log" 2>/dev/null
	if [[ $rc == 0 ]]; then
		count distro 1 0 0; note ok "distro: deb-check $suite: older ABI refused, newer ABI built on upgrade, broken build refused, apt exit 0, purge leaves nothing (both suites, from their start: $(elapsed "$deb_t0"))"
	else
		count distro 0 1 0; note FAIL "distro: deb-check $suite (exit $rc, both suites, from their start: $(elapsed "$deb_t0"))"
	fi
done
for kl in "${DLINES[@]}"; do
	[[ $kl != 7.3 ]] || continue
	run_suite distro - --kernel "$kl"
	[[ $kl == 6.1 ]] || continue
	# The negative control: the stock modules (the built ones left out)
	# must fail the srcversion proof, and every case must skip.
	echo "=== ./qemu-run.sh --distro-kernel --no-dkms (must fail)"
	t0=$SECONDS
	./qemu-run.sh --distro-kernel --kernel "$kl" --no-dkms "${QARGS[@]}" >"$fuzz_dir/no-dkms.log" 2>&1
	rc=$?
	tail -n 6 "$fuzz_dir/no-dkms.log"
	if [[ $rc == 1 ]] && grep -q ': NOT ours$' "$CACHE/results/$kl/distro-stock/modules.txt" 2>/dev/null &&
		grep -q 'skipped every case (counted as failed)' "$fuzz_dir/no-dkms.log"; then
		count distro 1 0 0; note ok "distro: --no-dkms fails as it must: stock modules NOT ours, every case skipped ($(elapsed "$t0"))"
	else
		count distro 0 1 0; note FAIL "distro: --no-dkms did not fail as it must (exit $rc) ($(elapsed "$t0"))"
	fi
done

# The card owner's desktop path and Secure Boot, in the deb-check roots
# (make card-guest, scripts/sigenforce-guest.sh; docs/card-owner.md).
CSUITES=() CNAMES=()
for kl in "${DLINES[@]}"; do CSUITES+=(--suite "${DEB_SUITE[$kl]}") CNAMES+=("${DEB_SUITE[$kl]}"); done
# guest_step NAME WHAT TAIL SCRIPT [ARGS...]: a guest script that prints TAP
# ("ok"/"not ok" lines), counted on the distro line; the output but its
# "ok" lines, its last TAIL lines, is shown; ok needs exit 0, no "not ok"
# and at least one "ok"
guest_step() {
	local name=$1 what=$2 n=$3 t0=$SECONDS out rc p f
	shift 3
	echo "=== $* ${CSUITES[*]}"
	out=$("$@" --cache "$CACHE" "${CSUITES[@]}" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^ok ' | tail -n "$n"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	tally distro "$rc" "$p" "$f" "distro: $name ${CNAMES[*]} ($what): $p passed ($(elapsed "$t0"))" \
		"distro: $name ${CNAMES[*]}: $p passed, $f failed, exit $rc ($(elapsed "$t0"))"
}
if ((${#CSUITES[@]})); then
	guest_step "card guest" "udisks2, nolongcreate-card, writers' table" 80 scripts/card-guest.sh
	guest_step "module.sig_enforce=1 guest" \
		"DKMS modules refused, the kernel's own loaded, fstab vfat and udisks2 mount, modprobe vfat in Debian's initramfs; and the guest without" \
		60 scripts/sigenforce-guest.sh
fi

echo "=== make check summary ($(elapsed "$START"))"
printf '%s\n' "${LINES[@]}"
for kl in "${RUN_LINES[@]}"; do
	printf 'linux-source-%s: %d passed, %d failed, %d skipped\n' "$kl" "${LP[$kl]:-0}" "${LF[$kl]:-0}" "${LS[$kl]:-0}"
done
if ((${#DLINES[@]})); then
	printf "Debian's linux-image + DKMS: %d passed, %d failed, %d skipped\n" "${LP[distro]:-0}" "${LF[distro]:-0}" "${LS[distro]:-0}"
fi
((DEB_ONLY)) || printf 'all lines (docs, shellcheck): %d passed, %d failed, %d skipped\n' "${LP[all]:-0}" "${LF[all]:-0}" "${LS[all]:-0}"
printf '%d passed, %d failed, %d skipped\n' "$PASS" "$FAIL" "$SKIP"
[[ $FAIL == 0 && $PASS -gt 0 ]]
