// SPDX-License-Identifier: GPL-2.0
/*
 * Refused names write nothing: not in the directory, not a cluster, not an
 * alias (the 2009 patch's ~1 names), on an empty or a full volume, and a
 * name of another case than an existing 8.3 name fails with EEXIST.
 */
#include "nlc.h"

TEST_F(nlc, refused_names_write_nothing)
{
	/* too long for 8.3, then refused for another reason */
	static const struct {
		const char *name;
		int err;
	} refused[] = {
		{ "a long file name.txt", ENAMETOOLONG },
		{ "Mixed Case Long Name", ENAMETOOLONG },
		{ "nine char", ENAMETOOLONG },
		{ ".hidden", EINVAL },
		{ "ReadMe.txt", EINVAL },
		{ "a+b.txt", EINVAL },
		{ "abc.", EINVAL },
	};
	unsigned long long bfree;
	struct fat_raw_dir dir;
	struct stat before, st;
	char rel[64];
	unsigned int i, per_cluster, len;
	size_t k;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, mkdir(nlc_p(self, "F"), 0755));
	ASSERT_EQ(0, nlc_creat(nlc_p(self, "F/SRC.TMP")));
	ASSERT_EQ(0, mkdir(nlc_p(self, "F/SUB"), 0755));
	/* fill the directory's first cluster exactly */
	ASSERT_EQ(0, stat(nlc_p(self, "F"), &before));
	per_cluster = before.st_size / FAT_RAW_ENT_SIZE;
	for (i = 4; i < per_cluster; i++) {
		snprintf(rel, sizeof(rel), "F/FILL%u", i);
		ASSERT_EQ(0, nlc_creat(nlc_p(self, rel)));
	}
	ASSERT_EQ(0, stat(nlc_p(self, "F"), &before));
	ASSERT_EQ(per_cluster * FAT_RAW_ENT_SIZE, before.st_size);
	sync();
	bfree = nlc_free_blocks(self->mnt);

	for (k = 0; k < ARRAY_SIZE(refused); k++) {
		int err = refused[k].err;

		snprintf(rel, sizeof(rel), "F/%s", refused[k].name);
		EXPECT_EQ(err, nlc_creat(nlc_p(self, rel))) {
			TH_LOG("creat \"%s\"", rel);
		}
		EXPECT_EQ(err, mkdir(nlc_p(self, rel), 0755) ? errno : 0) {
			TH_LOG("mkdir \"%s\"", rel);
		}
		EXPECT_EQ(err, rename(nlc_p(self, "F/SRC.TMP"),
				      nlc_p(self, rel)) ? errno : 0) {
			TH_LOG("rename to \"%s\"", rel);
		}
		EXPECT_EQ(err, rename(nlc_p(self, "F/SUB"),
				      nlc_p(self, rel)) ? errno : 0) {
			TH_LOG("rename of a directory to \"%s\"", rel);
		}
		ASSERT_EQ(0, stat(nlc_p(self, "F"), &st));
		EXPECT_EQ(before.st_size, st.st_size);
		/* mkdir gave back the cluster it took for the new directory */
		EXPECT_EQ(bfree, nlc_free_blocks(self->mnt));
	}
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, "F/SRC.TMP"), NULL));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, "F/SUB"), NULL));
	nlc_umount(_metadata, self);

	nlc_raw_dir(_metadata, self, "F          ", &dir);
	EXPECT_EQ(1U, dir.nr_clusters);
	EXPECT_EQ(per_cluster, fat_raw_used_slots(&dir));
	len = fat_raw_used_slots(&dir);
	for (i = 0; i < len; i++)
		EXPECT_TRUE(fat_raw_is_sfn(&dir.ents[i]));
	fat_raw_free_dir(&dir);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

/*
 * The 2009 CONFIG_VFAT_NO_CREATE_WITH_LONGNAMES patch stored these names
 * silently under numeric-tail aliases (AB~1.TXT, A_B~1.TXT, PROFIL~1).
 */
