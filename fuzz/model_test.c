// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side checks of the model (no kernel involved):
 *  - the examples of the contract;
 *  - with -DKERNEL_TABLES="path": the model's hard-coded CP437 alphabet
 *    against the kernel's fs/nls/nls_cp437.c tables (charset2uni, the
 *    page tables, charset2upper, charset2lower), extracted by
 *    fuzz/check-model.sh.  That checks the table, not the algorithm.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static int failures, checks;

static void ex(const struct nlc_mount *m, const char *name, int err,
	       const char *name11, int lcase)
{
	struct nlc_result r;

	checks++;
	nlc_predict(m, NLC_CREAT, (const unsigned char *)name, strlen(name),
		    NULL, 0, &r);
	if (r.err != err || (!err && (memcmp(r.ent.name, name11, 11) ||
				      r.ent.lcase != lcase))) {
		failures++;
		printf("FAIL %-12s utf8=%d: model %s '%.11s' 0x%02x, contract %s '%.11s' 0x%02x\n",
		       name, m->utf8, nlc_errname(r.err), r.ent.name, r.ent.lcase,
		       nlc_errname(err), err ? "" : name11, lcase);
	}
}

#ifdef KERNEL_TABLES
typedef unsigned short wchar_t_k;
#define wchar_t wchar_t_k
#include KERNEL_TABLES
#undef wchar_t

static void check_tables(void)
{
	size_t i;

	for (i = 0; i < nlc_alphabet_len; i++) {
		const struct nlc_char *c = &nlc_alphabet[i];
		const unsigned char *page = c->uni < 0x10000 ?
			page_uni2charset[c->uni >> 8] : NULL;
		unsigned char k = page ? page[c->uni & 0xFF] : 0;

		checks++;
		if (k != c->cp) {
			failures++;
			printf("TABLE U+%04X (%s): model cp437 0x%02x, kernel 0x%02x\n",
			       c->uni, c->desc, c->cp, k);
			continue;
		}
		if (!k)
			continue;
		checks += 2;
		if (charset2uni[k] != c->uni) {
			failures++;
			printf("TABLE 0x%02x: kernel charset2uni U+%04X, model U+%04X\n",
			       k, charset2uni[k], c->uni);
		}
		/* nls_toupper(): a 0 in charset2upper means "unchanged" */
		if ((charset2upper[k] ? charset2upper[k] : k) != c->up) {
			failures++;
			printf("TABLE 0x%02x (%s): kernel upper 0x%02x, model 0x%02x\n",
			       k, c->desc, charset2upper[k], c->up);
		}
		/* the lower-case letter of an upper-case one, for display */
		if (c->up != c->cp && (charset2lower[c->up] ? charset2lower[c->up] : c->up) != c->cp) {
			checks++;
			failures++;
			printf("TABLE 0x%02x: kernel lower 0x%02x, model 0x%02x\n",
			       c->up, charset2lower[c->up], c->cp);
		}
	}
	/* ASCII is the identity in both directions */
	for (i = 0x20; i < 0x80; i++) {
		checks++;
		if (charset2uni[i] != i || page00[i] != i) {
			failures++;
			printf("TABLE ASCII 0x%02zx not identity\n", i);
		}
	}
	printf("cp437 table: %zu alphabet characters checked against the kernel\n",
	       nlc_alphabet_len);
}
#endif

int main(void)
{
	struct nlc_mount def = { 0, 0, NLC_SN_MIXED };
	struct nlc_mount u8 = { 1, 0, NLC_SN_MIXED };
	const char *NT = NULL;

	(void)NT;
	ex(&def, "readme.txt", 0, "README  TXT", 0x18);
	ex(&def, "README.TXT", 0, "README  TXT", 0x00);
	ex(&def, "ReadMe.txt", 0, "README  TXT", 0x10);
	ex(&def, "File.txt", 0, "FILE    TXT", 0x10);
	ex(&def, "File.TxT", 0, "FILE    TXT", 0x00);
	ex(&def, "a b.txt", ENAMETOOLONG, "", 0);
	ex(&def, "a+b.txt", ENAMETOOLONG, "", 0);
	ex(&def, ".profile", ENAMETOOLONG, "", 0);
	ex(&def, "a.b.c", ENAMETOOLONG, "", 0);
	ex(&def, "abcdefghi", ENAMETOOLONG, "", 0);
	ex(&def, "abc.text", ENAMETOOLONG, "", 0);
	ex(&def, "abc.", 0, "ABC        ", 0x08);
	ex(&def, "abc...", 0, "ABC        ", 0x08);
	ex(&def, "...", ENOENT, "", 0);
	ex(&def, "a*b", EINVAL, "", 0);
	ex(&def, "abc ", EINVAL, "", 0);
	/* iso8859-1 bytes */
	ex(&def, "\xe9.txt", ENAMETOOLONG, "", 0);
	ex(&def, "\xc9.TXT", 0, "\x90       TXT", 0x00);
	ex(&def, "\xdf.txt", 0, "\xe1       TXT", 0x10);
	ex(&def, "\xa4.txt", ENAMETOOLONG, "", 0);	/* currency sign */
	/* utf8 */
	ex(&u8, "\xc3\xa9.txt", ENAMETOOLONG, "", 0);
	ex(&u8, "\xc3\x89.TXT", 0, "\x90       TXT", 0x00);
	ex(&u8, "\xc3\x9f.txt", 0, "\xe1       TXT", 0x10);
	ex(&u8, "\xe4\xb8\xad.txt", ENAMETOOLONG, "", 0);	/* CJK */
	ex(&u8, "\xcf\x83.txt", ENAMETOOLONG, "", 0);	/* sigma -> 0xE5 -> 0xE4 */
	ex(&u8, "\xc3\x28.txt", EINVAL, "", 0);	/* bad UTF-8 */
	ex(&u8, "\xc0\xae.txt", EINVAL, "", 0);	/* overlong */
	ex(&u8, "\xed\xa0\x80", EINVAL, "", 0);	/* surrogate */
#ifdef KERNEL_TABLES
	check_tables();
#endif
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures != 0;
}
