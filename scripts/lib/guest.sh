# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced: the Debian guest harness of deb-check.sh, card-guest.sh,
# sigenforce-guest.sh and distro-kernel.sh.  A root per suite built once and
# cached, Debian's kernel and the DKMS-built modules put in, a scenario script
# run under systemd in QEMU, its TAP read back.  Callers set CACHE.  The
# archive: the machine's apt sources, or DEB_MIRROR (archive.sh).
PROG=${0##*/}
REPO=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd -P)
# shellcheck source=scripts/lib/archive.sh
. "$REPO/scripts/lib/archive.sh"
# shellcheck source=scripts/lib/common.sh
. "$REPO/scripts/lib/common.sh"
step() { echo "== $PROG: $*"; }

# host_need CMD:PACKAGE...: the packages of the commands this machine lacks, installed
host_need() {
	local c pkgs=()
	for c; do command -v "${c%%:*}" >/dev/null || pkgs+=("${c#*:}"); done
	((${#pkgs[@]})) || return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null >/dev/null
	apt-get install -y -q --no-install-recommends "${pkgs[@]}" </dev/null >/dev/null
}

# debian_suite SUITE: its DEBVER and DLINE (Debian's kernel line); status 1 if none
debian_suite() {
	case $1 in
	bookworm) DEBVER=12 DLINE=6.1 ;;
	trixie) DEBVER=13 DLINE=6.12 ;;
	forky) DEBVER=14 DLINE=7.2 ;;
	*) return 1 ;;
	esac
}

# in_root CMD...: CMD in the root $R, with a mount and pid namespace and /proc of its own
in_root() { unshare --mount --pid --fork --mount-proc="$R/proc" chroot "$R" "$@"; }

# debian_bootstrap SUITE LOG: a minbase root of SUITE in $R, its apt on the archive
debian_bootstrap() {
	local mirror security script=()
	mirror=$(debian_archive main) && security=$(debian_archive security) || exit 1
	# (debootstrap 1.0.128 has no script named forky: sid's)
	[[ -e /usr/share/debootstrap/scripts/$1 ]] || script=(/usr/share/debootstrap/scripts/sid)
	rm -rf "$R"
	debootstrap --variant=minbase "$1" "$R" "$mirror" "${script[@]}" >"$2" 2>&1 ||
		{ tail -n 20 "$2" >&2; die "debootstrap failed"; }
	# dpkg without fsync in this throwaway root: the same files, faster
	echo force-unsafe-io >"$R/etc/dpkg/dpkg.cfg.d/unsafe-io"
	printf 'deb %s main\n' "$mirror $1" "$mirror $1-updates" "$security $1-security" >"$R/etc/apt/sources.list"
	# an archive that is a snapshot has Release files past their Valid-Until
	echo 'Acquire::Check-Valid-Until "false";' >"$R/etc/apt/apt.conf.d/50valid-until"
}

# cpio_of DIR: DIR as an initramfs part (newc) on stdout
cpio_of() { (cd "$1" && find . | cpio -o -H newc --quiet); }

# guest_export SUITE: deb-check.sh --export of SUITE in CACHE (kept while the package is the same)
guest_export() {
	step "Debian $DEBVER's kernel and the DKMS-built modules: scripts/deb-check.sh --export (kept while the package is the same)"
	"$REPO/scripts/deb-check.sh" --suite "$1" --line "$DLINE" --cache "$CACHE" \
		--export "$CACHE/deb-check-$DEBVER/export" --reuse-export | tail -n 2
}

