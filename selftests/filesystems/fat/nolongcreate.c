// SPDX-License-Identifier: GPL-2.0
/*
 * The vfat "nolongcreate" mount option: while it is active, create, mkdir
 * and rename to a new name write one 8.3 entry, and only if readdir shows
 * that entry exactly as the name was typed.  Any other name is refused,
 * with ENAMETOOLONG if it does not fit 8.3 by length and EINVAL otherwise,
 * and nothing is written.  Long names already on the volume stay usable.
 *
 * Each test gets a blank FAT12 image of its own, written by the test, on
 * a loop device, in a private mount namespace with a tmpfs on /tmp.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/loop.h>

#include "../wrappers.h"

#include "../../kselftest_harness.h"

#define SECTOR		512
#define IMAGE_SIZE	(2880 * SECTOR)		/* a 1.44 MB floppy */
#define ROOT_DIR	((1 + 2 * 9) * SECTOR)	/* after boot sector, FATs */
#define ROOT_ENTRIES	224

#define IMAGE		"/tmp/fat.img"
#define MNT		"/tmp/mnt"

/* A blank FAT12 floppy image: boot sector, two FATs, an empty root dir */
static int write_fat12(int fd)
{
	unsigned char sector[SECTOR] = {
		0xeb, 0x3c, 0x90, 'M', 'S', 'W', 'I', 'N', '4', '.', '1',
		[11] = 0x00, 0x02,	/* bytes per sector: 512 */
		[13] = 1,		/* sectors per cluster */
		[14] = 1, 0,		/* reserved sectors */
		[16] = 2,		/* FATs */
		[17] = ROOT_ENTRIES, 0,	/* root directory entries */
		[19] = 0x40, 0x0b,	/* total sectors: 2880 */
		[21] = 0xf0,		/* media descriptor */
		[22] = 9, 0,		/* sectors per FAT */
		[24] = 18, 0,		/* sectors per track */
		[26] = 2, 0,		/* heads */
		[38] = 0x29,		/* extended boot signature */
		[39] = 0x12, 0x34, 0x56, 0x78,
		[43] = 'N', 'O', ' ', 'N', 'A', 'M', 'E', ' ', ' ', ' ', ' ',
		[54] = 'F', 'A', 'T', '1', '2', ' ', ' ', ' ',
		[510] = 0x55, 0xaa,
	};
	unsigned char fat[SECTOR] = { 0xf0, 0xff, 0xff };

	if (ftruncate(fd, IMAGE_SIZE) ||
	    pwrite(fd, sector, SECTOR, 0) != SECTOR ||
	    pwrite(fd, fat, SECTOR, 1 * SECTOR) != SECTOR ||
	    pwrite(fd, fat, SECTOR, 10 * SECTOR) != SECTOR)
		return -1;
	return 0;
}

/* Attach @img to a free loop device, named in @dev: its open fd, or -1 */
static int loop_attach(int img, char *dev, size_t size)
{
	struct loop_config config = {
		.fd = img,
		.info.lo_flags = LO_FLAGS_AUTOCLEAR,
	};
	int ctl, fd = -1, n, i;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	/* a free device may be taken by someone else first: try again */
	for (i = 0; i < 64 && fd < 0; i++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(dev, size, "/dev/loop%d", n);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		if (ioctl(fd, LOOP_CONFIGURE, &config)) {
			close(fd);
			fd = -1;
			if (errno != EBUSY)
				break;
		}
	}
	close(ctl);
	return fd;
}

struct vol {
	char dev[32];	/* the loop device */
	int loop_fd;	/* kept open: autoclear detaches it at exit */
};

static int vol_mount(struct vol *vol, const char *type, const char *opts)
{
	return mount(vol->dev, MNT, type, 0, opts) ? errno : 0;
}

static int vol_remount(unsigned long flags, const char *opts)
{
	return mount(NULL, MNT, NULL, MS_REMOUNT | flags, opts) ? errno : 0;
}

static int vol_umount(void)
{
	return umount(MNT) ? errno : 0;
}

/*
 * A fresh image on a loop device, and the kernel's answer to mounting it
 * with nolongcreate; leaves it unmounted.  The reason to skip, or NULL.
 */
static const char *vol_setup(struct __test_metadata *_metadata,
			     struct vol *vol)
{
	int img, err;

