# SPDX-License-Identifier: GPL-2.0
#
# kcsan-judge.awk - judge the KCSAN reports of a kernel log (the guest's
# dmesg, or the host's console log: lines "[   12.345678] ..." with
# anything else around them).
#
#   awk -v funcs=FILE [-v known=KNOWN] -f kcsan-judge.awk LOG...
#
# FILE lists fs/fat's functions, one name per line (the runner makes it
# from nm of fs/fat/*.o, leaving out the names the kernel defines
# elsewhere too).  A report is fs/fat's, and fails, when a frame of either
# of its stacks (the "<access> to 0x... of N bytes by task N on cpu N:"
# and "race at unknown origin, with ..." sections) is one of them, or
# names a path under fs/fat/ (a decoded trace).  A report whose stacks
# were not printed (cut off, or a bare "BUG: KCSAN:" line) counts as
# fs/fat's: it cannot be cleared.  Every other report is core code's:
# listed, not judged.  KNOWN (scripts/kcsan-known-core.txt) names races of
# core code KCSAN reports upstream too, by the function that made one of
# the two accesses: such a report is core code's even when fs/fat is
# deeper in a stack (the core dirtying an inode for fs/fat, say), as long
# as neither access was made by a function of fs/fat.
#
# Output, one line per report and a total:
#   kcsan: fs/fat: BUG: KCSAN: data-race in A / B [fs/fat frames: f1 f2]
#   kcsan: core (reported, not judged): BUG: KCSAN: data-race in C / D
#   kcsan: core (reported, not judged): BUG: ... [known core race: E; fs/fat frames below it: f3]
#   kcsan: N report(s): F judged fs/fat's (failing), C core code's (reported, not judged)
# then, for each fs/fat report, its lines ("kcsan: | ...").  Exit status:
# 1 if a report is fs/fat's, else 0.

function reset_report() {
	title = ""; nsect = 0; fatframes = ""; nbody = 0; instack = 0
	tops = ""; topfat = 0
}

function frame_name(frame,   name) {
	name = frame
	sub(/^[ \t]+/, "", name)
	sub(/[ \t].*$/, "", name)
	sub(/\+.*$/, "", name)
	return name
}

function strip(s) {
	sub(/\r$/, "", s)
	# the printk timestamp, and the caller id of CONFIG_PRINTK_CALLER
	if (s ~ /^\[ *[0-9]+\.[0-9]+\]/) {
		sub(/^\[ *[0-9]+\.[0-9]+\] ?/, "", s)
		sub(/^\[ *[CT][0-9]+\] ?/, "", s)
	}
	return s
}

# is_fat(FRAME): FRAME is "name+0xoff/0xsize [module]", "name" or a
# decoded line with a path
function is_fat(frame,   name) {
	if (frame ~ /(^|[ (\/])fs\/fat\//)
		return 1
	name = frame
	sub(/^[ \t]+/, "", name)
	sub(/[ \t].*$/, "", name)
	sub(/\+.*$/, "", name)
	return name in fatname
}

function frame_seen(frame,   name) {
	if (!is_fat(frame))
		return
	name = frame
	sub(/^[ \t]+/, "", name)
	sub(/[ \t].*$/, "", name)
	sub(/\+.*$/, "", name)
	if (index(" " fatframes " ", " " name " ") == 0)
		fatframes = fatframes (fatframes == "" ? "" : " ") name
}

function end_report(   line, i, n, t, k) {
	if (title == "")
		return
	nreports++
	if (nsect == 0 && fatframes == "")
		fatframes = "(no stack printed)"
	k = ""
	if (fatframes != "" && nsect > 0 && !topfat) {
		n = split(tops, t, " ")
		for (i = 1; i <= n; i++)
			if (t[i] in knownname) {
				k = t[i]
				break
			}
	}
	if (fatframes != "" && k == "") {
		nfat++
		line = "kcsan: fs/fat: " title " [fs/fat frames: " fatframes "]"
		for (i = 1; i <= nbody; i++)
			fatbody = fatbody "kcsan: | " bodyl[i] "\n"
	} else {
		ncore++
		line = "kcsan: core (reported, not judged): " title
		if (k != "")
			line = line " [known core race: " k "; fs/fat frames below it: " fatframes "]"
	}
	print line
	reset_report()
}

BEGIN {
	if (funcs != "") {
		while ((getline l < funcs) > 0) {
			sub(/^[ \t]+/, "", l)
			sub(/[ \t].*$/, "", l)
			if (l != "")
				fatname[l] = 1
		}
		close(funcs)
	}
	if (known != "") {
		while ((getline l < known) > 0) {
			sub(/#.*$/, "", l)
			sub(/^[ \t]+/, "", l)
			sub(/[ \t].*$/, "", l)
			if (l != "")
				knownname[l] = 1
		}
		close(known)
	}
	nreports = nfat = ncore = 0
	reset_report()
}

{
	s = strip($0)
	if (s ~ /^BUG: KCSAN: /) {
		end_report()
		title = s
		bodyl[nbody = 1] = s
		next
	}
	if (title == "")
		next
	if (s ~ /^Reported by Kernel Concurrency Sanitizer on:/ || s ~ /^={20,}$/) {
		end_report()
		next
	}
	if (nbody < 200)
		bodyl[++nbody] = s
	if (s ~ / to 0x[0-9a-f]+ of [0-9]+ bytes by .* on cpu [0-9]+:$/) {
		nsect++
		instack = 1
		first = 1
		next
	}
	if (s ~ /^[ \t]*$/) {
		instack = 0
		next
	}
	if (!instack)
		next
	if (s ~ /reordered to: /) {
		sub(/^.*reordered to: /, "", s)
		frame_seen(s)
	} else if (s ~ /^[ \t]+[^ \t|]/) {
		# the first frame of a section: the function that made the access
		if (first) {
			tops = tops " " frame_name(s)
			if (is_fat(s))
				topfat = 1
			first = 0
		}
		frame_seen(s)
	}
}

END {
	end_report()
	printf "kcsan: %d report(s): %d judged fs/fat's (failing), %d core code's (reported, not judged)\n",
		nreports, nfat, ncore
	printf "%s", fatbody
	exit nfat > 0 ? 1 : 0
}
