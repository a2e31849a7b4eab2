#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fastpath-uml.sh: the 8.3 fast path (patches/fastpath/, "fat: show plain
# ASCII 8.3 names without the charset round trip", the RFC, standalone on
# Linux 7.3) measured on the host CPU, in UML (ARCH=um) kernels built from
# pristine Linux 7.3 and from it with that patch, booted alternately in
# one run.
# See --help.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
. "$REPO/scripts/lib/common.sh"
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
LINE=7.3
PATCHDIR=patches/fastpath
SRCREPO=
BASE=pristine
CONTROL=0
ROUNDS=10 N=4000 REPS=5 SAMPLE=200 NEG=100 WARM=20
JOBS=$(nproc)
COPY=1 BUILD_ONLY=0 TIMEOUT=900

usage() {
	cat <<EOF
usage: bench/fastpath-uml.sh [options]

Benchmark of the vfat 8.3 fast path ($PATCHDIR/*.patch, the RFC, standalone
on Linux $LINE) on the host CPU: two User-Mode Linux kernels (ARCH=um, no
QEMU) from the same Linux $LINE source, the pristine tree ("without") and
that tree with the fast path ("with"), are booted alternately, R rounds,
each round's pair in the other order than the last's.

Kernels: <cache>/fastpath-uml/src is a 'git clone --shared' of --src
(default <cache>/src/$LINE/linux, the tree ./qemu-run.sh --kernel $LINE
--check-series makes; only read) at --base (default: its tag 'pristine',
Debian's linux-source-$LINE); the patch is applied with plain 'git am'
from this repository (branches fastpath-without = --base and
fastpath-with of the clone).  One build dir, each variant's linux
binary kept; fat/vfat/msdos, NLS cp437, iso8859-1 (the default
iocharset) and utf8, hostfs (the root: a directory holding the static
benchmark as /init), UBD (the FAT image), devtmpfs, procfs.  ccache is
used if installed.

Workload (bench/fastpath-uml.c, static, /init of each boot): one FAT32
image (4 KiB clusters) made once with mkfs.fat and filled by a first boot
(the without kernel) with three directories of N files: upper
(F0000001.TXT: 8.3 entries), lower (f0000001.txt created with
shortname=winnt: 8.3 entries with the lower-case flags) and long ("a long
file name 0000001.txt": long names with their 8.3 aliases).  Each
measuring boot attaches it read-only (ubd0r) and, REPS times, mounts it
as vfat (default iocharset, iso8859-1), vfat iocharset=utf8 and msdos
(upper only; the fast path does not touch msdos: a control) and for each
directory times the mount itself (once per mount, before the first
directory: the fast path builds its tables there), a readdir right after
the mount (cold), W more readdirs
(warm), stats of a sample of S names spread over the directory (cold
lookups: dentry cache empty, directory blocks cached), stats of M
absent names (each a full scan) and, in the first of the K mounts, a cold
'ls -l' (drop_caches 3 in the guest, then readdir and a stat() of every
name in readdir's order; the image's blocks are then read again from the
host's page cache, not from a disk).  Figures: ns per entry (readdir) or per
lookup; per boot the median over the REPS mounts, then per kernel the
median over rounds; the ratio with/without is of those medians, with the
min-max of the per-round ratios.

Options:
  --rounds R     rounds (boots of each kernel)        [$ROUNDS]
  --n N          files per directory                  [$N]
  --reps K       mounts per boot and case             [$REPS]
  --sample S     cold lookups of present names        [$SAMPLE]
  --absent M     lookups of absent names              [$NEG]
  --warm W       warm readdirs                        [$WARM]
  --src REPO     git repository with the Linux $LINE tree  [<cache>/src/$LINE/linux]
  --base REF     the pristine commit in it            [$BASE]
  --cache DIR    cache directory (outside the repo)   [$CACHE]
  -j JOBS        make jobs                            [$JOBS]
  --timeout SEC  per boot                             [$TIMEOUT]
  --build-only   build the two kernels and the benchmark, then stop
  --control      A/A control: boot the without kernel in the "with" slot
                 too, to show the method's own spread and bias; the report
                 is control.md, copied to bench/fastpath-uml-control.md
  --no-copy      leave the report in <cache>/fastpath-uml/ only
  -h, --help     this text

Output: <cache>/fastpath-uml/{raw.txt,fastpath-uml.md,boots/}; unless
--no-copy, fastpath-uml.md is copied to bench/fastpath-uml.md.
Exit status: 0 if every boot ran its workload and both kernels are what
they claim (release string, fast-path symbol, fs/fat objects), 1 if not,
2 on bad usage or a missing tool.
EOF
}

need() { die 2 "$@"; }

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--n) N=${2:?}; shift 2 ;;
	--reps) REPS=${2:?}; shift 2 ;;
	--sample) SAMPLE=${2:?}; shift 2 ;;
	--absent) NEG=${2:?}; shift 2 ;;
	--warm) WARM=${2:?}; shift 2 ;;
	--src) SRCREPO=${2:?}; shift 2 ;;
	--base) BASE=${2:?}; shift 2 ;;
	--cache) CACHE=${2:?}; shift 2 ;;
	-j) JOBS=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--build-only) BUILD_ONLY=1; shift ;;
	--control) CONTROL=1; shift ;;
	--no-copy) COPY=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in "$ROUNDS" "$N" "$REPS" "$SAMPLE" "$NEG" "$WARM" "$JOBS" "$TIMEOUT"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || need "not a positive number: $v"
done
((N <= 30000)) || need "--n: at most 30000 (the image)"
((SAMPLE <= N)) || need "--sample: at most --n"
# the default tree is qemu-run.sh's; a missing one is made by it
SRC_HINT=
if [[ -z $SRCREPO ]]; then
	SRCREPO=$CACHE/src/$LINE/linux
	SRC_HINT="; run ./qemu-run.sh --kernel $LINE --check-series first"
fi
CACHE=$(mkdir -p "$CACHE" && cd "$CACHE" && pwd)
case $CACHE/ in "$REPO"/*) need "the cache must be outside the repository: $CACHE" ;; esac

# ------------------------------------------------------------------ tools --
missing=()
for t in git make gcc flex bison bc perl mkfs.fat timeout md5sum nm awk; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
[[ -f /usr/lib/x86_64-linux-gnu/libc.a || -f /usr/lib64/libc.a || -f /usr/lib/libc.a ]] ||
	missing+=("static libc (libc6-dev)")
[[ ${#missing[@]} == 0 ]] || need "missing: ${missing[*]} (Debian: git make gcc flex bison bc perl dosfstools coreutils binutils libc6-dev)"
[[ $(uname -m) == x86_64 ]] || need "x86_64 hosts only (UML SUBARCH=x86_64)"
CC=gcc
if command -v ccache >/dev/null 2>&1; then
	CC="ccache gcc"
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
fi
export KBUILD_BUILD_USER=vfat KBUILD_BUILD_HOST=nolongcreate
export KBUILD_BUILD_TIMESTAMP="1970-01-01"

W=$CACHE/fastpath-uml
SRC=$W/src BUILD=$W/build KDIR=$W/kernels ROOT=$W/root IMG=$W/fat.img
mkdir -p "$W" "$KDIR"
LOG=$W/build.log
t_start=$SECONDS
log() { echo "[fastpath-uml] $*"; }

# ----------------------------------------------------------------- source --
shopt -s nullglob
PATCHES=("$REPO/$PATCHDIR"/*.patch)
shopt -u nullglob
[[ ${#PATCHES[@]} == 1 ]] || die "$PATCHDIR: want exactly one *.patch, found ${#PATCHES[@]}"
[[ -d $SRCREPO/.git || -f $SRCREPO/HEAD ]] || need "--src $SRCREPO: not a git repository$SRC_HINT"
base=$(git -C "$SRCREPO" rev-parse --verify -q "$BASE^{commit}") || need "--src $SRCREPO has no $BASE$SRC_HINT"
# the patch's diff, not its message: a reworded message keeps the kernels
stamp=$( {
	echo "$base"
	sed -n '/^diff --git /,$p' "${PATCHES[0]}"
} | md5sum | cut -d' ' -f1)
if [[ ! -d $SRC/.git ]] || [[ $(cat "$W/src.stamp" 2>/dev/null) != "$stamp" ]]; then
	log "source: clone --shared of $SRCREPO at $BASE, git am of $PATCHDIR/"
	rm -rf "$SRC" "$W/src.stamp"
	git clone -q --shared --no-checkout "$SRCREPO" "$SRC"
	G=(git -C "$SRC" -c user.name=fastpath-uml -c user.email=fastpath-uml@localhost)
	"${G[@]}" checkout -q -f --detach "$base"
	"${G[@]}" branch -f fastpath-without HEAD
	"${G[@]}" am -q --keep-cr "${PATCHES[0]}" || die "git am ${PATCHES[0]##*/} failed"
	"${G[@]}" branch -f fastpath-with HEAD
	echo "$stamp" >"$W/src.stamp"
fi

# ---------------------------------------------------------------- kernels --
CONFIG_ON=(HOSTFS BLK_DEV_UBD FAT_FS MSDOS_FS VFAT_FS NLS NLS_CODEPAGE_437
	NLS_ISO8859_1 NLS_UTF8 TMPFS DEVTMPFS PROC_FS SYSFS)
CONFIG_OFF=(FAT_KUNIT_TEST KUNIT DEVTMPFS_MOUNT)
kconfig() { # VARIANT
	local c=$BUILD/.config o
	make -s -C "$SRC" O="$BUILD" ARCH=um SUBARCH=x86_64 CC="$CC" HOSTCC="$CC" defconfig >>"$LOG" 2>&1
	for o in "${CONFIG_ON[@]}"; do "$SRC/scripts/config" --file "$c" -e "$o"; done
	for o in "${CONFIG_OFF[@]}"; do "$SRC/scripts/config" --file "$c" -d "$o"; done
	"$SRC/scripts/config" --file "$c" --set-val FAT_DEFAULT_CODEPAGE 437 \
		--set-str FAT_DEFAULT_IOCHARSET iso8859-1 --set-str LOCALVERSION "-fastpath-$1" \
		-d LOCALVERSION_AUTO
	make -s -C "$SRC" O="$BUILD" ARCH=um SUBARCH=x86_64 CC="$CC" HOSTCC="$CC" olddefconfig >>"$LOG" 2>&1
	for o in "${CONFIG_ON[@]}"; do
		grep -q "^CONFIG_$o=y" "$c" || die "CONFIG_$o did not stay =y ($c)"
	done
}
build_kernel() { # VARIANT
	local v=$1 k=$KDIR/$1 commit t=$SECONDS
	commit=$(git -C "$SRC" rev-parse "fastpath-$v")
	if [[ -x $k/linux && $(cat "$k/stamp" 2>/dev/null) == "$commit" ]]; then
		log "kernel $v: cached ($k/linux)"
		return
	fi
	log "kernel $v: building $(git -C "$SRC" log -1 --format='%h %s' "$commit") (log: $LOG)"
	rm -rf "$k"
	git -C "$SRC" checkout -q -f "fastpath-$v"
	kconfig "$v"
	make -C "$SRC" O="$BUILD" ARCH=um SUBARCH=x86_64 CC="$CC" HOSTCC="$CC" -j"$JOBS" linux >>"$LOG" 2>&1 ||
		{ tail -n 30 "$LOG" >&2; die "kernel $v: build failed"; }
	mkdir -p "$k"
	cp "$BUILD/linux" "$k/linux"
	cp "$BUILD/.config" "$k/config"
	cat "$BUILD/include/config/kernel.release" >"$k/release"
	(cd "$BUILD" && md5sum fs/fat/dir.o fs/fat/inode.o fs/fat/namei_vfat.o fs/fat/namei_msdos.o \
		fs/nls/nls_base.o fs/hostfs/hostfs_kern.o) >"$k/fat-md5"
	nm "$BUILD/vmlinux" | awk '$3 == "fat_init_sfn_show" { print $3 }' >"$k/fastpath-symbol"
	md5sum <"$k/linux" | cut -d' ' -f1 >"$k/linux-md5"
	echo "$commit" >"$k/stamp"
	log "kernel $v: $(cat "$k/release"), $((SECONDS - t)) s"
}
: >"$LOG"
build_kernel without
build_kernel with

# ------------------------------------------------------- the two kernels --
# Are they what they claim?  Release string, the fast path's function
# fat_init_sfn_show() in vmlinux, and objects: fs/fat/dir.o and inode.o
# (the patch's code) differ, fs/nls/nls_base.o and fs/hostfs/hostfs_kern.o
# (not touched; the build is reproducible) do not.  Every fs/fat object
# differs, as the patch adds fields to struct msdos_sb_info in fat.h.
check_kernels() {
	local ok=1
	[[ $(cat "$KDIR/with/release") =~ -fastpath-with\+?$ ]] || { echo "with: release $(cat "$KDIR/with/release")" >&2; ok=0; }
	[[ $(cat "$KDIR/without/release") =~ -fastpath-without\+?$ ]] || { echo "without: release $(cat "$KDIR/without/release")" >&2; ok=0; }
	[[ -s $KDIR/with/fastpath-symbol ]] || { echo "with: no fat_init_sfn_show in vmlinux" >&2; ok=0; }
	[[ ! -s $KDIR/without/fastpath-symbol ]] || { echo "without: has fat_init_sfn_show" >&2; ok=0; }
	for f in dir.o inode.o; do
		[[ $(grep " fs/fat/$f\$" "$KDIR/with/fat-md5") != $(grep " fs/fat/$f\$" "$KDIR/without/fat-md5") ]] ||
			{ echo "fs/fat/$f is the same in both kernels" >&2; ok=0; }
	done
	for f in nls/nls_base.o hostfs/hostfs_kern.o; do
		[[ $(grep " fs/$f\$" "$KDIR/with/fat-md5") == $(grep " fs/$f\$" "$KDIR/without/fat-md5") ]] ||
			{ echo "fs/$f differs between the kernels" >&2; ok=0; }
	done
	[[ $ok == 1 ]]
}
check_kernels || die "the two kernels are not what they claim"
log "kernels: with $(cat "$KDIR/with/release") has fat_init_sfn_show, without does not; fs/fat/dir.o differs"

# ---------------------------------------------------------------- userland --
rm -rf "$ROOT"
mkdir -p "$ROOT"/{dev,proc,sys,mnt,out}
gcc -O2 -static -Wall -Wextra -Werror -Wno-unused-function \
	-I"$REPO/selftests/filesystems/fat_extended" \
	-o "$ROOT/init" "$REPO/bench/fastpath-uml.c" || die "building bench/fastpath-uml.c failed"
[[ $BUILD_ONLY == 1 ]] && { log "built in $((SECONDS - t_start)) s; --build-only: stopping"; exit 0; }

# ------------------------------------------------------------------- boots --
BOOTS=$W/boots
rm -rf "$BOOTS" "$W/load.txt"
mkdir -p "$BOOTS"
boot() { # VARIANT TAG init-args...
	local v=$1 tag=$2 ubd rc=0 t=$SECONDS
	shift 2
	# --control: the without kernel in both slots
	[[ $CONTROL == 1 ]] && v=without
	ubd=ubd0r
	[[ $1 == prep ]] && ubd=ubd0
	rm -f "$ROOT/out/result.txt"
	cut -d' ' -f1 /proc/loadavg >>"$W/load.txt"
	# UML: no QEMU; the kernel is a host process.  hostfs root, the image
	# on ubd0; arguments after -- go to /init.
	timeout "$TIMEOUT" "$KDIR/$v/linux" mem=512M "$ubd=$IMG" \
		root=/dev/root rootfstype=hostfs rootflags="$ROOT" rw init=/init quiet \
		con=null con0=null,fd:1 -- "$@" \
		</dev/null >"$BOOTS/$tag.log" 2>&1 || rc=$?
	if [[ ! -s $ROOT/out/result.txt ]] || ! grep -q '^DONE' "$ROOT/out/result.txt"; then
		tail -n 30 "$BOOTS/$tag.log" >&2
		die "boot $tag ($v) did not finish its workload (exit $rc); log $BOOTS/$tag.log"
	fi
	cp "$ROOT/out/result.txt" "$BOOTS/$tag.txt"
	grep -q "^RUN .*release=$(cat "$KDIR/$v/release") " "$BOOTS/$tag.txt" ||
		die "boot $tag: the guest did not report release $(cat "$KDIR/$v/release")"
	log "boot $tag: $v kernel, $((SECONDS - t)) s"
}

log "image: FAT32, 4 KiB clusters; filled by the without kernel (upper, lower, long: $N files each)"
rm -f "$IMG"
mkfs.fat -F 32 -s 8 -n FASTPATH -C "$IMG" $((512 * 1024)) >/dev/null || die "mkfs.fat failed"
boot without prep prep "$N"
grep '^PREP ' "$BOOTS/prep.txt"

t_bench=$SECONDS
RAW=$W/raw.txt
: >"$RAW"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order=(without with); else order=(with without); fi
	for v in "${order[@]}"; do
		boot "$v" "round$r-$v" bench "$v" "$r" "$N" "$REPS" "$SAMPLE" "$NEG" "$WARM"
		grep -E '^(RAW|RUN) ' "$BOOTS/round$r-$v.txt" >>"$RAW"
	done
done
bench_s=$((SECONDS - t_bench))

# ------------------------------------------------------------------ report --
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
os=$(awk -F= '$1 == "PRETTY_NAME" { gsub(/"/, "", $2); print $2 }' /etc/os-release)
relw=$(cat "$KDIR/with/release") relwo=$(cat "$KDIR/without/release")
md5_of() { awk -v f="fs/$2" '$2 == f { print $1 }' "$KDIR/$1/fat-md5"; }
REPORT=$W/fastpath-uml.md
[[ $CONTROL == 1 ]] && REPORT=$W/control.md
{
	echo "# The 8.3 fast path on the host CPU (UML)$([[ $CONTROL == 1 ]] && echo ': A/A control')"
	echo
	echo "Generated by \`bench/fastpath-uml.sh --rounds $ROUNDS --n $N --reps $REPS --sample $SAMPLE --absent $NEG --warm $WARM$([[ $CONTROL == 1 ]] && echo ' --control')\`; do not edit."
	echo
	if [[ $CONTROL == 1 ]]; then
		echo "**A/A control: both columns are the without kernel** (pristine), booted in the two slots"
		echo "of each round as the with/without run boots its two kernels; any ratio away from 1 is the method's."
		echo
	fi
	echo "Machine: $cpu, $(nproc) CPUs, host kernel $(uname -r), $os."
	echo "Repository commit: $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet HEAD -- "$PATCHDIR" "patches/$LINE" bench/fastpath-uml.c bench/fastpath-uml.sh || echo ' (patch or benchmark modified)')."
	echo
	echo "Kernels (ARCH=um, SUBARCH=x86_64, defconfig + fat, vfat, msdos, NLS cp437/iso8859-1/utf8, hostfs, UBD;"
	echo "both from one build dir: without = $BASE $(git -C "$SRC" rev-parse --short "$base"), with = \`git am\` of $PATCHDIR/${PATCHES[0]##*/} on it):"
	echo
	echo "| kernel | release | commit | fat_init_sfn_show | md5 fs/fat/dir.o | md5 fs/fat/inode.o | md5 fs/nls/nls_base.o | md5 linux |"
	echo "|---|---|---|---|---|---|---|---|"
	for v in with without; do
		echo "| $v | $(cat "$KDIR/$v/release") | $(git -C "$SRC" rev-parse --short "fastpath-$v") $(git -C "$SRC" log -1 --format=%s "fastpath-$v") | $([[ -s $KDIR/$v/fastpath-symbol ]] && echo yes || echo no) | $(md5_of "$v" fat/dir.o) | $(md5_of "$v" fat/inode.o) | $(md5_of "$v" nls/nls_base.o) | $(cat "$KDIR/$v/linux-md5") |"
	done
	echo
	if [[ $CONTROL == 1 ]]; then
		echo "Every boot's /init printed its \`uname -r\` (checked: $relwo in all boots)"
	else
		echo "Every boot's /init printed its \`uname -r\` (checked: $relw in the with boots, $relwo in the without ones)"
	fi
	echo "and each mount's options from /proc/mounts:"
	echo
	# shellcheck disable=SC2016 # the backquotes are Markdown
	grep '^MOUNT ' "$BOOTS/round1-with.txt" | sed 's/^MOUNT \([^:]*\): \(.*\)$/- \1: `\2`/'
	echo
	grep '^PREP ' "$BOOTS/prep.txt" | sed 's/^PREP /Image: /'
	echo
	echo "$ROUNDS rounds; a round boots both kernels one after the other, in turn without first and with first;"
	echo "$((2 * ROUNDS)) boots in ${bench_s} s. In each boot, $REPS mounts per case (read-only, ubd0r); a boot's figure is"
	echo "the median over its mounts; the table gives the median over rounds for each kernel and"
	echo "with / without of those medians (in brackets, min-max of the per-round ratios)."
	echo "readdir: ns per entry (getdents64 through readdir(3) to the end). lookup: ns per stat() of a"
	echo "present name, cold dentry cache ($SAMPLE names spread over the directory; the directory's"
	echo "blocks are cached by then). absent: ns per stat() of an absent 8.3 name (a full scan; $NEG names)."
	echo "syscall: ns per stat(\".\") (dentry cached), the UML system call cost included in every lookup."
	echo "lookup-syscall, absent-syscall: the same stat()s less the syscall figure of the same mount"
	echo "(per mount, before the medians): the kernel's own time per lookup, without UML's system call cost."
	echo "mount: ns per mount(2) of the image read-only (the with kernel builds its 8.3 tables in it on vfat)."
	echo "ls-l-cold: ns per entry of an 'ls -l' after drop_caches 3 in the guest (first mount of a boot only):"
	echo "readdir, then a stat() of every name in readdir's order; the blocks come from the host's page cache."
	echo "Host load average (1 min) before each boot: $(sort -n "$W/load.txt" | sed -n '1p;$p' | paste -sd- -) (the other users of this shared machine)."
	echo
	awk -v rounds="$ROUNDS" -f - "$RAW" <<'AWK'
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	if (n == 0) return -1
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
/^RAW / {
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	c = f["mount"] SUBSEP f["dir"] SUBSEP f["op"]
	if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
	v[f["kernel"], f["round"], c] = v[f["kernel"], f["round"], c] " " f["ns"]
	rv[f["kernel"], f["round"], f["rep"], c] = f["ns"]
	if (f["op"] != "lookup" && f["op"] != "absent") next
	# the same lookups less the same mount's syscall row, mount by mount
	d = c "-syscall"
	if (!(d in seen)) { seen[d] = 1; order[++nc] = d }
	net[++nn] = f["kernel"] SUBSEP f["round"] SUBSEP f["rep"] SUBSEP f["mount"] SUBSEP c
}
END {
	for (i = 1; i <= nn; i++) {
		split(net[i], p, SUBSEP)
		s = rv[p[1], p[2], p[3], p[4] SUBSEP "upper" SUBSEP "syscall"]
		if (s == "") continue
		c = p[5] SUBSEP p[6] SUBSEP p[7]
		v[p[1], p[2], c "-syscall"] = v[p[1], p[2], c "-syscall"] " " rv[p[1], p[2], p[3], c] - s
	}
	print "| mount | names | op | without (ns) | with (ns) | with / without | per-round ratios |"
	print "|---|---|---|---:|---:|---:|---|"
	for (i = 1; i <= nc; i++) {
		c = order[i]; split(c, p, SUBSEP)
		sw = ""; so = ""; sr = ""; lo = 1e9; hi = 0
		for (r = 1; r <= rounds; r++) {
			mw = median(v["with", r, c]); mo = median(v["without", r, c])
			sw = sw " " mw; so = so " " mo
			if (mo > 0) { q = mw / mo; if (q < lo) lo = q; if (q > hi) hi = q }
		}
		Mw = median(sw); Mo = median(so)
		if (sw ~ / -1/ || so ~ / -1/ || Mo <= 0) { printf "| %s | %s | %s | MISSING |\n", p[1], p[2], p[3]; continue }
		printf "| %s | %s | %s | %s | %s | **%.2f** | %.2f-%.2f |\n", p[1], p[2], p[3], fmt(Mo), fmt(Mw), Mw / Mo, lo, hi
	}
}
AWK
	echo
	echo "Raw figures (one RAW line per boot, mount, directory and operation): <cache>/fastpath-uml/raw.txt."
	echo "Caveats: UML runs the kernel natively but every system call of the guest's process is a"
	echo "host-side context switch (see the syscall row): lookups carry that fixed cost, readdir"
	echo "spreads it over a getdents64 buffer of entries. The host is shared and not isolated;"
	echo "the spread of the per-round ratios shows the noise. Cold readdir includes reading the"
	echo "directory's blocks through UBD from the host's page cache."
} >"$REPORT"
cat "$REPORT"
! grep -q MISSING "$REPORT" || die "some case lacks a figure of some boot: $RAW"
if [[ $COPY == 1 ]]; then
	dest=bench/fastpath-uml.md
	[[ $CONTROL == 1 ]] && dest=bench/fastpath-uml-control.md
	cp "$REPORT" "$REPO/$dest"
	log "report: $dest"
fi
log "done in $((SECONDS - t_start)) s"
