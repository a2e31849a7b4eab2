// SPDX-License-Identifier: GPL-2.0
/*
 * The vfat "nolongcreate" mount option: creating a name that needs long
 * name slots fails with ENAMETOOLONG and writes nothing, 8.3 names are
 * found again, existing long names stay usable, and remount and fspick()
 * switch it.
 *
 * One sparse 1 MiB image, formatted once with mkfs.vfat and attached to a
 * loop device (detached at exit), is mounted by each test in a private
 * mount namespace; each test uses names of its own.  Setup mounts it as
 * plain vfat first, which must work; only a kernel that then refuses the
 * option itself skips the program, with the reason.
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
#include <linux/loop.h>
#include <linux/mount.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

static struct {
	char dir[32], img[48], mnt[48], loop[32];
} vol;

static char *at(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", vol.mnt, name);
	return buf;
}

static int vmount(const char *type, const char *opts)
{
	return mount(vol.loop, vol.mnt, type, 0, opts) ? errno : 0;
}

static int remount(unsigned long flags, const char *opts)
{
	return mount("", vol.mnt, NULL, MS_REMOUNT | flags, opts) ? errno : 0;
}

/* Create a file, or a directory if @dir: 0 or the errno */
static int create(const char *name, int dir)
{
	char p[PATH_MAX];
	int fd;

	if (dir)
		return mkdir(at(p, name), 0755) ? errno : 0;
	fd = open(at(p, name), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int move(const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];

	return rename(at(a, from), at(b, to)) ? errno : 0;
}

static int exists(const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	return stat(at(p, name), &st) ? errno : 0;
}

/* Does readdir of directory @dir show exactly @name? -1: no such dir */
static int listed(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct dirent *d;
	int found = 0;
	DIR *dp;

	dp = opendir(at(p, dir));
	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		found |= !strcmp(d->d_name, name);
	closedir(dp);
	return found;
}

/* Is @opt in ",fstype,super options," of the mount? -1: mount not found */
static int has_opt(const char *opt)
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
		    strcmp(mp, vol.mnt) ||
		    sscanf(sep, " - %31s %*s %511s", type, opts) != 2)
			continue;
		snprintf(line, sizeof(line), ",%s,%s,", type, opts);
		found = !!strstr(line, key);
	}
	fclose(f);
	return found;
}

/* FNV-1a of the image's bytes after syncfs() of the mount */
static unsigned long long image_hash(struct __test_metadata *_metadata)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	unsigned char buf[4096];
	ssize_t n, i;
	int fd;

	fd = open(vol.mnt, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syncfs(fd));
	close(fd);
	fd = open(vol.img, O_RDONLY);
	ASSERT_LE(0, fd);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	ASSERT_EQ(0, n);
	close(fd);
	return h;
}

/*
 * fspick(), then @key as a flag (@value NULL) or a string, then
 * FSCONFIG_CMD_RECONFIGURE: 0 or the first errno
 */
