// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side checks of the model (no kernel involved):
 *  - the examples of the contract, per mount configuration;
 *  - nonumtail=1 predicts the same as nonumtail=0 and check=relaxed the
 *    same as check=normal, for every example;
 *  - with -DKERNEL_TABLES="path" (and ISO_TABLES): the model's CP437 chart
 *    and case pairs and its iso8859-1 lower-casing against the kernel's
 *    fs/nls/nls_cp437.c and nls_iso8859-1.c tables, extracted (with their
 *    names prefixed cp437_ / iso_) by fuzz/check-model.sh.  That checks
 *    the tables, not the algorithm.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static int failures, checks;

static void show_mount(const struct nlc_mount *m)
{
	char o[256];

	nlc_mount_opts(m, o, sizeof(o));
	printf("[%s]", o);
}

static int same_result(const struct nlc_result *a, const struct nlc_result *b)
{
	return a->err == b->err && a->replaced == b->replaced &&
	       (a->err || a->replaced >= 0 ||
		(!memcmp(a->ent.name, b->ent.name, 11) && a->ent.lcase == b->ent.lcase));
}

/* A mount that must predict exactly as @m does (nonumtail, relaxed). */
static void same_as(const struct nlc_mount *m, const char *name,
		    const struct nlc_entry *ents, size_t n,
		    const struct nlc_result *want)
{
	struct nlc_mount v[2];
	struct nlc_result r;
	int i;

	v[0] = *m;
	v[0].nonumtail = !m->nonumtail;
	v[1] = *m;
	v[1].check = m->check == NLC_CHECK_NORMAL ? NLC_CHECK_RELAXED :
		     m->check == NLC_CHECK_RELAXED ? NLC_CHECK_NORMAL : NLC_CHECK_STRICT;
	for (i = 0; i < 2; i++) {
		checks++;
		nlc_predict(&v[i], NLC_CREAT, (const unsigned char *)name,
			    strlen(name), ents, n, &r);
		if (!same_result(&r, want)) {
			failures++;
			printf("FAIL %s: ", name);
			show_mount(&v[i]);
			printf(" predicts %s, not as ", nlc_errname(r.err));
			show_mount(m);
			printf("\n");
		}
	}
}

/* Create @name in a directory holding @ents; expect @err or the entry. */
static void exn(const struct nlc_mount *m, const struct nlc_entry *ents,
		size_t n, const char *name, int err, const char *name11,
		int lcase)
{
	struct nlc_result r;

	checks++;
	nlc_predict(m, NLC_CREAT, (const unsigned char *)name, strlen(name),
		    ents, n, &r);
	if (r.err != err || (!err && (memcmp(r.ent.name, name11, 11) ||
				      r.ent.lcase != lcase))) {
		failures++;
		printf("FAIL %-14s ", name);
		show_mount(m);
		printf(": model %s '%.11s' 0x%02x, expected %s '%.11s' 0x%02x\n",
		       nlc_errname(r.err), err ? "" : (const char *)r.ent.name,
		       r.ent.lcase, nlc_errname(err), err ? "" : name11, lcase);
	}
	same_as(m, name, ents, n, &r);
}

static void ex(const struct nlc_mount *m, const char *name, int err,
	       const char *name11, int lcase)
{
	exn(m, NULL, 0, name, err, name11, lcase);
}

/* The name as the mount displays the entry @name creates (must exist). */
static void disp(const struct nlc_mount *m, const char *name, const char *want)
{
	struct nlc_result r;
	unsigned char out[64];
	size_t n;

	checks++;
	nlc_predict(m, NLC_CREAT, (const unsigned char *)name, strlen(name),
		    NULL, 0, &r);
	n = r.err ? 0 : nlc_display(m, &r.ent, out);
	if (r.err || n != strlen(want) || memcmp(out, want, n)) {
		failures++;
		printf("FAIL display of %s ", name);
		show_mount(m);
		printf(": %s '%.*s', expected '%s'\n", nlc_errname(r.err),
		       (int)n, (const char *)out, want);
	}
}

