// SPDX-License-Identifier: GPL-2.0
/*
 * corrupt.c - broken FAT images for the KASAN + UBSAN + lockdep kernel, as
 * syzbot feeds fat.  Runs in the QEMU guest (fuzz/run-corrupt.sh boots it).
 *
 *   nlc-corrupt --seed S --count N [--start I] [--mounts M]
 *   nlc-corrupt --seed S --start I --write-image FILE   (no mount: the host can run it)
 *
 * Image I of seed S is built in memory from its own PRNG stream: FAT12,
 * FAT16 or FAT32 (a small FAT32 with few clusters, which Linux takes), a
 * tree of directories (., .., files with data, some with valid LFN
 * slots), then 1-8 mutations: name bytes outside the charset, a 0x05,
 * 0xE5, 0x00 or space first byte, lcase flags on odd names, attribute
 * bytes, . and .. entries where they do not belong or pointing elsewhere,
 * LFN slots with another checksum, out of order, without their last
 * flag, orphaned or with illegal characters, directory cluster chains
 * that loop or run into free, bad or out-of-range clusters, a
 * subdirectory that is its own ancestor, files cross-linked with
 * directories, absurd sizes, FAT entries and random bytes.  Each image is
 * mounted M times (default 2), alternately with and without
 * nolongcreate, with random other options (never errors=panic), and on
 * each mount: readdir of the tree, lookups (listed names, the raw names,
 * near misses, long names), reads, create, mkdir, rename, unlink and
 * rmdir, readdir again, umount.  A line "nlc-corrupt: image I ..." goes
 * to the kernel log (/dev/kmsg) before every mount, so that the console
 * names the image under way when a splat comes.
 *
 * Output: "IMAGE i fatB mutations=... mounts=... ops=..." per image, then
 * "TOTAL images=... mounts=... mount_fail=... ops=... lookup=... readdir=...
 * create=... mkdir=... rename=... ...".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fat_raw.h"
#include "guest.h"
#include "lfn.h"
#include "splitmix.h"

#define WORK "/tmp/nlc-corrupt"
#define MNT WORK "/mnt"
#define IMG_MAX (4u << 20)
#define SEC 512

static void put16(unsigned char *p, unsigned int v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(unsigned char *p, unsigned int v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

/* ------------------------------------------------------------ the image -- */
static unsigned char img[IMG_MAX];
static unsigned int bits, spc, clus_size, nclusters, next_free, data_off, fat_off, fat_len;
static unsigned int root_off, root_ents, total_sec;

#define MAXDIR 12
#define MAXSLOT 256
struct dirinfo {
	unsigned int start;	/* 0: the fixed FAT12/16 root */
	unsigned int clus[8];
	int nclus, used, cap, depth, parent;
};
static struct dirinfo dirs[MAXDIR];
static int ndirs;

/* placed entries, for the mutations: the short entry's offset, its LFN run */
struct placed {
	unsigned int off, lfn_off;
	int nlfn, dir, is_dir, child;
};
static struct placed ents[MAXDIR * 64];
static int nents;

static unsigned int cl_off(unsigned int c)
{
	return data_off + (c - 2) * clus_size;
}

static void fat_set(unsigned int c, unsigned int v)
{
	int f;

	for (f = 0; f < 2; f++) {
		unsigned char *t = img + fat_off + f * fat_len;

		if (bits == 12) {
			unsigned char *p = t + c * 3 / 2;

			if (c & 1) {
				p[0] = (p[0] & 0x0f) | (v << 4);
				p[1] = v >> 4;
			} else {
				p[0] = v;
				p[1] = (p[1] & 0xf0) | ((v >> 8) & 0x0f);
			}
		} else if (bits == 16) {
			put16(t + c * 2, v);
		} else {
			put32(t + c * 4, v & 0x0fffffff);
		}
	}
}

static unsigned int eoc(void)
{
	return bits == 12 ? 0xfff : bits == 16 ? 0xffff : 0x0fffffff;
}

