// SPDX-License-Identifier: GPL-2.0
/*
 * fakevfat.so - an LD_PRELOAD shim for host-test.sh: makes fat83 take a
 * plain directory of the host for a vfat one, so that its journal, undo,
 * what it leaves alone and how it prints names are tested without mounting
 * anything.  fstatfs says MSDOS_SUPER_MAGIC; VFAT_IOCTL_READDIR_BOTH lists
 * the directory (a name in 8.3 form of letters, digits, the punctuation an
 * 8.3 entry holds and bytes above 0x7E, its base and its extension each
 * in one case, is an 8.3 name, as shortname=mixed stores it; every other
 * one a long name with a made-up alias: its first 6 letters and digits,
 * ~1, the extension's first 3); FAT_IOCTL_GET_ATTRIBUTES says
 * hidden for a path with HIDDEN in it and system for one with SYSTEM;
 * with FAKEVFAT_FULL=N in the environment, a write to a regular file past
 * its first N bytes fails with ENOSPC (a card that fills up); with
 * FAKEVFAT_SIGNAL=N, the process gets SIGINT once it has written a regular
 * file past its first N bytes (Ctrl-C during a copy), or the signal
 * FAKEVFAT_SIGNO says instead (9: SIGKILL, a card pulled or a power cut);
 * with FAKEVFAT_RACE=NAME, the first renameat2 makes the file NAME in the
 * target's directory first (a name taken in the meantime); with
 * FAKEVFAT_NOFLAGS=ENOSYS or EINVAL, renameat2 with flags fails so (a
 * kernel or filesystem without RENAME_NOREPLACE).
 * Not vfat: the kernel's own behaviour is guest-test.sh's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/msdos_fs.h>

static int pos[1024];	/* READDIR_BOTH's position, per fd */

int fstatfs(int fd, struct statfs *b)
{
	int (*real)(int, struct statfs *) = dlsym(RTLD_NEXT, "fstatfs");
	int r = real(fd, b);

	if (!r)
		b->f_type = MSDOS_SUPER_MAGIC;
	return r;
}

off_t lseek(int fd, off_t off, int whence)
{
	off_t (*real)(int, off_t, int) = dlsym(RTLD_NEXT, "lseek");

	if (fd >= 0 && fd < 1024 && !off && whence == SEEK_SET)
		pos[fd] = 0;
	return real(fd, off, whence);
}

static int is83(const char *n)
{
	const char *d = strchr(n, '.');
	size_t b = d ? (size_t)(d - n) : strlen(n);
	int cases = 0;	/* per part: 1 upper, 2 lower seen */
	unsigned char c;

	if (!strcmp(n, ".") || !strcmp(n, ".."))
		return 1;
	if (b < 1 || b > 8 || (d && (strchr(d + 1, '.') || !d[1] || strlen(d + 1) > 3)))
		return 0;
	for (; *n; n++) {
		c = (unsigned char)*n;
		if (c == '.') {
			cases = 0;
			continue;
		}
		if (c < 0x80 && !isalnum(c) && !strchr("!#$%&'()-@^_`{}~", c))
			return 0;
		cases |= isupper(c) ? 1 : islower(c) ? 2 : 0;
		if (cases == 3)
			return 0;
	}
	return 1;
}

static int readdir_both(int fd, struct __fat_dirent *d)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY), i = 0, k;
	DIR *dir = dfd < 0 ? NULL : fdopendir(dfd);
	char base[7], ext[4];
	const char *p, *dot;
	struct dirent *e;

	if (!dir)
		return -1;
	while ((e = readdir(dir))) {
		if (i++ < pos[fd])
			continue;
		pos[fd]++;
		memset(d, 0, 2 * sizeof(*d));
		if (is83(e->d_name)) {
			snprintf(d[0].d_name, sizeof(d[0].d_name), "%s", e->d_name);
		} else {
			dot = strrchr(e->d_name, '.');
			for (k = 0, p = e->d_name; *p && p != dot && k < 6; p++)
				if (isalnum((unsigned char)*p))
					base[k++] = (char)toupper((unsigned char)*p);
			base[k] = 0;
			for (k = 0, p = dot ? dot + 1 : ""; *p && k < 3; p++)
				if (isalnum((unsigned char)*p))
					ext[k++] = (char)toupper((unsigned char)*p);
			ext[k] = 0;
			snprintf(d[0].d_name, sizeof(d[0].d_name), "%s~1%s%s", base,
				 *ext ? "." : "", ext);
			snprintf(d[1].d_name, sizeof(d[1].d_name), "%s", e->d_name);
			d[1].d_reclen = strlen(d[1].d_name);
		}
		d[0].d_reclen = strlen(d[0].d_name);
		closedir(dir);
		return 1;
	}
	closedir(dir);
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	int (*real)(int, unsigned long, void *) = dlsym(RTLD_NEXT, "ioctl");
	char link[64], path[4096];
	ssize_t n;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == VFAT_IOCTL_READDIR_BOTH && fd >= 0 && fd < 1024)
		return readdir_both(fd, arg);
	if (req == FAT_IOCTL_GET_ATTRIBUTES) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
		*(unsigned int *)arg = (strstr(path, "HIDDEN") ? ATTR_HIDDEN : 0) |
				       (strstr(path, "SYSTEM") ? ATTR_SYS : 0);
		return 0;
	}
	return real(fd, req, arg);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t (*real)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
	const char *full = getenv("FAKEVFAT_FULL");
	const char *sig = getenv("FAKEVFAT_SIGNAL");
	const char *signo = getenv("FAKEVFAT_SIGNO");
	struct stat st;
	ssize_t r;
	off_t at;

	if (full && fd > 2 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		at = lseek(fd, 0, SEEK_CUR);
		if (at >= 0 && at + (off_t)n > atol(full)) {
			errno = ENOSPC;
			return -1;
		}
	}
	r = real(fd, buf, n);
	if (sig && r > 0 && fd > 2 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    lseek(fd, 0, SEEK_CUR) > atol(sig)) {
		unsetenv("FAKEVFAT_SIGNAL");
		raise(signo ? atoi(signo) : SIGINT);
	}
	return r;
}

int renameat2(int od, const char *o, int nd, const char *n, unsigned int flags)
{
	int (*real)(int, const char *, int, const char *, unsigned int) =
		dlsym(RTLD_NEXT, "renameat2");
	const char *race = getenv("FAKEVFAT_RACE");
	const char *noflags = getenv("FAKEVFAT_NOFLAGS");
	int fd;

	if (noflags && flags) {
		errno = !strcmp(noflags, "EINVAL") ? EINVAL : ENOSYS;
		return -1;
	}
	if (race) {
		fd = openat(nd, race, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			if (write(fd, "raced\n", 6) != 6)
				errno = EIO;
			close(fd);
		}
		unsetenv("FAKEVFAT_RACE");
	}
	return real(od, o, nd, n, flags);
}
