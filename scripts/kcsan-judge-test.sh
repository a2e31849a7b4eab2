#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kcsan-judge-test.sh - scripts/kcsan-judge.awk, the runner's judge of KCSAN
# reports, on the samples in tools/kcsan-stress/reports/ (kernel/kcsan/report.c's
# format, 6.12's function names); make kcsan-judge-test.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S=$HERE/../tools/kcsan-stress/reports
# shellcheck source=scripts/lib/common.sh
. "$HERE/lib/common.sh"

# expect NAME STATUS TOTAL-LINE [REGEX the output must match]... -- LOG...
expect() {
	local name=$1 want=$2 total=$3 out rc re
	shift 3
	local res=()
	while [[ $1 != -- ]]; do res+=("$1"); shift; done
	shift
	out=$(cat "$@" | awk -v funcs="$S/fat-functions.txt" -v known="$HERE/kcsan-known-core.txt" -f "$HERE/kcsan-judge.awk")
	rc=$?
	local ok=1
	[[ $rc == "$want" ]] || { echo "  exit status $rc, expected $want"; ok=0; }
	grep -qxF "kcsan: $total" <<<"$out" || { echo "  no line 'kcsan: $total'"; ok=0; }
	for re in "${res[@]}"; do
		grep -qE -- "$re" <<<"$out" || { echo "  no line matching /$re/"; ok=0; }
	done
	if [[ $ok == 1 ]]; then
		ok "$name"
	else
		bad "$name"
		printf '%s\n' "$out" | sed 's/^/  | /'
	fi
}

expect "core-only race (writeback): reported, not judged" 0 \
	"1 report(s): 0 judged fs/fat's (failing), 1 core code's (reported, not judged)" \
	'^kcsan: core \(reported, not judged\): BUG: KCSAN: data-race in wb_io_lists_populated / wb_update_bandwidth$' \
	-- "$S/core-only.log"
expect "fs/fat vs core race: fails, naming fat_write_end" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in __mark_inode_dirty / fat_write_end \[fs/fat frames: fat_write_end\]$' \
	'^kcsan: \| read to 0x[0-9a-f]+ of 8 bytes by task 29 on cpu 1:$' \
	-- "$S/fat-vs-core.log"
expect "fs/fat-only race (remount vs create): fails" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in fat_reconfigure / vfat_add_entry \[fs/fat frames: fat_reconfigure vfat_add_entry vfat_create\]$' \
	-- "$S/fat-only.log"
expect "race of unknown origin in fs/fat: fails" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in fat_statfs\+0x5e/0x2a0 \[fs/fat frames: fat_statfs\]$' \
	-- "$S/unknown-origin-fat.log"
expect "a bare BUG: KCSAN: line without stacks: fails" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'\[fs/fat frames: \(no stack printed\)\]$' \
	-- "$S/bare-line.log"
expect "core-only and fs/fat-only in one log: 1 failing, 1 listed" 1 \
	"2 report(s): 1 judged fs/fat's (failing), 1 core code's (reported, not judged)" \
	'^kcsan: core \(reported, not judged\): BUG: KCSAN: data-race in wb_io_lists_populated' \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in fat_reconfigure / vfat_add_entry' \
	-- "$S/core-only.log" "$S/fat-only.log"
expect "a known core race reached through fs/fat (fat_write_end below wb_io_lists_populated): listed, not judged" 0 \
	"1 report(s): 0 judged fs/fat's (failing), 1 core code's (reported, not judged)" \
	'^kcsan: core \(reported, not judged\): BUG: KCSAN: data-race in wb_io_lists_populated / wb_update_bandwidth \[known core race: wb_io_lists_populated; fs/fat frames below it: fat_write_end\]$' \
	-- "$S/known-core-via-fat.log"
expect "a known core race's function against an access by fs/fat (fat_write_inode): fails" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in fat_write_inode / wb_io_lists_populated \[fs/fat frames: fat_write_inode\]$' \
	-- "$S/known-core-vs-fat-access.log"
expect "chmod's setattr_copy (through fat_setattr) vs the VFS's read in ioctl: known core race" 0 \
	"1 report(s): 0 judged fs/fat's (failing), 1 core code's (reported, not judged)" \
	'^kcsan: core \(reported, not judged\): BUG: KCSAN: data-race in __x64_sys_ioctl / setattr_copy \[known core race: setattr_copy; fs/fat frames below it: fat_setattr\]$' \
	-- "$S/known-core-setattr-copy.log"
expect "fs/fat's read of i_mode (fat_make_attrs) vs setattr_copy, the kcsan-mutant: fails" 1 \
	"1 report(s): 1 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	'^kcsan: fs/fat: BUG: KCSAN: data-race in fat_make_attrs / setattr_copy \[fs/fat frames: fat_setattr fat_make_attrs fat_generic_ioctl\]$' \
	-- "$S/fat-read-vs-setattr-copy.log"
expect "no report at all" 0 \
	"0 report(s): 0 judged fs/fat's (failing), 0 core code's (reported, not judged)" \
	-- /dev/null
# without the function list only paths under fs/fat/ count: a decoded trace
out=$(sed 's|fat_write_end+0x8e/0x120|fat_write_end+0x8e/0x120 (fs/fat/inode.c:237)|' "$S/fat-vs-core.log" |
	awk -v funcs=/dev/null -f "$HERE/kcsan-judge.awk")
rc=$?
that "a decoded frame under fs/fat/ counts without the function list" \
	test "$rc" = 1 -a -n "$(grep 'fs/fat frames: fat_write_end' <<<"$out")"

summary kcsan-judge
