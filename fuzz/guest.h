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
#include <sys/klog.h>
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

/*
 * Time.  Under QEMU TCG the guest kernel's clocksource watchdog marks the
 * TSC unstable and falls back to (refined-)jiffies: CLOCK_MONOTONIC then
 * moves in 4 ms steps (HZ=250), useless for per-call timings.  The guest's
 * TSC itself is the host's (TCG reads the host tick counter), so read it
 * directly and scale it by the frequency the kernel calibrated at boot
 * (/proc/cpuinfo "cpu MHz").  Falls back to CLOCK_MONOTONIC.
 */
static double tsc_hz;
static const char *clock_name = "CLOCK_MONOTONIC";

static inline unsigned long long rdtsc_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
#else
	return 0;
#endif
}

static void clock_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	char line[256];
	static char klog[1 << 17];
	FILE *f;
	double mhz = 0;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);

	/* the boot-time calibration: "tsc: Detected 2300.003 MHz processor" */
	if (n > 0) {
		char *p;

		klog[n] = 0;
		p = strstr(klog, "tsc: Detected ");
		if (p)
			mhz = strtod(p + 14, NULL);
	}
	if (mhz > 10) {
		tsc_hz = mhz * 1e6;
		clock_name = "rdtsc (boot calibration)";
		return;
	}
	/* /proc/cpuinfo, which may also say 0.000 */
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':')) {
			mhz = strtod(strchr(line, ':') + 1, NULL);
			break;
		}
	if (f)
		fclose(f);
	if (mhz > 10) {
		tsc_hz = mhz * 1e6;
		clock_name = "rdtsc";
	}
#endif
}

static inline double now_s(void)
{
	struct timespec ts;

	if (tsc_hz > 0)
		return rdtsc_now() / tsc_hz;
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
