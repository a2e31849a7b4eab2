#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# card-guest.sh: the card owner's desktop path, in a QEMU guest.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "$0")/lib/guest.sh"
CACHE=${VFAT_NOLONGCREATE_CACHE:-$HOME/.cache/vfat-nolongcreate}
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

[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot)"
host_need qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap cpio:cpio mkfs.vfat:dosfstools \
	mcopy:mtools depmod:kmod

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
	local SUITE=$1 DEBVER DLINE
	debian_suite "$SUITE"
	# forky: a short run (no slicer, its boot with the DKMS-built modules)
	local slicer=1 modes=("${DKMS_MODES[@]}")
	[[ $SUITE != forky ]] || { slicer=0; [[ ${#modes[@]} == 1 ]] || modes=(1); }
	EXPORT=$CACHE/deb-check-$DEBVER/export
	guest_export "$SUITE" || { echo "not ok - deb-check.sh --suite $SUITE"; fails=$((fails + 1)) total=$((total + 1)); return; }
	export_env "$EXPORT"
	echo "  the tools package: ${TOOLS_DEB##*/}"
	guest_root "$SUITE"
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
		in_layer() { R=$L.tmp in_root "$@"; }
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

	# ------------------------------------------------------------- the cards --
	mkcard() { # mkcard FILE SERIAL LABEL
		guest_vfat "$@"
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
		guest_vfat "$T/c4.img" 4444DDDD WRITERS
		truncate -s 8M "$T/blank.img"
		cp "$TOOLS_DEB" "$T/o/opt/nlc/tools.deb"
		cp "$REPO/tools/card/guest-test.sh" "$REPO/scripts/lib/guest-tap.sh" "$REPO/tools/card/writers.sh" "$REPO/tools/card/slicer-test.sh" \
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
		guest_service "$T/o" nlc-test /opt/nlc/guest-test.sh "vfat-nolongcreate card test"
		[[ $dkms != 1 ]] || guest_modules "$EXPORT" "$T/o"
		# the module index of the stock modules plus these
		rm -rf "$T/dep"
		mkdir -p "$T/dep/lib/modules"
		cp -a "$K/usr/lib/modules/$KREL" "$T/dep/lib/modules/"
		guest_index "$T/dep" "$T/o"
		cpio_of "$T/o" >"$T/overlay.cpio"
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
		out=$W/out-$SUITE-$dkms.txt
		guest_boot "$out" "$mem" "nlc.dkms=$dkms nlc.pkgver=$PKGVER nlc.slicer=$slicer" \
			"$T/c1.img:printer" "$T/c2.img:stick" "$T/c3.img:other" "$T/c4.img:writers" "$T/blank.img:blank"
		rm -f "$T/initrd" # the parts above again: no need to keep it
		guest_tap "$out" card-guest
		p=$P f=$F
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
