#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-init.sh - /init of the test initramfs (scripts/mkinitramfs.sh).  Its
# settings: /etc/runner/runner.conf, written by qemu-run.sh's make_initramfs
# (MODE, NONCE, SUITE, EXT_SUITE, KUNIT_SUITES, RUN_SUITE, TESTS, SPLAT_RE,
# DISTRO_LOAD, DISTRO_EXPECT and the kselftest arguments); the console is
# ttyS0, ttyS1 the verdict port (written only when everything passed),
# ttyS2 the data port ("@@@VFAT-RUNNER-BEGIN name" ... "@@@VFAT-RUNNER-END
# name" sections the host saves as results/<line>/<config>/<name>).

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
umask 022

# shellcheck disable=SC2317  # called through the EXIT trap
power_off() {
	sync
	# No ACPI in this kernel: reboot, which QEMU (-no-reboot) turns into exit.
	busybox reboot -f
	echo b >/proc/sysrq-trigger 2>/dev/null
	exit 1 # init exiting panics the kernel, panic=-1 reboots
}
trap power_off EXIT

# Until the suite starts: static busybox applets and bash builtins only.
# Under TCG each exec of a dynamically linked tool costs 30-50 ms (util-linux
# mount: ~50 ms, busybox mount: ~5 ms); the tests still get the PATH's tools.
bb=/usr/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
$bb mkdir -p /dev/pts /dev/shm
$bb mount -t tmpfs -o mode=1777 tmpfs /tmp
$bb mount -t tmpfs -o mode=1777 tmpfs /dev/shm
$bb mount -t tmpfs tmpfs /run
$bb ln -sf /proc/self/fd /dev/fd 2>/dev/null
$bb ln -sf /proc/self/fd/0 /dev/stdin 2>/dev/null
$bb ln -sf /proc/self/fd/1 /dev/stdout 2>/dev/null
$bb ln -sf /proc/self/fd/2 /dev/stderr 2>/dev/null
echo vfat-guest >/proc/sys/kernel/hostname 2>/dev/null || true

MODE=tests NONCE='' SUITE=filesystems/fat EXT_SUITE=filesystems/fat_extended KUNIT_SUITES='' RUN_SUITE=1 SPLAT_RE='BUG:|WARNING:|Oops|Call Trace'
TESTS=() DISTRO_LOAD='' DISTRO_EXPECT=''
# shellcheck source=/dev/null
. /etc/runner/runner.conf

# KCSAN: its reports are judged after the suite (kcsan-judge.awk with the
# runner's kcsan-fat-functions.txt); debugfs: its counters, shown at the end.
KCSAN_FUNCS=
if [[ -f /etc/runner/kcsan-fat-functions.txt ]]; then
	KCSAN_FUNCS=/etc/runner/kcsan-fat-functions.txt
	mapfile -t _f <"$KCSAN_FUNCS"
	$bb mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	echo "kcsan: every race reported; a report with one of fs/fat's ${#_f[@]} functions in a stack fails the run"
	unset _f
fi

for port in /dev/ttyS1 /dev/ttyS2; do
	$bb stty -F "$port" raw -echo 2>/dev/null || true
done

# KVM probe boot (qemu-run.sh --accel auto): answer and leave.
read -r cmdline </proc/cmdline
if [[ " $cmdline " == *" vfat_runner.probe=1 "* ]]; then
	echo "VFAT-RUNNER-PROBE ok $NONCE" >/dev/ttyS1
	exit 0
fi

send_section() { # NAME FILE
	{
		echo "@@@VFAT-RUNNER-BEGIN $1"
		cat "$2"
		echo "@@@VFAT-RUNNER-END $1"
	} >/dev/ttyS2
}

read -r krel </proc/sys/kernel/osrelease
read -r uptime _ </proc/uptime
echo "vfat-runner: guest up ($krel, uptime ${uptime}s, mode $MODE)"
# The KUnit suites ran before /init: keep their results now, before a
# chatty test (drop_caches logs each write) can push them out of the log.
$bb dmesg >/tmp/dmesg-boot.txt 2>&1

