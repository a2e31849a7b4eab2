// SPDX-License-Identifier: GPL-2.0
/*
 * suggest_test.c - host unit test of suggest.c: tables of inputs and the
 * expected outputs, written out.  Prints TAP and last the line
 * "N passed, N failed"; exit status 0 only when none failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suggest.h"

static int passed, failed;

static void __attribute__((format(printf, 2, 3)))
result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", passed + failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

/* fat83_suggest with nothing taken: the plain candidate. */
static const struct {
	const char *name, *want;
} plain[] = {
	{ "Benchy Final.gcode", "BENCHYFI.GCO" },
	{ "benchy.gcode", "BENCHY.GCO" },
	{ "BENCHY.GCO", "BENCHY.GCO" },
	{ "readme.txt", "README.TXT" },
	{ "Holiday Photos 2025.txt", "HOLIDAYP.TXT" },
	{ "Long Report 2026.txt", "LONGREPO.TXT" },
	{ "a+b,c;d=e[f]g.txt", "ABCDEFG.TXT" },	/* + , ; = [ ] dropped */
	{ "archive.tar.gz", "ARCHIVET.GZ" },	/* extra dots dropped */
	{ "v1.2.3.bin", "V123.BIN" },
	{ ".profile", "PROFILE" },		/* leading dot: no extension */
	{ "..hidden.cfg", "HIDDEN.CFG" },
	{ "Makefile", "MAKEFILE" },
	{ "averyveryverylongname", "AVERYVER" },
	{ "x.jpeg", "X.JPE" },
	{ "name.", "NAME" },			/* (vfat strips it anyway) */
	/* rule 3a: Latin letters without their marks */
	{ "Café Menu.gcode", "CAFEMENU.GCO" },
	{ "Über.gcode", "UBER.GCO" },
	{ "Ätzung.gcode", "ATZUNG.GCO" },
	{ "A\xcc\x88tzung.gcode", "ATZUNG.GCO" },	/* NFD: combining mark dropped */
	{ "Straße.txt", "STRASSE.TXT" },
	{ "Œuvre Æon.txt", "OEUVREAE.TXT" },
	{ "Łódź.txt", "LODZ.TXT" },
	{ "Ñandú 2×3.txt", "NANDU23.TXT" },	/* no letter: × dropped */
	{ "Þór.txt", "OR.TXT" },		/* thorn: no one spelling, dropped */
	{ "Ðes.gcode", "DES.GCO" },
	{ "ÿ.txt", "Y.TXT" },
	{ "ž.ÿé", "Z.YE" },
	{ "\xe4" "bc.txt", "BC.TXT" },		/* Latin-1 byte, no UTF-8: dropped */
	{ "Привет.txt", "_.TXT" },		/* not Latin: dropped whole */
	{ "日本語.txt", "_.TXT" },		/* nothing left of the base */
	{ "+++", "_" },
	{ "pic.日本", "PIC" },			/* nothing left of the extension */
	{ "backup~1.txt", "BACKUP1.TXT" },	/* no '~' ever */
	{ "STACKCHAN.RON", "STACKCHA.RON" },
	{ "quick-start.gcode", "QUICK-ST.GCO" },
	{ "it's (1) {x}.gcode", "IT'S(1){.GCO" },	/* kept punctuation */
	{ "!#$%&'()-@_`{}", "!#$%&'()" },	/* all of it kept */
	{ "x-@_`{}.g", "X-@_`{}.G" },
	{ "a^b.txt", "AB.TXT" },		/* '^': older SdFat refuses it */
	{ "a\"b*c/d:e<f>g?h|i\\j.txt", "ABCDEFGH.TXT" },	/* no FAT name holds them */
	{ "a\tb.txt", "AB.TXT" },		/* control characters dropped */
	{ "con.txt", "CON1.TXT" },		/* DOS device names are taken */
	{ "aux", "AUX1" },
	{ "Com1.gcode", "COM11.GCO" },
	{ "com0.gcode", "COM01.GCO" },		/* COM0 and LPT0 too */
	{ "lpt0", "LPT01" },
	{ "lpt9", "LPT91" },
	{ "Clock$.txt", "CLOCK$1.TXT" },
	{ "nul.", "NUL1" },
	{ "prn.gcode", "PRN1.GCO" },
	{ "com10.txt", "COM10.TXT" },		/* no device: 5 characters */
	{ "clock.txt", "CLOCK.TXT" },
	{ "console.log", "CONSOLE.LOG" },
	{ "-x", "X" },				/* no leading '-' (rule 3b) */
	{ "-dash start.gcode", "DASHSTAR.GCO" },
	{ "- -x.-y", "X.-Y" },
	{ "---", "_" },
	{ "a-b.gcode", "A-B.GCO" },
	{ "F83P 0000.tmp", "F8310000.TMP" },	/* fat83's own names are taken */
	{ "fat83u07.tmp", "FAT83100.TMP" },
	{ "fat83 und.log", "FAT83UN1.LOG" },
	{ "F83PX000.TMP", "F83PX000.TMP" },
};

