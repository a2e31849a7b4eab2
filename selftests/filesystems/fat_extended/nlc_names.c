// SPDX-License-Identifier: GPL-2.0
/*
 * The vfat "nolongcreate" name rule, name by name: create, mkdir and rename
 * to each name of a table of 150 and more (nlc_table) either write the one
 * 8.3 entry the table gives, shown by readdir exactly as typed, or fail with
 * its errno and write nothing; and codepages whose lead byte 0xE5 is stored
 * as 0x05.  On every variant of the nlc fixture (nlc.h).
 */
#include "nlc.h"

/* The 8.3 directories the name table tests use, one per operation */
enum nlc_op { NLC_CREAT, NLC_MKDIR, NLC_RENAME, NLC_RENAME_DIR };

/* ---------------------------------------------------------------------- */
/*
 * The name table.  Each name (UTF-8) with its outcome under nolongcreate:
 * an errno, or the 11 bytes of its 8.3 entry and its lcase byte
 * (0x08 CASE_LOWER_BASE, 0x10 CASE_LOWER_EXT).  The 8.3 codepage is cp437.
 *
 * A name is accepted only if one 8.3 entry holds it and readdir on this
 * mount shows that entry exactly as the name was typed, byte for byte:
 * a part all lower-case ASCII gets its lcase flag, a part with a byte
 * >= 0x7F never does, so nothing is ever case-folded.  ENAMETOOLONG only
 * for a base over 8 or an extension over 3 codepage bytes, EINVAL for
 * every other refusal (mixed case, a space, a leading, second or
 * trailing dot, + , ; = [ ], a character cp437 lacks, ...).
 *
 * Without utf8, a name is given in iso8859-1; a name with a character
 * beyond U+00FF is given as its raw UTF-8 bytes, which iso8859-1 reads as
 * other characters: "raw" holds the outcome for those bytes.
 *
 * A row with "pre" first gets that 8.3 name created in the directory:
 * its name is the same 8.3 name in another case, so creat and mkdir fail
 * with EEXIST and rename replaces the existing entry, which keeps its
 * bytes (sfn, lcase).
 */
struct nlc_row {
	const char *name;
	int err;
	const char *sfn;
	unsigned char lcase;
	const char *pre;
	bool has_raw;		/* the raw fields are set */
	int raw_err;
	const char *raw_sfn;
	unsigned char raw_lcase;
};

#define OK(n, s, l)		{ .name = n, .sfn = s, .lcase = l }
#define ERR(n, e)		{ .name = n, .err = e }
#define PRE(n, p, s, l)		{ .name = n, .err = EEXIST, .pre = p,	\
				  .sfn = s, .lcase = l }
/* beyond iso8859-1: accepted under utf8, refused as raw bytes */
#define U_OK(n, s, l, re)	{ .name = n, .sfn = s, .lcase = l,	\
				  .has_raw = true, .raw_err = re }
#define U_ERR(n, e, re)		{ .name = n, .err = e, .has_raw = true,	\
				  .raw_err = re }
/* beyond iso8859-1: refused under utf8, accepted as raw bytes */
#define U_RAW_OK(n, e, rs, rl)	{ .name = n, .err = e, .has_raw = true,	\
				  .raw_sfn = rs, .raw_lcase = rl }

#define L 0x08			/* CASE_LOWER_BASE */
#define X 0x10			/* CASE_LOWER_EXT */
#define LX 0x18

/* long names, filled in by nlc_fill_long_names() */
static char nlc_a255[256], nlc_a255_txt[256], nlc_a256[257], nlc_a300[301];
static char nlc_e128[257];	/* 128 times U+00E9, 256 bytes of UTF-8 */

static void nlc_fill_long_names(void)
{
	int i;

	memset(nlc_a255, 'a', 255);
	memset(nlc_a255_txt, 'b', 251);
	memcpy(nlc_a255_txt + 251, ".txt", 4);
	memset(nlc_a256, 'c', 256);
	memset(nlc_a300, 'd', 300);
	for (i = 0; i < 128; i++)
		memcpy(nlc_e128 + 2 * i, "\u00e9", 2);
}

