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
 * Each batch (its own PRNG stream, from seed and batch number) writes a
 * FAT16 image's root directory raw: up to 48 random 8.3 entries (printable
 * ASCII, raw lower case, bytes >= 0x80, a 0x05 first byte, control bytes,
 * DEL, spaces and NULs inside or at the start of base and extension, an
 * empty base, every lcase value, hidden and volume-label attributes), some
 * behind valid LFN slots and some behind LFN slots of another checksum.
 * Every entry's size is unique, so a lookup's answer names the entry.
 * Then it mounts the image with a random configuration (codepage 437 or
 * 932, iocharset iso8859-1, utf8, cp437 or cp932, utf8=0/1, every
 * shortname=, check=, uni_xlate=0/1), lists the directory and looks up L
 * names: names readdir showed and the entries' raw names, in random case,
 * near misses (a byte changed, added or removed, a trailing dot or space),
 * random bytes, non-ASCII and long names.  Before every lookup the dentry
 * and inode caches are dropped (drop_caches = 2), so that each lookup runs
 * fat_search_long().
 *
 * Output, per batch: "BATCH k cfg=... entries=E listed=D lookups=L
 * found=F hash=H" (H over the listing and every lookup's name and
 * answer), then "TOTAL ...".  --verbose prints every listed name and every
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

#define WORK "/tmp/nlc-lookdiff"
#define IMG WORK "/ld.img"
#define MNT WORK "/mnt"
#define MAXENT 48
#define SIZE_BASE 1000

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rn(unsigned int n)
{
	return next() % n;
}

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
	int len = 1 + rn(26), nslots = (len + 12) / 13, s, i;
	unsigned char sum = fat_raw_checksum(e->name);

	if (e->lfn == 2)
		sum ^= 1 + rn(255);
	for (i = 0; i < len; i++) {
		unsigned int r = rn(10);

		u[i] = r < 6 ? 'a' + rn(26) : r < 7 ? ' ' : r < 8 ? '.' :
		       r < 9 ? 'A' + rn(26) : wide[rn(sizeof(wide) / sizeof(wide[0]))];
	}
	u[len] = 0;
	for (s = nslots; s >= 1; s--) {
		unsigned char *p = out + (nslots - s) * 32;
		static const int off[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };

		memset(p, 0, 32);
		p[0] = s | (s == nslots ? 0x40 : 0);
		p[11] = ATTR_EXT;
		p[13] = sum;
		for (i = 0; i < 13; i++) {
			int k = (s - 1) * 13 + i;

			put_le16(p + off[i], k < len ? u[k] : k == len ? 0 : 0xffff);
		}
	}
	return nslots;
}

static void write_root(const char *dev)
{
	struct fat_raw fr;
	unsigned char *root;
	size_t size;
	int i, slot = 0, fd;

	if (fat_raw_open(&fr, dev) || fr.fat_bits == 32)
		die("%s: not a FAT12/16 image", dev);
	size = (size_t)fr.root_entries * 32;
	root = calloc(1, size);
	for (i = 0; i < nents; i++) {
		const struct ent *e = &ents[i];
		unsigned char *p;

		if (e->lfn)
			slot += lfn_slots(e, root + slot * 32);
		p = root + slot++ * 32;
		memcpy(p, e->name, MSDOS_NAME);
		p[11] = e->attr;
		p[12] = e->lcase;
		put_le16(p + 24, 0x5821);	/* 2024-01-01 */
		put_le16(p + 18, 0x5821);
		put_le16(p + 16, 0x5821);
		p[28] = (SIZE_BASE + i) & 0xff;	/* size: the entry's identity */
		p[29] = (SIZE_BASE + i) >> 8;
	}
	if ((size_t)slot * 32 > size)
		die("root directory overflow");
	fat_raw_close(&fr);
	fd = open(dev, O_RDWR);
	if (fd < 0 || pwrite(fd, root, size, fr.root_offset) != (ssize_t)size || fsync(fd))
		die("write root to %s: %s", dev, strerror(errno));
	close(fd);
	free(root);
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

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "2", 1) != 1)
		die("drop_caches: %s", strerror(errno));
	close(fd);
}

