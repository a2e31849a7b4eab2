// SPDX-License-Identifier: GPL-2.0
/*
 * lookdiff.c - the lookup half of a differential test between two
 * kernels: one with the 8.3 fast path (patch "fat: show plain ASCII 8.3
 * names without the charset round trip") and one without it.  Runs in
 * the QEMU guest; fuzz/run-lookdiff.sh boots both kernels with the same
 * seed and compares what this prints.
 *
 *   nlc-lookdiff --seed S --count N [--per-batch L] [--only-batch K] [--verbose]
 *
 * Setup: three images, FAT12, FAT16 and FAT32 (mkfs.vfat), each with a
 * subdirectory SUB that the kernel made and grew, with the root, to a
 * few clusters.  Each batch (its own PRNG stream, from seed and batch
 * number) picks an image and a directory (the root: the fixed FAT12/16
 * root or the FAT32 root's cluster chain; or SUB, a chain) and writes it
 * raw: up to 48 random 8.3 entries (printable ASCII, raw lower case,
 * bytes >= 0x80, a 0x05 first byte, control bytes, DEL, spaces and NULs
 * inside or at the start of base and extension, an empty base, every
 * lcase value, hidden, system, read-only and volume-label attributes),
 * some behind valid LFN slots and some behind LFN slots of another
 * checksum.  Every entry's size is unique, so a lookup's answer (size
 * and mode) names the entry.  Then it mounts the image with a random
 * configuration (codepage 437 or 932, iocharset iso8859-1, utf8, cp437
 * or cp932, utf8=0/1, every shortname=, check=, uni_xlate=0/1: the nls
 * the guest kernel has), lists the directory (names and d_type) and
 * looks up L names: names readdir showed and the entries' raw names, in
 * random case, near misses (a byte changed, added or removed, a trailing
 * dot or space), random bytes, non-ASCII and long names.  Before every
 * lookup the dentry and inode caches are dropped (drop_caches = 2,
 * written twice), so that each lookup runs fat_search_long(); at start a
 * probe proves it (PROBE line) and the end says what that cost.
 *
 * Output, per batch: "BATCH k fatB[/SUB] cfg=... entries=E listed=D
 * lookups=L found=F hash=H" (H over the listing and every lookup's name
 * and answer), then "TOTAL ...".  --verbose prints every listed name and every
 * lookup (name in hex, answer), for finding the first disagreement.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat_raw.h"
#include "guest.h"
#include "lfn.h"
#include "splitmix.h"

#define WORK "/tmp/nlc-lookdiff"
#define MNT WORK "/mnt"
#define MAXENT 48
#define SIZE_BASE 1000

static uint64_t hash = 0xcbf29ce484222325ULL;

static void hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		hash = (hash ^ *b++) * 0x100000001b3ULL;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

struct ent {
	unsigned char name[MSDOS_NAME];
	unsigned char lcase, attr;
	int lfn;		/* 0 none, 1 valid, 2 another checksum */
	int plain;		/* every shown byte 0x21-0x7f, no NUL, base non-empty */
};

static struct ent ents[MAXENT];
static int nents;

static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'()-@^_`{}~";

static unsigned char plain_byte(void)
{
	return plain_chars[rn(sizeof(plain_chars) - 1)];
}

static unsigned char odd_byte(void)
{
	static const char punct[] = "+,;=[]. \"*:<>?|\\";

	switch (rn(7)) {
	case 0: return 'a' + rn(26);		/* raw lower case */
	case 1: return 0x80 + rn(128);		/* codepage byte */
	case 2: return 1 + rn(31);		/* control */
	case 3: return 0x7f;
	case 4: return ' ';
	case 5: return 0;
	default: return punct[rn(sizeof(punct) - 1)];
	}
}

static int is_plain(const unsigned char *n)
{
	int i, end;

	for (end = 8; end > 0 && n[end - 1] == ' '; end--)
		;
	if (!end)
		return 0;
	for (i = 0; i < end; i++)
		if (n[i] < 0x21 || n[i] > 0x7f)
			return 0;
	for (end = MSDOS_NAME; end > 8 && n[end - 1] == ' '; end--)
		;
	for (i = 8; i < end; i++)
		if (n[i] < 0x21 || n[i] > 0x7f)
			return 0;
	return 1;
}

