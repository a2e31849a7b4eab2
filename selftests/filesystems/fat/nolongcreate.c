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

#include <linux/mount.h>
#include <sys/syscall.h>
#if __has_include("../wrappers.h")
#include "../wrappers.h"
#else
/* a tree from before filesystems/wrappers.h */
static inline int sys_fsconfig(int fd, unsigned int cmd, const char *key,
			       const char *value, int aux)
{
	return syscall(__NR_fsconfig, fd, cmd, key, value, aux);
}
#endif

/* not in ../wrappers.h: a test including it defines its own sys_fspick() */
static inline int nlc_fspick(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_fspick, dfd, path, flags);
}

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
	ASSERT_LE(0, vol->loop_fd);

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

/*
 * Before FIXTURE_TEARDOWN_PARENT() came (v6.9), the harness ran the test
 * even when its setup had skipped: there, end the test's process with the
 * status that the harness reports as a skip.
 */
static void setup_skipped(void)
{
#ifndef FIXTURE_TEARDOWN_PARENT
	_exit(255);
#endif
}

static void vol_teardown(struct vol *vol)
{
	umount2(MNT, MNT_DETACH);
	close(vol->loop_fd);
	umount2("/tmp", MNT_DETACH);
}

static const char *at(const char *name)
{
	static char path[4][PATH_MAX];
	static unsigned int next;
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, MNT "/%s", name);
	return p;
}

/* Create a file holding @data: 0 or the errno */
static int create_file(const char *name, const char *data)
{
	ssize_t len = strlen(data);
	int fd, err = 0;

	fd = open(at(name), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, data, len) != len)
		err = errno ?: EIO;
	close(fd);
	return err;
}

static int make_dir(const char *name)
{
	return mkdir(at(name), 0755) ? errno : 0;
}

static int rename_to(const char *from, const char *to)
{
	return rename(at(from), at(to)) ? errno : 0;
}