/* create @first, then @second in the same directory */
static void ex2(const struct nlc_mount *m, const char *first,
		const char *second, int err)
{
	struct nlc_result r;

	nlc_predict(m, NLC_CREAT, (const unsigned char *)first, strlen(first),
		    NULL, 0, &r);
	checks++;
	if (r.err) {
		failures++;
		printf("FAIL %s: %s, expected OK\n", first, nlc_errname(r.err));
		return;
	}
	exn(m, &r.ent, 1, second, err, (const char *)r.ent.name, r.ent.lcase);
}

#ifdef KERNEL_TABLES
typedef unsigned short wchar_t_k;
#define wchar_t wchar_t_k
#include KERNEL_TABLES
#ifdef ISO_TABLES
#include ISO_TABLES
#endif
#undef wchar_t

static unsigned char page_lookup(const unsigned char *const *pages, unsigned int u)
{
	const unsigned char *p = pages[u >> 8];

	return p ? p[u & 0xFF] : 0;
}

static void table_check(int ok, const char *what, unsigned int at,
			unsigned int kernel, unsigned int model)
{
	if (ok)
		return;
	failures++;
	printf("TABLE %s at 0x%04x: kernel 0x%04x, model 0x%04x\n", what, at,
	       kernel, model);
}

static void check_tables(void)
{
	unsigned int b, u;
	int before = failures;

	/* CP437 byte -> Unicode, all bytes from 0x20 */
	checks++;
	for (b = 0x20; b < 0x100; b++)
		table_check(cp437_charset2uni[b] == nlc_cp437_to_uni(b),
			    "cp437 charset2uni", b, cp437_charset2uni[b],
			    nlc_cp437_to_uni(b));
	/* Unicode -> CP437, the whole BMP (0: not in the code page) */
	checks++;
	for (u = 1; u < 0x10000; u++) {
		unsigned char k = page_lookup(cp437_page_uni2charset, u);

		table_check(k == nlc_cp437_from_uni(u), "cp437 uni2charset", u,
			    k, nlc_cp437_from_uni(u));
	}
	/* case: a 0 in the kernel's tables means "unchanged" */
	checks += 2;
	for (b = 0; b < 0x100; b++) {
		unsigned char ku = cp437_charset2upper[b] ? cp437_charset2upper[b] : b;
		unsigned char kl = cp437_charset2lower[b] ? cp437_charset2lower[b] : b;

		table_check(ku == nlc_cp437_upper(b), "cp437 charset2upper", b,
			    ku, nlc_cp437_upper(b));
		table_check(kl == nlc_cp437_lower(b), "cp437 charset2lower", b,
			    kl, nlc_cp437_lower(b));
	}
#ifdef ISO_TABLES
	/* iso8859-1: bytes are the code points; the lower-case table */
	checks += 3;
	for (b = 1; b < 0x100; b++) {
		unsigned char kl = iso_charset2lower[b] ? iso_charset2lower[b] : b;

		table_check(iso_charset2uni[b] == b, "iso8859-1 charset2uni", b,
			    iso_charset2uni[b], b);
		table_check(kl == nlc_iso8859_1_lower(b), "iso8859-1 charset2lower",
			    b, kl, nlc_iso8859_1_lower(b));
	}
	for (u = 1; u < 0x10000; u++) {
		unsigned char k = page_lookup(iso_page_uni2charset, u);

		table_check(k == (u < 0x100 ? u : 0), "iso8859-1 uni2charset", u,
			    k, u < 0x100 ? u : 0);
	}
	printf("iso8859-1 tables: checked against the kernel\n");
#endif
	printf("cp437 tables: all 256 bytes and the BMP checked against the kernel (%d mismatches)\n",
	       failures - before);
}
#endif

