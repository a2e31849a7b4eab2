/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small read-only reader of FAT12/16/32 images for the FAT selftests:
 * it parses the boot sector, follows cluster chains and reads the raw
 * 32-byte directory entries, long file name slots included, so that a
 * test can check what the kernel wrote on disk.
 *
 * Header only; every function is static.  Functions return 0 or a
 * negative errno.
 */
#ifndef FAT_RAW_H
#define FAT_RAW_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/msdos_fs.h>

#define FAT_RAW_ENT_SIZE	32
#define FAT_RAW_LFN_CHARS	13
#define FAT_RAW_MAX_DEPTH	16

struct fat_raw {
	int fd;
	unsigned int sector_size;
	unsigned int sec_per_clus;
	unsigned int cluster_size;
	unsigned int reserved;		/* sectors */
	unsigned int nr_fats;
	unsigned int root_entries;	/* FAT12/16 fixed root */
	unsigned int fat_length;	/* sectors per FAT */
	unsigned long long total_sectors;
	unsigned int nr_clusters;	/* data clusters */
	unsigned int fat_bits;		/* 12, 16 or 32, from nr_clusters */
	unsigned int root_cluster;	/* FAT32 */
	unsigned long long fat_offset;	/* bytes */
	unsigned long long root_offset;	/* FAT12/16 fixed root, bytes */
	unsigned long long data_offset;	/* cluster 2, bytes */
};

/* A directory read into memory: every 32-byte slot of its chain. */
struct fat_raw_dir {
	struct msdos_dir_entry *ents;
	unsigned int nr;		/* slots, live, deleted and unused */
	unsigned int nr_clusters;	/* 0 for the FAT12/16 fixed root */
	unsigned int first_cluster;	/* 0 for the FAT12/16 fixed root */
};

static inline unsigned int fat_raw_le16(const unsigned char *p)
{
	return p[0] | (p[1] << 8);
}

static inline unsigned int fat_raw_le32(const unsigned char *p)
{
	return p[0] | (p[1] << 8) | (p[2] << 16) | ((unsigned int)p[3] << 24);
}

static inline int fat_raw_pread(const struct fat_raw *fr, void *buf,
				size_t len, unsigned long long off)
{
	ssize_t ret = pread(fr->fd, buf, len, off);

	if (ret < 0)
		return -errno;
	if ((size_t)ret != len)
		return -EIO;
	return 0;
}

static inline void fat_raw_close(struct fat_raw *fr)
{
	if (fr->fd >= 0)
		close(fr->fd);
	fr->fd = -1;
}

/* Open an image and parse its boot sector; the FAT type is the one its
 * cluster count gives, as in the Microsoft specification.
 */
static inline int fat_raw_open(struct fat_raw *fr, const char *path)
{
	unsigned char bs[512];
	unsigned long long root_sectors, meta, data_sectors;
	unsigned int fat16_length;
	int ret;

	memset(fr, 0, sizeof(*fr));
	fr->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fr->fd < 0)
		return -errno;
	ret = fat_raw_pread(fr, bs, sizeof(bs), 0);
	if (ret)
		goto fail;
	ret = -EINVAL;
	if (bs[510] != 0x55 || bs[511] != 0xAA)
		goto fail;
	fr->sector_size = fat_raw_le16(bs + 11);
	fr->sec_per_clus = bs[13];
	fr->reserved = fat_raw_le16(bs + 14);
	fr->nr_fats = bs[16];
	fr->root_entries = fat_raw_le16(bs + 17);
	fr->total_sectors = fat_raw_le16(bs + 19);
	if (!fr->total_sectors)
		fr->total_sectors = fat_raw_le32(bs + 32);
	fat16_length = fat_raw_le16(bs + 22);
	fr->fat_length = fat16_length ? fat16_length : fat_raw_le32(bs + 36);
	if (fr->sector_size < 512 || fr->sector_size > 4096 ||
	    (fr->sector_size & (fr->sector_size - 1)) || !fr->sec_per_clus ||
	    (fr->sec_per_clus & (fr->sec_per_clus - 1)) || !fr->reserved ||
	    !fr->nr_fats || !fr->fat_length)
		goto fail;
	fr->cluster_size = fr->sector_size * fr->sec_per_clus;
	root_sectors = ((unsigned long long)fr->root_entries *
			FAT_RAW_ENT_SIZE + fr->sector_size - 1) /
		       fr->sector_size;
	meta = fr->reserved + (unsigned long long)fr->nr_fats *
	       fr->fat_length + root_sectors;
	if (meta >= fr->total_sectors)
		goto fail;
	data_sectors = fr->total_sectors - meta;
	fr->nr_clusters = data_sectors / fr->sec_per_clus;
	if (fr->nr_clusters < 4085)
		fr->fat_bits = 12;
	else if (fr->nr_clusters < 65525)
		fr->fat_bits = 16;
	else
		fr->fat_bits = 32;
	/* FAT32 has no fixed root and no 16-bit FAT length */
	if (fr->fat_bits == 32 ? fat16_length : !fat16_length)
		goto fail;
	if (fr->fat_bits == 32) {
		if (fr->root_entries)
			goto fail;
		fr->root_cluster = fat_raw_le32(bs + 44);
	}
	fr->fat_offset = (unsigned long long)fr->reserved * fr->sector_size;
	fr->root_offset = fr->fat_offset + (unsigned long long)fr->nr_fats *
			  fr->fat_length * fr->sector_size;
	fr->data_offset = fr->root_offset + root_sectors * fr->sector_size;
	return 0;
