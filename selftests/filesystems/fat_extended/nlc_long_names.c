// SPDX-License-Identifier: GPL-2.0
/*
 * Long names already on the volume, made by a longcreate mount or mtools,
 * stay usable under nolongcreate: read, written, removed, renamed to 8.3
 * (their slots freed), exchanged and replaced (their slots kept as they
 * were); a rename to a new long name fails and changes nothing.
 */
#include "nlc.h"

#define NLC_REPORT "Long Report.txt"
#define NLC_ANOTHER "another long name.dat"
#define NLC_LDIR "Long Directory"
#define NLC_INNER "Long Directory/inner long file.txt"
#define NLC_EMPTY "Empty Long Dir"

/* Where a long name sits in a raw directory */
struct nlc_slots {
	int sfn;		/* index of its 8.3 entry, -1 if not found */
	unsigned int first;	/* index of its first LFN slot */
	unsigned int nr;	/* LFN slots */
	unsigned char raw[21][FAT_RAW_ENT_SIZE];	/* LFN slots + 8.3 */
};

static void nlc_find_long(const struct fat_raw_dir *dir, const char *name,
			  struct nlc_slots *s)
{
	unsigned int i, used = fat_raw_used_slots(dir);
	char buf[1024];
	int n;

	memset(s, 0, sizeof(*s));
	s->sfn = -1;
	for (i = 0; i < used; i++) {
		n = fat_raw_long_name(dir, i, buf, sizeof(buf), &s->first);
		if (n <= 0 || strcmp(buf, name))
			continue;
		s->sfn = i;
		s->nr = n;
		memcpy(s->raw, &dir->ents[s->first],
		       (n + 1) * FAT_RAW_ENT_SIZE);
		return;
	}
}

static unsigned int nlc_live_lfn(const struct fat_raw_dir *dir)
{
	unsigned int i, n = 0, used = fat_raw_used_slots(dir);

	for (i = 0; i < used; i++)
		if (fat_raw_is_lfn(&dir->ents[i]) &&
		    fat_raw_is_live(&dir->ents[i]))
			n++;
	return n;
}

/* The long name's slots are where they were, byte for byte */
static void nlc_expect_same_slots(struct __test_metadata *_metadata,
				  const struct fat_raw_dir *dir,
				  const struct nlc_slots *before,
				  const char *name)
{
	struct nlc_slots now;

	nlc_find_long(dir, name, &now);
	ASSERT_LE(0, before->sfn);
	EXPECT_EQ(before->sfn, now.sfn) {
		TH_LOG("\"%s\" moved or lost its long name", name);
	}
	if (now.sfn < 0)
		return;
	EXPECT_EQ(before->nr, now.nr);
	EXPECT_EQ(0, memcmp(before->raw, now.raw,
			    before->nr * FAT_RAW_ENT_SIZE));
	EXPECT_EQ(0, memcmp(before->raw[before->nr], now.raw[now.nr],
			    MSDOS_NAME));
}

/* Where the long names of nlc_populate_long() sit, and the live LFN slots */
struct nlc_long {
	struct nlc_slots report, another, ldir, empty;
	unsigned int lfn;
};

/* Make long names on a longcreate mount, unmount, find them on disk */
static void nlc_populate_long(struct __test_metadata *_metadata,
			      struct _test_data_nlc *self,
			      const struct _fixture_variant_nlc *variant,
			      struct nlc_long *before)
{
	struct fat_raw_dir dir;

	nlc_mount(_metadata, self, variant, "longcreate");
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, NLC_REPORT), "old report\n",
				    O_EXCL));
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, NLC_ANOTHER), "another\n",
				    O_EXCL));
	ASSERT_EQ(0, mkdir(nlc_p(self, NLC_LDIR), 0755));
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, NLC_INNER), "inner\n", O_EXCL));
	ASSERT_EQ(0, mkdir(nlc_p(self, NLC_EMPTY), 0755));
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, "SHORT.TXT"), "short\n",
				    O_EXCL));
	nlc_umount(_metadata, self);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_REPORT, &before->report);
	nlc_find_long(&dir, NLC_ANOTHER, &before->another);
	nlc_find_long(&dir, NLC_LDIR, &before->ldir);
	nlc_find_long(&dir, NLC_EMPTY, &before->empty);
	before->lfn = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);
	ASSERT_LE(0, before->report.sfn);
	ASSERT_LE(0, before->another.sfn);
	ASSERT_LE(0, before->ldir.sfn);
	ASSERT_LE(0, before->empty.sfn);
}