static const struct nlc_row nlc_table[] = {
	/* 8.3 length boundaries: too long is ENAMETOOLONG */
	OK("a", "A          ", L),
	OK("B", "B          ", 0),
	OK("cdefghij", "CDEFGHIJ   ", L),
	OK("KLMNOPQR", "KLMNOPQR   ", 0),
	ERR("abcdefghi", ENAMETOOLONG),
	ERR("ABCDEFGHI", ENAMETOOLONG),
	ERR("123456789", ENAMETOOLONG),
	OK("stuvwxyz.abc", "STUVWXYZABC", LX),
	ERR("stuvwxyza.abc", ENAMETOOLONG),
	ERR("abcdefghij.t", ENAMETOOLONG),
	OK("e1.t", "E1      T  ", LX),
	OK("e2.tx", "E2      TX ", LX),
	OK("e3.txt", "E3      TXT", LX),
	ERR("e4.text", ENAMETOOLONG),
	ERR("E5.TEXT", ENAMETOOLONG),
	ERR("f2.abcd", ENAMETOOLONG),
	OK("12345678.123", "12345678123", 0),
	/* a trailing dot is refused (vfat would drop it), "..." is no name */
	ERR("e6.", EINVAL),
	ERR("e7...", EINVAL),
	ERR("E8.", EINVAL),
	/* the length is judged without the trailing dots, then the dot */
	ERR("abcdefg9.", EINVAL),
	ERR("ABCDEFG8.TX.", EINVAL),
	ERR("abcdefghi.", ENAMETOOLONG),
	ERR("ABCDEFGH.TXTX.", ENAMETOOLONG),
	ERR("e9.t.", EINVAL),
	ERR("...", ENOENT),
	ERR("....", ENOENT),
	/* case: a part in one case keeps it, a part in mixed case is refused */
	OK("readme.txt", "README  TXT", LX),
	OK("README2.TXT", "README2 TXT", 0),
	ERR("ReadMe3.txt", EINVAL),
	OK("readme4.TXT", "README4 TXT", L),
	OK("README5.txt", "README5 TXT", X),
	ERR("File6.TxT", EINVAL),
	ERR("file7.Txt", EINVAL),
	ERR("mIxEd8", EINVAL),
	OK("lower9.c", "LOWER9  C  ", LX),
	OK("UPPER0.C", "UPPER0  C  ", 0),
	OK("g1.C", "G1      C  ", L),
	OK("G2.c", "G2      C  ", X),
	OK("x_y.z_w", "X_Y     Z_W", LX),
	ERR("zZ", EINVAL),
	ERR("Makefile", EINVAL),
	/* leading and inner dots: EINVAL, unless too long */
	ERR(".profile", EINVAL),
	ERR(".a", EINVAL),
	ERR("..abc", EINVAL),
	ERR("...abc", EINVAL),
	ERR(".h1.txt", EINVAL),
	ERR(".h5.", EINVAL),
	ERR("h2.b.c", EINVAL),
	ERR("h3..c", EINVAL),
	ERR("h4.tar.gz", EINVAL),
	ERR(".bash_history", ENAMETOOLONG),
	ERR("a.b.c.d.e.f", ENAMETOOLONG),	/* base "a.b.c.d.e" */
	/* spaces are no 8.3 character; a trailing one is never valid */
	ERR("a b.txt", EINVAL),
	ERR(" h6", EINVAL),
	ERR("h7 .c", EINVAL),
	ERR("h8. c", EINVAL),
	ERR("h9.c c", EINVAL),
	ERR("i1 ", EINVAL),
	ERR("i2.c ", EINVAL),
	ERR(" ", EINVAL),
	ERR("i3 .", EINVAL),
	ERR("i4. ", EINVAL),
	ERR("Long Report.txt", ENAMETOOLONG),
	/* would be replaced by '_' in 8.3 */
	ERR("a+b.txt", EINVAL),
	ERR("i5,b", EINVAL),
	ERR("i6;b", EINVAL),
	ERR("i7=b", EINVAL),
	ERR("i8[b", EINVAL),
	ERR("i9]b", EINVAL),
	ERR("j1.+", EINVAL),
	ERR("j2.a,b", EINVAL),
	ERR("j3.;", EINVAL),
	ERR("j4.=", EINVAL),
	ERR("j5.[]", EINVAL),
	ERR("+", EINVAL),
	ERR("J_1+", EINVAL),
	ERR("name+plus", ENAMETOOLONG),
	/* never valid in a vfat name */
	ERR("j6*", EINVAL),
	ERR("j7?", EINVAL),
	ERR("j8<", EINVAL),
	ERR("j9>", EINVAL),
	ERR("k1|", EINVAL),
	ERR("k2\"", EINVAL),
	ERR("k3:", EINVAL),
	ERR("k4\\", EINVAL),
	ERR("k5\x01", EINVAL),
	ERR("k6\x1f", EINVAL),
	ERR("k7\t.txt", EINVAL),
	ERR("k8.t*t", EINVAL),
	ERR("a*b", EINVAL),
	ERR("a long name with a * star", EINVAL),
	ERR("a long name ending in a space ", EINVAL),
	/* caseless characters allowed in 8.3 */
	OK("k$1", "K$1        ", L),
	OK("k%1", "K%1        ", L),
	OK("k'1", "K'1        ", L),
	OK("k-1", "K-1        ", L),
	OK("k_1", "K_1        ", L),
	OK("k@1", "K@1        ", L),
	OK("k{1", "K{1        ", L),
	OK("k}1", "K}1        ", L),
	OK("k!1", "K!1        ", L),
	OK("k#1", "K#1        ", L),
	OK("k(1", "K(1        ", L),
	OK("k)1", "K)1        ", L),
	OK("k&1", "K&1        ", L),
	OK("k^1", "K^1        ", L),
	OK("k`1", "K`1        ", L),
	OK("l1.$%'", "L1      $%'", L),
	OK("L2.{}~", "L2      {}~", 0),
	OK("l3.!#&", "L3      !#&", L),
	OK("L4.@-_", "L4      @-_", 0),
	/* a '~' given by the user is kept as it is */
	OK("k~1", "K~1        ", L),
	OK("abc~1.txt", "ABC~1   TXT", LX),
	OK("ABCDEF~1", "ABCDEF~1   ", 0),
	OK("readme~2.txt", "README~2TXT", LX),
	OK("~", "~          ", 0),
	OK("~~~~~~~~.~~~", "~~~~~~~~~~~", 0),
	/* digits */
	OK("0", "0          ", 0),
	OK("2024.123", "2024    123", 0),
	OK("1a", "1A         ", L),
	OK("1B", "1B         ", 0),
	OK("9.z", "9       Z  ", X),
	OK("00000000.000", "00000000000", 0),
	OK("7.TXT", "7       TXT", 0),
	/*
	 * iso8859-1 letters: cp437 upper-cases them and a part with a byte
	 * >= 0x7F gets no lcase flag, so a lower-case one is shown upper-case
	 * and refused, on every mount; upper-case ones are shown as typed
	 */
	ERR("\u00e9", EINVAL),
	ERR("\u00e93.txt", EINVAL),
	ERR("caf\u00e9", EINVAL),
	ERR("m1.\u00e9", EINVAL),
	ERR("\u00c9\u00e9", EINVAL),
	OK("\u00c9.TXT", "\x90       TXT", 0),
	OK("\u00c92.txt", "\2202      TXT", X),
	ERR("\u00c9b.txt", EINVAL),	/* shown "\u00c9B.txt" */
	ERR("\u00c9C.Txt", EINVAL),
	OK("\u00df.txt", "\xe1       TXT", X),
	ERR("Stra\u00dfe", EINVAL),
	OK("STRA\u00dfE", "STRA\341E     ", 0),
	OK("\u00c4", "\x8e          ", 0),
	ERR("\u00e4b", EINVAL),
	OK("\u00d6.\u00dc", "\x99       \x9a  ", 0),
	ERR("\u00f6", EINVAL),
	ERR("\u00fc.txt", EINVAL),
	OK("\u00d11", "\2451         ", 0),
	ERR("\u00f12", EINVAL),
	ERR("\u00e62", EINVAL),
	OK("\u00c6", "\x92          ", 0),
	ERR("\u00e72", EINVAL),
	OK("\u00c7", "\x80          ", 0),
	ERR("\u00e52", EINVAL),
	OK("\u00c5", "\x8f          ", 0),
	/* lower case without an upper case in cp437: shown as typed */
	OK("\u00e1", "\xa0          ", 0),
	OK("\u00e02", "\2052         ", 0),
	OK("\u00e23", "\2033         ", 0),
	OK("\u00ff", "\x98          ", 0),
	OK("\u00b5", "\xe6          ", 0),
	/* caseless */
	OK("\u00a35", "\2345         ", 0),
	OK("\u00a5", "\x9d          ", 0),
	OK("\u00bd.\u00bf", "\xab       \xa8  ", 0),
	OK("\u00a1!", "\xad!         ", 0),
	OK("X\u00a0Y", "X\xffY        ", 0),
	ERR("x\u00a0z", EINVAL),	/* the byte >= 0x7F: shown "X Z" */
	/* not in cp437: EINVAL, too long first */
	ERR("\u00c3", EINVAL),
	ERR("\u00fe", EINVAL),
	ERR("a\u00d7b", EINVAL),
	ERR("\u00a4", EINVAL),
	ERR("\u00ad", EINVAL),
	ERR("\u00c3\u00c3\u00c3\u00c3\u00c3\u00c3\u00c3\u00c3\u00c3",
	    ENAMETOOLONG),
	/*
	 * beyond iso8859-1; as raw UTF-8 bytes on an iso8859-1 mount each
	 * holds a character cp437 lacks (a C1 control, \u00ce, \u00cf, ...)
	 */
	U_ERR("\u03c32", EINVAL, EINVAL),	/* shown "\u03a32" */
	U_OK("\u03a3", "\xe4          ", 0, EINVAL),
	U_OK("\u03c0", "\xe3          ", 0, EINVAL),
	U_OK("\u03b1", "\xe0          ", 0, EINVAL),
	U_ERR("\u03b1\u03b2", EINVAL, EINVAL),
	U_ERR("\u03c6", EINVAL, EINVAL),	/* shown "\u03a6" */
	U_OK("\u03a6", "\xe8          ", 0, EINVAL),
	U_OK("\u03a9", "\xea          ", 0, EINVAL),
	U_OK("\u221e", "\xec          ", 0, EINVAL),
	U_OK("\u2500", "\xc4          ", 0, EINVAL),
	U_OK("\u20a7", "\x9e          ", 0, EINVAL),
	U_OK("\u0192", "\x9f          ", 0, EINVAL),
	U_ERR("\u20ac", EINVAL, EINVAL),
	U_ERR("\u4e2d.txt", EINVAL, EINVAL),
	U_ERR("\u4e2d\u6587", EINVAL, EINVAL),
	/* 9 bytes of base as iso8859-1 */
	U_ERR("\u65e5\u672c\u8a9e.txt", EINVAL, ENAMETOOLONG),
	U_ERR("\U0001f600", EINVAL, EINVAL),
	U_ERR("a\U0001f600.txt", EINVAL, EINVAL),
	/* 4 bytes of extension as iso8859-1 */
	U_ERR("m2.\U0001f600", EINVAL, ENAMETOOLONG),
	/* U+0122 is C4 A2, which iso8859-1 reads as U+00C4 U+00A2 */
	U_RAW_OK("\u0122", EINVAL, "\x8e\x9b         ", 0),
	/* long names */
	ERR(nlc_a255, ENAMETOOLONG),
	ERR(nlc_a255_txt, ENAMETOOLONG),
	ERR(nlc_a256, ENAMETOOLONG),
	ERR(nlc_a300, ENAMETOOLONG),
	ERR(nlc_e128, ENAMETOOLONG),
	ERR("Long Report 2.txt", ENAMETOOLONG),
	ERR("longname.html", ENAMETOOLONG),
	/* the same 8.3 name exists in another case */
	PRE("collide.txt", "COLLIDE.TXT", "COLLIDE TXT", 0),
	PRE("COLLID2.TXT", "collid2.txt", "COLLID2 TXT", LX),
	PRE("Collid3.Txt", "collid3.TXT", "COLLID3 TXT", L),
	PRE("collid4.txt.", "COLLID4.TXT", "COLLID4 TXT", 0),
	PRE("cOLLID5", "collid5", "COLLID5    ", L),
};