/* a chain of n clusters; 0 if the image is full */
static unsigned int alloc_chain(int n, unsigned int *out)
{
	int i;

	if (next_free + n > nclusters + 2)
		return 0;
	for (i = 0; i < n; i++) {
		out[i] = next_free++;
		fat_set(out[i], i + 1 < n ? out[i] + 1 : eoc());
	}
	return out[0];
}

static unsigned int slot_off(const struct dirinfo *d, int slot)
{
	int per = clus_size / 32;

	if (!d->start)
		return root_off + slot * 32;
	return cl_off(d->clus[slot / per]) + (slot % per) * 32;
}

static void set_start(unsigned char *de, unsigned int c)
{
	put16(de + 26, c);
	put16(de + 20, bits == 32 ? c >> 16 : 0);
}

static void short_entry(unsigned char *de, const unsigned char *name, unsigned char attr,
			unsigned char lcase, unsigned int start, unsigned int size)
{
	memcpy(de, name, MSDOS_NAME);
	de[11] = attr;
	de[12] = lcase;
	put16(de + 14, 0x6000);
	put16(de + 16, 0x5821);
	put16(de + 18, 0x5821);
	put16(de + 22, 0x6000);
	put16(de + 24, 0x5821);
	set_start(de, start);
	put32(de + 28, size);
}

static const char sfn_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-~!#$%&'(){}@^`";

static void gen_sfn(unsigned char *n)
{
	int b = 1 + rn(8), e = rn(4), i;

	memset(n, ' ', MSDOS_NAME);
	for (i = 0; i < b; i++)
		n[i] = sfn_chars[rn(sizeof(sfn_chars) - 1)];
	for (i = 0; i < e; i++)
		n[8 + i] = sfn_chars[rn(sizeof(sfn_chars) - 1)];
}

/* valid LFN slots for a random name before the short entry @sfn; returns the count */
static int lfn_run(const unsigned char *sfn, unsigned char *out)
{
	static const uint16_t wide[] = { 0xe9, 0xc9, 0x3c3, 0x4e2d, 0x20ac, 0xdf, 0xfc };
	uint16_t u[80];
	int len = 1 + rn(rn(4) ? 20 : 70);
	unsigned char sum = fat_raw_checksum(sfn);

	lfn_random_units(u, len, wide, sizeof(wide) / sizeof(wide[0]));
	return lfn_write_slots(out, u, len, sum);
}

static int new_dir(int parent, int depth)
{
	struct dirinfo *d = &dirs[ndirs];
	int n = 1 + rn(3);

	if (ndirs == MAXDIR || n > 8 || !alloc_chain(n, d->clus))
		return -1;
	d->start = d->clus[0];
	d->nclus = n;
	d->cap = n * clus_size / 32;
	if (d->cap > MAXSLOT)
		d->cap = MAXSLOT;
	d->used = 0;
	d->depth = depth;
	d->parent = parent;
	return ndirs++;
}

/* one entry (a file or, if @sub, a new directory) in directory @di */
static void add_entry(int di, int sub)
{
	struct dirinfo *d = &dirs[di];
	unsigned char name[MSDOS_NAME], run[32 * 6], *de;
	unsigned int start = 0, size = 0, chain[8];
	int nl = 0, i, child = -1, n;
	struct placed *pe;

	gen_sfn(name);
	if (rn(3) == 0)
		nl = lfn_run(name, run);
	if (d->used + nl + 1 > d->cap || nents == (int)(sizeof(ents) / sizeof(ents[0])))
		return;
	if (sub) {
		child = new_dir(di, d->depth + 1);
		if (child < 0)
			return;
		start = dirs[child].start;
	} else if ((n = rn(4))) {
		if (alloc_chain(n, chain)) {
			start = chain[0];
			size = (n - 1) * clus_size + 1 + rn(clus_size);
			for (i = 0; i < n; i++)
				memset(img + cl_off(chain[i]), 'a' + rn(26), clus_size);
		}
	}
	pe = &ents[nents++];
	pe->nlfn = nl;
	pe->lfn_off = nl ? slot_off(d, d->used) : 0;
	for (i = 0; i < nl; i++)
		memcpy(img + slot_off(d, d->used++), run + i * 32, 32);
	pe->off = slot_off(d, d->used++);
	pe->dir = di;
	pe->is_dir = sub;
	pe->child = child;
	de = img + pe->off;
	short_entry(de, name, sub ? ATTR_DIR : ATTR_ARCH,
		    rn(4) == 0 ? (unsigned char[]){ 0x08, 0x10, 0x18 }[rn(3)] : 0, start, size);
	if (sub) {
		struct dirinfo *c = &dirs[child];

		short_entry(img + slot_off(c, 0), (const unsigned char *)MSDOS_DOT, ATTR_DIR, 0, c->start, 0);
		short_entry(img + slot_off(c, 1), (const unsigned char *)MSDOS_DOTDOT, ATTR_DIR, 0,
			    di == 0 ? 0 : d->start, 0);
		c->used = 2;
	}
}

