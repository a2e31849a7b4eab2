# SPDX-License-Identifier: GPL-2.0
#
# tap-summary.awk - count the results of kselftest TAP output
# (tools/testing/selftests/run_kselftest.sh).  Prints one line:
#     PASSED FAILED SKIPPED PLAN SEEN EMPTY
# PLAN is N of the top-level "1..N" (-1 if none), SEEN the number of
# top-level "ok"/"not ok" lines, EMPTY the number of top-level tests whose
# nested results are all skips.
#
# Counting: for every top-level test, the nested results that the runner
# prefixed with "# " ("# ok 3 name", "# not ok 4 name", "# ok 5 name # SKIP")
# are counted when present (kselftest_harness tests, TAP-printing scripts);
# otherwise the top-level result itself counts.  A top-level "not ok" whose
# nested results show no failure adds one failure (crash, timeout, exit
# status).  "# SKIP" (any case) is a skip, never a pass; "# XFAIL" is a pass.
# A top-level test whose nested results are all skips proved nothing (6.1's
# harness then still exits 0, "ok"): it adds one failure and counts in EMPTY,
# e.g. the extended suite on a kernel without the option; so does one that
# skipped as a whole ("1..0 # SKIP reason", "ok N name # SKIP"), e.g. the
# nolongcreate kselftest there.
# Nested results that no top-level line closes (runner died) count, plus one
# failure.  Used both in the guest (busybox/mawk awk) and on the host: plain
# POSIX awk only.

function directive_skip(line,    l) {
	l = tolower(line)
	return (l ~ /#[ \t]*skip([^a-z]|$)/)
}

function flush_top(is_ok, line) {
	if (np + nf + ns > 0) {
		pass += np; fail += nf; skip += ns
		if (!is_ok && nf == 0)
			fail++
		else if (np == 0 && nf == 0) {
			fail++; empty++
		}
	} else if (directive_skip(line)) {
		skip++; fail++; empty++
	} else if (is_ok) {
		pass++
	} else {
		fail++
	}
	np = nf = ns = 0
	seen++
}

BEGIN { pass = fail = skip = seen = empty = 0; plan = -1; np = nf = ns = 0 }

{ sub(/\r$/, "") }

/^1\.\.[0-9]+/ {
	# 6.1's run_kselftest.sh gives each collection (-c) a TAP of its own:
	# the plans add up
	p = $0; sub(/^1\.\./, "", p); sub(/[^0-9].*$/, "", p)
	plan = (plan < 0 ? 0 : plan) + p
	next
}

/^ok [0-9]+/ || /^ok$/ { flush_top(1, $0); next }
/^not ok [0-9]+/ || /^not ok$/ { flush_top(0, $0); next }

/^# ok [0-9]+/ {
	if (directive_skip($0)) ns++; else np++
	next
}
/^# not ok [0-9]+/ {
	if (directive_skip($0)) ns++; else nf++
	next
}

END {
	if (np + nf + ns > 0) {
		pass += np; fail += nf + 1; skip += ns
	}
	printf "%d %d %d %d %d %d\n", pass, fail, skip, plan, seen, empty
}