static void make_entry(struct ent *e)
{
	int blen = 1 + rn(8), elen = rn(4), i, muts;

	memset(e->name, ' ', MSDOS_NAME);
	for (i = 0; i < blen; i++)
		e->name[i] = plain_byte();
	for (i = 0; i < elen; i++)
		e->name[8 + i] = plain_byte();
	if (rn(100) < 45) {
		for (muts = 1 + rn(3); muts; muts--)
			e->name[rn(MSDOS_NAME)] = odd_byte();
	}
	switch (rn(40)) {
	case 0: e->name[0] = 0x05; break;			/* 0xE5 stored as 0x05 */
	case 1: memset(e->name, ' ', 8); break;			/* empty base */
	case 2: e->name[8] = 0; break;				/* NUL opens the extension */
	case 3: if (blen < 8) e->name[blen] = 0; break;		/* NUL after the base */
	}
	if (e->name[0] == 0 || e->name[0] == 0xe5)
		e->name[0] = 'X';
	e->lcase = (unsigned char[]){ 0, CASE_LOWER_BASE, CASE_LOWER_EXT,
				      CASE_LOWER_BASE | CASE_LOWER_EXT }[rn(4)];
	if (rn(8) == 0)
		e->lcase |= rn(256) & ~(CASE_LOWER_BASE | CASE_LOWER_EXT);
	e->attr = ATTR_ARCH;
	switch (rn(30)) {
	case 0: e->attr |= ATTR_HIDDEN; break;
	case 1: e->attr |= ATTR_SYS; break;
	case 2: e->attr = ATTR_VOLUME; break;
	case 3: e->attr |= ATTR_RO; break;	/* shown in the mode */
	}
	i = rn(100);
	e->lfn = i < 20 ? 1 : i < 25 ? 2 : 0;
	e->plain = is_plain(e->name);
}

static void put_le16(unsigned char *p, unsigned int v)
{
	p[0] = v;
	p[1] = v >> 8;
}

/* LFN slots for a random name of 1-26 UTF-16 units before entry @e */
static int lfn_slots(const struct ent *e, unsigned char *out)
{
	static const uint16_t wide[] = { 0xe9, 0xc9, 0x3c3, 0x3a3, 0x4e2d, 0x20ac, 0xdf };
	uint16_t u[27];
	int len = 1 + rn(26);
	unsigned char sum = fat_raw_checksum(e->name);

	if (e->lfn == 2)
		sum ^= 1 + rn(255);
	lfn_random_units(u, len, wide, sizeof(wide) / sizeof(wide[0]));
	return lfn_write_slots(out, u, len, sum);
}

/*
 * The images: FAT12, FAT16 and FAT32, each with a subdirectory SUB.  A
 * directory is written as a list of regions of the image (the fixed
 * FAT12/16 root, or each cluster of a chain the kernel allocated at
 * setup), filled from one buffer: entries, then zeros (end of directory).
 */
#define MAXREG 64
struct dirlay {
	unsigned long long off[MAXREG];
	size_t len[MAXREG];
	int nreg;
	size_t size;
};

struct img {
	int bits;
	char path[64], dev[32];
	int lfd;
	struct dirlay root, sub;
	unsigned char sub_de[32], dots[64];	/* SUB's entry; its . and .. */
};

static struct img imgs[3];

static void dirlay_chain(const struct fat_raw *fr, unsigned int cluster, struct dirlay *l)
{
	unsigned int val;

	l->nreg = 0;
	l->size = 0;
	if (!cluster) {
		if (fr->fat_bits != 32) {
			l->off[0] = fr->root_offset;
			l->len[0] = (size_t)fr->root_entries * 32;
			l->nreg = 1;
			l->size = l->len[0];
			return;
		}
		cluster = fr->root_cluster;
	}
	for (;;) {
		if (l->nreg == MAXREG)
			die("directory chain too long");
		l->off[l->nreg] = fat_raw_cluster_offset(fr, cluster);
		l->len[l->nreg++] = fr->cluster_size;
		l->size += fr->cluster_size;
		if (fat_raw_fat_entry(fr, cluster, &val))
			die("FAT entry of cluster %u", cluster);
		if (fat_raw_is_eoc(fr, val))
			return;
		cluster = val;
	}
}

