#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/shellcheck.sh [--list] - shellcheck -x on the project's own shell
# scripts: qemu-run.sh, .ci/run, scripts/, bench/, fuzz/, tools/ and the ones the
# .deb ships from dkms/ and debian/ (nlc-prepare, the kernel hooks, the
# maintainer scripts).  The one list of them, for make shellcheck, make check-series
# and scripts/check.sh (which reads it with --list and counts each script
# as a case).  Prints shellcheck's findings and last a summary line; exit
# status 0 only if no script has any.  --list prints the scripts, one a
# line, relative to the repository.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1

scripts=(qemu-run.sh .ci/run)
for f in scripts/*.sh scripts/lib/*.sh bench/*.sh fuzz/*.sh tools/*/*.sh; do [[ -e $f ]] && scripts+=("$f"); done
scripts+=(dkms/nlc-prepare dkms/kernel-hook dkms/etc-kernel-hook dkms/modprobe-fat dkms/initramfs-hook dkms/dracut-module
	dkms/series-diffs debian/postinst.in debian/prerm.in debian/postrm
	debian/vfat-nolongcreate-tools.postinst debian/vfat-nolongcreate-tools.postrm
	tools/card/nolongcreate-card)
scripts+=(tools/desktop/put-on-card)

if [[ ${1:-} == --list ]]; then
	printf '%s\n' "${scripts[@]}"
	exit 0
fi

bad=0
for f in "${scripts[@]}"; do
	shellcheck -x "$f" || bad=$((bad + 1))
done
echo "shellcheck: ${#scripts[@]} script(s), $bad with problems"
[[ $bad -eq 0 ]]