/* The contents of a file, NUL-terminated, in @buf: 0 or the errno */
static int read_file(const char *name, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(at(name), O_RDONLY);
	if (fd < 0)
		return errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	return 0;
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
 * fspick() the mount, set @key as a flag, reconfigure: 0 or the errno of
 * the first call that failed
 */
static int fspick_flag(const char *key)
{
	int fd, err = 0;

	fd = nlc_fspick(AT_FDCWD, MNT, FSPICK_CLOEXEC);
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
		SKIP(setup_skipped(); return, "%s", skip);
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
	ASSERT_EQ(-1, stat(at("123"), &st));
	EXPECT_EQ(EINVAL, create_file("123.", ""));
	ASSERT_EQ(-1, stat(at("456."), &st));
	EXPECT_EQ(0, create_file("456", ""));
	ASSERT_EQ(0, vol_umount());

	ASSERT_EQ(0, vol_mount(&self->vol, "vfat", "nolongcreate,check=strict"));
	EXPECT_EQ(0, stat(at("456"), &st));
	EXPECT_EQ(-1, stat(at("123"), &st));
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

enum op { OP_CREATE, OP_MKDIR, OP_RENAME };

/* create, mkdir, or rename SRC.TXT to @name: 0 or the errno */
static int do_op(enum op op, const char *name)
{
	switch (op) {
	case OP_CREATE:
		return create_file(name, "");
	case OP_MKDIR:
		return make_dir(name);
	default:
		return rename_to("SRC.TXT", name);
	}
}

/* Names that are written as typed */
FIXTURE(accepted) {
	struct vol vol;
};

FIXTURE_VARIANT(accepted) {
	const char *name;
	const char *entry;	/* its 8.3 entry in the directory */
};

FIXTURE_VARIANT_ADD(accepted, lower_case) {
	.name = "readme.txt",
	.entry = "README  TXT",
};

FIXTURE_VARIANT_ADD(accepted, upper_case) {
	.name = "README.TXT",
	.entry = "README  TXT",
};

FIXTURE_VARIANT_ADD(accepted, lower_base_upper_ext) {
	.name = "read4.TXT",
	.entry = "READ4   TXT",
};

FIXTURE_SETUP(accepted)
{
	const char *skip = vol_setup(_metadata, &self->vol);

	if (skip)
		SKIP(setup_skipped(); return, "%s", skip);
}

FIXTURE_TEARDOWN(accepted)
{
	vol_teardown(&self->vol);
}

/*
 * @op with @name; after unmounting and mounting again, readdir
 * shows it as typed, a lookup by it finds it, and the root directory holds
 * its one 8.3 entry, @entry, and no long name slot.
 */
static void check_accepted(struct __test_metadata *_metadata,
			   struct vol *vol, const char *name,
			   const char *entry, enum op op)
{
	unsigned char *image, *de;
	char buf[64], expect[64];
	int i, used = 0, lfn = 0;
	struct stat st;

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	if (op == OP_RENAME)
		ASSERT_EQ(0, create_file("SRC.TXT", ""));
	ASSERT_EQ(0, do_op(op, name));
	ASSERT_EQ(0, vol_umount());

	image = malloc(IMAGE_SIZE);
	ASSERT_NE(NULL, image);
	ASSERT_EQ(0, read_image(image));
	for (i = 0; i < ROOT_ENTRIES; i++) {
		de = image + ROOT_DIR + 32 * i;
		if (de[0] == 0x00)
			break;
		if (de[0] == 0xe5)	/* deleted */
			continue;
		if (de[11] == 0x0f)	/* long name slot */
			lfn++;
		else if (!used++)
			memcpy(buf, de, 11);
	}
	free(image);
	ASSERT_EQ(1, used);
	EXPECT_EQ(0, lfn);
	buf[11] = '\0';
	EXPECT_STREQ(entry, buf);

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(1, list_root(buf, sizeof(buf)));
	snprintf(expect, sizeof(expect), "%s/", name);
	EXPECT_STREQ(expect, buf);
	ASSERT_EQ(0, stat(at(name), &st));
	EXPECT_EQ(op == OP_MKDIR, S_ISDIR(st.st_mode));
}

TEST_F(accepted, create)
{
	check_accepted(_metadata, &self->vol, variant->name, variant->entry,
		       OP_CREATE);
}

TEST_F(accepted, mkdir)
{
	check_accepted(_metadata, &self->vol, variant->name, variant->entry,
		       OP_MKDIR);
}

TEST_F(accepted, rename)
{
	check_accepted(_metadata, &self->vol, variant->name, variant->entry,
		       OP_RENAME);
}

/* Names that are refused, and with which errno */
FIXTURE(refused) {
	struct vol vol;
};

FIXTURE_VARIANT(refused) {
	const char *name;
	int err;
};

FIXTURE_VARIANT_ADD(refused, base_too_long) {
	.name = "abcdefghi.txt",
	.err = ENAMETOOLONG,
};

FIXTURE_VARIANT_ADD(refused, ext_too_long) {
	.name = "readme.text",
	.err = ENAMETOOLONG,
};

FIXTURE_VARIANT_ADD(refused, space) {
	.name = "a b.txt",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(refused, leading_dot) {
	.name = ".profile",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(refused, trailing_dot) {
	.name = "readme.",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(refused, mixed_case) {
	.name = "ReadMe.txt",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(refused, plus) {
	.name = "a+b.txt",
	.err = EINVAL,
};

FIXTURE_SETUP(refused)
{
	const char *skip = vol_setup(_metadata, &self->vol);

	if (skip)
		SKIP(setup_skipped(); return, "%s", skip);
}

FIXTURE_TEARDOWN(refused)
{
	vol_teardown(&self->vol);
}

/*
 * @op with @name fails with @expected and writes nothing: the
 * image is the same, and after mounting again readdir shows what it did.
 */
static void check_refused(struct __test_metadata *_metadata,
			  struct vol *vol, const char *name, int expected,
			  enum op op)
{
	unsigned char *before, *after;
	char buf[64];

	ASSERT_EQ(0, vol_mount(vol, "vfat", "nolongcreate"));
	ASSERT_EQ(0, create_file("SRC.TXT", "src"));
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
	EXPECT_STREQ("SRC.TXT/", buf);
}

TEST_F(refused, create)
{
	check_refused(_metadata, &self->vol, variant->name, variant->err,
		      OP_CREATE);
}

TEST_F(refused, mkdir)
{
	check_refused(_metadata, &self->vol, variant->name, variant->err,
		      OP_MKDIR);
}

TEST_F(refused, rename)
{
	check_refused(_metadata, &self->vol, variant->name, variant->err,
		      OP_RENAME);
}

TEST_HARNESS_MAIN