TEST_F(nlc, no_alias_for_names_the_2009_patch_mangled)
{
	static const char *const names[] = { "a b.txt", "a+b.txt", ".profile" };
	static const char *const aliases[] = {
		"AB~1.TXT", "A_B~1.TXT", "PROFIL~1", "ab~1.txt", "a_b~1.txt",
		"profil~1",
	};
	size_t i;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, mkdir(nlc_p(self, "SUB"), 0755));
	ASSERT_EQ(0, nlc_creat(nlc_p(self, "SRC.TMP")));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char rel[64];

		EXPECT_EQ(EINVAL, nlc_creat(nlc_p(self, names[i]))) {
			TH_LOG("creat \"%s\"", names[i]);
		}
		snprintf(rel, sizeof(rel), "SUB/%s", names[i]);
		EXPECT_EQ(EINVAL, mkdir(nlc_p(self, rel), 0755) ? errno : 0);
		EXPECT_EQ(EINVAL, rename(nlc_p(self, "SRC.TMP"),
					 nlc_p(self, names[i])) ? errno : 0);
		EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, names[i]), NULL));
	}
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		char rel[64];

		EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, aliases[i]), NULL));
		snprintf(rel, sizeof(rel), "SUB/%s", aliases[i]);
		EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, rel), NULL));
	}
	nlc_umount(_metadata, self);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

TEST_F(nlc, cross_directory_rename_to_long_name_fails)
{
	struct fat_raw_dir dir;
	struct stat before, st;
	int idx;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, mkdir(nlc_p(self, "A"), 0755));
	ASSERT_EQ(0, mkdir(nlc_p(self, "B"), 0755));
	ASSERT_EQ(0, mkdir(nlc_p(self, "A/SUBDIR"), 0755));
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, "A/X.TXT"), "x\n", O_EXCL));
	ASSERT_EQ(0, stat(nlc_p(self, "B"), &before));

	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, "A/X.TXT"),
				       nlc_p(self, "B/cross long name.txt")) ?
				errno : 0);
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, "A/SUBDIR"),
				       nlc_p(self, "B/long directory name")) ?
				errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "A/X.TXT"), "x\n"));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, "A/SUBDIR"), NULL));
	ASSERT_EQ(0, stat(nlc_p(self, "B"), &st));
	EXPECT_EQ(before.st_size, st.st_size);

	/* an 8.3 name is fine across directories */
	EXPECT_EQ(0, rename(nlc_p(self, "A/X.TXT"), nlc_p(self, "B/y.txt")) ?
		     errno : 0);
	EXPECT_EQ(0, rename(nlc_p(self, "A/SUBDIR"), nlc_p(self, "B/sub")) ?
		     errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "B/y.txt"), "x\n"));
	nlc_umount(_metadata, self);

	nlc_raw_dir(_metadata, self, "B          ", &dir);
	idx = fat_raw_find(&dir, (const unsigned char *)"Y       TXT");
	EXPECT_LE(0, idx);
	if (idx >= 0)
		EXPECT_EQ(CASE_LOWER_BASE | CASE_LOWER_EXT, dir.ents[idx].lcase);
	idx = fat_raw_find(&dir, (const unsigned char *)"SUB        ");
	EXPECT_LE(0, idx);
	if (idx >= 0)
		EXPECT_EQ(CASE_LOWER_BASE, dir.ents[idx].lcase);
	fat_raw_free_dir(&dir);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

/* In another case than an existing 8.3 name: EEXIST, even where the
 * case-insensitive lookup misses it (é vs É under utf8).
 */