/* The counter: candidate k of a name. */
static const struct {
	const char *name;
	unsigned long k;
	const char *want;
} variant[] = {
	{ "Benchy Final.gcode", 0, "BENCHYFI.GCO" },
	{ "Benchy Final.gcode", 1, "BENCHYF1.GCO" },
	{ "Benchy Final.gcode", 9, "BENCHYF9.GCO" },
	{ "Benchy Final.gcode", 10, "BENCHY10.GCO" },
	{ "Benchy Final.gcode", 123, "BENCH123.GCO" },
	{ "ab.txt", 1, "AB1.TXT" },		/* short base: appended */
	{ "ab.txt", 12, "AB12.TXT" },
	{ "abcdefg.txt", 12, "ABCDEF12.TXT" },
	{ "x", 9999999, "X9999999" },
	{ "longlonglong", 9999999, "L9999999" },
};

/* fat83_suggest with names taken (a space-separated list). */
static const struct {
	const char *name, *taken, *want;
} collide[] = {
	{ "Benchy Final.gcode", "BENCHYFI.GCO", "BENCHYF1.GCO" },
	{ "Benchy Final.gcode", "benchyfi.gco", "BENCHYF1.GCO" },	/* any case */
	{ "Benchy Final.gcode", "BENCHYFI.GCO BENCHYF1.GCO BENCHYF2.GCO",
	  "BENCHYF3.GCO" },
	{ "Benchy Final.gcode",
	  "BENCHYFI.GCO BENCHYF1.GCO BENCHYF2.GCO BENCHYF3.GCO BENCHYF4.GCO "
	  "BENCHYF5.GCO BENCHYF6.GCO BENCHYF7.GCO BENCHYF8.GCO BENCHYF9.GCO",
	  "BENCHY10.GCO" },
	{ "Benchy Final.gcode", "BENCHY~1.GCO BENCHYFI", "BENCHYFI.GCO" },
	{ "a b.txt", "AB.TXT", "AB1.TXT" },
	{ "con.txt", "CON1.TXT", "CON2.TXT" },
};

/* fat83_is_83 */
static const struct {
	const char *name;
	int want;
} is83[] = {
	{ "BENCHY.GCO", 1 }, { "benchy.gco", 1 }, { "A", 1 },
	{ "ABCDEFGH.ABC", 1 }, { "ABCDEFGHI.ABC", 0 }, { "ABC.ABCD", 0 },
	{ ".ABC", 0 }, { "ABC.", 0 }, { "A.B.C", 0 }, { "", 0 },
	{ "A B.TXT", 0 }, { "A+B.TXT", 0 }, { "BENCHY~1.GCO", 0 },
	{ "IT'S(1){.GCO", 1 }, { "CAFÉ.TXT", 0 }, { "A/B", 0 },
	{ "A^B.TXT", 0 }, { "A-B_C.TXT", 1 }, { "CLOCK$.TXT", 1 }, { "-X.TXT", 0 },
};