# export_env DIR: the export in DIR: PKGVER KREL KVERSION, DEB and TOOLS_DEB (in DIR), VMLINUZ
export_env() {
	DEB='' TOOLS_DEB=''
	# shellcheck source=/dev/null
	. "$1/export.env"
	DEB=$1/${DEB##*/} TOOLS_DEB=$1/${TOOLS_DEB##*/} VMLINUZ=$1/$KREL/boot/vmlinuz-$KREL
	[[ -f $VMLINUZ ]] || die "no $VMLINUZ"
	[[ -f $DEB && -f $TOOLS_DEB ]] || die "$1: no .debs (${DEB:-DEB not in export.env}, ${TOOLS_DEB:-TOOLS_DEB not in export.env})"
}

# guest_root SUITE: in GW (CACHE/card-guest; the caller holds GW/.lock) the
# root R of SUITE (systemd, udev, D-Bus, polkit, udisks2, a desktop user
# "owner"), K the kernel KREL's own modules the guests need, and R.cpio of both
guest_root() {
	local suite=$1 missing kpkgs f S
	GW=$CACHE/card-guest R=$CACHE/card-guest/root-$DEBVER K=$CACHE/card-guest/kernel-$KREL
	mkdir -p "$GW"
	# What the root holds; another list is another root.
	PKGS="systemd-sysv udev dbus polkitd udisks2 kmod dosfstools mtools rsync vim-tiny libglib2.0-bin python3"
	# Debian 13: udisksd 2.10 loads libblockdev's fs plugin (libbd_fs.so.3)
	# at start and exits on SIGTRAP without it; that plugin links
	# libcom_err.so.2, which none of its package dependencies brings, and
	# which a minbase root of Debian 13 lacks (e2fsprogs is no longer required).
	[[ $suite == bookworm ]] || PKGS+=" libcom-err2"
	ROOT_KEY="2 $suite $PKGS"
	if [[ $(cat "$R.key" 2>/dev/null) != "$ROOT_KEY" ]]; then
		step "debootstrap $suite + $PKGS"
		rm -f "$R.key" "$R.cpio"
		debian_bootstrap "$suite" "$GW/debootstrap.log"
		# shellcheck disable=SC2086 # the list
		{ in_root apt-get -q update && in_root env DEBIAN_FRONTEND=noninteractive \
			apt-get -q -y --no-install-recommends install $PKGS; } >"$GW/apt.log" 2>&1 ||
			{ tail -n 20 "$GW/apt.log" >&2; die "apt-get install in the root failed"; }
		in_root apt-get clean
		# every library udisksd and its libblockdev plugins (loaded with
		# dlopen, which no package dependency guarantees) need
		# shellcheck disable=SC2016 # the root's sh expands them
		missing=$(in_root sh -c 'for f in /usr/libexec/udisks2/udisksd /usr/lib/*/libbd_*.so.[0-9]; do
			ldd "$f" | sed -n "s|^[[:space:]]*\([^ ]*\) => not found|$f: \1|p"; done')
		[[ -z $missing ]] || die "the root lacks libraries of udisks2: $missing"
		# The desktop's user, whom polkit lets use udisks2 as it lets an
		# active local session (no logind session here); the console is
		# the scenario's: no getty on it.
		in_root useradd -m -u 1000 -s /bin/bash owner
		mkdir -p "$R/etc/polkit-1/rules.d"
		cat >"$R/etc/polkit-1/rules.d/50-card-guest.rules" <<-'EOF'
		polkit.addRule(function(action, subject) {
		    if (action.id.indexOf("org.freedesktop.udisks2.") == 0 && subject.user == "owner")
		        return polkit.Result.YES;
		});
		EOF
		for f in serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
			apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
			ln -sf /dev/null "$R/etc/systemd/system/$f"
		done
		echo card-guest >"$R/etc/hostname"
		echo "$ROOT_KEY" >"$R.key"
	fi
	# The kernel's own modules the guest needs (virtio disks, loop, fat,
	# codepages), from its package, the version of the export.
	if [[ ! -d $K/usr/lib/modules/$KREL ]]; then
		step "linux-image-$KREL $KVERSION: the modules the guest needs"
		rm -rf "$K" "$R.cpio"
		mkdir -p "$K.tmp"
		# (Debian 14: the modules are in linux-modules-KREL, their lists in linux-base-KREL)
		kpkgs="linux-image-$KREL=$KVERSION"
		[[ $DEBVER -lt 14 ]] || kpkgs+=" linux-modules-$KREL=$KVERSION linux-base-$KREL=$KVERSION"
		in_root sh -c "cd /tmp && apt-get -q download $kpkgs" >"$GW/kdownload.log" 2>&1 ||
			{ tail -n 5 "$GW/kdownload.log" >&2; die "cannot download $kpkgs"; }
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
	if [[ ! -f $R.cpio ]]; then
		step "the root as an initramfs"
		(cd "$R" && find . -path ./proc/\* -prune -o -print | cpio -o -H newc --quiet) >"$R.cpio.tmp"
		cpio_of "$K" >>"$R.cpio.tmp"
		mv "$R.cpio.tmp" "$R.cpio"
	fi
}

# put_module FILE DIR: the module FILE in DIR uncompressed, as the guest's modprobe takes it
put_module() {
	case $1 in
	*.ko) cp "$1" "$2/" ;;
	*.ko.xz) xz -dc "$1" >"$2/$(basename "$1" .xz)" ;;
	*.ko.zst) zstd -qdc "$1" >"$2/$(basename "$1" .zst)" ;;
	*.ko.gz) gzip -dc "$1" >"$2/$(basename "$1" .gz)" ;;
	*) die "$1: not a module file" ;;
	esac
}

