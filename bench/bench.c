// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - in-guest benchmark of vfat `nolongcreate` against default vfat
 * and msdos.  Runs in the QEMU guest only (loop device + mount).
 *
 *   nlc-bench [--sizes 500,2000,4000] [--rounds 3]
 *
 * For every round, size N and name set (lower: f0000001.txt, upper:
 * F0000001.TXT) it runs the three mounts in turn (A vfat default, B vfat
 * -o nolongcreate, C msdos) on one FAT32 image on tmpfs: create N files in
 * a fresh directory, remount (cold dentry cache), stat each by name,
 * readdir the directory, then unlink all.  The directory's size is read
 * from the raw image after an unmount: slots in use (8.3 entries, LFN
 * slots, . and ..) x 32 bytes.
 *
 * Output: "RAW ..." lines per cell, then between "@@@NLC-BENCH-BEGIN x"
 * and "@@@NLC-BENCH-END x" markers: results.md (markdown tables with
 * medians and ratios, min-max over rounds) and plot.dat (gnuplot data).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fat_raw.h"
#include "guest.h"

#define WORK "/tmp/nlc-bench"
#define IMG WORK "/bench.img"
#define MNT WORK "/mnt"
#define DIRN MNT "/D"

enum { OP_CREATE, OP_LOOKUP, OP_READDIR, OP_UNLINK, NOPS };
static const char *const op_names[NOPS] = { "create", "lookup", "readdir", "unlink" };
enum { M_VFAT, M_NLC, M_MSDOS, NMOUNTS };
static const char *const mount_names[NMOUNTS] = { "vfat", "vfat,nolongcreate", "msdos" };
static const char *const mount_short[NMOUNTS] = { "default", "nolongcreate", "msdos" };
enum { S_LOWER, S_UPPER, NSETS };
static const char *const set_short[NSETS] = { "lower", "upper" };

#define MAXSIZES 8
#define MAXROUNDS 15

struct cell {
	double us[NOPS];	/* per operation (readdir: per entry) */
	unsigned long dir_bytes, lfn_slots, st_size;
	int done;
};

static struct cell cells[MAXROUNDS][MAXSIZES][NSETS][NMOUNTS];
static unsigned int sizes[MAXSIZES] = { 500, 2000, 4000 };
static int nsizes = 3, rounds = 3;
static char dev[32];

static void do_mount(int m)
{
	const char *type = m == M_MSDOS ? "msdos" : "vfat";
	const char *data = m == M_NLC ? "nolongcreate" : "";

	if (mount(dev, MNT, type, 0, data))
		die("mount -t %s -o '%s': %s", type, data, strerror(errno));
}

static void do_umount(void)
{
	if (umount(MNT))
		die("umount: %s", strerror(errno));
}

static void name_of(char *buf, int set, unsigned int i)
{
	sprintf(buf, set == S_LOWER ? "f%07u.txt" : "F%07u.TXT", i + 1);
}

