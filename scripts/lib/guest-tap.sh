# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the scenarios in the guest of scripts/lib/guest.sh
# (tools/card/guest-test.sh, scripts/sigenforce-guest-test.sh): TAP on the
# console, ended by tap_end, and the helpers they share.
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local d=$1
	shift
	if "$@" >/tmp/out 2>&1; then ok "$d"; else notok "$d"; sed 's/^/# /' /tmp/out; fi
}
say() { echo "# $*"; }
run() { # show a command and its output (kept in /tmp/run.out)
	echo "# \$ $*"
	"$@" >/tmp/run.out 2>&1
	local rc=$?
	sed 's/^/#   /' /tmp/run.out
	return $rc
}
# nlc_arg NAME DEFAULT: the kernel command line's nlc.NAME
nlc_arg() {
	local a args
	read -r -a args </proc/cmdline
	for a in "${args[@]}"; do
		case $a in "nlc.$1="*) echo "${a#*=}"; return ;; esac
	done
	echo "$2"
}
# the desktop's user, whom polkit lets use udisks2
as_owner() { runuser -u owner -- "$@"; }
# udev settled and udisksd answering the desktop's user
desktop_ready() {
	udevadm settle --timeout=120
	for _ in $(seq 1 30); do timeout 10 runuser -u owner -- udisksctl status >/dev/null 2>&1 && break; sleep 2; done
}
# the options of DEV's mount in /proc/mounts ("" when not mounted)
opts_of() { awk -v d="$1" '$1 == d { print $4 }' /proc/mounts; }
has_opt() { case ",$(opts_of "$1")," in *",$2,"*) return 0 ;; esac; return 1; }
mounted() { [ -n "$(opts_of "$1")" ]; }
# tap_end NAME: the plan and the trailer the host reads
tap_end() {
	echo "1..$n"
	echo "# $1: $((n - fails)) passed, $fails failed"
}
