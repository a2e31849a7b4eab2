// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - fat83's view of a vfat mount: a directory's names by
 * VFAT_IOCTL_READDIR_BOTH, the mount's options from mountinfo, the names a
 * new entry must not take, and the walk of the tree (check's report; fix
 * plans in fix.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/msdos_fs.h>

#include "fat83.h"

#define MAX_DEPTH 64

/* ------------------------------------------------ a directory's names -- */

void free_dirlist(struct dirlist *dl)
{
	size_t i;

	for (i = 0; i < dl->n; i++) {
		free(dl->e[i].name);
		free(dl->e[i].alias);
	}
	free(dl->e);
	dl->e = NULL;
	dl->n = 0;
}

/* Every entry of the directory @fd but . and .., by READDIR_BOTH. */
int read_dir(int fd, struct dirlist *dl)
{
	struct __fat_dirent d[2];
	struct ent *e;
	int r;

	dl->e = NULL;
	dl->n = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		memset(d, 0, sizeof(d));
		r = ioctl(fd, VFAT_IOCTL_READDIR_BOTH, d);
		if (r < 0) {
			r = -errno;
			free_dirlist(dl);
			return r;
		}
		if (r == 0)
			return 0;
		d[0].d_name[sizeof(d[0].d_name) - 1] = 0;
		d[1].d_name[sizeof(d[1].d_name) - 1] = 0;
		if (!strcmp(d[0].d_name, ".") || !strcmp(d[0].d_name, ".."))
			continue;
		dl->e = xrealloc(dl->e, (dl->n + 1) * sizeof(*dl->e));
		e = &dl->e[dl->n++];
		e->has_long = d[1].d_reclen > 0 && d[1].d_name[0];
		e->cut = e->has_long && strlen(d[1].d_name) >= sizeof(d[1].d_name) - 1;
		e->skip = NULL;
		e->subdir = false;
		e->alias = xstrdup(d[0].d_name);
		e->name = xstrdup(e->has_long ? d[1].d_name : d[0].d_name);
	}
}


/*
 * What an 8.3 reader sees is the alias's 11 bytes: the alias upper-cased
 * (this mount may show it lower-cased, by the entry's case flags or by
 * shortname=lower).  K_LONG: it is another name than the owner's;
 * K_CASE: the same name in another case.
 */
enum kind classify(const struct ent *e, char reader[256])
{
	snprintf(reader, 256, "%s", e->alias);
	to_upper(reader);
	if (!strcmp(e->name, reader))
		return K_OK;
	return fat83_eq_nocase(e->name, reader) ? K_CASE : K_LONG;
}

/* suggest.h's taken(): @cand is a name or alias of t->dl, or one of t->extra */
bool is_taken(const char *cand, void *arg)
{
	const struct taken *t = arg;
	size_t i;

	for (i = 0; i < t->dl->n; i++)
		if (fat83_eq_nocase(cand, t->dl->e[i].name) ||
		    fat83_eq_nocase(cand, t->dl->e[i].alias))
			return true;
	for (i = 0; i < t->nextra; i++)
		if (fat83_eq_nocase(cand, t->extra[i]))
			return true;
	return false;
}

void add_extra(struct taken *t, const char *name)
{
	t->extra = xrealloc(t->extra, (t->nextra + 1) * sizeof(*t->extra));
	t->extra[t->nextra++] = xstrdup(name);
}

void free_extra(struct taken *t)
{
	while (t->nextra)
		free(t->extra[--t->nextra]);
	free(t->extra);
	t->extra = NULL;
}

/* --------------------------------------------------------- the mount -- */

