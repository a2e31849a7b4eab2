// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the vfat "nolongcreate" mount option: with it, create, mkdir
 * and rename to a new name accept only a name that one 8.3 directory entry
 * holds and that readdir on the mount shows exactly as typed (no case is
 * ever folded); any other fails, writing nothing, with ENAMETOOLONG if it
 * is too long for 8.3 and EINVAL otherwise.  Long names already on the
 * volume stay usable.  A remount ignores what it does not apply, bad
 * values of the two options included.
 *
 * Each test formats a fresh image (mkfs.vfat) in a temporary directory,
 * attaches it to a loop device and mounts it in a private mount namespace.
 * What the kernel wrote is checked by reading the image itself (fat_raw.h)
 * and with fsck.vfat -n.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/fs.h>
#include <linux/loop.h>

#include "../../kselftest_harness.h"
#include "fat_raw.h"

#ifndef LOOP_CONFIGURE
#define LOOP_CONFIGURE 0x4C0A
struct loop_config {
	__u32 fd;
	__u32 block_size;
	struct loop_info64 info;
	__u64 __reserved[8];
};
#endif

/* The new mount API (5.2), called raw: the libc may lack the wrappers */
#if defined __alpha__
#define NLC_NR_MOUNT_API(nr) ((nr) + 110)
#elif defined _MIPS_SIM && _MIPS_SIM == _MIPS_SIM_ABI32
#define NLC_NR_MOUNT_API(nr) ((nr) + 4000)
#elif defined _MIPS_SIM && _MIPS_SIM == _MIPS_SIM_NABI32
#define NLC_NR_MOUNT_API(nr) ((nr) + 6000)
#elif defined _MIPS_SIM && _MIPS_SIM == _MIPS_SIM_ABI64
#define NLC_NR_MOUNT_API(nr) ((nr) + 5000)
#elif defined __ia64__
#define NLC_NR_MOUNT_API(nr) ((nr) + 1024)
#else
#define NLC_NR_MOUNT_API(nr) (nr)
#endif

#ifndef __NR_move_mount
#define __NR_move_mount NLC_NR_MOUNT_API(429)
#endif
#ifndef __NR_fsopen
#define __NR_fsopen NLC_NR_MOUNT_API(430)
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig NLC_NR_MOUNT_API(431)
#endif
#ifndef __NR_fsmount
#define __NR_fsmount NLC_NR_MOUNT_API(432)
#endif
#ifndef __NR_fspick
#define __NR_fspick NLC_NR_MOUNT_API(433)
#endif

#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSPICK_CLOEXEC
#define FSPICK_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
/* <linux/mount.h> has them as an enum, without macros */
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1
#endif
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif

#define NLC_NO_OPTION "kernel has no vfat nolongcreate option (mount: EINVAL)"
#define NLC_LONG "a long name.txt"

/* The 8.3 directories the name table tests use, one per operation */
enum nlc_op { NLC_CREAT, NLC_MKDIR, NLC_RENAME, NLC_RENAME_DIR };

FIXTURE(nlc) {
	char dir[64];		/* temporary directory */
	char img[128];		/* image file */
	char mnt[128];		/* mount point */
	char dev[128];		/* loop device node */
	char log[128];		/* output of the tools */
	char skip[160];		/* reason to skip, set by setup */
	char mkfs[PATH_MAX];
	char fsck[PATH_MAX];
	int loop_fd;
	bool mounted;
	char opts[512];		/* data string of the current mount */
};

FIXTURE_VARIANT(nlc) {
	unsigned int fat_bits;
	unsigned int mib;	/* image size */
	const char *spc;	/* sectors per cluster */
	bool utf8;
	const char *opts;	/* base mount options */
};

#define NLC_CP437 "codepage=437,iocharset=iso8859-1,utf8=0"
#define NLC_UTF8 "codepage=437,iocharset=iso8859-1,utf8"

FIXTURE_VARIANT_ADD(nlc, fat12_cp437) {
	.fat_bits = 12, .mib = 4, .spc = "4", .utf8 = false, .opts = NLC_CP437,
};

FIXTURE_VARIANT_ADD(nlc, fat12_utf8) {
	.fat_bits = 12, .mib = 4, .spc = "4", .utf8 = true, .opts = NLC_UTF8,
};

FIXTURE_VARIANT_ADD(nlc, fat16_cp437) {
	.fat_bits = 16, .mib = 8, .spc = "1", .utf8 = false, .opts = NLC_CP437,
};

FIXTURE_VARIANT_ADD(nlc, fat16_utf8) {
	.fat_bits = 16, .mib = 8, .spc = "1", .utf8 = true, .opts = NLC_UTF8,
};

FIXTURE_VARIANT_ADD(nlc, fat32_cp437) {
	.fat_bits = 32, .mib = 40, .spc = "1", .utf8 = false, .opts = NLC_CP437,
};

FIXTURE_VARIANT_ADD(nlc, fat32_utf8) {
	.fat_bits = 32, .mib = 40, .spc = "1", .utf8 = true, .opts = NLC_UTF8,
};

/* ---------------------------------------------------------------------- */
/* helpers without test state */

static bool nlc_find_tool(const char *name, char *out, size_t size)
{
	static const char fallback[] =
		"/usr/sbin:/sbin:/usr/bin:/bin:/usr/local/sbin:/usr/local/bin";
	const char *env = getenv("PATH");
	char dirs[PATH_MAX * 2];
	char *save = NULL, *d;

	snprintf(dirs, sizeof(dirs), "%s:%s", env ? env : "", fallback);
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (!*d)
			continue;
		snprintf(out, size, "%s/%s", d, name);
		if (!access(out, X_OK))
			return true;
	}
	out[0] = '\0';
	return false;
}

/* Run argv[0] with its output to @log; the exit code, or -1. */
static int nlc_run(char *const argv[], const char *log)
{
	int status, fd;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		setenv("MTOOLS_SKIP_CHECK", "1", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void nlc_dump_log(struct __test_metadata *_metadata, const char *log)
{
	char line[256];
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		TH_LOG("  | %s", line);
	}
	fclose(f);
}

/* Is @opt one of the comma-separated options in @list? */
static bool nlc_has_opt(const char *list, const char *opt)
{
	size_t len = strlen(opt);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, opt, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static int nlc_umount_path(const char *path)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!umount2(path, 0))
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(20000);
	}
	return -EBUSY;
}

static int nlc_rm_cb(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* A printable form of a name for the logs: \xNN for the other bytes. */
static const char *nlc_show(const char *name)
{
	static char buf[4][96];
	static int n;
	char *out = buf[n++ & 3];
	size_t o = 0, len = strlen(name);
	size_t i;

	for (i = 0; i < len && o < sizeof(buf[0]) - 12; i++) {
		unsigned char c = name[i];

		if (c >= 0x20 && c < 0x7F && c != '\\')
			out[o++] = c;
		else
			o += sprintf(out + o, "\\x%02X", c);
	}
	if (i < len)
		o += sprintf(out + o, "...(%zu)", len);
	out[o] = '\0';
	return out;
}

static double nlc_ts(const struct timespec *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

static int nlc_creat(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int nlc_write_file(const char *path, const char *data, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	ssize_t len = strlen(data);

	if (fd < 0)
		return errno;
	if (write(fd, data, len) != len) {
		close(fd);
		return errno ? errno : EIO;
	}
	return close(fd) ? errno : 0;
}

/* Is the file's content exactly @data? */
static bool nlc_file_is(const char *path, const char *data)
{
	char buf[256];
	ssize_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return false;
	buf[len] = '\0';
	return !strcmp(buf, data);
}

/* errno of stat(), 0 if it exists */
static int nlc_stat_err(const char *path, struct stat *st)
{
	struct stat tmp;

	return stat(path, st ? st : &tmp) ? errno : 0;
}

static bool nlc_dir_lists(const char *dir, const char *name)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			found = true;
	closedir(d);
	return found;
}

static unsigned long long nlc_free_blocks(const char *path)
{
	struct statvfs sv;

	if (statvfs(path, &sv))
		return 0;
	return sv.f_bfree;
}

static int nlc_rename_exchange(const char *a, const char *b)
{
	if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE))
		return errno;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* loop device, mount and image helpers */

static int nlc_loop_attach(struct _test_data_nlc *self)
{
	struct loop_config cfg;
	struct loop_info64 info;
	int ctl, nr, fd = -1, ffd, tries, err = 0;

	ffd = open(self->img, O_RDWR | O_CLOEXEC);
	if (ffd < 0)
		return -errno;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		goto out;
	}
	for (tries = 0; tries < 20; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			break;
		}
		snprintf(self->dev, sizeof(self->dev), "/dev/loop%d", nr);
		fd = open(self->dev, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* no devtmpfs node: make our own */
			snprintf(self->dev, sizeof(self->dev), "%s/loop%d",
				 self->dir, nr);
			unlink(self->dev);
			if (!mknod(self->dev, S_IFBLK | 0600, makedev(7, nr)))
				fd = open(self->dev, O_RDWR | O_CLOEXEC);
		}
		if (fd < 0) {
			err = -errno;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = ffd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (!ioctl(fd, LOOP_CONFIGURE, &cfg))
			goto done;
		err = -errno;
		if (errno == EINVAL || errno == ENOTTY) {
			/* before 5.8 */
			if (!ioctl(fd, LOOP_SET_FD, ffd)) {
				memset(&info, 0, sizeof(info));
				info.lo_flags = LO_FLAGS_AUTOCLEAR;
				if (!ioctl(fd, LOOP_SET_STATUS64, &info))
					goto done;
				err = -errno;
				ioctl(fd, LOOP_CLR_FD, 0);
				break;
			}
			err = -errno;
		}
		close(fd);
		fd = -1;
		if (err != -EBUSY)
			break;
	}
	goto out;
done:
	err = 0;
	self->loop_fd = fd;
out:
	if (ctl >= 0)
		close(ctl);
	close(ffd);
	return err;
}

