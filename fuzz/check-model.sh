#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-model.sh [KERNEL-TREE]: host-side check of fuzz/model.c: the
# contract's examples per mount configuration, and the model's CP437 chart,
# case pairs and iso8859-1 lower-casing against the kernel's
# fs/nls/nls_cp437.c and nls_iso8859-1.c tables (a check of the tables
# only), and that nls_utf8.c's case tables are the identity.
# KERNEL-TREE defaults to the runner's patched 6.1 tree in the cache.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${VFAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate}
TREE=${1:-$CACHE/src/6.1/linux}
OUT=$CACHE/fuzz
mkdir -p "$OUT"
NLS=$TREE/fs/nls
defs=()
# the table definitions only (charset2uni .. charset2upper), their names
# prefixed so that both files fit in one program
tables() {
	sed -n '/^static const wchar_t charset2uni/,/^static int uni2char/p' "$1" |
		sed '$d' |
		sed -E "s/\<(charset2uni|charset2lower|charset2upper|page_uni2charset|page[0-9a-f]{2})\>/$2_\1/g"
}
if [[ -f $NLS/nls_cp437.c ]]; then
	tables "$NLS/nls_cp437.c" cp437 >"$OUT/nls_cp437_tables.h"
	defs=(-DKERNEL_TABLES="\"$OUT/nls_cp437_tables.h\"")
	if [[ -f $NLS/nls_iso8859-1.c ]]; then
		tables "$NLS/nls_iso8859-1.c" iso >"$OUT/nls_iso8859-1_tables.h"
		defs+=(-DISO_TABLES="\"$OUT/nls_iso8859-1_tables.h\"")
	fi
	# the model compares names byte for byte on iocharset=utf8
	if ! grep -Eq '\.charset2lower[[:space:]]*=[[:space:]]*identity' "$NLS/nls_utf8.c" ||
	   ! grep -Eq 'identity\[i\][[:space:]]*=[[:space:]]*i;' "$NLS/nls_utf8.c"; then
		echo "check-model: nls_utf8.c's charset2lower is not the identity table any more" >&2
		exit 1
	fi
else
	echo "check-model: no $NLS/nls_cp437.c, checking the contract examples only" >&2
fi
gcc -O2 -Wall -Wextra -o "$OUT/model_test" "${defs[@]}" \
	"$HERE/model_test.c" "$HERE/model.c"
"$OUT/model_test"