TEST_F(nlc, create_in_other_case_of_existing_8_3_fails_eexist)
{
	static const char *const names[] = {
		"readme.txt", "ReadMe.Txt", "README.TXT.", "readme.txt...",
	};
	char e_upper[16], e_lower[16];
	size_t i;
	int err;

	if (nlc_skipped(_metadata, self))
		return;
	snprintf(e_upper, sizeof(e_upper), variant->utf8 ? "\u00c9.TXT" :
		 "\xc9.TXT");
	snprintf(e_lower, sizeof(e_lower), variant->utf8 ? "\u00e9.txt" :
		 "\xe9.txt");
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, nlc_creat(nlc_p(self, "README.TXT")));
	ASSERT_EQ(0, mkdir(nlc_p(self, "somedir"), 0755));
	ASSERT_EQ(0, nlc_creat(nlc_p(self, e_upper)));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(EEXIST, nlc_creat(nlc_p(self, names[i]))) {
			TH_LOG("creat \"%s\"", names[i]);
		}
		EXPECT_EQ(EEXIST, mkdir(nlc_p(self, names[i]), 0755) ?
				  errno : 0) {
			TH_LOG("mkdir \"%s\"", names[i]);
		}
	}
	EXPECT_EQ(EEXIST, nlc_creat(nlc_p(self, "SOMEDIR")));
	EXPECT_EQ(EEXIST, mkdir(nlc_p(self, "SomeDir"), 0755) ? errno : 0);
	EXPECT_EQ(EEXIST, nlc_creat(nlc_p(self, e_lower)));
	EXPECT_EQ(EEXIST, mkdir(nlc_p(self, e_lower), 0755) ? errno : 0);
	/* rename onto it: replaced if the lookup finds it, else EEXIST */
	ASSERT_EQ(0, nlc_creat(nlc_p(self, "SRC.TMP")));
	err = rename(nlc_p(self, "SRC.TMP"), nlc_p(self, e_lower)) ? errno : 0;
	EXPECT_EQ(variant->utf8 ? EEXIST : 0, err);
	nlc_cycle(_metadata, self);
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, e_upper), NULL));
	EXPECT_EQ(variant->utf8 ? 0 : ENOENT,
		  nlc_stat_err(nlc_p(self, "SRC.TMP"), NULL));
	nlc_umount(_metadata, self);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

/* check=strict: the lookup is case-sensitive, the 8.3 bytes still clash */
TEST_F(nlc, strict_check_same_8_3_fails_eexist)
{
	struct nlc_scan s;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate,check=strict");
	ASSERT_EQ(0, nlc_creat(nlc_p(self, "ABC.TXT")));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, "abc.txt"), NULL));
	EXPECT_EQ(EEXIST, nlc_creat(nlc_p(self, "abc.txt")));
	EXPECT_EQ(EEXIST, mkdir(nlc_p(self, "abc.txt"), 0755) ? errno : 0);
	ASSERT_EQ(0, mkdir(nlc_p(self, "dir"), 0755));
	EXPECT_EQ(EEXIST, nlc_creat(nlc_p(self, "DIR")));
	nlc_umount(_metadata, self);
	nlc_raw_scan(_metadata, self, &s);
	EXPECT_EQ(2U, s.sfn);
	EXPECT_EQ(0U, s.lfn);
	nlc_fsck(_metadata, self);
}

struct nlc_case {
	const char *name;
	int err;
	unsigned char lcase;
	const char *sfn;
	const char *utf8_name;	/* under utf8, if not @name */
};

#define NC_OK(n, l, s)		{ .name = n, .lcase = l, .sfn = s }
#define NC_ERR(n, e)		{ .name = n, .err = e }
/* iso8859-1 name @n, UTF-8 name @u */
#define NC_U(n, u, e, l, s)	{ .name = n, .utf8_name = u, .err = e,	\
				  .lcase = l, .sfn = s }

static const char *nlc_case_name(const struct nlc_case *c, bool utf8)
{
	return utf8 && c->utf8_name ? c->utf8_name : c->name;
}