static bool has_opt(const char *opts, const char *o, char *val, size_t vsize)
{
	size_t n = strlen(o);
	const char *p = opts;

	while (p && *p) {
		if (!strncmp(p, o, n) && (p[n] == ',' || !p[n] || p[n] == '=')) {
			if (val && p[n] == '=')
				snprintf(val, vsize, "%.*s", (int)strcspn(p + n + 1, ","),
					 p + n + 1);
			return true;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/*
 * The options of the vfat mount of device @dev, from /proc/self/mountinfo.
 * Which case to type a new 8.3 name in: upper case, which every
 * shortname= shows as typed and writes without long-name slots, except on
 * a nolongcreate mount with shortname=lower, which shows 8.3 names in
 * lower case and accepts only what it shows as typed.
 */
static void mount_info(dev_t dev, struct mount *m)
{
	char line[4096], fstype[64], opts[1024], point[1024];
	unsigned int maj, min;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	const char *force;
	char *sep;

	memset(m, 0, sizeof(*m));
	strcpy(m->shortname, "?");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %u:%u %*s %1023s", &maj, &min, point) != 3 ||
		    maj != major(dev) || min != minor(dev))
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (strcmp(fstype, "vfat"))
			continue;
		snprintf(m->opts, sizeof(m->opts), "%s", opts);
		fat83_mountinfo_unescape(point);
		snprintf(m->point, sizeof(m->point), "%s", point);
		m->nolongcreate = has_opt(opts, "nolongcreate", NULL, 0);
		if (!has_opt(opts, "shortname", m->shortname, sizeof(m->shortname)))
			strcpy(m->shortname, "?");
		m->lower = m->nolongcreate && !strcmp(m->shortname, "lower");
		break;
	}
	if (f)
		fclose(f);
	/* a test knob: type new names in this case whatever the mount */
	force = getenv("FAT83_FORCE_CASE");
	if (force && (!strcmp(force, "upper") || !strcmp(force, "lower")))
		m->lower = !strcmp(force, "lower");
}

int open_top(struct ctx *c, const char *dir)
{
	struct statfs sfs;
	struct statvfs svfs;
	struct stat st;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		warnf("%s: %s", esc(dir), strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sfs) || fstat(fd, &st) || fstatvfs(fd, &svfs)) {
		warnf("%s: %s", esc(dir), strerror(errno));
		close(fd);
		return -1;
	}
	if (sfs.f_type != MSDOS_SUPER_MAGIC) {
		warnf("%s: not on a FAT filesystem (vfat)", esc(dir));
		close(fd);
		return -1;
	}
	c->top = dir;
	c->dev = st.st_dev;
	c->rdonly = svfs.f_flag & ST_RDONLY;
	mount_info(st.st_dev, &c->mnt);
	return fd;
}

/* ----------------------------------------------------------- the walk -- */

/*
 * An 8.3 name with a character outside the kept set of suggest.h's rule 3
 * ('^', a byte above 0x7E), which older SdFat and FAT16 make83Name refuse;
 * '~' is no such character (only fat83's own names avoid it).
 */
static bool odd83(const char *reader)
{
	char t[256];
	char *p;

	snprintf(t, sizeof(t), "%s", reader);
	for (p = t; *p; p++)
		if (*p == '~' || *p == '-')
			*p = '_';
	return !fat83_is_83(t);
}

static void report_dir(struct ctx *c, const char *rel, const struct dirlist *dl)
{
	char reader[256];
	enum kind k;
	size_t i;
	char *path;

	for (i = 0; i < dl->n; i++) {
		if (dl->e[i].skip)
			continue;
		k = classify(&dl->e[i], reader);
		if (k != K_LONG && odd83(reader)) {
			char as[FAT83_NAME_SIZE];

			fat83_candidate(reader, 0, as);
			path = join(rel, dl->e[i].name);
			printf("%s: an 8.3 name some firmware cannot open ('^' or a character "
			       "outside ASCII); fix leaves it: rename it by hand to what fat83 name gives, %s\n", esc(path), as);
			c->nodd++;
			free(path);
		}
		if (k == K_OK || (k == K_CASE && !c->show_case))
			continue;
		path = join(rel, dl->e[i].name);
		if (k == K_LONG) {
			printf("%s: 8.3 readers see %s\n", esc(path), esc(reader));
			c->nlong++;
		} else {
			printf("%s: 8.3 readers see %s (other case)\n", esc(path), esc(reader));
			c->ncase++;
		}
		free(path);
	}
}

