/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the programs of the extended vfat "nolongcreate" suite share: the
 * nlc fixture (a fresh mkfs.vfat image per test on a loop device, mounted
 * in a private mount namespace; six variants: FAT12/16/32, cp437 or utf8),
 * fixtures on one image of their own (NLC_FIXTURE), and the helpers that
 * mount, read the image raw (fat_raw.h) and run fsck.vfat -n.
 */
#ifndef NLC_H
#define NLC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
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

#define NLC_NO_OPTION "kernel has no vfat nolongcreate option (mount: EINVAL)"
#define NLC_LONG "a long name.txt"

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

static inline bool nlc_find_tool(const char *name, char *out, size_t size)
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
static inline int nlc_run(char *const argv[], const char *log)
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

static inline void nlc_dump_log(struct __test_metadata *_metadata,
				const char *log)
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
static inline bool nlc_has_opt(const char *list, const char *opt)
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

static inline int nlc_umount_path(const char *path)
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

static inline int nlc_rm_cb(const char *path, const struct stat *st, int type,
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
static inline const char *nlc_show(const char *name)
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

static inline double nlc_ts(const struct timespec *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

static inline int nlc_creat(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static inline int nlc_write_file(const char *path, const char *data, int flags)
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
static inline bool nlc_file_is(const char *path, const char *data)
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
static inline int nlc_stat_err(const char *path, struct stat *st)
{
	struct stat tmp;

	return stat(path, st ? st : &tmp) ? errno : 0;
}

static inline bool nlc_dir_lists(const char *dir, const char *name)
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

static inline unsigned long long nlc_free_blocks(const char *path)
{
	struct statvfs sv;

	if (statvfs(path, &sv))
		return 0;
	return sv.f_bfree;
}

static inline int nlc_rename_exchange(const char *a, const char *b)
{
	if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE))
		return errno;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* loop device, mount and image helpers */

static inline int nlc_loop_attach(struct _test_data_nlc *self)
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
static inline int nlc_mount_fs(struct _test_data_nlc *self, const char *fstype,
			       const char *data)
{
	if (mount(self->dev, self->mnt, fstype, 0, data))
		return errno;
	snprintf(self->opts, sizeof(self->opts), "%s", data);
	self->mounted = true;
	return 0;
}

static inline int nlc_try_mount(struct _test_data_nlc *self,
				const struct _fixture_variant_nlc *variant,
				const char *extra)
{
	char data[512];

	snprintf(data, sizeof(data), "%s%s%s", variant->opts,
		 extra && *extra ? "," : "", extra ? extra : "");
	return nlc_mount_fs(self, "vfat", data);
}

static inline void nlc_mount(struct __test_metadata *_metadata,
			     struct _test_data_nlc *self,
			     const struct _fixture_variant_nlc *variant,
			     const char *extra)
{
	int err = nlc_try_mount(self, variant, extra);

	ASSERT_EQ(0, err) {
		TH_LOG("mount %s with \"%s,%s\": %s", self->dev, variant->opts,
		       extra ? extra : "", strerror(err));
	}
}

static inline void nlc_umount(struct __test_metadata *_metadata,
			      struct _test_data_nlc *self)
{
	int err = nlc_umount_path(self->mnt);

	ASSERT_EQ(0, err) {
		TH_LOG("umount %s: %s", self->mnt, strerror(-err));
	}
	self->mounted = false;
}

/* umount and mount again with the same options: no cached dentries */
static inline void nlc_cycle(struct __test_metadata *_metadata,
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

static inline int nlc_remount(struct _test_data_nlc *self, unsigned long flags,
			      const char *data)
{
	if (mount(NULL, self->mnt, NULL, MS_REMOUNT | flags, data))
		return errno;
	return 0;
}

/* The super options of our mount in /proc/self/mountinfo */
static inline bool nlc_super_opts(struct _test_data_nlc *self, char *out,
				  size_t size)
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

static inline bool nlc_shows(struct __test_metadata *_metadata,
			     struct _test_data_nlc *self, const char *opt)
{
	char opts[1024];

	/* a missing mount is a failure, not an option that is not shown */
	ASSERT_TRUE(nlc_super_opts(self, opts, sizeof(opts))) {
		TH_LOG("%s not in /proc/self/mountinfo", self->mnt);
	}
	return nlc_has_opt(opts, opt);
}

static inline const char *nlc_p(struct _test_data_nlc *self, const char *rel)
{
	static char buf[8][PATH_MAX];
	static int n;
	char *out = buf[n++ & 7];

	snprintf(out, PATH_MAX, "%s/%s", self->mnt, rel);
	return out;
}

static inline void nlc_fsck(struct __test_metadata *_metadata,
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

static inline void nlc_raw_open(struct __test_metadata *_metadata,
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
static inline void nlc_raw_dir(struct __test_metadata *_metadata,
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

/* The root directory of the image */
static inline void nlc_raw_root(struct __test_metadata *_metadata,
				struct _test_data_nlc *self,
				struct fat_raw_dir *dir)
{
	nlc_raw_dir(_metadata, self, NULL, dir);
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

static inline int nlc_scan_cb(const struct fat_raw_dir *dir, unsigned int idx,
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

static inline void nlc_raw_scan(struct __test_metadata *_metadata,
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
static inline void nlc_expect_no_long(struct __test_metadata *_metadata,
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
static inline bool nlc_skipped(struct __test_metadata *_metadata,
			       struct _test_data_nlc *self)
{
	if (!self->skip[0])
		return false;
	SKIP(, "%s", self->skip);
	return true;
}

/* Decode one UTF-8 character; its length, 0 if invalid */
static inline int nlc_utf8_char(const unsigned char *s, unsigned int *c)
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
static inline bool nlc_latin1(const char *in, char *out, size_t size)
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

/* A long name is refused: ENAMETOOLONG, nothing created */
static inline void nlc_expect_refused(struct __test_metadata *_metadata,
				      struct _test_data_nlc *self,
				      const char *rel)
{
	EXPECT_EQ(ENAMETOOLONG, nlc_creat(nlc_p(self, rel)));
	EXPECT_EQ(ENOENT, nlc_stat_err(nlc_p(self, rel), NULL));
}

static inline void nlc_expect_accepted(struct __test_metadata *_metadata,
				       struct _test_data_nlc *self,
				       const char *rel)
{
	EXPECT_EQ(0, nlc_creat(nlc_p(self, rel)));
	EXPECT_EQ(0, nlc_stat_err(nlc_p(self, rel), NULL));
}

static inline void nlc_expect_state(struct __test_metadata *_metadata,
				    struct _test_data_nlc *self, bool nolong)
{
	EXPECT_EQ(nolong, nlc_shows(_metadata, self, "nolongcreate"));
	/* "longcreate", the default, is never shown */
	EXPECT_FALSE(nlc_shows(_metadata, self, "longcreate"));
}

static inline bool nlc_is_ro(struct _test_data_nlc *self)
{
	struct statvfs sv;

	return !statvfs(self->mnt, &sv) && (sv.f_flag & ST_RDONLY);
}

/* The entry readdir of @dir lists with inode @ino, into @out */
static inline bool nlc_dir_ino(const char *dir, ino_t ino, char *out,
			       size_t size)
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
static inline void nlc_expect_found_cold(struct __test_metadata *_metadata,
					 struct _test_data_nlc *self,
					 const char *rel, const char *what)
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

/* The one image of the tests whose check depends on no FAT type */
static const FIXTURE_VARIANT(nlc) nlc_fat16 = {
	.fat_bits = 16, .mib = 8, .spc = "1", .utf8 = false, .opts = NLC_CP437,
};

/*
 * Fixture @f: the nlc fixture's data in self->n, on the image @base (an
 * expression of variant, e.g. &variant->base, or &nlc_fat16)
 */
#define NLC_FIXTURE(f, base)						\
	FIXTURE(f) {							\
		FIXTURE_DATA(nlc) n;					\
	};								\
	FIXTURE_SETUP(f)						\
	{								\
		nlc_setup(_metadata, &self->n, (base));			\
	}								\
	FIXTURE_TEARDOWN(f)						\
	{								\
		nlc_teardown(_metadata, &self->n, (base));		\
	}

#endif /* NLC_H */
