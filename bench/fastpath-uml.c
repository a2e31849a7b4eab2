// SPDX-License-Identifier: GPL-2.0
/*
 * fastpath-uml.c - /init of the UML kernels of bench/fastpath-uml.sh: the
 * 8.3 fast path (patch "fat: show plain ASCII 8.3 names without the
 * charset round trip", patches/fastpath/) timed on the host CPU.  Static; the root is a
 * hostfs directory, the FAT image is /dev/ubda.  Its arguments follow
 * "--" on the kernel command line (read from /proc/cmdline):
 *
 *   prep N
 *	fill the freshly made image: UPPER/ with N names F0000001.TXT and
 *	LONG/ with N names "a long file name 0000001.txt" (vfat defaults),
 *	LOWER/ with N names f0000001.txt (vfat -o shortname=winnt: 8.3
 *	entries with the lower-case flags); then count each directory's
 *	slots from the raw image ("PREP ..." line).
 *
 *   bench KERNEL ROUND N REPS SAMPLE ABSENT WARM
 *	REPS times: mount the image read-only as vfat (default iocharset),
 *	vfat iocharset=utf8 and msdos (UPPER only), time the mount, and for
 *	each directory time a readdir right after the mount, WARM more
 *	readdirs, stats of
 *	SAMPLE present names spread over the directory (cold dentry cache)
 *	and stats of ABSENT absent names; and stat(".") (the system call
 *	cost); in the first rep, a cold "ls -l" (drop_caches 3, then readdir
 *	and a stat() of each name in readdir's order).  One "RAW kernel=
 *	round= rep= mount= dir= op= ns=" line each.
 *
 * Output goes to the console and to /out/result.txt (hostfs), which ends
 * with "DONE" if the workload completed; then the machine powers off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "fat_raw.h"

#define DEV "/dev/ubda"
#define MNT "/mnt"
#define MAXARGS 16

static FILE *out;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (out) {
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
		fflush(out);
	}
}

static void __attribute__((noreturn)) power_off(void)
{
	if (out) {
		fsync(fileno(out));
		fclose(out);
	}
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("FAIL %s\n", buf);
	power_off();
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { D_UPPER, D_LOWER, D_LONG, NDIRS };
static const char *const dir_path[NDIRS] = { MNT "/UPPER", MNT "/LOWER", MNT "/LONG" };
static const char *const dir_name11[NDIRS] = { "UPPER      ", "LOWER      ", "LONG       " };
static const char *const dir_short[NDIRS] = { "upper", "lower", "long" };

static void name_of(char *buf, int d, unsigned int i)
{
	static const char *const fmt[NDIRS] = {
		"F%07u.TXT", "f%07u.txt", "a long file name %07u.txt"
	};

	sprintf(buf, fmt[d], i + 1);
}

static void do_mount(const char *type, unsigned long flags, const char *data)
{
	if (mount(DEV, MNT, type, flags, data))
		die("mount -t %s -o '%s' %s: %s", type, data, DEV, strerror(errno));
}

static void do_umount(void)
{
	if (umount(MNT))
		die("umount: %s", strerror(errno));
}

static void create_all(int d, unsigned int n)
{
	char name[64];
	unsigned int i;
	int dfd, fd;

	if (mkdir(dir_path[d], 0755))
		die("mkdir %s: %s", dir_path[d], strerror(errno));
	dfd = open(dir_path[d], O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", dir_path[d], strerror(errno));
	for (i = 0; i < n; i++) {
		name_of(name, d, i);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s: %s", name, strerror(errno));
		close(fd);
	}
	close(dfd);
}

static void prep(unsigned int n)
{
	struct fat_raw fr;
	struct fat_raw_dir dir;
	unsigned int cl, k, used, sfn, lfn, lc;
	int d;

	do_mount("vfat", 0, "");
	create_all(D_UPPER, n);
	create_all(D_LONG, n);
	do_umount();
	do_mount("vfat", 0, "shortname=winnt");
	create_all(D_LOWER, n);
	do_umount();
	if (fat_raw_open(&fr, DEV))
		die("%s: not a FAT image", DEV);
	say("PREP FAT%u, %u-byte clusters, N=%u;", fr.fat_bits, fr.cluster_size, n);
	for (d = 0; d < NDIRS; d++) {
		if (fat_raw_subdir(&fr, 0, dir_name11[d], &cl) || fat_raw_read_dir(&fr, cl, &dir))
			die("no directory %s in the image", dir_name11[d]);
		used = fat_raw_used_slots(&dir);
		sfn = lfn = lc = 0;
		for (k = 0; k < used; k++) {
			if (fat_raw_is_lfn(&dir.ents[k]) && fat_raw_is_live(&dir.ents[k]))
				lfn++;
			else if (fat_raw_is_sfn(&dir.ents[k]) && !fat_raw_is_dot(&dir.ents[k])) {
				sfn++;
				if (dir.ents[k].lcase & (CASE_LOWER_BASE | CASE_LOWER_EXT))
					lc++;
			}
		}
		say(" %s: %u 8.3 entries (%u with lower-case flags), %u LFN slots%s",
		    dir_short[d], sfn, lc, lfn, d == NDIRS - 1 ? "\n" : ";");
		if (sfn != n)
			die("%s: %u 8.3 entries, want %u", dir_short[d], sfn, n);
		if ((d == D_LONG) != (lfn > 0) || (d == D_LOWER) != (lc == n))
			die("%s: not the expected kind of entries", dir_short[d]);
		fat_raw_free_dir(&dir);
	}
	fat_raw_close(&fr);
}

struct mnt {
	const char *name, *type, *data;
	int dirs;	/* how many of UPPER, LOWER, LONG */
};
static const struct mnt mounts[] = {
	{ "vfat-default-iso8859-1", "vfat", "", NDIRS },
	{ "vfat-utf8", "vfat", "iocharset=utf8", NDIRS },
	{ "msdos", "msdos", "", 1 },
};
#define NMOUNTS (int)(sizeof(mounts) / sizeof(mounts[0]))