/* mount(2) with the variant's options plus @extra; 0 or errno */
static int nlc_mount_fs(struct _test_data_nlc *self, const char *fstype,
			const char *data)
{
	if (mount(self->dev, self->mnt, fstype, 0, data))
		return errno;
	snprintf(self->opts, sizeof(self->opts), "%s", data);
	self->mounted = true;
	return 0;
}

static int nlc_try_mount(struct _test_data_nlc *self,
			 const struct _fixture_variant_nlc *variant,
			 const char *extra)
{
	char data[512];

	snprintf(data, sizeof(data), "%s%s%s", variant->opts,
		 extra && *extra ? "," : "", extra ? extra : "");
	return nlc_mount_fs(self, "vfat", data);
}

static void nlc_mount(struct __test_metadata *_metadata,
		      struct _test_data_nlc *self,
		      const struct _fixture_variant_nlc *variant, const char *extra)
{
	int err = nlc_try_mount(self, variant, extra);

	ASSERT_EQ(0, err) {
		TH_LOG("mount %s with \"%s,%s\": %s", self->dev, variant->opts,
		       extra, strerror(err));
	}
}

static void nlc_umount(struct __test_metadata *_metadata,
		       struct _test_data_nlc *self)
{
	int err = nlc_umount_path(self->mnt);

	ASSERT_EQ(0, err) {
		TH_LOG("umount %s: %s", self->mnt, strerror(-err));
	}
	self->mounted = false;
}

/* umount and mount again with the same options: no cached dentries */
static void nlc_cycle(struct __test_metadata *_metadata,
		      struct _test_data_nlc *self)
{
	char data[512];
	int err;

	snprintf(data, sizeof(data), "%s", self->opts);
	nlc_umount(_metadata, self);
	err = nlc_mount_fs(self, "vfat", data);
	ASSERT_EQ(0, err) {
		TH_LOG("mount again with \"%s\": %s", data, strerror(err));
	}
}

static int nlc_remount(struct _test_data_nlc *self, unsigned long flags,
		       const char *data)
{
	if (mount(NULL, self->mnt, NULL, MS_REMOUNT | flags, data))
		return errno;
	return 0;
}

/* The super options of our mount in /proc/self/mountinfo */
static bool nlc_super_opts(struct _test_data_nlc *self, char *out, size_t size)
{
	char line[1024], *sep, *mp, *p;
	bool found = false;
	int i;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* id parent major:minor root mountpoint ... */
		mp = line;
		for (i = 0; i < 4 && mp; i++) {
			mp = strchr(mp, ' ');
			if (mp)
				mp++;
		}
		if (!mp || strncmp(mp, self->mnt, strlen(self->mnt)) ||
		    mp[strlen(self->mnt)] != ' ')
			continue;
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		/* fstype source superoptions */
		p = strchr(sep + 3, ' ');
		p = p ? strchr(p + 1, ' ') : NULL;
		if (!p)
			continue;
		snprintf(out, size, "%s", p + 1);
		found = true;
	}
	fclose(f);
	return found;
}

static bool nlc_shows(struct __test_metadata *_metadata,
		      struct _test_data_nlc *self, const char *opt)
{
	char opts[1024];

	/* a missing mount is a failure, not an option that is not shown */
	ASSERT_TRUE(nlc_super_opts(self, opts, sizeof(opts))) {
		TH_LOG("%s not in /proc/self/mountinfo", self->mnt);
	}
	return nlc_has_opt(opts, opt);
}

static const char *nlc_p(struct _test_data_nlc *self, const char *rel)
{
	static char buf[8][PATH_MAX];
	static int n;
	char *out = buf[n++ & 7];

	snprintf(out, PATH_MAX, "%s/%s", self->mnt, rel);
	return out;
}

static void nlc_fsck(struct __test_metadata *_metadata,
		     struct _test_data_nlc *self)
{
	char *argv[4];
	int ret;

	if (!self->fsck[0]) {
		TH_LOG("fsck.vfat not found, image not checked");
		return;
	}
	ASSERT_FALSE(self->mounted);
	argv[0] = self->fsck;
	argv[1] = "-n";
	argv[2] = self->img;
	argv[3] = NULL;
	ret = nlc_run(argv, self->log);
	EXPECT_EQ(0, ret) {
		TH_LOG("fsck.vfat -n %s failed (%d):", self->img, ret);
		nlc_dump_log(_metadata, self->log);
	}
}

static void nlc_raw_open(struct __test_metadata *_metadata,
			 struct _test_data_nlc *self, struct fat_raw *fr)
{
	int err;

	ASSERT_FALSE(self->mounted);
	err = fat_raw_open(fr, self->img);
	ASSERT_EQ(0, err) {
		TH_LOG("reading %s: %s", self->img, strerror(-err));
	}
}

/* Read directory @name83 (an 8.3 name in the root; NULL: the root) */
static void nlc_raw_dir(struct __test_metadata *_metadata,
			struct _test_data_nlc *self, const char *name83,
			struct fat_raw_dir *dir)
{
	struct fat_raw fr;
	unsigned int cluster = 0;
	int err = 0;

	nlc_raw_open(_metadata, self, &fr);
	if (name83)
		err = fat_raw_subdir(&fr, 0, name83, &cluster);
	if (!err)
		err = fat_raw_read_dir(&fr, cluster, dir);
	fat_raw_close(&fr);
	ASSERT_EQ(0, err) {
		TH_LOG("reading directory \"%s\" of the image: %s",
		       name83 ? name83 : "/", strerror(-err));
	}
}

/* Totals over every directory of the image */
struct nlc_scan {
	unsigned int lfn;		/* LFN slots, live or deleted */
	unsigned int lfn_live;		/* live LFN slots */
	unsigned int sfn;		/* live 8.3 entries but . and .. */
	unsigned int tilde;		/* of which with a '~' */
	unsigned int with_long;		/* of which with a long name */
	char tilde_name[12];		/* the first one with a '~' */
};

static int nlc_scan_cb(const struct fat_raw_dir *dir, unsigned int idx,
		       unsigned int depth, void *arg)
{
	const struct msdos_dir_entry *de = &dir->ents[idx];
	struct nlc_scan *s = arg;
	char name[1024];
	unsigned int first;

	(void)depth;
	if (fat_raw_is_lfn(de)) {
		s->lfn++;
		if (fat_raw_is_live(de))
			s->lfn_live++;
		return 0;
	}
	if (!fat_raw_is_sfn(de) || fat_raw_is_dot(de))
		return 0;
	s->sfn++;
	if (memchr(de->name, '~', MSDOS_NAME)) {
		if (!s->tilde)
			memcpy(s->tilde_name, de->name, MSDOS_NAME);
		s->tilde++;
	}
	if (fat_raw_long_name(dir, idx, name, sizeof(name), &first))
		s->with_long++;
	return 0;
}

static void nlc_raw_scan(struct __test_metadata *_metadata,
			 struct _test_data_nlc *self, struct nlc_scan *s)
{
	struct fat_raw fr;
	int err;

	memset(s, 0, sizeof(*s));
	nlc_raw_open(_metadata, self, &fr);
	err = fat_raw_walk(&fr, nlc_scan_cb, s);
	fat_raw_close(&fr);
	ASSERT_EQ(0, err) {
		TH_LOG("walking the image: %s", strerror(-err));
	}
}

/* No LFN slot and no '~' alias anywhere in the image */
static void nlc_expect_no_long(struct __test_metadata *_metadata,
			       struct _test_data_nlc *self)
{
	struct nlc_scan s;

	nlc_raw_scan(_metadata, self, &s);
	EXPECT_EQ(0U, s.lfn);
	EXPECT_EQ(0U, s.tilde) {
		TH_LOG("8.3 alias \"%.11s\" on disk", s.tilde_name);
	}
}

/* ---------------------------------------------------------------------- */