	if (geteuid())
		return "test requires root";
	if (access("/dev/loop-control", R_OK | W_OK))
		return "test requires loop devices";

	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, "mode=700"));
	ASSERT_EQ(0, mkdir(MNT, 0755));
	img = open(IMAGE, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	ASSERT_LE(0, img);
	ASSERT_EQ(0, write_fat12(img));
	vol->loop_fd = loop_attach(img, vol->dev, sizeof(vol->dev));
	close(img);
	if (vol->loop_fd < 0)
		return "test requires loop devices";

	err = vol_mount(vol, "vfat", "nolongcreate");
	if (err == ENODEV)
		return "kernel without vfat";
	if (err == EINVAL && !vol_mount(vol, "vfat", NULL)) {
		vol_umount();
		return "kernel without the vfat nolongcreate option";
	}
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, vol_umount());
	return NULL;
}

static void vol_teardown(struct vol *vol)
{
	umount2(MNT, MNT_DETACH);
	close(vol->loop_fd);
	umount2("/tmp", MNT_DETACH);
}

/* The path of @name on the mount, in @path of PATH_MAX bytes */
static const char *at(char *path, const char *name)
{
	snprintf(path, PATH_MAX, MNT "/%s", name);
	return path;
}

/* Create a file holding @data: 0 or the errno */
static int create_file(const char *name, const char *data)
{
	ssize_t len = strlen(data);
	char path[PATH_MAX];
	int fd, err = 0;

	fd = open(at(path, name), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, data, len) != len)
		err = errno ?: EIO;
	close(fd);
	return err;
}

static int make_dir(const char *name)
{
	char path[PATH_MAX];

	return mkdir(at(path, name), 0755) ? errno : 0;
}

static int rename_to(const char *from, const char *to)
{
	char old[PATH_MAX], new[PATH_MAX];

	return rename(at(old, from), at(new, to)) ? errno : 0;
}

static int exchange(const char *a, const char *b)
{
	char path_a[PATH_MAX], path_b[PATH_MAX];

	return renameat2(AT_FDCWD, at(path_a, a), AT_FDCWD, at(path_b, b),
			 RENAME_EXCHANGE) ? errno : 0;
}

static int stat_name(const char *name, struct stat *st)
{
	char path[PATH_MAX];

	return stat(at(path, name), st) ? errno : 0;
}

/* The contents of a file, NUL-terminated, in @buf: 0 or the errno */
static int read_file(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	fd = open(at(path, name), O_RDONLY);
	if (fd < 0)
		return errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	return 0;
}

/* Fill the volume with a file, a cluster a write: 0 or the errno */
static int fill_volume(void)
{
	char buf[SECTOR] = { 0 }, path[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	fd = open(at(path, "FILL.BIN"), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return errno;
	do
		n = write(fd, buf, sizeof(buf));
	while (n > 0);
	if (n < 0 && errno != ENOSPC)
		err = errno;
	close(fd);
	return err;
}

/*
 * The names readdir shows in the root directory, "." and ".." left out,
 * in its order, each followed by "/", in @buf: how many, or -1.
 */
static int list_root(char *buf, size_t size)
{
	struct dirent *d;
	size_t len = 0;
	int n = 0;
	DIR *dir;

	dir = opendir(MNT);
	if (!dir)
		return -1;
	buf[0] = '\0';
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		len += snprintf(buf + len, size - len, "%s/", d->d_name);
		if (len >= size) {
			n = -1;
			break;
		}
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * Is @opt among the mount's type and super options? 1 or 0, -1 if the
 * mount is not found.
 */
static int mount_has_opt(const char *opt)
{
	char line[1024], mp[256], type[32], opts[512], key[64], *sep;
	int found = -1;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return -1;
	snprintf(key, sizeof(key), ",%s,", opt);
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mp) != 1 ||
		    strcmp(mp, MNT) ||
		    sscanf(sep, " - %31s %*s %511s", type, opts) != 2)
			continue;
		snprintf(line, sizeof(line), ",%s,%s,", type, opts);
		found = !!strstr(line, key);
	}
	fclose(f);
	return found;
}

/* The whole image, as the loop device left it: 0 or -1 */
static int read_image(unsigned char *buf)
{
	ssize_t n;
	int fd;

	fd = open(IMAGE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, IMAGE_SIZE, 0);
	close(fd);
	return n == IMAGE_SIZE ? 0 : -1;
}

/*
 * The entries in use in the image's root directory: 8.3 entries in
 * @used, long name slots in @lfn, and the first 8.3 entry's 11 bytes,
 * NUL-terminated, in @first (12 bytes).  0 or -1.
 */