static void nlc_case_rule(struct __test_metadata *_metadata,
			  struct _test_data_nlc *self,
			  const struct _fixture_variant_nlc *variant,
			  const char *opts, const char *d83,
			  const struct nlc_case *cases, size_t n)
{
	char dname[16], rel[64];
	struct fat_raw_dir dir;
	const char *name;
	bool made[16] = { false };
	size_t i;
	int idx, err;

	ASSERT_GE(ARRAY_SIZE(made), n);
	snprintf(dname, sizeof(dname), "%.8s", d83);
	dname[strcspn(dname, " ")] = '\0';
	nlc_mount(_metadata, self, variant, opts);
	ASSERT_EQ(0, mkdir(nlc_p(self, dname), 0755));
	for (i = 0; i < n; i++) {
		name = nlc_case_name(&cases[i], variant->utf8);
		snprintf(rel, sizeof(rel), "%s/%s", dname, name);
		err = nlc_creat(nlc_p(self, rel));
		EXPECT_EQ(cases[i].err, err) {
			TH_LOG("-o %s: \"%s\"", opts, nlc_show(name));
		}
		made[i] = !err;
	}
	/* found again by the name used, with no cached dentry */
	nlc_cycle(_metadata, self);
	for (i = 0; i < n; i++) {
		name = nlc_case_name(&cases[i], variant->utf8);
		snprintf(rel, sizeof(rel), "%s/%s", dname, name);
		/* whatever was made is found and shown as typed */
		if (made[i])
			nlc_expect_found_cold(_metadata, self, rel, opts);
		else
			EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, rel), NULL));
	}
	nlc_umount(_metadata, self);
	nlc_raw_dir(_metadata, self, d83, &dir);
	for (i = 0; i < n; i++) {
		if (cases[i].err)
			continue;
		idx = fat_raw_find(&dir, (const unsigned char *)cases[i].sfn);
		EXPECT_LE(0, idx) {
			TH_LOG("-o %s: \"%s\" not on disk", opts,
			       nlc_show(cases[i].name));
		}
		if (idx >= 0) {
			EXPECT_EQ(cases[i].lcase, dir.ents[idx].lcase) {
				TH_LOG("-o %s: \"%s\" lcase", opts,
				       nlc_show(cases[i].name));
			}
		}
	}
	fat_raw_free_dir(&dir);
}

/*
 * check=strict, every shortname=: each part must be shown as typed by the
 * display rule (check= changes nothing, the nlc_cfg matrix has the others)
 */