/* fat83_is_device */
static const struct {
	const char *name;
	int want;
} device[] = {
	{ "CON", 1 }, { "con.txt", 1 }, { "PRN", 1 }, { "AUX.GCO", 1 },
	{ "NUL", 1 }, { "CLOCK$", 1 }, { "clock$.x", 1 }, { "COM0", 1 },
	{ "COM9.TXT", 1 }, { "LPT0", 1 }, { "lpt9", 1 }, { "COM", 0 },
	{ "COM10", 0 }, { "CONX", 0 }, { "CLOCK", 0 }, { "XCON", 0 },
	{ "COMA", 0 }, { "LPT", 0 },
};

/* a mount point as mountinfo prints it, the path, the path as a shell word */
static const struct {
	const char *mountinfo, *path, *word;
} mnt[] = {
	{ "/media/owner/PRINTER", "/media/owner/PRINTER", "/media/owner/PRINTER" },
	{ "/media/owner/MY\\040CARD", "/media/owner/MY CARD", "'/media/owner/MY CARD'" },
	{ "/mnt/a\\011b\\012c", "/mnt/a\tb\nc", "'/mnt/a\tb\nc'" },
	{ "/mnt/back\\134slash", "/mnt/back\\slash", "'/mnt/back\\slash'" },
	{ "/mnt/it's", "/mnt/it's", "'/mnt/it'\\''s'" },
	{ "/mnt/x\\9y\\04", "/mnt/x\\9y\\04", "'/mnt/x\\9y\\04'" },
};

static const char *taken_list;

static bool taken_in_list(const char *cand, void *arg)
{
	char buf[512], *tok, *save;

	(void)arg;
	snprintf(buf, sizeof(buf), "%s", taken_list);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (fat83_eq_nocase(tok, cand))
			return true;
	return false;
}

int main(void)
{
	char out[FAT83_NAME_SIZE];
	unsigned int i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		fat83_suggest(plain[i].name, NULL, NULL, out);
		result(!strcmp(out, plain[i].want), "suggest '%s' -> %s (got %s)",
		       plain[i].name, plain[i].want, out);
		result(fat83_is_83(out), "'%s' -> %s is an 8.3 name",
		       plain[i].name, out);
	}
	for (i = 0; i < sizeof(variant) / sizeof(variant[0]); i++) {
		fat83_candidate(variant[i].name, variant[i].k, out);
		result(!strcmp(out, variant[i].want), "candidate '%s' #%lu -> %s (got %s)",
		       variant[i].name, variant[i].k, variant[i].want, out);
	}
	result(fat83_candidate("x", FAT83_MAX_VARIANT + 1, out) == -1,
	       "no candidate beyond the counter's 7 digits");
	for (i = 0; i < sizeof(collide) / sizeof(collide[0]); i++) {
		taken_list = collide[i].taken;
		fat83_suggest(collide[i].name, taken_in_list, NULL, out);
		result(!strcmp(out, collide[i].want),
		       "suggest '%s' with [%s] taken -> %s (got %s)", collide[i].name,
		       collide[i].taken, collide[i].want, out);
	}
	for (i = 0; i < sizeof(is83) / sizeof(is83[0]); i++)
		result(fat83_is_83(is83[i].name) == is83[i].want,
		       "is_83 '%s': %s", is83[i].name, is83[i].want ? "yes" : "no");
	for (i = 0; i < sizeof(device) / sizeof(device[0]); i++)
		result(fat83_is_device(device[i].name) == device[i].want,
		       "is_device '%s': %s", device[i].name, device[i].want ? "yes" : "no");
	result(fat83_eq_nocase("Benchy.gco", "BENCHY.GCO") &&
	       !fat83_eq_nocase("BENCHY.GCO", "BENCHY.GC"),
	       "eq_nocase");
	for (i = 0; i < sizeof(mnt) / sizeof(mnt[0]); i++) {
		char path[64], word[64];

		snprintf(path, sizeof(path), "%s", mnt[i].mountinfo);
		fat83_mountinfo_unescape(path);
		fat83_shell_word(path, word, sizeof(word));
		result(!strcmp(path, mnt[i].path) && !strcmp(word, mnt[i].word),
		       "mountinfo '%s' -> '%s' (got '%s'), as a shell word %s (got %s)",
		       mnt[i].mountinfo, mnt[i].path, path, mnt[i].word, word);
	}
	printf("1..%d\n", passed + failed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
