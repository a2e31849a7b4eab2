#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-static.sh OUTDIR: build the in-guest programs nlc-fuzz (fuzz/driver.c
# + fuzz/model.c), nlc-lookdiff (fuzz/lookdiff.c), nlc-corrupt
# (fuzz/corrupt.c) and nlc-bench
# (bench/bench.c) as static binaries with the host gcc, for qemu-run.sh --run.  Uses the FAT image reader of the
# selftests (selftests/filesystems/fat_extended/fat_raw.h).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:?usage: build-static.sh OUTDIR}
mkdir -p "$OUT"
if ! command -v gcc >/dev/null 2>&1 || [[ ! -f /usr/lib/x86_64-linux-gnu/libc.a ]]; then
	if [[ $(id -u) == 0 ]]; then
		DEBIAN_FRONTEND=noninteractive apt-get update </dev/null >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev </dev/null >/dev/null
	else
		echo "build-static.sh: needs gcc and libc6-dev (static libc)" >&2
		exit 2
	fi
fi
CFLAGS=(-O2 -static -Wall -Wextra -Wno-unused-function
	-I"$REPO/selftests/filesystems/fat_extended" -I"$REPO/fuzz")
gcc "${CFLAGS[@]}" -o "$OUT/nlc-fuzz" "$REPO/fuzz/driver.c" "$REPO/fuzz/model.c"
gcc "${CFLAGS[@]}" -o "$OUT/nlc-bench" "$REPO/bench/bench.c"
gcc "${CFLAGS[@]}" -o "$OUT/nlc-lookdiff" "$REPO/fuzz/lookdiff.c"
gcc "${CFLAGS[@]}" -o "$OUT/nlc-corrupt" "$REPO/fuzz/corrupt.c"
