#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh BASE-DIR STAGING-DIR OUTPUT.cpio KSELFTEST-INSTALL-DIR RUNNER-CONF-DIR [EXTRA-DIR]
# The test initramfs: two newc archives in one file, the base (this host's
# tools, initramfs-base.sh; kept in BASE-DIR while its --key holds) and the
# run part (guest-init.sh as /init, the runner's files in /etc/runner, the
# kselftests as /kselftest, EXTRA-DIR's tree, e.g. --distro-kernel's modules).

set -euo pipefail

[[ $# -eq 5 || $# -eq 6 ]] ||
	{ echo "usage: $0 BASE-DIR STAGING OUTPUT.cpio KSFT-DIR CONF-DIR [EXTRA-DIR]" >&2; exit 2; }
BASE=$1 STAGING=$2 OUT=$3 KSFT=$4 CONF=$5 EXTRA=${6:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# cpio_sorted DIR OUT: DIR as a newc archive, in a stable order, owned by root.
cpio_sorted() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner 0:0 --quiet) >"$2"
}

rm -rf "$STAGING"
mkdir -p "$STAGING"
mkdir -p "$BASE"
key=$("$HERE/initramfs-base.sh" --key)
if [[ ! -f $BASE/base.cpio || $(cat "$BASE/base.key" 2>/dev/null) != "$key" ]]; then
	rm -f "$BASE/base.key"
	"$HERE/initramfs-base.sh" "$BASE/tree"
	cpio_sorted "$BASE/tree" "$BASE/base.cpio"
	printf '%s\n' "$key" >"$BASE/base.key"
fi

run=$STAGING/run
mkdir -p "$run/etc/runner" "$run/kselftest"
cp "$HERE/tap-summary.awk" "$HERE/kcsan-judge.awk" "$HERE/kcsan-known-core.txt" "$run/etc/runner/"
cp -a "$CONF"/. "$run/etc/runner/"
cp -a "$KSFT"/. "$run/kselftest/"
install -m 755 "$HERE/guest-init.sh" "$run/init"
if [[ -n $EXTRA ]]; then
	[[ ! -e $EXTRA/lib ]] || { echo "$0: $EXTRA/lib would replace the base's lib -> usr/lib" >&2; exit 1; }
	cp -a "$EXTRA"/. "$run/"
fi
cpio_sorted "$run" "$STAGING/run.cpio"
cat "$BASE/base.cpio" "$STAGING/run.cpio" >"$OUT"