static void build_image(void)
{
	unsigned int res, fat_sec, root_sec;
	unsigned char *b = img;
	int di, k;

	memset(img, 0, sizeof(img));
	nents = ndirs = 0;
	bits = (unsigned int[]){ 12, 16, 32 }[rn(3)];
	spc = bits == 16 ? 1 : 1u << rn(3);
	clus_size = spc * SEC;
	total_sec = bits == 12 ? 2048 : bits == 16 ? 6144 : 4096;
	res = bits == 32 ? 32 : 1;
	root_ents = bits == 32 ? 0 : 512;
	root_sec = root_ents * 32 / SEC;
	/* FAT size from an over-estimate of the cluster count */
	nclusters = (total_sec - res - root_sec) / spc;
	fat_sec = ((nclusters + 2) * bits / 8 + SEC - 1) / SEC;
	nclusters = (total_sec - res - 2 * fat_sec - root_sec) / spc;
	fat_off = res * SEC;
	fat_len = fat_sec * SEC;
	root_off = fat_off + 2 * fat_len;
	data_off = root_off + root_sec * SEC;

	memcpy(b, "\xeb\x3c\x90NLCFUZZ ", 11);
	put16(b + 11, SEC);
	b[13] = spc;
	put16(b + 14, res);
	b[16] = 2;
	put16(b + 17, root_ents);
	put16(b + 19, total_sec);
	b[21] = 0xf8;
	put16(b + 22, bits == 32 ? 0 : fat_sec);
	put16(b + 24, 32);
	put16(b + 26, 64);
	if (bits == 32) {
		put32(b + 36, fat_sec);
		put32(b + 44, 2);	/* root cluster */
		put16(b + 48, 1);	/* FSInfo */
		put16(b + 50, 6);	/* backup boot sector */
		b[66] = 0x29;
		memcpy(b + 71, "NLC        FAT32   ", 19);
		put32(img + SEC, 0x41615252);
		put32(img + SEC + 484, 0x61417272);
		put32(img + SEC + 488, 0xffffffff);
		put32(img + SEC + 492, 0xffffffff);
		put32(img + SEC + 508, 0xaa550000);
	} else {
		b[38] = 0x29;
		memcpy(b + 43, bits == 12 ? "NLC        FAT12   " : "NLC        FAT16   ", 19);
	}
	b[510] = 0x55;
	b[511] = 0xaa;
	if (bits == 32)
		memcpy(img + 6 * SEC, img, SEC);
	fat_set(0, 0xffffff8);
	fat_set(1, eoc());
	next_free = 2;

	/* the root */
	memset(&dirs[0], 0, sizeof(dirs[0]));
	if (bits == 32) {
		dirs[0].nclus = 1 + rn(2);
		alloc_chain(dirs[0].nclus, dirs[0].clus);
		dirs[0].start = dirs[0].clus[0];
		dirs[0].cap = dirs[0].nclus * clus_size / 32;
	} else {
		dirs[0].cap = root_ents < MAXSLOT ? root_ents : MAXSLOT;
	}
	ndirs = 1;
	for (di = 0; di < ndirs; di++) {
		int n = 2 + rn(10);

		for (k = 0; k < n; k++)
			add_entry(di, dirs[di].depth < 3 && rn(4) == 0);
	}
}