#undef L
#undef X
#undef LX

/* What a row means on this mount */
struct nlc_expect {
	char name[1024];	/* the bytes to pass */
	int err;
	const char *sfn;
	unsigned char lcase;
};


static bool nlc_row_expect(const struct nlc_row *r, bool utf8,
			   struct nlc_expect *e)
{
	e->err = r->err;
	e->sfn = r->sfn;
	e->lcase = r->lcase;
	if (utf8) {
		snprintf(e->name, sizeof(e->name), "%s", r->name);
		goto out;
	}
	if (nlc_latin1(r->name, e->name, sizeof(e->name)))
		goto out;
	if (!r->has_raw)
		return false;
	snprintf(e->name, sizeof(e->name), "%s", r->name);
	e->err = r->raw_err;
	e->sfn = r->raw_sfn;
	e->lcase = r->raw_lcase;
out:
	/* no 8.3 entry for a name refused on this mount */
	if (e->err && !r->pre)
		e->sfn = NULL;
	return true;
}

/* The table is consistent: 11 bytes per 8.3 name, none twice. */
static void nlc_check_table(struct __test_metadata *_metadata, bool utf8)
{
	struct nlc_expect a, b;
	size_t i, j, n = ARRAY_SIZE(nlc_table);

	ASSERT_LE((size_t)150, n);
	for (i = 0; i < n; i++) {
		if (!nlc_row_expect(&nlc_table[i], utf8, &a) || !a.sfn)
			continue;
		ASSERT_EQ((size_t)MSDOS_NAME, strlen(a.sfn)) {
			TH_LOG("table row %zu \"%s\"", i, nlc_show(a.name));
		}
		ASSERT_TRUE(!a.err || nlc_table[i].pre);
		for (j = 0; j < i; j++) {
			if (!nlc_row_expect(&nlc_table[j], utf8, &b) || !b.sfn)
				continue;
			ASSERT_NE(0, memcmp(a.sfn, b.sfn, MSDOS_NAME)) {
				TH_LOG("table rows %zu and %zu: same 8.3 name",
				       j, i);
			}
		}
	}
}

