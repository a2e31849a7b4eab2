// SPDX-License-Identifier: GPL-2.0
/*
 * driver.c - randomized differential test of vfat `nolongcreate` against
 * the userspace model (model.c).  Runs in the QEMU guest only: it makes a
 * FAT16 image on /tmp, attaches a loop device and mounts it.
 *
 *   nlc-fuzz [--seed N] [--count NAMES] [--batch NAMES] [--max-seconds S] [--stop]
 *
 * All batches run even after a disagreement (each kind of disagreement
 * prints its first PRINT_MAX); --stop ends the run after the first batch
 * that had one.
 *
 * Each generated name goes through creat(O_CREAT|O_EXCL) in directory 1,
 * mkdir in directory 2 and rename (of a fresh 8.3 file from directory 4)
 * in directory 3.  The errno of every call is compared with the model's at
 * once; after each batch the file system is unmounted and the four
 * directories are read from the raw image (fat_raw.h) and compared entry
 * by entry (11 name bytes, lcase byte, directory bit, no LFN slot, no
 * slot written for a refused name).  Then the image is mounted again with
 * the same options (a cold mount: no dentry survives) and every name the
 * kernel accepted is looked up with stat() by the exact bytes it was
 * created with, readdir must show each name accepted as a new entry exactly
 * as it was typed and each entry as the model renders it.
 * The image metadata is then restored to its freshly formatted state and
 * the next batch mounts it again with a randomly chosen configuration
 * (iocharset=iso8859-1|utf8, utf8=0|1, shortname=, check=, uni_xlate=0|1,
 * nonumtail=0|1; codepage 437), printed for each batch.  Names are made in
 * the mount's I/O encoding (UTF-8 when utf8 is in force or iocharset=utf8,
 * else iso8859-1 bytes; ':XXXX' escapes with uni_xlate).
 *
 * Exit status: 0 no disagreement, 1 disagreement, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat_raw.h"
#include "guest.h"
#include "model.h"

#define WORK "/tmp/nlc-fuzz"
#define IMG WORK "/fuzz.img"
#define MNT WORK "/mnt"
#define MAX_BATCH 2000
#define NDIRS 3			/* creat, mkdir, rename targets */

static const char *const dir_names[4] = { "1", "2", "3", "4" };
static const char *const op_names[3] = { "creat", "mkdir", "rename" };

/* ------------------------------------------------------------------ PRNG */
static uint64_t rng_state;

static uint64_t rnd(void)		/* splitmix64 */
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static unsigned int rn(unsigned int n)	/* 0 .. n-1 */
{
	return rnd() % n;
}

static int chance(unsigned int pct)
{
	return rn(100) < pct;
}

/* ------------------------------------------------------ name generation */
struct gen {
	unsigned char b[400];
	size_t n;
};

static void put(struct gen *g, const unsigned char *p, size_t n)
{
	if (g->n + n <= sizeof(g->b)) {
		memcpy(g->b + g->n, p, n);
		g->n += n;
	}
}

static void putc1(struct gen *g, unsigned char c)
{
	put(g, &c, 1);
}

/* a uni_xlate escape ':XXXX' of @u, hex digits in a random case */
static void put_escape(struct gen *g, uint32_t u)
{
	char buf[8];
	unsigned int i, how = rn(4);

	snprintf(buf, sizeof(buf), ":%04x", (unsigned int)(u & 0xFFFF));
	for (i = 1; i < 5; i++)
		if (buf[i] >= 'a' && (how == 1 || (how == 2 && chance(50))))
			buf[i] -= 32;
	put(g, (const unsigned char *)buf, 5);
}

/* a code point for an escape: CP437 characters (the only ones that can
 * come back as an escape), ASCII, controls, anything in the BMP */
static uint32_t escape_point(void)
{
	unsigned int r = rn(100);

	if (r < 35)
		return nlc_cp437_to_uni(0x80 + rn(128));
	if (r < 60)
		return nlc_alphabet[rn(nlc_alphabet_len)].uni & 0xFFFF;
	if (r < 80)
		return 0x20 + rn(0x5F);
	if (r < 85)
		return rn(0x20);
	return rn(0x10000);
}

/* a malformed escape: too short or not hex */
static void put_bad_escape(struct gen *g)
{
	static const char *const bad[] = { ":", ":0", ":03", ":03a", ":03ag", ":g000", ":00 1" };
	const char *s = bad[rn(sizeof(bad) / sizeof(bad[0]))];

	put(g, (const unsigned char *)s, strlen(s));
}

