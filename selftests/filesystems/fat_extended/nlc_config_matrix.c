// SPDX-License-Identifier: GPL-2.0
/*
 * The option matrix: each name of nlc_cfg_rows created under nolongcreate
 * on each mount configuration (iocharset, utf8, shortname=, check=,
 * uni_xlate) is either refused, writing nothing, or found again by the very
 * name after a cold mount.  One FAT16 image per configuration.
 */
#include "nlc.h"

FIXTURE_VARIANT(nlc_cfg) {
	unsigned int idx;	/* column in nlc_cfg_rows[].want */
	bool utf8;		/* names are UTF-8, else iso8859-1 */
	const char *opts;
};

NLC_FIXTURE(nlc_cfg, &nlc_fat16)

#define NLC_CFG_N 11

/* The configuration @name, column @idx of nlc_cfg_rows[].want */
#define NLC_CFG(name, i, u, o)						\
	FIXTURE_VARIANT_ADD(nlc_cfg, name) {				\
		.idx = i, .utf8 = u, .opts = "codepage=437," o,		\
	}

#define NLC_L1 "iocharset=iso8859-1,utf8=0"
#define NLC_IO "iocharset=utf8,utf8=0"
#define NLC_U8 "iocharset=iso8859-1,utf8=1"

NLC_CFG(latin1, 0, false, NLC_L1);
NLC_CFG(latin1_lower_relaxed, 1, false, NLC_L1 ",shortname=lower,check=relaxed");
NLC_CFG(latin1_win95_nonumtail, 2, false, NLC_L1 ",shortname=win95,nonumtail");
NLC_CFG(latin1_winnt_strict, 3, false, NLC_L1 ",shortname=winnt,check=strict");
NLC_CFG(iocharset_utf8, 4, true, NLC_IO);
NLC_CFG(iocharset_utf8_win95, 5, true, NLC_IO ",shortname=win95");
NLC_CFG(iocharset_utf8_lower, 6, true, NLC_IO ",shortname=lower");
NLC_CFG(utf8_lower, 7, true, NLC_U8 ",shortname=lower");
NLC_CFG(utf8_winnt_strict, 8, true, NLC_U8 ",shortname=winnt,check=strict");
NLC_CFG(utf8_mixed_normal, 9, true, NLC_U8 ",shortname=mixed,check=normal");
/* uni_xlate turns utf8 off: names are iso8859-1 with :XXXX escapes */
NLC_CFG(utf8_uni_xlate, 10, false, NLC_U8 ",uni_xlate");

/*
 * A name (UTF-8) and what each configuration does with it, one character
 * per configuration in the order of the variants: 'a' accepted, 'r'
 * refused with ENAMETOOLONG (too long for 8.3), 'i' EINVAL (any other
 * refusal), '-' not tried (not iso8859-1 on an iso8859-1 mount).  Derived
 * by hand from the rule: the 8.3 entry (cp437, upper-cased, lcase flag
 * for a part all lower-case ASCII, none with a byte >= 0x7F) shown as
 * readdir shows it with this shortname= must be the name, byte for byte;
 * check= and the iocharset's case folding play no part.
 *
 * The columns:  latin1: mixed, lower, win95, strict (winnt);
 *               iocharset=utf8: mixed, win95, lower;
 *               utf8=1: lower, strict (winnt), mixed;  uni_xlate.
 */
static const struct {
	const char *name;
	const char *want;
} nlc_cfg_rows[] = {
	/* ASCII case classes: win95 shows upper, lower shows lower case */
	{ "readme.txt",		"aaiaaiaaaaa" },	/* lower.lower */
	{ "README.TXT",		"aiaaaaiiaaa" },	/* UPPER.UPPER */
	{ "readme.TXT",		"aiiaaiiiaaa" },	/* lower.UPPER */
	{ "README.txt",		"aiiaaiiiaaa" },	/* UPPER.lower */
	{ "ReadMe.txt",		"iiiiiiiiiii" },	/* Mixed.lower */
	{ "readme.Txt",		"iiiiiiiiiii" },	/* lower.Mixed */
	{ "123.456",		"aaaaaaaaaaa" },	/* caseless */
	/* iso8859-1 letters: cp437 upper-cases, no lcase flag for them */
	{ "\u00c9.TXT",		"aiaaaaiiaaa" },
	{ "\u00e9.txt",		"iaiiiiaaiii" },	/* shown by lower */
	{ "\u00c9\u00e9",	"iiiiiiiiiii" },
	{ "\u00df",		"aaaaaaaaaaa" },	/* caseless in cp437 */
	{ "\u00c4",		"aiaaaaiiaaa" },
	/* beyond iso8859-1 */
	{ "\u03a3.TXT",		"----aaiiaa-" },
	{ "\u03c3",		"----iiaaii-" },
	{ "\u4e2d\u6587",	"----iiiiii-" },	/* not in cp437 */
	{ "\U0001f600",		"----iiiiii-" },
	/* ':' escapes, a bad character without uni_xlate */
	{ ":0041.txt",		"iiiiiiiiiii" },	/* shown "A.txt" */
	{ ":03a3.txt",		"iiiiiiiiiia" },	/* shown as typed */
	{ ":00e9",		"iiiiiiiiiii" },	/* shown "\xc9" */
	/* never 8.3 (too long, a trailing dot), never vfat */
	{ "Long Name.txt",	"rrrrrrrrrrr" },
	{ "abc.",		"iiiiiiiiiii" },
	{ "a*b",		"iiiiiiiiiii" },
};