/* Are the slots of a long name all marked deleted? */
static void nlc_expect_freed(struct __test_metadata *_metadata,
			     const struct fat_raw_dir *dir,
			     const struct nlc_slots *s, const char *name)
{
	unsigned int i;

	ASSERT_LE(0, s->sfn);
	for (i = s->first; i <= (unsigned int)s->sfn; i++) {
		EXPECT_EQ(DELETED_FLAG, dir->ents[i].name[0]) {
			TH_LOG("slot %u of \"%s\" not freed", i, name);
		}
	}
}

TEST_F(nlc, existing_long_names_stay_usable)
{
	struct nlc_slots report;
	struct nlc_long before;
	struct fat_raw_dir dir;
	int fd;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant, &before);

	nlc_mount(_metadata, self, variant, "nolongcreate");
	EXPECT_TRUE(nlc_dir_lists(self->mnt, NLC_REPORT));
	EXPECT_TRUE(nlc_dir_lists(self->mnt, NLC_ANOTHER));
	EXPECT_TRUE(nlc_dir_lists(self->mnt, NLC_LDIR));
	EXPECT_TRUE(nlc_dir_lists(self->mnt, NLC_EMPTY));
	EXPECT_TRUE(nlc_dir_lists(nlc_p(self, NLC_LDIR), "inner long file.txt"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "old report\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_INNER), "inner\n"));
	/* found case-insensitively, as before */
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, "LONG REPORT.TXT"), NULL));
	/* written: append, and O_CREAT of the existing name */
	EXPECT_EQ(0, nlc_write_file(nlc_p(self, NLC_REPORT), "more\n",
				    O_APPEND));
	fd = open(nlc_p(self, NLC_INNER), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	EXPECT_LE(0, fd);
	if (fd >= 0) {
		EXPECT_EQ(4, write(fd, "new\n", 4));
		close(fd);
	}
	EXPECT_EQ(0, unlink(nlc_p(self, NLC_ANOTHER)) ? errno : 0);
	EXPECT_EQ(0, rmdir(nlc_p(self, NLC_EMPTY)) ? errno : 0);
	EXPECT_EQ(ENOTEMPTY, rmdir(nlc_p(self, NLC_LDIR)) ? errno : 0);

	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "old report\nmore\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_INNER), "new\n"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_ANOTHER), NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_EMPTY), NULL));
	EXPECT_EQ(0, unlink(nlc_p(self, NLC_INNER)) ? errno : 0);
	EXPECT_EQ(0, rmdir(nlc_p(self, NLC_LDIR)) ? errno : 0);
	nlc_umount(_metadata, self);

	/* the removed names' slots are free, nothing new was written */
	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_freed(_metadata, &dir, &before.another, NLC_ANOTHER);
	nlc_expect_freed(_metadata, &dir, &before.empty, NLC_EMPTY);
	nlc_find_long(&dir, NLC_REPORT, &report);
	EXPECT_LE(0, report.sfn);
	EXPECT_EQ(report.nr, nlc_live_lfn(&dir));
	EXPECT_GT(before.lfn, nlc_live_lfn(&dir));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

/* A live 8.3 entry with no long name before it */
static void nlc_expect_plain(struct __test_metadata *_metadata,
			     const struct fat_raw_dir *dir, const char *sfn,
			     unsigned char lcase)
{
	char buf[1024];
	unsigned int first;
	int idx = fat_raw_find(dir, (const unsigned char *)sfn);

	EXPECT_LE(0, idx) {
		TH_LOG("no \"%s\" on disk", sfn);
	}
	if (idx < 0)
		return;
	EXPECT_EQ(lcase, dir->ents[idx].lcase);
	EXPECT_EQ(0, fat_raw_long_name(dir, idx, buf, sizeof(buf), &first));
}

TEST_F(nlc, rename_long_name_to_8_3_frees_lfn_slots)
{
	struct nlc_long before;
	struct fat_raw_dir dir;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant, &before);

	/* a file */
	nlc_mount(_metadata, self, variant, "nolongcreate");
	EXPECT_EQ(0, rename(nlc_p(self, NLC_ANOTHER),
			    nlc_p(self, "short.dat")) ? errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "short.dat"), "another\n"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_ANOTHER), NULL));
	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "short.dat"), "another\n"));
	EXPECT_TRUE(nlc_dir_lists(self->mnt, "short.dat"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_ANOTHER), NULL));
	nlc_umount(_metadata, self);
	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_freed(_metadata, &dir, &before.another, NLC_ANOTHER);
	nlc_expect_plain(_metadata, &dir, "SHORT   DAT",
			 CASE_LOWER_BASE | CASE_LOWER_EXT);
	EXPECT_EQ(before.lfn - before.another.nr, nlc_live_lfn(&dir));
	fat_raw_free_dir(&dir);

	/* a directory, whose content keeps its long name */
	nlc_mount(_metadata, self, variant, "nolongcreate");
	EXPECT_EQ(EINVAL, rename(nlc_p(self, NLC_LDIR), nlc_p(self, "LDir")) ?
			  errno : 0);
	EXPECT_EQ(0, rename(nlc_p(self, NLC_LDIR), nlc_p(self, "LDIR")) ?
		     errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "LDIR/inner long file.txt"),
				"inner\n"));
	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "LDIR/inner long file.txt"),
				"inner\n"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_LDIR), NULL));
	nlc_umount(_metadata, self);
	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_freed(_metadata, &dir, &before.ldir, NLC_LDIR);
	nlc_expect_plain(_metadata, &dir, "LDIR       ", 0);
	EXPECT_EQ(before.lfn - before.another.nr - before.ldir.nr,
		  nlc_live_lfn(&dir));
	nlc_expect_same_slots(_metadata, &dir, &before.report, NLC_REPORT);
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