fail:
	fat_raw_close(fr);
	return ret;
}

static inline bool fat_raw_valid_cluster(const struct fat_raw *fr,
					 unsigned int cluster)
{
	return cluster >= 2 && cluster < fr->nr_clusters + 2;
}

/* The FAT entry of @cluster (first FAT): next cluster, or an end mark. */
static inline int fat_raw_fat_entry(const struct fat_raw *fr,
				    unsigned int cluster, unsigned int *val)
{
	unsigned char b[4];
	int ret;

	if (!fat_raw_valid_cluster(fr, cluster))
		return -ERANGE;
	switch (fr->fat_bits) {
	case 12:
		ret = fat_raw_pread(fr, b, 2,
				    fr->fat_offset + cluster + cluster / 2);
		if (ret)
			return ret;
		*val = fat_raw_le16(b);
		*val = (cluster & 1) ? *val >> 4 : *val & 0xFFF;
		return 0;
	case 16:
		ret = fat_raw_pread(fr, b, 2, fr->fat_offset + cluster * 2ULL);
		if (ret)
			return ret;
		*val = fat_raw_le16(b);
		return 0;
	default:
		ret = fat_raw_pread(fr, b, 4, fr->fat_offset + cluster * 4ULL);
		if (ret)
			return ret;
		*val = fat_raw_le32(b) & 0x0FFFFFFF;
		return 0;
	}
}

static inline bool fat_raw_is_eoc(const struct fat_raw *fr, unsigned int val)
{
	switch (fr->fat_bits) {
	case 12:
		return val >= 0xFF8;
	case 16:
		return val >= 0xFFF8;
	default:
		return val >= 0x0FFFFFF8;
	}
}

/* Count the clusters of a chain; -EIO on a free, bad or looping chain. */
static inline int fat_raw_chain_length(const struct fat_raw *fr,
				       unsigned int cluster,
				       unsigned int *len)
{
	unsigned int val;
	int ret;

	*len = 0;
	if (!cluster)
		return 0;
	for (;;) {
		if (!fat_raw_valid_cluster(fr, cluster) ||
		    *len > fr->nr_clusters)
			return -EIO;
		(*len)++;
		ret = fat_raw_fat_entry(fr, cluster, &val);
		if (ret)
			return ret;
		if (fat_raw_is_eoc(fr, val))
			return 0;
		cluster = val;
	}
}

static inline unsigned long long fat_raw_cluster_offset(const struct fat_raw *fr,
							unsigned int cluster)
{
	return fr->data_offset + (unsigned long long)(cluster - 2) *
	       fr->cluster_size;
}

static inline unsigned int fat_raw_start(const struct msdos_dir_entry *de)
{
	return de->start | ((unsigned int)de->starthi << 16);
}

static inline void fat_raw_free_dir(struct fat_raw_dir *dir)
{
	free(dir->ents);
	dir->ents = NULL;
	dir->nr = 0;
}

/* Read a directory: @cluster 0 means the root directory. */
static inline int fat_raw_read_dir(const struct fat_raw *fr,
				   unsigned int cluster,
				   struct fat_raw_dir *dir)
{
	unsigned int len, i, val;
	size_t size;
	int ret;