static const char *kern;
static int round_nr, rep_nr;

static void raw(const struct mnt *m, int d, const char *op, double ns)
{
	say("RAW kernel=%s round=%d rep=%d mount=%s dir=%s op=%s ns=%.1f\n",
	    kern, round_nr, rep_nr, m->name, d < 0 ? "-" : dir_short[d], op, ns);
}

static unsigned int read_all(const char *path)
{
	struct dirent *de;
	unsigned int k = 0;
	DIR *dp = opendir(path);

	if (!dp)
		die("opendir %s: %s", path, strerror(errno));
	while ((de = readdir(dp)))
		k++;
	closedir(dp);
	return k;
}

/* ls -l after drop_caches: readdir, then a stat() of each name, in order */
static void ls_l_cold(const struct mnt *m, int d, unsigned int n)
{
	struct dirent *de;
	struct stat st;
	unsigned int k = 0;
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	DIR *dp;
	double t;

	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches: %s", strerror(errno));
	close(fd);
	t = now_ns();
	dp = opendir(dir_path[d]);
	if (!dp)
		die("opendir %s: %s", dir_path[d], strerror(errno));
	while ((de = readdir(dp))) {
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			die("stat %s on %s: %s", de->d_name, m->name, strerror(errno));
		k++;
	}
	closedir(dp);
	raw(m, d, "ls-l-cold", (now_ns() - t) / n);
	if (k != n + 2)
		die("ls -l %s on %s: %u entries, want %u", dir_path[d], m->name, k, n + 2);
}

static void show_mount(const struct mnt *m)
{
	char line[512];
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " " MNT " "))
			say("MOUNT %s: %s", m->name, line);
	if (f)
		fclose(f);
}