/* one non-ASCII character: from the alphabet or any of CP437's upper
 * half; on a uni_xlate mount as an escape when the bytes cannot say it */
static void put_alpha(struct gen *g, const struct nlc_mount *m)
{
	unsigned char buf[4];
	size_t n;
	uint32_t u;

	for (;;) {
		u = chance(25) ? nlc_cp437_to_uni(0x80 + rn(128)) :
				 nlc_alphabet[rn(nlc_alphabet_len)].uni;
		if (m->uni_xlate && !nlc_utf8_on(m) && u < 0x10000 &&
		    chance(nlc_encode(m, u, buf) ? 10 : 70)) {
			put_escape(g, u);
			return;
		}
		n = nlc_encode(m, u, buf);
		if (n)
			break;
	}
	put(g, buf, n);
}

/* bytes that are not UTF-8 (utf8 mounts) */
static void put_bad_utf8(struct gen *g)
{
	static const char *const bad[] = {
		"\x80", "\xbf", "\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xf5", "\xfe", "\xff", "\xc3\x28", "\xe4\xb8",
	};
	const char *s = bad[rn(sizeof(bad) / sizeof(bad[0]))];

	put(g, (const unsigned char *)s, strlen(s));
}

enum style { ST_LOWER, ST_UPPER, ST_MIXED, ST_CASELESS };

static void put_clean(struct gen *g, enum style st)
{
	static const char caseless[] = "0123456789$%'-_@{}!#()&^~";

	switch (st) {
	case ST_LOWER:
		putc1(g, chance(85) ? 'a' + rn(26) : (unsigned char)caseless[rn(sizeof(caseless) - 1)]);
		break;
	case ST_UPPER:
		putc1(g, chance(85) ? 'A' + rn(26) : (unsigned char)caseless[rn(sizeof(caseless) - 1)]);
		break;
	case ST_MIXED:
		putc1(g, chance(50) ? 'a' + rn(26) : 'A' + rn(26));
		break;
	default:
		putc1(g, chance(80) ? '0' + rn(10) : (unsigned char)caseless[rn(sizeof(caseless) - 1)]);
	}
}

/* a character that makes the name interesting */
static void put_noise(struct gen *g, const struct nlc_mount *m)
{
	if (m->uni_xlate && chance(30)) {
		if (chance(80))
			put_escape(g, escape_point());
		else
			put_bad_escape(g);
		return;
	}
	switch (rn(12)) {
	case 0: putc1(g, ' '); break;
	case 1: putc1(g, '.'); break;
	case 2: putc1(g, "+,;=[]"[rn(6)]); break;
	case 3: putc1(g, "*?<>|\":\\"[rn(8)]); break;
	case 4: putc1(g, 1 + rn(31)); break;		/* control */
	case 5: putc1(g, '~'); putc1(g, '1' + rn(9)); break;
	case 6: putc1(g, "`\x7f"[rn(2)]); break;
	case 7:
		if (nlc_io_is_utf8(m))
			put_bad_utf8(g);
		else
			putc1(g, 0x80 + rn(128));	/* any iso8859-1 byte */
		break;
	default:
		put_alpha(g, m);
	}
}

static enum style pick_style(void)
{
	unsigned int r = rn(100);

	return r < 35 ? ST_LOWER : r < 70 ? ST_UPPER : r < 88 ? ST_MIXED : ST_CASELESS;
}

static unsigned int pick_base_len(void)
{
	unsigned int r = rn(100);

	if (r < 15) return 1 + rn(6);
	if (r < 33) return 7;
	if (r < 63) return 8;
	if (r < 80) return 9;
	if (r < 92) return 10;
	return 11 + rn(6);
}

static int pick_ext_len(void)		/* -1: no dot */
{
	unsigned int r = rn(100);

	if (r < 20) return -1;
	if (r < 25) return 1;
	if (r < 45) return 2;
	if (r < 85) return 3;
	return 4;
}

static void gen_part(struct gen *g, const struct nlc_mount *m, unsigned int len,
		     int noisy)
{
	enum style st = pick_style();
	unsigned int i;

	for (i = 0; i < len; i++) {
		if (noisy && chance(12))
			put_noise(g, m);
		else if (chance(6))
			put_alpha(g, m);
		else
			put_clean(g, st);
	}
}

/* names of this batch, for collisions */
static struct gen batch_names[MAX_BATCH];
static unsigned int batch_n;

static void flip_case(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		unsigned char c = g->b[i];

		if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && chance(50))
			g->b[i] ^= 0x20;
	}
}