FIXTURE_SETUP(nlc)
{
	char size[16];
	char *argv[12];
	struct fat_raw fr;
	int fd, err, argc = 0;

	self->loop_fd = -1;
	if (geteuid()) {
		snprintf(self->skip, sizeof(self->skip), "needs root");
		return;
	}
	if (!nlc_find_tool("mkfs.vfat", self->mkfs, sizeof(self->mkfs)) &&
	    !nlc_find_tool("mkfs.fat", self->mkfs, sizeof(self->mkfs))) {
		snprintf(self->skip, sizeof(self->skip),
			 "mkfs.vfat not found (dosfstools)");
		return;
	}
	if (!nlc_find_tool("fsck.vfat", self->fsck, sizeof(self->fsck)))
		nlc_find_tool("fsck.fat", self->fsck, sizeof(self->fsck));

	snprintf(self->dir, sizeof(self->dir), "/tmp/nolongcreate.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->img, sizeof(self->img), "%s/fat.img", self->dir);
	snprintf(self->mnt, sizeof(self->mnt), "%s/mnt", self->dir);
	snprintf(self->log, sizeof(self->log), "%s/tool.log", self->dir);
	ASSERT_EQ(0, mkdir(self->mnt, 0755));

	fd = open(self->img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, (off_t)variant->mib << 20));
	close(fd);

	snprintf(size, sizeof(size), "%u", variant->fat_bits);
	argv[argc++] = self->mkfs;
	argv[argc++] = "-F";
	argv[argc++] = size;
	argv[argc++] = "-s";
	argv[argc++] = (char *)variant->spc;
	if (variant->fat_bits != 32) {
		argv[argc++] = "-r";
		argv[argc++] = "512";
	}
	argv[argc++] = self->img;
	argv[argc] = NULL;
	err = nlc_run(argv, self->log);
	ASSERT_EQ(0, err) {
		TH_LOG("%s -F %s failed:", self->mkfs, size);
		nlc_dump_log(_metadata, self->log);
	}
	/* the FAT type must really be the one asked for */
	ASSERT_EQ(0, fat_raw_open(&fr, self->img));
	fat_raw_close(&fr);
	ASSERT_EQ(variant->fat_bits, fr.fat_bits) {
		TH_LOG("%u clusters", fr.nr_clusters);
	}

	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));

	err = nlc_loop_attach(self);
	ASSERT_EQ(0, err) {
		TH_LOG("loop device for %s: %s", self->img, strerror(-err));
	}

	err = nlc_try_mount(self, variant, NULL);
	if (err == ENODEV) {
		snprintf(self->skip, sizeof(self->skip),
			 "kernel has no vfat (mount: ENODEV)");
		return;
	}
	ASSERT_EQ(0, err) {
		TH_LOG("mount -t vfat -o %s: %s (kernel config?)",
		       variant->opts, strerror(err));
	}
	nlc_umount(_metadata, self);

	err = nlc_try_mount(self, variant, "nolongcreate");
	if (err == EINVAL) {
		snprintf(self->skip, sizeof(self->skip), NLC_NO_OPTION);
		return;
	}
	ASSERT_EQ(0, err);
	nlc_umount(_metadata, self);
}

FIXTURE_TEARDOWN(nlc)
{
	if (self->mounted && nlc_umount_path(self->mnt))
		umount2(self->mnt, MNT_DETACH);
	self->mounted = false;
	if (self->loop_fd >= 0) {
		ioctl(self->loop_fd, LOOP_CLR_FD, 0);
		close(self->loop_fd);
		self->loop_fd = -1;
	}
	if (self->dir[0])
		nftw(self->dir, nlc_rm_cb, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Every test starts with this: setup may have found a reason to skip */
static bool nlc_skipped(struct __test_metadata *_metadata,
			struct _test_data_nlc *self)
{
	if (!self->skip[0])
		return false;
	SKIP(, "%s", self->skip);
	return true;
}

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

/* Decode one UTF-8 character; its length, 0 if invalid */
static int nlc_utf8_char(const unsigned char *s, unsigned int *c)
{
	if (s[0] < 0x80) {
		*c = s[0];
		return 1;
	}
	if ((s[0] & 0xE0) == 0xC0 && (s[1] & 0xC0) == 0x80) {
		*c = ((s[0] & 0x1F) << 6) | (s[1] & 0x3F);
		return 2;
	}
	if ((s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 &&
	    (s[2] & 0xC0) == 0x80) {
		*c = ((s[0] & 0x0F) << 12) | ((s[1] & 0x3F) << 6) |
		     (s[2] & 0x3F);
		return 3;
	}
	if ((s[0] & 0xF8) == 0xF0 && (s[1] & 0xC0) == 0x80 &&
	    (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80) {
		*c = ((s[0] & 0x07) << 18) | ((s[1] & 0x3F) << 12) |
		     ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
		return 4;
	}
	return 0;
}

/* UTF-8 to iso8859-1; false if a character is beyond U+00FF */
static bool nlc_latin1(const char *in, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	unsigned int c;
	int len;

	while (*s) {
		len = nlc_utf8_char(s, &c);
		if (!len || c > 0xFF || o + 1 >= size)
			return false;
		out[o++] = c;
		s += len;
	}
	out[o] = '\0';
	return true;
}

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

TEST_F_TIMEOUT(nlc, creat_follows_name_table, 120)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_name_table(_metadata, self, variant, NLC_CREAT);
}

TEST_F_TIMEOUT(nlc, mkdir_follows_name_table, 120)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_name_table(_metadata, self, variant, NLC_MKDIR);
}

TEST_F_TIMEOUT(nlc, rename_follows_name_table, 120)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_name_table(_metadata, self, variant, NLC_RENAME);
}

TEST_F_TIMEOUT(nlc, rename_dir_follows_name_table, 120)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_name_table(_metadata, self, variant, NLC_RENAME_DIR);
}

/* ---------------------------------------------------------------------- */
/* mount options */

/* A long name is refused: ENAMETOOLONG, nothing created */
static void nlc_expect_refused(struct __test_metadata *_metadata,
			       struct _test_data_nlc *self, const char *rel)
{
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(nlc_p(self, rel)));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, rel), NULL));
}

static void nlc_expect_accepted(struct __test_metadata *_metadata,
				struct _test_data_nlc *self, const char *rel)
{
	EXPECT_EQ(0, nlc_creat(nlc_p(self, rel)));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, rel), NULL));
}

static void nlc_expect_state(struct __test_metadata *_metadata,
			     struct _test_data_nlc *self, bool nolong)
{
	EXPECT_EQ(nolong, nlc_shows(_metadata, self, "nolongcreate"));
	/* "longcreate", the default, is never shown */
	EXPECT_FALSE(nlc_shows(_metadata, self, "longcreate"));
}

static bool nlc_is_ro(struct _test_data_nlc *self)
{
	struct statvfs sv;

	return !statvfs(self->mnt, &sv) && (sv.f_flag & ST_RDONLY);
}

TEST_F(nlc, mount_option_shows_in_mountinfo)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, NLC_LONG);
	nlc_umount(_metadata, self);

	/* the last of the two options wins */
	nlc_mount(_metadata, self, variant, "nolongcreate,longcreate");
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, NLC_LONG);
	nlc_umount(_metadata, self);
	nlc_mount(_metadata, self, variant, "longcreate,nolongcreate");
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, "another long name.txt");
	nlc_umount(_metadata, self);
}

TEST_F(nlc, default_mount_allows_long_names)
{
	struct nlc_scan s;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, NULL);
	EXPECT_FALSE(nlc_shows(_metadata, self, "nolongcreate"));
	EXPECT_FALSE(nlc_shows(_metadata, self, "longcreate"));
	nlc_expect_accepted(_metadata, self, NLC_LONG);
	nlc_umount(_metadata, self);
	nlc_mount(_metadata, self, variant, "longcreate");
	EXPECT_FALSE(nlc_shows(_metadata, self, "longcreate"));
	EXPECT_FALSE(nlc_shows(_metadata, self, "nolongcreate"));
	nlc_umount(_metadata, self);
	nlc_raw_scan(_metadata, self, &s);
	EXPECT_EQ(1U, s.with_long);
	EXPECT_LT(0U, s.lfn_live);
}

TEST_F(nlc, remount_toggles_option)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "longcreate");
	nlc_expect_state(_metadata, self, false);

	ASSERT_EQ(0, nlc_remount(self, 0, "nolongcreate"));
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, "long name one.txt");
	nlc_expect_accepted(_metadata, self, "short1.txt");

	ASSERT_EQ(0, nlc_remount(self, 0, "longcreate"));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, "long name two.txt");

	/* a remount that names neither option keeps the state */
	ASSERT_EQ(0, nlc_remount(self, 0, ""));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, "long name three.txt");

	ASSERT_EQ(0, nlc_remount(self, 0, "nolongcreate"));
	/* other options are ignored on remount, as before */
	ASSERT_EQ(0, nlc_remount(self, 0, "shortname=mixed,nosuchoption"));
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, "long name four.txt");
	EXPECT_EQ(ENAMETOOLONG, mkdir(nlc_p(self, "long directory"), 0755) ?
				errno : 0);
	nlc_umount(_metadata, self);
}

TEST_F(nlc, remount_ro_and_rw_keeps_option)
{
	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_EQ(0, nlc_remount(self, MS_RDONLY, ""));
	EXPECT_TRUE(nlc_is_ro(self));
	nlc_expect_state(_metadata, self, true);
	EXPECT_EQ(EROFS, nlc_creat(nlc_p(self, "short.txt")));
	ASSERT_EQ(0, nlc_remount(self, 0, ""));
	EXPECT_FALSE(nlc_is_ro(self));
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, NLC_LONG);
	nlc_expect_accepted(_metadata, self, "short.txt");

	/* and the other way round */
	ASSERT_EQ(0, nlc_remount(self, 0, "longcreate"));
	ASSERT_EQ(0, nlc_remount(self, MS_RDONLY, ""));
	nlc_expect_state(_metadata, self, false);
	ASSERT_EQ(0, nlc_remount(self, 0, ""));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, NLC_LONG);
	nlc_umount(_metadata, self);
}

TEST_F(nlc, remount_with_shown_options_keeps_option)
{
	char opts[1024];

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "nolongcreate");
	ASSERT_TRUE(nlc_super_opts(self, opts, sizeof(opts)));
	ASSERT_EQ(0, nlc_remount(self, 0, opts)) {
		TH_LOG("remount with \"%s\"", opts);
	}
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, NLC_LONG);

	ASSERT_EQ(0, nlc_remount(self, 0, "longcreate"));
	ASSERT_TRUE(nlc_super_opts(self, opts, sizeof(opts)));
	ASSERT_EQ(0, nlc_remount(self, 0, opts)) {
		TH_LOG("remount with \"%s\"", opts);
	}
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, NLC_LONG);
	nlc_umount(_metadata, self);
}