/* ---------------------------------------------------------- mutations -- */
static const char *const mut_names[] = {
	"charset", "first-byte", "lcase", "attr", "dots", "lfn", "dir-loop",
	"chain", "size", "bytes", "fat", "dup-name",
};
#define NMUT (int)(sizeof(mut_names) / sizeof(mut_names[0]))
static unsigned long mut_count[NMUT];

static unsigned char odd_byte(void)
{
	static const char bad[] = "*?<>|\":\\/+,;=[]. abcdefghz";

	switch (rn(4)) {
	case 0: return 0x80 + rn(128);
	case 1: return 1 + rn(31);
	case 2: return 0x7f;
	default: return bad[rn(sizeof(bad) - 1)];
	}
}

static struct placed *pick(void)
{
	return nents ? &ents[rn(nents)] : NULL;
}

static unsigned int rand_cluster(void)
{
	switch (rn(6)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return nclusters + 2 + rn(16);	/* past the end */
	case 3: return eoc() - 8;		/* bad cluster */
	case 4: return dirs[rn(ndirs)].start;	/* some directory */
	default: return 2 + rn(nclusters);
	}
}

static void mutate(int m)
{
	struct placed *e = pick();
	unsigned char *de = e ? img + e->off : NULL;
	int i;

	if (!e && m != 6 && m != 9 && m != 10)
		return;
	mut_count[m]++;
	switch (m) {
	case 0:	/* bytes outside the charset */
		for (i = 1 + rn(3); i; i--)
			de[rn(MSDOS_NAME)] = odd_byte();
		break;
	case 1:	/* first byte */
		de[0] = (unsigned char[]){ 0x05, 0xe5, 0x00, ' ', 0x05 }[rn(5)];
		break;
	case 2:	/* lcase flags, on an odd name too */
		de[12] = rn(2) ? (0x08 | 0x10) : rn(256);
		if (rn(2))
			de[rn(MSDOS_NAME)] = odd_byte();
		break;
	case 3:	/* attribute byte */
		de[11] = (unsigned char[]){ ATTR_EXT, ATTR_DIR, ATTR_VOLUME, 0xff, 0x3f,
					    ATTR_ARCH, (unsigned char)rn(256) }[rn(7)];
		break;
	case 4: {	/* . and .. where they do not belong, or pointing elsewhere */
		struct dirinfo *d = &dirs[rn(ndirs)];

		if (d->start && rn(2)) {
			de = img + slot_off(d, rn(2));
			set_start(de, rand_cluster());
			if (rn(3) == 0)
				de[11] = ATTR_ARCH;
		} else {
			memcpy(de, rn(2) ? MSDOS_DOT : MSDOS_DOTDOT, MSDOS_NAME);
			if (rn(2))
				de[11] = ATTR_DIR;
		}
		break;
	}
	case 5:	/* LFN slots: checksum, order, last flag, orphans, characters */
		if (!e->nlfn) {
			/* an orphan run: slots over a short entry */
			unsigned char run[32 * 6];
			int n = lfn_run(de, run);

			memcpy(de, run + (n - 1) * 32, 32);
			break;
		}
		de = img + e->lfn_off;
		switch (rn(7)) {
		case 0: de[13 + 32 * rn(e->nlfn)] ^= 1 + rn(255); break;
		case 1: de[0] &= ~0x40; break;
		case 2: de[32 * rn(e->nlfn)] = rn(2) ? 0 : 21 + rn(40); break;
		case 3: if (e->nlfn > 1) { unsigned char t[32];
				memcpy(t, de, 32); memcpy(de, de + 32, 32); memcpy(de + 32, t, 32); }
			else de[0] = 0x40 | 20;
			break;
		case 4: put16(de + 32 * rn(e->nlfn) + 1 + 2 * rn(5),
			      (unsigned int[]){ '/', 0, 0xd800, 0xdfff, '*', 0xffff }[rn(6)]); break;
		case 5: put16(de + 26, 2 + rn(nclusters)); break;	/* LFN with a cluster */
		default: img[e->off] = 0xe5; break;			/* the short entry gone */
		}
		break;
	case 6: {	/* directory chains that loop; a directory its own ancestor */
		struct dirinfo *d = &dirs[rn(ndirs)];

		if (!d->start)
			break;
		if (rn(2) || ndirs < 2)
			fat_set(d->clus[d->nclus - 1], d->clus[rn(d->nclus)]);
		else if (e && e->is_dir)
			set_start(img + e->off, dirs[rn(e->child + 1)].start);
		else
			fat_set(d->clus[rn(d->nclus)], rand_cluster());
		break;
	}
	case 7:	/* an entry's start cluster */
		set_start(de, rand_cluster());
		if (bits != 32 && rn(3) == 0)
			put16(de + 20, 1 + rn(0xffff));
		break;
	case 8:	/* sizes */
		put32(de + 28, (unsigned int[]){ 0xffffffff, 0x7fffffff, 1u << 20,
						 (unsigned int)rn(1u << 16), 0 }[rn(5)]);
		break;
	case 9: {	/* random bytes in a directory */
		struct dirinfo *d = &dirs[rn(ndirs)];

		for (i = 1 + rn(8); i; i--)
			img[slot_off(d, rn(d->used + 1 < d->cap ? d->used + 1 : d->cap)) + rn(32)] = rn(256);
		break;
	}
	case 10:	/* FAT entries */
		for (i = 1 + rn(4); i; i--)
			fat_set(2 + rn(next_free - 2 + 1), rand_cluster());
		break;
	default: {	/* a name twice in one directory */
		struct placed *o = pick();

		memcpy(img + o->off, de, MSDOS_NAME);
		break;
	}
	}
}