static void gen_name1(struct gen *g, const struct nlc_mount *m);

/* never "", "." or "..": those are the VFS's, not vfat's */
static void gen_name(struct gen *g, const struct nlc_mount *m)
{
	do {
		gen_name1(g, m);
	} while (!g->n || (g->n <= 2 && !memcmp(g->b, "..", g->n)));
}

static void gen_name1(struct gen *g, const struct nlc_mount *m)
{
	unsigned int r = rn(1000), i;
	int noisy = chance(45), el;

	g->n = 0;
	if (r < 100 && batch_n) {
		/* an earlier name of the batch, case changed, dots added */
		*g = batch_names[rn(batch_n)];
		flip_case(g);
		if (chance(30))
			putc1(g, '.');
		if (chance(10))
			put(g, (const unsigned char *)"..", 2);
		return;
	}
	if (r < 110) {
		static const char *const sp[] = { "...", "....", ". .", " ", "a.", "A..",
						  ".a", "..a", ". a", "a .b", "~", "~1" };
		const char *s = sp[rn(sizeof(sp) / sizeof(sp[0]))];

		put(g, (const unsigned char *)s, strlen(s));
		return;
	}
	if (r < 118) {
		/* around NAME_MAX */
		unsigned int len = 250 + rn(12);

		for (i = 0; i < len; i++)
			putc1(g, 'a' + rn(26));
		if (chance(50) && nlc_io_is_utf8(m)) {
			g->n = 250;
			put_alpha(g, m);	/* multi-byte near the limit */
		}
		return;
	}
	if (chance(4))
		for (i = 1 + rn(2); i > 0; i--)
			putc1(g, '.');
	gen_part(g, m, pick_base_len(), noisy);
	el = pick_ext_len();
	if (el >= 0) {
		if (chance(5))
			gen_part(g, m, 1 + rn(4), noisy), putc1(g, '.');
		putc1(g, '.');
		gen_part(g, m, el, noisy);
	}
	if (chance(4))
		for (i = 1 + rn(3); i > 0; i--)
			putc1(g, '.');
	if (chance(2))
		putc1(g, ' ');
}

/* -------------------------------------------------------------- checking */
static uint64_t seed;
static int disagreements;
/* disagreements by kind; each kind prints its first PRINT_MAX */
enum { D_ERRNO, D_DISK, D_LOOKUP, D_READDIR, D_MOUNT, D_KINDS };
static const char *const kind_names[D_KINDS] = {
	"errno", "disk", "lookup", "readdir", "mount"
};
static int dis[D_KINDS];
static unsigned int first_bad_batch;
static FILE *devnull;
#define PRINT_MAX 20

/* count one disagreement; nonzero: print it */
static int disagree(int kind, unsigned int batch)
{
	disagreements++;
	if (!first_bad_batch)
		first_bad_batch = batch;
	return ++dis[kind] <= PRINT_MAX;
}
static unsigned long stats[3][8];	/* op x outcome */
static unsigned long stats_lookup;	/* stat() calls after a cold mount */
static unsigned long stats_rt_refused[3];	/* a valid 8.3 entry not shown as typed */
static unsigned long stats_shown;	/* readdir names compared with the typed name */
static unsigned long stats_acc_high;	/* creat accepted a byte >= 0x80 */
static unsigned long stats_acc_escape;	/* creat accepted a ':XXXX' escape */
static int stop_first;			/* --stop: after the first bad batch */

static int outcome_idx(int err)
{
	switch (err) {
	case 0: return 0;
	case EEXIST: return 1;
	case ENAMETOOLONG: return 2;
	case EINVAL: return 3;
	case ENOENT: return 4;
	case EISDIR: return 5;
	default: return 6;
	}
}

static const char *const outcome_names[8] = {
	"ok", "EEXIST", "ENAMETOOLONG", "EINVAL", "ENOENT", "EISDIR", "other", "replaced"
};