static int root_entries(int *used, int *lfn, char *first)
{
	unsigned char *image, *de;
	int i;

	image = malloc(IMAGE_SIZE);
	if (!image || read_image(image)) {
		free(image);
		return -1;
	}
	*used = *lfn = 0;
	first[0] = '\0';
	for (i = 0; i < ROOT_ENTRIES; i++) {
		de = image + ROOT_DIR + 32 * i;
		if (de[0] == 0x00)
			break;
		if (de[0] == 0xe5)	/* deleted */
			continue;
		if (de[11] == 0x0f) {	/* long name slot */
			(*lfn)++;
		} else if (!(*used)++) {
			memcpy(first, de, 11);
			first[11] = '\0';
		}
	}
	free(image);
	return 0;
}

/*
 * fspick() the mount, set @key as a flag, reconfigure: 0 or the errno of
 * the first call that failed
 */
static int fspick_flag(const char *key)
{
	int fd, err = 0;

	fd = sys_fspick(AT_FDCWD, MNT, FSPICK_CLOEXEC);
	if (fd < 0)
		return errno;
	if (sys_fsconfig(fd, FSCONFIG_SET_FLAG, key, NULL, 0) ||
	    sys_fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		err = errno;
	close(fd);
	return err;
}

FIXTURE(nolongcreate) {
	struct vol vol;
};

FIXTURE_SETUP(nolongcreate)
{
	const char *skip = vol_setup(_metadata, &self->vol);

	if (skip)
		SKIP(return, "%s", skip);
}

FIXTURE_TEARDOWN(nolongcreate)
{
	vol_teardown(&self->vol);
}

TEST_F(nolongcreate, shown_in_mountinfo)
{
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("vfat"));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", NULL));
	ASSERT_EQ(1, mount_has_opt("vfat"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	EXPECT_EQ(0, mount_has_opt("longcreate"));
}

TEST_F(nolongcreate, value_refused_at_mount)
{
	EXPECT_EQ(EINVAL, vol_mount(&self->vol, "vfat", "nolongcreate=1"));
	EXPECT_EQ(EINVAL, vol_mount(&self->vol, "vfat", "longcreate=yes"));
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
}

TEST_F(nolongcreate, msdos_refuses_it_at_mount)
{
	int err = vol_mount(&self->vol, "msdos", NULL);

	if (err == ENODEV)
		SKIP(return, "kernel without msdos");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, vol_umount());
	EXPECT_EQ(EINVAL, vol_mount(&self->vol, "msdos", "nolongcreate"));
	EXPECT_EQ(EINVAL, vol_mount(&self->vol, "msdos", "longcreate"));
}

TEST_F(nolongcreate, msdos_ignores_it_at_remount)
{
	int err = vol_mount(&self->vol, "msdos", NULL);

	if (err == ENODEV)
		SKIP(return, "kernel without msdos");
	ASSERT_EQ(0, err);
	ASSERT_EQ(1, mount_has_opt("msdos"));
	EXPECT_EQ(0, vol_remount(0, "nolongcreate"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	/* msdos makes an 8.3 name of it, as it always did */
	EXPECT_EQ(0, create_file("longername.txt", ""));
	EXPECT_EQ(0, vol_remount(0, "longcreate"));
}

TEST_F(nolongcreate, remount_toggles)
{
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create_file("Long Name One.txt", ""));

	ASSERT_EQ(0, vol_remount(0, "longcreate"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	EXPECT_EQ(0, create_file("Long Name One.txt", ""));

	ASSERT_EQ(0, vol_remount(0, "nolongcreate"));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create_file("Long Name Two.txt", ""));

	/* the last one given wins */
	ASSERT_EQ(0, vol_remount(0, "nolongcreate,longcreate"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	EXPECT_EQ(0, create_file("Long Name Two.txt", ""));
}

TEST_F(nolongcreate, fspick_reconfigure_toggles)
{
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("nolongcreate"));

	ASSERT_EQ(0, fspick_flag("longcreate"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	EXPECT_EQ(0, create_file("Long Name One.txt", ""));

	ASSERT_EQ(0, fspick_flag("nolongcreate"));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create_file("Long Name Two.txt", ""));
}

TEST_F(nolongcreate, remount_without_it_keeps_it)
{
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("nolongcreate"));

	ASSERT_EQ(0, vol_remount(MS_RDONLY, NULL));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	ASSERT_EQ(0, vol_remount(0, "shortname=mixed"));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create_file("Long Name.txt", ""));
}

/*
 * On a case-sensitive mount vfat keeps negative dentries, and its dentry
 * compare ignores trailing dots: a name looked up before must not change
 * the name a create is judged and written with
 */
TEST_F(nolongcreate, lookup_before_create_keeps_the_name)
{
	struct stat st;

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate,check=strict"));
	ASSERT_EQ(ENOENT, stat_name("123", &st));
	EXPECT_EQ(EINVAL, create_file("123.", ""));
	ASSERT_EQ(ENOENT, stat_name("456.", &st));
	EXPECT_EQ(0, create_file("456", ""));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate,check=strict"));
	EXPECT_EQ(0, stat_name("456", &st));
	EXPECT_EQ(ENOENT, stat_name("123", &st));
}

/* a value given to either option fails the remount, as it fails a mount */
TEST_F(nolongcreate, remount_refuses_a_value)
{
	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("nolongcreate"));

	EXPECT_EQ(EINVAL, vol_remount(0, "longcreate=1"));
	EXPECT_EQ(1, mount_has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create_file("Long Name.txt", ""));

	ASSERT_EQ(0, vol_remount(0, "longcreate"));
	EXPECT_EQ(EINVAL, vol_remount(0, "nolongcreate=1"));
	EXPECT_EQ(0, mount_has_opt("nolongcreate"));
	EXPECT_EQ(0, create_file("Long Name.txt", ""));
}

TEST_F(nolongcreate, existing_long_name_usable)
{
	char buf[64];

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", NULL));
	ASSERT_EQ(0, create_file("Long Report.txt", "old"));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	EXPECT_STREQ("Long Report.txt/", buf);
	EXPECT_EQ(0, read_file("Long Report.txt", buf, sizeof(buf)));
	EXPECT_STREQ("old", buf);
}

TEST_F(nolongcreate, rename_onto_existing_long_name)
{
	char buf[64];

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", NULL));
	ASSERT_EQ(0, create_file("Long Report.txt", "old"));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(0, create_file("REPORT.TXT", "new"));
	EXPECT_EQ(0, rename_to("REPORT.TXT", "Long Report.txt"));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	EXPECT_STREQ("Long Report.txt/", buf);
	EXPECT_EQ(0, read_file("Long Report.txt", buf, sizeof(buf)));
	EXPECT_STREQ("new", buf);
}

/*
 * "Long Report.txt" holding @data, made on a mount without the option;
 * its 8.3 alias, "LONGRE~1.TXT", found on disk and by a lookup.  Leaves
 * the volume mounted with nolongcreate, its dentry cache cold.
 */
static void make_long_report(struct __test_metadata *_metadata,
			     struct vol *vol, const char *data)
{
	struct stat st_long, st_alias;
	char first[12];
	int used, lfn;

	ASSERT_EQ(0, vol_mount(vol, "vfat", NULL));
	ASSERT_EQ(0, create_file("Long Report.txt", data));
	ASSERT_EQ(0, stat_name("Long Report.txt", &st_long));
	ASSERT_EQ(0, stat_name("LONGRE~1.TXT", &st_alias));
	ASSERT_EQ(st_long.st_ino, st_alias.st_ino);
	ASSERT_EQ(0, vol_umount());
	ASSERT_EQ(0, root_entries(&used, &lfn, first));
	ASSERT_EQ(1, used);
	ASSERT_EQ(2, lfn);
	ASSERT_STREQ("LONGRE~1TXT", first);

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, mount_has_opt("nolongcreate"));
}

/*
 * The volume holds "Long Report.txt" and nothing else: one 8.3 entry,
 * its alias, with its two long name slots; after mounting again readdir
 * shows the long name, whose file holds @data.  Leaves it mounted.
 */
static void check_long_report(struct __test_metadata *_metadata,
			      struct vol *vol, const char *data)
{
	char buf[64];
	int used, lfn;

	ASSERT_EQ(0, root_entries(&used, &lfn, buf));
	ASSERT_EQ(1, used);
	EXPECT_EQ(2, lfn);
	EXPECT_STREQ("LONGRE~1TXT", buf);

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	EXPECT_STREQ("Long Report.txt/", buf);
	ASSERT_EQ(0, read_file("Long Report.txt", buf, sizeof(buf)));
	EXPECT_STREQ(data, buf);
}

/* open(O_CREAT) of the 8.3 alias opens the long-named file: no new entry */
TEST_F(nolongcreate, creat_of_alias_opens_existing)
{
	struct stat st_long, st_fd;
	char path[PATH_MAX];
	int fd;

	make_long_report(_metadata, &self->vol, "old");
	ASSERT_EQ(0, stat_name("Long Report.txt", &st_long));
	fd = open(at(path, "LONGRE~1.TXT"), O_CREAT | O_WRONLY | O_APPEND,
		  0644);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st_fd));
	EXPECT_EQ(st_long.st_ino, st_fd.st_ino);
	EXPECT_EQ(3, write(fd, "new", 3));
	close(fd);
	ASSERT_EQ(0, vol_umount());

	check_long_report(_metadata, &self->vol, "oldnew");
}

