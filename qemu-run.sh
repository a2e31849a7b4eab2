#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh - build one kernel line's Debian linux-source with
# patches/LINE/series and the fat kselftests, boot it in QEMU from a generated
# initramfs and judge the suites' run there.  ./qemu-run.sh --help for the
# options; docs/runner.md for the stages and the cache.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG=${0##*/}

# ---------------------------------------------------------------- defaults --
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
# Debian's linux-source-LINE, one patches/LINE/ each, the default first; 7.x
# are mainline, from experimental or unstable (scripts/mainline-source.sh).
LINES=(6.1 6.12 7.3)
LINE=${LINES[0]}
TESTS=()
TEST_ARGS=()
SUITE=filesystems/fat
# The project's extended suite (selftests/$EXT_SUITE): not in the series,
# copied into the patched tree and built and run next to $SUITE.
EXT_SUITE=filesystems/fat_extended
CONFIGS=()
MODE=tests            # tests | shell | kernel-only | check-series
NO_BUILD=0
JOBS=$(nproc 2>/dev/null || echo 2)
KEEP=0
TIMEOUT=900
TIMEOUT_SET=0
ACCEL=tcg
VERBOSE=0
GUEST_CMD=
RUNS=()
NO_SUITE=0
DISTRO=0
NO_DKMS=0
WITHOUT=
PLUS=
PRISTINE=0
MEM=1G
SMP=2,sockets=2,cores=1,threads=1  # one CPU per socket, as the firmware's MP table lists packages
# qboot, not SeaBIOS: it jumps straight to the kernel (the first kernel line
# ~0.09 s sooner under TCG, bench/boot-times.md).
BIOS=/usr/share/qemu/qboot.rom

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Build Debian's linux-source-LINE with patches/LINE/series applied (7.3, the
mainline line: fetched by scripts/mainline-source.sh) and the $SUITE and
$EXT_SUITE kselftests, boot the kernel in QEMU and run them.  Prints the TAP
and last "N passed, N failed, N skipped".  Exit status: 0 all passed, 1 a
failure (patch, config, build, test, kernel splat, guest hang), 2 usage
error or missing packages (not root).  More in docs/runner.md.

Options:
  --kernel LINE            kernel line: ${LINES[*]} (default ${LINES[0]})
  --config NAME[,NAME...]  config-fragments/NAME.config on top of base.config:
                           normal (base only, default), debug (KASAN, lockdep,
                           UBSAN...), kcsan (KCSAN, no KASAN); repeatable
  --shell                  an interactive shell in the guest, a 64 MiB vfat
                           image on /dev/loop0; no timeout unless --timeout
  --distro-kernel          Debian's own kernel of the line (7.3: Debian 14's
                           7.2) with the DKMS-built fat modules
                           (scripts/deb-check.sh --export); the guest proves
                           they are the ones loaded, then runs the suites
  --no-dkms                with --distro-kernel: the stock modules (must fail)
  --without PATCH          the series without PATCH (a file name of the
                           series, with or without its number); config
                           <config>-without-NNNN
  --plus PATCH             the series plus the patch file PATCH (a mutant);
                           config <config>-plus-NAME
  --pristine               the source without the series, no suites (with
                           --no-suite); config <config>-pristine
  --kernel-only            build kernel and selftests, do not boot
  --check-series           only apply the series, check selftests/ against it
                           and run checkpatch.pl --strict on every patch
  --no-build               reuse the last kernel + selftests of that config
  --guest-cmd 'CMD'        run CMD (bash -c) in the guest before the suites;
                           a non-zero exit status fails the run
  --run 'PROG [ARGS]'      copy the host executable PROG (static) into the
                           guest and run it after --guest-cmd; repeatable
  --no-suite               with --guest-cmd/--run: run only those, not the suite
  --test PROG[:ARGS]       run only test program PROG of the suites
                           (run_kselftest.sh -t $SUITE:PROG or
                           $EXT_SUITE:PROG); repeatable.
                           ARGS go to PROG through the kselftest runner's
                           KSELFTEST_<PROG>_ARGS, e.g. the 6.12 harness's
                           -t/-f/-v filters: --test 'nlc_races:-t
                           toggle_under_load_is_atomic' (refused on 6.1,
                           whose harness ignores arguments)
  --jobs N                 make -jN (default: $JOBS)
  --cache DIR              cache dir (default: \${XDG_CACHE_HOME:-\$HOME/.cache}/vfat-nolongcreate)
  --keep                   keep the initramfs staging dir and cpio
  --timeout SECS           hard host-side limit for one boot (default $TIMEOUT)
  --accel tcg|kvm|auto     QEMU accelerator (default tcg; auto: KVM if a short
                           probe boot succeeds)
  --verbose                show build output and the guest console live
  -h, --help               this help

Results: <cache>/results/<line>/<config>/{tap.txt,console.log,summary.txt,...}
EOF
}

die_usage() {
	echo "$PROG: $*" >&2
	echo "Try '$PROG --help'." >&2
	exit 2
}

need_arg() {
	[[ $# -ge 2 && -n $2 ]] || die_usage "option $1 needs an argument"
}

while [[ $# -gt 0 ]]; do
	opt=$1
	if [[ $opt == --*=* ]]; then
		set -- "${opt%%=*}" "${opt#*=}" "${@:2}"
		opt=$1
	fi
	case $opt in
	-h | --help) usage; exit 0 ;;
	--kernel) need_arg "$@"; LINE=$2; shift 2 ;;
	--test) need_arg "$@"; TESTS+=("$2"); shift 2 ;;
	--config) need_arg "$@"; IFS=, read -r -a _c <<<"$2"; CONFIGS+=("${_c[@]}"); shift 2 ;;
	--shell) MODE=shell; shift ;;
	--kernel-only) MODE=kernel-only; shift ;;
	--distro-kernel) DISTRO=1; shift ;;
	--no-dkms) NO_DKMS=1; shift ;;
	--without) need_arg "$@"; WITHOUT=$2; shift 2 ;;
	--plus) need_arg "$@"; PLUS=$2; shift 2 ;;
	--pristine) PRISTINE=1; shift ;;
	--check-series) MODE=check-series; shift ;;
	--no-build) NO_BUILD=1; shift ;;
	--guest-cmd) need_arg "$@"; GUEST_CMD=$2; shift 2 ;;
	--run) need_arg "$@"; RUNS+=("$2"); shift 2 ;;
	--no-suite) NO_SUITE=1; shift ;;
	--jobs | -j) need_arg "$@"; JOBS=$2; shift 2 ;;
	--cache) need_arg "$@"; CACHE=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--timeout) need_arg "$@"; TIMEOUT=$2; TIMEOUT_SET=1; shift 2 ;;
	--accel) need_arg "$@"; ACCEL=$2; shift 2 ;;
	--verbose | -v) VERBOSE=1; shift ;;
	*) die_usage "unknown option: $opt" ;;
	esac