struct totals {
	unsigned long lookups, found, found_plain, found_other, mount_fail, nonascii;
};

static void run_batch(unsigned long long seed, int k, int per_batch, const char *dev,
		      int verbose, struct totals *t)
{
	char name[320], hx[700];
	struct dirent *d;
	struct stat st;
	int i, found = 0, mntfd;
	DIR *dir;

	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k * 0xd1b54a32d192ed03ULL;
	hash = 0xcbf29ce484222325ULL;
	gen_entries();
	gen_config();
	write_root(dev);
	if (mount(dev, MNT, "vfat", MS_NOATIME, cfg)) {
		int e = errno;

		hash_bytes(&e, sizeof(e));
		t->mount_fail++;
		printf("BATCH %d cfg=%s entries=%d mount=%s lookups=0 found=0 hash=%016llx\n",
		       k, cfg, nents, strerror(e), (unsigned long long)hash);
		return;
	}
	nlisted = 0;
	dir = opendir(MNT);
	if (!dir)
		die("opendir: %s", strerror(errno));
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name);

		hash_bytes(d->d_name, n + 1);
		if (verbose) {
			hex(hx, (unsigned char *)d->d_name, n < 300 ? n : 300);
			printf("LIST %d %s\n", k, hx);
		}
		if (nlisted < MAXLIST && n < 300 && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			strcpy(listed[nlisted++], d->d_name);
	}
	closedir(dir);
	mntfd = open(MNT, O_RDONLY | O_DIRECTORY);
	if (mntfd < 0)
		die("open %s: %s", MNT, strerror(errno));
	for (i = 0; i < per_batch; i++) {
		int len = make_name(name), r, j;

		for (j = 0; j < len; j++)
			if ((unsigned char)name[j] >= 0x80) {
				t->nonascii++;
				break;
			}
		drop_caches();
		if (fstatat(mntfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			r = -errno;
		} else {
			r = (int)st.st_size;
			found++;
			if (r >= SIZE_BASE && r < SIZE_BASE + nents) {
				if (ents[r - SIZE_BASE].plain)
					t->found_plain++;
				else
					t->found_other++;
			}
		}
		hash_bytes(name, len + 1);
		hash_bytes(&r, sizeof(r));
		if (verbose) {
			hex(hx, (unsigned char *)name, len);
			printf("LOOKUP %d %d %s %d\n", k, i, hx, r);
		}
	}
	close(mntfd);
	if (umount(MNT))
		die("umount: %s", strerror(errno));
	t->lookups += per_batch;
	t->found += found;
	printf("BATCH %d cfg=%s entries=%d listed=%d lookups=%d found=%d hash=%016llx\n",
	       k, cfg, nents, nlisted, per_batch, found, (unsigned long long)hash);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long count = 3000;
	int per_batch = 100, only = -1, verbose = 0, i, k, lfd;
	struct totals t = { 0 };
	char dev[32];
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
	make_image(IMG, 32, 16, 4);
	lfd = loop_attach(IMG, dev, sizeof(dev));
	printf("nlc-lookdiff: seed %llu, %ld lookups, %d per batch\n", seed, count, per_batch);
	fflush(stdout);
	t0 = now_s();
	/* batches until count lookups were made (a batch whose mount fails makes none) */
	for (k = only >= 0 ? only : 0; only >= 0 ? k == only : (long)t.lookups < count; k++) {
		run_batch(seed, k, per_batch, dev, verbose, &t);
		fflush(stdout);
	}
	printf("TOTAL lookups=%lu found=%lu found_plain=%lu found_other=%lu nonascii=%lu mount_fail=%lu seconds=%.1f\n",
	       t.lookups, t.found, t.found_plain, t.found_other, t.nonascii, t.mount_fail, now_s() - t0);
	loop_detach(lfd);
	unlink(IMG);
	return 0;
}
