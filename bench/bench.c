// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - benchmark of vfat `nolongcreate` against default vfat and
 * msdos, on a kernel with and one without the 8.3 fast path (patch
 * "fat: show plain ASCII 8.3 names without the charset round trip").
 *
 * In the QEMU guest (loop device + mount), one round on one kernel:
 *
 *   nlc-bench --kernel with|without --round R [--sizes 500,2000,4000]
 *             [--sets lower,upper,long]
 *
 * For every size N and name set (lower: f0000001.txt, upper: F0000001.TXT,
 * long: "a long file name 0000001.txt") it runs the mounts in turn (A vfat
 * default, B vfat -o nolongcreate, C msdos; the long set on A only, as B
 * and C refuse long names) on a freshly made FAT32 image on tmpfs: create N
 * files in a new directory, read the directory's slots from the raw image,
 * remount (cold dentry cache), stat a sample of up to 500 names spread
 * evenly over the directory, readdir it, unlink the sample.  Prints one
 * "RAW ..." line per cell.
 *
 * On the host, the report of the RAW lines of all boots:
 *
 *   nlc-bench --report raw.txt
 *
 * prints, between "@@@NLC-BENCH-BEGIN x" and "@@@NLC-BENCH-END x" markers,
 * results.md (medians over rounds and ratios) and plot.dat (gnuplot).
 * Ratios between mounts are taken within one boot (per round), ratios
 * between kernels between the two boots of the same round, which run one
 * after the other; each is shown as the median over rounds (min-max).
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
#define SAMPLE 500

enum { OP_CREATE, OP_LOOKUP, OP_READDIR, OP_UNLINK, NOPS };
static const char *const op_names[NOPS] = { "create", "lookup", "readdir", "unlink" };
enum { M_VFAT, M_NLC, M_MSDOS, NMOUNTS };
static const char *const mount_names[NMOUNTS] = { "vfat", "vfat,nolongcreate", "msdos" };
static const char *const mount_short[NMOUNTS] = { "default", "nolongcreate", "msdos" };
enum { S_LOWER, S_UPPER, S_LONG, NSETS };
static const char *const set_short[NSETS] = { "lower", "upper", "long" };
enum { K_WITHOUT, K_WITH, NKERNELS };
static const char *const kernel_short[NKERNELS] = { "without", "with" };

#define MAXSIZES 8
#define MAXROUNDS 15

struct cell {
	double us[NOPS];	/* per operation (readdir: per entry) */
	unsigned long dir_bytes, lfn_slots;
	int done;
};

static char dev[32];
static int loop_fd = -1;

/* ---------------------------------------------------------------- guest --- */

static int set_has_mount(int set, int m)
{
	return set != S_LONG || m == M_VFAT;
}

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
	static const char *const fmt[NSETS] = {
		"f%07u.txt", "F%07u.TXT", "a long file name %07u.txt"
	};

	sprintf(buf, fmt[set], i + 1);
}

/* a fresh FAT32 image for every cell (4 KiB clusters, ~131000 of them) */
static void fresh_image(void)
{
	if (loop_fd >= 0)
		loop_detach(loop_fd);
	make_image(IMG, 512, 32, 8);
	loop_fd = loop_attach(IMG, dev, sizeof(dev));
}