static const char *const nlc_op_dir[] = {
	[NLC_CREAT] = "C", [NLC_MKDIR] = "D", [NLC_RENAME] = "R",
	[NLC_RENAME_DIR] = "M",
};

static const char *const nlc_op_dir83[] = {
	[NLC_CREAT] = "C          ",
	[NLC_MKDIR] = "D          ",
	[NLC_RENAME] = "R          ",
	[NLC_RENAME_DIR] = "M          ",
};

/* what rename moves: a file, or (NLC_RENAME_DIR) a directory */
#define NLC_SRC "SRC.TMP"
#define NLC_SRC83 "SRC     TMP"

static bool nlc_is_rename(enum nlc_op op)
{
	return op == NLC_RENAME || op == NLC_RENAME_DIR;
}

static int nlc_do_op(struct _test_data_nlc *self, enum nlc_op op,
		     const char *path)
{
	char src[PATH_MAX];

	switch (op) {
	case NLC_CREAT:
		return nlc_creat(path);
	case NLC_MKDIR:
		return mkdir(path, 0755) ? errno : 0;
	default:
		snprintf(src, sizeof(src), "%s/%s/%s", self->mnt,
			 nlc_op_dir[op], NLC_SRC);
		return rename(src, path) ? errno : 0;
	}
}