static int fspick_set(const char *key, const char *value)
{
	int fd, err = 0;

	fd = syscall(__NR_fspick, AT_FDCWD, vol.mnt, FSPICK_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(__NR_fsconfig, fd,
		    value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, key,
		    value, 0) ||
	    syscall(__NR_fsconfig, fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		err = errno;
	close(fd);
	return err;
}

/* Attach the image to a free loop device, detached on its last close */
static int loop_attach(int img)
{
	struct loop_config lc = { .fd = img };
	int ctl, n, fd, tries;

	lc.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	/* another user may take the free device first: EBUSY, try again */
	for (tries = 0; tries < 10; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(vol.loop, sizeof(vol.loop), "/dev/loop%d", n);
		/* kept open until exit: autoclear detaches it then */
		fd = open(vol.loop, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		if (!ioctl(fd, LOOP_CONFIGURE, &lc)) {
			close(ctl);
			return 0;
		}
		close(fd);
		if (errno != EBUSY)
			break;
	}
	close(ctl);
	return -1;
}

/* Format and attach the image; the reason to skip the program, or NULL */
static const char *vol_prepare(void)
{
	char cmd[96];
	int fd, err;

	if (geteuid())
		return "needs root";
	snprintf(vol.dir, sizeof(vol.dir), "/tmp/nolongcreate.XXXXXX");
	if (!mkdtemp(vol.dir))
		return "cannot make a temporary directory";
	snprintf(vol.img, sizeof(vol.img), "%s/fat.img", vol.dir);
	snprintf(vol.mnt, sizeof(vol.mnt), "%s/mnt", vol.dir);
	fd = open(vol.img, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	if (fd == -1 || ftruncate(fd, 1 << 20) || mkdir(vol.mnt, 0700))
		return "cannot make the image";
	snprintf(cmd, sizeof(cmd), "mkfs.vfat %s >/dev/null 2>&1", vol.img);
	if (system(cmd))
		return "mkfs.vfat (dosfstools) missing or failed";
	if (access("/dev/loop-control", F_OK))
		return "no /dev/loop-control (CONFIG_BLK_DEV_LOOP)";
	err = loop_attach(fd);
	close(fd);
	if (err)
		return "cannot attach a loop device";
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return "no private mount namespace";
	err = vmount("vfat", NULL);
	if (err == ENODEV)
		return "kernel without vfat";
	if (err || umount(vol.mnt))
		return NULL;	/* the tests fail */
	/* plain vfat mounts: only the option itself can be refused here */
	err = vmount("vfat", "nolongcreate");
	if (err == EINVAL)
		return "kernel without the nolongcreate option (EINVAL)";
	if (!err)
		umount(vol.mnt);
	return NULL;
}

static void vol_cleanup(void)
{
	umount2(vol.mnt, MNT_DETACH);
	unlink(vol.img);
	rmdir(vol.mnt);
	rmdir(vol.dir);
}

FIXTURE(nlc) {};

FIXTURE_SETUP(nlc)
{
}

FIXTURE_TEARDOWN(nlc)
{
	char p[PATH_MAX];

	unlink(at(p, "FILL.BIN"));
	umount(vol.mnt);
}

TEST_F(nlc, shown_in_mountinfo_longcreate_default)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(1, has_opt("vfat"));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	ASSERT_EQ(0, umount(vol.mnt));

	ASSERT_EQ(0, vmount("vfat", NULL));
	ASSERT_EQ(1, has_opt("vfat"));
	EXPECT_EQ(0, has_opt("nolongcreate"));
	EXPECT_EQ(0, has_opt("longcreate"));
	EXPECT_EQ(0, create("default long.txt", 0));
	EXPECT_EQ(1, listed("", "default long.txt"));
}

TEST_F(nlc, value_refused)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(0, umount(vol.mnt));
	EXPECT_EQ(EINVAL, vmount("vfat", "nolongcreate=1"));
	EXPECT_EQ(EINVAL, vmount("vfat", "longcreate=1"));
}

TEST_F(nlc, msdos_refuses_option)
{
	int err = vmount("msdos", NULL);

	if (err == ENODEV)
		SKIP(return, "kernel without msdos");
	ASSERT_EQ(0, err);
	EXPECT_EQ(EINVAL, remount(0, "nolongcreate"));
	EXPECT_EQ(EINVAL, remount(0, "longcreate"));
	ASSERT_EQ(0, umount(vol.mnt));
	EXPECT_EQ(EINVAL, vmount("msdos", "nolongcreate"));
	EXPECT_EQ(EINVAL, vmount("msdos", "longcreate"));
}

TEST_F(nlc, long_names_refused_nothing_written)
{
	static const char * const names[] = {
		"longername.txt", "a b.txt", "x.jpeg", "Long Dir",
	};
	unsigned long long before;
	int i;

	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(0, create("SRC.TXT", 0));
	ASSERT_EQ(1, listed("", "SRC.TXT"));
	before = image_hash(_metadata);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(ENAMETOOLONG, create(names[i], 0)) TH_LOG("%s", names[i]);
		EXPECT_EQ(ENAMETOOLONG, create(names[i], 1)) TH_LOG("%s", names[i]);
		EXPECT_EQ(ENAMETOOLONG, move("SRC.TXT", names[i]))
			TH_LOG("%s", names[i]);
		EXPECT_EQ(0, listed("", names[i])) TH_LOG("%s", names[i]);
	}
	EXPECT_EQ(before, image_hash(_metadata));
	EXPECT_EQ(1, listed("", "SRC.TXT"));
}

TEST_F(nlc, short_names_found_after_cold_mount)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(0, create("UPPER", 1));
	ASSERT_EQ(0, create("lower", 1));
	ASSERT_EQ(0, create("UPPER/README.TXT", 0));
	ASSERT_EQ(0, create("lower/readme.txt", 0));
	ASSERT_EQ(0, umount(vol.mnt));

	ASSERT_EQ(0, vmount("vfat", NULL));
	EXPECT_EQ(0, exists("UPPER/README.TXT"));
	EXPECT_EQ(0, exists("lower/readme.txt"));
	EXPECT_EQ(1, listed("", "UPPER"));
	EXPECT_EQ(1, listed("", "lower"));
	EXPECT_EQ(1, listed("UPPER", "README.TXT"));
	EXPECT_EQ(1, listed("lower", "readme.txt"));
	ASSERT_EQ(0, umount(vol.mnt));

	/* win95 ignores the case flags: a long name would still be shown */
	ASSERT_EQ(0, vmount("vfat", "shortname=win95"));
	EXPECT_EQ(1, listed("", "LOWER"));
	EXPECT_EQ(1, listed("lower", "README.TXT"));
	EXPECT_EQ(0, listed("lower", "readme.txt"));
}

TEST_F(nlc, mixed_case_part_found_shown_in_one_case)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	EXPECT_EQ(0, create("ReadMe.txt", 0));
	/* a cold lookup: the create's dentry would answer from the dcache */
	ASSERT_EQ(0, umount(vol.mnt));
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	EXPECT_EQ(0, exists("ReadMe.txt"));
	EXPECT_EQ(1, listed("", "README.txt"));
	EXPECT_EQ(0, listed("", "ReadMe.txt"));
}

