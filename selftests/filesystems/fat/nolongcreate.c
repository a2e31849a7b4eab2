// SPDX-License-Identifier: GPL-2.0
/*
 * The vfat "nolongcreate" mount option: create, mkdir and rename to a name
 * that needs long name slots fail with ENAMETOOLONG and write nothing; an
 * accepted name is found again; existing long names stay usable; remount
 * and fspick() toggle it.
 *
 * Each test formats one small image (mkfs.vfat), attaches it to a loop
 * device and mounts it in a private mount namespace.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/loop.h>

#include "../../kselftest_harness.h"

#define NLC_FSCONFIG_SET_FLAG		0
#define NLC_FSCONFIG_CMD_RECONFIGURE	7
#define NLC_IMAGE_MB			8

FIXTURE(nlc) {
	char dir[32];
	char img[64];
	char mnt[64];
	char loop[32];
	const char *skip;
};

static int nlc_mount(struct _test_data_nlc *self, const char *type,
		     const char *opts)
{
	return mount(self->loop, self->mnt, type, 0, opts) ? errno : 0;
}

static int nlc_remount(struct _test_data_nlc *self, const char *opts)
{
	return mount(NULL, self->mnt, NULL, MS_REMOUNT, opts) ? errno : 0;
}

static int nlc_creat(struct _test_data_nlc *self, const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", self->mnt, name);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int nlc_mkdir(struct _test_data_nlc *self, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", self->mnt, name);
	return mkdir(path, 0755) ? errno : 0;
}

static int nlc_rename(struct _test_data_nlc *self, const char *from,
		      const char *to)
{
	char a[128], b[128];

	snprintf(a, sizeof(a), "%s/%s", self->mnt, from);
	snprintf(b, sizeof(b), "%s/%s", self->mnt, to);
	return rename(a, b) ? errno : 0;
}

/* Does readdir of the root show exactly @name? */
static int nlc_listed(struct _test_data_nlc *self, const char *name)
{
	struct dirent *d;
	int found = 0;
	DIR *dir;

	dir = opendir(self->mnt);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		found |= !strcmp(d->d_name, name);
	closedir(dir);
	return found;
}

/* The super options of the mount, from /proc/self/mountinfo, or "" */
static void nlc_super_opts(struct _test_data_nlc *self, char *buf, size_t len)
{
	char line[512], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || !strstr(line, self->mnt))
			continue;
		snprintf(buf, len, ",%s", strrchr(sep, ' ') + 1);
		buf[strcspn(buf, "\n")] = ',';
	}
	if (f)
		fclose(f);
}

/* A checksum of the image, as the kernel left it after syncfs() */
static unsigned long nlc_image_sum(struct _test_data_nlc *self)
{
	unsigned long sum = 0;
	unsigned char buf[4096];
	ssize_t n, i;
	int fd;

	fd = open(self->mnt, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
	fd = open(self->img, O_RDONLY);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			sum = sum * 31 + buf[i];
	close(fd);
	return sum;
}

FIXTURE_SETUP(nlc)
{
	char cmd[128];
	int ctl, fd, lfd, n, err;

	self->skip = NULL;
	self->dir[0] = '\0';
	self->loop[0] = '\0';
	if (geteuid()) {
		self->skip = "needs root";
		return;
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	snprintf(self->dir, sizeof(self->dir), "/tmp/nlc.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->img, sizeof(self->img), "%s/img", self->dir);
	snprintf(self->mnt, sizeof(self->mnt), "%s/mnt", self->dir);
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	fd = open(self->img, O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, NLC_IMAGE_MB << 20));
	close(fd);
	snprintf(cmd, sizeof(cmd), "mkfs.vfat %s >/dev/null 2>&1", self->img);
	if (system(cmd)) {
		self->skip = "mkfs.vfat (dosfstools) failed or is missing";
		return;
	}

	ctl = open("/dev/loop-control", O_RDWR);
	ASSERT_LE(0, ctl);
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	ASSERT_LE(0, n);
	snprintf(self->loop, sizeof(self->loop), "/dev/loop%d", n);
	lfd = open(self->loop, O_RDWR);
	fd = open(self->img, O_RDWR);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(lfd, LOOP_SET_FD, fd));
	close(fd);
	close(lfd);

	err = nlc_mount(self, "vfat", "nolongcreate");
	if (err == ENODEV)
		self->skip = "kernel without vfat";
	else if (err == EINVAL)
		self->skip = "kernel without the nolongcreate option";
	else
		ASSERT_EQ(0, err);
	if (!err)
		ASSERT_EQ(0, umount(self->mnt));
}

FIXTURE_TEARDOWN(nlc)
{
	char cmd[64];
	int lfd;

	umount2(self->mnt, MNT_DETACH);
	lfd = self->loop[0] ? open(self->loop, O_RDWR) : -1;
	if (lfd >= 0) {
		ioctl(lfd, LOOP_CLR_FD, 0);
		close(lfd);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (self->dir[0])
		system(cmd);
}

TEST_F(nlc, option_shown_longcreate_default)
{
	char opts[256];

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	nlc_super_opts(self, opts, sizeof(opts));
	ASSERT_NE('\0', opts[0]);
	EXPECT_NE(NULL, strstr(opts, ",nolongcreate,"));
	ASSERT_EQ(0, umount(self->mnt));

	ASSERT_EQ(0, nlc_mount(self, "vfat", NULL));
	nlc_super_opts(self, opts, sizeof(opts));
	ASSERT_NE('\0', opts[0]);
	EXPECT_EQ(NULL, strstr(opts, "longcreate"));
	EXPECT_EQ(0, nlc_creat(self, "a long name.txt"));
}

TEST_F(nlc, value_refused)
{
	if (self->skip)
		SKIP(return, "%s", self->skip);
	EXPECT_EQ(EINVAL, nlc_mount(self, "vfat", "nolongcreate=1"));
	EXPECT_EQ(EINVAL, nlc_mount(self, "vfat", "longcreate=yes"));
}

TEST_F(nlc, msdos_refuses_option)
{
	if (self->skip)
		SKIP(return, "%s", self->skip);
	if (nlc_mount(self, "msdos", NULL) == ENODEV)
		SKIP(return, "kernel without msdos");
	ASSERT_EQ(0, umount(self->mnt));
	EXPECT_EQ(EINVAL, nlc_mount(self, "msdos", "nolongcreate"));
	EXPECT_EQ(EINVAL, nlc_mount(self, "msdos", "longcreate"));
}

TEST_F(nlc, long_names_refused_nothing_written)
{
	unsigned long before;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	ASSERT_EQ(0, nlc_creat(self, "SHORT.TXT"));
	before = nlc_image_sum(self);
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "longername.txt"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "a b.txt"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "photo.jpeg"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, ".profile"));
	EXPECT_EQ(ENAMETOOLONG, nlc_mkdir(self, "Long Directory"));
	EXPECT_EQ(ENAMETOOLONG, nlc_rename(self, "SHORT.TXT", "long name.txt"));
	EXPECT_EQ(before, nlc_image_sum(self));
	EXPECT_EQ(1, nlc_listed(self, "SHORT.TXT"));
}