/*
 * The outcome of @op for a row: rename replaces an existing file; a
 * directory is not renamed over a file
 */
static int nlc_op_err(enum nlc_op op, const struct nlc_row *r,
		      const struct nlc_expect *e)
{
	if (op == NLC_RENAME && r->pre)
		return 0;
	if (op == NLC_RENAME_DIR && r->pre)
		return ENOTDIR;
	return e->err;
}

static unsigned int nlc_nr_pre(void)
{
	unsigned int n = 0;
	size_t r;

	for (r = 0; r < ARRAY_SIZE(nlc_table); r++)
		n += !!nlc_table[r].pre;
	return n;
}

static void nlc_name_table(struct __test_metadata *_metadata,
			   struct _test_data_nlc *self,
			   const struct _fixture_variant_nlc *variant, enum nlc_op op)
{
	const char *d = nlc_op_dir[op];
	char path[PATH_MAX], src[PATH_MAX];
	struct nlc_expect e;
	struct stat st, before;
	struct fat_raw_dir dir;
	unsigned int expected = 0, live = 0, used, i, lfn = 0, tilde = 0;
	unsigned int shown;
	struct nlc_scan scan;
	bool *seen, made[ARRAY_SIZE(nlc_table)] = { false };
	size_t r, n = ARRAY_SIZE(nlc_table);
	int err, want, idx, ran = 0;

	nlc_fill_long_names();
	nlc_check_table(_metadata, variant->utf8);
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, mkdir(nlc_p(self, d), 0755));
	snprintf(src, sizeof(src), "%s/%s/%s", self->mnt, d, NLC_SRC);

	for (r = 0; r < n; r++) {
		if (!nlc_table[r].pre)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", self->mnt, d,
			 nlc_table[r].pre);
		ASSERT_EQ(0, nlc_creat(path));
	}

	for (r = 0; r < n; r++) {
		const struct nlc_row *row = &nlc_table[r];

		if (!nlc_row_expect(row, variant->utf8, &e))
			continue;
		ran++;
		snprintf(path, sizeof(path), "%s/%s/%s", self->mnt, d, e.name);
		if (op == NLC_RENAME && nlc_stat_err(src, NULL))
			ASSERT_EQ(0, nlc_creat(src));
		if (op == NLC_RENAME_DIR && nlc_stat_err(src, NULL))
			ASSERT_EQ(0, mkdir(src, 0755));
		ASSERT_EQ(0, stat(nlc_p(self, d), &before));

		err = nlc_do_op(self, op, path);
		want = nlc_op_err(op, row, &e);
		EXPECT_EQ(want, err) {
			TH_LOG("row %zu \"%s\": %s, expected %s", r,
			       nlc_show(e.name), strerror(err), strerror(want));
		}
		/* a new entry the kernel made, expected or not */
		made[r] = !err && !row->pre;
		if (!want) {
			/* found again by the very name used */
			EXPECT_EQ(0, nlc_stat_err(path, &st)) {
				TH_LOG("row %zu \"%s\" not found after create",
				       r, nlc_show(e.name));
			}
			if ((op == NLC_MKDIR && !row->pre) ||
			    op == NLC_RENAME_DIR)
				EXPECT_TRUE(S_ISDIR(st.st_mode));
			if (nlc_is_rename(op))
				EXPECT_EQ(ENOENT, nlc_stat_err(src, NULL));
			continue;
		}
		/* refused: nothing written, the directory did not grow */
		ASSERT_EQ(0, stat(nlc_p(self, d), &st));
		EXPECT_EQ(before.st_size, st.st_size) {
			TH_LOG("row %zu \"%s\": directory grew", r,
			       nlc_show(e.name));
		}
		if (nlc_is_rename(op)) {
			EXPECT_EQ(0, nlc_stat_err(src, NULL)) {
				TH_LOG("row %zu \"%s\": rename source lost", r,
				       nlc_show(e.name));
			}
		}
		if (!row->pre) {
			EXPECT_NE(0, nlc_stat_err(path, NULL)) {
				TH_LOG("row %zu \"%s\" exists after %s", r,
				       nlc_show(e.name), strerror(err));
			}
		}
	}
	ASSERT_LE(150, ran);
	nlc_umount(_metadata, self);

	/* on disk: exactly the table's 8.3 entries, no LFN slot, no alias */
	nlc_raw_dir(_metadata, self, nlc_op_dir83[op], &dir);
	seen = calloc(dir.nr, sizeof(*seen));
	ASSERT_NE(NULL, seen);
	used = fat_raw_used_slots(&dir);
	for (i = 0; i < used; i++) {
		if (fat_raw_is_lfn(&dir.ents[i]))
			lfn++;
		else if (fat_raw_is_sfn(&dir.ents[i]) &&
			 !fat_raw_is_dot(&dir.ents[i]))
			live++;
	}
	EXPECT_EQ(0U, lfn);
	for (r = 0; r < n; r++) {
		const struct nlc_row *row = &nlc_table[r];
		const struct msdos_dir_entry *de;

		if (!nlc_row_expect(row, variant->utf8, &e) || !e.sfn)
			continue;
		expected++;
		tilde += !!memchr(e.sfn, '~', MSDOS_NAME);
		idx = fat_raw_find(&dir, (const unsigned char *)e.sfn);
		EXPECT_LE(0, idx) {
			TH_LOG("row %zu \"%s\": no entry \"%s\" on disk", r,
			       nlc_show(e.name), nlc_show(e.sfn));
		}
		if (idx < 0)
			continue;
		de = &dir.ents[idx];
		EXPECT_FALSE(seen[idx]);
		seen[idx] = true;
		EXPECT_EQ(e.lcase, de->lcase) {
			TH_LOG("row %zu \"%s\": lcase", r, nlc_show(e.name));
		}
		EXPECT_EQ((op == NLC_MKDIR || op == NLC_RENAME_DIR) &&
			  !row->pre ? ATTR_DIR : ATTR_ARCH, de->attr);
	}
	if (nlc_is_rename(op)) {
		/* the last SRC.TMP, renamed away or not, took one slot */
		if (fat_raw_find(&dir, (const unsigned char *)NLC_SRC83) >= 0)
			live--;
		EXPECT_EQ(2 + expected + 1, used);
	} else {
		EXPECT_EQ(2 + expected, used);
	}
	EXPECT_EQ(expected, live) {
		for (i = 0; i < used; i++)
			if (fat_raw_is_sfn(&dir.ents[i]) && !seen[i] &&
			    !fat_raw_is_dot(&dir.ents[i]))
				TH_LOG("unexpected entry \"%s\"",
				       nlc_show((char *)dir.ents[i].name));
	}
	free(seen);
	fat_raw_free_dir(&dir);
	/* anywhere on disk: no LFN slot, no '~' but the table's own */
	nlc_raw_scan(_metadata, self, &scan);
	EXPECT_EQ(0U, scan.lfn);
	EXPECT_EQ(tilde, scan.tilde);
	nlc_fsck(_metadata, self);

	/*
	 * After a cold mount: found again by the name used, and readdir
	 * shows every new entry the kernel made exactly as that name (a
	 * replaced one keeps the name it had)
	 */
	nlc_mount(_metadata, self, variant, "nolongcreate");
	shown = 0;
	for (r = 0; r < n; r++) {
		if (!nlc_row_expect(&nlc_table[r], variant->utf8, &e))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", self->mnt, d, e.name);
		if (!nlc_op_err(op, &nlc_table[r], &e)) {
			EXPECT_EQ(0, nlc_stat_err(path, NULL)) {
				TH_LOG("row %zu \"%s\" not found after mount",
				       r, nlc_show(e.name));
			}
		}
		if (!made[r])
			continue;
		EXPECT_TRUE(nlc_dir_lists(nlc_p(self, d), e.name)) {
			TH_LOG("row %zu \"%s\" accepted, not shown as typed",
			       r, nlc_show(e.name));
		}
		shown++;
	}
	/* it inspected every name the table accepts */
	EXPECT_LE(expected - nlc_nr_pre(), shown);
	nlc_umount(_metadata, self);
}