/*
 * On the unmounted image: the long names of @before kept where they were,
 * byte for byte (@ldir: Long Directory's too), no other live LFN slot, no
 * entry @gone83 (if given), and fsck finds nothing wrong
 */
static void nlc_expect_kept(struct __test_metadata *_metadata,
			    struct _test_data_nlc *self,
			    const struct nlc_long *before, bool ldir,
			    const char *gone83)
{
	struct fat_raw_dir dir;

	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_same_slots(_metadata, &dir, &before->report, NLC_REPORT);
	if (ldir)
		nlc_expect_same_slots(_metadata, &dir, &before->ldir, NLC_LDIR);
	EXPECT_EQ(before->lfn, nlc_live_lfn(&dir));
	if (gone83)
		EXPECT_GT(0, fat_raw_find(&dir, (const unsigned char *)gone83));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

TEST_F(nlc, rename_to_new_long_name_fails_and_keeps_both)
{
	static const char *const renames[][2] = {
		{ NLC_REPORT, "Renamed Report.txt" },
		{ "SHORT.TXT", "short long name.txt" },
		{ NLC_LDIR, "Other Long Directory" },
		{ NLC_INNER, "another inner file.txt" },
		{ NLC_REPORT, "Long Directory/moved.text" },
	};
	struct nlc_long before;
	size_t i;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant, &before);

	nlc_mount(_metadata, self, variant, "nolongcreate");
	for (i = 0; i < ARRAY_SIZE(renames); i++) {
		EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, renames[i][0]),
					       nlc_p(self, renames[i][1])) ?
					errno : 0) {
			TH_LOG("rename \"%s\" to \"%s\"", renames[i][0],
			       renames[i][1]);
		}
	}
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "old report\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "SHORT.TXT"), "short\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_INNER), "inner\n"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, "Renamed Report.txt"),
				       NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, "Other Long Directory"),
				       NULL));
	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "old report\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_INNER), "inner\n"));
	nlc_umount(_metadata, self);

	nlc_expect_kept(_metadata, self, &before, true, NULL);
}

