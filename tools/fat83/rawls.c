// SPDX-License-Identifier: GPL-2.0
/*
 * fat83-rawls IMAGE - what a reader of 8.3 names only sees in a FAT image:
 * every live entry's raw 8.3 name, by path, read from the image's own
 * directory entries (selftests/filesystems/fat_extended/fat_raw.h), not
 * through any kernel.  An entry with long-file-name slots is marked
 * "[LFN n: long name]", a name with a numeric tail (~ then a digit)
 * "[~N]".  Prints a summary line last.  Exit status: 0 when no live LFN
 * slot and no ~N name is left, 1 otherwise, 2 on error.  --case-ok: the
 * LFN slots of an entry whose long name is its 8.3 name in another case
 * (Linux writes "ok.txt" so on a shortname=mixed mount; a rename cannot
 * change only the case on vfat) are allowed, and marked so.  A test helper of
 * fat83's guest test, not installed.
 */
#include <stdio.h>
#include <strings.h>

#include "fat_raw.h"

struct state {
	char path[FAT_RAW_MAX_DEPTH + 1][16];
	unsigned long entries, lfn_slots, lfn_entries, tails;
	unsigned long case_entries, case_slots;
};

static void name83(const unsigned char *n, char out[16])
{
	int b = 8, e = 3, i, k = 0;

	while (b > 0 && n[b - 1] == ' ')
		b--;
	while (e > 0 && n[8 + e - 1] == ' ')
		e--;
	for (i = 0; i < b; i++)
		out[k++] = (i == 0 && n[0] == 0x05) ? (char)0xE5 : (char)n[i];
	if (e)
		out[k++] = '.';
	for (i = 0; i < e; i++)
		out[k++] = (char)n[8 + i];
	out[k] = 0;
}

static int visit(const struct fat_raw_dir *dir, unsigned int idx,
		 unsigned int depth, void *arg)
{
	const struct msdos_dir_entry *de = &dir->ents[idx];
	struct state *st = arg;
	char name[16], lname[1024];
	unsigned int first, i, nlfn;
	const char *t;

	if (fat_raw_is_lfn(de)) {
		if (fat_raw_is_live(de))
			st->lfn_slots++;
		return 0;
	}
	if (!fat_raw_is_sfn(de) || fat_raw_is_dot(de))
		return 0;
	name83(de->name, name);
	/* walk() descends right after this visit: the path, per depth */
	snprintf(st->path[depth], sizeof(st->path[depth]), "%s", name);
	st->entries++;
	for (i = 0; i < depth; i++)
		printf("%s/", st->path[i]);
	printf("%s", name);
	if (de->attr & ATTR_DIR)
		printf("/");
	nlfn = fat_raw_long_name(dir, idx, lname, sizeof(lname), &first);
	if (nlfn) {
		st->lfn_entries++;
		if (!strcasecmp(lname, name)) {
			st->case_entries++;
			st->case_slots += nlfn;
			printf("  [LFN %u: %s, the same name in another case]", nlfn, lname);
		} else {
			printf("  [LFN %u: %s]", nlfn, lname);
		}
	}
	t = strchr(name, '~');
	if (t && t[1] >= '0' && t[1] <= '9') {
		st->tails++;
		printf("  [~N]");
	}
	printf("\n");
	return 0;
}

/*
 * Not fat_raw_walk(), which visits all of a directory before its
 * subdirectories: each subdirectory right after its entry, for the path.
 */
static int walk(const struct fat_raw *fr, unsigned int cluster,
		unsigned int depth, struct state *st)
{
	struct fat_raw_dir dir;
	unsigned int i, used;
	int ret = 0;

	if (depth > FAT_RAW_MAX_DEPTH)
		return -ELOOP;
	ret = fat_raw_read_dir(fr, cluster, &dir);
	if (ret)
		return ret;
	used = fat_raw_used_slots(&dir);
	for (i = 0; i < used && !ret; i++) {
		const struct msdos_dir_entry *de = &dir.ents[i];

		visit(&dir, i, depth, st);
		if (fat_raw_is_sfn(de) && !fat_raw_is_lfn(de) &&
		    (de->attr & ATTR_DIR) && !fat_raw_is_dot(de) &&
		    fat_raw_start(de))
			ret = walk(fr, fat_raw_start(de), depth + 1, st);
	}
	fat_raw_free_dir(&dir);
	return ret;
}

int main(int argc, char **argv)
{
	struct state st = { 0 };
	struct fat_raw fr;
	bool case_ok = false;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--case-ok")) {
		case_ok = true;
		argv++;
		argc--;
	}
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: fat83-rawls [--case-ok] IMAGE\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: fat83-rawls [--case-ok] IMAGE\n");
		return 2;
	}
	ret = fat_raw_open(&fr, argv[1]);
	if (ret) {
		fprintf(stderr, "fat83-rawls: %s: %s\n", argv[1], strerror(-ret));
		return 2;
	}
	ret = walk(&fr, 0, 0, &st);
	fat_raw_close(&fr);
	if (ret) {
		fprintf(stderr, "fat83-rawls: %s: %s\n", argv[1], strerror(-ret));
		return 2;
	}
	printf("rawls: %lu entries, %lu with long names (%lu live LFN slots), "
	       "%lu of them the same name in another case (%lu slots), %lu with ~N\n",
	       st.entries, st.lfn_entries, st.lfn_slots, st.case_entries,
	       st.case_slots, st.tails);
	if (case_ok)
		st.lfn_slots -= st.case_slots;
	return st.lfn_slots || st.tails ? 1 : 0;
}