done

[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs wants a positive number"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout wants a positive number of seconds"
case $ACCEL in tcg | kvm | auto) ;; *) die_usage "--accel wants tcg, kvm or auto" ;; esac
[[ " ${LINES[*]} " == *" $LINE "* ]] || die_usage "--kernel wants one of: ${LINES[*]} (not '$LINE')"
[[ -f $REPO/patches/$LINE/series ]] || die_usage "no patches/$LINE/series for kernel line $LINE"
PATCHDIR=$REPO/patches/$LINE
MAINLINE=0
[[ $LINE == 7.* ]] && MAINLINE=1
TARBALL=${VFAT_KERNEL_TARBALL:-/usr/src/linux-source-$LINE.tar.xz}
SRCPKG=linux-source-$LINE
for t in "${TESTS[@]}"; do
	tprog=${t%%:*}
	[[ $tprog =~ ^[A-Za-z0-9._-]+$ ]] || die_usage "--test wants PROG[:ARGS] (bad program name '$tprog')"
	if [[ $t == *:* ]]; then
		tvar=${tprog^^}
		TEST_ARGS+=("KSELFTEST_${tvar//[^A-Z0-9_]/_}_ARGS" "${t#*:}")
	fi
done
if [[ $DISTRO == 1 ]]; then
	# Debian 12's kernel is the 6.1 line, Debian 13's the 6.12 line, Debian 14's 7.2 takes the 7.3 series
	[[ $LINE == 6.1 || $LINE == 6.12 || $LINE == 7.3 ]] ||
		die_usage "--distro-kernel is Debian 12's 6.1, Debian 13's 6.12 or (--kernel 7.3) Debian 14's 7.2 kernel (not --kernel $LINE)"
	[[ ${#CONFIGS[@]} -gt 0 ]] && die_usage "--distro-kernel takes Debian's config: no --config"
	[[ $MODE == check-series ]] && die_usage "--distro-kernel and --check-series do not mix"
	[[ $NO_BUILD == 1 ]] && die_usage "--distro-kernel builds nothing big: no --no-build"
	[[ -n $WITHOUT ]] && die_usage "--distro-kernel takes the whole series: no --without"
	[[ -n $PLUS ]] && die_usage "--distro-kernel takes the whole series: no --plus"
elif [[ $NO_DKMS == 1 ]]; then
	die_usage "--no-dkms goes with --distro-kernel"
fi
if [[ $PRISTINE == 1 ]]; then
	[[ $DISTRO == 1 || -n $WITHOUT || -n $PLUS || $MODE == check-series || $MODE == shell ]] &&
		die_usage "--pristine is the source without any patch: no --distro-kernel, --without, --plus, --check-series or --shell"
	[[ $NO_SUITE == 1 || $MODE == kernel-only ]] || die_usage "--pristine has no suites: it needs --no-suite"
fi
if [[ $NO_SUITE == 1 && -z $GUEST_CMD && ${#RUNS[@]} -eq 0 ]]; then
	die_usage "--no-suite needs --guest-cmd or --run"
fi

# Normalise the config set: sorted, unique, 'normal' and 'base' dropped.
declare -A _seen=()
FRAGS=()
for c in "${CONFIGS[@]}"; do
	c=${c//[[:space:]]/}
	case $c in "" | normal | base) continue ;; esac
	[[ $c =~ ^[A-Za-z0-9_-]+$ ]] || die_usage "bad config name: $c"
	[[ -f $REPO/config-fragments/$c.config ]] ||
		die_usage "unknown config '$c' (no config-fragments/$c.config)"
	[[ -n ${_seen[$c]:-} ]] && continue
	_seen[$c]=1
	FRAGS+=("$c")
done
if [[ ${#FRAGS[@]} -gt 0 ]]; then
	mapfile -t FRAGS < <(printf '%s\n' "${FRAGS[@]}" | sort)
	CFGNAME=$(IFS=+; echo "${FRAGS[*]}")
else
	CFGNAME=normal
fi
if [[ $DISTRO == 1 ]]; then
	CFGNAME=distro
	[[ $NO_DKMS == 1 ]] && CFGNAME=distro-stock
fi
# Patch files named in patches/series, in order (absolute paths).
series_patches() {
	local series=$PATCHDIR/series line
	[[ -f $series && $PRISTINE == 0 ]] || return 0
	while IFS= read -r line || [[ -n $line ]]; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[[ -z $line || ${line##*/} == "$WITHOUT_FILE" ]] && continue
		printf '%s\n' "$PATCHDIR/$line"
	done <"$series"
	[[ -z $PLUS ]] || printf '%s\n' "$PLUS"
}

# --without: the one entry of the series it names, and a config name of its own
WITHOUT_FILE=
if [[ -n $WITHOUT ]]; then
	[[ $MODE == check-series ]] && die_usage "--without and --check-series do not mix"
	mapfile -t _m < <(series_patches | sed 's|.*/||' |
		awk -v w="$WITHOUT" '$0 == w || index($0, w) == 1 || index(substr($0, 6), w) == 1')
	[[ ${#_m[@]} -eq 1 ]] ||
		die_usage "--without $WITHOUT matches ${#_m[@]} patches of patches/$LINE/series, not one"
	WITHOUT_FILE=${_m[0]}
	CFGNAME+=-without-${WITHOUT_FILE%%-*}
fi
[[ $PRISTINE == 1 ]] && CFGNAME+=-pristine
# --plus: one more patch after the series, a config name of its own
if [[ -n $PLUS ]]; then
	[[ $MODE == check-series ]] && die_usage "--plus and --check-series do not mix"
	[[ -f $PLUS ]] || die_usage "--plus $PLUS: no such file"
	PLUS=$(cd "$(dirname "$PLUS")" && pwd -P)/${PLUS##*/}
	_n=${PLUS##*/}
	_n=${_n%.patch}
	CFGNAME+=-plus-${_n//[^A-Za-z0-9_.-]/_}
fi

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd -P)
case $CACHE/ in
"$REPO"/*) die_usage "the cache dir must not be inside the repository ($CACHE)" ;;
esac

SRCROOT=$CACHE/src/$LINE
SRC=$SRCROOT/linux
BUILD=$CACHE/build/$LINE/$CFGNAME
RESULTS=$CACHE/results/$LINE/$CFGNAME
KSFT=$BUILD/kselftest_install
LOGDIR=$RESULTS/logs
mkdir -p "$RESULTS" "$LOGDIR"
export CCACHE_DIR=$CACHE/ccache
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Reproducible build identity: warm rebuilds and ccache hits.
export KBUILD_BUILD_USER=vfat KBUILD_BUILD_HOST=nolongcreate
export KBUILD_BUILD_TIMESTAMP="1970-01-01"

# ------------------------------------------------------------ stage helpers --
STAGE=
STAGE_START=0
STAGE_LOG=

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

stage_begin() {
	STAGE=$1
	STAGE_LOG=$LOGDIR/$1.log
	STAGE_START=$SECONDS
	: >"$STAGE_LOG"
}

stage_end() {
	printf '[%s %s] %s%s\n' "$STAGE" "$LINE" "$(fmt_time $((SECONDS - STAGE_START)))" "${1:+ $1}"
}

show_log_tail() {
	local log=$1
	echo "  log: $log" >&2
	if [[ -s $log ]]; then
		echo "  --- last 30 lines ---" >&2
		tail -n 30 "$log" | sed 's/^/  | /' >&2
	fi
}

# fail MESSAGE...: stage failure, with the stage log's tail.
fail() {
	printf '[%s %s] FAILED after %s\n' "$STAGE" "$LINE" "$(fmt_time $((SECONDS - STAGE_START)))" >&2
	printf '%s: %s\n' "$PROG" "$*" >&2
	[[ -n $STAGE_LOG ]] && show_log_tail "$STAGE_LOG"
	exit 1
}

# run CMD...: run with output to the stage log (and the terminal if --verbose).
run() {
	printf '+ %s\n' "$*" >>"$STAGE_LOG"
	if [[ $VERBOSE == 1 ]]; then
		"$@" 2>&1 | tee -a "$STAGE_LOG"
		return "${PIPESTATUS[0]}"
	fi
	"$@" >>"$STAGE_LOG" 2>&1
}

# ------------------------------------------------------------------- deps ---
# command-or-file : Debian package
DEPS=(
	gcc:gcc make:make bc:bc bison:bison flex:flex cpio:cpio xz:xz-utils
	perl:perl git:git ccache:ccache flock:util-linux losetup:mount
	mount:mount mountpoint:util-linux setsid:util-linux timeout:coreutils
	ldd:libc-bin qemu-system-x86_64:qemu-system-x86 mkfs.vfat:dosfstools
	fsck.vfat:dosfstools mcopy:mtools chattr:e2fsprogs dash:dash
	mawk:mawk diff:diffutils patch:patch find:findutils sed:sed grep:grep
	rsync:rsync
	/bin/busybox:busybox-static "$BIOS":qemu-system-data
	/usr/include/gelf.h:libelf-dev /usr/include/openssl/ssl.h:libssl-dev
	dpkg-deb:dpkg
)
# a mainline line's source is fetched by stage_source, not installed
[[ $MAINLINE == 1 || -n ${VFAT_KERNEL_TARBALL:-} ]] || DEPS+=("$TARBALL":"$SRCPKG")

stage_deps() {
	stage_begin deps
	local extra=() missing=() d what pkg
	[[ $MODE == check-series ]] && extra=(shellcheck:shellcheck)
	[[ $DISTRO == 1 ]] && extra=(dkms:dkms depmod:kmod modinfo:kmod
		dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms
		lintian:lintian openssl:openssl)
	for d in "${DEPS[@]}" "${extra[@]}"; do
		what=${d%:*} pkg=${d##*:}
		if [[ $what == /* ]]; then
			[[ -e $what ]] && continue
		else
			PATH=$PATH:/usr/sbin:/sbin command -v "$what" >/dev/null 2>&1 && continue
		fi
		[[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
	done
	if [[ ${#missing[@]} -gt 0 ]]; then
		local cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
		if [[ $(id -u) != 0 ]]; then
			echo "$PROG: missing packages: ${missing[*]}" >&2
			echo "Install them as root with:" >&2
			echo "  $cmd" >&2
			exit 2
		fi
		echo "[deps $LINE] installing: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		run apt-get update </dev/null ||
			fail "apt-get update failed"
		run apt-get install -y --no-install-recommends "${missing[@]}" </dev/null ||
			fail "apt-get install ${missing[*]} failed"
	fi
	stage_end
}

# ----------------------------------------------------------------- source ---
git_s() { git -C "$SRC" -c user.name="vfat-nolongcreate runner" \
	-c user.email=runner@vfat-nolongcreate.invalid -c advice.detachedHead=false \
	-c gc.auto=0 "$@"; }

ensure_pristine() {
	local stamp want ver
	if [[ $MAINLINE == 1 && -z ${VFAT_KERNEL_TARBALL:-} ]]; then
		{ read -r TARBALL && read -r ver; } < <("$REPO/scripts/mainline-source.sh" "$CACHE" "$LINE" 2>>"$STAGE_LOG" ||
			true)
		grep '^mainline-source.sh: ' "$STAGE_LOG" | sed 's/^mainline-source.sh: /  /' >&2 || true
		[[ -n ${ver:-} ]] || fail "no $SRCPKG from Debian's archive (scripts/mainline-source.sh)"
	else
		ver=$(dpkg-query -W -f '${Version}' "$SRCPKG" 2>/dev/null || true)
	fi
	SRCVER=$ver
	want="$(stat -c '%n %s %Y' "$TARBALL") $ver"
	stamp=$SRCROOT/pristine.stamp
	if [[ -f $stamp && $(cat "$stamp") == "$want" && -d $SRC/.git ]] &&
		git_s rev-parse -q --verify pristine >/dev/null; then
		return 0
	fi
	echo "  extracting $TARBALL into $SRC (once)" >>"$STAGE_LOG"
	rm -rf "$SRCROOT"
	mkdir -p "$SRCROOT/tmp"
	run tar -C "$SRCROOT/tmp" -xf "$TARBALL" || fail "cannot extract $TARBALL"
	local top
	top=$(find "$SRCROOT/tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[[ -f $top/Makefile ]] || fail "no kernel tree in $TARBALL"
	mv "$top" "$SRC"
	rmdir "$SRCROOT/tmp"
	ver=$(make -s -C "$SRC" kernelversion 2>/dev/null) || ver=unknown
	run git -C "$SRC" init -q || fail "git init failed"
	# The tree's .gitignore ignores /* and friends, hence -f.
	run git_s add -f -A || fail "git add failed"
	run git_s commit -q -m "pristine linux-source $ver" || fail "git commit failed"
	run git_s tag -f pristine || fail "git tag failed"
	printf '%s\n' "$want" >"$stamp"
}

stage_source() {
	stage_begin source
	ensure_pristine
	local patches=() p key
	mapfile -t patches < <(series_patches)
	for p in "${patches[@]}"; do
		[[ -f $p ]] || fail "patches/$LINE/series names ${p#"$REPO"/}, which does not exist"
	done
	# The applied state is keyed on the series content; a clean tree with
	# the same key is reused untouched (keeps mtimes, so no rebuild).
	key=$( { git_s rev-parse pristine; for p in "${patches[@]}"; do
		printf '%s\n' "${p##*/}"; sha256sum <"$p"; done; } | sha256sum | cut -d' ' -f1)
	if [[ -f $SRCROOT/applied.key && $(cat "$SRCROOT/applied.key") == "$key" &&
		$(git_s rev-parse HEAD) == $(cat "$SRCROOT/applied.head" 2>/dev/null) &&
		-z $(git_s status --porcelain --ignored --untracked-files=all | head -n 1) ]]; then
		echo "  tree already at this series, reused" >>"$STAGE_LOG"
	else
		rm -f "$SRCROOT/applied.key"
		if [[ -d $SRC/.git/rebase-apply ]]; then
			git_s am --abort >>"$STAGE_LOG" 2>&1 || true
		fi
		run git_s checkout -q --detach pristine || fail "git checkout pristine failed"
		run git_s reset -q --hard pristine || fail "git reset failed"
		run git_s clean -fdxq || fail "git clean failed"
		for p in "${patches[@]}"; do
			if ! run git_s am -q -3 "$p"; then
				git_s am --abort >>"$STAGE_LOG" 2>&1 || true
				fail "patch ${p#"$REPO"/} does not apply to linux-source-$LINE (git am failed; series order: patches/$LINE/series)"
			fi
		done
		git_s rev-parse HEAD >"$SRCROOT/applied.head"
		printf '%s\n' "$key" >"$SRCROOT/applied.key"
	fi
	local n=${#patches[@]}
	# selftests/ is the suite's one source: the tree must hold its line's form
	if [[ $PRISTINE == 0 && -d $REPO/selftests/$SUITE ]]; then
		run "$REPO/scripts/refresh-selftest-patch.sh" --compare "$LINE" "$SRC" ||
			fail "selftests/ and patches/$LINE/ disagree: selftests/$SUITE (line $LINE's form) differs from" \
				"tools/testing/selftests/$SUITE after applying patches/$LINE/series, or" \
				"selftests/backport/$LINE.diff does not apply (the log says which; scripts/refresh-selftest-patch.sh --help)"
	fi
	stage_end "(linux-source-$LINE ${SRCVER:-?}, Linux $(make -s -C "$SRC" kernelversion 2>/dev/null || echo '?'), $n patch(es) applied)"
}

# --check-series: checkpatch.pl --strict on every patch, the fast path's copy
stage_checkpatch() {
	stage_begin checkpatch
	local patches=() out
	mapfile -t patches < <(series_patches)
	if ! out=$("$REPO/scripts/check-series.sh" "$LINE" "$SRC" "$LOGDIR" "${patches[@]}"); then
		printf '%s\n' "$out"
		STAGE_LOG=
		fail "checkpatch.pl --strict or fastpath-stacked.sh found problems ($(grep -c '^  FAIL ' <<<"$out"))"
	fi
	printf '%s\n' "$out"
	stage_end "($(grep -c '^  ok   checkpatch ' <<<"$out") patch(es) clean)"
}

# ----------------------------------------------------------------- config ---
# Check that every line of a fragment made it into .config verbatim.
verify_fragment() {
	local frag=$1 cfg=$2 line sym bad=()
	while IFS= read -r line || [[ -n $line ]]; do
		line=${line%$'\r'}
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]]; then
			grep -qxF -- "$line" "$cfg" || {
				sym=${BASH_REMATCH[1]}
				bad+=("$line (have: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo "not present"))")
			}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			sym=${BASH_REMATCH[1]}
			grep -q "^$sym=" "$cfg" && bad+=("$line (have: $(grep "^$sym=" "$cfg"))")
		fi
	done <"$frag"
	if [[ ${#bad[@]} -gt 0 ]]; then
		printf '%s\n' "${bad[@]/#/  ${frag#"$REPO"/}: }" >&2
		return 1
	fi
}

# A stage whose inputs have the key it recorded after its last success is
# skipped: kconfig's and kbuild's own no-op passes take 15-25 s here, and
# produce the same output.  Delete <cache>/build/<config>/*.key to force it.
key_of() { sha256sum | cut -d' ' -f1; }

# What kconfig reads, by blob id: every Kconfig file, scripts/ (kconfig and
# the helpers Kconfig.include runs), the config targets; and the toolchain.
kconfig_inputs() {
	git_s ls-tree -r HEAD | awk '$4 ~ /(^|\/)Kconfig[^\/]*$/ || $4 == "Makefile" ||
		$4 ~ /^(scripts|arch\/x86\/configs|kernel\/configs)\//'
	gcc --version
	ld --version
}

stage_config() {
	stage_begin config
	mkdir -p "$BUILD"
	local frags=("$REPO/config-fragments/base.config") f key
	for f in "${FRAGS[@]}"; do frags+=("$REPO/config-fragments/$f.config"); done
	[[ -f $SRC/tools/testing/selftests/$SUITE/config ]] &&
		frags+=("$SRC/tools/testing/selftests/$SUITE/config")
	[[ -f $REPO/selftests/$EXT_SUITE/config ]] &&
		frags+=("$REPO/selftests/$EXT_SUITE/config")
	key=$( { kconfig_inputs; cat "${BASH_SOURCE[0]}" "${frags[@]}"; } | key_of)
	if [[ -f $BUILD/.config && $(cat "$BUILD/config.key" 2>/dev/null) == "$key" ]]; then
		stage_end "($CFGNAME, inputs unchanged: .config reused)"
		return 0
	fi
	rm -f "$BUILD/config.key"
	# Generate into .config, but keep the old file (and its mtime) when the
	# result is the same, so that a no-change run rebuilds nothing.
	[[ -f $BUILD/.config ]] && cp -p "$BUILD/.config" "$BUILD/.config.prev"
	run make -C "$SRC" O="$BUILD" CC="ccache gcc" tinyconfig || fail "make tinyconfig failed"
	run "$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD" "$BUILD/.config" "${frags[@]}" ||
		fail "merge_config.sh failed"
	run make -C "$SRC" O="$BUILD" CC="ccache gcc" olddefconfig || fail "make olddefconfig failed"
	local unmet=0
	for f in "${frags[@]}"; do
		verify_fragment "$f" "$BUILD/.config" 2>>"$STAGE_LOG" || unmet=1
	done
	if [[ $unmet == 1 ]]; then
		local msg
		msg=$(for f in "${frags[@]}"; do verify_fragment "$f" "$BUILD/.config" 2>&1 || true; done)
		STAGE_LOG=
		fail "config options requested but not set in the final .config (unmet dependencies, or unknown to this tree):
$msg"
	fi
	if [[ -f $BUILD/.config.prev ]] && cmp -s "$BUILD/.config" "$BUILD/.config.prev"; then
		mv -f "$BUILD/.config.prev" "$BUILD/.config"
	else
		rm -f "$BUILD/.config.prev"
	fi
	printf '%s\n' "$key" >"$BUILD/config.key"
	stage_end "($CFGNAME)"
}

# ------------------------------------------------------------------ build ---
stage_build() {
	stage_begin build
	local key
	# the tree, not the commit: re-applying the series makes new commits
	key=$( { git_s rev-parse 'HEAD^{tree}'; cat "$BUILD/.config"; gcc --version; } | key_of)
	if [[ -f $BUILD/arch/x86/boot/bzImage &&
		$(cat "$BUILD/build.key" 2>/dev/null) == "$key" ]]; then
		ensure_selftests
		stage_end "(tree, .config and gcc unchanged: previous build reused)"
		return 0
	fi
	rm -f "$BUILD/build.key"
	run make -C "$SRC" O="$BUILD" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" bzImage ||
		fail "kernel build failed"
	ensure_selftests
	printf '%s\n' "$key" >"$BUILD/build.key"
	stage_end "($(du -k "$BUILD/arch/x86/boot/bzImage" | cut -f1) KiB bzImage)"
}

# The suites, built by the patched tree's kselftest build against its uapi
# headers (make headers needs no .config): the series' $SUITE and the
# project's $EXT_SUITE, copied into the tree first (git clean removes it
# when the series is applied again).
build_selftests() {
	run make -C "$SRC" O="$BUILD" -j"$JOBS" headers || fail "make headers failed"
	rm -rf "$KSFT" "$BUILD/kselftest" "$SRC/tools/testing/selftests/$EXT_SUITE"
	cp -a "$REPO/selftests/$EXT_SUITE" "$SRC/tools/testing/selftests/$EXT_SUITE" ||
		fail "cannot copy selftests/$EXT_SUITE into the tree"
	run make -C "$SRC/tools/testing/selftests" O="$BUILD" TARGETS="$SUITE $EXT_SUITE" \
		KHDR_INCLUDES="-isystem $BUILD/usr/include" \
		KSFT_INSTALL_PATH="$KSFT" -j"$JOBS" install ||
		fail "selftest build of $SUITE and $EXT_SUITE failed"
	[[ -x $KSFT/run_kselftest.sh && -d $KSFT/$SUITE && -d $KSFT/$EXT_SUITE ]] ||
		fail "selftest install produced no $KSFT/$SUITE or $KSFT/$EXT_SUITE"
}

# build_selftests unless the tree, the extended suite and gcc are those of
# the last build
ensure_selftests() {
	local key
	[[ $PRISTINE == 1 ]] && { mkdir -p "$KSFT"; return 0; } # no suite to build
	key=$( { git_s rev-parse 'HEAD^{tree}'; cat "$REPO/selftests/$EXT_SUITE"/* "$REPO/selftests/$EXT_SUITE"/.gitignore; gcc --version; } | key_of)
	if [[ -x $KSFT/run_kselftest.sh && $(cat "$BUILD/selftests.key" 2>/dev/null) == "$key" ]]; then
		return 0
	fi
	rm -f "$BUILD/selftests.key"
	build_selftests
	printf '%s\n' "$key" >"$BUILD/selftests.key"
}

# --distro-kernel: Debian's kernel, the package, the DKMS modules
# (scripts/distro-kernel.sh), then the suite from the patched tree.
stage_distro() {
	stage_begin distro
	local args=()
	[[ $NO_DKMS == 1 ]] && args=(--no-dkms)
	run "$REPO/scripts/distro-kernel.sh" "$CACHE" "$BUILD/distro" "$LINE" "${args[@]}" ||
		fail "Debian kernel or DKMS build failed"
	# shellcheck source=/dev/null
	. "$BUILD/distro/distro.env"
	BZIMAGE=$VMLINUZ
	grep -E '^  (Package|[a-z]+\.ko|vfat resolves)' "$STAGE_LOG" || true
	stage_end "($KREL, $([[ $NO_DKMS == 1 ]] && echo 'stock modules only' || echo "DKMS $PKGVER"))"
	stage_begin selftests
	ensure_selftests
	stage_end
}

# ------------------------------------------------------------------- boot ---
NONCE=
INITRD=
STAGING=

# A KCSAN kernel boots without panic_on_warn, with which its first report
# panics (check_panic_on_warn() in kernel/kcsan/report.c), core code's too:
# scripts/kcsan-judge.awk judges the reports after the run; a WARNING still
# fails it through the splat grep.
KCSAN=0
PANIC_ON_WARN=panic_on_warn=1
kcsan_detect() {
	if [[ $DISTRO == 0 ]] && grep -qx 'CONFIG_KCSAN=y' "$BUILD/.config" 2>/dev/null; then
		KCSAN=1 PANIC_ON_WARN=
	fi
}

# kcsan_fat_functions: the functions fs/fat's objects define (nm), one a
# line, but for the names that vmlinux defines more than once (a static
# helper of fs/fat named like another file's: a frame shows only the name)
kcsan_fat_functions() {
	nm --defined-only "$BUILD"/fs/fat/*.o 2>/dev/null | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u |
		comm -23 - <(awk '$2 ~ /^[tTwW]$/ { print $3 }' "$BUILD/System.map" 2>/dev/null | sort | uniq -d)
}

make_initramfs() {
	local mode=$1
	kcsan_detect
	stage_begin initramfs
	NONCE=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	STAGING=$RESULTS/initramfs
	INITRD=$RESULTS/initramfs.cpio
	local conf=$RESULTS/guest-conf
	rm -rf "$conf"
	mkdir -p "$conf"
	{
		printf 'MODE=%q\n' "$mode"
		printf 'NONCE=%q\n' "$NONCE"
		printf 'SUITE=%q\n' "$SUITE"
		printf 'EXT_SUITE=%q\n' "$EXT_SUITE"
		# fat's KUnit suite, if built in, ran at boot
		if [[ $DISTRO == 0 ]] && grep -qx 'CONFIG_FAT_KUNIT_TEST=y' "$BUILD/.config" 2>/dev/null; then
			printf 'KUNIT_SUITES=fat_test\n'
		fi
		printf 'RUN_SUITE=%q\n' "$((NO_SUITE == 0))"
		printf 'TESTS=('
		local t
		for t in "${TESTS[@]}"; do printf '%q ' "${t%%:*}"; done
		printf ')\n'
		local i
		for ((i = 0; i < ${#TEST_ARGS[@]}; i += 2)); do
			printf 'export %s=%q\n' "${TEST_ARGS[i]}" "${TEST_ARGS[i + 1]}"
		done
		printf 'SPLAT_RE=%q\n' "$SPLAT_RE"
		if [[ $DISTRO == 1 ]]; then
			printf 'DISTRO_LOAD=%q\n' "$LOAD"
			printf 'DISTRO_EXPECT=%q\n' "$EXPECT"
		fi
	} >"$conf/runner.conf"
	# KCSAN: fs/fat's functions, for the judge of its reports
	if [[ $KCSAN == 1 ]]; then
		kcsan_fat_functions >"$conf/kcsan-fat-functions.txt"
		[[ -s $conf/kcsan-fat-functions.txt ]] ||
			fail "KCSAN: no function of fs/fat found (nm $BUILD/fs/fat/*.o)"
	fi
	if [[ -n $GUEST_CMD ]]; then
		printf '%s\n' "$GUEST_CMD" >"$conf/guest-cmd.sh"
	fi
	# Both lines' runners pass KSELFTEST_<PROG>_ARGS, but 6.1's harness
	# ignores its arguments: a filter would silently run every case.
	if [[ ${#TEST_ARGS[@]} -gt 0 ]] &&
		! grep -q getopt "$SRC/tools/testing/selftests/kselftest_harness.h" 2>/dev/null; then
		fail "--test PROG:ARGS: the kselftest harness of linux-source-$LINE ignores" \
			"its arguments (the -t/-f/-v filters came with 6.12's harness)"
	fi
	local r prog args
	for r in "${RUNS[@]}"; do
		read -r prog args <<<"$r"
		[[ -f $prog && -x $prog ]] || fail "--run: $prog is not an executable file"
		mkdir -p "$conf/bin"
		cp "$prog" "$conf/bin/"
		printf '/etc/runner/bin/%s %s || exit $?\n' "${prog##*/}" "$args" >>"$conf/guest-cmd.sh"
	done
	local extra=()
	[[ $DISTRO == 1 ]] && extra=("$MODROOT")
	run "$REPO/scripts/mkinitramfs.sh" "$CACHE/initramfs-base" \
		"$STAGING" "$INITRD" "$KSFT" "$conf" "${extra[@]}" ||
		fail "initramfs generation failed"
	stage_end "($(du -k "$INITRD" | cut -f1) KiB)"
}

QEMU_ACCEL=()
BZIMAGE=

qemu_cmd() {
	# qemu_cmd CONSOLE-SERIAL-SPEC VERDICT-FILE DATA-FILE [extra append]
	local con=$1 verdict=$2 data=$3 append=${4:-}
	QEMU=(qemu-system-x86_64 "${QEMU_ACCEL[@]}" -nographic -monitor none
		-no-reboot -bios "$BIOS" -m "$MEM" -smp "$SMP" -kernel "$BZIMAGE" -initrd "$INITRD"
		-serial "$con" -serial "file:$verdict" -serial "file:$data"
		-net none
		-append "console=ttyS0 panic=-1 $PANIC_ON_WARN oops=panic loglevel=7 log_buf_len=8M $append")
}

choose_accel() {
	case $ACCEL in
	tcg) QEMU_ACCEL=(-accel tcg) ;;
	kvm) QEMU_ACCEL=(-accel kvm) ;;
	auto)
		QEMU_ACCEL=(-accel tcg)
		[[ -r /dev/kvm && -w /dev/kvm ]] || return 0
		# Short probe boot under KVM: the guest only answers on its
		# verdict port and reboots.  Anything else: stay with TCG.
		local d=$RESULTS/kvm-probe
		rm -rf "$d"
		mkdir -p "$d"
		: >"$d/verdict"
		QEMU_ACCEL=(-accel kvm)
		qemu_cmd "file:$d/console.log" "$d/verdict" "$d/data" "vfat_runner.probe=1"
		if timeout -k 2 10 "${QEMU[@]}" </dev/null >"$d/qemu.log" 2>&1 &&
			grep -q "^VFAT-RUNNER-PROBE ok $NONCE" "$d/verdict"; then
			echo "  accel auto: KVM probe boot ok, using KVM" >>"$STAGE_LOG"
		else
			echo "  accel auto: KVM probe boot failed, using TCG" >>"$STAGE_LOG"
			QEMU_ACCEL=(-accel tcg)
		fi
		;;
	esac
}

# Kernel log lines that fail a run (guest dmesg and host console log).
# Not a bare "lockdep": a lockdep kernel prints "RCU lockdep checking is
# enabled" at boot; its splats start with "WARNING:"/"BUG:" or these.
SPLAT_RE='BUG:|WARNING:|KASAN:|UBSAN:|Oops|Call Trace|kernel BUG|general protection'
SPLAT_RE+='|possible circular locking|possible recursive locking|inconsistent lock state'
SPLAT_RE+='|lockdep is turned off|bad unlock balance|held lock freed|possible irq lock inversion'
SPLAT_RE+='|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|ODEBUG:|Kernel panic'
SPLAT_RE+='|list_add corruption|list_del corruption|blocked for more than'

# Extract "@@@VFAT-RUNNER-BEGIN name" ... "@@@VFAT-RUNNER-END name" sections
# of the data port into RESULTS/<name>.
split_data() {
	local data=$1
	tr -d '\r' <"$data" | awk -v dir="$RESULTS" '
		/^@@@VFAT-RUNNER-BEGIN [A-Za-z0-9._-]+$/ { out = dir "/" $2 ".part"; printf "" > out; next }
		/^@@@VFAT-RUNNER-END [A-Za-z0-9._-]+$/ { if (out != "") close(out); out = ""; next }
		out != "" { print > out }
	'
	local f
	for f in "$RESULTS"/*.part; do
		[[ -e $f ]] || continue
		mv -f "$f" "${f%.part}"
	done
}

boot_and_test() {
	local console=$RESULTS/console.log verdict=$RESULTS/verdict.txt data=$RESULTS/data.txt
	rm -f "$console" "$verdict" "$data" "$RESULTS"/{tap.txt,dmesg.txt,guest-cmd.txt,guest-cmd.status,run_kselftest.status,summary.txt,modules.txt,kcsan.txt,kcsan-host.txt}
	: >"$verdict"
	: >"$console"
	BZIMAGE=${BZIMAGE:-$BUILD/arch/x86/boot/bzImage}
	stage_begin boot
	choose_accel
	qemu_cmd "file:$console" "$verdict" "$data"
	printf '+ %s\n' "${QEMU[*]}" >>"$STAGE_LOG"
	local tailpid=
	if [[ $VERBOSE == 1 ]]; then
		tail -n +1 -F "$console" 2>/dev/null &
		tailpid=$!
	fi
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null >>"$STAGE_LOG" 2>&1 &
	local qpid=$! rc=0 booted=0
	while kill -0 "$qpid" 2>/dev/null; do
		if [[ $booted == 0 ]] && grep -q '^vfat-runner: guest up' "$console" 2>/dev/null; then
			booted=1
			stage_end "(${QEMU_ACCEL[*]})"
			stage_begin tests
		fi
		sleep 0.2
	done
	wait "$qpid" || rc=$?
	if [[ -n $tailpid ]]; then
		sleep 0.5
		kill "$tailpid" 2>/dev/null || true
		wait "$tailpid" 2>/dev/null || true
	fi
	[[ $booted == 0 ]] && { stage_end "(guest never reached init)"; stage_begin tests; }
	STAGE_LOG=$LOGDIR/tests.log

	split_data "$data"
	local hung=0 qemu_failed=0 guest_ok=0 splats=
	[[ $rc == 124 || $rc == 137 ]] && hung=1
	[[ $hung == 0 && $rc != 0 ]] && qemu_failed=1
	grep -q "^VFAT-RUNNER-VERDICT ok nonce=$NONCE " "$verdict" && guest_ok=1
	# KCSAN's reports are judged apart (kcsan-judge.awk), not as splats
	splats=$(tr -d '\r' <"$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' | grep -E "$SPLAT_RE" |
		grep -v 'BUG: KCSAN: ' | awk '!seen[$0]++' || true)
	local kcsan_fat=0 kcsan_core=0
	if [[ $KCSAN == 1 ]] || grep -q 'BUG: KCSAN: ' "$console"; then
		local funcs=$RESULTS/guest-conf/kcsan-fat-functions.txt
		[[ -f $funcs ]] || funcs=/dev/null
		tr -d '\r' <"$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' |
			awk -v funcs="$funcs" -v known="$REPO/scripts/kcsan-known-core.txt" \
				-f "$REPO/scripts/kcsan-judge.awk" >"$RESULTS/kcsan-host.txt" || true
		read -r _ _ _ kcsan_fat _ _ _ kcsan_core _ < <(grep '^kcsan: [0-9]* report(s): ' "$RESULTS/kcsan-host.txt")
		# no total: the judge did not run to its end, which clears nothing
		[[ -n $kcsan_fat && -n $kcsan_core ]] || kcsan_fat=1 kcsan_core=0
	fi

	# TAP: from the data port; if the guest died before sending it, from
	# the console (best effort, for display only).
	if [[ ! -f $RESULTS/tap.txt ]]; then
		tr -d '\r' <"$console" | sed -n '/^TAP version/,$p' | grep -v '^\[ *[0-9]' >"$RESULTS/tap.partial.txt" || true
	fi
	if [[ -f $RESULTS/modules.txt ]]; then
		echo "--- fat modules in the guest ---"
		cat "$RESULTS/modules.txt"
		echo "--- end of fat modules ---"
	fi
	if [[ -f $RESULTS/guest-cmd.txt ]]; then
		echo "--- guest command output (exit status $(cat "$RESULTS/guest-cmd.status" 2>/dev/null || echo '?')) ---"
		cat "$RESULTS/guest-cmd.txt"
		echo "--- end of guest command output ---"
	fi
	local pass=0 failn=0 skip=0 plan=-1 seen=0 empty=0 tapfile=
	if [[ -f $RESULTS/tap.txt ]]; then
		tapfile=$RESULTS/tap.txt
	elif [[ -s $RESULTS/tap.partial.txt ]]; then
		tapfile=$RESULTS/tap.partial.txt
	fi
	if [[ -n $tapfile ]]; then
		cat "$tapfile"
		read -r pass failn skip plan seen empty < <(awk -f "$REPO/scripts/tap-summary.awk" "$tapfile")
	fi

	local problems=()
	if [[ $hung == 1 ]]; then
		problems+=("guest hung: no exit within --timeout $TIMEOUT s (killed)")
	elif [[ $qemu_failed == 1 ]]; then
		problems+=("qemu exited with status $rc (see $LOGDIR/boot.log)")
	fi
	[[ -n $splats ]] && problems+=("kernel splat in the guest console log (lines below)")
	[[ $kcsan_fat -gt 0 ]] &&
		problems+=("KCSAN: $kcsan_fat data race report(s) with an fs/fat frame (below)")
	local incomplete=0
	if [[ $NO_SUITE == 0 ]]; then
		[[ $failn -gt 0 ]] && problems+=("$failn test(s) failed")
		[[ $empty -gt 0 ]] && problems+=("$empty test program(s) skipped every case (counted as failed): the kernel lacks what they test?")
		if [[ -z $tapfile ]]; then
			problems+=("no TAP output from the suite") incomplete=1
		elif [[ $plan -lt 0 || $seen -ne $plan ]]; then
			problems+=("TAP incomplete: plan 1..$plan, $seen result(s)") incomplete=1
		fi
		[[ $pass -eq 0 ]] && problems+=("no test passed")
	fi
	if [[ $DISTRO == 1 ]]; then
		local m proven=0
		if [[ -f $RESULTS/modules.txt ]] && ! grep -qE 'NOT ours|FAILED|WRONG' "$RESULTS/modules.txt"; then
			proven=1
			for m in fat vfat msdos; do
				grep -qE "^$m: srcversion [0-9A-F]+ is the DKMS-built $m\.ko's: ours$" "$RESULTS/modules.txt" || proven=0
			done
		fi
		[[ $proven == 1 ]] ||
			problems+=("--distro-kernel: the guest did not load and prove the DKMS-built fat, vfat and msdos (see above)")
	fi
	if [[ -f $RESULTS/guest-cmd.status && $(cat "$RESULTS/guest-cmd.status") != 0 ]]; then
		problems+=("guest command exited with status $(cat "$RESULTS/guest-cmd.status")")
	fi
	if [[ $guest_ok == 0 && $hung == 0 ]]; then
		problems+=("no success verdict from the guest (failed test, dirty dmesg, crash or panic)")
	fi
	if [[ $NO_SUITE == 1 ]]; then
		# The guest command is the only "test".
		if [[ -f $RESULTS/guest-cmd.status && $(cat "$RESULTS/guest-cmd.status") == 0 ]]; then
			pass=1
		else
			pass=0 failn=1
		fi
	fi
	# A guest that died, hung or splatted without a failing test still
	# counts as one failure, so the summary line never reads as green.
	if [[ ${#problems[@]} -gt 0 && $failn -eq 0 ]]; then
		failn=1
	fi

	if [[ ${#problems[@]} -gt 0 ]]; then
		printf '[tests %s] FAILED after %s\n' "$LINE" "$(fmt_time $((SECONDS - STAGE_START)))" >&2
		local pr
		for pr in "${problems[@]}"; do printf '%s: %s\n' "$PROG" "$pr" >&2; done
		if [[ -n $splats ]]; then
			echo "  kernel splat lines:" >&2
			printf '%s\n' "$splats" | sed -n '1,20s/^/  | /p' >&2
		fi
		if [[ $hung == 1 || $incomplete == 1 || -n $splats || ($NO_SUITE == 1 && ! -f $RESULTS/guest-cmd.status) ]]; then
			echo "  console: $console" >&2
			echo "  --- last 30 console lines ---" >&2
			tr -d '\r' <"$console" | tail -n 30 | sed 's/^/  | /' >&2
		fi
	else
		stage_end "(verdict: $(head -n 1 "$verdict"))"
	fi
	if [[ $kcsan_fat -gt 0 ]]; then
		grep -E '^kcsan: (fs/fat: |\| )' "$RESULTS/kcsan-host.txt" | sed -n '1,200s/^/  /p' >&2
	fi
	if [[ $kcsan_core -gt 0 ]]; then
		echo "KCSAN: $kcsan_core race report(s) of core code only (no fs/fat frame, or a known core race): reported, not judged:"
		grep '^kcsan: core (reported, not judged): ' "$RESULTS/kcsan-host.txt" |
			sed 's/^kcsan: core (reported, not judged): /  /' | sort | uniq -c
	elif [[ $KCSAN == 1 ]]; then
		echo "KCSAN: no race report of core code only"
	fi
	echo "results: $RESULTS"
	printf '%s passed, %s failed, %s skipped\n' "$pass" "$failn" "$skip" | tee "$RESULTS/summary.txt"
	[[ ${#problems[@]} -eq 0 ]]
}

run_shell() {
	BZIMAGE=${BZIMAGE:-$BUILD/arch/x86/boot/bzImage}
	choose_accel
	local d=$RESULTS/shell
	mkdir -p "$d"
	qemu_cmd mon:stdio "$d/verdict" "$d/data"
	echo "Booting $BZIMAGE (linux-source-$LINE, $CFGNAME) into a shell; 'exit' powers off, Ctrl-A X kills QEMU."
	if [[ $TIMEOUT_SET == 1 ]]; then
		timeout --foreground "$TIMEOUT" "${QEMU[@]}"
	else
		"${QEMU[@]}"
	fi
}

# ------------------------------------------------------------------- main ---
cleanup() {
	if [[ $KEEP == 0 && -n $STAGING ]]; then
		rm -rf "$STAGING" "$INITRD"
	fi
}
trap cleanup EXIT

exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	echo "$PROG: another qemu-run.sh is using $CACHE, waiting..." >&2
	flock 9
fi

stage_deps
if [[ $DISTRO == 1 ]]; then
	stage_source
	stage_distro
elif [[ $NO_BUILD == 1 ]]; then
	[[ $MODE == check-series ]] && die_usage "--no-build and --check-series do not mix"
	[[ -f $BUILD/arch/x86/boot/bzImage && -x $KSFT/run_kselftest.sh ]] ||
		{ echo "$PROG: --no-build: no previous build of kernel $LINE, config $CFGNAME in $BUILD" >&2; exit 1; }
else
	stage_source
	if [[ $MODE == check-series ]]; then
		stage_checkpatch
		exit 0
	fi
	stage_config
	stage_build
fi
if [[ $MODE == kernel-only ]]; then
	echo "kernel: ${BZIMAGE:-$BUILD/arch/x86/boot/bzImage}"
	echo "kselftests: $KSFT"
	exit 0
fi
if [[ $MODE == shell ]]; then
	make_initramfs shell
	run_shell
	exit 0
fi
make_initramfs tests
boot_and_test