TEST_F(nlc, rename_exchange_with_long_name_works)
{
	struct nlc_long before;
	int err;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant, &before);

	nlc_mount(_metadata, self, variant, "nolongcreate");
	err = nlc_rename_exchange(nlc_p(self, NLC_REPORT),
				  nlc_p(self, "SHORT.TXT"));
	EXPECT_EQ(0, err);
	/* a directory and a file, both with long names */
	EXPECT_EQ(0, nlc_rename_exchange(nlc_p(self, NLC_LDIR),
					 nlc_p(self, NLC_ANOTHER)));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "short\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "SHORT.TXT"), "old report\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_LDIR), "another\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self,
				      NLC_ANOTHER "/inner long file.txt"),
				"inner\n"));
	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT), "short\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "SHORT.TXT"), "old report\n"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self,
				      NLC_ANOTHER "/inner long file.txt"),
				"inner\n"));
	nlc_umount(_metadata, self);

	nlc_expect_kept(_metadata, self, &before, true, NULL);
}

/* An editor's save: write a temporary file, rename it onto the original */
TEST_F(nlc, atomic_save_onto_long_name_keeps_it)
{
	struct nlc_long before;
	struct stat st;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant, &before);

	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, nlc_write_file(nlc_p(self, "SAVE.TMP"),
				    "new report, longer\n", O_EXCL));
	EXPECT_EQ(0, rename(nlc_p(self, "SAVE.TMP"), nlc_p(self, NLC_REPORT)) ?
		     errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT),
				"new report, longer\n"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, "SAVE.TMP"), NULL));
	nlc_cycle(_metadata, self);
	EXPECT_TRUE(nlc_dir_lists(self->mnt, NLC_REPORT));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, NLC_REPORT),
				"new report, longer\n"));
	ASSERT_EQ(0, stat(nlc_p(self, NLC_REPORT), &st));
	EXPECT_EQ(19, st.st_size);
	nlc_umount(_metadata, self);

	nlc_expect_kept(_metadata, self, &before, false, "SAVE    TMP");
}

TEST_F(nlc, mtools_long_name_is_usable)
{
	char mcopy[PATH_MAX], src[256];
	char *argv[6];
	struct fat_raw_dir dir;
	int ret;

	if (nlc_skipped(_metadata, self))
		return;
	if (!nlc_find_tool("mcopy", mcopy, sizeof(mcopy)))
		SKIP(return, "mcopy not found (mtools)");
	snprintf(src, sizeof(src), "%s/mt.src", self->dir);
	ASSERT_EQ(0, nlc_write_file(src, "from mtools\n", O_EXCL));
	argv[0] = mcopy;
	argv[1] = "-i";
	argv[2] = self->img;
	argv[3] = src;
	argv[4] = "::Mtools Long Name.txt";
	argv[5] = NULL;
	ret = nlc_run(argv, self->log);
	ASSERT_EQ(0, ret) {
		TH_LOG("mcopy failed (%d):", ret);
		nlc_dump_log(_metadata, self->log);
	}
	/* the loop device may cache the old blocks */
	ASSERT_EQ(0, ioctl(self->loop_fd, BLKFLSBUF, 0));

	nlc_mount(_metadata, self, variant, "nolongcreate");
	EXPECT_TRUE(nlc_dir_lists(self->mnt, "Mtools Long Name.txt"));
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "Mtools Long Name.txt"),
				"from mtools\n"));
	EXPECT_EQ(0, nlc_write_file(nlc_p(self, "Mtools Long Name.txt"),
				    "more\n", O_APPEND));
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, "Mtools Long Name.txt"),
				       nlc_p(self, "Other Long Name.txt")) ?
				errno : 0);
	EXPECT_EQ(0, rename(nlc_p(self, "Mtools Long Name.txt"),
			    nlc_p(self, "mtools.txt")) ? errno : 0);
	EXPECT_TRUE(nlc_file_is(nlc_p(self, "mtools.txt"),
				"from mtools\nmore\n"));
	nlc_umount(_metadata, self);
	nlc_raw_root(_metadata, self, &dir);
	EXPECT_EQ(0U, nlc_live_lfn(&dir));
	EXPECT_LE(0, fat_raw_find(&dir, (const unsigned char *)"MTOOLS  TXT"));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

TEST_HARNESS_MAIN