/* The test @name: the name table under @op */
#define NLC_TABLE_TEST(name, op)					\
	TEST_F_TIMEOUT(nlc, name, 120)					\
	{								\
		if (!nlc_skipped(_metadata, self))			\
			nlc_name_table(_metadata, self, variant, op);	\
	}

NLC_TABLE_TEST(creat_follows_name_table, NLC_CREAT)
NLC_TABLE_TEST(mkdir_follows_name_table, NLC_MKDIR)
NLC_TABLE_TEST(rename_follows_name_table, NLC_RENAME)
NLC_TABLE_TEST(rename_dir_follows_name_table, NLC_RENAME_DIR)

/* ---------------------------------------------------------------------- */

/*
 * Shift-JIS: the 8.3 entry keeps multi-byte characters as they are; one
 * whose lead byte is 0xE5 (the deleted mark) is stored as 0x05.
 */
TEST_F(nlc, codepage_932_lead_byte_e5_is_stored_as_05)
{
	static const struct {
		const char *utf8, *sjis, *sfn;
		int err;
		unsigned char lcase;
	} names[] = {
		/* U+86DF, Shift-JIS E5 80 */
		{ "\xe8\x9b\x9f.txt", "\xe5\x80.txt", "\x05\x80      TXT", 0,
		  CASE_LOWER_EXT },
		/* U+4E2D, Shift-JIS 92 86 */
		{ "\xe4\xb8\xad", "\x92\x86", "\x92\x86         ", 0, 0 },
		/* U+65E5 U+672C U+8A9E U+7248: 8 bytes */
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe7\x89\x88",
		  "\x93\xfa\x96\x7b\x8c\xea\x94\xc5",
		  "\x93\xfa\x96\x7b\x8c\xea\x94\xc5   ", 0, 0 },
		/* 9 bytes */
		{ "a\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe7\x89\x88",
		  "a\x93\xfa\x96\x7b\x8c\xea\x94\xc5", NULL, ENAMETOOLONG, 0 },
		/* 4 bytes of extension */
		{ "x.\xe4\xb8\xad\xe4\xb8\xad", "x.\x92\x86\x92\x86", NULL,
		  ENAMETOOLONG, 0 },
	};
	const char *extra = variant->utf8 ? "nolongcreate,codepage=932" :
				"nolongcreate,codepage=932,iocharset=cp932";
	struct fat_raw_dir dir;
	const char *name;
	size_t i;
	int err, idx;

	if (nlc_skipped(_metadata, self))
		return;
	err = nlc_try_mount(self, variant, extra);
	if (err == EINVAL)
		SKIP(return, "no codepage 932 (CONFIG_NLS_CODEPAGE_932)");
	ASSERT_EQ(0, err);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		name = variant->utf8 ? names[i].utf8 : names[i].sjis;
		EXPECT_EQ(names[i].err, nlc_creat(nlc_p(self, name))) {
			TH_LOG("\"%s\"", nlc_show(name));
		}
	}
	nlc_cycle(_metadata, self);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		name = variant->utf8 ? names[i].utf8 : names[i].sjis;
		if (names[i].err)
			continue;
		EXPECT_EQ(0, nlc_stat_err(nlc_p(self, name), NULL)) {
			TH_LOG("\"%s\"", nlc_show(name));
		}
		EXPECT_TRUE(nlc_dir_lists(self->mnt, name)) {
			TH_LOG("\"%s\"", nlc_show(name));
		}
	}
	nlc_umount(_metadata, self);
	nlc_raw_root(_metadata, self, &dir);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].err)
			continue;
		idx = fat_raw_find(&dir, (const unsigned char *)names[i].sfn);
		EXPECT_LE(0, idx) {
			TH_LOG("\"%s\" not on disk", nlc_show(names[i].sfn));
		}
		if (idx >= 0)
			EXPECT_EQ(names[i].lcase, dir.ents[idx].lcase);
	}
	fat_raw_free_dir(&dir);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