static void hex(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static void show11(FILE *f, const unsigned char *p)
{
	size_t i;

	fputc('\'', f);
	for (i = 0; i < 11; i++)
		fputc(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?', f);
	fputs("' (", f);
	hex(f, p, 11);
	fputc(')', f);
}

static char flavour[256];

static void report(unsigned int batch, unsigned int idx, int op,
		   const struct gen *g, int kerr, const struct nlc_result *mr)
{
	if (!disagree(D_ERRNO, batch))
		return;
	printf("DISAGREE seed=%" PRIu64 " batch=%u name#%u op=%s mount=%s name(hex)=",
	       seed, batch, idx, op_names[op], flavour);
	hex(stdout, g->b, g->n);
	printf(" name=\"%.*s\" kernel=%s model=%s", (int)(g->n > 60 ? 60 : g->n),
	       (const char *)g->b, nlc_errname(kerr),
	       mr->replaced >= 0 ? "replaced" : nlc_errname(mr->err));
	if (!mr->err && mr->replaced < 0) {
		printf(" model-entry=");
		show11(stdout, mr->ent.name);
		printf(" lcase=0x%02x", mr->ent.lcase);
	}
	printf("\n");
}

struct dirstate {
	struct nlc_entry *ents;
	size_t n;
	unsigned int *from;	/* name index that created the entry */
	int op;
	/* every name the kernel accepted (whatever the model said) */
	struct gen *acc;
	unsigned int *acc_from;
	int *acc_ent;		/* the model's entry for it, or -1 */
	unsigned char *acc_late; /* the model says: renamed onto an entry */
	size_t nacc;
};

static int check_dir(const struct fat_raw *fr, unsigned int batch, int d,
		     const struct dirstate *ds)
{
	char n11[12];
	unsigned int cl, i, used, k = 0;
	struct fat_raw_dir dir;
	int bad = 0, ret;
	FILE *out = dis[D_DISK] < PRINT_MAX ? stdout : devnull;

	snprintf(n11, sizeof(n11), "%-11s", dir_names[d]);
	ret = fat_raw_subdir(fr, 0, n11, &cl);
	if (!ret)
		ret = fat_raw_read_dir(fr, cl, &dir);
	if (ret)
		die("batch %u: cannot read directory %s from the image: %s", batch,
		    dir_names[d], strerror(-ret));
	used = fat_raw_used_slots(&dir);
	for (i = 0; i < used; i++) {
		const struct msdos_dir_entry *de = &dir.ents[i];

		if (fat_raw_is_dot(de))
			continue;
		if (!fat_raw_is_live(de) || fat_raw_is_lfn(de)) {
			/* a refused name must leave nothing; no LFN slot ever */
			if (d == 3 && !fat_raw_is_lfn(de))
				continue;	/* rename sources are deleted */
			fprintf(out, "DISAGREE-DISK seed=%" PRIu64 " batch=%u dir=%s slot=%u: %s slot (first byte 0x%02x attr 0x%02x), model: none\n",
			       seed, batch, op_names[ds ? ds->op : 2], i,
			       fat_raw_is_lfn(de) ? "LFN" : "deleted",
			       de->name[0], de->attr);
			bad = 1;
			continue;
		}
		if (!ds || k >= ds->n) {
			fprintf(out, "DISAGREE-DISK seed=%" PRIu64 " batch=%u dir=%s slot=%u: extra entry ",
			       seed, batch, d == 3 ? "rename-source" : op_names[ds->op], i);
			show11(out, de->name);
			fprintf(out, " lcase=0x%02x, model: none\n", de->lcase);
			bad = 1;
			continue;
		}
		if (memcmp(de->name, ds->ents[k].name, 11) ||
		    de->lcase != ds->ents[k].lcase ||
		    !!(de->attr & ATTR_DIR) != ds->ents[k].is_dir) {
			fprintf(out, "DISAGREE-DISK seed=%" PRIu64 " batch=%u dir=%s name#%u name(hex)=",
			       seed, batch, op_names[ds->op], ds->from[k]);
			hex(out, ds->ents[k].cname, ds->ents[k].cname_len);
			fprintf(out, " kernel=");
			show11(out, de->name);
			fprintf(out, " lcase=0x%02x dir=%d model=", de->lcase, !!(de->attr & ATTR_DIR));
			show11(out, ds->ents[k].name);
			fprintf(out, " lcase=0x%02x dir=%d\n", ds->ents[k].lcase, ds->ents[k].is_dir);
			bad = 1;
		}
		k++;
	}
	if (ds && k < ds->n) {
		fprintf(out, "DISAGREE-DISK seed=%" PRIu64 " batch=%u dir=%s: %zu entries on disk missing (first: name#%u)\n",
		       seed, batch, op_names[ds->op], ds->n - k, ds->from[k]);
		bad = 1;
	}
	fat_raw_free_dir(&dir);
	return bad;
}

static void lookup_fail(unsigned int batch, const struct dirstate *ds,
			unsigned int idx, const unsigned char *name, size_t len,
			const char *what, const struct nlc_entry *e)
{
	if (!disagree(D_LOOKUP, batch))
		return;
	printf("DISAGREE-LOOKUP seed=%" PRIu64 " batch=%u dir=%s name#%u mount=%s name(hex)=",
	       seed, batch, op_names[ds->op], idx, flavour);
	hex(stdout, name, len);
	printf(" name=\"%.*s\": accepted by the kernel, after a cold mount %s",
	       (int)(len > 60 ? 60 : len), (const char *)name, what);
	if (e) {
		printf(" (entry ");
		show11(stdout, e->name);
		printf(" lcase=0x%02x)", e->lcase);
	}
	printf("\n");
}

static void stat_name(unsigned int batch, const struct dirstate *ds,
		      unsigned int idx, const unsigned char *name, size_t len,
		      const struct nlc_entry *e, int want_dir)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), MNT "/%s/%.*s", dir_names[ds->op],
		 (int)len, (const char *)name);
	stats_lookup++;
	if (stat(path, &st)) {
		char what[64];

		snprintf(what, sizeof(what), "stat() fails: %s", nlc_errname(errno));
		lookup_fail(batch, ds, idx, name, len, what, e);
	} else if ((S_ISDIR(st.st_mode) ? 1 : 0) != want_dir) {
		lookup_fail(batch, ds, idx, name, len,
			    want_dir ? "stat() finds a file, not the directory" :
				       "stat() finds a directory, not the file", e);
	}
}