# --distro-kernel: load the modules as modprobe resolves them (updates/dkms
# before kernel/), show which fat, vfat and msdos are in use, and check
# that they are the DKMS-built ones.  Writes /tmp/modules.txt; fails (1)
# when a module does not load or is not the built one.
distro_modules() {
	local m pair want got rc=0
	echo "kernel: $(cat /proc/version)"
	for m in $DISTRO_LOAD; do
		$bb modprobe "$m" || { echo "modprobe $m: FAILED"; rc=1; }
	done
	for m in fat vfat msdos; do
		echo "$m: $($bb modinfo -n "$m") version=$(cat "/sys/module/$m/version" 2>/dev/null || echo -)" \
			"srcversion=$(cat "/sys/module/$m/srcversion" 2>/dev/null || echo -)" \
			"taint=$(cat "/sys/module/$m/taint" 2>/dev/null)"
	done
	for pair in $DISTRO_EXPECT; do
		m=${pair%%=*} want=${pair#*=}
		got=$(cat "/sys/module/$m/srcversion" 2>/dev/null || echo none)
		if [[ $got == "$want" ]]; then
			echo "$m: srcversion $got is the DKMS-built $m.ko's: ours"
		else
			echo "$m: srcversion $got, but the DKMS-built $m.ko's is $want: NOT ours"
			rc=1
		fi
	done
	echo "kernel taint flags: $(cat /proc/sys/kernel/tainted)"
	$bb dmesg | grep -E 'taints kernel|module verification' | sed 's/^/dmesg: /'
	if [[ $rc == 0 ]]; then
		# What a user sees: the option in /proc/mounts, a long name refused
		truncate -s 8M /tmp/demo.img && mkfs.vfat /tmp/demo.img >/dev/null
		mkdir -p /tmp/demo
		if mount -t vfat -o loop,nolongcreate /tmp/demo.img /tmp/demo; then
			grep ' /tmp/demo ' /proc/mounts
			if touch /tmp/demo/README.TXT; then
				echo "touch README.TXT: ok"
			else
				echo "touch README.TXT: FAILED"
				rc=1
			fi
			if touch "/tmp/demo/A long name.txt" 2>/tmp/demo.err; then
				echo "touch 'A long name.txt': accepted: WRONG"
				rc=1
			else
				echo "touch 'A long name.txt': $(cat /tmp/demo.err)"
			fi
			umount /tmp/demo
		else
			echo "mount -o nolongcreate: FAILED"
			rc=1
		fi
	fi
	return $rc
}

if [[ $MODE == shell ]]; then
	[[ -n $DISTRO_LOAD ]] && distro_modules
	truncate -s 64M /tmp/scratch.img
	mkfs.vfat -n SCRATCH /tmp/scratch.img >/dev/null
	loopdev=$(losetup -f --show /tmp/scratch.img)
	mkdir -p /mnt
	cat <<EOF

vfat-nolongcreate test shell ($(uname -r)).  Scratch vfat image:
/tmp/scratch.img (64 MiB) attached to $loopdev, mount point /mnt.  Try:
    mount -t vfat -o nolongcreate $loopdev /mnt
    touch /mnt/README.TXT /mnt/a-long-name.txt    # the second must fail
    grep /mnt /proc/self/mountinfo; dmesg | tail
Kselftests: /kselftest (./run_kselftest.sh -c $SUITE -c $EXT_SUITE).  'exit' powers off.

EOF
	cd /root || true
	setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	exit 0
fi

ok=1
if [[ -n $DISTRO_LOAD ]]; then
	distro_modules >/tmp/modules.txt 2>&1 || ok=0
	sed 's/^/vfat-runner: /' /tmp/modules.txt
	send_section modules.txt /tmp/modules.txt
fi
if [[ -s /etc/runner/guest-cmd.sh ]]; then
	echo "vfat-runner: running guest command"
	(cd /tmp && bash /etc/runner/guest-cmd.sh) 2>&1 | tee /tmp/guest-cmd.txt
	rc=${PIPESTATUS[0]}
	echo "$rc" >/tmp/guest-cmd.status
	echo "vfat-runner: guest command exit status $rc"
	send_section guest-cmd.txt /tmp/guest-cmd.txt
	send_section guest-cmd.status /tmp/guest-cmd.status
	[[ $rc == 0 ]] || ok=0
fi

summary=
if [[ $RUN_SUITE == 1 ]]; then
	sel=(-c "$SUITE" -c "$EXT_SUITE")
	if [[ ${#TESTS[@]} -gt 0 ]]; then
		sel=()
		for t in "${TESTS[@]}"; do
			# the suite whose directory holds the program
			c=$SUITE
			[[ -e /kselftest/$EXT_SUITE/$t ]] && c=$EXT_SUITE
			sel+=(-t "$c:$t")
		done
	fi
	echo "vfat-runner: running kselftests: run_kselftest.sh ${sel[*]}"
	env | grep '^KSELFTEST_' | sed 's/^/vfat-runner: /'
	cd /kselftest || exit 1
	./run_kselftest.sh "${sel[@]}" 2>&1 | tee /tmp/tap.txt
	rc=${PIPESTATUS[0]}
	cd /
	# 6.1's and 6.12's run_kselftest.sh exit 0 even when a test fails
	# (run_one ends with "cd -"), so the TAP is what counts; its status is
	# recorded anyway and a non-zero one (bad collection...) fails too.
	echo "$rc" >/tmp/run_kselftest.status
	echo "vfat-runner: run_kselftest.sh exit status $rc"
	send_section tap.txt /tmp/tap.txt
	send_section run_kselftest.status /tmp/run_kselftest.status
	read -r pass fail skip plan seen _ < <(awk -f /etc/runner/tap-summary.awk /tmp/tap.txt)
	summary="pass=$pass fail=$fail skip=$skip"
	echo "vfat-runner: TAP: $summary plan=$plan results=$seen"
	if [[ $rc != 0 || $fail != 0 || $pass -lt 1 || $plan -lt 0 || $seen != "$plan" ]]; then
		ok=0
	fi
fi

dmesg >/tmp/dmesg.txt 2>&1
send_section dmesg.txt /tmp/dmesg.txt

# KUnit suites built into the kernel (KUNIT_SUITES, from its .config) ran
# at boot: each must have reported "ok" with its tally in the kernel log.
# They only decide the verdict: the verdict line's pass=/fail=/skip= are the
# TAP's, as is the host's count (make kunit counts KUnit's cases, under
# UML).  Read from the log as it was when /init started.
for k in $KUNIT_SUITES; do
	kline=$(grep -oE "# $k: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+" /tmp/dmesg-boot.txt | tail -n 1)
	if [[ -z $kline ]] || ! grep -qE "\] ok [0-9]+ $k\$" /tmp/dmesg-boot.txt; then
		echo "vfat-runner: KUnit suite $k: not ok, or no result in the kernel log at boot"
		grep -E "# $k|ok [0-9]+ $k" /tmp/dmesg-boot.txt
		ok=0
		continue
	fi
	echo "vfat-runner: KUnit $kline"
	read -r kp kf < <(sed -E 's/.*pass:([0-9]+) fail:([0-9]+).*/\1 \2/' <<<"$kline")
	[[ $kf == 0 && $kp -gt 0 ]] || ok=0
done
# KCSAN's reports ("BUG: KCSAN: ...") are judged by kcsan-judge.awk, not
# by the splat grep: one with an fs/fat frame fails, core code's are
# listed (reported, not judged) and counted in the verdict line.
if grep -E "$SPLAT_RE" /tmp/dmesg.txt | grep -v 'BUG: KCSAN: ' >/tmp/splats.txt; then
	echo "vfat-runner: kernel log has splats:"
	cat /tmp/splats.txt
	ok=0
fi
if [[ -n $KCSAN_FUNCS ]] || grep -q 'BUG: KCSAN: ' /tmp/dmesg.txt; then
	awk -v funcs="${KCSAN_FUNCS:-/dev/null}" -v known=/etc/runner/kcsan-known-core.txt \
		-f /etc/runner/kcsan-judge.awk /tmp/dmesg.txt >/tmp/kcsan.txt || ok=0
	if [[ -r /sys/kernel/debug/kcsan ]]; then
		grep -E '^(data_races|races_unknown_origin|assert_failures|no_capacity|unencodable_accesses):' \
			/sys/kernel/debug/kcsan | sed 's/^/kcsan counter: /' >>/tmp/kcsan.txt
	fi
	sed 's/^/vfat-runner: /' /tmp/kcsan.txt
	send_section kcsan.txt /tmp/kcsan.txt
	read -r _ _ _ n _ _ _ c _ < <(grep '^kcsan: [0-9]* report(s): ' /tmp/kcsan.txt)
	summary+=" kcsan_fat=${n:-?} kcsan_not_judged=${c:-?}"
fi

if [[ $ok == 1 ]]; then
	echo "VFAT-RUNNER-VERDICT ok nonce=$NONCE $summary" >/dev/ttyS1
	echo "vfat-runner: verdict ok"
else
	echo "vfat-runner: verdict FAILED"
fi
exit 0
