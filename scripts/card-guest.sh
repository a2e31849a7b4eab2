#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# card-guest.sh: the card owner's desktop path, in a QEMU guest.
set -euo pipefail

PROG=${0##*/}
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
CACHE=${VFAT_NOLONGCREATE_CACHE:-$HOME/.cache/vfat-nolongcreate}
# shellcheck source=scripts/lib/archive.sh
. "$REPO/scripts/lib/archive.sh"
MIRROR=$(debian_archive main) || exit 1
DKMS_MODES=(1 0)
SUITES=(bookworm trixie)
SUITE_SET=0
TIMEOUT=1200
CARD_REV=

usage() {
	cat <<EOF
Usage: $PROG [--suite bookworm|trixie|forky] [--dkms | --no-dkms] [--cache DIR]
       [--timeout S] [--card-rev REV]

Boots Debian's own kernel in QEMU (TCG) in a Debian root of the same
release with systemd-udevd, the system D-Bus and the real udisks2 daemon
(Debian 12 "bookworm": 6.1, udisks2 2.9; Debian 13 "trixie": 6.12,
udisks2 2.10; Debian 14 "forky": 7.2, udisks2 2.11, the boot with the
DKMS-built modules only, without the slicer), four vfat cards and a blank disk attached, and runs
tools/card/guest-test.sh: the package vfat-nolongcreate-tools is
installed (dpkg -i), one card is marked with nolongcreate-card, and
udisksctl mounts each card as a desktop would.

  --dkms      only the boot with the fat modules the DKMS package built
              for that kernel (scripts/deb-check.sh --export): a marked
              card mounts with nolongcreate, an unmarked one without,
              -o nolongcreate works on any; then the writers' table
              (tools/card/writers.sh), checked against docs/writers.md
  --no-dkms   only the boot with the kernel's own modules (no option):
              every card mounts, none with nolongcreate
  (default: both boots)
  --suite S   the release: bookworm, trixie or forky; repeated: each
              (default: bookworm and trixie)

  --card-rev REV  the guest runs nolongcreate-card, its udev rules, the
              Undo block of docs/card-owner.md and the
              DKMS package's postrm of the git revision REV instead of
              this tree's (installed over the package's): the same cases
              against older code, to see them fail

The roots (debootstrap, ~250 MB each) and the kernels' modules are kept in
CACHE/card-guest.  Writes the guests' output to
CACHE/card-guest/out-SUITE-DKMS.txt and the writers' tables to
CACHE/card-guest/writers-SUITE.md.  Prints the TAP and
"N passed, N failed, N skipped".  Exit status: 0 all passed, 1 failure, 2
usage.
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--dkms) DKMS_MODES=(1); shift ;;
	--no-dkms) DKMS_MODES=(0); shift ;;
	--suite)
		[[ ${2:-} == bookworm || ${2:-} == trixie || ${2:-} == forky ]] || { usage >&2; exit 2; }
		((SUITE_SET)) || SUITES=()
		SUITE_SET=1 SUITES+=("$2"); shift 2 ;;
	--cache) CACHE=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--card-rev) CARD_REV=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
die() {
	echo "$PROG: $*" >&2
	exit 1
}
step() { echo "== $PROG: $*"; }

[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot)"
need=()
for c in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio mkfs.vfat:dosfstools \
	mcopy:mtools depmod:kmod; do
	command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