/* The errno a character of nlc_cfg_rows[].want stands for */
static int nlc_want_err(char want)
{
	return want == 'a' ? 0 : want == 'r' ? ENAMETOOLONG : EINVAL;
}

/* Row @r's name as given on the mount: UTF-8 or iso8859-1 */
static bool nlc_cfg_name(size_t r, bool utf8, char *out, size_t size)
{
	if (!utf8)
		return nlc_latin1(nlc_cfg_rows[r].name, out, size);
	snprintf(out, size, "%s", nlc_cfg_rows[r].name);
	return true;
}

/* Names of the entries of @dir but . and .., at most @max */
static unsigned int nlc_list(const char *dir, char names[][NAME_MAX + 1],
			     unsigned int max)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n < max)
			snprintf(names[n], NAME_MAX + 1, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Mount the configuration with nolongcreate, its data string in @data:
 * false if the test ends here, skipped (by setup, or no NLS) or failed
 */
static bool nlc_cfg_mount(struct __test_metadata *_metadata,
			  struct _test_data_nlc *n,
			  const FIXTURE_VARIANT(nlc_cfg) *variant,
			  char *data, size_t size)
{
	int err;

	if (nlc_skipped(_metadata, n))
		return false;
	snprintf(data, size, "%s,nolongcreate", variant->opts);
	err = nlc_mount_fs(n, "vfat", data);
	if (err == EINVAL)
		SKIP(return false, "mount -o %s: EINVAL (NLS not built?)", data);
	ASSERT_EQ(0, err) {
		TH_LOG("mount -o %s: %s", data, strerror(err));
	}
	return true;
}

TEST_F_TIMEOUT(nlc_cfg, created_name_is_found_after_cold_mount, 60)
{
	struct _test_data_nlc *n = &self->n;
	size_t r, nr = ARRAY_SIZE(nlc_cfg_rows);
	char data[512], rel[512], name[128], d83[12];
	char listed[2][NAME_MAX + 1];
	bool created[ARRAY_SIZE(nlc_cfg_rows)] = { false };
	bool tried[ARRAY_SIZE(nlc_cfg_rows)] = { false };
	struct stat before, st;
	struct fat_raw_dir dir;
	struct nlc_scan scan;
	unsigned int i, used, live, nlisted, accepted = 0, ascii_ok = 0;
	unsigned int ntried = 0, shown = 0;
	int err, want;
	char w;

	if (!nlc_cfg_mount(_metadata, n, variant, data, sizeof(data)))
		return;

	/* one directory per name: some are the same 8.3 name */
	for (r = 0; r < nr; r++) {
		ASSERT_EQ((size_t)NLC_CFG_N, strlen(nlc_cfg_rows[r].want));
		w = nlc_cfg_rows[r].want[variant->idx];
		if (w == '-')
			continue;
		ASSERT_TRUE(nlc_cfg_name(r, variant->utf8, name,
					 sizeof(name)));
		snprintf(rel, sizeof(rel), "%zu", r + 1);
		ASSERT_EQ(0, mkdir(nlc_p(n, rel), 0755));
		ASSERT_EQ(0, stat(nlc_p(n, rel), &before));
		snprintf(rel, sizeof(rel), "%zu/%s", r + 1, name);
		tried[r] = true;
		ntried++;
		err = nlc_creat(nlc_p(n, rel));
		want = nlc_want_err(w);
		EXPECT_EQ(want, err) {
			TH_LOG("-o %s: \"%s\": %s, expected %s", data,
			       nlc_show(name), strerror(err), strerror(want));
		}
		if (!err) {
			created[r] = true;
			accepted++;
			ascii_ok += r < 7;
			continue;
		}
		EXPECT_TRUE(err == ENAMETOOLONG || err == EINVAL) {
			TH_LOG("-o %s: \"%s\": %s", data, nlc_show(name),
			       strerror(err));
		}
		/* refused: the directory did not grow, the name is not there */
		ASSERT_EQ(0, stat(nlc_p(n, rel), &st) ? 0 : EEXIST) {
			TH_LOG("-o %s: \"%s\" refused but found", data,
			       nlc_show(name));
		}
		snprintf(rel, sizeof(rel), "%zu", r + 1);
		ASSERT_EQ(0, stat(nlc_p(n, rel), &st));
		EXPECT_EQ(before.st_size, st.st_size);
	}
	/* the configuration accepts names at all: caseless 8.3, and more */
	EXPECT_LE(2U, ascii_ok);

	nlc_cycle(_metadata, n);
	for (r = 0; r < nr; r++) {
		if (!tried[r])
			continue;
		nlc_cfg_name(r, variant->utf8, name, sizeof(name));
		snprintf(rel, sizeof(rel), "%zu", r + 1);
		nlisted = nlc_list(nlc_p(n, rel), listed, 2);
		if (!created[r]) {
			EXPECT_EQ(0U, nlisted) {
				TH_LOG("-o %s: \"%s\" refused, \"%s\" listed",
				       data, nlc_show(name),
				       nlc_show(listed[0]));
			}
			continue;
		}
		/* found by the name used, with no cached dentry */
		snprintf(rel, sizeof(rel), "%zu/%s", r + 1, name);
		err = nlc_stat_err(nlc_p(n, rel), &st);
		EXPECT_EQ(0, err) {
			TH_LOG("-o %s: \"%s\" accepted, not found after mount: %s",
			       data, nlc_show(name), strerror(err));
		}
		EXPECT_EQ(1U, nlisted) {
			TH_LOG("-o %s: \"%s\": %u names listed", data,
			       nlc_show(name), nlisted);
		}
		if (err || nlisted != 1)
			continue;
		/* readdir shows it exactly as typed */
		EXPECT_STREQ(name, listed[0]) {
			TH_LOG("-o %s: \"%s\" shown as \"%s\"", data,
			       nlc_show(name), nlc_show(listed[0]));
		}
		shown++;
	}
	/* every accepted name was inspected */
	EXPECT_EQ(accepted, shown);
	nlc_umount(_metadata, n);

	/* on disk: one 8.3 entry per accepted name, nothing else */
	for (r = 0; r < nr; r++) {
		if (!tried[r])
			continue;
		snprintf(d83, sizeof(d83), "%-11zu", r + 1);
		nlc_raw_dir(_metadata, n, d83, &dir);
		used = fat_raw_used_slots(&dir);
		live = 0;
		for (i = 0; i < used; i++) {
			EXPECT_TRUE(fat_raw_is_sfn(&dir.ents[i])) {
				TH_LOG("-o %s: \"%s\": slot %u is no 8.3 entry",
				       data, nlc_show(nlc_cfg_rows[r].name),
				       i);
			}
			if (fat_raw_is_sfn(&dir.ents[i]) &&
			    !fat_raw_is_dot(&dir.ents[i]))
				live++;
		}
		EXPECT_EQ(2U + created[r], used) {
			TH_LOG("-o %s: \"%s\": %u slots used", data,
			       nlc_show(nlc_cfg_rows[r].name), used);
		}
		EXPECT_EQ((unsigned int)created[r], live);
		fat_raw_free_dir(&dir);
	}
	nlc_raw_scan(_metadata, n, &scan);
	EXPECT_EQ(0U, scan.lfn);
	EXPECT_EQ(0U, scan.tilde) {
		TH_LOG("8.3 alias \"%s\" on disk", nlc_show(scan.tilde_name));
	}
	/* the directories and the accepted names */
	EXPECT_EQ(ntried + accepted, scan.sfn);
	nlc_fsck(_metadata, n);
}

/*
 * A lookup that found nothing does not decide the name a create gets: the
 * dentry compare ignores trailing dots, so "123" and "123." share one
 * cached negative dentry, yet the name given is the one judged and
 * written.  Digits: accepted under every shortname=.
 */
TEST_F(nlc_cfg, negative_dentry_does_not_change_the_name)
{
	struct _test_data_nlc *n = &self->n;
	char data[512];

	if (!nlc_cfg_mount(_metadata, n, variant, data, sizeof(data)))
		return;

	ASSERT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "123"), NULL));
	EXPECT_EQ(EINVAL, nlc_creat(nlc_p(n, "123.")));
	ASSERT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "456."), NULL));
	EXPECT_EQ(0, nlc_creat(nlc_p(n, "456")));
	ASSERT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "789"), NULL));
	EXPECT_EQ(EINVAL, mkdir(nlc_p(n, "789."), 0755) ? errno : 0);
	ASSERT_EQ(0, nlc_creat(nlc_p(n, "000")));
	ASSERT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "111"), NULL));
	EXPECT_EQ(EINVAL, rename(nlc_p(n, "000"), nlc_p(n, "111.")) ? errno : 0);

	nlc_umount(_metadata, n);
	ASSERT_EQ(0, nlc_mount_fs(n, "vfat", data));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(n, "456"), NULL));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(n, "000"), NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "123"), NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "789"), NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(n, "111"), NULL));
	nlc_umount(_metadata, n);
}

TEST_HARNESS_MAIN