/* image @i of @seed, its mutations named in @muts */
static void make_image_nr(unsigned long long seed, long i, char *muts, size_t size)
{
	int k, m;

	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0xd1b54a32d192ed03ULL;
	build_image();
	muts[0] = 0;
	for (k = 1 + rn(8); k; k--) {
		m = rn(NMUT);
		mutate(m);
		snprintf(muts + strlen(muts), size - strlen(muts), "%s%s", muts[0] ? "," : "", mut_names[m]);
	}
}

/* ----------------------------------------------------------- operations -- */
enum { OP_READDIR, OP_LOOKUP, OP_READ, OP_CREATE, OP_MKDIR, OP_RENAME, OP_UNLINK, NOP };
static const char *const op_names[NOP] = { "readdir", "lookup", "read", "create", "mkdir", "rename", "unlink" };
/* what a child (one image's mounts) hands back to its parent */
static struct stats {
	unsigned long ops[NOP], ops_ok[NOP], long_refused, long_made, long_tried_nlc;
	unsigned long mounts, mount_fail, nlc_mounts, cut;
} fig;

/* a mount's operations stop after MOUNT_SECONDS: on a looping chain each one walks it */
#define MOUNT_SECONDS 60
static double mount_t0;
static int cut;

static void op(int kind, int r)
{
	if (!cut && now_s() - mount_t0 > MOUNT_SECONDS) {
		cut = 1;
		fig.cut++;
	}
	fig.ops[kind]++;
	if (r == 0)
		fig.ops_ok[kind]++;
}

#define MAXPATHS 96
static char paths[MAXPATHS][320];
static unsigned char ptype[MAXPATHS];
static int npaths, budget;

/* the tree from @dir, at most 4 deep and 400 entries (a directory may be its own ancestor) */
static void walk(const char *dir, int depth)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	op(OP_READDIR, dp ? 0 : -1);
	if (!dp)
		return;
	while (!cut && budget-- > 0 && (d = readdir(dp))) {
		char p[320];
		struct stat st;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, d->d_name) >= (int)sizeof(p))
			continue;
		op(OP_LOOKUP, lstat(p, &st));
		if (npaths < MAXPATHS) {
			strcpy(paths[npaths], p);
			ptype[npaths++] = d->d_type;
		}
		if (d->d_type == DT_DIR && depth < 4)
			walk(p, depth + 1);
	}
	closedir(dp);
}