static void write_dir(const char *dev, const struct dirlay *l, const unsigned char *buf)
{
	int fd = open(dev, O_RDWR), i;
	size_t pos = 0;

	if (fd < 0)
		die("open %s: %s", dev, strerror(errno));
	for (i = 0; i < l->nreg; pos += l->len[i], i++)
		if (pwrite(fd, buf + pos, l->len[i], l->off[i]) != (ssize_t)l->len[i])
			die("write %s: %s", dev, strerror(errno));
	if (fsync(fd))
		die("fsync %s: %s", dev, strerror(errno));
	close(fd);
}

#define SETUP_FILES 160	/* enough slots for MAXENT entries, 2 LFN slots each */

/* mkfs, then let the kernel make SUB and grow SUB and the root to hold
 * SETUP_FILES slots each; then note where they are on the image.
 */
static void setup_image(struct img *im, int bits)
{
	static const struct { int mib, spc; } geo[] = {
		[12] = { 4, 4 }, [16] = { 32, 4 }, [32] = { 40, 1 },
	};
	struct fat_raw fr;
	struct fat_raw_dir root, sub;
	char p[96];
	unsigned int subcl;
	int i, fd, idx;

	im->bits = bits;
	snprintf(im->path, sizeof(im->path), WORK "/fat%d.img", bits);
	make_image(im->path, geo[bits].mib, bits, geo[bits].spc);
	im->lfd = loop_attach(im->path, im->dev, sizeof(im->dev));
	if (mount(im->dev, MNT, "vfat", 0, "shortname=mixed"))
		die("mount %s: %s", im->dev, strerror(errno));
	if (mkdir(MNT "/SUB", 0755))
		die("mkdir SUB: %s", strerror(errno));
	for (i = 0; i < 2 * SETUP_FILES; i++) {
		snprintf(p, sizeof(p), MNT "%s/F%d", i < SETUP_FILES ? "" : "/SUB", i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || close(fd))
			die("create %s: %s", p, strerror(errno));
	}
	for (i = 0; i < 2 * SETUP_FILES; i++) {
		snprintf(p, sizeof(p), MNT "%s/F%d", i < SETUP_FILES ? "" : "/SUB", i);
		if (unlink(p))
			die("unlink %s: %s", p, strerror(errno));
	}
	if (umount(MNT))
		die("umount: %s", strerror(errno));
	if (fat_raw_open(&fr, im->dev) || (int)fr.fat_bits != bits)
		die("%s: not a FAT%d image", im->path, bits);
	if (fat_raw_subdir(&fr, 0, "SUB        ", &subcl))
		die("%s: no SUB", im->path);
	if (fat_raw_read_dir(&fr, 0, &root) || fat_raw_read_dir(&fr, subcl, &sub))
		die("%s: read directories", im->path);
	idx = fat_raw_find(&root, (const unsigned char *)"SUB        ");
	memcpy(im->sub_de, &root.ents[idx], 32);
	memcpy(im->dots, sub.ents, 64);
	dirlay_chain(&fr, 0, &im->root);
	dirlay_chain(&fr, subcl, &im->sub);
	fat_raw_free_dir(&root);
	fat_raw_free_dir(&sub);
	fat_raw_close(&fr);
}

/* The batch's directory: the root, or SUB (its . and .. kept, and the
 * root holding only SUB's entry).
 */
static void write_entries(const struct img *im, int in_sub)
{
	const struct dirlay *l = in_sub ? &im->sub : &im->root;
	unsigned char *buf = calloc(1, l->size), *rbuf;
	int i, slot = 0;

	if (!buf)
		die("out of memory");
	if (in_sub) {
		memcpy(buf, im->dots, 64);
		slot = 2;
	}
	for (i = 0; i < nents; i++) {
		const struct ent *e = &ents[i];
		unsigned char *p;

		if ((size_t)(slot + 3) * 32 > l->size)
			die("directory overflow");
		if (e->lfn)
			slot += lfn_slots(e, buf + slot * 32);
		p = buf + slot++ * 32;
		memcpy(p, e->name, MSDOS_NAME);
		p[11] = e->attr;
		p[12] = e->lcase;
		put_le16(p + 24, 0x5821);	/* 2024-01-01 */
		put_le16(p + 18, 0x5821);
		put_le16(p + 16, 0x5821);
		p[28] = (SIZE_BASE + i) & 0xff;	/* size: the entry's identity */
		p[29] = (SIZE_BASE + i) >> 8;
	}
	write_dir(im->dev, l, buf);
	if (in_sub) {
		rbuf = calloc(1, im->root.size);
		if (!rbuf)
			die("out of memory");
		memcpy(rbuf, im->sub_de, 32);
		write_dir(im->dev, &im->root, rbuf);
		free(rbuf);
	}
	free(buf);
}