TEST_F(nlc, short_names_found_after_cold_mount)
{
	struct stat st;
	char path[128];

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	ASSERT_EQ(0, nlc_creat(self, "README.TXT"));
	ASSERT_EQ(0, nlc_creat(self, "notes.txt"));
	ASSERT_EQ(0, nlc_mkdir(self, "subdir"));
	ASSERT_EQ(0, umount(self->mnt));

	ASSERT_EQ(0, nlc_mount(self, "vfat", NULL));
	snprintf(path, sizeof(path), "%s/README.TXT", self->mnt);
	EXPECT_EQ(0, stat(path, &st));
	snprintf(path, sizeof(path), "%s/notes.txt", self->mnt);
	EXPECT_EQ(0, stat(path, &st));
	snprintf(path, sizeof(path), "%s/subdir", self->mnt);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(1, nlc_listed(self, "README.TXT"));
	EXPECT_EQ(1, nlc_listed(self, "notes.txt"));
	EXPECT_EQ(1, nlc_listed(self, "subdir"));
}

TEST_F(nlc, existing_long_name_usable)
{
	char path[128], buf[8] = {};
	int fd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", NULL));
	snprintf(path, sizeof(path), "%s/Long Report.txt", self->mnt);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "hello", 5));
	close(fd);
	ASSERT_EQ(0, umount(self->mnt));

	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	ASSERT_EQ(1, nlc_listed(self, "Long Report.txt"));
	fd = open(path, O_RDWR | O_APPEND);
	ASSERT_LE(0, fd);
	EXPECT_EQ(5, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, strcmp(buf, "hello"));
	EXPECT_EQ(1, write(fd, "!", 1));
	close(fd);
	EXPECT_EQ(0, nlc_rename(self, "Long Report.txt", "REPORT.TXT"));
	EXPECT_EQ(1, nlc_listed(self, "REPORT.TXT"));
	EXPECT_EQ(0, nlc_listed(self, "Long Report.txt"));
	snprintf(path, sizeof(path), "%s/REPORT.TXT", self->mnt);
	EXPECT_EQ(0, unlink(path));
}

TEST_F(nlc, remount_toggles)
{
	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "long one.txt"));
	ASSERT_EQ(0, nlc_remount(self, "longcreate"));
	EXPECT_EQ(0, nlc_creat(self, "long one.txt"));
	ASSERT_EQ(0, nlc_remount(self, "nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "long two.txt"));
	/* a remount that names neither keeps the option */
	ASSERT_EQ(0, nlc_remount(self, "rw"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "long two.txt"));
	/* a bad value changes nothing */
	EXPECT_EQ(EINVAL, nlc_remount(self, "longcreate=1"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "long two.txt"));
}

static int nlc_fspick_set(struct _test_data_nlc *self, const char *key)
{
	int fd, err = 0;

	fd = syscall(__NR_fspick, AT_FDCWD, self->mnt, 0);
	if (fd < 0)
		return errno;
	if (syscall(__NR_fsconfig, fd, NLC_FSCONFIG_SET_FLAG, key, NULL, 0) ||
	    syscall(__NR_fsconfig, fd, NLC_FSCONFIG_CMD_RECONFIGURE, NULL,
		    NULL, 0))
		err = errno;
	close(fd);
	return err;
}

TEST_F(nlc, fspick_toggles)
{
	int err;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	err = nlc_fspick_set(self, "longcreate");
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, nlc_creat(self, "long one.txt"));
	ASSERT_EQ(0, nlc_fspick_set(self, "nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(self, "long two.txt"));
}

TEST_F(nlc, mkdir_on_full_volume)
{
	static char buf[1 << 16];
	char path[128];
	int fd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, nlc_mount(self, "vfat", "nolongcreate"));
	snprintf(path, sizeof(path), "%s/FILL.BIN", self->mnt);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	EXPECT_EQ(ENOSPC, errno);
	/* the last partial cluster */
	while (write(fd, buf, 512) > 0)
		;
	close(fd);
	EXPECT_EQ(ENAMETOOLONG, nlc_mkdir(self, "Long Directory"));
	EXPECT_EQ(ENOSPC, nlc_mkdir(self, "NEWDIR"));
}

TEST_HARNESS_MAIN