	memset(dir, 0, sizeof(*dir));
	if (!cluster && fr->fat_bits != 32) {
		size = (size_t)fr->root_entries * FAT_RAW_ENT_SIZE;
		dir->ents = malloc(size ? size : 1);
		if (!dir->ents)
			return -ENOMEM;
		dir->nr = fr->root_entries;
		ret = fat_raw_pread(fr, dir->ents, size, fr->root_offset);
		if (ret)
			fat_raw_free_dir(dir);
		return ret;
	}
	if (!cluster)
		cluster = fr->root_cluster;
	ret = fat_raw_chain_length(fr, cluster, &len);
	if (ret)
		return ret;
	dir->first_cluster = cluster;
	dir->nr_clusters = len;
	dir->nr = len * (fr->cluster_size / FAT_RAW_ENT_SIZE);
	dir->ents = malloc((size_t)len * fr->cluster_size);
	if (!dir->ents)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		ret = fat_raw_pread(fr, (char *)dir->ents +
				    (size_t)i * fr->cluster_size,
				    fr->cluster_size,
				    fat_raw_cluster_offset(fr, cluster));
		if (ret)
			goto fail;
		ret = fat_raw_fat_entry(fr, cluster, &val);
		if (ret)
			goto fail;
		cluster = val;
	}
	return 0;
fail:
	fat_raw_free_dir(dir);
	return ret;
}

/* Slots before the end-of-directory mark (first name byte 0x00). */
static inline unsigned int fat_raw_used_slots(const struct fat_raw_dir *dir)
{
	unsigned int i;

	for (i = 0; i < dir->nr; i++)
		if (!dir->ents[i].name[0])
			break;
	return i;
}

static inline bool fat_raw_is_lfn(const struct msdos_dir_entry *de)
{
	return de->attr == ATTR_EXT;
}

static inline bool fat_raw_is_live(const struct msdos_dir_entry *de)
{
	return de->name[0] && de->name[0] != DELETED_FLAG;
}

/* A live 8.3 entry of a file or directory (not LFN, not volume label) */
static inline bool fat_raw_is_sfn(const struct msdos_dir_entry *de)
{
	return fat_raw_is_live(de) && !fat_raw_is_lfn(de) &&
	       !(de->attr & ATTR_VOLUME);
}

static inline bool fat_raw_is_dot(const struct msdos_dir_entry *de)
{
	return !memcmp(de->name, MSDOS_DOT, MSDOS_NAME) ||
	       !memcmp(de->name, MSDOS_DOTDOT, MSDOS_NAME);
}

/* Index of the live 8.3 entry with these 11 bytes, or -1. */
static inline int fat_raw_find(const struct fat_raw_dir *dir,
			       const unsigned char *name11)
{
	unsigned int i, used = fat_raw_used_slots(dir);

	for (i = 0; i < used; i++)
		if (fat_raw_is_sfn(&dir->ents[i]) &&
		    !memcmp(dir->ents[i].name, name11, MSDOS_NAME))
			return i;
	return -1;
}

static inline unsigned char fat_raw_checksum(const unsigned char *name11)
{
	unsigned char s = 0;
	int i;

	for (i = 0; i < MSDOS_NAME; i++)
		s = (((s & 1) << 7) | (s >> 1)) + name11[i];
	return s;
}

static inline size_t fat_raw_put_utf8(char *out, size_t size, size_t pos,
				      unsigned int c)
{
	char b[4];
	size_t n, i;

	if (c < 0x80) {
		b[0] = c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = 0xC0 | (c >> 6);
		b[1] = 0x80 | (c & 0x3F);
		n = 2;
	} else if (c < 0x10000) {
		b[0] = 0xE0 | (c >> 12);
		b[1] = 0x80 | ((c >> 6) & 0x3F);
		b[2] = 0x80 | (c & 0x3F);
		n = 3;
	} else {
		b[0] = 0xF0 | (c >> 18);
		b[1] = 0x80 | ((c >> 12) & 0x3F);
		b[2] = 0x80 | ((c >> 6) & 0x3F);
		b[3] = 0x80 | (c & 0x3F);
		n = 4;
	}
	for (i = 0; i < n && pos + 1 < size; i++)
		out[pos++] = b[i];
	return pos;
}

/*
 * The long name of the 8.3 entry at @idx, as UTF-8: the run of LFN slots
 * right before it, numbered down to 1 and carrying its checksum.
 * Returns the number of LFN slots (0: no long name) and their first
 * index in *@first.
 */