TEST_F(nlc, option_with_value_fails_einval)
{
	static const char *const bad[] = {
		"nolongcreate=1", "longcreate=yes", "nolongcreate=",
		"longcreate=", "nolongcreate=0",
	};
	size_t i;

	if (nlc_skipped(_metadata, self))
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, nlc_try_mount(self, variant, bad[i])) {
			TH_LOG("mount -o %s", bad[i]);
		}
		if (self->mounted)
			nlc_umount(_metadata, self);
	}
}

/*
 * msdos refuses the options at mount; a remount of an msdos mount ignores
 * them, as fat ignores every option it does not apply on remount
 */
TEST_F(nlc, msdos_refuses_option_at_mount_ignores_it_on_remount)
{
	int err;

	if (nlc_skipped(_metadata, self))
		return;
	err = nlc_mount_fs(self, "msdos", "");
	if (err == ENODEV)
		SKIP(return, "kernel has no msdos filesystem (CONFIG_MSDOS_FS)");
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, nlc_remount(self, 0, "nolongcreate"));
	EXPECT_FALSE(nlc_shows(_metadata, self, "nolongcreate"));
	EXPECT_EQ(0, nlc_remount(self, 0, "longcreate"));
	EXPECT_EQ(0, nlc_remount(self, 0, "longcreate,nolongcreate"));
	EXPECT_FALSE(nlc_is_ro(self));
	EXPECT_FALSE(nlc_shows(_metadata, self, "nolongcreate"));
	/* no effect: msdos still truncates a long name without a word */
	EXPECT_EQ(0, nlc_creat(nlc_p(self, "MSDOS.TXT")));
	EXPECT_EQ(0, nlc_creat(nlc_p(self, "verylongname.foobar")));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, "VERYLONG.FOO"), NULL));
	nlc_umount(_metadata, self);

	EXPECT_EQ(EINVAL, nlc_mount_fs(self, "msdos", "nolongcreate"));
	if (self->mounted)
		nlc_umount(_metadata, self);
	EXPECT_EQ(EINVAL, nlc_mount_fs(self, "msdos", "longcreate"));
	if (self->mounted)
		nlc_umount(_metadata, self);
}

/*
 * A value given to (no)longcreate fails the remount, as at mount time, and
 * nothing of it is applied (neither ro nor a valid (no)longcreate beside it)
 */
TEST_F(nlc, remount_refuses_bad_values)
{
	int fd;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_mount(_metadata, self, variant, "longcreate");
	EXPECT_EQ(EINVAL, nlc_remount(self, 0, "nolongcreate=1"));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, NLC_LONG);

	ASSERT_EQ(0, nlc_remount(self, 0, "nolongcreate"));
	EXPECT_EQ(EINVAL, nlc_remount(self, 0, "longcreate=yes"));
	EXPECT_EQ(EINVAL, nlc_remount(self, 0, "longcreate="));
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, "another long name.txt");
	nlc_expect_accepted(_metadata, self, "short1.txt");

	/* a bad value fails the whole remount: neither ro nor longcreate */
	EXPECT_EQ(EINVAL, nlc_remount(self, MS_RDONLY, "longcreate,nolongcreate=1"));
	EXPECT_FALSE(nlc_is_ro(self));
	nlc_expect_state(_metadata, self, true);
	EXPECT_EQ(EINVAL, nlc_remount(self, 0, "nolongcreate=0"));
	nlc_expect_state(_metadata, self, true);
	ASSERT_EQ(0, nlc_remount(self, MS_RDONLY, "longcreate"));
	EXPECT_TRUE(nlc_is_ro(self));
	ASSERT_EQ(0, nlc_remount(self, 0, ""));
	EXPECT_FALSE(nlc_is_ro(self));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, "a third long name.txt");

	/* refused before the option is applied: a file is open for writing */
	ASSERT_EQ(0, nlc_remount(self, 0, "longcreate"));
	fd = open(nlc_p(self, "short1.txt"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EBUSY, nlc_remount(self, MS_RDONLY, "nolongcreate"));
	close(fd);
	EXPECT_FALSE(nlc_is_ro(self));
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, "a fourth long name.txt");
	nlc_umount(_metadata, self);
}

/* ---------------------------------------------------------------------- */
/* refused names */

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

/* The entry readdir of @dir lists with inode @ino, into @out */
static bool nlc_dir_ino(const char *dir, ino_t ino, char *out, size_t size)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	struct stat st;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!stat(path, &st) && st.st_ino == ino) {
			snprintf(out, size, "%s", de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/*
 * After a cold mount: an accepted @rel is found by the name used, and
 * readdir shows the entry of that inode exactly as the name was typed.
 */
static void nlc_expect_found_cold(struct __test_metadata *_metadata,
				  struct _test_data_nlc *self, const char *rel,
				  const char *what)
{
	char dir[PATH_MAX], shown[NAME_MAX + 1];
	const char *base = strrchr(rel, '/');
	struct stat st;
	int err;

	base = base ? base + 1 : rel;
	snprintf(dir, sizeof(dir), "%s", nlc_p(self, rel));
	*strrchr(dir, '/') = '\0';
	err = nlc_stat_err(nlc_p(self, rel), &st);
	EXPECT_EQ(0, err) {
		TH_LOG("%s: \"%s\" accepted, not found after mount: %s",
		       what, nlc_show(rel), strerror(err));
	}
	if (err)
		return;
	ASSERT_TRUE(nlc_dir_ino(dir, st.st_ino, shown, sizeof(shown))) {
		TH_LOG("%s: \"%s\": readdir lists no name for inode %lu",
		       what, nlc_show(rel), (unsigned long)st.st_ino);
	}
	EXPECT_STREQ(base, shown) {
		TH_LOG("%s: \"%s\" shown as \"%s\"", what, nlc_show(base),
		       nlc_show(shown));
	}
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
/* long names already on the volume */

#define NLC_REPORT "Long Report.txt"
#define NLC_ANOTHER "another long name.dat"
#define NLC_LDIR "Long Directory"
#define NLC_INNER "Long Directory/inner long file.txt"
#define NLC_EMPTY "Empty Long Dir"

/* Make long names on a longcreate mount, then unmount */
static void nlc_populate_long(struct __test_metadata *_metadata,
			      struct _test_data_nlc *self,
			      const struct _fixture_variant_nlc *variant)
{
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
}

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

static void nlc_raw_root(struct __test_metadata *_metadata,
			 struct _test_data_nlc *self, struct fat_raw_dir *dir)
{
	nlc_raw_dir(_metadata, self, NULL, dir);
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

TEST_F(nlc, existing_long_names_stay_usable)
{
	struct nlc_slots another, empty;
	struct fat_raw_dir dir;
	unsigned int lfn_before;
	unsigned int i;
	int fd;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_ANOTHER, &another);
	nlc_find_long(&dir, NLC_EMPTY, &empty);
	lfn_before = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);
	ASSERT_LE(0, another.sfn);
	ASSERT_LE(0, empty.sfn);

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
	for (i = another.first; i <= (unsigned int)another.sfn; i++)
		EXPECT_EQ(DELETED_FLAG, dir.ents[i].name[0]);
	for (i = empty.first; i <= (unsigned int)empty.sfn; i++)
		EXPECT_EQ(DELETED_FLAG, dir.ents[i].name[0]);
	nlc_find_long(&dir, NLC_REPORT, &another);
	EXPECT_LE(0, another.sfn);
	EXPECT_EQ(another.nr, nlc_live_lfn(&dir));
	EXPECT_GT(lfn_before, nlc_live_lfn(&dir));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
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
	struct nlc_slots another, ldir, report;
	struct fat_raw_dir dir;
	unsigned int lfn_before;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_ANOTHER, &another);
	nlc_find_long(&dir, NLC_LDIR, &ldir);
	nlc_find_long(&dir, NLC_REPORT, &report);
	lfn_before = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);
	ASSERT_LE(0, another.sfn);
	ASSERT_LE(0, ldir.sfn);

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
	nlc_expect_freed(_metadata, &dir, &another, NLC_ANOTHER);
	nlc_expect_plain(_metadata, &dir, "SHORT   DAT",
			 CASE_LOWER_BASE | CASE_LOWER_EXT);
	EXPECT_EQ(lfn_before - another.nr, nlc_live_lfn(&dir));
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
	nlc_expect_freed(_metadata, &dir, &ldir, NLC_LDIR);
	nlc_expect_plain(_metadata, &dir, "LDIR       ", 0);
	EXPECT_EQ(lfn_before - another.nr - ldir.nr, nlc_live_lfn(&dir));
	nlc_expect_same_slots(_metadata, &dir, &report, NLC_REPORT);
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

TEST_F(nlc, rename_to_new_long_name_fails_and_keeps_both)
{
	struct nlc_slots report, ldir;
	struct fat_raw_dir dir;
	unsigned int lfn_before;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_REPORT, &report);
	nlc_find_long(&dir, NLC_LDIR, &ldir);
	lfn_before = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);

	nlc_mount(_metadata, self, variant, "nolongcreate");
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, NLC_REPORT),
				       nlc_p(self, "Renamed Report.txt")) ?
				errno : 0);
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, "SHORT.TXT"),
				       nlc_p(self, "short long name.txt")) ?
				errno : 0);
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, NLC_LDIR),
				       nlc_p(self, "Other Long Directory")) ?
				errno : 0);
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, NLC_INNER),
				       nlc_p(self, "another inner file.txt")) ?
				errno : 0);
	EXPECT_EQ(ENAMETOOLONG, rename(nlc_p(self, NLC_REPORT),
				       nlc_p(self, "Long Directory/moved.text")) ?
				errno : 0);
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

	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_same_slots(_metadata, &dir, &report, NLC_REPORT);
	nlc_expect_same_slots(_metadata, &dir, &ldir, NLC_LDIR);
	EXPECT_EQ(lfn_before, nlc_live_lfn(&dir));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