static void run_cell(struct cell *c, unsigned int n, int set, int m)
{
	char name[32];
	unsigned int i, cl, used, k;
	struct fat_raw fr;
	struct fat_raw_dir dir;
	struct stat st;
	double t;
	int dfd;
	DIR *d;
	struct dirent *de;

	do_mount(m);
	if (mkdir(DIRN, 0755))
		die("mkdir %s: %s", DIRN, strerror(errno));
	dfd = open(DIRN, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", DIRN, strerror(errno));
	t = now_s();
	for (i = 0; i < n; i++) {
		int fd;

		name_of(name, set, i);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s on %s: %s", name, mount_names[m], strerror(errno));
		close(fd);
	}
	c->us[OP_CREATE] = (now_s() - t) * 1e6 / n;
	close(dfd);
	do_umount();

	/* the directory's slots, from the raw image */
	if (fat_raw_open(&fr, dev))
		die("%s: not a FAT image", dev);
	if (fat_raw_subdir(&fr, 0, "D          ", &cl) || fat_raw_read_dir(&fr, cl, &dir))
		die("cannot read directory D from the image");
	used = fat_raw_used_slots(&dir);
	c->dir_bytes = (unsigned long)used * 32;
	c->lfn_slots = 0;
	for (k = 0; k < used; k++)
		if (fat_raw_is_live(&dir.ents[k]) && fat_raw_is_lfn(&dir.ents[k]))
			c->lfn_slots++;
	fat_raw_free_dir(&dir);
	fat_raw_close(&fr);

	/* cold lookups */
	do_mount(m);
	dfd = open(DIRN, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", DIRN, strerror(errno));
	t = now_s();
	for (i = 0; i < n; i++) {
		name_of(name, set, i);
		if (fstatat(dfd, name, &st, 0))
			die("stat %s: %s", name, strerror(errno));
	}
	c->us[OP_LOOKUP] = (now_s() - t) * 1e6 / n;
	if (fstat(dfd, &st))
		die("fstat: %s", strerror(errno));
	c->st_size = st.st_size;

	t = now_s();
	d = opendir(DIRN);
	if (!d)
		die("opendir: %s", strerror(errno));
	k = 0;
	while ((de = readdir(d)))
		k++;
	closedir(d);
	c->us[OP_READDIR] = (now_s() - t) * 1e6 / n;
	if (k != n + 2)
		die("readdir on %s saw %u entries, want %u", mount_names[m], k, n + 2);

	t = now_s();
	for (i = 0; i < n; i++) {
		name_of(name, set, i);
		if (unlinkat(dfd, name, 0))
			die("unlink %s: %s", name, strerror(errno));
	}
	c->us[OP_UNLINK] = (now_s() - t) * 1e6 / n;
	close(dfd);
	if (rmdir(DIRN))
		die("rmdir: %s", strerror(errno));
	do_umount();
	c->done = 1;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* median, min and max over rounds of a per-round value */
struct agg { double med, min, max; };

static struct agg agg_op(int si, int set, int m, int op, int ratio_to)
{
	double v[MAXROUNDS];
	struct agg a;
	int r;

	for (r = 0; r < rounds; r++) {
		const struct cell *c = &cells[r][si][set][m];

		v[r] = c->us[op];
		if (ratio_to >= 0)
			v[r] /= cells[r][si][set][ratio_to].us[op];
	}
	a.med = median(v, rounds);
	a.min = v[0];
	a.max = v[rounds - 1];
	return a;
}

static void print_results(double elapsed)
{
	struct utsname u;
	int si, set, m, op;

	uname(&u);
	printf("@@@NLC-BENCH-BEGIN results.md\n");
	printf("Guest: Linux %s, QEMU TCG (emulated CPU), FAT32 image (4 KiB clusters) on tmpfs via a loop device; "
	       "%d rounds, mounts alternating default/nolongcreate/msdos within each round; whole run %.0f s of guest time; timer %s.\n\n",
	       u.release, rounds, elapsed, clock_name);
	printf("Median time per operation in microseconds (readdir: per entry, one full readdir of the directory; lookup: "
	       "stat by name after a remount, i.e. cold dentry cache). Directory bytes: slots in use x 32 "
	       "(entries, LFN slots, `.` and `..`), from the raw image; per entry = (bytes - 64) / N.\n\n");
	printf("| N | names | mount | create µs | lookup µs | readdir µs/entry | unlink µs | dir bytes | bytes/entry | LFN slots | st_size |\n");
	printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (si = 0; si < nsizes; si++)
		for (set = 0; set < NSETS; set++)
			for (m = 0; m < NMOUNTS; m++) {
				const struct cell *c = &cells[0][si][set][m];

				printf("| %u | %s | %s |", sizes[si], set_short[set], mount_short[m]);
				for (op = 0; op < NOPS; op++)
					printf(" %.1f |", agg_op(si, set, m, op, -1).med);
				printf(" %lu | %.1f | %lu | %lu |\n", c->dir_bytes,
				       (c->dir_bytes - 64.0) / sizes[si], c->lfn_slots, c->st_size);
			}
	printf("\nRatios of medians per round, shown as median over rounds (min-max over rounds): "
	       "nolongcreate / default vfat and nolongcreate / msdos.\n\n");
	printf("| N | names | op | nolongcreate / default | nolongcreate / msdos |\n");
	printf("|---:|---|---|---:|---:|\n");
	for (si = 0; si < nsizes; si++)
		for (set = 0; set < NSETS; set++)
			for (op = 0; op < NOPS; op++) {
				struct agg a = agg_op(si, set, M_NLC, op, M_VFAT);
				struct agg b = agg_op(si, set, M_NLC, op, M_MSDOS);

				printf("| %u | %s | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) |\n",
				       sizes[si], set_short[set], op_names[op],
				       a.med, a.min, a.max, b.med, b.min, b.max);
			}
	printf("@@@NLC-BENCH-END results.md\n");

	/* gnuplot data: one block per (set, mount), blocks separated by two
	 * blank lines (gnuplot 'index') */
	printf("@@@NLC-BENCH-BEGIN plot.dat\n");
	for (set = 0; set < NSETS; set++)
		for (m = 0; m < NMOUNTS; m++) {
			printf("# %s %s\n# N create lookup readdir unlink bytes_per_entry\n",
			       set_short[set], mount_short[m]);
			for (si = 0; si < nsizes; si++) {
				const struct cell *c = &cells[0][si][set][m];

				printf("%u", sizes[si]);
				for (op = 0; op < NOPS; op++)
					printf(" %.2f", agg_op(si, set, m, op, -1).med);
				printf(" %.2f\n", (c->dir_bytes - 64.0) / sizes[si]);
			}
			printf("\n\n");
		}
	/* index 6 (lower) and 7 (upper): median ratios nolongcreate/default
	 * then nolongcreate/msdos, per op */
	for (set = 0; set < NSETS; set++) {
		printf("# ratios %s: N, nolongcreate/default for create lookup readdir unlink, then nolongcreate/msdos\n",
		       set_short[set]);
		for (si = 0; si < nsizes; si++) {
			printf("%u", sizes[si]);
			for (m = M_VFAT; m <= M_MSDOS; m += 2)
				for (op = 0; op < NOPS; op++)
					printf(" %.3f", agg_op(si, set, M_NLC, op, m).med);
			printf("\n");
		}
		printf("\n\n");
	}
	printf("@@@NLC-BENCH-END plot.dat\n");
}

int main(int argc, char **argv)
{
	double t0;
	int i, r, si, set, m, lfd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			nsizes = 0;
			for (tok = strtok(s, ","); tok && nsizes < MAXSIZES; tok = strtok(NULL, ","))
				sizes[nsizes++] = strtoul(tok, NULL, 10);
		} else {
			fprintf(stderr, "usage: nlc-bench [--sizes 500,2000,4000] [--rounds 3]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAXROUNDS || !nsizes)
		die("bad --rounds/--sizes");
	for (si = 0; si < nsizes; si++)
		if (!sizes[si] || sizes[si] > 60000)
			die("bad size %u", sizes[si]);

	clock_init();
	mkdir(WORK, 0755);
	mkdir(MNT, 0755);
	make_image(IMG, 512, 32, 8);	/* 4 KiB clusters, ~131000 of them */
	lfd = loop_attach(IMG, dev, sizeof(dev));
	printf("nlc-bench: %d rounds, sizes", rounds);
	for (si = 0; si < nsizes; si++)
		printf(" %u", sizes[si]);
	printf(", image %s on %s, clock %s (%.1f MHz)\n", IMG, dev, clock_name, tsc_hz / 1e6);
	fflush(stdout);

	t0 = now_s();
	for (r = 0; r < rounds; r++)
		for (si = 0; si < nsizes; si++)
			for (set = 0; set < NSETS; set++)
				for (m = 0; m < NMOUNTS; m++) {
					struct cell *c = &cells[r][si][set][m];
					double t = now_s();

					run_cell(c, sizes[si], set, m);
					printf("RAW round=%d n=%u names=%s mount=%s create_us=%.1f lookup_us=%.1f readdir_us=%.2f unlink_us=%.1f dir_bytes=%lu lfn_slots=%lu st_size=%lu cell_s=%.1f\n",
					       r + 1, sizes[si], set_short[set], mount_short[m],
					       c->us[0], c->us[1], c->us[2], c->us[3],
					       c->dir_bytes, c->lfn_slots, c->st_size, now_s() - t);
					fflush(stdout);
				}
	print_results(now_s() - t0);
	loop_detach(lfd);
	unlink(IMG);
	return 0;
}
