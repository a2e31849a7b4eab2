/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the in-guest programs fuzz/driver.c and
 * bench/bench.c: clocks, running a command, loop devices, images.
 * Only for the QEMU guest: these attach loop devices and mount.
 */
#ifndef NLC_GUEST_H
#define NLC_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/loop.h>

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run argv (PATH lookup), output to stderr; returns the exit status. */
static int run_argv(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		dup2(2, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Create a sparse image of @mib MiB and format it FAT@bits. */
static void make_image(const char *path, unsigned int mib, int bits,
		       int sec_per_clus)
{
	char b[8], s[8];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, (off_t)mib << 20) < 0)
		die("%s: %s", path, strerror(errno));
	close(fd);
	snprintf(b, sizeof(b), "%d", bits);
	snprintf(s, sizeof(s), "%d", sec_per_clus);
	{
		char *argv[] = { "mkfs.vfat", "-F", b, "-s", s, "-n", "NLC",
				 (char *)path, NULL };
		if (run_argv(argv))
			die("mkfs.vfat -F %s %s failed", b, path);
	}
}

/* Attach @path to a free loop device; its name goes to @dev. */
static int loop_attach(const char *path, char *dev, size_t size)
{
	int ctl, nr, lfd, ffd;

	ffd = open(path, O_RDWR);
	if (ffd < 0)
		die("%s: %s", path, strerror(errno));
	ctl = open("/dev/loop-control", O_RDWR);
	for (nr = 0; nr < 64; nr++) {
		int want = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : nr;

		if (want < 0)
			die("LOOP_CTL_GET_FREE: %s", strerror(errno));
		snprintf(dev, size, "/dev/loop%d", want);
		lfd = open(dev, O_RDWR);
		if (lfd < 0)
			continue;
		if (ioctl(lfd, LOOP_SET_FD, ffd) == 0) {
			close(ffd);
			if (ctl >= 0)
				close(ctl);
			return lfd;
		}
		close(lfd);
	}
	die("no free loop device for %s", path);
}

static void loop_detach(int lfd)
{
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
}

#endif /* NLC_GUEST_H */
