#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh [--base-cache DIR] STAGING-DIR OUTPUT.cpio KSELFTEST-INSTALL-DIR RUNNER-CONF-DIR
#
# Builds the test initramfs: two uncompressed newc archives in one file,
# which the kernel unpacks in turn (Documentation/driver-api/early-userspace/
# buffer-format.rst):
#   1. the base, from this host (initramfs-base.sh): shell, tools, libraries;
#   2. the run part: scripts/guest-init.sh as /init, the runner's
#      configuration and tap-summary.awk in /etc/runner, the installed
#      kselftests as /kselftest.
# The base takes ~10 s to make.  With --base-cache DIR it is kept in
# DIR/base.cpio (its tree in DIR/tree) and made again only when
# `initramfs-base.sh --key` changes.

set -euo pipefail

BASE_CACHE=
if [[ ${1:-} == --base-cache ]]; then
	BASE_CACHE=${2:?--base-cache needs a directory}
	shift 2
fi
[[ $# -eq 4 ]] || { echo "usage: $0 [--base-cache DIR] STAGING OUTPUT.cpio KSFT-DIR CONF-DIR" >&2; exit 2; }
STAGING=$1 OUT=$2 KSFT=$3 CONF=$4
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# cpio_of DIR OUT: DIR as a newc archive, in a stable order, owned by root.
cpio_of() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner 0:0 --quiet) >"$2"
}

rm -rf "$STAGING"
mkdir -p "$STAGING"
if [[ -n $BASE_CACHE ]]; then
	mkdir -p "$BASE_CACHE"
	key=$("$HERE/initramfs-base.sh" --key)
	if [[ ! -f $BASE_CACHE/base.cpio || $(cat "$BASE_CACHE/base.key" 2>/dev/null) != "$key" ]]; then
		rm -f "$BASE_CACHE/base.key"
		"$HERE/initramfs-base.sh" "$BASE_CACHE/tree"
		cpio_of "$BASE_CACHE/tree" "$BASE_CACHE/base.cpio"
		printf '%s\n' "$key" >"$BASE_CACHE/base.key"
	fi
	base=$BASE_CACHE/base.cpio
else
	"$HERE/initramfs-base.sh" "$STAGING/base"
	cpio_of "$STAGING/base" "$STAGING/base.cpio"
	base=$STAGING/base.cpio
fi

run=$STAGING/run
mkdir -p "$run/etc/runner" "$run/kselftest"
cp "$HERE/tap-summary.awk" "$run/etc/runner/"
cp -a "$CONF"/. "$run/etc/runner/"
cp -a "$KSFT"/. "$run/kselftest/"
install -m 755 "$HERE/guest-init.sh" "$run/init"
cpio_of "$run" "$STAGING/run.cpio"
cat "$base" "$STAGING/run.cpio" >"$OUT"
