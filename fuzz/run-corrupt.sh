#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-corrupt.sh [--seed S] [--count N] [--chunk C] [--kernel LINE] [--config CFG]
#                [--only with|without] [--plus PATCH] [qemu-run.sh options...]
# The corruption fuzzer: N broken images of seed S (fuzz/corrupt.c) on the
# kernel with the 8.3 fast path ($FAST) and without it, C images a boot; a
# splat is run again on the pristine kernel to say whose it is.  Last line
# "corrupt: N passed, N failed"; make corrupt; docs/testing.md "Broken images".
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
FAST=fat-show-plain-ASCII-8.3-names
COUNT=200 SEED='' CHUNK=100 KLINE=7.3 CFG=debug KINDS=(with without)
QARGS=() PLUS=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--count) COUNT=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--chunk) CHUNK=$2; shift 2 ;;
	--kernel) KLINE=$2; shift 2 ;;
	--config) CFG=$2; shift 2 ;;
	--only) KINDS=("$2"); shift 2 ;;
	--plus) PLUS=(--plus "$2"); shift 2 ;;
	--cache) CACHE=$2; QARGS+=("$1" "$2"); shift 2 ;;
	*) QARGS+=("$1"); shift ;;
	esac
done
[[ $COUNT =~ ^[1-9][0-9]*$ && $CHUNK =~ ^[1-9][0-9]*$ ]] || { echo "run-corrupt.sh: --count and --chunk want a positive number" >&2; exit 2; }
[[ ${KINDS[*]} == with || ${KINDS[*]} == without || ${#KINDS[@]} == 2 ]] || { echo "run-corrupt.sh: --only wants with or without" >&2; exit 2; }
[[ -n $SEED ]] || SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
OUT=$CACHE/corrupt
# this run's program and logs, apart from another run's (make check's and a
# long one at once); removed when it passes
R=$OUT/run-$SEED-$$
mkdir -p "$R"
"$REPO/fuzz/build-static.sh" "$R/bin"
BIN=$R/bin/nlc-corrupt
REPRO="$0 --seed $SEED --count $COUNT --kernel $KLINE --config $CFG${PLUS[*]:+ ${PLUS[*]}}${QARGS[*]:+ ${QARGS[*]}}"
echo "=== nlc-corrupt --seed $SEED, images 0-$((COUNT - 1)), linux-source-$KLINE ($CFG${PLUS[*]:+ ${PLUS[*]}}): ${KINDS[*]/%/ $FAST}"

# boot TAG START N [qemu-run.sh options...]: images START.. of the seed;
# the log in $R/TAG.log, the console in $R/TAG.console; status of qemu-run.sh
boot() {
	local tag=$1 start=$2 n=$3 rc=0 res
	shift 3
	# ~5-10 s an image under TCG on the debug kernel (some 30 s); the guest stops an image after 300 s
	"$REPO/qemu-run.sh" --kernel "$KLINE" --config "$CFG" "$@" --no-suite --timeout $((400 + n * 20)) \
		--run "$BIN --seed $SEED --start $start --count $n" "${QARGS[@]}" >"$R/$tag.log" 2>&1 || rc=$?
	res=$(sed -n 's/^results: //p' "$R/$tag.log" | tail -n 1)
	cp "$res/console.log" "$R/$tag.console" 2>/dev/null || : >"$R/$tag.console"
	BUILT=${res/\/results\//\/build\/}
	return "$rc"
}

# the image under way at the first splat (else the last begun), or nothing
failed_image() { # TAG
	local first
	first=$(sed -n '/kernel splat lines:/,/last 30 console lines/s/^  | //p' "$R/$1.log" | head -n 1)
	tr -d '\r' <"$R/$1.console" | awk -v splat="$first" '
		/nlc-corrupt: image [0-9]+ seed / { for (i = 1; i < NF; i++) if ($i == "image") img = $(i + 1) }
		splat != "" && index($0, splat) { exit }
		END { print img }'
}

SUM_IMAGES=0 SUM_OPS=0 PASS=0 FAIL=0 SPLATS_OURS=0 SPLATS_PRISTINE=0 PRISTINE_IMAGES=()
for kind in "${KINDS[@]}"; do
	args=("${PLUS[@]}")
	[[ $kind == without ]] && args+=(--without "$FAST")
	start=0 ok=1 t0=$SECONDS kbuilt=''
	: >"$R/$kind.txt"
	while ((start < COUNT)); do
		n=$((COUNT - start < CHUNK ? COUNT - start : CHUNK))
		tag=$kind-$start
		boot "$tag" "$start" "$n" "${args[@]}" && rc=0 || rc=$?
		kbuilt=$BUILT
		if [[ $rc == 0 ]]; then
			tr -d '\r' <"$R/$tag.log" | grep -E '^(IMAGE|TOTAL) ' >>"$R/$kind.txt" || true
			start=$((start + n))
			continue
		fi
		# the guest died: its IMAGE lines from the console
		tr -d '\r' <"$R/$tag.console" | grep -oE 'IMAGE [0-9]+ fat[0-9]+' >>"$R/$kind.txt" || true
		img=$(failed_image "$tag")
		echo "  $kind: the boot of images $start-$((start + n - 1)) failed:"
		grep -E '^(qemu-run.sh: |  \| )' "$R/$tag.log" | head -n 24 | sed 's/^/    /'
		if [[ -z $img ]]; then
			echo "  $kind: no image was under way (log $R/$tag.log)"
			ok=0
			break
		fi
		"$BIN" --seed "$SEED" --start "$img" --write-image "$OUT/seed-$SEED-image-$img.img" | sed 's/^/  /'
		echo "  $kind: image $img; run again alone on the pristine linux-source-$KLINE ($CFG-pristine)"
		if boot "pristine-$img" "$img" 1 --pristine; then
			echo "  $kind: image $img passes on the pristine kernel: the failure is the series' (log $R/$tag.log)"
			SPLATS_OURS=$((SPLATS_OURS + 1))
			ok=0
			break
		fi
		grep -E '^  \| ' "$R/pristine-$img.log" | head -n 8 | sed 's/^/    pristine: /'
		echo "  $kind: image $img fails on the pristine kernel too: the pristine kernel's, not the series'; going on after it"
		SPLATS_PRISTINE=$((SPLATS_PRISTINE + 1))
		PRISTINE_IMAGES+=("$img")
		start=$((img + 1))
	done
	# the debug kernel is what it says (merge_config.sh drops options with unmet dependencies)
	for o in CONFIG_KASAN=y CONFIG_UBSAN=y CONFIG_PROVE_LOCKING=y; do
		[[ $CFG != debug ]] || grep -qx "$o" "${kbuilt:-/nonexistent}/.config" 2>/dev/null || {
			echo "  $kind: $o is not in ${kbuilt:-the build}/.config"
			ok=0
		}
	done
	# not vacuous: every image run, operations of every kind, nolongcreate refusing a long name
	images=$(grep -oE '^IMAGE [0-9]+ ' "$R/$kind.txt" | sort -u | wc -l)
	fields=(mounts mount_fail nolongcreate_mounts cut_short ops readdir lookup read create mkdir rename unlink long_refused long_made)
	declare -A T=()
	for f in "${fields[@]}"; do
		T[$f]=$(awk -v f="$f" '/^TOTAL / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) {
			n = split(kv[2], v, "/"); s += v[n]; if (n == 2) ok += v[1] } } }
			END { printf "%s%d", (ok != "" ? ok "/" : ""), s }' "$R/$kind.txt")
	done
	want=$((COUNT - ${#PRISTINE_IMAGES[@]}))
	if ((ok)); then
		((images + ${#PRISTINE_IMAGES[@]} >= COUNT)) || { echo "  $kind: $images images run, want $want"; ok=0; }
		for f in ops readdir lookup read create mkdir rename unlink nolongcreate_mounts; do
			((${T[$f]##*/} > 0)) || { echo "  $kind: no $f"; ok=0; }
		done
		[[ ${T[long_refused]%%/*} -gt 0 ]] || { echo "  $kind: nolongcreate never refused a long name"; ok=0; }
		[[ ${T[long_made]} == 0 ]] || { echo "  $kind: ${T[long_made]} files with a name that is not 8.3 made under nolongcreate"; ok=0; }
	fi
	echo "  $kind: $images images, ${T[mounts]} mounts (${T[mount_fail]} refused, ${T[nolongcreate_mounts]} with nolongcreate, ${T[cut_short]} cut short after 60 s), ${T[ops]} operations: readdir ${T[readdir]}, lookup ${T[lookup]}, read ${T[read]}, create ${T[create]}, mkdir ${T[mkdir]}, rename ${T[rename]}, unlink/rmdir ${T[unlink]} (succeeded/made); names that are not 8.3 refused by nolongcreate ${T[long_refused]}, made ${T[long_made]} ($((SECONDS - t0)) s)"
	SUM_IMAGES=$((SUM_IMAGES + images)) SUM_OPS=$((SUM_OPS + T[ops]))
	if ((ok)); then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); fi
	unset T
done
echo "corrupt: seed $SEED, $SUM_IMAGES images, $SUM_OPS operations on ${#KINDS[@]} kernel(s); splats: $SPLATS_OURS of the series, $SPLATS_PRISTINE of the pristine kernel${PRISTINE_IMAGES[*]:+ (images ${PRISTINE_IMAGES[*]})}"
((FAIL == 0)) || echo "run-corrupt.sh: FAILED; reproduce: $REPRO" >&2
echo "corrupt: $PASS passed, $FAIL failed"
((FAIL == 0)) && rm -rf "$R"