TEST_F(nlc, check_strict_refuses_case_not_shown)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate,check=strict"));
	EXPECT_EQ(ENAMETOOLONG, create("CheckMe.txt", 0));
	EXPECT_EQ(0, create("checkme.txt", 0));
	ASSERT_EQ(0, umount(vol.mnt));
	ASSERT_EQ(0, vmount("vfat", "nolongcreate,check=strict"));
	EXPECT_EQ(0, exists("checkme.txt"));
	EXPECT_EQ(1, listed("", "checkme.txt"));
	EXPECT_EQ(ENOENT, exists("CHECKME.TXT"));
}

TEST_F(nlc, existing_long_name_usable)
{
	char p[PATH_MAX], buf[8] = {};
	int fd;

	ASSERT_EQ(0, vmount("vfat", NULL));
	fd = open(at(p, "Long Report.txt"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "hello", 5));
	close(fd);
	ASSERT_EQ(0, umount(vol.mnt));

	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(1, listed("", "Long Report.txt"));
	fd = open(p, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(5, read(fd, buf, sizeof(buf)));
	EXPECT_STREQ("hello", buf);
	EXPECT_EQ(1, write(fd, "!", 1));
	close(fd);
	EXPECT_EQ(0, move("Long Report.txt", "REPORT.TXT"));
	ASSERT_EQ(0, umount(vol.mnt));
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	EXPECT_EQ(0, exists("REPORT.TXT"));
	EXPECT_EQ(0, listed("", "Long Report.txt"));
	EXPECT_EQ(1, listed("", "REPORT.TXT"));
	EXPECT_EQ(0, unlink(at(p, "REPORT.TXT")));
	EXPECT_EQ(ENOENT, exists("REPORT.TXT"));
}

TEST_F(nlc, rename_onto_existing_long_name)
{
	ASSERT_EQ(0, vmount("vfat", NULL));
	ASSERT_EQ(0, create("Old Long Name.txt", 0));
	ASSERT_EQ(0, umount(vol.mnt));

	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(0, create("NEW.TXT", 0));
	EXPECT_EQ(0, move("NEW.TXT", "Old Long Name.txt"));
	EXPECT_EQ(1, listed("", "Old Long Name.txt"));
	EXPECT_EQ(0, listed("", "NEW.TXT"));
}

TEST_F(nlc, remount_toggles)
{
	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(1, has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create("remount one.txt", 0));
	ASSERT_EQ(0, remount(0, "longcreate"));
	EXPECT_EQ(0, has_opt("nolongcreate"));
	EXPECT_EQ(0, create("remount one.txt", 0));
	ASSERT_EQ(0, remount(0, "nolongcreate"));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create("remount two.txt", 0));
	/* a remount naming neither keeps it */
	ASSERT_EQ(0, remount(MS_RDONLY, NULL));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	ASSERT_EQ(0, remount(0, NULL));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create("remount two.txt", 0));
	/* a bad value changes nothing */
	EXPECT_EQ(EINVAL, remount(0, "longcreate=1"));
	EXPECT_EQ(ENAMETOOLONG, create("remount two.txt", 0));
}

TEST_F(nlc, fspick_reconfigure_toggles)
{
	int err;

	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	ASSERT_EQ(1, has_opt("nolongcreate"));
	err = fspick_set("longcreate", NULL);
	/* the errno of a system call number that does not exist */
	if (err && err == (syscall(-1) ? errno : 0))
		SKIP(return, "kernel without fspick()");
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, has_opt("nolongcreate"));
	EXPECT_EQ(0, create("fspick one.txt", 0));
	ASSERT_EQ(0, fspick_set("nolongcreate", NULL));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create("fspick two.txt", 0));
	/* a value is refused and changes nothing */
	EXPECT_EQ(EINVAL, fspick_set("longcreate", "1"));
	EXPECT_EQ(1, has_opt("nolongcreate"));
	EXPECT_EQ(ENAMETOOLONG, create("fspick two.txt", 0));
}

TEST_F(nlc, mkdir_on_full_volume)
{
	static char buf[1 << 16];
	char p[PATH_MAX];
	struct statfs sf;
	int fd;

	ASSERT_EQ(0, vmount("vfat", "nolongcreate"));
	fd = open(at(p, "FILL.BIN"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(ENOSPC, errno);
	close(fd);
	ASSERT_EQ(0, statfs(vol.mnt, &sf));
	ASSERT_EQ(0, sf.f_bfree);
	EXPECT_EQ(ENAMETOOLONG, create("Long Directory", 1));
	EXPECT_EQ(ENOSPC, create("NEWDIR", 1));
	EXPECT_EQ(ENOENT, exists("Long Directory"));
	EXPECT_EQ(ENOENT, exists("NEWDIR"));
}

int main(int argc, char **argv)
{
	const char *skip = vol_prepare();

	atexit(vol_cleanup);
	if (skip) {
		ksft_print_header();
		ksft_exit_skip("%s\n", skip);
	}
	return test_harness_run(argc, argv);
}