# guest_modules EXPORT O: the DKMS-built modules of EXPORT in O's updates/dkms
guest_modules() {
	local f
	mkdir -p "$2/usr/lib/modules/$KREL/updates/dkms"
	for f in "$1/$KREL/modules/updates/dkms"/*.ko*; do put_module "$f" "$2/usr/lib/modules/$KREL/updates/dkms"; done
}

# guest_index DEP O: the module index of DEP/lib/modules (the kernel's own)
# plus O's updates, into O: udev loads modules before anything could run depmod
guest_index() {
	local m=$1/lib/modules/$KREL
	cp -a "$2/usr/lib/modules/$KREL/updates" "$m/"
	depmod -b "$1" "$KREL" || die "depmod -b $1 $KREL failed"
	cp "$m"/modules.*.bin "$m"/modules.{dep,alias,symbols,softdep,devname} "$2/usr/lib/modules/$KREL/"
}

# guest_service O UNIT SCRIPT DESCRIPTION [AFTER]: SCRIPT run at boot by a
# oneshot UNIT after udev, D-Bus and polkit, output on the console, then poweroff
guest_service() {
	mkdir -p "$1/etc/systemd/system/multi-user.target.wants"
	cat >"$1/etc/systemd/system/$2.service" <<-EOF
	[Unit]
	Description=$4
	After=systemd-udev-trigger.service systemd-udevd.service dbus.service polkit.service${5:+ $5}
	Wants=polkit.service

	[Service]
	Type=oneshot
	ExecStart=/bin/bash $3
	ExecStopPost=/bin/sh -c 'sync; systemctl --force poweroff'
	StandardOutput=tty
	StandardError=tty
	TTYPath=/dev/ttyS0
	EOF
	ln -s "../$2.service" "$1/etc/systemd/system/multi-user.target.wants/$2.service"
}

# guest_no_emergency O NAME: emergency or rescue mode (a failed /etc/fstab
# mount) says so with the journal's errors and powers off, for guest_tap
guest_no_emergency() {
	local u
	for u in emergency rescue; do
		mkdir -p "$1/etc/systemd/system/$u.service.d"
		cat >"$1/etc/systemd/system/$u.service.d/nlc.conf" <<-EOF
		[Service]
		ExecStart=
		ExecStart=/bin/sh -c 'echo "# $2: $u mode"; journalctl -b --no-pager -o short-monotonic -p warning | grep -v audit | tail -n 25 | sed "s/^/#   /"; systemctl --force poweroff'
		StandardInput=null
		StandardOutput=tty
		StandardError=tty
		TTYPath=/dev/ttyS0
		EOF
	done
}

# guest_vfat FILE ID LABEL: a 16 MiB FAT16 disk image
guest_vfat() { rm -f "$1"; mkfs.vfat -C -F 16 -i "$2" -n "$3" "$1" 32768 >/dev/null; }

# guest_boot OUT MEM APPEND FILE:SERIAL...: VMLINUZ and T/initrd in QEMU (TCG)
# for at most TIMEOUT s, each FILE a virtio disk (/dev/disk/by-id/virtio-SERIAL);
# the console in OUT
guest_boot() {
	local out=$1 mem=$2 append=$3 d disks=()
	shift 3
	for d; do
		disks+=(-drive "file=${d%:*},if=none,id=${d##*:},format=raw" -device "virtio-blk-pci,drive=${d##*:},serial=${d##*:}")
	done
	t0=$SECONDS
	timeout "$TIMEOUT" qemu-system-x86_64 -machine q35 -accel tcg -cpu max -m "$mem" -smp 1 \
		-nographic -no-reboot -kernel "$VMLINUZ" -initrd "$T/initrd" \
		-append "console=ttyS0 rdinit=/sbin/init panic=-1 quiet loglevel=3 systemd.show_status=0 $append" \
		"${disks[@]}" </dev/null >"$out" 2>&1 || true
}

# guest_tap OUT NAME [NOTE]: the scenario's TAP in OUT (from "TAP version" to
# its trailer "# NAME: N passed"), counted in P and F; a boot that stopped in
# emergency mode or did not finish is one failure more
guest_tap() {
	local out=$1 name=$2 note=${3:+$3; }
	tr -d '\r' <"$out" | sed -n "/TAP version/,/^# $name: [0-9]/p" | sed -e 's/^.*TAP version/TAP version/' -e '/^--- writers/,/^--- end/d'
	echo "   ($((SECONDS - t0)) s)"
	# shellcheck disable=SC2034 # the caller's
	P=$(tr -d '\r' <"$out" | grep -c '^ok ' || true)
	F=$(tr -d '\r' <"$out" | grep -c '^not ok ' || true)
	if tr -d '\r' <"$out" | grep -q "# $name: \(emergency\|rescue\) mode"; then
		echo "not ok - the boot stopped in emergency mode (${note}see $out)"
		tr -d '\r' <"$out" | sed -n "/# $name: \(emergency\|rescue\) mode/,\$p" | grep '#' | sed "s/^.*# $name/# $name/" | head -n 26
		F=$((F + 1))
	elif ! tr -d '\r' <"$out" | grep -q "^# $name: [0-9]* passed"; then
		echo "not ok - the guest did not finish (${note}see $out)"
		tail -n 20 "$out"
		F=$((F + 1))
	fi
}