/* a name to create: 8.3 in either case, long, with a byte >= 0x80, odd */
static int new_name(char *out, size_t size)
{
	int k = rn(6);

	switch (k) {
	case 0: snprintf(out, size, "N%u.TXT", (unsigned int)rn(100000)); break;
	case 1: snprintf(out, size, "n%u.txt", (unsigned int)rn(100000)); break;
	case 2: snprintf(out, size, "A long name %u.gcode", (unsigned int)rn(1000)); break;
	case 3: snprintf(out, size, "\xc3\xa9t\xc3\xa9%u.TXT", (unsigned int)rn(100)); break;
	case 4: snprintf(out, size, "%c%u", sfn_chars[rn(26)], (unsigned int)rn(100)); break;
	default: snprintf(out, size, "x%u.tar.gz", (unsigned int)rn(100)); break;
	}
	return k == 2 || k == 5;	/* not 8.3: ENAMETOOLONG or EINVAL under nolongcreate */
}

static const char *some_dir(void)
{
	int tries;

	for (tries = 0; tries < 4 && npaths; tries++) {
		int i = rn(npaths);

		if (ptype[i] == DT_DIR)
			return paths[i];
	}
	return MNT;
}

static void exercise(int nlc)
{
	char p[400], q[400], nm[64], buf[4096];
	struct stat st;
	int i, fd, r, is_long;

	npaths = 0;
	budget = 400;
	walk(MNT, 0);
	/* lookups: listed names in another case, the raw names, near misses */
	for (i = 0; i < 24 && !cut; i++) {
		if (npaths && rn(2)) {
			int j, len;

			strcpy(p, paths[rn(npaths)]);
			len = strlen(p);
			for (j = len - 1; j > 0 && p[j] != '/'; j--)
				if (rn(3) == 0 && ((p[j] | 0x20) >= 'a' && (p[j] | 0x20) <= 'z'))
					p[j] ^= 0x20;
			if (rn(4) == 0 && len < 390)
				strcat(p, rn(2) ? "." : " ");
		} else if (nents) {
			const unsigned char *n = img + ents[rn(nents)].off;
			int j, l = 0;

			for (j = 0; j < MSDOS_NAME; j++) {
				if (j == 8)
					nm[l++] = '.';
				if (n[j] != ' ' && n[j] != '/' && n[j])
					nm[l++] = n[j];
			}
			while (l && nm[l - 1] == '.')
				l--;
			nm[l] = 0;
			if (!l)
				continue;
			snprintf(p, sizeof(p), "%s/%s", some_dir(), nm);
		} else {
			continue;
		}
		op(OP_LOOKUP, lstat(p, &st));
	}
	/* reads */
	for (i = 0; i < 4 && npaths && !cut; i++) {
		int j = rn(npaths);

		if (ptype[j] == DT_DIR)
			continue;
		fd = open(paths[j], O_RDONLY);
		r = fd < 0 ? -1 : 0;
		if (fd >= 0) {
			lseek(fd, rn(3) ? 0 : rn(1u << 16), SEEK_SET);
			if (read(fd, buf, sizeof(buf)) < 0)
				r = -1;
			close(fd);
		}
		op(OP_READ, r);
	}
	/* create and write */
	for (i = 0; i < 6 && !cut; i++) {
		is_long = new_name(nm, sizeof(nm));
		snprintf(p, sizeof(p), "%s/%s", some_dir(), nm);
		fd = open(p, O_CREAT | O_WRONLY | (rn(2) ? O_EXCL : 0), 0644);
		op(OP_CREATE, fd < 0 ? -1 : 0);
		if (nlc && is_long) {
			fig.long_tried_nlc++;
			if (fd < 0 && (errno == ENAMETOOLONG || errno == EINVAL))
				fig.long_refused++;
			fig.long_made += fd >= 0;	/* never, under nolongcreate */
		}
		if (fd >= 0) {
			if (rn(2) && write(fd, buf, 1 + rn(sizeof(buf))) < 0)
				errno = 0;	/* EIO, ENOSPC, EROFS: fat on a broken image */
			close(fd);
		}
	}
	/* mkdir */
	for (i = 0; i < 3 && !cut; i++) {
		new_name(nm, sizeof(nm));
		snprintf(p, sizeof(p), "%s/%s", some_dir(), nm);
		op(OP_MKDIR, mkdir(p, 0755));
	}
	/* rename: listed to new, new over listed, into another directory, exchange */
	npaths = 0;
	budget = 400;
	walk(MNT, 0);
	for (i = 0; i < 6 && npaths && !cut; i++) {
		const char *src = paths[rn(npaths)];
		unsigned int flags = 0;

		switch (rn(4)) {
		case 0:
		case 1:
			new_name(nm, sizeof(nm));
			snprintf(q, sizeof(q), "%s/%s", some_dir(), nm);
			break;
		case 2:
			snprintf(q, sizeof(q), "%s", paths[rn(npaths)]);
			break;
		default:
			snprintf(q, sizeof(q), "%s", paths[rn(npaths)]);
			flags = rn(2) ? 2 /* RENAME_EXCHANGE */ : 1 /* RENAME_NOREPLACE */;
		}
		r = flags ? (int)syscall(SYS_renameat2, AT_FDCWD, src, AT_FDCWD, q, flags) : rename(src, q);
		op(OP_RENAME, r);
	}
	/* unlink and rmdir */
	for (i = 0; i < 3 && npaths && !cut; i++) {
		int j = rn(npaths);

		op(OP_UNLINK, ptype[j] == DT_DIR ? rmdir(paths[j]) : unlink(paths[j]));
	}
	npaths = 0;
	budget = 400;
	walk(MNT, 0);
}