/*
 * A name whose first character is 0xE5 in the codepage, the byte that marks
 * a deleted entry, which FAT stores as 0x05.  cp437's 0xE5 is U+03C3, which
 * cp437 upper-cases to 0xE4, U+03A3: readdir would show that, so it is
 * refused and nothing is written.  cp850's 0xE5 is U+00D5, upper case:
 * accepted, stored as 0x05 and shown as typed after a cold mount; its lower
 * case U+00F5 (0xE4) is refused, shown as U+00D5.
 */
TEST_F(nlc, first_byte_e5_in_codepage)
{
	/* each name as UTF-8, and in the mount's 8-bit iocharset */
	static const struct {
		const char *utf8, *raw;
		int err;
		const char *sfn;
		unsigned char attr;
	} cp850[] = {
		/* refused first: once \u00d5 exists, the lookup finds it */
		{ "\u00f5.TXT", "\xf5.TXT", EINVAL, NULL, 0 },
		{ "\u00f5x", "\xf5x", EINVAL, NULL, 0 },
		{ "\u00d5.TXT", "\xd5.TXT", 0, "\x05       TXT", ATTR_ARCH },
		{ "\u00d5X", "\xd5X", 0, "\x05X         ", ATTR_DIR },
	};
	const char *sigma = variant->utf8 ? "\u03c3.txt" : "\xe5.txt";
	const char *sigma_dir = variant->utf8 ? "\u03c3" : "\xe5";
	struct fat_raw_dir dir;
	struct nlc_scan scan;
	const char *name;
	size_t i;
	int err, idx;

	if (nlc_skipped(_metadata, self))
		return;

	/* cp437: U+03C3 (0xE5) is shown upper case, so refused */
	err = nlc_try_mount(self, variant, variant->utf8 ? "nolongcreate" :
			    "nolongcreate,iocharset=cp437");
	ASSERT_EQ(0, err);
	EXPECT_EQ(EINVAL, nlc_creat(nlc_p(self, sigma)));
	err = mkdir(nlc_p(self, sigma_dir), 0755) ? errno : 0;
	EXPECT_EQ(EINVAL, err);
	nlc_umount(_metadata, self);
	nlc_raw_scan(_metadata, self, &scan);
	EXPECT_EQ(0U, scan.sfn);
	EXPECT_EQ(0U, scan.lfn);

	/* cp850: U+00D5 (0xE5) is upper case, stored as 0x05 */
	err = nlc_try_mount(self, variant, "nolongcreate,codepage=850");
	ASSERT_EQ(0, err) {
		TH_LOG("codepage=850: %s (CONFIG_NLS_CODEPAGE_850?)",
		       strerror(err));
	}
	for (i = 0; i < ARRAY_SIZE(cp850); i++) {
		name = variant->utf8 ? cp850[i].utf8 : cp850[i].raw;
		if (cp850[i].attr == ATTR_DIR)
			err = mkdir(nlc_p(self, name), 0755) ? errno : 0;
		else
			err = nlc_creat(nlc_p(self, name));
		EXPECT_EQ(cp850[i].err, err) {
			TH_LOG("\"%s\": %s", nlc_show(name), strerror(err));
		}
	}
	nlc_umount(_metadata, self);

	nlc_raw_root(_metadata, self, &dir);
	for (i = 0; i < ARRAY_SIZE(cp850); i++) {
		if (cp850[i].err)
			continue;
		idx = fat_raw_find(&dir, (const unsigned char *)cp850[i].sfn);
		ASSERT_LE(0, idx) {
			TH_LOG("no entry \"%s\" on disk", nlc_show(cp850[i].sfn));
		}
		EXPECT_EQ(0x05, dir.ents[idx].name[0]);
		EXPECT_EQ(cp850[i].attr, dir.ents[idx].attr);
		EXPECT_EQ(0, dir.ents[idx].lcase);
	}
	/* the two accepted names, nothing else */
	nlc_raw_scan(_metadata, self, &scan);
	EXPECT_EQ(2U, scan.sfn);
	EXPECT_EQ(0U, scan.lfn);
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);

	/* a cold mount finds them by the names typed, and shows them so */
	nlc_mount(_metadata, self, variant, "nolongcreate,codepage=850");
	for (i = 0; i < ARRAY_SIZE(cp850); i++) {
		struct stat st = { 0 };

		if (cp850[i].err)
			continue;
		name = variant->utf8 ? cp850[i].utf8 : cp850[i].raw;
		EXPECT_EQ(0, nlc_stat_err(nlc_p(self, name), &st)) {
			TH_LOG("\"%s\" not found", nlc_show(name));
		}
		EXPECT_EQ(cp850[i].attr == ATTR_DIR, S_ISDIR(st.st_mode));
		EXPECT_TRUE(nlc_dir_lists(self->mnt, name)) {
			TH_LOG("\"%s\" not shown as typed", nlc_show(name));
		}
	}
	nlc_umount(_metadata, self);
}

TEST_HARNESS_MAIN