static void bench_dir(const struct mnt *m, int d, unsigned int n, unsigned int sample,
		      unsigned int absent, unsigned int warm)
{
	unsigned int i, k, step = n / sample, ns = 0;
	char name[64];
	struct stat st;
	double t;
	int dfd;

	/* readdir: the first one reads the directory's blocks */
	t = now_ns();
	k = read_all(dir_path[d]);
	raw(m, d, "readdir-cold", (now_ns() - t) / n);
	if (k != n + 2)
		die("readdir %s on %s: %u entries, want %u", dir_path[d], m->name, k, n + 2);
	t = now_ns();
	for (i = 0; i < warm; i++)
		read_all(dir_path[d]);
	raw(m, d, "readdir-warm", (now_ns() - t) / ((double)warm * n));

	dfd = open(dir_path[d], O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", dir_path[d], strerror(errno));
	/* present names, spread over the directory; each lookup is cold */
	t = now_ns();
	for (i = step / 2; i < n && ns < sample; i += step, ns++) {
		name_of(name, d, i);
		if (fstatat(dfd, name, &st, 0))
			die("stat %s on %s: %s", name, m->name, strerror(errno));
	}
	raw(m, d, "lookup", (now_ns() - t) / ns);
	/* absent names of the same pattern: each a full scan */
	t = now_ns();
	for (i = 0; i < absent; i++) {
		name_of(name, d, n + 1 + i);
		if (!fstatat(dfd, name, &st, 0) || errno != ENOENT)
			die("stat %s on %s: found, or %s", name, m->name, strerror(errno));
	}
	raw(m, d, "absent", (now_ns() - t) / absent);
	if (d == D_UPPER) {
		t = now_ns();
		for (i = 0; i < sample; i++)
			if (fstatat(dfd, ".", &st, 0))
				die("stat .: %s", strerror(errno));
		raw(m, d, "syscall", (now_ns() - t) / sample);
	}
	close(dfd);
	if (rep_nr == 1)
		ls_l_cold(m, d, n);
}

static void bench(unsigned int n, unsigned int reps, unsigned int sample,
		  unsigned int absent, unsigned int warm)
{
	int i, mi, d;

	for (rep_nr = 1; rep_nr <= (int)reps; rep_nr++)
		for (i = 0; i < NMOUNTS; i++) {
			/* each rep starts with another mount */
			const struct mnt *m = &mounts[(i + rep_nr - 1) % NMOUNTS];

			double t = now_ns();

			mi = m - mounts;
			do_mount(m->type, MS_RDONLY, m->data);
			raw(m, -1, "mount", now_ns() - t);
			if (rep_nr == 1)
				show_mount(m);
			for (d = 0; d < mounts[mi].dirs; d++)
				bench_dir(m, d, n, sample, absent, warm);
			do_umount();
		}
}

int main(int argc, char **argv)
{
	char cmdline[4096], *args[MAXARGS], *tok, *save;
	struct utsname u;
	int nargs = 0, seen = 0, i;
	FILE *f;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	out = fopen("/out/result.txt", "w");
	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(cmdline, sizeof(cmdline), f))
		die("/proc/cmdline: %s", strerror(errno));
	fclose(f);
	/* init's arguments: argv, or what follows "--" in /proc/cmdline */
	for (i = 1; i < argc && nargs < MAXARGS; i++)
		/* UML appends console=tty0 to the command line: after "--" */
		if (!strchr(argv[i], '='))
			args[nargs++] = argv[i];
	for (tok = strtok_r(cmdline, " \n", &save); !argc && tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (seen && nargs < MAXARGS)
			args[nargs++] = tok;
		if (!strcmp(tok, "--"))
			seen = 1;
	}
	uname(&u);
	if (nargs == 2 && !strcmp(args[0], "prep")) {
		say("RUN mode=prep release=%s version=%s\n", u.release, u.version);
		prep(strtoul(args[1], NULL, 10));
	} else if (nargs == 8 && !strcmp(args[0], "bench")) {
		unsigned int n = strtoul(args[3], NULL, 10);
		unsigned int sample = strtoul(args[5], NULL, 10);

		kern = args[1];
		round_nr = atoi(args[2]);
		if (!n || !sample || sample > n)
			die("bad N %u or SAMPLE %u", n, sample);
		say("RUN kernel=%s round=%d release=%s version=%s\n", kern, round_nr,
		    u.release, u.version);
		bench(n, strtoul(args[4], NULL, 10), sample, strtoul(args[6], NULL, 10),
		      strtoul(args[7], NULL, 10));
	} else {
		for (i = 0; i < argc; i++)
			say("argv[%d] '%s'\n", i, argv[i]);
		die("usage: -- prep N | -- bench KERNEL ROUND N REPS SAMPLE ABSENT WARM");
	}
	say("DONE\n");
	power_off();
}