static void drop_dentries(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		ssize_t n = write(fd, "2", 1);	/* best effort */

		(void)n;
		close(fd);
	}
}

/*
 * The cold mount: every name the kernel accepted must be found by stat()
 * by its own bytes and, as a new entry, be shown by readdir exactly as
 * typed; and (unless the image check already disagreed) readdir must show
 * the entries as the model renders them.  First the
 * names that made an entry (no dentry of another entry can match them),
 * then, with the dentries dropped, the names that the model says were
 * renamed onto an existing entry.
 */
static void check_cold(unsigned int batch, const struct nlc_mount *m,
		       const struct dirstate *ds, int image_bad)
{
	static char listed[MAX_BATCH + 1][256];
	unsigned char disp[64];
	size_t k, dl, nlisted;
	int d, late;

	for (late = 0; late < 2; late++) {
		if (late)
			drop_dentries();
		for (d = 0; d < NDIRS; d++)
			for (k = 0; k < ds[d].nacc; k++)
				if (ds[d].acc_late[k] == late)
					stat_name(batch, &ds[d], ds[d].acc_from[k],
						  ds[d].acc[k].b, ds[d].acc[k].n,
						  ds[d].acc_ent[k] < 0 ? NULL :
						  &ds[d].ents[ds[d].acc_ent[k]],
						  ds[d].op == NLC_MKDIR);
	}
	for (d = 0; d < NDIRS; d++) {
		char path[64];
		struct dirent *de;
		DIR *dir;

		snprintf(path, sizeof(path), MNT "/%s", dir_names[d]);
		dir = opendir(path);
		if (!dir)
			die("opendir %s: %s", path, strerror(errno));
		k = 0;
		nlisted = 0;
		while ((de = readdir(dir))) {
			size_t nl = strlen(de->d_name);

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (nlisted < MAX_BATCH + 1)
				memcpy(listed[nlisted++], de->d_name, nl + 1);
			if (image_bad)
				continue;
			if (k >= ds[d].n) {
				if (disagree(D_READDIR, batch)) {
					printf("DISAGREE-READDIR seed=%" PRIu64 " batch=%u dir=%s mount=%s: extra name (hex) ",
					       seed, batch, op_names[d], flavour);
					hex(stdout, (const unsigned char *)de->d_name, nl);
					printf("\n");
				}
				continue;
			}
			dl = nlc_display(m, &ds[d].ents[k], disp);
			if ((dl != nl || memcmp(disp, de->d_name, nl)) &&
			    disagree(D_READDIR, batch)) {
				printf("DISAGREE-READDIR seed=%" PRIu64 " batch=%u dir=%s name#%u mount=%s entry=",
				       seed, batch, op_names[d], ds[d].from[k], flavour);
				show11(stdout, ds[d].ents[k].name);
				printf(" lcase=0x%02x kernel shows (hex) ", ds[d].ents[k].lcase);
				hex(stdout, (const unsigned char *)de->d_name, nl);
				printf(", model ");
				hex(stdout, disp, dl);
				printf("\n");
			}
			k++;
		}
		closedir(dir);
		if (!image_bad && k < ds[d].n && disagree(D_READDIR, batch))
			printf("DISAGREE-READDIR seed=%" PRIu64 " batch=%u dir=%s mount=%s: %zu entries not shown\n",
			       seed, batch, op_names[d], flavour, ds[d].n - k);
		/*
		 * The invariant, without the model's rendering: every name
		 * the kernel accepted as a new entry is shown exactly as typed
		 */
		for (k = 0; k < ds[d].nacc; k++) {
			const struct gen *g = &ds[d].acc[k];
			size_t j;

			if (ds[d].acc_late[k])
				continue;
			stats_shown++;
			for (j = 0; j < nlisted; j++)
				if (strlen(listed[j]) == g->n &&
				    !memcmp(listed[j], g->b, g->n))
					break;
			if (j == nlisted && disagree(D_READDIR, batch)) {
				printf("DISAGREE-READDIR seed=%" PRIu64 " batch=%u dir=%s name#%u mount=%s: accepted, not shown as typed (hex) ",
				       seed, batch, op_names[d], ds[d].acc_from[k], flavour);
				hex(stdout, g->b, g->n);
				printf("\n");
			}
		}
	}
}