static inline int fat_raw_long_name(const struct fat_raw_dir *dir,
				    unsigned int idx, char *out, size_t size,
				    unsigned int *first)
{
	const struct msdos_dir_slot *ds;
	unsigned char csum;
	unsigned int n = 0, k, c, hi;
	unsigned int units[FAT_RAW_LFN_CHARS * 20];
	unsigned int nu = 0;
	size_t pos = 0;

	if (size)
		out[0] = 0;
	if (idx >= dir->nr || !fat_raw_is_sfn(&dir->ents[idx]))
		return 0;
	csum = fat_raw_checksum(dir->ents[idx].name);
	while (n < idx && n < 20) {
		ds = (const struct msdos_dir_slot *)&dir->ents[idx - n - 1];
		if (ds->attr != ATTR_EXT || ds->id == DELETED_FLAG ||
		    (ds->id & 0x1F) != n + 1 || ds->alias_checksum != csum)
			break;
		n++;
		if (ds->id & 0x40)
			break;
	}
	if (!n || !(dir->ents[idx - n].name[0] & 0x40))
		return 0;
	for (k = 0; k < n; k++) {
		const unsigned char *p;
		unsigned int j;

		ds = (const struct msdos_dir_slot *)&dir->ents[idx - k - 1];
		p = (const unsigned char *)ds;
		for (j = 0; j < FAT_RAW_LFN_CHARS; j++) {
			static const unsigned char off[FAT_RAW_LFN_CHARS] = {
				1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30
			};
			units[nu++] = fat_raw_le16(p + off[j]);
		}
	}
	for (k = 0; k < nu && units[k]; k++) {
		c = units[k];
		if (c >= 0xD800 && c < 0xDC00 && k + 1 < nu &&
		    units[k + 1] >= 0xDC00 && units[k + 1] < 0xE000) {
			hi = c;
			c = 0x10000 + ((hi - 0xD800) << 10) +
			    (units[++k] - 0xDC00);
		}
		pos = fat_raw_put_utf8(out, size, pos, c);
	}
	if (size)
		out[pos < size ? pos : size - 1] = 0;
	*first = idx - n;
	return n;
}

/*
 * Call @fn for every slot (live, deleted, LFN) of every directory of the
 * image, root first, descending into live subdirectories.  @fn returns 0
 * to go on, anything else stops the walk and is returned.
 */
typedef int (*fat_raw_walk_fn)(const struct fat_raw_dir *dir,
			       unsigned int idx, unsigned int depth,
			       void *arg);

static inline int fat_raw_walk_dir(const struct fat_raw *fr,
				   unsigned int cluster, unsigned int depth,
				   fat_raw_walk_fn fn, void *arg)
{
	struct fat_raw_dir dir;
	unsigned int i, used;
	int ret;

	if (depth > FAT_RAW_MAX_DEPTH)
		return -ELOOP;
	ret = fat_raw_read_dir(fr, cluster, &dir);
	if (ret)
		return ret;
	used = fat_raw_used_slots(&dir);
	for (i = 0; i < used && !ret; i++)
		ret = fn(&dir, i, depth, arg);
	for (i = 0; i < used && !ret; i++) {
		const struct msdos_dir_entry *de = &dir.ents[i];

		if (fat_raw_is_sfn(de) && (de->attr & ATTR_DIR) &&
		    !fat_raw_is_dot(de) && fat_raw_start(de))
			ret = fat_raw_walk_dir(fr, fat_raw_start(de),
					       depth + 1, fn, arg);
	}
	fat_raw_free_dir(&dir);
	return ret;
}

static inline int fat_raw_walk(const struct fat_raw *fr, fat_raw_walk_fn fn,
			       void *arg)
{
	return fat_raw_walk_dir(fr, 0, 0, fn, arg);
}

/* The first cluster of the live subdirectory @name11 of directory @parent. */
static inline int fat_raw_subdir(const struct fat_raw *fr, unsigned int parent,
				 const char *name11, unsigned int *cluster)
{
	struct fat_raw_dir dir;
	int idx, ret;

	ret = fat_raw_read_dir(fr, parent, &dir);
	if (ret)
		return ret;
	idx = fat_raw_find(&dir, (const unsigned char *)name11);
	if (idx < 0 || !(dir.ents[idx].attr & ATTR_DIR))
		ret = -ENOENT;
	else
		*cluster = fat_raw_start(&dir.ents[idx]);
	fat_raw_free_dir(&dir);
	return ret;
}

#endif /* FAT_RAW_H */