/* The mounted root, or its only entry, SUB, by the name readdir shows
 * (shortname=lower and check=s do not find "SUB").
 */
static const char *dir_path(int in_sub)
{
	static char path[320];
	struct dirent *d;
	DIR *dir;

	if (!in_sub)
		return MNT;
	dir = opendir(MNT);
	if (!dir)
		die("opendir %s: %s", MNT, strerror(errno));
	path[0] = 0;
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			snprintf(path, sizeof(path), MNT "/%s", d->d_name);
	closedir(dir);
	if (!path[0])
		die("SUB not listed");
	return path;
}

static void gen_entries(void)
{
	int i, j, tries;

	nents = 8 + rn(MAXENT - 8 + 1);
	for (i = 0; i < nents; i++) {
		for (tries = 0; tries < 100; tries++) {
			make_entry(&ents[i]);
			for (j = 0; j < i; j++)
				if (!memcmp(ents[j].name, ents[i].name, MSDOS_NAME))
					break;
			/* not SUB's . and .., nor the root's SUB */
			if (!memcmp(ents[i].name, MSDOS_DOT, MSDOS_NAME) ||
			    !memcmp(ents[i].name, MSDOS_DOTDOT, MSDOS_NAME) ||
			    !memcmp(ents[i].name, "SUB        ", MSDOS_NAME))
				continue;
			if (j == i)
				break;
		}
		if (tries == 100)
			die("no unique 8.3 name");
	}
}

static char cfg[160];

static void gen_config(void)
{
	static const char *const ioc[] = { "iso8859-1", "utf8", "cp437", "cp932" };
	static const char *const sn[] = { "lower", "win95", "winnt", "mixed" };
	static const char chk[] = "rns";

	snprintf(cfg, sizeof(cfg), "codepage=%s,iocharset=%s,utf8=%u,shortname=%s,check=%c,uni_xlate=%u",
		 rn(3) ? "437" : "932", ioc[rn(4)], rn(2), sn[rn(4)], chk[rn(3)], rn(2));
}

#define MAXLIST 64
static char listed[MAXLIST][300];
static int nlisted;

static int make_name(char *out)
{
	unsigned int len = 0, i, k = rn(100);

	if (k < 35 && nlisted) {
		strcpy(out, listed[rn(nlisted)]);
		len = strlen(out);
	} else if (k < 60) {
		const struct ent *e = &ents[rn(nents)];
		int end;

		for (end = 8; end > 0 && e->name[end - 1] == ' '; end--)
			;
		memcpy(out, e->name, end);
		len = end;
		for (end = MSDOS_NAME; end > 8 && e->name[end - 1] == ' '; end--)
			;
		if (end > 8) {
			out[len++] = '.';
			memcpy(out + len, e->name + 8, end - 8);
			len += end - 8;
		}
		/* the 0xE5 a 0x05 lead byte stands for */
		if (len && (unsigned char)out[0] == 0x05 && rn(2))
			out[0] = (char)0xe5;
	} else if (k < 92) {
		unsigned int n = 1 + rn(14);

		for (i = 0; i < n; i++) {
			unsigned int r = rn(10);

			out[len++] = r < 5 ? plain_byte() : r < 7 ? (int)('a' + rn(26)) :
				     r < 8 ? '.' : (int)(0x80 + rn(128));
		}
	} else {
		unsigned int n = 13 + rn(40);

		for (i = 0; i < n; i++)
			out[len++] = rn(8) ? 'a' + rn(26) : ' ';
	}
	/* case flips */
	if (rn(2))
		for (i = 0; i < len; i++) {
			unsigned char c = out[i];

			if (rn(3) == 0 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
				out[i] ^= 0x20;
		}
	/* near misses */
	switch (rn(8)) {
	case 0: if (len) out[rn(len)] = plain_byte(); break;
	case 1: if (len < 290) { i = rn(len + 1); memmove(out + i + 1, out + i, len - i); out[i] = plain_byte(); len++; } break;
	case 2: if (len > 1) { i = rn(len); memmove(out + i, out + i + 1, len - i - 1); len--; } break;
	case 3: out[len++] = '.'; break;
	case 4: out[len++] = ' '; break;
	}
	for (i = 0; i < len; i++)
		if (out[i] == '/' || out[i] == 0)
			out[i] = 'x';
	out[len] = 0;
	if (!len || !strcmp(out, ".") || !strcmp(out, ".."))
		return make_name(out);
	return len;
}

static double dc_seconds, lookup_seconds;

static void drop_caches_once(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "2", 1) != 1)
		die("drop_caches: %s", strerror(errno));
	close(fd);
}