TEST_F(nlc, rename_exchange_with_long_name_works)
{
	struct nlc_slots report, ldir;
	struct fat_raw_dir dir;
	unsigned int lfn_before;
	int err;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_REPORT, &report);
	nlc_find_long(&dir, NLC_LDIR, &ldir);
	lfn_before = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);

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

	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_same_slots(_metadata, &dir, &report, NLC_REPORT);
	nlc_expect_same_slots(_metadata, &dir, &ldir, NLC_LDIR);
	EXPECT_EQ(lfn_before, nlc_live_lfn(&dir));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
}

/* An editor's save: write a temporary file, rename it onto the original */
TEST_F(nlc, atomic_save_onto_long_name_keeps_it)
{
	struct nlc_slots report;
	struct fat_raw_dir dir;
	unsigned int lfn_before;
	struct stat st;

	if (nlc_skipped(_metadata, self))
		return;
	nlc_populate_long(_metadata, self, variant);
	nlc_raw_root(_metadata, self, &dir);
	nlc_find_long(&dir, NLC_REPORT, &report);
	lfn_before = nlc_live_lfn(&dir);
	fat_raw_free_dir(&dir);

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

	nlc_raw_root(_metadata, self, &dir);
	nlc_expect_same_slots(_metadata, &dir, &report, NLC_REPORT);
	EXPECT_EQ(lfn_before, nlc_live_lfn(&dir));
	EXPECT_GT(0, fat_raw_find(&dir, (const unsigned char *)"SAVE    TMP"));
	fat_raw_free_dir(&dir);
	nlc_fsck(_metadata, self);
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
		{ "\u00f5.TXT", "\xf5.TXT", EINVAL },
		{ "\u00f5x", "\xf5x", EINVAL },
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

/* ---------------------------------------------------------------------- */
/*
 * The mount configurations: each name created under nolongcreate is either
 * refused, writing nothing, or found again by the very name after a cold
 * mount.  One image per configuration (FAT16, 8 MiB).
 */

FIXTURE(nlc_cfg) {
	FIXTURE_DATA(nlc) n;
	FIXTURE_VARIANT(nlc) base;
};

FIXTURE_VARIANT(nlc_cfg) {
	unsigned int idx;	/* column in nlc_cfg_rows[].want */
	bool utf8;		/* names are UTF-8, else iso8859-1 */
	const char *opts;
};

#define NLC_CFG_N 11

FIXTURE_VARIANT_ADD(nlc_cfg, latin1) {
	.idx = 0, .opts = "codepage=437,iocharset=iso8859-1,utf8=0",
};

FIXTURE_VARIANT_ADD(nlc_cfg, latin1_lower_relaxed) {
	.idx = 1,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=0,shortname=lower,check=relaxed",
};

FIXTURE_VARIANT_ADD(nlc_cfg, latin1_win95_nonumtail) {
	.idx = 2,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=0,shortname=win95,nonumtail",
};

FIXTURE_VARIANT_ADD(nlc_cfg, latin1_winnt_strict) {
	.idx = 3,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=0,shortname=winnt,check=strict",
};

FIXTURE_VARIANT_ADD(nlc_cfg, iocharset_utf8) {
	.idx = 4, .utf8 = true, .opts = "codepage=437,iocharset=utf8,utf8=0",
};

FIXTURE_VARIANT_ADD(nlc_cfg, iocharset_utf8_win95) {
	.idx = 5, .utf8 = true,
	.opts = "codepage=437,iocharset=utf8,utf8=0,shortname=win95",
};

FIXTURE_VARIANT_ADD(nlc_cfg, iocharset_utf8_lower) {
	.idx = 6, .utf8 = true,
	.opts = "codepage=437,iocharset=utf8,utf8=0,shortname=lower",
};

FIXTURE_VARIANT_ADD(nlc_cfg, utf8_lower) {
	.idx = 7, .utf8 = true,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=1,shortname=lower",
};

FIXTURE_VARIANT_ADD(nlc_cfg, utf8_winnt_strict) {
	.idx = 8, .utf8 = true,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=1,shortname=winnt,check=strict",
};

FIXTURE_VARIANT_ADD(nlc_cfg, utf8_mixed_normal) {
	.idx = 9, .utf8 = true,
	.opts = "codepage=437,iocharset=iso8859-1,utf8=1,shortname=mixed,check=normal",
};

/* uni_xlate turns utf8 off: names are iso8859-1 with :XXXX escapes */
FIXTURE_VARIANT_ADD(nlc_cfg, utf8_uni_xlate) {
	.idx = 10, .opts = "codepage=437,iocharset=iso8859-1,utf8=1,uni_xlate",
};

FIXTURE_SETUP(nlc_cfg)
{
	self->base.fat_bits = 16;
	self->base.mib = 8;
	self->base.spc = "1";
	self->base.utf8 = false;
	self->base.opts = NLC_CP437;
	nlc_setup(_metadata, &self->n, &self->base);
}

FIXTURE_TEARDOWN(nlc_cfg)
{
	nlc_teardown(_metadata, &self->n, &self->base);
}

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

	if (nlc_skipped(_metadata, n))
		return;
	snprintf(data, sizeof(data), "%s,nolongcreate", variant->opts);
	err = nlc_mount_fs(n, "vfat", data);
	if (err == EINVAL)
		SKIP(return, "mount -o %s: EINVAL (NLS not built?)", data);
	ASSERT_EQ(0, err) {
		TH_LOG("mount -o %s: %s", data, strerror(err));
	}

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
	int err;

	if (nlc_skipped(_metadata, n))
		return;
	snprintf(data, sizeof(data), "%s,nolongcreate", variant->opts);
	err = nlc_mount_fs(n, "vfat", data);
	if (err == EINVAL)
		SKIP(return, "mount -o %s: EINVAL (NLS not built?)", data);
	ASSERT_EQ(0, err);

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

/* ---------------------------------------------------------------------- */
/* a refused mkdir writes nothing, even where it would need a cluster */

FIXTURE(nlc_img) {
	FIXTURE_DATA(nlc) n;
	FIXTURE_VARIANT(nlc) base;
};

FIXTURE_VARIANT(nlc_img) {
	unsigned int fat_bits;
	unsigned int mib;
	const char *spc;
};

FIXTURE_VARIANT_ADD(nlc_img, fat12) {
	.fat_bits = 12, .mib = 4, .spc = "4",
};

FIXTURE_VARIANT_ADD(nlc_img, fat32) {
	.fat_bits = 32, .mib = 40, .spc = "1",
};

FIXTURE_SETUP(nlc_img)
{
	self->base.fat_bits = variant->fat_bits;
	self->base.mib = variant->mib;
	self->base.spc = variant->spc;
	self->base.utf8 = false;
	self->base.opts = NLC_CP437;
	nlc_setup(_metadata, &self->n, &self->base);
}

FIXTURE_TEARDOWN(nlc_img)
{
	nlc_teardown(_metadata, &self->n, &self->base);
}

static const struct {
	const char *name;
	int err;
} nlc_refused_dirs[] = {
	{ NLC_LDIR, ENAMETOOLONG }, { "a b", EINVAL }, { "dir.a.b", EINVAL },
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
	nlc_mount(_metadata, n, &self->base, NULL);
	ASSERT_EQ(0, nlc_fill(nlc_p(n, "FILL.BIN"), 0xA5));
	ASSERT_EQ(0ULL, nlc_free_blocks(n->mnt));
	ASSERT_EQ(0, unlink(nlc_p(n, "FILL.BIN")));
	ASSERT_EQ(0, mkdir(nlc_p(n, "SUB"), 0755));
	nlc_umount(_metadata, n);
	img = nlc_read_img(n, &size);
	ASSERT_NE(NULL, img);

	/* a mount and umount alone changes nothing */
	nlc_mount(_metadata, n, &self->base, "nolongcreate");
	nlc_umount(_metadata, n);
	ASSERT_TRUE(nlc_expect_same_img(_metadata, n, img, size,
					"mount, umount")) {
		TH_LOG("the image changes without a mkdir: not comparable");
	}

	nlc_mount(_metadata, n, &self->base, "nolongcreate");
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
	nlc_mount(_metadata, n, &self->base, "nolongcreate");
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

/* ---------------------------------------------------------------------- */
/*
 * The new mount API: fsopen, fsconfig, fsmount and move_mount to mount,
 * fspick to reconfigure.  Where fat has no fs_context of its own (before
 * v6.11), the legacy wrapper appends each parameter to the data string
 * mount(2) would pass, and fat parses that at FSCONFIG_CMD_CREATE or
 * FSCONFIG_CMD_RECONFIGURE.
 */

static int nlc_sys_fsopen(const char *fstype, unsigned int flags)
{
	return syscall(__NR_fsopen, fstype, flags);
}

static int nlc_sys_fsconfig(int fd, unsigned int cmd, const char *key,
			    const char *value, int aux)
{
	return syscall(__NR_fsconfig, fd, cmd, key, value, aux);
}

static int nlc_sys_fsmount(int fd, unsigned int flags, unsigned int attrs)
{
	return syscall(__NR_fsmount, fd, flags, attrs);
}

static int nlc_sys_move_mount(int from_dfd, const char *from, int to_dfd,
			      const char *to, unsigned int flags)
{
	return syscall(__NR_move_mount, from_dfd, from, to_dfd, to, flags);
}

static int nlc_sys_fspick(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_fspick, dfd, path, flags);
}

/*
 * fsconfig each option of the option string @opts ("key=value" as a
 * string, "key" as a flag), then @cmd.  0 or the errno of the call that
 * failed, which @step names.
 */
static int nlc_fsconfig_opts(int fd, const char *opts, unsigned int cmd,
			     char *step, size_t size)
{
	char buf[512], *save = NULL, *opt, *eq;
	int ret;

	snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
	for (opt = strtok_r(buf, ",", &save); opt;
	     opt = strtok_r(NULL, ",", &save)) {
		snprintf(step, size, "fsconfig \"%s\"", opt);
		eq = strchr(opt, '=');
		if (eq) {
			*eq = '\0';
			ret = nlc_sys_fsconfig(fd, FSCONFIG_SET_STRING, opt,
					       eq + 1, 0);
		} else {
			ret = nlc_sys_fsconfig(fd, FSCONFIG_SET_FLAG, opt,
					       NULL, 0);
		}
		if (ret)
			return errno;
	}
	snprintf(step, size, "%s", cmd == FSCONFIG_CMD_CREATE ?
		 "FSCONFIG_CMD_CREATE" : "FSCONFIG_CMD_RECONFIGURE");
	return nlc_sys_fsconfig(fd, cmd, NULL, NULL, 0) ? errno : 0;
}

/* Did it fail at the option @opt itself or at the command? */
static bool nlc_failed_at(const char *step, const char *opt)
{
	char want[128];

	snprintf(want, sizeof(want), "fsconfig \"%s\"", opt);
	return !strcmp(step, want) || !strncmp(step, "FSCONFIG_CMD_", 13);
}

/*
 * fsopen @fstype, "source" the loop device, @opts, FSCONFIG_CMD_CREATE.
 * The fs_context fd in *@fd (-1 if fsopen failed); 0 or errno.
 */
static int nlc_fs_create(struct _test_data_nlc *self, const char *fstype,
			 const char *opts, int *fd, char *step, size_t size)
{
	snprintf(step, size, "fsopen \"%s\"", fstype);
	*fd = nlc_sys_fsopen(fstype, FSOPEN_CLOEXEC);
	if (*fd < 0)
		return errno;
	snprintf(step, size, "fsconfig \"source\"");
	if (nlc_sys_fsconfig(*fd, FSCONFIG_SET_STRING, "source", self->dev, 0))
		return errno;
	return nlc_fsconfig_opts(*fd, opts, FSCONFIG_CMD_CREATE, step, size);
}

/* fsmount the created context @fd and move the mount onto self->mnt */
static int nlc_fs_attach(struct _test_data_nlc *self, int fd,
			 const char *opts, char *step, size_t size)
{
	int mfd, err = 0;

	snprintf(step, size, "fsmount");
	mfd = nlc_sys_fsmount(fd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0)
		return errno;
	snprintf(step, size, "move_mount to %s", self->mnt);
	if (nlc_sys_move_mount(mfd, "", AT_FDCWD, self->mnt,
			       MOVE_MOUNT_F_EMPTY_PATH))
		err = errno;
	close(mfd);
	if (err)
		return err;
	snprintf(self->opts, sizeof(self->opts), "%s", opts);
	self->mounted = true;
	return 0;
}

/*
 * fspick self->mnt, @opts, FSCONFIG_CMD_RECONFIGURE.  The fs_context fd
 * in *@fd (-1 if fspick failed); 0 or errno.
 */
static int nlc_fs_reconf(struct _test_data_nlc *self, const char *opts,
			 int *fd, char *step, size_t size)
{
	snprintf(step, size, "fspick %s", self->mnt);
	*fd = nlc_sys_fspick(AT_FDCWD, self->mnt, FSPICK_CLOEXEC);
	if (*fd < 0)
		return errno;
	return nlc_fsconfig_opts(*fd, opts, FSCONFIG_CMD_RECONFIGURE, step,
				 size);
}

/*
 * The messages in the log of fs_context @fd, " | " between them: their
 * number, or -errno if read() fails but with ENODATA (no more).
 */
static int nlc_fc_log(int fd, char *out, size_t size)
{
	char msg[512];
	size_t o = 0;
	ssize_t len;
	int n;

	out[0] = '\0';
	for (n = 0; n < 64; n++) {
		len = read(fd, msg, sizeof(msg) - 1);
		if (len < 0)
			return errno == ENODATA ? n : -errno;
		msg[len] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		if (o < size)
			o += snprintf(out + o, size - o, "%s%s",
				      n ? " | " : "", msg);
	}
	return n;
}

/* Does @text name @key, not as a part of a longer word? */
static bool nlc_names_key(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = strstr(text, key); p; p = strstr(p + 1, key)) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		if (isalnum((unsigned char)p[len]) || p[len] == '_')
			continue;
		return true;
	}
	return false;
}