TEST_F(nlc, strict_check_refuses_case_not_shown)
{
	static const struct nlc_case mixed[] = {
		NC_OK("file.txt", 0x18, "FILE    TXT"),
		NC_OK("FILE2.TXT", 0, "FILE2   TXT"),
		NC_OK("file3.TXT", 0x08, "FILE3   TXT"),
		NC_OK("123.456", 0, "123     456"),
		NC_ERR("File4.txt", EINVAL),
		NC_ERR("file5.Txt", EINVAL),
		/* cp437 0x90 shown as typed; lower-case: no flag, refused */
		NC_U("\xc9.TXT", "\u00c9.TXT", 0, 0, "\x90       TXT"),
		NC_U("\3512.TXT", "\u00e92.TXT", EINVAL, 0, NULL),
		NC_U("\xc9\xe9.TXT", "\u00c9\u00e9.TXT", EINVAL, 0, NULL),
	};
	static const struct nlc_case lower[] = {
		NC_OK("file.txt", 0x18, "FILE    TXT"),
		NC_OK("123.456", 0, "123     456"),
		NC_ERR("FILE2.TXT", EINVAL),
		NC_ERR("file3.TXT", EINVAL),
	};
	static const struct nlc_case win95[] = {
		NC_OK("FILE.TXT", 0, "FILE    TXT"),
		NC_OK("123.456", 0, "123     456"),
		NC_ERR("file2.txt", EINVAL),
		NC_ERR("FILE3.txt", EINVAL),
	};

	if (nlc_skipped(_metadata, self))
		return;
	nlc_case_rule(_metadata, self, variant,
		      "nolongcreate,check=strict,shortname=mixed",
		      "1          ", mixed, ARRAY_SIZE(mixed));
	nlc_case_rule(_metadata, self, variant,
		      "nolongcreate,check=strict,shortname=winnt",
		      "2          ", mixed, ARRAY_SIZE(mixed));
	nlc_case_rule(_metadata, self, variant,
		      "nolongcreate,check=strict,shortname=lower",
		      "3          ", lower, ARRAY_SIZE(lower));
	nlc_case_rule(_metadata, self, variant,
		      "nolongcreate,check=strict,shortname=win95",
		      "4          ", win95, ARRAY_SIZE(win95));
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

/* ---------------------------------------------------------------------- */
/* a refused mkdir writes nothing, even where it would need a cluster */

FIXTURE_VARIANT(nlc_img) {
	FIXTURE_VARIANT(nlc) base;
};

NLC_FIXTURE(nlc_img, &variant->base)

FIXTURE_VARIANT_ADD(nlc_img, fat12) {
	.base = { .fat_bits = 12, .mib = 4, .spc = "4", .opts = NLC_CP437 },
};

FIXTURE_VARIANT_ADD(nlc_img, fat32) {
	.base = { .fat_bits = 32, .mib = 40, .spc = "1", .opts = NLC_CP437 },
};

static const struct {
	const char *name;
	int err;
} nlc_refused_dirs[] = {
	{ "Long Directory", ENAMETOOLONG }, { "a b", EINVAL }, { "dir.a.b", EINVAL },
	{ "Dir", EINVAL },
};

/*
 * Write @byte to @path until the volume is full; 0 or errno.  A write that
 * fails part of the way gives its clusters back: go on with smaller ones.
 */
static int nlc_fill(const char *path, unsigned char byte)
{
	static char buf[65536];
	size_t chunk = sizeof(buf);
	ssize_t len;
	int fd, err = 0;

	memset(buf, byte, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	for (;;) {
		len = write(fd, buf, chunk);
		if (len < 0 && errno != ENOSPC) {
			err = errno;
			break;
		}
		if (len == (ssize_t)chunk)
			continue;
		if (chunk == 512)
			break;
		chunk /= 2;
	}
	if (close(fd) && !err)
		err = errno;
	return err;
}

/* The whole image file in memory; NULL on error */
static unsigned char *nlc_read_img(struct _test_data_nlc *self, size_t *size)
{
	unsigned char *buf;
	struct stat st;
	ssize_t len;
	int fd = open(self->img, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = fstat(fd, &st) ? NULL : malloc(st.st_size);
	if (!buf) {
		close(fd);
		return NULL;
	}
	len = pread(fd, buf, st.st_size, 0);
	close(fd);
	if (len != st.st_size) {
		free(buf);
		return NULL;
	}
	*size = st.st_size;
	return buf;
}

/* Where in the image is offset @off? */
static const char *nlc_region(const struct fat_raw *fr, size_t off)
{
	if (off < fr->fat_offset)
		return fr->fat_bits == 32 && off / fr->sector_size == 1 ?
		       "FSINFO" : "reserved sectors";
	if (off < fr->root_offset)
		return "FAT";
	if (off < fr->data_offset)
		return "root directory";
	return "data area";
}

/* The image is byte for byte @old; log where it is not */
static bool nlc_expect_same_img(struct __test_metadata *_metadata,
				struct _test_data_nlc *self,
				const unsigned char *old, size_t size,
				const char *what)
{
	unsigned char *now;
	struct fat_raw fr;
	size_t now_size = 0, i, diff = 0, first = 0;

	now = nlc_read_img(self, &now_size);
	ASSERT_NE(NULL, now);
	ASSERT_EQ(size, now_size);
	for (i = 0; i < size; i++) {
		if (old[i] == now[i])
			continue;
		if (!diff++)
			first = i;
	}
	free(now);
	if (!diff)
		return true;
	nlc_raw_open(_metadata, self, &fr);
	fat_raw_close(&fr);
	EXPECT_EQ((size_t)0, diff) {
		TH_LOG("%s: %zu bytes changed, the first at %zu (%s, cluster %lld)",
		       what, diff, first, nlc_region(&fr, first),
		       first >= fr.data_offset ?
		       (long long)((first - fr.data_offset) /
				   fr.cluster_size + 2) : -1LL);
	}
	return false;
}

TEST_F_TIMEOUT(nlc_img, refused_mkdir_writes_nothing, 90)
{
	struct _test_data_nlc *n = &self->n;
	unsigned char *img;
	size_t size = 0, i;
	int err;

	if (nlc_skipped(_metadata, n))
		return;
	/* every free cluster holds 0xA5 */
	nlc_mount(_metadata, n, &variant->base, NULL);
	ASSERT_EQ(0, nlc_fill(nlc_p(n, "FILL.BIN"), 0xA5));
	ASSERT_EQ(0ULL, nlc_free_blocks(n->mnt));
	ASSERT_EQ(0, unlink(nlc_p(n, "FILL.BIN")));
	ASSERT_EQ(0, mkdir(nlc_p(n, "SUB"), 0755));
	nlc_umount(_metadata, n);
	img = nlc_read_img(n, &size);
	ASSERT_NE(NULL, img);

	/* a mount and umount alone changes nothing */
	nlc_mount(_metadata, n, &variant->base, "nolongcreate");
	nlc_umount(_metadata, n);
	ASSERT_TRUE(nlc_expect_same_img(_metadata, n, img, size,
					"mount, umount")) {
		TH_LOG("the image changes without a mkdir: not comparable");
	}

	nlc_mount(_metadata, n, &variant->base, "nolongcreate");
	for (i = 0; i < ARRAY_SIZE(nlc_refused_dirs); i++) {
		char rel[64];

		err = mkdir(nlc_p(n, nlc_refused_dirs[i].name), 0755) ? errno : 0;
		EXPECT_EQ(nlc_refused_dirs[i].err, err) {
			TH_LOG("mkdir \"%s\": %s", nlc_refused_dirs[i].name,
			       strerror(err));
		}
		snprintf(rel, sizeof(rel), "SUB/%s", nlc_refused_dirs[i].name);
		err = mkdir(nlc_p(n, rel), 0755) ? errno : 0;
		EXPECT_EQ(nlc_refused_dirs[i].err, err) {
			TH_LOG("mkdir \"%s\": %s", rel, strerror(err));
		}
	}
	nlc_umount(_metadata, n);
	nlc_expect_same_img(_metadata, n, img, size, "refused mkdir");
	free(img);
	nlc_fsck(_metadata, n);
}

TEST_F_TIMEOUT(nlc_img, refused_mkdir_on_full_volume_gives_name_error, 90)
{
	struct _test_data_nlc *n = &self->n;
	size_t i;
	int err;

	if (nlc_skipped(_metadata, n))
		return;
	nlc_mount(_metadata, n, &variant->base, "nolongcreate");
	ASSERT_EQ(0, mkdir(nlc_p(n, "SUB"), 0755));
	ASSERT_EQ(0, nlc_fill(nlc_p(n, "FILL.BIN"), 0x5A));
	ASSERT_EQ(0ULL, nlc_free_blocks(n->mnt));
	/* the volume is really full: an 8.3 directory gets no cluster */
	err = mkdir(nlc_p(n, "SHORT"), 0755) ? errno : 0;
	ASSERT_EQ(ENOSPC, err) {
		TH_LOG("mkdir \"SHORT\" on a full volume: %s", strerror(err));
	}
	err = mkdir(nlc_p(n, "SUB/SHORT"), 0755) ? errno : 0;
	ASSERT_EQ(ENOSPC, err) {
		TH_LOG("mkdir \"SUB/SHORT\" on a full volume: %s",
		       strerror(err));
	}
	for (i = 0; i < ARRAY_SIZE(nlc_refused_dirs); i++) {
		char rel[64];

		err = mkdir(nlc_p(n, nlc_refused_dirs[i].name), 0755) ? errno : 0;
		EXPECT_EQ(nlc_refused_dirs[i].err, err) {
			TH_LOG("mkdir \"%s\" on a full volume: %s",
			       nlc_refused_dirs[i].name, strerror(err));
		}
		snprintf(rel, sizeof(rel), "SUB/%s", nlc_refused_dirs[i].name);
		err = mkdir(nlc_p(n, rel), 0755) ? errno : 0;
		EXPECT_EQ(nlc_refused_dirs[i].err, err) {
			TH_LOG("mkdir \"%s\" on a full volume: %s", rel,
			       strerror(err));
		}
	}
	nlc_umount(_metadata, n);
	nlc_expect_no_long(_metadata, n);
	nlc_fsck(_metadata, n);
}

TEST_HARNESS_MAIN