/* rename() onto the 8.3 alias replaces the file and keeps the long name */
TEST_F(nolongcreate, rename_onto_alias_keeps_long_name)
{
	make_long_report(_metadata, &self->vol, "old");
	ASSERT_EQ(0, create_file("a.txt", "new"));
	EXPECT_EQ(0, rename_to("a.txt", "LONGRE~1.TXT"));
	ASSERT_EQ(0, vol_umount());

	check_long_report(_metadata, &self->vol, "new");
}

/* RENAME_EXCHANGE writes no name: it swaps a long and an 8.3 name */
TEST_F(nolongcreate, rename_exchange_with_long_name)
{
	char buf[64];

	make_long_report(_metadata, &self->vol, "long");
	ASSERT_EQ(0, create_file("SHORT.TXT", "short"));
	EXPECT_EQ(0, exchange("Long Report.txt", "SHORT.TXT"));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(2, list_root(buf, sizeof(buf)));
	EXPECT_STREQ("Long Report.txt/SHORT.TXT/", buf);
	ASSERT_EQ(0, read_file("Long Report.txt", buf, sizeof(buf)));
	EXPECT_STREQ("short", buf);
	ASSERT_EQ(0, read_file("SHORT.TXT", buf, sizeof(buf)));
	EXPECT_STREQ("long", buf);
}