/* The options in force, from mountinfo: utf8 only without uni_xlate. */
static void check_mountinfo(unsigned int batch, const struct nlc_mount *m)
{
	char line[2048], *p, *tok;
	FILE *mi = fopen("/proc/self/mountinfo", "r");
	int seen = 0, nolong = 0, utf8 = 0, xlate = 0;

	while (mi && fgets(line, sizeof(line), mi)) {
		if (!strstr(line, " " MNT " ") || !(p = strstr(line, " - ")))
			continue;
		seen = 1;
		p = strrchr(p, ' ');	/* the super block options */
		for (tok = strtok(p + 1, ",\n"); tok; tok = strtok(NULL, ",\n")) {
			nolong |= !strcmp(tok, "nolongcreate");
			utf8 |= !strcmp(tok, "utf8");
			xlate |= !strcmp(tok, "uni_xlate");
		}
	}
	if (mi)
		fclose(mi);
	if (!seen || !nolong)
		die("batch %u: the mount does not show nolongcreate in mountinfo", batch);
	if ((utf8 != nlc_utf8_on(m) || xlate != !!m->uni_xlate) &&
	    disagree(D_MOUNT, batch)) {
		printf("DISAGREE-MOUNT seed=%" PRIu64 " batch=%u mount=%s: mountinfo shows utf8=%d uni_xlate=%d, model utf8 in force=%d\n",
		       seed, batch, flavour, utf8, xlate, nlc_utf8_on(m));
	}
}