/*
 * Written twice: a dentry used again since it went on the LRU has
 * DCACHE_REFERENCED, and the first pass only clears that (the probe
 * below shows whether one write leaves it there); the second frees it.
 */
static void drop_caches(void)
{
	double t = now_s();

	drop_caches_once();
	drop_caches_once();
	dc_seconds += now_s() - t;
}

/*
 * Proof that a lookup after drop_caches() reaches fat_search_long():
 * look up PROBE (found), rename its entry on the block device behind the
 * mount's back (the same page cache the mount reads), then look it up
 * again: without dropping caches, after one write to drop_caches, and
 * after drop_caches().  The dcache answers "found" as long as it holds
 * the dentry; after drop_caches() the directory must be read again
 * (ENOENT).  Dies otherwise.
 */
static void probe_cold(const struct img *im)
{
	struct stat st;
	int fd, warm, once, cold;

	nents = 1;
	memset(&ents[0], 0, sizeof(ents[0]));
	memcpy(ents[0].name, "PROBE      ", MSDOS_NAME);
	ents[0].attr = ATTR_ARCH;
	write_entries(im, 0);
	if (mount(im->dev, MNT, "vfat", MS_NOATIME, ""))
		die("probe: mount: %s", strerror(errno));
	if (stat(MNT "/PROBE", &st))
		die("probe: PROBE not found: %s", strerror(errno));
	fd = open(im->dev, O_RDWR);
	if (fd < 0 || pwrite(fd, "Q", 1, im->root.off[0] + 4) != 1 || fsync(fd))
		die("probe: rename on %s: %s", im->dev, strerror(errno));
	close(fd);
	warm = stat(MNT "/PROBE", &st) ? -errno : 0;
	drop_caches_once();
	once = stat(MNT "/PROBE", &st) ? -errno : 0;
	drop_caches();
	cold = stat(MNT "/PROBE", &st) ? -errno : 0;
	if (umount(MNT))
		die("probe: umount: %s", strerror(errno));
	printf("PROBE entry PROBE renamed PROBQ on the device under the mount: lookup of PROBE without drop_caches: %s, after one write to drop_caches: %s, after drop_caches: %s\n",
	       warm ? strerror(-warm) : "found (dcache)", once ? strerror(-once) : "found (dcache)",
	       cold ? strerror(-cold) : "found (dcache)");
	if (cold != -ENOENT)
		die("probe: a lookup after drop_caches did not read the directory again");
}

struct totals {
	unsigned long lookups, found, found_plain, found_other, mount_fail, nonascii;
	unsigned long fat[3], in_sub;
};