/* Is the running kernel @major.@minor or later? */
static bool nlc_kernel_at_least(unsigned int major, unsigned int minor)
{
	struct utsname u;
	unsigned int ma, mi;

	if (uname(&u) || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * A parameter @key was refused on fs_context @fd: what its log says names
 * it and gives @reason.  fat parses its parameters with fs_context since
 * v6.11 (commit 634440b69c7f "fat: Convert to new mount api"): fs_parse()
 * or the VFS logs why one is refused ("e vfat: Unexpected value for
 * 'nolongcreate'"), so from 6.11 on the message is required.  Before, fat
 * sits behind the legacy wrapper, which logs nothing about fat's options.
 */
static void nlc_expect_logged(struct __test_metadata *_metadata, int fd,
			      const char *key, const char *reason,
			      const char *what)
{
	char log[1024];
	int n = nlc_fc_log(fd, log, sizeof(log));

	ASSERT_LE(0, n) {
		TH_LOG("%s: reading the fs_context log: %s", what,
		       strerror(-n));
	}
	if (n)
		TH_LOG("%s: fs_context log: %s", what, log);
	if (nlc_kernel_at_least(6, 11)) {
		EXPECT_LT(0, n) {
			TH_LOG("%s: the fs_context log is empty", what);
		}
		EXPECT_NE(NULL, strstr(log, reason)) {
			TH_LOG("%s: the log does not say \"%s\"", what,
			       reason);
		}
	}
	if (n) {
		EXPECT_TRUE(nlc_names_key(log, key)) {
			TH_LOG("%s: the log does not name \"%s\"", what, key);
		}
	}
}

/* Mount @fstype with @opts through the new mount API, or fail the test */
static void nlc_fsmount(struct __test_metadata *_metadata,
			struct _test_data_nlc *self, const char *fstype,
			const char *opts)
{
	char step[160], log[1024] = "";
	int fd, err;

	err = nlc_fs_create(self, fstype, opts, &fd, step, sizeof(step));
	if (!err)
		err = nlc_fs_attach(self, fd, opts, step, sizeof(step));
	if (err && fd >= 0)
		nlc_fc_log(fd, log, sizeof(log));
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, err) {
		TH_LOG("%s on %s with \"%s\": %s: %s", fstype, self->dev, opts,
		       step, strerror(err));
		if (log[0])
			TH_LOG("fs_context log: %s", log);
	}
}

/* Reconfigure self->mnt with @opts through fspick, or fail the test */
static void nlc_fsreconf(struct __test_metadata *_metadata,
			 struct _test_data_nlc *self, const char *opts)
{
	char step[160], log[1024] = "";
	int fd, err;

	err = nlc_fs_reconf(self, opts, &fd, step, sizeof(step));
	if (err && fd >= 0)
		nlc_fc_log(fd, log, sizeof(log));
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, err) {
		TH_LOG("reconfigure with \"%s\": %s: %s", opts ? opts : "",
		       step, strerror(err));
		if (log[0])
			TH_LOG("fs_context log: %s", log);
	}
}

/* Setup found a reason to skip, or the kernel has no fsopen: skip */

TEST_F(nlc, fsmount_with_nolongcreate_refuses_long_names)
{
	char opts[512];

	if (nlc_skipped(_metadata, self))
		return;
	/* the variant's options and "nolongcreate" (a flag) by fsconfig */
	snprintf(opts, sizeof(opts), "%s,nolongcreate", variant->opts);
	nlc_fsmount(_metadata, self, "vfat", opts);
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, NLC_LONG);
	/* 8 characters with a space: EINVAL, not too long */
	EXPECT_EQ(EINVAL, mkdir(nlc_p(self, "long dir"), 0755) ? errno : 0);
	nlc_expect_accepted(_metadata, self, "short.txt");

	/* found again by its name, with no cached dentry */
	nlc_umount(_metadata, self);
	nlc_fsmount(_metadata, self, "vfat", opts);
	nlc_expect_state(_metadata, self, true);
	nlc_expect_found_cold(_metadata, self, "short.txt", "fsmount");
	EXPECT_TRUE(nlc_dir_lists(self->mnt, "short.txt"));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, NLC_LONG), NULL));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, "long dir"), NULL));
	nlc_umount(_metadata, self);
	nlc_expect_no_long(_metadata, self);
	nlc_fsck(_metadata, self);
}