enum op { OP_CREATE, OP_MKDIR, OP_RENAME, OP_RENAME_DIR };

/* What @op starts from: a file SRC.TXT, or a directory SRCDIR with a file */
static int make_source(enum op op)
{
	int err;

	if (op != OP_RENAME_DIR)
		return create_file("SRC.TXT", "src");
	err = make_dir("SRCDIR");
	return err ?: create_file("SRCDIR/IN.TXT", "in");
}

/* create, mkdir, or rename the source to @name: 0 or the errno */
static int do_op(enum op op, const char *name)
{
	switch (op) {
	case OP_CREATE:
		return create_file(name, "");
	case OP_MKDIR:
		return make_dir(name);
	case OP_RENAME:
		return rename_to("SRC.TXT", name);
	default:
		return rename_to("SRCDIR", name);
	}
}

/* The name tests: each name is either written as typed, or refused */
FIXTURE(name) {
	struct vol vol;
};

FIXTURE_VARIANT(name) {
	const char *name;
	const char *entry;	/* accepted: its 8.3 entry in the directory */
	int err;		/* refused: the errno */
};

FIXTURE_VARIANT_ADD(name, lower_case) {
	.name = "readme.txt",
	.entry = "README  TXT",
};

FIXTURE_VARIANT_ADD(name, upper_case) {
	.name = "README.TXT",
	.entry = "README  TXT",
};

FIXTURE_VARIANT_ADD(name, lower_base_upper_ext) {
	.name = "read4.TXT",
	.entry = "READ4   TXT",
};

FIXTURE_VARIANT_ADD(name, base_too_long) {
	.name = "abcdefghi.txt",
	.err = ENAMETOOLONG,
};

FIXTURE_VARIANT_ADD(name, ext_too_long) {
	.name = "readme.text",
	.err = ENAMETOOLONG,
};

