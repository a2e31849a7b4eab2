#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-model.sh [KERNEL-TREE]: host-side check of fuzz/model.c: the
# contract's examples, and the model's CP437 alphabet against the kernel's
# fs/nls/nls_cp437.c tables (a check of the hard-coded table only).
# KERNEL-TREE defaults to the runner's patched tree in the cache.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${VFAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate}
TREE=${1:-$CACHE/src/linux}
OUT=$CACHE/fuzz
mkdir -p "$OUT"
NLS=$TREE/fs/nls/nls_cp437.c
defs=()
if [[ -f $NLS ]]; then
	# the table definitions only (charset2uni .. charset2upper)
	sed -n '/^static const wchar_t charset2uni/,/^static int uni2char/p' "$NLS" |
		sed '$d' >"$OUT/nls_cp437_tables.h"
	defs=(-DKERNEL_TABLES="\"$OUT/nls_cp437_tables.h\"")
else
	echo "check-model: no $NLS, checking the contract examples only" >&2
fi
gcc -O2 -Wall -Wextra -o "$OUT/model_test" "${defs[@]}" \
	"$HERE/model_test.c" "$HERE/model.c"
"$OUT/model_test"