TEST_F(nlc, fspick_reconfigure_toggles_option)
{
	static const char *const made[] = {
		"long name one.txt", "short2.txt", "long name four.txt",
	};
	static const char *const refused[] = {
		"long name two.txt", "long name three.txt",
	};
	char opts[512];
	struct nlc_scan s;
	size_t i;

	if (nlc_skipped(_metadata, self))
		return;
	snprintf(opts, sizeof(opts), "%s,nolongcreate", variant->opts);
	nlc_fsmount(_metadata, self, "vfat", opts);
	nlc_expect_state(_metadata, self, true);

	/* each reconfigure returned 0: the state and the creates follow */
	nlc_fsreconf(_metadata, self, "longcreate");
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, made[0]);

	nlc_fsreconf(_metadata, self, "nolongcreate");
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, refused[0]);
	nlc_expect_accepted(_metadata, self, made[1]);

	/* a reconfigure that names neither option keeps the state */
	nlc_fsreconf(_metadata, self, NULL);
	nlc_expect_state(_metadata, self, true);
	nlc_expect_refused(_metadata, self, refused[1]);
	nlc_fsreconf(_metadata, self, "longcreate");
	nlc_fsreconf(_metadata, self, NULL);
	nlc_expect_state(_metadata, self, false);
	nlc_expect_accepted(_metadata, self, made[2]);

	/* after a cold mount: the accepted names, and only those */
	nlc_umount(_metadata, self);
	nlc_fsmount(_metadata, self, "vfat", variant->opts);
	for (i = 0; i < ARRAY_SIZE(made); i++)
		nlc_expect_found_cold(_metadata, self, made[i], "fspick");
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, refused[i]), NULL));
	nlc_umount(_metadata, self);
	nlc_raw_scan(_metadata, self, &s);
	EXPECT_EQ(2U, s.with_long);
	EXPECT_EQ(3U, s.sfn);
	nlc_fsck(_metadata, self);
}

/* One FAT16 image: what these tests check depends on no FAT type */
FIXTURE(nlc_fc) {
	FIXTURE_DATA(nlc) n;
	FIXTURE_VARIANT(nlc) base;
};

FIXTURE_SETUP(nlc_fc)
{
	self->base.fat_bits = 16;
	self->base.mib = 8;
	self->base.spc = "1";
	self->base.utf8 = false;
	self->base.opts = NLC_CP437;
	nlc_setup(_metadata, &self->n, &self->base);
}

FIXTURE_TEARDOWN(nlc_fc)
{
	nlc_teardown(_metadata, &self->n, &self->base);
}

/* Why fs_parser refuses a flag given a value, and a key it does not know */
#define NLC_VALUE_REFUSED "Unexpected value for"
#define NLC_UNKNOWN_REFUSED "Unknown parameter"

/*
 * Either option with a value; the key is what precedes the '='.  At mount,
 * one spec entry, fsparam_flag_no("longcreate"): fs_parse() takes the "no"
 * form only as a flag, so "nolongcreate=1" is an unknown key (logged by the
 * VFS) and "longcreate=1" a flag with a value (logged by fs_parse()).  On
 * reconfigure, vfat_remount_spec declares both as flags: a value to either
 * is logged by fs_parse().
 */
static const struct {
	const char *opt;
	const char *mount, *reconf;	/* the reason logged */
} nlc_fc_bad[] = {
	{ "nolongcreate=1", NLC_UNKNOWN_REFUSED, NLC_VALUE_REFUSED },
	{ "longcreate=1", NLC_VALUE_REFUSED, NLC_VALUE_REFUSED },
};

static void nlc_fc_key(const char *opt, char *key, size_t size)
{
	snprintf(key, size, "%.*s", (int)strcspn(opt, "="), opt);
}

/* Refused at fsconfig (fs_context) or at FSCONFIG_CMD_CREATE (legacy) */
TEST_F(nlc_fc, fsmount_option_with_value_fails_einval)
{
	struct _test_data_nlc *n = &self->n;
	char opts[512], step[160], key[32];
	size_t i;
	int fd, err;

	if (nlc_skipped(_metadata, n))
		return;
	for (i = 0; i < ARRAY_SIZE(nlc_fc_bad); i++) {
		snprintf(opts, sizeof(opts), "%s,%s", self->base.opts,
			 nlc_fc_bad[i].opt);
		nlc_fc_key(nlc_fc_bad[i].opt, key, sizeof(key));
		err = nlc_fs_create(n, "vfat", opts, &fd, step, sizeof(step));
		ASSERT_LE(0, fd) {
			TH_LOG("%s: %s", step, strerror(err));
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("\"%s\": %s: %s", nlc_fc_bad[i].opt, step,
			       strerror(err));
		}
		EXPECT_TRUE(nlc_failed_at(step, nlc_fc_bad[i].opt)) {
			TH_LOG("\"%s\": failed at %s", nlc_fc_bad[i].opt, step);
		}
		nlc_expect_logged(_metadata, fd, key, nlc_fc_bad[i].mount,
				  nlc_fc_bad[i].opt);
		close(fd);
	}
	/* without the value, the same options mount */
	snprintf(opts, sizeof(opts), "%s,nolongcreate", self->base.opts);
	nlc_fsmount(_metadata, n, "vfat", opts);
	nlc_expect_state(_metadata, n, true);
	nlc_umount(_metadata, n);
}

/*
 * A reconfigure refuses a value given to (no)longcreate, as remount does:
 * fsconfig fails with EINVAL, the log says why, the state stays
 */
TEST_F(nlc_fc, fspick_option_with_value_is_refused)
{
	struct _test_data_nlc *n = &self->n;
	char opts[512], step[160], key[32], rel[32];
	bool nolong;
	size_t i;
	int fd, err, k;

	if (nlc_skipped(_metadata, n))
		return;
	snprintf(opts, sizeof(opts), "%s,nolongcreate", self->base.opts);
	nlc_fsmount(_metadata, n, "vfat", opts);
	for (k = 0; k < 2; k++) {
		nolong = !k;
		if (!nolong)
			nlc_fsreconf(_metadata, n, "longcreate");
		for (i = 0; i < ARRAY_SIZE(nlc_fc_bad); i++) {
			nlc_fc_key(nlc_fc_bad[i].opt, key, sizeof(key));
			err = nlc_fs_reconf(n, nlc_fc_bad[i].opt, &fd, step,
					    sizeof(step));
			ASSERT_LE(0, fd) {
				TH_LOG("%s: %s", step, strerror(err));
			}
			EXPECT_EQ(EINVAL, err) {
				TH_LOG("\"%s\": %s: %s", nlc_fc_bad[i].opt, step,
				       strerror(err));
			}
			nlc_expect_logged(_metadata, fd, key,
					  nlc_fc_bad[i].reconf, nlc_fc_bad[i].opt);
			close(fd);
			nlc_expect_state(_metadata, n, nolong);
		}
		snprintf(rel, sizeof(rel), "long name %d.txt", k);
		if (nolong)
			nlc_expect_refused(_metadata, n, rel);
		else
			nlc_expect_accepted(_metadata, n, rel);
	}
	nlc_umount(_metadata, n);
}

TEST_F(nlc_fc, msdos_refuses_option_at_fsconfig_ignores_it_on_reconfigure)
{
	static const char *const opts[] = { "nolongcreate", "longcreate" };
	struct _test_data_nlc *n = &self->n;
	char step[160];
	size_t i;
	int fd, err;

	if (nlc_skipped(_metadata, n))
		return;
	fd = nlc_sys_fsopen("msdos", FSOPEN_CLOEXEC);
	if (fd < 0 && errno == ENODEV)
		SKIP(return, "kernel has no msdos filesystem (CONFIG_MSDOS_FS)");
	ASSERT_LE(0, fd) {
		TH_LOG("fsopen \"msdos\": %s", strerror(errno));
	}
	close(fd);
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		err = nlc_fs_create(n, "msdos", opts[i], &fd, step,
				    sizeof(step));
		ASSERT_LE(0, fd) {
			TH_LOG("%s: %s", step, strerror(err));
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("msdos \"%s\": %s: %s", opts[i], step,
			       strerror(err));
		}
		EXPECT_TRUE(nlc_failed_at(step, opts[i])) {
			TH_LOG("msdos \"%s\": failed at %s", opts[i], step);
		}
		nlc_expect_logged(_metadata, fd, opts[i],
				  NLC_UNKNOWN_REFUSED, opts[i]);
		close(fd);
	}

	/* reconfiguring an msdos mount ignores them: no effect */
	nlc_fsmount(_metadata, n, "msdos", "");
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		err = nlc_fs_reconf(n, opts[i], &fd, step, sizeof(step));
		ASSERT_LE(0, fd) {
			TH_LOG("%s: %s", step, strerror(err));
		}
		EXPECT_EQ(0, err) {
			TH_LOG("msdos reconfigure \"%s\": %s: %s", opts[i],
			       step, strerror(err));
		}
		close(fd);
	}
	EXPECT_FALSE(nlc_shows(_metadata, n, "nolongcreate"));
	EXPECT_EQ(0, nlc_creat(nlc_p(n, "MSDOS.TXT")));
	/* msdos still truncates a long name without a word */
	EXPECT_EQ(0, nlc_creat(nlc_p(n, "verylongname.foobar")));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(n, "VERYLONG.FOO"), NULL));
	nlc_umount(_metadata, n);
}

/* ---------------------------------------------------------------------- */
/* toggling the option by remount while creates run */

#define NLC_THREADS 3
#define NLC_MAX_CREATES 3000	/* per thread */
#define NLC_MAX_REMOUNTS 2000
#define NLC_PER_DIR 40		/* creates per directory */
/*
 * How long each variant toggles.  Under TCG, 1 s gives ~45 remounts and
 * ~140 long creates wholly inside nolongcreate windows per variant.
 */