/* ----------------------------------------------------------------- main -- */
static char cfg[200];

static void gen_config(int nlc)
{
	static const char *const ioc[] = { "iso8859-1", "utf8", "cp437" };
	static const char *const sn[] = { "lower", "win95", "winnt", "mixed" };

	snprintf(cfg, sizeof(cfg), "%scodepage=%s,iocharset=%s,shortname=%s,check=%c,errors=%s%s%s",
		 nlc ? "nolongcreate," : "", rn(3) ? "437" : "932", ioc[rn(3)], sn[rn(4)],
		 "rns"[rn(3)], rn(2) ? "remount-ro" : "continue", rn(4) ? "" : ",utf8",
		 rn(4) ? "" : ",nonumtail");
}

static void kmsg(const char *fmt, ...)
{
	char line[400];
	va_list ap;
	int fd = open("/dev/kmsg", O_WRONLY);

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			fd += 0;
		close(fd);
	}
}

/*
 * The image's mounts in a child, so that a mount or an operation that never
 * returns is seen: after IMAGE_TIMEOUT seconds without the child's answer
 * the blocked tasks go to the kernel log (sysrq w) and the program fails.
 */
#define IMAGE_TIMEOUT 300
static void run_image(const char *dev, unsigned long long seed, long i, int nmount)
{
	struct pollfd pfd;
	int p[2], m, fd, status;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		close(p[0]);
		for (m = 0; m < nmount; m++) {
			int nlc = (m + i) & 1;

			gen_config(nlc);
			fd = open(dev, O_WRONLY);
			if (fd < 0 || pwrite(fd, img, total_sec * SEC, 0) != (ssize_t)(total_sec * SEC) ||
			    fsync(fd) || close(fd))
				die("write %s: %s", dev, strerror(errno));
			kmsg("nlc-corrupt: image %ld seed %llu mount %d FAT%u %s\n", i, seed, m, bits, cfg);
			fig.mounts++;
			if (mount(dev, MNT, "vfat", MS_NOATIME, cfg)) {
				fig.mount_fail++;
				continue;
			}
			fig.nlc_mounts += nlc;
			mount_t0 = now_s();
			cut = 0;
			exercise(nlc);
			if (umount(MNT))
				die("umount image %ld: %s", i, strerror(errno));
		}
		if (write(p[1], &fig, sizeof(fig)) != sizeof(fig))
			die("pipe: %s", strerror(errno));
		_exit(0);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, IMAGE_TIMEOUT * 1000) == 0) {
		kmsg("nlc-corrupt: image %ld seed %llu: no end after %d s\n", i, seed, IMAGE_TIMEOUT);
		fd = open("/proc/sysrq-trigger", O_WRONLY);
		if (fd >= 0 && write(fd, "w", 1) == 1)
			close(fd);
		die("image %ld: no end after %d s (hung?)", i, IMAGE_TIMEOUT);
	}
	if (read(p[0], &fig, sizeof(fig)) != sizeof(fig)) {
		waitpid(pid, &status, 0);
		die("image %ld: the child ended without its figures (status 0x%x)", i, status);
	}
	close(p[0]);
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long count = 1, start = 0, i;
	unsigned long total = 0, images = 0;
	int nmount = 2, a, k, lfd = -1, fd;
	const char *write_image = NULL;
	char dev[32], muts[200];

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--count") && a + 1 < argc)
			count = strtol(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--start") && a + 1 < argc)
			start = strtol(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--mounts") && a + 1 < argc)
			nmount = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--write-image") && a + 1 < argc)
			write_image = argv[++a];
		else
			die("usage: nlc-corrupt --seed S --count N [--start I] [--mounts M] [--write-image FILE]");
	}
	if (count < 1 || start < 0 || nmount < 1)
		die("bad --count, --start or --mounts");
	if (write_image) {
		make_image_nr(seed, start, muts, sizeof(muts));
		fd = open(write_image, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, img, total_sec * SEC) != (ssize_t)(total_sec * SEC) || close(fd))
			die("%s: %s", write_image, strerror(errno));
		printf("image %ld of seed %llu: FAT%u, %u sectors, mutations %s, written to %s\n", start,
		       seed, bits, total_sec, muts, write_image);
		return 0;
	}
	mkdir(WORK, 0755);
	mkdir(MNT, 0755);
	/* the markers must not be rate-limited away */
	fd = open("/proc/sys/kernel/printk_devkmsg", O_WRONLY);
	if (fd < 0 || write(fd, "on\n", 3) != 3)
		die("printk_devkmsg: %s", strerror(errno));
	close(fd);
	fd = open(WORK "/img", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, IMG_MAX) || close(fd))
		die(WORK "/img: %s", strerror(errno));
	lfd = loop_attach(WORK "/img", dev, sizeof(dev));
	printf("nlc-corrupt: seed %llu, images %ld-%ld, %d mounts each\n", seed, start, start + count - 1, nmount);
	fflush(stdout);
	for (i = start; i < start + count; i++) {
		unsigned long before = total;

		make_image_nr(seed, i, muts, sizeof(muts));
		run_image(dev, seed, i, nmount);
		for (total = 0, k = 0; k < NOP; k++)
			total += fig.ops[k];
		images++;
		printf("IMAGE %ld fat%u mutations=%s ops=%lu\n", i, bits, muts, total - before);
		fflush(stdout);
	}
	loop_detach(lfd);
	printf("TOTAL images=%lu mounts=%lu mount_fail=%lu nolongcreate_mounts=%lu cut_short=%lu ops=%lu",
	       images, fig.mounts, fig.mount_fail, fig.nlc_mounts, fig.cut, total);
	for (k = 0; k < NOP; k++)
		printf(" %s=%lu/%lu", op_names[k], fig.ops_ok[k], fig.ops[k]);
	printf(" long_refused=%lu/%lu long_made=%lu mutations:", fig.long_refused, fig.long_tried_nlc, fig.long_made);
	for (k = 0; k < NMUT; k++)
		printf(" %s=%lu", mut_names[k], mut_count[k]);
	printf("\n");
	return 0;
}