static void run_batch(unsigned long long seed, int k, int per_batch,
		      int verbose, struct totals *t)
{
	char name[320], hx[700];
	const struct img *im;
	const char *dpath;
	struct dirent *d;
	struct stat st;
	int i, found = 0, dfd, in_sub, fi;
	unsigned int mode;
	DIR *dir;
	double t0;

	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k * 0xd1b54a32d192ed03ULL;
	hash = 0xcbf29ce484222325ULL;
	gen_entries();
	gen_config();
	fi = rn(3);
	im = &imgs[fi];
	in_sub = rn(2);
	write_entries(im, in_sub);
	if (mount(im->dev, MNT, "vfat", MS_NOATIME, cfg)) {
		int e = errno;

		hash_bytes(&e, sizeof(e));
		t->mount_fail++;
		printf("BATCH %d fat%d%s cfg=%s entries=%d mount=%s lookups=0 found=0 hash=%016llx\n",
		       k, im->bits, in_sub ? "/SUB" : "", cfg, nents, strerror(e),
		       (unsigned long long)hash);
		return;
	}
	nlisted = 0;
	dpath = dir_path(in_sub);
	dir = opendir(dpath);
	if (!dir)
		die("opendir: %s", strerror(errno));
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name);

		hash_bytes(d->d_name, n + 1);
		hash_bytes(&d->d_type, 1);
		if (verbose) {
			hex(hx, (unsigned char *)d->d_name, n < 300 ? n : 300);
			printf("LIST %d %s %u\n", k, hx, d->d_type);
		}
		if (nlisted < MAXLIST && n < 300 && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			strcpy(listed[nlisted++], d->d_name);
	}
	closedir(dir);
	dfd = open(dpath, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", dpath, strerror(errno));
	for (i = 0; i < per_batch; i++) {
		int len = make_name(name), r, j;

		for (j = 0; j < len; j++)
			if ((unsigned char)name[j] >= 0x80) {
				t->nonascii++;
				break;
			}
		drop_caches();
		t0 = now_s();
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			r = -errno;
			mode = 0;
		} else {
			r = (int)st.st_size;
			mode = st.st_mode;
			found++;
			if (r >= SIZE_BASE && r < SIZE_BASE + nents) {
				if (ents[r - SIZE_BASE].plain)
					t->found_plain++;
				else
					t->found_other++;
			}
		}
		lookup_seconds += now_s() - t0;
		hash_bytes(name, len + 1);
		hash_bytes(&r, sizeof(r));
		hash_bytes(&mode, sizeof(mode));
		if (verbose) {
			hex(hx, (unsigned char *)name, len);
			printf("LOOKUP %d %d %s %d %o\n", k, i, hx, r, mode);
		}
	}
	close(dfd);
	if (umount(MNT))
		die("umount: %s", strerror(errno));
	t->lookups += per_batch;
	t->found += found;
	t->fat[fi] += per_batch;
	t->in_sub += in_sub ? per_batch : 0;
	printf("BATCH %d fat%d%s cfg=%s entries=%d listed=%d lookups=%d found=%d hash=%016llx\n",
	       k, im->bits, in_sub ? "/SUB" : "", cfg, nents, nlisted, per_batch, found,
	       (unsigned long long)hash);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long count = 3000;
	int per_batch = 100, only = -1, verbose = 0, i, k;
	struct totals t = { 0 };
	double t0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--per-batch") && i + 1 < argc)
			per_batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only-batch") && i + 1 < argc)
			only = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else
			die("usage: nlc-lookdiff --seed S --count N [--per-batch L] [--only-batch K] [--verbose]");
	}
	if (count < 1 || per_batch < 1 || per_batch > 10000)
		die("bad --count or --per-batch");
	clock_init();
	mkdir(WORK, 0755);
	mkdir(MNT, 0755);
	setup_image(&imgs[0], 12);
	setup_image(&imgs[1], 16);
	setup_image(&imgs[2], 32);
	probe_cold(&imgs[1]);
	printf("nlc-lookdiff: seed %llu, %ld lookups, %d per batch\n", seed, count, per_batch);
	fflush(stdout);
	t0 = now_s();
	/* batches until count lookups were made (a batch whose mount fails makes none) */
	for (k = only >= 0 ? only : 0; only >= 0 ? k == only : (long)t.lookups < count; k++) {
		run_batch(seed, k, per_batch, verbose, &t);
		fflush(stdout);
	}
	printf("TOTAL lookups=%lu found=%lu found_plain=%lu found_other=%lu nonascii=%lu mount_fail=%lu fat12=%lu fat16=%lu fat32=%lu in_sub=%lu seconds=%.1f drop_caches_s=%.1f lookup_s=%.1f\n",
	       t.lookups, t.found, t.found_plain, t.found_other, t.nonascii, t.mount_fail,
	       t.fat[0], t.fat[1], t.fat[2], t.in_sub, now_s() - t0, dc_seconds, lookup_seconds);
	for (i = 0; i < 3; i++) {
		loop_detach(imgs[i].lfd);
		unlink(imgs[i].path);
	}
	return 0;
}