#define NLC_TOGGLE_MS 1000

struct nlc_create {
	struct timespec start, end;
	unsigned int seq;
	int err;
	bool lng;
};

struct nlc_remount_ev {
	struct timespec start, end;
	bool nolong;
	int err;
};

struct nlc_load {
	struct _test_data_nlc *self;
	bool stop;		/* __atomic */
	unsigned int thread;
	struct nlc_create *ev;
	unsigned int nr;
	int setup_err;
};

static void nlc_load_name(char *buf, size_t size, const char *mnt,
			  unsigned int t, unsigned int seq, bool lng)
{
	unsigned int d = seq / NLC_PER_DIR;

	if (lng)
		snprintf(buf, size, "%s/T%u/D%u/long name t%u n%06u.txt", mnt,
			 t, d, t, seq);
	else
		snprintf(buf, size, "%s/T%u/D%u/S%u%06u.TXT", mnt, t, d, t,
			 seq);
}

static void *nlc_load_worker(void *arg)
{
	struct nlc_load *l = arg;
	struct timespec pause = { 0, 500000 };
	char path[PATH_MAX];
	unsigned int seq;

	for (seq = 0; seq < NLC_MAX_CREATES &&
	     !__atomic_load_n(&l->stop, __ATOMIC_RELAXED); seq++) {
		struct nlc_create *c = &l->ev[l->nr];

		if (!(seq % NLC_PER_DIR)) {
			snprintf(path, sizeof(path), "%s/T%u/D%u", l->self->mnt,
				 l->thread, seq / NLC_PER_DIR);
			if (mkdir(path, 0755)) {
				l->setup_err = errno;
				break;
			}
		}
		c->seq = seq;
		c->lng = seq & 1;
		nlc_load_name(path, sizeof(path), l->self->mnt, l->thread, seq,
			      c->lng);
		clock_gettime(CLOCK_MONOTONIC, &c->start);
		c->err = nlc_creat(path);
		clock_gettime(CLOCK_MONOTONIC, &c->end);
		l->nr++;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static int nlc_ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

/* Per thread and sequence number: did its create succeed? */
struct nlc_found {
	unsigned char ok[NLC_THREADS][NLC_MAX_CREATES];	/* 1: created */
	unsigned char seen[NLC_THREADS][NLC_MAX_CREATES];
	unsigned int longs, shorts, lfn, lfn_named, bad;
	char bad_name[128];
};

static int nlc_found_cb(const struct fat_raw_dir *dir, unsigned int idx,
			unsigned int depth, void *arg)
{
	const struct msdos_dir_entry *de = &dir->ents[idx];
	struct nlc_found *f = arg;
	unsigned int t, seq, first;
	char name[1024];
	int n, len;

	(void)depth;
	if (fat_raw_is_lfn(de)) {
		f->lfn++;
		return 0;
	}
	if (!fat_raw_is_sfn(de) || (de->attr & ATTR_DIR))
		return 0;
	n = fat_raw_long_name(dir, idx, name, sizeof(name), &first);
	if (!n) {
		f->shorts++;
		return 0;
	}
	f->lfn_named += n;
	f->longs++;
	len = 0;
	if (sscanf(name, "long name t%u n%u.txt%n", &t, &seq, &len) != 2 ||
	    (size_t)len != strlen(name) || t >= NLC_THREADS ||
	    seq >= NLC_MAX_CREATES || f->ok[t][seq] != 1 || f->seen[t][seq]) {
		if (!f->bad)
			snprintf(f->bad_name, sizeof(f->bad_name), "%s", name);
		f->bad++;
		return 0;
	}
	f->seen[t][seq] = 1;
	return 0;
}

TEST_F_TIMEOUT(nlc, toggle_under_load_is_atomic, 180)
{
	struct nlc_load load[NLC_THREADS];
	struct nlc_remount_ev *rm;
	struct nlc_found *found;
	struct timespec now, deadline, pause = { 0, 20000000 };
	pthread_t tid[NLC_THREADS];
	unsigned int nr_rm = 0, t, i, k;
	unsigned int refused_sure = 0, accepted_sure = 0;
	unsigned int long_ok = 0, short_ok = 0;
	char path[PATH_MAX];

	if (nlc_skipped(_metadata, self))
		return;
	rm = calloc(NLC_MAX_REMOUNTS, sizeof(*rm));
	found = calloc(1, sizeof(*found));
	ASSERT_NE(NULL, rm);
	ASSERT_NE(NULL, found);
	nlc_mount(_metadata, self, variant, "longcreate");
	for (t = 0; t < NLC_THREADS; t++) {
		snprintf(path, sizeof(path), "%s/T%u", self->mnt, t);
		ASSERT_EQ(0, mkdir(path, 0755));
		memset(&load[t], 0, sizeof(load[t]));
		load[t].self = self;
		load[t].thread = t;
		load[t].ev = calloc(NLC_MAX_CREATES, sizeof(*load[t].ev));
		ASSERT_NE(NULL, load[t].ev);
	}
	for (t = 0; t < NLC_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&tid[t], NULL, nlc_load_worker,
					    &load[t]));

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += NLC_TOGGLE_MS / 1000;
	deadline.tv_nsec += (NLC_TOGGLE_MS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	do {
		struct nlc_remount_ev *r = &rm[nr_rm];

		nanosleep(&pause, NULL);
		r->nolong = !(nr_rm & 1);
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		r->err = nlc_remount(self, 0, r->nolong ? "nolongcreate" :
							  "longcreate");
		clock_gettime(CLOCK_MONOTONIC, &r->end);
		nr_rm++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (nlc_ts_cmp(&now, &deadline) < 0 &&
		 nr_rm < NLC_MAX_REMOUNTS);
	for (t = 0; t < NLC_THREADS; t++)
		__atomic_store_n(&load[t].stop, true, __ATOMIC_RELAXED);
	for (t = 0; t < NLC_THREADS; t++)
		pthread_join(tid[t], NULL);
	TH_LOG("%u remounts, %u+%u+%u creates", nr_rm, load[0].nr, load[1].nr,
	       load[2].nr);

	for (i = 0; i < nr_rm; i++)
		ASSERT_EQ(0, rm[i].err);
	for (t = 0; t < NLC_THREADS; t++) {
		ASSERT_EQ(0, load[t].setup_err);
		for (i = 0; i < load[t].nr; i++) {
			struct nlc_create *c = &load[t].ev[i];
			int window = -1;	/* 0: longcreate, 1: nolongcreate */

			if (!c->lng) {
				EXPECT_EQ(0, c->err) {
					TH_LOG("8.3 create t%u n%u: %s", t,
					       c->seq, strerror(c->err));
				}
				short_ok += !c->err;
				continue;
			}
			EXPECT_TRUE(!c->err || c->err == ENAMETOOLONG) {
				TH_LOG("long create t%u n%u: %s", t, c->seq,
				       strerror(c->err));
			}
			if (!c->err) {
				long_ok++;
				found->ok[t][c->seq] = 1;
			}
			/* wholly after remount k returned, before k+1 began? */
			if (nlc_ts_cmp(&c->end, &rm[0].start) < 0)
				window = 0;
			for (k = 0; k < nr_rm && window < 0; k++) {
				if (nlc_ts_cmp(&c->start, &rm[k].end) <= 0)
					break;
				if (k + 1 < nr_rm &&
				    nlc_ts_cmp(&c->end, &rm[k + 1].start) >= 0)
					continue;
				window = rm[k].nolong;
			}
			if (window == 1) {
				refused_sure++;
				EXPECT_EQ(ENAMETOOLONG, c->err) {
					TH_LOG("t%u n%u [%.6f, %.6f] under nolongcreate: %s",
					       t, c->seq, nlc_ts(&c->start),
					       nlc_ts(&c->end),
					       strerror(c->err));
				}
			} else if (window == 0) {
				accepted_sure++;
				EXPECT_EQ(0, c->err) {
					TH_LOG("t%u n%u [%.6f, %.6f] under longcreate: %s",
					       t, c->seq, nlc_ts(&c->start),
					       nlc_ts(&c->end),
					       strerror(c->err));
				}
			}
		}
	}
	TH_LOG("long creates: %u accepted; %u in nolongcreate, %u in longcreate windows",
	       long_ok, refused_sure, accepted_sure);
	/* the test did real work */
	EXPECT_LE(4U, nr_rm);
	EXPECT_LT(0U, refused_sure);
	EXPECT_LT(0U, accepted_sure);

	/* the last remount was nolongcreate or longcreate: so is the mount */
	nlc_expect_state(_metadata, self, rm[nr_rm - 1].nolong);
	nlc_umount(_metadata, self);

	/* LFN slots exactly for the long names whose create succeeded */
	{
		struct fat_raw fr;
		int err;

		nlc_raw_open(_metadata, self, &fr);
		err = fat_raw_walk(&fr, nlc_found_cb, found);
		fat_raw_close(&fr);
		ASSERT_EQ(0, err);
	}
	EXPECT_EQ(0U, found->bad) {
		TH_LOG("unexpected long name \"%s\"", found->bad_name);
	}
	EXPECT_EQ(long_ok, found->longs);
	EXPECT_EQ(short_ok, found->shorts);
	EXPECT_EQ(found->lfn_named, found->lfn);
	nlc_fsck(_metadata, self);
	for (t = 0; t < NLC_THREADS; t++)
		free(load[t].ev);
	free(rm);
	free(found);
}

TEST_HARNESS_MAIN