FIXTURE_VARIANT_ADD(name, space) {
	.name = "a b.txt",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(name, leading_dot) {
	.name = ".profile",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(name, trailing_dot) {
	.name = "readme.",
	.err = EINVAL,
};

/* 8.3 by length once the dot is gone: refused for the dot */
FIXTURE_VARIANT_ADD(name, eight_and_trailing_dot) {
	.name = "abcdefgh.",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(name, mixed_case) {
	.name = "ReadMe.txt",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(name, plus) {
	.name = "a+b.txt",
	.err = EINVAL,
};

FIXTURE_SETUP(name)
{
	const char *skip = vol_setup(_metadata, &self->vol);

	if (skip)
		SKIP(return, "%s", skip);
}

FIXTURE_TEARDOWN(name)
{
	vol_teardown(&self->vol);
}

/*
 * @op with the accepted @name; after unmounting and mounting again,
 * readdir shows it as typed, a lookup by it finds it, and the root
 * directory holds its one 8.3 entry, @entry, and no long name slot.
 */
static void check_accepted(struct __test_metadata *_metadata,
			   struct vol *vol, const char *name,
			   const char *entry, enum op op)
{
	char buf[64], expect[64], path[64];
	int used, lfn;
	struct stat st;

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	if (op == OP_RENAME || op == OP_RENAME_DIR)
		ASSERT_EQ(0, make_source(op));
	ASSERT_EQ(0, do_op(op, name));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, root_entries(&used, &lfn, buf));
	ASSERT_EQ(1, used);
	EXPECT_EQ(0, lfn);
	EXPECT_STREQ(entry, buf);

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	snprintf(expect, sizeof(expect), "%s/", name);
	EXPECT_STREQ(expect, buf);
	ASSERT_EQ(0, stat_name(name, &st));
	EXPECT_EQ(op == OP_MKDIR || op == OP_RENAME_DIR, S_ISDIR(st.st_mode));
	if (op == OP_RENAME_DIR) {
		/* the directory moved with what it holds */
		snprintf(path, sizeof(path), "%s/IN.TXT", name);
		EXPECT_EQ(0, read_file(path, buf, sizeof(buf)));
		EXPECT_STREQ("in", buf);
	}
}

/*
 * @op with the refused @name fails with @expected and writes nothing: the
 * image is the same, and after mounting again readdir shows what it did.
 */
static void check_refused(struct __test_metadata *_metadata,
			  struct vol *vol, const char *name, int expected,
			  enum op op)
{
	unsigned char *before, *after;
	char buf[64];

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(0, make_source(op));
	ASSERT_EQ(0, vol_umount());
	before = malloc(IMAGE_SIZE);
	after = malloc(IMAGE_SIZE);
	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, after);
	ASSERT_EQ(0, read_image(before));

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	EXPECT_EQ(expected, do_op(op, name));
	ASSERT_EQ(0, vol_umount());
	ASSERT_EQ(0, read_image(after));
	EXPECT_EQ(0, memcmp(before, after, IMAGE_SIZE));
	free(before);
	free(after);

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	if (op != OP_RENAME_DIR) {
		EXPECT_STREQ("SRC.TXT/", buf);
		return;
	}
	EXPECT_STREQ("SRCDIR/", buf);
	EXPECT_EQ(0, read_file("SRCDIR/IN.TXT", buf, sizeof(buf)));
	EXPECT_STREQ("in", buf);
}

/* A name with @err is refused, one without is written as @entry */
static void check_name(struct __test_metadata *_metadata, struct vol *vol,
		       const char *name, const char *entry, int err,
		       enum op op)
{
	if (err)
		check_refused(_metadata, vol, name, err, op);
	else
		check_accepted(_metadata, vol, name, entry, op);
}

TEST_F(name, create)
{
	check_name(_metadata, &self->vol, variant->name, variant->entry,
		   variant->err, OP_CREATE);
}

TEST_F(name, mkdir)
{
	check_name(_metadata, &self->vol, variant->name, variant->entry,
		   variant->err, OP_MKDIR);
}

TEST_F(name, rename)
{
	check_name(_metadata, &self->vol, variant->name, variant->entry,
		   variant->err, OP_RENAME);
}

TEST_F(name, rename_dir)
{
	check_name(_metadata, &self->vol, variant->name, variant->entry,
		   variant->err, OP_RENAME_DIR);
}

/*
 * On a full volume a refused name fails with its own errno, not ENOSPC:
 * the name is judged before a cluster is allocated for the directory.
 */
TEST_F(name, mkdir_on_full_volume)
{
	struct stat st;

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate"));
	ASSERT_EQ(0, fill_volume());
	/* full: an 8.3 directory gets no cluster */
	ASSERT_EQ(ENOSPC, make_dir("FULL"));

	EXPECT_EQ(variant->err ?: ENOSPC, make_dir(variant->name));
	EXPECT_EQ(ENOENT, stat_name(variant->name, &st));
}

TEST_HARNESS_MAIN