/* ------------------------------------------------------------------ main */
static void usage(void)
{
	fprintf(stderr, "usage: nlc-fuzz [--seed N] [--count NAMES] [--batch NAMES] [--max-seconds S] [--stop]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long count = 100000, done = 0, batch_size = 200;
	double max_seconds = 0, t0, t_ops = 0, t_check = 0;
	unsigned char *pristine;
	size_t meta;
	char dev[32];
	int lfd, i, seeded = 0;
	unsigned int batch = 0, srcno = 0;
	struct fat_raw fr;
	struct dirstate ds[NDIRS];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0), seeded = 1;
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch_size = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc)
			max_seconds = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--stop"))
			stop_first = 1;
		else
			usage();
	}
	if (!batch_size || batch_size > MAX_BATCH)
		usage();
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u ^ ts.tv_nsec ^ getpid();
	}
	rng_state = seed;
	printf("nlc-fuzz: seed=%" PRIu64 " count=%lu batch=%lu (reproduce: nlc-fuzz --seed %" PRIu64 " --count %lu --batch %lu)\n",
	       seed, count, batch_size, seed, count, batch_size);
	fflush(stdout);

	clock_init();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		die("/dev/null: %s", strerror(errno));
	mkdir(WORK, 0755);
	mkdir(MNT, 0755);
	make_image(IMG, 32, 16, 4);	/* FAT16, 2 KiB clusters */
	lfd = loop_attach(IMG, dev, sizeof(dev));
	if (fat_raw_open(&fr, dev))
		die("%s: not a FAT image", dev);
	meta = fr.data_offset;
	pristine = malloc(meta);
	if (!pristine || pread(fr.fd, pristine, meta, 0) != (ssize_t)meta)
		die("cannot read the image metadata");
	fat_raw_close(&fr);
	for (i = 0; i < NDIRS; i++) {
		ds[i].ents = calloc(MAX_BATCH, sizeof(*ds[i].ents));
		ds[i].from = calloc(MAX_BATCH, sizeof(*ds[i].from));
		ds[i].op = i;
		ds[i].acc = calloc(MAX_BATCH, sizeof(*ds[i].acc));
		ds[i].acc_from = calloc(MAX_BATCH, sizeof(*ds[i].acc_from));
		ds[i].acc_ent = calloc(MAX_BATCH, sizeof(*ds[i].acc_ent));
		ds[i].acc_late = calloc(MAX_BATCH, sizeof(*ds[i].acc_late));
		if (!ds[i].ents || !ds[i].from || !ds[i].acc || !ds[i].acc_from ||
		    !ds[i].acc_ent || !ds[i].acc_late)
			die("out of memory");
	}

	t0 = now_s();
	while (done < count) {
		struct nlc_mount m;
		char opts[256];
		int dis_before, dis_batch[D_KINDS];
		int dfd[4], d, bad;
		unsigned long n = count - done < batch_size ? count - done : batch_size;
		double t1;

		batch++;
		dis_before = disagreements;
		memcpy(dis_batch, dis, sizeof(dis));
		m.iocharset = rn(2);
		m.utf8 = rn(2);
		m.shortname = rn(4);
		m.check = rn(3);
		m.uni_xlate = chance(30);
		m.nonumtail = rn(2);
		nlc_mount_opts(&m, opts, sizeof(opts));
		snprintf(flavour, sizeof(flavour), "%s", opts);
		printf("nlc-fuzz: batch %u: -o %s\n", batch, opts);
		if (mount(dev, MNT, "vfat", 0, opts))
			die("mount -o %s: %s", opts, strerror(errno));
		check_mountinfo(batch, &m);
		for (d = 0; d < 4; d++) {
			char p[64];

			snprintf(p, sizeof(p), MNT "/%s", dir_names[d]);
			if (mkdir(p, 0755))
				die("mkdir %s: %s", p, strerror(errno));
			dfd[d] = open(p, O_RDONLY | O_DIRECTORY);
			if (dfd[d] < 0)
				die("open %s: %s", p, strerror(errno));
		}
		for (d = 0; d < NDIRS; d++)
			ds[d].n = ds[d].nacc = 0;
		batch_n = 0;
		t1 = now_s();
		for (unsigned long k = 0; k < n; k++) {
			struct gen g;

			gen_name(&g, &m);
			for (int op = 0; op < 3; op++) {
				struct nlc_result mr;
				struct dirstate *s = &ds[op];
				char src[16];
				int kerr = 0, fd;

				nlc_predict(&m, op, g.b, g.n, s->ents, s->n, &mr);
				/* the name as a C string (never has NUL or '/') */
				char name[sizeof(g.b) + 1];

				memcpy(name, g.b, g.n);
				name[g.n] = 0;
				switch (op) {
				case NLC_CREAT:
					fd = openat(dfd[0], name, O_CREAT | O_EXCL | O_WRONLY, 0644);
					if (fd < 0)
						kerr = errno;
					else
						close(fd);
					break;
				case NLC_MKDIR:
					if (mkdirat(dfd[1], name, 0755))
						kerr = errno;
					break;
				default:
					snprintf(src, sizeof(src), "%08u", ++srcno % 100000000);
					fd = openat(dfd[3], src, O_CREAT | O_EXCL | O_WRONLY, 0644);
					if (fd < 0)
						die("batch %u: creating the rename source %s: %s",
						    batch, src, strerror(errno));
					close(fd);
					if (renameat(dfd[3], src, dfd[2], name)) {
						kerr = errno;
						if (unlinkat(dfd[3], src, 0))
							die("unlink %s: %s", src, strerror(errno));
					}
				}
				stats[op][kerr == 0 && mr.replaced >= 0 ? 7 : outcome_idx(kerr)]++;
				if (!kerr) {
					s->acc[s->nacc] = g;
					s->acc_from[s->nacc] = k;
					s->acc_ent[s->nacc] = -1;
					s->acc_late[s->nacc] = !mr.err && mr.replaced >= 0;
					s->nacc++;
				}
				if (kerr != mr.err) {
					report(batch, k, op, &g, kerr, &mr);
					continue;
				}
				if (!kerr && mr.replaced < 0) {
					s->acc_ent[s->nacc - 1] = s->n;
					s->ents[s->n] = mr.ent;
					s->from[s->n] = k;
					s->n++;
				}
				if (!kerr && op == NLC_CREAT) {
					for (size_t b = 0; b < g.n; b++)
						if (g.b[b] >= 0x80) {
							stats_acc_high++;
							break;
						}
					if (m.uni_xlate && memchr(g.b, ':', g.n))
						stats_acc_escape++;
				}
				if (mr.rt == 1)
					stats_rt_refused[op]++;
			}
			batch_names[batch_n++] = g;
		}
		t_ops += now_s() - t1;
		for (d = 0; d < 4; d++)
			close(dfd[d]);
		t1 = now_s();
		if (umount(MNT))
			die("umount: %s", strerror(errno));
		if (fat_raw_open(&fr, dev))
			die("%s: not a FAT image after batch %u", dev, batch);
		bad = 0;
		for (d = 0; d < 4; d++)
			bad |= check_dir(&fr, batch, d, d < NDIRS ? &ds[d] : NULL);
		fat_raw_close(&fr);
		if (bad)
			disagree(D_DISK, batch);
		/* the cold mount: same options, no dentry left from the batch */
		if (mount(dev, MNT, "vfat", 0, opts))
			die("batch %u: mount -o %s again: %s", batch, opts, strerror(errno));
		check_cold(batch, &m, ds, bad);
		if (umount(MNT))
			die("umount after the lookups: %s", strerror(errno));
		/* back to the freshly formatted image */
		if (pwrite(lfd, pristine, meta, 0) != (ssize_t)meta || fsync(lfd))
			die("restoring the image: %s", strerror(errno));
		t_check += now_s() - t1;
		done += n;
		if (disagreements != dis_before) {
			printf("nlc-fuzz: batch %u: disagreements", batch);
			for (int kd = 0; kd < D_KINDS; kd++)
				if (dis[kd] != dis_batch[kd])
					printf(" %s=%d", kind_names[kd], dis[kd] - dis_batch[kd]);
			printf(" (-o %s)\n", opts);
		}
		if (disagreements && stop_first) {
			printf("nlc-fuzz: stopping after batch %u (mount %s) with disagreements; seed=%" PRIu64 "\n",
			       batch, flavour, seed);
			break;
		}
		if (batch % 50 == 0) {
			printf("nlc-fuzz: %lu names, %.1f s\n", done, now_s() - t0);
			fflush(stdout);
		}
		if (max_seconds > 0 && now_s() - t0 > max_seconds) {
			printf("nlc-fuzz: --max-seconds %.0f reached after %lu names\n",
			       max_seconds, done);
			break;
		}
	}
	{
		double t = now_s() - t0;

		printf("nlc-fuzz: outcomes (kernel = model unless reported):\n");
		for (int op = 0; op < 3; op++) {
			printf("  %-6s", op_names[op]);
			for (int o = 0; o < 8; o++)
				if (stats[op][o])
					printf(" %s=%lu", outcome_names[o], stats[op][o]);
			printf("\n");
		}
		printf("nlc-fuzz: a valid 8.3 entry not shown as typed, refused (EINVAL) (creat/mkdir/rename): %lu/%lu/%lu\n",
		       stats_rt_refused[0], stats_rt_refused[1], stats_rt_refused[2]);
		printf("nlc-fuzz: creat accepted %lu names with a byte >= 0x80, %lu with a uni_xlate escape\n",
		       stats_acc_high, stats_acc_escape);
		printf("nlc-fuzz: %lu lookups by the accepted names after a cold mount, %lu readdir names compared with the name typed\n",
		       stats_lookup, stats_shown);
		if (disagreements) {
			printf("nlc-fuzz: disagreements by kind:");
			for (int kd = 0; kd < D_KINDS; kd++)
				printf(" %s=%d", kind_names[kd], dis[kd]);
			printf(" (first in batch %u; at most %d printed per kind)\n",
			       first_bad_batch, PRINT_MAX);
		}
		printf("nlc-fuzz: seed=%" PRIu64 " names=%lu ops=%lu batches=%u time=%.1fs (syscalls %.1fs, unmount+image check+cold mount lookups %.1fs) rate=%.0f names/s disagreements=%d\n",
		       seed, done, done * 3, batch, t, t_ops, t_check, done / t, disagreements);
		printf("%d passed, %d failed\n", disagreements ? 0 : 1, disagreements ? 1 : 0);
	}
	loop_detach(lfd);
	unlink(IMG);
	return disagreements ? 1 : 0;
}