/*
 * Why fat83 leaves the entry @e of @dfd alone (NULL: it does not): not the
 * owner's files, or ones the owner hid.  Its FAT attributes come from
 * FAT_IOCTL_GET_ATTRIBUTES on the entry itself.
 */
static const char *leave_alone(int dfd, const char *rel, const struct ent *e)
{
	static char why[128];
	uint32_t attr = 0;
	int fd, err;

	if (e->name[0] == '.')
		return "a dot-name";
	if (!*rel && fat83_eq_nocase(e->name, "System Volume Information"))
		return "Windows' System Volume Information";
	fd = openat(dfd, e->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FAT_IOCTL_GET_ATTRIBUTES, &attr)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		snprintf(why, sizeof(why), "its FAT attributes cannot be read: %s",
			 strerror(err));
		return why;
	}
	close(fd);
	if (attr & ATTR_SYS)
		return attr & ATTR_HIDDEN ? "system and hidden: FAT attributes"
					  : "system: FAT attribute";
	if (attr & ATTR_HIDDEN)
		return "hidden: FAT attribute";
	return NULL;
}

void walk(struct ctx *c, int dfd, const char *rel, int depth)
{
	struct dirlist dl;
	struct stat st;
	struct ent *e;
	size_t i;
	int r, sub;
	char *path;

	r = read_dir(dfd, &dl);
	if (r) {
		warnf("%s/%s: cannot read the directory: %s", esc(c->top), esc(rel),
		      strerror(-r));
		c->errors++;
		return;
	}
	/* first what is left alone, and the directories to walk */
	for (i = 0; i < dl.n; i++) {
		e = &dl.e[i];
		path = join(rel, e->name);
		if (!*rel && !c->journal && fat83_eq_nocase(e->name, JOURNAL_NAME)) {
			e->skip = "fat83's undo journal";	/* silently */
		} else if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (e->cut) {
				/* the ioctl gave the first 255 bytes of it */
				printf("%s...: a long name over 255 bytes, which Linux cannot "
				       "rename: left alone (8.3 readers see %s; rename it by that "
				       "name: mv %s/%s%s%s NEWNAME)\n", esc(path), esc(e->alias),
				       esc(c->top), esc(rel), *rel ? "/" : "", esc(e->alias));
				e->skip = "over 255 bytes";
				c->noverlong++;
			} else {
				warnf("%s/%s: %s", esc(c->top), esc(path), strerror(errno));
				e->skip = "cannot stat";
				c->errors++;
			}
		} else if ((e->skip = leave_alone(dfd, rel, e))) {
			printf("left alone: %s%s (%s)\n", esc(path),
			       S_ISDIR(st.st_mode) ? "/" : "", e->skip);
			c->nleft++;
		} else {
			e->subdir = S_ISDIR(st.st_mode) && st.st_dev == c->dev;
		}
		free(path);
	}
	if (c->cmd == CHECK) {
		report_dir(c, rel, &dl);
		c->nput += put_leftovers(rel, &dl);
	}
	for (i = 0; i < dl.n; i++) {
		e = &dl.e[i];
		if (!e->subdir)
			continue;
		path = join(rel, e->name);
		if (depth >= MAX_DEPTH) {
			warnf("%s/%s: deeper than %d directories", esc(c->top), esc(path),
			      MAX_DEPTH);
			c->errors++;
		} else if ((sub = openat(dfd, e->name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			warnf("%s/%s: %s", esc(c->top), esc(path), strerror(errno));
			c->errors++;
		} else {
			walk(c, sub, path, depth + 1);
			close(sub);
		}
		free(path);
	}
	/* fix: after the subdirectories, so that their renames come first */
	if (c->cmd == FIX)
		plan_dir(c, rel, &dl);
	free_dirlist(&dl);
}
