// SPDX-License-Identifier: GPL-2.0
/*
 * The nolongcreate and longcreate options themselves: shown in mountinfo,
 * the last one given wins, a value is refused, msdos refuses them at mount
 * and ignores them on remount; remount and fspick reconfigure toggle them
 * and keep them otherwise; through mount(2) and the new mount API.
 */
#include "nlc.h"
#include <ctype.h>
#include <sys/utsname.h>

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
/* ---------------------------------------------------------------------- */
/* mount options */

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
NLC_FIXTURE(nlc_fc, &nlc_fat16)

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
		snprintf(opts, sizeof(opts), "%s,%s", nlc_fat16.opts,
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
	snprintf(opts, sizeof(opts), "%s,nolongcreate", nlc_fat16.opts);
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
	snprintf(opts, sizeof(opts), "%s,nolongcreate", nlc_fat16.opts);
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

TEST_HARNESS_MAIN