static void run_cell(struct cell *c, unsigned int n, int set, int m)
{
	unsigned int i, cl, used, k, step = n > SAMPLE ? n / SAMPLE : 1, ns = 0;
	char name[64];
	struct fat_raw fr;
	struct fat_raw_dir dir;
	struct stat st;
	double t;
	int dfd;
	DIR *d;
	struct dirent *de;

	fresh_image();
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

	/* cold lookups of a sample spread over the directory */
	do_mount(m);
	dfd = open(DIRN, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", DIRN, strerror(errno));
	t = now_s();
	for (i = step / 2; i < n; i += step, ns++) {
		name_of(name, set, i);
		if (fstatat(dfd, name, &st, 0))
			die("stat %s: %s", name, strerror(errno));
	}
	c->us[OP_LOOKUP] = (now_s() - t) * 1e6 / ns;

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
	for (i = step / 2; i < n; i += step) {
		name_of(name, set, i);
		if (unlinkat(dfd, name, 0))
			die("unlink %s: %s", name, strerror(errno));
	}
	c->us[OP_UNLINK] = (now_s() - t) * 1e6 / ns;
	close(dfd);
	do_umount();
	c->done = 1;
}

static void parse_list(char *s, unsigned int *v, int *nv, int max)
{
	char *tok;

	*nv = 0;
	for (tok = strtok(s, ","); tok && *nv < max; tok = strtok(NULL, ","))
		v[(*nv)++] = strtoul(tok, NULL, 10);
}

static int guest_main(int kernel, int round, unsigned int *sizes, int nsizes, int sets)
{
	struct utsname u;
	double t0 = now_s();
	int si, set, m;

	uname(&u);
	mkdir(WORK, 0755);
	mkdir(MNT, 0755);
	printf("nlc-bench: kernel %s (%s), round %d, clock %s (%.1f MHz)\n",
	       kernel_short[kernel], u.release, round, clock_name, tsc_hz / 1e6);
	fflush(stdout);
	for (si = 0; si < nsizes; si++)
		for (set = 0; set < NSETS; set++) {
			if (!(sets & (1 << set)))
				continue;
			for (m = 0; m < NMOUNTS; m++) {
				struct cell c = { 0 };
				double t = now_s();

				if (!set_has_mount(set, m))
					continue;
				run_cell(&c, sizes[si], set, m);
				printf("RAW kernel=%s round=%d n=%u names=%s mount=%s create_us=%.1f lookup_us=%.1f readdir_us=%.2f unlink_us=%.1f dir_bytes=%lu lfn_slots=%lu cell_s=%.1f\n",
				       kernel_short[kernel], round, sizes[si], set_short[set],
				       mount_short[m], c.us[0], c.us[1], c.us[2], c.us[3],
				       c.dir_bytes, c.lfn_slots, now_s() - t);
				fflush(stdout);
			}
		}
	printf("RUN kernel=%s round=%d release=%s guest_s=%.0f\n",
	       kernel_short[kernel], round, u.release, now_s() - t0);
	if (loop_fd >= 0)
		loop_detach(loop_fd);
	unlink(IMG);
	return 0;
}

/* --------------------------------------------------------------- report --- */

static struct cell cells[NKERNELS][MAXROUNDS][MAXSIZES][NSETS][NMOUNTS];
static unsigned int rsizes[MAXSIZES];
static int nrsizes;
static char release[NKERNELS][128];
static double guest_s[NKERNELS];
static int nboots[NKERNELS];

static int index_of(const char *const *v, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

static void add_size(unsigned int n)
{
	int i;

	for (i = 0; i < nrsizes; i++)
		if (rsizes[i] == n)
			return;
	if (nrsizes == MAXSIZES)
		die("more than %d sizes", MAXSIZES);
	/* keep the sizes sorted */
	for (i = nrsizes; i > 0 && rsizes[i - 1] > n; i--)
		rsizes[i] = rsizes[i - 1];
	rsizes[i] = n;
	nrsizes++;
}

static int size_index(unsigned int n)
{
	int i;

	for (i = 0; i < nrsizes; i++)
		if (rsizes[i] == n)
			return i;
	die("size %u not seen", n);
}

/* two passes over the RAW lines: the sizes, then the cells */
static void read_raw(const char *path)
{
	char line[1024], ks[16], ns[16], ms[16], rel[128];
	FILE *f = fopen(path, "r");
	unsigned int n;
	int pass, r, k, set, m;
	struct cell c;
	double gs;

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (pass = 0; pass < 2; pass++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			if (pass && sscanf(line, "RUN kernel=%15s round=%d release=%127s guest_s=%lf",
					   ks, &r, rel, &gs) == 4) {
				k = index_of(kernel_short, NKERNELS, ks);
				if (k < 0)
					die("bad RUN line: %s", line);
				snprintf(release[k], sizeof(release[k]), "%s", rel);
				guest_s[k] += gs;
				nboots[k]++;
				continue;
			}
			if (sscanf(line, "RAW kernel=%15s round=%d n=%u names=%15s mount=%15s create_us=%lf lookup_us=%lf readdir_us=%lf unlink_us=%lf dir_bytes=%lu lfn_slots=%lu",
				   ks, &r, &n, ns, ms, &c.us[0], &c.us[1], &c.us[2], &c.us[3],
				   &c.dir_bytes, &c.lfn_slots) != 11)
				continue;
			if (!pass) {
				add_size(n);
				continue;
			}
			k = index_of(kernel_short, NKERNELS, ks);
			set = index_of(set_short, NSETS, ns);
			m = index_of(mount_short, NMOUNTS, ms);
			if (k < 0 || set < 0 || m < 0 || r < 1 || r > MAXROUNDS)
				die("bad RAW line: %s", line);
			c.done = 1;
			cells[k][r - 1][size_index(n)][set][m] = c;
		}
	}
	fclose(f);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median, min and max over the rounds where both values exist */
struct agg { double med, min, max; int n; };

static struct agg agg_of(double *v, int n)
{
	struct agg a = { 0, 0, 0, n };

	if (!n)
		return a;
	qsort(v, n, sizeof(*v), cmp_d);
	a.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	a.min = v[0];
	a.max = v[n - 1];
	return a;
}

/* value of (k, si, set, m, op), divided by that of (k2, ..., m2) unless m2 < 0 */
static struct agg agg_op(int k, int si, int set, int m, int op, int k2, int m2)
{
	double v[MAXROUNDS];
	int r, n = 0;

	for (r = 0; r < MAXROUNDS; r++) {
		const struct cell *a = &cells[k][r][si][set][m];
		const struct cell *b = m2 >= 0 ? &cells[k2][r][si][set][m2] : NULL;

		if (!a->done || (b && (!b->done || b->us[op] <= 0)))
			continue;
		v[n++] = b ? a->us[op] / b->us[op] : a->us[op];
	}
	return agg_of(v, n);
}

static void print_ratio(struct agg a)
{
	if (!a.n)
		printf(" - |");
	else if (a.n == 1)
		printf(" %.2f |", a.med);
	else
		printf(" %.2f (%.2f-%.2f) |", a.med, a.min, a.max);
}

static int rounds_of(int si)
{
	int r, n = 0;

	for (r = 0; r < MAXROUNDS; r++)
		if (cells[K_WITH][r][si][S_UPPER][M_MSDOS].done ||
		    cells[K_WITH][r][si][S_LONG][M_VFAT].done)
			n++;
	return n;
}

static void report(void)
{
	int si, set, m, op, k;

	printf("@@@NLC-BENCH-BEGIN results.md\n");
	printf("Guest: QEMU TCG (emulated CPU), one FAT32 image (4 KiB clusters) per cell on tmpfs via a loop device. "
	       "Kernels: **with** the 8.3 fast path (%s, %d boots, %.0f s of guest time) and **without** it "
	       "(the same series less that patch; %s, %d boots, %.0f s), booted alternately, one round per boot; "
	       "in each boot the mounts run in a fixed order: default, nolongcreate, msdos. Timer: the guest's TSC.\n\n",
	       release[K_WITH], nboots[K_WITH], guest_s[K_WITH],
	       release[K_WITHOUT], nboots[K_WITHOUT], guest_s[K_WITHOUT]);
	printf("Create: all N files into a new directory, per file. Lookup: stat by name after a remount (cold dentry "
	       "cache), per name, of a sample of up to %d names spread evenly over the directory. Readdir: one full "
	       "readdir, per entry. Unlink: the sample, per name. Names: lower `f0000001.txt`, upper `F0000001.TXT`, "
	       "long `a long file name 0000001.txt` (default vfat only: nolongcreate and msdos refuse them).\n\n",
	       SAMPLE);
	printf("Ratios. Between mounts: per round, within one boot; between kernels (with / without): per round, "
	       "between the two boots of that round. Shown as the median over rounds (min-max over rounds); "
	       "a single value where there was one round.\n\n");

	printf("### nolongcreate against msdos and default vfat, and each kernel against the other\n\n");
	printf("| N | rounds | names | op | nlc / msdos, without | nlc / msdos, **with** | nlc / default, without | nlc / default, **with** | with / without: nlc | with / without: default | with / without: msdos |\n");
	printf("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (si = 0; si < nrsizes; si++)
		for (set = S_LOWER; set <= S_UPPER; set++)
			for (op = 0; op < NOPS; op++) {
				if (!agg_op(K_WITH, si, set, M_NLC, op, -1, -1).n)
					continue;
				printf("| %u | %d | %s | %s |", rsizes[si], rounds_of(si), set_short[set], op_names[op]);
				print_ratio(agg_op(K_WITHOUT, si, set, M_NLC, op, K_WITHOUT, M_MSDOS));
				print_ratio(agg_op(K_WITH, si, set, M_NLC, op, K_WITH, M_MSDOS));
				print_ratio(agg_op(K_WITHOUT, si, set, M_NLC, op, K_WITHOUT, M_VFAT));
				print_ratio(agg_op(K_WITH, si, set, M_NLC, op, K_WITH, M_VFAT));
				for (m = M_NLC; m != -1; m = m == M_NLC ? M_VFAT : m == M_VFAT ? M_MSDOS : -1)
					print_ratio(agg_op(K_WITH, si, set, m, op, K_WITHOUT, m));
				printf("\n");
			}

	printf("\n### A directory of long names (default vfat), each kernel against the other\n\n");
	printf("| N | rounds | op | with / without |\n|---:|---:|---|---:|\n");
	for (si = 0; si < nrsizes; si++)
		for (op = 0; op < NOPS; op++) {
			struct agg a = agg_op(K_WITH, si, S_LONG, M_VFAT, op, K_WITHOUT, M_VFAT);

			if (!a.n)
				continue;
			printf("| %u | %d | %s |", rsizes[si], a.n, op_names[op]);
			print_ratio(a);
			printf("\n");
		}

	printf("\n### Medians over rounds, microseconds per operation (readdir: per entry)\n\n");
	printf("| N | names | mount | kernel | create | lookup | readdir | unlink | dir bytes | LFN slots |\n");
	printf("|---:|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (si = 0; si < nrsizes; si++)
		for (set = 0; set < NSETS; set++)
			for (m = 0; m < NMOUNTS; m++)
				for (k = NKERNELS - 1; k >= 0; k--) {
					const struct cell *c = &cells[k][0][si][set][m];

					if (!c->done)
						continue;
					printf("| %u | %s | %s | %s |", rsizes[si], set_short[set],
					       mount_short[m], kernel_short[k]);
					for (op = 0; op < NOPS; op++)
						printf(" %.1f |", agg_op(k, si, set, m, op, -1, -1).med);
					printf(" %lu | %lu |\n", c->dir_bytes, c->lfn_slots);
				}
	printf("@@@NLC-BENCH-END results.md\n");

	/* gnuplot: index 0 lower, 1 upper: N, then per op (create lookup
	 * readdir unlink) nlc/msdos without, nlc/msdos with; index 2 upper and
	 * long: N, with/without of nlc (upper) and default (long) per op */
	printf("@@@NLC-BENCH-BEGIN plot.dat\n");
	for (set = S_LOWER; set <= S_UPPER; set++) {
		printf("# %s: N, nlc/msdos without then with, for create lookup readdir unlink\n",
		       set_short[set]);
		for (si = 0; si < nrsizes; si++) {
			if (!agg_op(K_WITH, si, set, M_NLC, 0, K_WITH, M_MSDOS).n)
				continue;
			printf("%u", rsizes[si]);
			for (op = 0; op < NOPS; op++)
				printf(" %.3f %.3f",
				       agg_op(K_WITHOUT, si, set, M_NLC, op, K_WITHOUT, M_MSDOS).med,
				       agg_op(K_WITH, si, set, M_NLC, op, K_WITH, M_MSDOS).med);
			printf("\n");
		}
		printf("\n\n");
	}
	printf("# N, with/without: nlc upper-case names, then default vfat long names, for create lookup readdir unlink\n");
	for (si = 0; si < nrsizes; si++) {
		if (!agg_op(K_WITH, si, S_LONG, M_VFAT, 0, K_WITHOUT, M_VFAT).n)
			continue;
		printf("%u", rsizes[si]);
		for (op = 0; op < NOPS; op++)
			printf(" %.3f %.3f", agg_op(K_WITH, si, S_UPPER, M_NLC, op, K_WITHOUT, M_NLC).med,
			       agg_op(K_WITH, si, S_LONG, M_VFAT, op, K_WITHOUT, M_VFAT).med);
		printf("\n");
	}
	printf("@@@NLC-BENCH-END plot.dat\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: nlc-bench --kernel with|without --round R [--sizes 500,2000,4000] [--sets lower,upper,long]\n"
			"       nlc-bench --report RAWFILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int sizes[MAXSIZES] = { 500, 2000, 4000 };
	int nsizes = 3, round = 0, kernel = -1, sets = 0, i, si;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--report") && i + 1 < argc) {
			read_raw(argv[i + 1]);
			if (!nboots[K_WITH] || !nboots[K_WITHOUT])
				die("%s: no RUN line of both kernels", argv[i + 1]);
			report();
			return 0;
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			kernel = index_of(kernel_short, NKERNELS, argv[++i]);
		} else if (!strcmp(argv[i], "--round") && i + 1 < argc) {
			round = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			parse_list(argv[++i], sizes, &nsizes, MAXSIZES);
		} else if (!strcmp(argv[i], "--sets") && i + 1 < argc) {
			char *tok;

			for (tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ",")) {
				int s = index_of(set_short, NSETS, tok);

				if (s < 0)
					usage();
				sets |= 1 << s;
			}
		} else {
			usage();
		}
	}
	if (kernel < 0 || round < 1 || round > MAXROUNDS || !nsizes)
		usage();
	for (si = 0; si < nsizes; si++)
		if (!sizes[si] || sizes[si] > 60000)
			die("bad size %u", sizes[si]);
	clock_init();
	return guest_main(kernel, round, sizes, nsizes, sets ? sets : (1 << NSETS) - 1);
}