#define MNT(io, u8, sn, ck, xl) \
	((struct nlc_mount){ NLC_IO_##io, u8, NLC_SN_##sn, NLC_CHECK_##ck, xl, 0 })

int main(void)
{
	/* iocharset=iso8859-1 (the kernel's default here), shortname=mixed */
	struct nlc_mount def = MNT(ISO8859_1, 0, MIXED, NORMAL, 0);
	struct nlc_mount u8 = MNT(ISO8859_1, 1, MIXED, NORMAL, 0);
	struct nlc_mount m;

	/* docs/contract.md and the series' KUnit cases (v7) */
	ex(&def, "readme.txt", 0, "README  TXT", 0x18);
	ex(&def, "README.TXT", 0, "README  TXT", 0x00);
	ex(&def, "read4.TXT", 0, "READ4   TXT", 0x08);
	ex(&def, "README.txt", 0, "README  TXT", 0x10);
	ex(&def, "12345678.123", 0, "12345678123", 0x00);
	ex(&def, "makefile", 0, "MAKEFILE   ", 0x08);
	ex(&def, "123.txt", 0, "123     TXT", 0x10);	/* digits: no flag */
	/* never folded: a part in mixed case is refused */
	ex(&def, "ReadMe.txt", EINVAL, "", 0);
	ex(&def, "Makefile", EINVAL, "", 0);
	ex(&def, "File.TxT", EINVAL, "", 0);
	/* ENAMETOOLONG only for the length */
	ex(&def, "abcdefghi.txt", ENAMETOOLONG, "", 0);
	ex(&def, "abcdefghi", ENAMETOOLONG, "", 0);
	ex(&def, "a.text", ENAMETOOLONG, "", 0);
	ex(&def, "Long Report.txt", ENAMETOOLONG, "", 0);
	ex(&def, ".bash_history", ENAMETOOLONG, "", 0);
	ex(&def, "abcdefghi.", ENAMETOOLONG, "", 0);	/* 9 without the dot */
	ex(&def, "abcdefghi.tx.", ENAMETOOLONG, "", 0);
	ex(&def, "a.b.c.d.e.f", ENAMETOOLONG, "", 0);
	/* every other refusal EINVAL */
	ex(&def, "a b.txt", EINVAL, "", 0);
	ex(&def, "a+b.txt", EINVAL, "", 0);
	ex(&def, ".profile", EINVAL, "", 0);
	ex(&def, "a.b.c", EINVAL, "", 0);
	ex(&def, "abc.", EINVAL, "", 0);		/* trailing dot */
	ex(&def, "abcdefgh.", EINVAL, "", 0);	/* fits 8.3 without the dot */
	ex(&def, "ABCDEFGH.TX.", EINVAL, "", 0);
	ex(&def, "abc...", EINVAL, "", 0);
	ex(&def, "...", ENOENT, "", 0);
	ex(&def, "a*b", EINVAL, "", 0);
	ex(&def, "abc ", EINVAL, "", 0);
	ex(&def, "abc .", EINVAL, "", 0);
	/* iso8859-1 bytes: a byte >= 0x7F keeps no lcase flag */
	ex(&def, "\xe9.txt", EINVAL, "", 0);		/* shown "É.txt" */
	ex(&def, "\xe9", EINVAL, "", 0);
	ex(&def, "\xc9.TXT", 0, "\x90       TXT", 0x00);
	ex(&def, "\xc9T\xc9.TXT", 0, "\x90T\x90     TXT", 0x00);
	ex(&def, "\xe9t\xe9.txt", EINVAL, "", 0);
	ex(&def, "\xc9.txt", 0, "\x90       TXT", 0x10);
	ex(&def, "\xdf.txt", 0, "\xe1       TXT", 0x10);	/* ß: no upper */
	ex(&def, "\xa4.txt", EINVAL, "", 0);	/* currency sign: not cp437 */
	ex(&def, "\xa4\xa4\xa4\xa4\xa4\xa4\xa4\xa4\xa4", ENAMETOOLONG, "", 0);
	ex(&def, "\xe0", 0, "\x85          ", 0x00);	/* à: no upper */
	ex(&def, "A\xa0" "B", 0, "A\xff" "B        ", 0x00);	/* NBSP */
	ex(&def, "a\xa0" "b", EINVAL, "", 0);	/* shown "A B" */
	ex(&def, "\xb5", 0, "\xe6          ", 0x00);	/* µ */
	ex(&def, "\xe9" "A.txt", EINVAL, "", 0);
	/* utf8 */
	ex(&u8, "\xc3\xa9.txt", EINVAL, "", 0);
	ex(&u8, "\xc3\x89.TXT", 0, "\x90       TXT", 0x00);
	ex(&u8, "\xc3\x89.txt", 0, "\x90       TXT", 0x10);
	ex(&u8, "\xc3\x9f.txt", 0, "\xe1       TXT", 0x10);
	ex(&u8, "\xe4\xb8\xad.txt", EINVAL, "", 0);	/* CJK: not cp437 */
	ex(&u8, "\xe2\x82\xac.TXT", EINVAL, "", 0);	/* € */
	ex(&u8, "\xcf\x83.txt", EINVAL, "", 0);	/* σ, shown Σ */
	ex(&u8, "\xce\xa3.txt", 0, "\xe4       TXT", 0x10);
	ex(&u8, "\xc3\x28.txt", EINVAL, "", 0);	/* bad UTF-8 */
	ex(&u8, "\xc0\xae.txt", EINVAL, "", 0);	/* overlong */
	ex(&u8, "\xed\xa0\x80", EINVAL, "", 0);	/* surrogate */
	ex(&u8, "\xf0\x9f\x98\x80", EINVAL, "", 0);	/* emoji: 2 units */
	ex(&u8, "x.\xf0\x9f\x98\x80\xf0\x9f\x98\x80", ENAMETOOLONG, "", 0);
	ex(&u8, "ReadMe.txt", EINVAL, "", 0);

	/*
	 * The names the v5 rule accepted by case folding: refused on every
	 * mount now, and the ones around them
	 */
	m = MNT(UTF8, 0, MIXED, NORMAL, 0);
	ex(&m, "ReadMe.txt", EINVAL, "", 0);
	ex(&m, "readme.txt", 0, "README  TXT", 0x18);
	ex(&m, "README.TXT", 0, "README  TXT", 0x00);
	ex(&m, "File.txt", EINVAL, "", 0);
	ex(&m, "\xc3\xa9.txt", EINVAL, "", 0);
	ex(&m, "\xc3\x89T\xc3\x89.TXT", 0, "\x90T\x90     TXT", 0x00);
	ex(&m, "\xf0\x9f\x98\x80", EINVAL, "", 0);	/* utf8 table: BMP only */
	m = MNT(UTF8, 0, WIN95, NORMAL, 0);
	ex(&m, "readme.txt", EINVAL, "", 0);
	ex(&m, "README.TXT", 0, "README  TXT", 0x00);
	m = MNT(UTF8, 0, LOWER, NORMAL, 0);
	ex(&m, "README.TXT", EINVAL, "", 0);
	ex(&m, "readme.txt", 0, "README  TXT", 0x18);
	m = MNT(ISO8859_1, 0, WIN95, NORMAL, 0);
	ex(&m, "readme.txt", EINVAL, "", 0);
	m = MNT(ISO8859_1, 0, LOWER, RELAXED, 0);
	ex(&m, "README.TXT", EINVAL, "", 0);
	ex(&m, "\xe9.txt", 0, "\x90       TXT", 0x10);	/* shown lower */
	m = MNT(ISO8859_1, 1, LOWER, NORMAL, 0);
	ex(&m, "\xc3\x89.TXT", EINVAL, "", 0);	/* É.TXT */
	ex(&m, "\xce\xa3.TXT", EINVAL, "", 0);	/* Σ.TXT */
	ex(&m, "\xc3\xa9.TXT", EINVAL, "", 0);	/* é.TXT: .TXT shown .txt */
	ex(&m, "\xc3\xa9.txt", 0, "\x90       TXT", 0x10);
	ex(&m, "README.TXT", EINVAL, "", 0);
	m = MNT(ISO8859_1, 1, MIXED, NORMAL, 1);	/* uni_xlate: utf8 off */
	ex(&m, ":0041.txt", EINVAL, "", 0);	/* shown "A.txt" */
	ex(&m, "\xc3\xa9.txt", EINVAL, "", 0);	/* read as "Ã©" */

	/* uni_xlate: CP437 characters iso8859-1 lacks are shown ':xxxx' */
	m = MNT(ISO8859_1, 0, MIXED, NORMAL, 1);
	ex(&m, ":03a3.txt", 0, "\xe4       TXT", 0x10);	/* Σ */
	ex(&m, ":03A3.TXT", EINVAL, "", 0);	/* shown ":03a3.TXT" */
	ex(&m, ":03b1.txt", 0, "\xe0       TXT", 0x10);	/* α */
	ex(&m, ":03B1.txt", EINVAL, "", 0);
	ex(&m, ":03c3.txt", EINVAL, "", 0);	/* σ, shown Σ */
	ex(&m, ":0041", EINVAL, "", 0);		/* shown "A" */
	ex(&m, ":00e9", EINVAL, "", 0);		/* shown "É" */
	ex(&m, ":00c9", EINVAL, "", 0);		/* shown "\xc9" */
	ex(&m, ":4e2d", EINVAL, "", 0);		/* not in CP437 */
	ex(&m, ":003a", EINVAL, "", 0);		/* ':' */
	ex(&m, ":0000", EINVAL, "", 0);
	ex(&m, ":03a", EINVAL, "", 0);		/* short escape */
	ex(&m, ":03ag", EINVAL, "", 0);
	ex(&m, "ab:002e", EINVAL, "", 0);	/* escaped trailing dot */
	ex(&m, ":002e", EINVAL, "", 0);		/* nothing but a dot */
	ex(&m, "a:", EINVAL, "", 0);
	ex(&m, ":03a3:03a3:03a3:03a3:03a3:03a3:03a3:03a3:03a3",
	   ENAMETOOLONG, "", 0);
	disp(&m, ":03a3.txt", ":03a3.txt");
	disp(&m, "\xc9.TXT", "\xc9.TXT");
	m.check = NLC_CHECK_STRICT;
	ex(&m, ":03a3.txt", 0, "\xe4       TXT", 0x10);
	ex(&m, ":03A3.txt", EINVAL, "", 0);	/* shown lower-case hex */
	m = MNT(UTF8, 0, MIXED, NORMAL, 1);	/* escapes read, never shown */
	ex(&m, ":03a3.txt", EINVAL, "", 0);
	ex(&m, "\xce\xa3.txt", 0, "\xe4       TXT", 0x10);

	/* check= changes nothing: the case must be shown as typed */
	m = MNT(ISO8859_1, 0, MIXED, STRICT, 0);
	ex(&m, "readme.txt", 0, "README  TXT", 0x18);
	ex(&m, "ReadMe.txt", EINVAL, "", 0);
	ex(&m, "\xe9", EINVAL, "", 0);
	ex(&m, "\xc9" "A", 0, "\x90" "A         ", 0x00);
	ex2(&m, "readme.txt", "README.TXT", EEXIST);	/* same 11 bytes */
	m = MNT(ISO8859_1, 0, WIN95, STRICT, 0);
	ex(&m, "readme.txt", EINVAL, "", 0);
	ex(&m, "\xc9", 0, "\x90          ", 0x00);
	m = MNT(ISO8859_1, 0, LOWER, STRICT, 0);
	ex(&m, "README", EINVAL, "", 0);
	ex(&m, "readme", 0, "README     ", 0x08);
	ex(&m, "Readme", EINVAL, "", 0);
	ex(&m, "\xe9", 0, "\x90          ", 0x00);	/* always shown lower */
	m = MNT(ISO8859_1, 0, WINNT, STRICT, 0);
	ex(&m, "readme.TXT", 0, "README  TXT", 0x08);
	/* relaxed / normal: the lookup before the create finds other cases */
	ex2(&def, "readme.txt", "README.TXT", EEXIST);
	ex2(&def, "\xc9", "\xe9", EEXIST);
	ex2(&def, "abc", "abc.", EEXIST);	/* the lookup ignores the dot */
	m = MNT(ISO8859_1, 1, MIXED, NORMAL, 0);
	ex2(&m, "\xc3\x89", "\xc3\xa9", EEXIST);	/* same 11 bytes */
#ifdef KERNEL_TABLES
	check_tables();
#endif
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures != 0;
}