done
if [[ ${#need[@]} -gt 0 ]]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" </dev/null >/dev/null
fi

W=$CACHE/card-guest
mkdir -p "$W"
exec 7>"$W/.lock"
flock 7

# ------------------------------------------------ package and the kernel --
# The package, its modules and the kernel: deb-check.sh --export of each
# suite (it makes the package with mkdeb.sh --reuse); the tools .deb
# installed in the guest is the export's, of the same build as its
# modules (mkdeb.sh's copies in the cache go whenever the package is
# made again, from this tree or another one).
run_suite() {
	local SUITE=$1 DEBVER LINE
	case $SUITE in
	bookworm) DEBVER=12 LINE=6.1 ;;
	trixie) DEBVER=13 LINE=6.12 ;;
	forky) DEBVER=14 LINE=7.2 ;;
	esac
	# forky: a short run (no slicer, its boot with the DKMS-built modules)
	local slicer=1 modes=("${DKMS_MODES[@]}")
	[[ $SUITE != forky ]] || { slicer=0; [[ ${#modes[@]} == 1 ]] || modes=(1); }
	EXPORT=$CACHE/deb-check-$DEBVER/export
	step "Debian $DEBVER's kernel and the DKMS-built modules: scripts/deb-check.sh --export (kept while the package is the same)"
	"$REPO/scripts/deb-check.sh" --suite "$SUITE" --line "$LINE" --cache "$CACHE" --export "$EXPORT" --reuse-export |
		tail -n 2 || { echo "not ok - deb-check.sh --suite $SUITE"; fails=$((fails + 1)) total=$((total + 1)); return; }
	TOOLS_DEB=
	# shellcheck source=/dev/null
	. "$EXPORT/export.env" # PKGVER SUITE KREL KVERSION LINE DEB TOOLS_DEB
	VMLINUZ=$EXPORT/$KREL/boot/vmlinuz-$KREL
	[[ -f $VMLINUZ ]] || die "no $VMLINUZ"
	[[ -f $TOOLS_DEB ]] || die "$EXPORT: no tools .deb (${TOOLS_DEB:-not in export.env})"
	echo "  the tools package: ${TOOLS_DEB##*/}"

	# ------------------------------------------------------------- the root --
	# What the root holds; another list is another root.
	PKGS="systemd-sysv udev dbus polkitd udisks2 kmod dosfstools mtools rsync vim-tiny libglib2.0-bin python3"
	# Debian 13: udisksd 2.10 loads libblockdev's fs plugin (libbd_fs.so.3)
	# at start and exits on SIGTRAP without it; that plugin links
	# libcom_err.so.2, which none of its package dependencies brings
	# (libblockdev-fs3 3.3.0-2.1: libext2fs2t64 only), and which a
	# minbase root of Debian 13 lacks (e2fsprogs is no longer required
	# there; every desktop install has it).  Debian 12's minbase has it.
	[[ $SUITE == bookworm ]] || PKGS+=" libcom-err2"
	ROOT_KEY="2 $SUITE $PKGS"
	R=$W/root-$DEBVER
	in_root() { unshare --mount --pid --fork --mount-proc="$R/proc" chroot "$R" "$@"; }
	if [[ $(cat "$R.key" 2>/dev/null) != "$ROOT_KEY" ]]; then
		step "debootstrap $SUITE + $PKGS"
		rm -f "$R.key" "$R.cpio"
		rm -rf "$R"
		# (debootstrap 1.0.128 has no script named forky: sid's)
		script=()
		[[ -e /usr/share/debootstrap/scripts/$SUITE ]] || script=(/usr/share/debootstrap/scripts/sid)
		debootstrap --variant=minbase "$SUITE" "$R" "$MIRROR" "${script[@]}" >"$W/debootstrap.log" 2>&1 ||
			{ tail -n 20 "$W/debootstrap.log" >&2; die "debootstrap failed"; }
		echo force-unsafe-io >"$R/etc/dpkg/dpkg.cfg.d/unsafe-io"
		cat >"$R/etc/apt/sources.list" <<-EOF
	deb $MIRROR $SUITE main
	deb $MIRROR $SUITE-updates main
	deb $MIRROR-security $SUITE-security main
	EOF
		# an archive that is a snapshot has Release files past their Valid-Until
		echo 'Acquire::Check-Valid-Until "false";' >"$R/etc/apt/apt.conf.d/50card-guest-valid-until"
		# shellcheck disable=SC2086 # the list
		{ in_root apt-get -q update && in_root env DEBIAN_FRONTEND=noninteractive \
			apt-get -q -y --no-install-recommends install $PKGS; } >"$W/apt.log" 2>&1 ||
			{ tail -n 20 "$W/apt.log" >&2; die "apt-get install in the root failed"; }
		in_root apt-get clean
		# every library udisksd and its libblockdev plugins (loaded with
		# dlopen, which no package dependency guarantees) need
		# shellcheck disable=SC2016 # the root's sh expands them
		missing=$(in_root sh -c 'for f in /usr/libexec/udisks2/udisksd /usr/lib/*/libbd_*.so.[0-9]; do
			ldd "$f" | sed -n "s|^[[:space:]]*\([^ ]*\) => not found|$f: \1|p"; done')
		[[ -z $missing ]] || die "the root lacks libraries of udisks2: $missing"
		# The desktop's user, whom polkit lets use udisks2 as it lets an
		# active local session (no logind session here); the console is
		# the test's: no getty on it.
		in_root useradd -m -u 1000 -s /bin/bash owner
		mkdir -p "$R/etc/polkit-1/rules.d"
		cat >"$R/etc/polkit-1/rules.d/50-card-guest.rules" <<-'EOF'
		polkit.addRule(function(action, subject) {
		    if (action.id.indexOf("org.freedesktop.udisks2.") == 0 && subject.user == "owner")
		        return polkit.Result.YES;
		});
		EOF
		for u in serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
			apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
			ln -sf /dev/null "$R/etc/systemd/system/$u"
		done
		echo card-guest >"$R/etc/hostname"
		echo "$ROOT_KEY" >"$R.key"
	fi
	# The kernel's own modules the guest needs (virtio disks, loop, fat,
	# codepages), from its package, the version of the export.
	K=$W/kernel-$KREL
	if [[ ! -d $K/usr/lib/modules/$KREL ]]; then
		step "linux-image-$KREL $KVERSION: the modules the guest needs"
		rm -rf "$K" "$R.cpio"
		mkdir -p "$K.tmp"
		# (Debian 14: the modules are in linux-modules-KREL, their lists in linux-base-KREL)
		kpkgs="linux-image-$KREL=$KVERSION"
		[[ $DEBVER -lt 14 ]] || kpkgs+=" linux-modules-$KREL=$KVERSION linux-base-$KREL=$KVERSION"
		in_root sh -c "cd /tmp && apt-get -q download $kpkgs" >"$W/kdownload.log" 2>&1 ||
			{ tail -n 5 "$W/kdownload.log" >&2; die "cannot download $kpkgs"; }
		for f in "$R"/tmp/linux-*-"$KREL"_*.deb; do dpkg-deb -x "$f" "$K.tmp/x"; done
		rm -f "$R"/tmp/linux-*-"$KREL"_*.deb
		S=$K.tmp/x/usr/lib/modules/$KREL # Debian 13; Debian 12: /lib
		[[ -d $S ]] || S=$K.tmp/x/lib/modules/$KREL
		# usr/lib: the root's /lib is a link to it (an initramfs directory
		# entry "lib" would replace the link)
		mkdir -p "$K.tmp/k/usr/lib/modules/$KREL"
		(cd "$S" && cp modules.order modules.builtin modules.builtin.modinfo "$K.tmp/k/usr/lib/modules/$KREL/" &&
			find kernel \( -path 'kernel/drivers/virtio/*' -o -path 'kernel/drivers/block/virtio_blk.ko*' \
				-o -path 'kernel/drivers/block/loop.ko*' -o -path 'kernel/fs/fat/*' -o -path 'kernel/fs/nls/*' \) \
				-exec cp --parents {} "$K.tmp/k/usr/lib/modules/$KREL/" \;) || die "no modules in linux-image-$KREL"
		mv "$K.tmp/k" "$K"
		rm -rf "$K.tmp"
	fi
	# The slicer: Debian's prusa-slicer and what it needs (~700 MB on
	# Debian 12, ~1.1 GB on 13), for tools/card/slicer-test.sh and the
	# writers' table.  Installed (apt-get, --no-install-recommends) into a
	# scratch copy of the root made of hard links (dpkg and apt replace a
	# file by renaming a new one over it; the logs, appended to, are
	# copied); what that install made or changed is kept as a layer, a
	# gzip'd initramfs part of its own (~250 MB on Debian 12) that the
	# boot with the DKMS-built modules loads after the root: the root every
	# boot loads stays as small as it was.  Made again when the root or
	# this list changes.
	SLICER_PKGS="prusa-slicer"
	LAYER_KEY="1 $ROOT_KEY + $SLICER_PKGS"
	L=$W/slicer-$DEBVER
	if [[ $slicer == 1 ]] && [[ $(cat "$L.key" 2>/dev/null) != "$LAYER_KEY" || ! -f $L.cpio ]]; then
		step "the slicer's layer: $SLICER_PKGS installed in a copy of the root"
		rm -rf "$L.key" "$L.cpio" "$L.tmp" "$L.stamp"
		cp -al "$R" "$L.tmp"
		rm -rf "$L.tmp/var/log" && cp -a "$R/var/log" "$L.tmp/var/log"
		touch "$L.stamp" # after the copy: what changes from now on is the layer's
		in_layer() { unshare --mount --pid --fork --mount-proc="$L.tmp/proc" chroot "$L.tmp" "$@"; }
		# shellcheck disable=SC2086 # the list
		{ in_layer apt-get -q update && in_layer env DEBIAN_FRONTEND=noninteractive \
			apt-get -q -y --no-install-recommends install $SLICER_PKGS; } >"$W/apt-slicer.log" 2>&1 </dev/null ||
			{ tail -n 20 "$W/apt-slicer.log" >&2; rm -rf "$L.tmp" "$L.stamp"; die "apt-get install $SLICER_PKGS in a copy of the root failed"; }
		in_layer apt-get clean
		{ in_layer prusa-slicer --help 2>&1 | head -n 1; } >>"$W/apt-slicer.log" || true
		# the entries made or changed by the install (ctime after the
		# stamp), not apt's lists and caches
		(cd "$L.tmp" && find . \( -path ./proc -o -path ./var/lib/apt/lists -o -path ./var/cache/apt \
			-o -path ./var/log \) -prune -o -cnewer "$L.stamp" -print | cpio -o -H newc --quiet | gzip) >"$L.cpio.tmp"
		rm -rf "$L.tmp" "$L.stamp"
		mv "$L.cpio.tmp" "$L.cpio"
		echo "$LAYER_KEY" >"$L.key"
	fi
	if [[ ! -f $R.cpio ]]; then
		step "the root as an initramfs"
		(cd "$R" && find . -path ./proc/\* -prune -o -print | cpio -o -H newc --quiet) >"$R.cpio.tmp"
		(cd "$K" && find . | cpio -o -H newc --quiet) >>"$R.cpio.tmp"
		mv "$R.cpio.tmp" "$R.cpio"
	fi

	# ------------------------------------------------------------- the cards --
	mkcard() { # mkcard FILE SERIAL LABEL
		rm -f "$1"
		mkfs.vfat -C -F 16 -i "$2" -n "$3" "$1" 32768 >/dev/null
		printf 'old\n' >"$W/old.txt"
		MTOOLS_NO_VFAT=0 mcopy -i "$1" "$W/old.txt" "::Old Long Name.gcode"
	}

	for dkms in "${modes[@]}"; do
		T=$W/run-$DEBVER-$dkms
		rm -rf "$T"
		mkdir -p "$T/o/opt/nlc" "$T/o/usr/lib/modules/$KREL/updates/dkms"
		mkcard "$T/c1.img" 1111AAAA PRINTER
		mkcard "$T/c2.img" 2222BBBB STICK
		mkcard "$T/c3.img" 3333CCCC OTHER
		rm -f "$T/c4.img"
		mkfs.vfat -C -F 16 -i 4444DDDD -n WRITERS "$T/c4.img" 32768 >/dev/null
		truncate -s 8M "$T/blank.img"
		cp "$TOOLS_DEB" "$T/o/opt/nlc/tools.deb"
		cp "$REPO/tools/card/guest-test.sh" "$REPO/tools/card/writers.sh" "$REPO/tools/card/slicer-test.sh" \
			"$REPO/tools/desktop/put-on-card" "$T/o/opt/nlc/"
		# the DKMS package's postrm (its removal, simulated), and
		# nolongcreate-card installed from the sources under /usr/local
		CARDSRC=$REPO PRM=debian/postrm
		if [[ -n $CARD_REV ]]; then
			git -C "$REPO" cat-file -e "$CARD_REV:$PRM" 2>/dev/null || PRM=dkms/debian/postrm # before debian/ moved
			CARDSRC=$T/rev
			mkdir -p "$CARDSRC" "$T/o/opt/nlc/rev"
			git -C "$REPO" archive "$CARD_REV" tools/card "$PRM" docs/card-owner.md | tar -x -C "$CARDSRC" ||
				die "git archive $CARD_REV failed"
			cp "$CARDSRC/tools/card/nolongcreate-card" "$T/o/opt/nlc/rev/"
			for r in 61-vfat-nolongcreate.rules 99-zz-vfat-nolongcreate.rules; do
				[[ ! -f $CARDSRC/tools/card/$r ]] ||
					sed 's|@SBINDIR@|/usr/sbin|' "$CARDSRC/tools/card/$r" >"$T/o/opt/nlc/rev/$r"
			done
		fi
		cp "$CARDSRC/$PRM" "$T/o/opt/nlc/dkms.postrm"
		cp "$CARDSRC/docs/card-owner.md" "$T/o/opt/nlc/" # its Undo block, run as written
		make -s -C "$CARDSRC/tools/card" install DESTDIR="$T/o/opt/nlc/local" >/dev/null ||
			die "make -C tools/card install DESTDIR=... failed"
		mkdir -p "$T/o/etc/systemd/system/multi-user.target.wants"
		cat >"$T/o/etc/systemd/system/nlc-test.service" <<-'EOF'
		[Unit]
		Description=vfat-nolongcreate card test
		After=systemd-udev-trigger.service systemd-udevd.service dbus.service polkit.service
		Wants=polkit.service

		[Service]
		Type=oneshot
		ExecStart=/bin/bash /opt/nlc/guest-test.sh
		ExecStopPost=/bin/sh -c 'sync; systemctl --force poweroff'
		StandardOutput=tty
		StandardError=tty
		TTYPath=/dev/ttyS0
		EOF
		ln -s ../nlc-test.service "$T/o/etc/systemd/system/multi-user.target.wants/nlc-test.service"
		if [[ $dkms == 1 ]]; then
			find "$EXPORT/$KREL/modules/updates/dkms" -name '*.ko*' | while read -r f; do
				case $f in
				*.ko.xz) xz -dc "$f" >"$T/o/usr/lib/modules/$KREL/updates/dkms/$(basename "$f" .xz)" ;;
				*) cp "$f" "$T/o/usr/lib/modules/$KREL/updates/dkms/" ;;
				esac
			done
		fi
		# the module index of the stock modules plus these, made here: udev
		# loads modules (virtio_blk...) long before a test could run depmod
		rm -rf "$T/dep"
		mkdir -p "$T/dep/lib/modules"
		cp -a "$K/usr/lib/modules/$KREL" "$T/dep/lib/modules/"
		cp -a "$T/o/usr/lib/modules/$KREL/updates" "$T/dep/lib/modules/$KREL/"
		depmod -b "$T/dep" "$KREL" || die "depmod -b $T/dep $KREL failed"
		cp "$T/dep/lib/modules/$KREL"/modules.*.bin "$T/dep/lib/modules/$KREL"/modules.{dep,alias,symbols,softdep,devname} \
			"$T/o/usr/lib/modules/$KREL/"
		(cd "$T/o" && find . | cpio -o -H newc --quiet) >"$T/overlay.cpio"
		layer=()
		[[ $dkms == 1 && $slicer == 1 ]] && layer=("$L.cpio")
		cat "$R.cpio" "${layer[@]}" >"$T/initrd"
		# after a compressed part (the layer) an uncompressed one starts at
		# an offset the kernel's unpack_to_rootfs() takes for a cpio header
		# only when 4-byte aligned; the zeros before it are skipped
		truncate -s %512 "$T/initrd"
		cat "$T/overlay.cpio" >>"$T/initrd"
		# memory: the initramfs unpacks into a tmpfs of half the memory,
		# while it is still loaded (the root and the slicer's layer: over
		# 2 GB unpacked on Debian 13, "Initramfs unpacking failed: write
		# error" with 4 GB), and 1 GB
		mem=2048
		[[ $dkms == 1 && $slicer == 1 ]] && mem=8192
		step "boot: Debian $DEBVER ($SUITE), $KREL, $([[ $dkms == 1 ]] && echo "with the DKMS-built fat modules" || echo "its own fat modules (no nolongcreate)")"
		t0=$SECONDS
		out=$W/out-$SUITE-$dkms.txt
		disks=() # by serial: the guest finds them in /dev/disk/by-id
		for d in c1:printer c2:stick c3:other c4:writers blank:blank; do
			disks+=(-drive "file=$T/${d%%:*}.img,if=none,id=${d#*:},format=raw"
				-device "virtio-blk-pci,drive=${d#*:},serial=${d#*:}")
		done
		timeout "$TIMEOUT" qemu-system-x86_64 -machine q35 -accel tcg -cpu max -m "$mem" -smp 1 \
			-nographic -no-reboot -kernel "$VMLINUZ" -initrd "$T/initrd" \
			-append "console=ttyS0 rdinit=/sbin/init panic=-1 quiet loglevel=3 systemd.show_status=0 nlc.dkms=$dkms nlc.pkgver=$PKGVER nlc.slicer=$slicer" \
			"${disks[@]}" </dev/null >"$out" 2>&1 || true
		rm -f "$T/initrd" # the parts above again: no need to keep it
		tr -d '\r' <"$out" | sed -n '/^TAP version/,/^# card-guest:/p' | sed '/^--- writers/,/^--- end/d'
		echo "   ($((SECONDS - t0)) s)"
		p=$(tr -d '\r' <"$out" | grep -c '^ok ' || true)
		f=$(tr -d '\r' <"$out" | grep -c '^not ok ' || true)
		if ! tr -d '\r' <"$out" | grep -q '^# card-guest:'; then
			echo "not ok - the guest did not finish (see $out)"
			tail -n 20 "$out"
			f=$((f + 1))
		fi
		if [[ $dkms == 1 && $slicer == 1 ]]; then
			tr -d '\r' <"$out" | sed -n '/^--- writers/,/^--- end/p' | sed '1d;$d' >"$W/writers-$SUITE.md"
			if [[ ! -s $W/writers-$SUITE.md ]]; then
				echo "not ok - writers' table: none from the guest"
				f=$((f + 1))
			elif diff -u <(sed -n '/^<!-- writers: begin/,/^<!-- writers: end/p' "$REPO/docs/writers.md" | sed '1d;$d') \
				"$W/writers-$SUITE.md"; then
				echo "ok - writers' table: docs/writers.md is what the guest measured"
				p=$((p + 1))
			else
				echo "not ok - writers' table: docs/writers.md differs from what the guest measured ($W/writers-$SUITE.md)"
				f=$((f + 1))
			fi
		fi
		total=$((total + p + f))
		fails=$((fails + f))
	done
}

fails=0 total=0
for suite in "${SUITES[@]}"; do
	run_suite "$suite"
done
echo "$((total - fails)) passed, $fails failed, 0 skipped"
[[ $fails == 0 ]]
