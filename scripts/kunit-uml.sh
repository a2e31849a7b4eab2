#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-uml.sh [--kernel LINE] - fat's KUnit suite with the series
# (fs/fat/fat_test.c) as the submission says to run it: natively under
# UML, tools/testing/kunit/kunit.py run --kunitconfig fs/fat, in the
# line's patched tree (default 7.3, mainline), which
# ./qemu-run.sh --kernel LINE --check-series makes in the cache.  Every
# qemu-run.sh kernel also runs the suite at boot (base.config), so
# make check leaves this out of its time budget: make kunit.
# Exit status: kunit.py's.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/vfat-nolongcreate
LINE=7.3
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) LINE=${2:?--kernel needs a line}; shift 2 ;;
	-h | --help) sed -n '4,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "kunit-uml.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
"$REPO/qemu-run.sh" --kernel "$LINE" --check-series >/dev/null
mkdir -p "$CACHE/kunit"
cd "$CACHE/src/$LINE/linux"
exec python3 tools/testing/kunit/kunit.py run --kunitconfig fs/fat \
	--build_dir "$CACHE/kunit/$LINE" --jobs "$(nproc)" --make_options CC="ccache gcc"
