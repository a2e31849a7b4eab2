// SPDX-License-Identifier: GPL-2.0
/*
 * fat83 - find and fix the names on a vfat volume that a reader of 8.3
 * names only (printer firmware, embedded FAT libraries, DOS) sees under
 * another name than its owner: a long name it sees as BENCHY~1.GCO.
 *
 *   fat83 check [--case] DIR       list them; exit 0 none, 1 some, 2 error
 *   fat83 fix [--dry-run] [--force] [--map FILE] [--journal FILE] DIR
 *                                  rename each to an 8.3 name of its own,
 *                                  each rename recorded first in DIR's
 *                                  FAT83UND.LOG
 *   fat83 undo [--journal FILE] DIR
 *                                  rename them back, the last first
 *   fat83 name [--in DIR] NAME...  print the 8.3 name fix would give NAME
 *   fat83 put [--dry-run] [--replace] FILE... DIR
 *                                  copy files into DIR under those names,
 *                                  each through a scratch F83Pnnnn.TMP
 *   fat83 supported                exit 0 if the running kernel's vfat
 *                                  takes nolongcreate (root: fsopen)
 *
 * Every name comes from the kernel's VFAT_IOCTL_READDIR_BOTH on each
 * directory's fd (the name the owner sees and the 8.3 alias); renames are
 * renameat2(RENAME_NOREPLACE), one rename per entry, written and
 * fsync'd to the undo journal before it is made; syncfs after each
 * directory.  Left alone: dot-names, hidden and system entries (FAT
 * attributes), System Volume Information, names over 255 bytes; a boot
 * partition (boot_partition()) is refused without --force.  Names are printed
 * as `ls -b` does.  The 8.3 names are made by suggest.c.  See README.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/msdos_fs.h>

#include "suggest.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif

#define FAT83_VERSION "3"
#define MAX_DEPTH 64

static const char *prog = "fat83";

/* ------------------------------------------------------------ helpers -- */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = xrealloc(NULL, a + b + 2);

	if (a) {
		memcpy(p, dir, a);
		p[a++] = '/';
	}
	memcpy(p + a, name, b + 1);
	return p;
}

static void warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void to_upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s -= 'a' - 'A';
}

static void to_lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s += 'a' - 'A';
}

static void set_case(char *s, bool lower)
{
	if (lower)
		to_lower(s);
	else
		to_upper(s);
}

/*
 * @s as `ls -b` prints a name: a backslash as \\, the control characters
 * \a \b \t \n \v \f \r as such, every other control character, DEL, C1
 * control and byte of no valid UTF-8 sequence as \ooo; spaces and
 * printable UTF-8 as they are.  Into one of 8 rotating buffers.
 */
static const char *esc(const char *s)
{
	static char *buf[8];
	static int next;
	const unsigned char *p = (const unsigned char *)s, *e = p + strlen(s);
	static const char cesc[] = "abtnvfr";
	unsigned int u;
	size_t n, k = 0, i;
	char *o;

	o = buf[next] = xrealloc(buf[next], 4 * strlen(s) + 1);
	next = (next + 1) % 8;
	while (p < e) {
		if (*p == '\\') {
			o[k++] = '\\';
			o[k++] = '\\';
			p++;
		} else if (*p >= 0x07 && *p <= 0x0d) {
			o[k++] = '\\';
			o[k++] = cesc[*p - 0x07];
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			k += sprintf(o + k, "\\%03o", *p++);
		} else if (*p < 0x80) {
			o[k++] = (char)*p++;
		} else {
			n = fat83_utf8_char(p, e, &u);
			if (!u || (u >= 0x80 && u < 0xa0)) {
				for (i = 0; i < n; i++)
					k += sprintf(o + k, "\\%03o", *p++);
			} else {
				memcpy(o + k, p, n);
				k += n;
				p += n;
			}
		}
	}
	o[k] = 0;
	return o;
}

/* @s as one shell word, for a command printed to be pasted (two buffers) */
static const char *shw(const char *s)
{
	static char buf[2][4 * 1024 + 8];
	static int next;

	next = !next;
	return fat83_shell_word(s, buf[next], sizeof(buf[next]));
}

/* The reverse of esc(), in place; -1 on a bad escape. */
static int unesc(char *s)
{
	static const char from[] = "abtnvfr\\", to[] = "\a\b\t\n\v\f\r\\";
	char *o = s;
	const char *f;

	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			*o++ = (char)((s[0] - '0') << 6 | (s[1] - '0') << 3 | (s[2] - '0'));
			s += 3;
		} else if (*s && (f = strchr(from, *s))) {
			*o++ = to[f - from];
			s++;
		} else {
			return -1;
		}
	}
	*o = 0;
	return 0;
}

/* ------------------------------------------------ a directory's names -- */

struct ent {
	char *name;	/* what the owner sees: the long name, else the 8.3 one */
	char *alias;	/* the 8.3 name as this mount shows it */
	bool has_long;
	bool cut;	/* the long name may be cut at 255 bytes by the ioctl */
	const char *skip;	/* why fat83 leaves it alone, or NULL */
	bool subdir;		/* a directory of this mount, to walk */
};

struct dirlist {
	struct ent *e;
	size_t n;
};

static void free_dirlist(struct dirlist *dl)
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
static int read_dir(int fd, struct dirlist *dl)
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

enum kind { K_OK, K_LONG, K_CASE };

/*
 * What an 8.3 reader sees is the alias's 11 bytes: the alias upper-cased
 * (this mount may show it lower-cased, by the entry's case flags or by
 * shortname=lower).  K_LONG: it is another name than the owner's;
 * K_CASE: the same name in another case.
 */
static enum kind classify(const struct ent *e, char reader[256])
{
	snprintf(reader, 256, "%s", e->alias);
	to_upper(reader);
	if (!strcmp(e->name, reader))
		return K_OK;
	return fat83_eq_nocase(e->name, reader) ? K_CASE : K_LONG;
}

/* --------------------------------------------------------- the mount -- */

struct mount {
	char point[1024];	/* the mount point (mountinfo's \040 etc. undone) */
	char opts[1024];	/* the superblock options of mountinfo */
	bool nolongcreate;
	char shortname[16];
	bool lower;		/* new names typed in lower case */
};

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

/* ----------------------------------------------------------- the walk -- */

struct mapent {
	char *old, *new;
	unsigned int line;
	bool used;
};

struct item {
	char *dir;	/* relative to the top, "" for the top */
	char *old, *new;
	char *alias;	/* the 8.3 name of old, before the rename */
	bool mapped;
	bool done;
};

enum cmd { CHECK, FIX, UNDO };

/* The undo journal's name at the top of the fixed tree (an 8.3 name) */
#define JOURNAL_NAME "FAT83UND.LOG"
/* its temporary copy while undo rewrites it: the first free of FAT83U00.TMP... */
#define JOURNAL_TMP "FAT83U%02u.TMP"

struct ctx {
	enum cmd cmd;
	bool dry_run, show_case, force, rdonly, replace;
	const char *top;
	const char *journal;	/* --journal FILE, or NULL: JOURNAL_NAME at the top */
	int jdir, jfd;		/* the journal's directory and file, or -1 */
	char jname[4096];	/* its name in jdir */
	dev_t dev;
	struct mount mnt;
	struct mapent *map;
	size_t nmap;
	struct item *items;
	size_t nitems;
	unsigned long nlong, ncase, errors, map_errors, skipped_case;
	unsigned long nleft, noverlong, nodd, nput;
};

/* The names a new entry of a directory must not take (any case). */
struct taken {
	const struct dirlist *dl;
	char **extra;
	size_t nextra;
};

static bool is_taken(const char *cand, void *arg)
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

static void add_extra(struct taken *t, const char *name)
{
	t->extra = xrealloc(t->extra, (t->nextra + 1) * sizeof(*t->extra));
	t->extra[t->nextra++] = xstrdup(name);
}

static void free_extra(struct taken *t)
{
	while (t->nextra)
		free(t->extra[--t->nextra]);
	free(t->extra);
	t->extra = NULL;
}

static void add_item(struct ctx *c, const char *dir, const struct ent *e,
		     const char *new, bool mapped)
{
	struct item *it;

	c->items = xrealloc(c->items, (c->nitems + 1) * sizeof(*c->items));
	it = &c->items[c->nitems++];
	it->dir = xstrdup(dir);
	it->old = xstrdup(e->name);
	it->alias = xstrdup(e->alias);
	it->new = xstrdup(new);
	set_case(it->new, c->mnt.lower);
	it->mapped = mapped;
	it->done = false;
}

static struct mapent *map_find(struct ctx *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nmap; i++)
		if (!strcmp(c->map[i].old, path))
			return &c->map[i];
	return NULL;
}

/* fix: the renames of one directory, the owner's mapping first. */
static void plan_dir(struct ctx *c, const char *rel, const struct dirlist *dl)
{
	struct taken t = { .dl = dl };
	char reader[256], out[FAT83_NAME_SIZE];
	struct mapent *m;
	enum kind k;
	size_t i;
	char *path;

	/* the undo journal, made at the first rename */
	if (!*rel && !c->journal)
		add_extra(&t, JOURNAL_NAME);
	for (i = 0; i < dl->n; i++) {
		if (dl->e[i].skip)
			continue;
		path = join(rel, dl->e[i].name);
		m = map_find(c, path);
		if (m) {
			m->used = true;
			if (is_taken(m->new, &t)) {
				warnx("map line %u: %s: %s is taken in its directory",
				      m->line, m->old, m->new);
				c->map_errors++;
			} else {
				add_extra(&t, m->new);
				add_item(c, rel, &dl->e[i], m->new, true);
			}
		}
		free(path);
	}
	for (i = 0; i < dl->n; i++) {
		if (dl->e[i].skip)
			continue;
		path = join(rel, dl->e[i].name);
		m = map_find(c, path);
		free(path);
		if (m)
			continue;
		k = classify(&dl->e[i], reader);
		if (k == K_CASE)
			c->skipped_case++;
		if (k != K_LONG)
			continue;
		c->nlong++;
		if (fat83_suggest(dl->e[i].name, is_taken, &t, out) < 0) {
			warnx("%s/%s: no free 8.3 name", esc(rel), esc(dl->e[i].name));
			c->errors++;
			continue;
		}
		add_extra(&t, out);
		add_item(c, rel, &dl->e[i], out, false);
	}
	free_extra(&t);
}

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

/* put's scratch name, F83P0000.TMP ... (see run_put) */
#define PUT_TMP "F83P%04u.TMP"

/* F83Pnnnn.TMP in any case: a scratch file of put's */
static bool is_put_tmp(const char *n)
{
	int i;

	if (strlen(n) != 12 || strncasecmp(n, "F83P", 4) || strcasecmp(n + 8, ".TMP"))
		return false;
	for (i = 4; i < 8; i++)
		if (n[i] < '0' || n[i] > '9')
			return false;
	return true;
}

/*
 * Scratch files an earlier put left in a directory (a card pulled, a power
 * cut, SIGKILL), named under @prefix ("" or the directory): said.
 */
static unsigned long put_leftovers(const char *prefix, const struct dirlist *dl)
{
	unsigned long n = 0;
	size_t i;
	char *p;

	for (i = 0; i < dl->n; i++) {
		if (dl->e[i].has_long || !is_put_tmp(dl->e[i].name))
			continue;
		p = join(prefix, dl->e[i].name);
		printf("%s: left by a fat83 put stopped short (a card pulled, a power cut): unmount the card, run fsck.fat -a on it, remove this file, then put the file again with --replace\n", esc(p));
		free(p);
		n++;
	}
	return n;
}

/*
 * Why fat83 leaves the entry @e of @dfd alone (NULL: it does not): not the
 * owner's files, or ones the owner hid.  Its FAT attributes come from
 * FAT_IOCTL_GET_ATTRIBUTES on the entry itself.
 */
static const char *leave_alone(struct ctx *c, int dfd, const char *rel,
			       const struct ent *e)
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
		(void)c;
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

static void walk(struct ctx *c, int dfd, const char *rel, int depth)
{
	struct dirlist dl;
	struct stat st;
	struct ent *e;
	size_t i;
	int r, sub;
	char *path;

	r = read_dir(dfd, &dl);
	if (r) {
		warnx("%s/%s: cannot read the directory: %s", esc(c->top), esc(rel),
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
				warnx("%s/%s: %s", esc(c->top), esc(path), strerror(errno));
				e->skip = "cannot stat";
				c->errors++;
			}
		} else if ((e->skip = leave_alone(c, dfd, rel, e))) {
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
			warnx("%s/%s: deeper than %d directories", esc(c->top), esc(path),
			      MAX_DEPTH);
			c->errors++;
		} else if ((sub = openat(dfd, e->name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			warnx("%s/%s: %s", esc(c->top), esc(path), strerror(errno));
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

/* ------------------------------------------------------------ the map -- */

static bool bad_path(const char *p)
{
	const char *s = p;
	size_t n;

	if (!*p || *p == '/')
		return true;
	while (*s) {
		n = strcspn(s, "/");
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && !strncmp(s, "..", 2)))
			return true;
		s += n;
		if (*s == '/' && !*++s)
			return true;
	}
	return false;
}

/* Read the owner's mapping: "old<TAB>new" lines; a bad line is an error. */
static int read_map(struct ctx *c, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	char *line = NULL, *tab;
	size_t cap = 0, i;
	ssize_t len;
	unsigned int no = 0;
	int bad = 0;

	if (!f) {
		warnx("%s: %s", file, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		no++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		tab = strchr(line, '\t');
		if (!tab || strchr(tab + 1, '\t')) {
			warnx("%s:%u: not \"old<TAB>new\" (exactly one tab): %s", file, no, line);
			bad++;
			continue;
		}
		*tab = 0;
		if (bad_path(line)) {
			warnx("%s:%u: \"%s\" is no path relative to the directory", file, no, line);
			bad++;
			continue;
		}
		if (!fat83_is_83(tab + 1)) {
			warnx("%s:%u: \"%s\" is no 8.3 name (1-8 characters, a dot and 0-3, of "
			      "A-Z 0-9 ! # $ %% & ' ( ) - @ _ ` { })", file, no, tab + 1);
			bad++;
			continue;
		}
		if (fat83_is_device(tab + 1)) {
			warnx("%s:%u: \"%s\" is a DOS device name", file, no, tab + 1);
			bad++;
			continue;
		}
		for (i = 0; i < c->nmap; i++)
			if (!strcmp(c->map[i].old, line))
				break;
		if (i < c->nmap) {
			warnx("%s:%u: \"%s\" is already mapped on line %u", file, no, line,
			      c->map[i].line);
			bad++;
			continue;
		}
		c->map = xrealloc(c->map, (c->nmap + 1) * sizeof(*c->map));
		c->map[c->nmap].old = xstrdup(line);
		c->map[c->nmap].new = xstrdup(tab + 1);
		c->map[c->nmap].line = no;
		c->map[c->nmap].used = false;
		c->nmap++;
	}
	if (ferror(f)) {
		warnx("%s: %s", file, strerror(errno));
		bad++;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return bad ? -1 : 0;
}

/* ------------------------------------------------------ the journal -- */

/*
 * The undo journal: a text file, by default JOURNAL_NAME at the top of the
 * fixed tree (on the card: it goes where the card goes, survives an
 * unmount, and is an 8.3 name, so a nolongcreate mount takes it), else
 * --journal FILE.  Lines: "# ..." comments, and
 *   R<TAB>DIR<TAB>OLD<TAB>NEW<TAB>ALIAS   DIR/OLD is about to be renamed NEW
 *   F<TAB>DIR<TAB>OLD<TAB>NEW<TAB>ALIAS   that rename failed: nothing changed
 * DIR relative to the top ("" for the top), ALIAS the 8.3 name OLD had; each
 * field escaped as esc() does (no tab or newline in it).  An R line is
 * written and fsync'd before its rename; `fat83 undo` reads them all.
 */
static int journal_at(struct ctx *c, int top)
{
	const char *slash;
	char dir[4096];

	if (!c->journal) {
		c->jdir = top;
		snprintf(c->jname, sizeof(c->jname), "%s", JOURNAL_NAME);
		if (c->mnt.lower)
			to_lower(c->jname);
		return 0;
	}
	slash = strrchr(c->journal, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - c->journal) : 1,
		 slash ? (slash == c->journal ? "/" : c->journal) : ".");
	snprintf(c->jname, sizeof(c->jname), "%s", slash ? slash + 1 : c->journal);
	c->jdir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->jdir < 0) {
		warnx("%s: %s", esc(dir), strerror(errno));
		return -1;
	}
	return 0;
}

static const char *journal_path(struct ctx *c)
{
	static char p[8192];

	if (c->journal)
		return c->journal;
	snprintf(p, sizeof(p), "%s/%s", c->top, c->jname);
	return p;
}

/*
 * A journal whose last line has no newline: an earlier fix was killed while
 * writing it, before its rename.  Cut it off, so that this run's lines
 * start on a line of their own.
 */
static int cut_unfinished(int fd, off_t size)
{
	char last, *buf;
	char *nl;
	int r = 0;

	if (pread(fd, &last, 1, size - 1) != 1)
		return -1;
	if (last == '\n')
		return 0;
	buf = xrealloc(NULL, size);
	if (pread(fd, buf, size, 0) != size) {
		free(buf);
		return -1;
	}
	nl = memrchr(buf, '\n', size);
	r = ftruncate(fd, nl ? nl - buf + 1 : 0);
	free(buf);
	return r;
}

/* Open (create) the journal for appending, at the first rename. */
static int journal_open(struct ctx *c)
{
	char head[512];
	struct stat st;
	time_t now = time(NULL);
	int n;

	c->jfd = openat(c->jdir, c->jname, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (c->jfd < 0 && !c->journal && (errno == EINVAL || errno == ENAMETOOLONG)) {
		/* the mount shows the other case as typed */
		set_case(c->jname, !c->mnt.lower);
		c->jfd = openat(c->jdir, c->jname,
				O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	}
	if (c->jfd < 0 || fstat(c->jfd, &st)) {
		warnx("%s: cannot write the undo journal: %s: nothing renamed",
		      esc(journal_path(c)), strerror(errno));
		return -1;
	}
	if (st.st_size > 0 && (cut_unfinished(c->jfd, st.st_size) || fstat(c->jfd, &st))) {
		warnx("%s: %s: nothing renamed", esc(journal_path(c)), strerror(errno));
		close(c->jfd);
		c->jfd = -1;
		return -1;
	}
	n = 0;
	if (!st.st_size)
		n = snprintf(head, sizeof(head),
			"# fat83 undo journal: the renames of fat83 fix, each written here\n"
			"# before it is made; \"fat83 undo DIR\" puts them back, the last first.\n"
			"# R: about to rename DIR/OLD to NEW (ALIAS: OLD's 8.3 name); F: that\n"
			"# rename failed.  R|F<TAB>DIR<TAB>OLD<TAB>NEW<TAB>ALIAS, escaped as ls -b.\n");
	strftime(head + n, sizeof(head) - n, "# fix %Y-%m-%dT%H:%M:%SZ\n", gmtime(&now));
	if (write(c->jfd, head, strlen(head)) != (ssize_t)strlen(head) || fsync(c->jfd)) {
		warnx("%s: %s: nothing renamed", esc(journal_path(c)), strerror(errno));
		close(c->jfd);
		c->jfd = -1;
		return -1;
	}
	printf("%s: each rename is recorded first in %s (fat83 undo%s%s %s puts them back)\n",
	       prog, esc(journal_path(c)), c->journal ? " --journal " : "",
	       c->journal ? esc(c->journal) : "", esc(c->top));
	return 0;
}

/* One line, written and fsync'd; -1 (said) when it could not be. */
static int journal_add(struct ctx *c, char kind, const struct item *it)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m;
	int ok;

	if (c->jfd < 0 && journal_open(c))
		return -1;
	m = open_memstream(&line, &len);
	if (!m)
		return -1;
	fprintf(m, "%c\t%s\t%s\t%s\t%s\n", kind, esc(it->dir), esc(it->old), esc(it->new),
		esc(it->alias));
	fclose(m);
	ok = write(c->jfd, line, len) == (ssize_t)len && !fsync(c->jfd);
	if (!ok)
		warnx("%s: %s: %s not renamed", esc(journal_path(c)), strerror(errno),
		      esc(it->old));
	free(line);
	return ok ? 0 : -1;
}

/* -------------------------------------------------------- the renames -- */

static int open_rel(int top, const char *rel)
{
	return openat(top, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* One rename, NOREPLACE, recorded in the journal first; on EEXIST (a name
 * that came since the walk) the next candidate; on a refusal of the case
 * the mount shows, the other case.  -2: the journal cannot be written.
 */
static int do_rename(struct ctx *c, int dfd, struct item *it)
{
	char out[FAT83_NAME_SIZE];
	struct taken t = { 0 };
	struct dirlist dl;
	bool lower = c->mnt.lower, case_tried = false;
	int err;

	/* the case of the plan, or the one an earlier rename found taken */
	set_case(it->new, lower);
	for (;;) {
		if (journal_add(c, 'R', it)) {
			free_extra(&t);
			return -2;
		}
		if (!renameat2(dfd, it->old, dfd, it->new, RENAME_NOREPLACE))
			break;
		err = errno;
		if (journal_add(c, 'F', it)) {
			free_extra(&t);
			return -2;
		}
		if ((err == ENAMETOOLONG || err == EINVAL) && !case_tried) {
			/* the mount shows the other case as typed */
			snprintf(out, sizeof(out), "%s", it->new);
			lower = !lower;
			set_case(out, lower);
			warnx("%s: the mount refused %s (%s); trying %s", esc(it->old),
			      it->new, strerror(err), out);
			case_tried = true;
		} else if (err == EEXIST && !it->mapped) {
			/* taken since the walk: the names there now, and the ones tried */
			if (read_dir(dfd, &dl))
				goto fail;
			t.dl = &dl;
			add_extra(&t, it->new);
			err = fat83_suggest(it->old, is_taken, &t, out) < 0;
			free_dirlist(&dl);
			if (err) {
				warnx("%s: no free 8.3 name", esc(it->old));
				goto fail;
			}
			if (lower)
				to_lower(out);
		} else {
			warnx("%s%s%s -> %s: %s", esc(it->dir), *it->dir ? "/" : "",
			      esc(it->old), esc(it->new), strerror(err));
			goto fail;
		}
		free(it->new);
		it->new = xstrdup(out);
	}
	free_extra(&t);
	if (case_tried) {
		/* the case the mount took, for the next names too */
		c->mnt.lower = lower;
		warnx("new names in %s case from now on", lower ? "lower" : "upper");
	}
	it->done = true;
	return 0;
fail:
	free_extra(&t);
	return -1;
}

/* After the renames of a directory: each new name is an 8.3 entry without
 * a long name (READDIR_BOTH).  Returns the number that are not.
 */
static unsigned long verify_dir(struct ctx *c, int top, size_t from, size_t to)
{
	unsigned long bad = 0;
	struct dirlist dl;
	size_t i, j;
	int dfd;

	dfd = open_rel(top, c->items[from].dir);
	if (dfd < 0 || read_dir(dfd, &dl)) {
		warnx("%s/%s: cannot read it back", esc(c->top), esc(c->items[from].dir));
		if (dfd >= 0)
			close(dfd);
		return to - from;
	}
	for (i = from; i < to; i++) {
		if (!c->items[i].done)
			continue;
		/* the new name as the 8.3 name, or (wrongly) as a long one */
		for (j = 0; j < dl.n; j++)
			if (fat83_eq_nocase(dl.e[j].alias, c->items[i].new) ||
			    fat83_eq_nocase(dl.e[j].name, c->items[i].new))
				break;
		if (j == dl.n) {
			warnx("%s/%s: not found after the rename", esc(c->top), c->items[i].new);
			bad++;
		} else if (dl.e[j].has_long) {
			warnx("%s/%s: the mount gave it a long name (%s) besides %s",
			      esc(c->top), c->items[i].new, esc(dl.e[j].name), dl.e[j].alias);
			bad++;
		}
	}
	free_dirlist(&dl);
	close(dfd);
	return bad;
}

static int run_fix(struct ctx *c, int top)
{
	unsigned long done = 0, failed = 0, bad = 0;
	bool dry = c->dry_run || c->rdonly, stop = false;
	size_t i, from;
	int dfd = -1, r;

	for (from = 0; from < c->nitems; from = i) {
		for (i = from; i < c->nitems && !strcmp(c->items[i].dir, c->items[from].dir); i++)
			;
		if (stop) {
			failed += i - from;
			continue;
		}
		if (!dry) {
			dfd = open_rel(top, c->items[from].dir);
			if (dfd < 0) {
				warnx("%s/%s: %s", esc(c->top), esc(c->items[from].dir),
				      strerror(errno));
				failed += i - from;
				continue;
			}
		}
		for (size_t j = from; j < i; j++) {
			struct item *it = &c->items[j];
			const char *sl = *it->dir ? "/" : "";

			if (!dry && (r = do_rename(c, dfd, it))) {
				failed++;
				if (r == -2) {
					/* no journal: no rename */
					stop = true;
					failed += i - j - 1;
					break;
				}
				continue;
			}
			printf("%s%s%s -> %s%s%s%s\n", esc(it->dir), sl, esc(it->old),
			       esc(it->dir), sl, it->new, it->mapped ? "  (map)" : "");
			fflush(stdout);
			done++;
		}
		if (!dry) {
			/* the directory's renames on the card before the next one's */
			if (syncfs(dfd))
				warnx("%s/%s: syncfs: %s", esc(c->top), esc(c->items[from].dir),
				      strerror(errno));
			close(dfd);
			bad += verify_dir(c, top, from, i);
		}
	}
	if (c->jfd >= 0)
		close(c->jfd);
	if (c->rdonly)
		printf("%s: read-only: %lu rename(s) planned under %s, nothing changed\n",
		       prog, done, esc(c->top));
	else if (c->dry_run)
		printf("%s: dry run: %lu rename(s) planned under %s, nothing changed\n",
		       prog, done, esc(c->top));
	else
		printf("%s: %lu renamed, %lu failed, %lu still with a long name under %s\n",
		       prog, done, failed, bad, esc(c->top));
	if (c->skipped_case)
		printf("%s: %lu name(s) 8.3 readers see in another case left as they are "
		       "(fat83 check --case lists them)\n", prog, c->skipped_case);
	if (c->nleft || c->noverlong)
		printf("%s: %lu entr%s left alone (dot-names, hidden or system), %lu name(s) "
		       "over 255 bytes\n", prog, c->nleft, c->nleft == 1 ? "y" : "ies",
		       c->noverlong);
	if (c->rdonly)
		return done ? 1 : 0;
	return failed || bad ? 1 : 0;
}

/* ------------------------------------------------------------ undo -- */

struct rec {
	char kind;
	char *dir, *old, *new, *alias;
	unsigned int line;
	enum { U_TODO, U_DONE, U_ALREADY, U_KEEP } state;
};

/* The R lines of the journal whose renames were made (an F line right
 * after its R: not made).  -1 on a line that is no journal line.
 */
static int read_journal(struct ctx *c, struct rec **out, size_t *nout)
{
	struct rec *r = NULL, x;
	size_t n = 0, cap = 0;
	char *line = NULL, *f[5], *p;
	unsigned int no = 0;
	ssize_t len;
	int fd, k, bad = 0;
	FILE *fp;

	fd = openat(c->jdir, c->jname, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(fp = fdopen(fd, "r"))) {
		if (errno == ENOENT)
			warnx("%s: no undo journal: nothing to undo (fat83 fix writes it)",
			      esc(journal_path(c)));
		else
			warnx("%s: %s", esc(journal_path(c)), strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		no++;
		if (!len || line[len - 1] != '\n') {
			/* cut short by a crash: its rename was never made */
			printf("%s:%u: an unfinished line (fix stopped while writing it), "
			       "ignored\n", esc(journal_path(c)), no);
			continue;
		}
		line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		p = line;
		for (k = 0; k < 5 && p; k++)
			f[k] = strsep(&p, "\t");
		if (k < 5 || p || strlen(f[0]) != 1 || (f[0][0] != 'R' && f[0][0] != 'F') ||
		    unesc(f[1]) || unesc(f[2]) || unesc(f[3]) || unesc(f[4]) ||
		    !*f[2] || !*f[3]) {
			warnx("%s:%u: not a journal line", esc(journal_path(c)), no);
			bad++;
			continue;
		}
		x.kind = f[0][0];
		if (x.kind == 'F') {
			if (n && !strcmp(r[n - 1].dir, f[1]) && !strcmp(r[n - 1].old, f[2]) &&
			    !strcmp(r[n - 1].new, f[3])) {
				n--;
				free(r[n].dir);
				free(r[n].old);
				free(r[n].new);
				free(r[n].alias);
			}
			continue;
		}
		x.dir = xstrdup(f[1]);
		x.old = xstrdup(f[2]);
		x.new = xstrdup(f[3]);
		x.alias = xstrdup(f[4]);
		x.line = no;
		x.state = U_TODO;
		r = xrealloc(r, (n + 1) * sizeof(*r));
		r[n++] = x;
	}
	free(line);
	fclose(fp);
	*out = r;
	*nout = n;
	return bad ? -1 : 0;
}

/* The journal again with the lines not undone; removed when none is left. */
static int rewrite_journal(struct ctx *c, struct rec *r, size_t n)
{
	size_t i, kept = 0;
	char tmp[16];
	unsigned int t;
	FILE *fp;
	int fd = -1;

	for (i = 0; i < n; i++)
		kept += r[i].state == U_KEEP;
	if (!kept) {
		if (unlinkat(c->jdir, c->jname, 0)) {
			warnx("%s: %s", esc(journal_path(c)), strerror(errno));
			return -1;
		}
		fsync(c->jdir);
		return 0;
	}
	/*
	 * A name of its own, never a file that is there: the journal's
	 * directory is the card's top or, with --journal, any directory.
	 */
	for (t = 0; t < 100 && fd < 0; t++) {
		snprintf(tmp, sizeof(tmp), JOURNAL_TMP, t);
		fd = openat(c->jdir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		warnx("%s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlinkat(c->jdir, tmp, 0);
		}
		return -1;
	}
	fprintf(fp, "# fat83 undo journal: the renames fat83 undo could not put back;\n"
		    "# \"fat83 undo DIR\" tries them again.\n"
		    "# R<TAB>DIR<TAB>OLD<TAB>NEW<TAB>ALIAS, escaped as ls -b.\n");
	for (i = 0; i < n; i++)
		if (r[i].state == U_KEEP)
			fprintf(fp, "R\t%s\t%s\t%s\t%s\n", esc(r[i].dir), esc(r[i].old),
				esc(r[i].new), esc(r[i].alias));
	if (fflush(fp) || fsync(fd) || fclose(fp) ||
	    renameat(c->jdir, tmp, c->jdir, c->jname)) {
		warnx("%s: %s", esc(journal_path(c)), strerror(errno));
		unlinkat(c->jdir, tmp, 0);
		return -1;
	}
	return 0;
}

/*
 * Undo: the journal's renames back, the directories in the reverse order of
 * the fix (a directory's own rename was made after its entries'), each
 * directory's renames in their order (then vfat gives the old long names the
 * same ~N aliases as before, where nothing else took them); each NOREPLACE,
 * so a name that came back meanwhile is never replaced: reported, and left
 * in the journal.
 */
static int run_undo(struct ctx *c, int top)
{
	unsigned long done = 0, already = 0, kept = 0, aliases = 0;
	struct dirlist dl;
	struct rec *r = NULL;
	struct stat st;
	size_t n = 0, i, j, from;
	int dfd, err;
	char *path, *pnew;

	if (read_journal(c, &r, &n))
		return 2;
	printf("%s: %s: %zu rename(s) to put back, from %s\n", prog, esc(c->top), n,
	       esc(journal_path(c)));
	for (i = n; i > 0; i = from) {
		for (from = i - 1; from > 0 && !strcmp(r[from - 1].dir, r[i - 1].dir); from--)
			;
		dfd = open_rel(top, r[from].dir);
		if (dfd < 0) {
			err = errno;
			for (j = from; j < i; j++) {
				warnx("%s/%s: %s: %s left in the journal", esc(c->top),
				      esc(r[j].dir), strerror(err), esc(r[j].new));
				r[j].state = U_KEEP;
				kept++;
			}
			continue;
		}
		for (j = from; j < i; j++) {
			path = join(r[j].dir, r[j].old);
			pnew = join(r[j].dir, r[j].new);
			if (!renameat2(dfd, r[j].new, dfd, r[j].old, RENAME_NOREPLACE)) {
				printf("%s -> %s\n", esc(pnew), esc(path));
				r[j].state = U_DONE;
				done++;
			} else if ((err = errno) == ENOENT &&
				   !fstatat(dfd, r[j].old, &st, AT_SYMLINK_NOFOLLOW)) {
				printf("%s: already under its old name (%s is not there)\n",
				       esc(path), esc(r[j].new));
				r[j].state = U_ALREADY;
				already++;
			} else {
				if (err == EEXIST)
					warnx("conflict: %s and %s both exist: neither renamed "
					      "(left in the journal)", esc(path), esc(pnew));
				else if (err == ENOENT)
					warnx("conflict: neither %s nor %s is there (left in the "
					      "journal)", esc(pnew), esc(path));
				else
					warnx("%s -> %s: %s (left in the journal)", esc(pnew),
					      esc(path), strerror(err));
				r[j].state = U_KEEP;
				kept++;
			}
			free(path);
			free(pnew);
		}
		if (syncfs(dfd))
			warnx("%s/%s: syncfs: %s", esc(c->top), esc(r[from].dir), strerror(errno));
		/* the 8.3 names the old long names have now */
		if (!read_dir(dfd, &dl)) {
			for (j = from; j < i; j++) {
				size_t k;

				if (r[j].state != U_DONE || !*r[j].alias)
					continue;
				for (k = 0; k < dl.n; k++)
					if (!strcmp(dl.e[k].name, r[j].old))
						break;
				if (k < dl.n && !fat83_eq_nocase(dl.e[k].alias, r[j].alias)) {
					path = join(r[j].dir, r[j].old);
					printf("%s: 8.3 readers see %s now, %s before the fix\n",
					       esc(path), esc(dl.e[k].alias), esc(r[j].alias));
					free(path);
					aliases++;
				}
			}
			free_dirlist(&dl);
		}
		close(dfd);
	}
	err = rewrite_journal(c, r, n);
	printf("%s: %lu put back, %lu already under their old names, %lu conflict(s) left "
	       "in the journal under %s\n", prog, done, already, kept, esc(c->top));
	if (aliases)
		printf("%s: %lu old name(s) with another 8.3 name than before the fix\n",
		       prog, aliases);
	if (!kept && !err)
		printf("%s: %s removed: every rename of it is undone\n", prog,
		       esc(journal_path(c)));
	for (i = 0; i < n; i++) {
		free(r[i].dir);
		free(r[i].old);
		free(r[i].new);
		free(r[i].alias);
	}
	free(r);
	return err ? 2 : kept ? 1 : 0;
}

/* -------------------------------------------------------------- put -- */

/*
 * put: copies files onto the card under the 8.3 names fix would give them
 * (the suggester's, never a second one), for programs that cannot write
 * there themselves (a slicer's export goes through NAME.gcode.tmp, which a
 * nolongcreate mount refuses).  Each file is written to a scratch name of
 * its own in DIR, F83Pnnnn.TMP (the first free nnnn; an 8.3 name such a
 * mount takes, created with O_EXCL), and fsync'd; only when every file is
 * written are they renamed to their final names, with
 * renameat2(RENAME_NOREPLACE), never over an existing entry (EEXIST: the
 * next free name).  So no file cut short ever sits under a final name: a
 * card pulled, a power cut or SIGKILL leaves at most an F83Pnnnn.TMP, which
 * check and put point out.  --replace: when the name fix gives (before the
 * next free one) is a regular file in DIR, the scratch file is renamed over
 * it (one rename) instead; never
 * over a directory.  A mount that refuses the case typed gets the other
 * case once, as fix does.  On any error the scratch files, and the files
 * this run put under new names, are removed, so the card is as it was (a
 * file already replaced stays replaced: the renames over existing files
 * come last).  syncfs at the end; then the directory is read back.
 */
struct put {
	const char *src, *base;	/* the file, and its name */
	char name[FAT83_NAME_SIZE];	/* its final name in DIR */
	char tmp[FAT83_NAME_SIZE];	/* its scratch name while it is written */
	bool replace;	/* name is an existing regular file, to be replaced */
	bool made;	/* tmp is there, made by this run */
	bool placed;	/* renamed to name */
};

/*
 * The signals that end put (Ctrl-C, a closed terminal, a logout, kill) are
 * blocked while it copies, and looked for between blocks: put removes its
 * scratch files first; then the signal ends it as it would have.
 */
static sigset_t put_stop;
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static bool put_interrupted(void)
{
	sigset_t pend;
	int s;

	if (sigpending(&pend))
		return false;
	for (s = 1; s < NSIG; s++)
		if (sigismember(&put_stop, s) && sigismember(&pend, s))
			return true;
	return false;
}

/* Copy @sfd into @fd and fsync it; 0, or -errno (-EINTR: a signal came). */
static int put_copy(int sfd, int fd)
{
	static char buf[1 << 16];
	ssize_t n, w, off;
	int err = 0;

	for (;;) {
		if (put_interrupted())
			return -EINTR;
		n = read(sfd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		for (off = 0; off < n; off += w) {
			w = write(fd, buf + off, n - off);
			if (w < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				return -errno;
			}
		}
	}
	if (fsync(fd))
		err = -errno;
	if (!err && put_interrupted())
		err = -EINTR;
	return err;
}

/*
 * A name @name of @src the mount refused (@err): the other case, once (the
 * mount shows the other case as typed), said; false when tried already.
 */
static bool put_other_case(const char *src, const char *name, int err, bool *lower,
			   bool *case_tried)
{
	if (*case_tried)
		return false;
	*lower = !*lower;
	*case_tried = true;
	warnx("%s: the mount refused %s (%s); trying it in %s case",
	      esc(src), name, strerror(err), *lower ? "lower" : "upper");
	return true;
}

/*
 * The scratch file of @p in @dfd: the first F83Pnnnn.TMP not taken, made
 * with O_EXCL, typed in the case *@lower (the other case once, as for the
 * final names, if the mount refuses it).  Its fd, or -1 (said).
 */
static int put_scratch(struct ctx *c, int dfd, struct put *p, struct taken *t,
		       bool *lower, bool *case_tried)
{
	unsigned int n;
	int fd, err;

	for (n = 0; n < 10000;) {
		snprintf(p->tmp, sizeof(p->tmp), PUT_TMP, n);
		if (is_taken(p->tmp, t)) {
			n++;
			continue;
		}
		set_case(p->tmp, *lower);
		fd = openat(dfd, p->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			add_extra(t, p->tmp);
			return fd;
		}
		err = errno;
		if ((err == ENAMETOOLONG || err == EINVAL) &&
		    put_other_case(p->src, p->tmp, err, lower, case_tried))
			continue;
		if (err == EEXIST) {
			/* made since the directory was read */
			add_extra(t, p->tmp);
			n++;
		} else {
			warnx("%s/%s: %s", esc(c->top), p->tmp, strerror(err));
			return -1;
		}
	}
	warnx("%s: no free scratch name (F83P0000.TMP to F83P9999.TMP) in %s",
	      esc(p->src), esc(c->top));
	return -1;
}

/*
 * @p's scratch file renamed to its final name: never over an entry
 * (renameat2 RENAME_NOREPLACE; EEXIST, a name taken since the plan: the
 * next free one), or with p->replace over the regular file of that name
 * (one rename).  0, or -1 (said).
 */
static int put_place(struct ctx *c, int dfd, struct put *p, struct taken *t,
		     struct dirlist *dl, bool *lower, bool *case_tried)
{
	int err;

	for (;;) {
		if (p->replace) {
			if (!renameat(dfd, p->tmp, dfd, p->name))
				break;
			warnx("%s/%s -> %s: %s", esc(c->top), p->tmp, p->name, strerror(errno));
			return -1;
		}
		set_case(p->name, *lower);
		if (!renameat2(dfd, p->tmp, dfd, p->name, RENAME_NOREPLACE))
			break;
		err = errno;
		if (err == ENOSYS || err == EINVAL) {
			/* not the name: the mount took the scratch name so typed */
			warnx("%s/%s -> %s: renameat2 with RENAME_NOREPLACE: %s: this kernel "
			      "or filesystem does not support it, and put never renames over "
			      "a file without it", esc(c->top), p->tmp, p->name, strerror(err));
			return -1;
		}
		if (err == ENAMETOOLONG &&
		    put_other_case(p->src, p->name, err, lower, case_tried))
			continue;
		if (err == EEXIST) {
			/* taken since the plan (or by an alias): the next free one */
			add_extra(t, p->name);
			free_dirlist(dl);
			if (read_dir(dfd, dl) || fat83_suggest(p->base, is_taken, t, p->name) < 0) {
				warnx("%s: no free 8.3 name in %s", esc(p->src), esc(c->top));
				return -1;
			}
			add_extra(t, p->name);
		} else {
			warnx("%s/%s -> %s: %s", esc(c->top), p->tmp, p->name, strerror(err));
			return -1;
		}
	}
	p->made = false;
	p->placed = true;
	return 0;
}

/*
 * --replace: the name fix gives @i's file before the next free one, when it
 * is a regular file in the directory: p[i].name, that file's name there,
 * and p[i].replace.  0 (replace or not), or -1: refused (said).
 */
static int put_replace(struct ctx *c, int dfd, const struct dirlist *dl, struct put *p,
		       int i)
{
	char want[FAT83_NAME_SIZE];
	const struct ent *e = NULL;
	struct stat st;
	size_t k;
	int j;

	if (fat83_suggest(p[i].base, NULL, NULL, want) < 0)
		return 0;
	for (k = 0; k < dl->n && !e; k++)
		if (fat83_eq_nocase(dl->e[k].name, want) || fat83_eq_nocase(dl->e[k].alias, want))
			e = &dl->e[k];
	if (!e)
		return 0;
	for (j = 0; j < i; j++)
		if (p[j].replace && fat83_eq_nocase(p[j].name, want)) {
			warnx("%s and %s would both replace %s/%s", esc(p[j].src),
			      esc(p[i].src), esc(c->top), esc(e->name));
			return -1;
		}
	if (!fat83_eq_nocase(e->name, want)) {
		warnx("%s/%s: the 8.3 name of %s, not replaced (--replace replaces a "
		      "file of that name only)", esc(c->top), e->alias, esc(e->name));
		return -1;
	}
	if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW)) {
		warnx("%s/%s: %s", esc(c->top), esc(e->name), strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		warnx("%s/%s: %s, not replaced (--replace replaces a regular file only)",
		      esc(c->top), esc(e->name),
		      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		return -1;
	}
	snprintf(p[i].name, sizeof(p[i].name), "%s", e->name);
	p[i].replace = true;
	return 0;
}

static int run_put(struct ctx *c, int dfd, char **srcs, int nsrc)
{
	struct dirlist dl;
	struct taken t = { .dl = &dl };
	struct put *p;
	struct stat st;
	bool lower = c->mnt.lower, case_tried = false, failed = false, blocked = false;
	unsigned long bad = 0, kept = 0, nrep = 0;
	int i, j, r, sfd, fd, pass;
	sigset_t old_mask;
	size_t k;

	r = read_dir(dfd, &dl);
	if (r) {
		warnx("%s: cannot read the directory: %s", esc(c->top), strerror(-r));
		return 2;
	}
	put_leftovers(c->top, &dl);
	p = xrealloc(NULL, nsrc * sizeof(*p));
	memset(p, 0, nsrc * sizeof(*p));
	/* every source first: a regular file that can be read, and its name */
	for (i = 0; i < nsrc; i++) {
		const char *base = strrchr(srcs[i], '/');

		base = base ? base + 1 : srcs[i];
		p[i].src = srcs[i];
		p[i].base = base;
		if (stat(srcs[i], &st) || access(srcs[i], R_OK)) {
			warnx("%s: %s", esc(srcs[i]), strerror(errno));
			failed = true;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			warnx("%s: not a regular file", esc(srcs[i]));
			failed = true;
			continue;
		}
		if (*base && c->replace) {
			if (put_replace(c, dfd, &dl, p, i)) {
				failed = true;
				continue;
			}
			if (p[i].replace) {
				add_extra(&t, p[i].name);
				continue;
			}
		}
		if (!*base || fat83_suggest(base, is_taken, &t, p[i].name) < 0) {
			warnx("%s: no free 8.3 name in %s", esc(srcs[i]), esc(c->top));
			failed = true;
			continue;
		}
		add_extra(&t, p[i].name);
		if (lower)
			to_lower(p[i].name);
	}
	if (failed) {
		warnx("nothing copied to %s", esc(c->top));
		goto out;
	}
	if (c->dry_run || c->rdonly) {
		for (i = 0; i < nsrc; i++)
			printf("%s -> %s/%s%s\n", esc(p[i].src), esc(c->top), esc(p[i].name),
			       p[i].replace ? " (would replace it)" : "");
		printf("%s: %s: %d file(s) planned, nothing copied\n", prog, esc(c->top), nsrc);
		if (c->rdonly)
			printf("%s: %s is mounted read-only (sudo mount -o remount,rw %s)\n",
			       prog, esc(c->top), shw(c->mnt.point));
		goto out;
	}
	sigemptyset(&put_stop);
	for (i = 0; i < (int)(sizeof(stop_sigs) / sizeof(stop_sigs[0])); i++) {
		struct sigaction sa;

		/* one ignored from the start (a script's background job): ignored still */
		if (!sigaction(stop_sigs[i], NULL, &sa) && sa.sa_handler != SIG_IGN)
			sigaddset(&put_stop, stop_sigs[i]);
	}
	blocked = !sigprocmask(SIG_BLOCK, &put_stop, &old_mask);
	/* each file to a scratch name of its own, written and fsync'd */
	for (i = 0; i < nsrc && !failed; i++) {
		sfd = open(p[i].src, O_RDONLY | O_CLOEXEC);
		if (sfd < 0) {
			warnx("%s: %s", esc(p[i].src), strerror(errno));
			failed = true;
			break;
		}
		fd = put_scratch(c, dfd, &p[i], &t, &lower, &case_tried);
		if (fd < 0) {
			close(sfd);
			failed = true;
			break;
		}
		p[i].made = true;
		r = put_copy(sfd, fd);
		close(sfd);
		if (close(fd) && !r)
			r = -errno;
		if (r == -EINTR) {
			warnx("%s: stopped (a signal: Ctrl-C, a closed terminal, a logout); nothing is left on the card",
			      esc(p[i].src));
			failed = true;
		} else if (r) {
			warnx("%s: %s (writing it to %s/%s)", esc(p[i].src), strerror(-r),
			      esc(c->top), p[i].tmp);
			failed = true;
		}
	}
	/* then each to its final name: the new names first, the replaced last */
	for (pass = 0; pass < 2 && !failed; pass++)
		for (i = 0; i < nsrc && !failed; i++)
			if (p[i].replace == (pass == 1) &&
			    put_place(c, dfd, &p[i], &t, &dl, &lower, &case_tried))
				failed = true;
	if (failed) {
		/* the card as it was: the scratch files and the new names removed */
		for (j = 0; j < nsrc; j++) {
			if (p[j].made) {
				if (unlinkat(dfd, p[j].tmp, 0))
					warnx("%s/%s: cannot remove it: %s", esc(c->top), p[j].tmp,
					      strerror(errno));
				else
					warnx("%s/%s: removed (the copy of %s)", esc(c->top),
					      p[j].tmp, esc(p[j].src));
			} else if (p[j].placed && !p[j].replace) {
				if (unlinkat(dfd, p[j].name, 0))
					warnx("%s/%s: cannot remove it: %s", esc(c->top),
					      esc(p[j].name), strerror(errno));
				else
					warnx("%s/%s: removed", esc(c->top), esc(p[j].name));
			} else if (p[j].placed) {
				warnx("%s/%s: already replaced by %s", esc(c->top),
				      esc(p[j].name), esc(p[j].src));
				kept++;
			}
		}
		syncfs(dfd);
		if (kept)
			warnx("nothing else copied to %s", esc(c->top));
		else
			warnx("nothing copied to %s", esc(c->top));
		goto out;
	}
	if (syncfs(dfd))
		warnx("%s: syncfs: %s", esc(c->top), strerror(errno));
	/* read back: each new name an 8.3 entry without a long name */
	free_dirlist(&dl);
	if (read_dir(dfd, &dl)) {
		warnx("%s: cannot read it back", esc(c->top));
		bad = nsrc;
	}
	for (i = 0; i < nsrc && !bad; i++) {
		for (k = 0; k < dl.n; k++)
			if (fat83_eq_nocase(dl.e[k].alias, p[i].name))
				break;
		if (k == dl.n) {
			warnx("%s/%s: not found after the copy", esc(c->top), esc(p[i].name));
			bad++;
		} else if (dl.e[k].has_long && p[i].replace) {
			/* vfat's rename over a file reuses its entry, long name too */
			if (strcmp(dl.e[k].name, dl.e[k].alias))
				printf("%s/%s: the file replaced had the long name %s, the same name in another case, which the new one keeps (readers of 8.3 names see %s)\n",
				       esc(c->top), dl.e[k].alias, esc(dl.e[k].name), dl.e[k].alias);
		} else if (dl.e[k].has_long) {
			warnx("%s/%s: the mount gave it a long name (%s) besides %s",
			      esc(c->top), esc(p[i].name), esc(dl.e[k].name), dl.e[k].alias);
			bad++;
		}
	}
	for (i = 0; i < nsrc; i++) {
		printf("%s -> %s/%s%s\n", esc(p[i].src), esc(c->top), esc(p[i].name),
		       p[i].replace ? " (replaced)" : "");
		nrep += p[i].replace;
	}
	printf("%s: %d file(s) copied to %s", prog, nsrc, esc(c->top));
	if (nrep)
		printf(", %lu of them over the file of that name", nrep);
	printf("%s\n", bad ? ", some with a long name (see above)" : "");
out:
	free_extra(&t);
	free_dirlist(&dl);
	free(p);
	if (blocked) {
		fflush(stdout);
		/*
		 * a signal that came ends put now: the card as it was, or,
		 * when it came after the renames, with the files placed and
		 * synced as printed (the exit status is the signal's)
		 */
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	}
	return failed ? 2 : bad ? 1 : 0;
}
/* ---------------------------------------------------- the boot partition -- */

/* The ESP's type GUID C12A7328-F81F-11D2-BA4B-00A0C93EC93B as stored */
static const unsigned char ESP_GUID[16] = {
	0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
	0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};

static int read_sys(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The partition type of @dev by its disk's partition table (MBR, GPT). */
static bool esp_by_table(dev_t dev, char *why, size_t size)
{
	char p[256], buf[256], disk[300];
	unsigned char s[4096];
	unsigned int partno, lbs = 512, i;
	uint64_t lba, nent, esz;
	bool gpt = false, esp = false;
	int fd;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (read_sys(p, buf, sizeof(buf)) || sscanf(buf, "%u", &partno) != 1 || !partno)
		return false;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../uevent", major(dev), minor(dev));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	i = read(fd, s, sizeof(s) - 1) > 0;
	close(fd);
	if (!i)
		return false;
	s[sizeof(s) - 1] = 0;
	{
		char *d = strstr((char *)s, "DEVNAME=");

		if (!d)
			return false;
		d += 8;
		snprintf(disk, sizeof(disk), "/dev/%.*s", (int)strcspn(d, "\n"), d);
	}
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/logical_block_size",
		 major(dev), minor(dev));
	if (!read_sys(p, buf, sizeof(buf)))
		sscanf(buf, "%u", &lbs);
	if (lbs < 512 || lbs > sizeof(s))
		lbs = 512;
	fd = open(disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (pread(fd, s, 512, 0) == 512 && s[510] == 0x55 && s[511] == 0xaa) {
		for (i = 0; i < 4; i++) {
			if (s[446 + 16 * i + 4] == 0xee)
				gpt = true;
			if (i + 1 == partno && s[446 + 16 * i + 4] == 0xef) {
				snprintf(why, size, "partition %u of %s has the MBR type 0xef "
					 "(EFI System), read from its partition table", partno, disk);
				esp = true;
			} else if (i + 1 == partno && s[446 + 16 * i] == 0x80) {
				snprintf(why, size, "partition %u of %s is marked active "
					 "(bootable) in its MBR", partno, disk);
				esp = true;
			}
		}
	}
	if (!esp && gpt && pread(fd, s, lbs, lbs) == (ssize_t)lbs &&
	    !memcmp(s, "EFI PART", 8)) {
		lba = le(s + 72, 8);
		nent = le(s + 80, 4);
		esz = le(s + 84, 4);
		if (partno <= nent && esz >= 16 &&
		    pread(fd, s, 16, lba * lbs + (partno - 1) * esz) == 16 &&
		    !memcmp(s, ESP_GUID, 16)) {
			snprintf(why, size, "partition %u of %s has the GPT type "
				 "C12A7328-F81F-11D2-BA4B-00A0C93EC93B (EFI System), read "
				 "from its partition table", partno, disk);
			esp = true;
		}
	}
	close(fd);
	return esp;
}

/*
 * What in directory @dir marks a boot partition: EFI/, boot/grub/,
 * syslinux/, isolinux/, syslinux's ldlinux.sys or syslinux.cfg, a
 * Raspberry Pi's bootcode.bin, start*.elf, or config.txt with a *.dtb.
 */
static bool boot_files(const char *dir, char *why, size_t size)
{
	static const char *const dirs[] = { "EFI", "boot/grub", "syslinux", "isolinux" };
	char dtb[256] = "";
	bool config = false;
	struct dirent *d;
	struct stat st;
	unsigned int i;
	int fd;
	DIR *D;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!fstatat(fd, dirs[i], &st, 0) && S_ISDIR(st.st_mode)) {
			snprintf(why, size, "%s holds %s/", esc(dir), dirs[i]);
			close(fd);
			return true;
		}
	D = fdopendir(fd);
	if (!D) {
		close(fd);
		return false;
	}
	while ((d = readdir(D))) {
		if (!strcasecmp(d->d_name, "bootcode.bin") ||
		    !fnmatch("start*.elf", d->d_name, FNM_CASEFOLD)) {
			snprintf(why, size, "%s holds %s, a Raspberry Pi's firmware",
				 esc(dir), d->d_name);
			closedir(D);
			return true;
		}
		if (!strcasecmp(d->d_name, "ldlinux.sys") || !strcasecmp(d->d_name, "syslinux.cfg")) {
			snprintf(why, size, "%s holds %s, a syslinux boot loader's", esc(dir), d->d_name);
			closedir(D);
			return true;
		}
		config |= !strcasecmp(d->d_name, "config.txt");
		if (!fnmatch("*.dtb", d->d_name, FNM_CASEFOLD))
			snprintf(dtb, sizeof(dtb), "%s", d->d_name);
	}
	closedir(D);
	if (config && *dtb)
		snprintf(why, size, "%s holds config.txt and %s, a device tree", esc(dir), dtb);
	return config && *dtb;
}

/*
 * Whether the vfat fix would rename on is a boot or EFI System Partition:
 * its mount point, what its top (and the directory given) holds, udev's
 * ID_PART_ENTRY_TYPE, or the partition table.
 */
static bool boot_partition(struct ctx *c, char *why, size_t size)
{
	static const char *const points[] = { "/boot", "/boot/efi", "/efi", "/boot/firmware" };
	char p[64], line[512], *v;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (!strcmp(c->mnt.point, points[i])) {
			snprintf(why, size, "it is mounted on %s", points[i]);
			return true;
		}
	/* the top of the filesystem (not "/": the fake vfat of the host test) */
	if (boot_files(c->top, why, size) ||
	    (strcmp(c->mnt.point, "/") && boot_files(c->mnt.point, why, size)))
		return true;
	snprintf(p, sizeof(p), "/run/udev/data/b%u:%u", major(c->dev), minor(c->dev));
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "E:ID_PART_ENTRY_TYPE=", 21))
			continue;
		v = line + 21;
		v[strcspn(v, "\n")] = 0;
		if (!strcasecmp(v, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b") ||
		    !strcasecmp(v, "0xef")) {
			snprintf(why, size, "udev says its partition type is %.64s "
				 "(ID_PART_ENTRY_TYPE: EFI System)", v);
			fclose(f);
			return true;
		}
	}
	if (f)
		fclose(f);
	return esp_by_table(c->dev, why, size);
}

/* ------------------------------------------------------------- main -- */

static int open_top(struct ctx *c, const char *dir)
{
	struct statfs sfs;
	struct statvfs svfs;
	struct stat st;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		warnx("%s: %s", esc(dir), strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sfs) || fstat(fd, &st) || fstatvfs(fd, &svfs)) {
		warnx("%s: %s", esc(dir), strerror(errno));
		close(fd);
		return -1;
	}
	if (sfs.f_type != MSDOS_SUPER_MAGIC) {
		warnx("%s: not on a FAT filesystem (vfat)", esc(dir));
		close(fd);
		return -1;
	}
	c->top = dir;
	c->dev = st.st_dev;
	c->rdonly = svfs.f_flag & ST_RDONLY;
	mount_info(st.st_dev, &c->mnt);
	return fd;
}

/* ---------------------------------------------------------- supported -- */

/*
 * Which of @n symbols /proc/kallsyms names ("ADDR TYPE SYM[\t[MOD]]"):
 * bit i set for @syms[i].  -1 when it cannot be read or is empty
 * (CONFIG_KALLSYMS off).
 */
static int kallsyms_has(const char *const *syms, int n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], *p, *e;
	int found = 0, lines = 0, i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		lines++;
		p = strchr(line, ' ');
		p = p ? strchr(p + 1, ' ') : NULL;
		if (!p)
			continue;
		p++;
		e = p + strcspn(p, "\t\n");
		for (i = 0; i < n; i++)
			if ((size_t)(e - p) == strlen(syms[i]) && !strncmp(p, syms[i], e - p))
				found |= 1 << i;
	}
	fclose(f);
	return lines ? found : -1;
}

/* Why the DKMS package built nothing for this kernel: its nlc-prepare's line. */
static void dkms_why(void)
{
	char line[1024];
	FILE *p;

	fflush(stdout);
	p = popen("for f in /usr/src/vfat-nolongcreate-*/nlc-prepare; do [ -x \"$f\" ] && "
		  "exec \"$f\" --check \"$(uname -r)\"; done; "
		  "echo 'vfat-nolongcreate-dkms is not installed'", "r");
	if (!p)
		return;
	if (fgets(line, sizeof(line), p))
		printf("%s: %s%s", prog, line, strchr(line, '\n') ? "" : "\n");
	pclose(p);
}

/*
 * Whether a vfat mount of this kernel takes nolongcreate, without a
 * device.  Where vfat is loaded (or built in) and the kernel lists its
 * symbols, the series' exported helper fat_short_name_shown tells (the
 * DKMS modules export it too): a plain file read, which works where mount
 * system calls are filtered (systemd-udevd's unit allows no fsopen).
 * Otherwise fsopen("vfat") (which loads the module) and the flag given to
 * the context: a vfat on the new mount API (6.12 has it, 6.1 not) refuses
 * a key it does not know, an older one takes any key and parses at mount
 * time, so then the symbols are asked again.  Exit status 0: yes, 1: no,
 * 2: cannot tell.
 */
static int supported(void)
{
	static const char *const syms[] = { "fat_short_name_shown", "vfat_lookup" };
	int k = kallsyms_has(syms, 2), fd;
	bool yes;

	if (k >= 0 && (k & 2)) {
		yes = k & 1;
	} else {
		fd = syscall(SYS_fsopen, "vfat", FSOPEN_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV) {
				printf("%s: no vfat in this kernel\n", prog);
				return 1;
			}
			warnx("fsopen vfat: %s%s", strerror(errno),
			      errno == EPERM ? " (needs root, and mount system calls)" : "");
			return 2;
		}
		if (syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG, "nolongcreate", NULL, 0)) {
			yes = false;
		} else if (syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG,
				   "fat83-no-such-option", NULL, 0)) {
			yes = true;		/* vfat parsed the key: it knows it */
		} else {
			k = kallsyms_has(syms, 2);
			if (k < 0) {
				close(fd);
				warnx("vfat takes any option before the mount and "
				      "/proc/kallsyms cannot tell");
				return 2;
			}
			yes = k & 1;
		}
		close(fd);
	}
	printf("%s: this kernel's vfat %s nolongcreate\n", prog, yes ? "takes" : "lacks");
	if (!yes)
		dkms_why();
	return yes ? 0 : 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: fat83 check [--case] DIR\n"
"       fat83 fix [--dry-run] [--force] [--map FILE] [--journal FILE] DIR\n"
"       fat83 undo [--journal FILE] DIR\n"
"       fat83 name [--in DIR] NAME...\n"
"       fat83 put [--dry-run] [--replace] FILE... DIR\n"
"       fat83 supported\n"
"\n"
"Names on a vfat volume that readers of 8.3 names only (printer firmware,\n"
"embedded FAT libraries, DOS) see under another name, e.g. BENCHY~1.GCO for\n"
"\"Benchy Final.gcode\".\n"
"\n"
"  check DIR     list every entry below DIR with a long name those readers do\n"
"                not see, and the 8.3 name they see; --case also the names\n"
"                they see in another case (readme.txt is README.TXT to them);\n"
"                also 8.3 names with '^' or non-ASCII, which some firmware\n"
"                cannot open, and what a put cut short left (F83Pnnnn.TMP).\n"
"                Exit status 0: none, 1: some, 2: error.\n"
"  fix DIR       rename each such entry to an 8.3 name made from its long\n"
"                name (BENCHYFI.GCO; BENCHYF1.GCO... when taken), one\n"
"                rename each that never replaces a name; prints old -> new.\n"
"                --dry-run: print, rename nothing.  --map FILE: lines\n"
"                \"old<TAB>new\", old a path below DIR as check prints it, new\n"
"                an 8.3 name: these renames instead of suggested ones (a bad\n"
"                line: nothing is renamed).  Each rename is written and\n"
"                fsync'd to DIR/FAT83UND.LOG before it is made (--journal\n"
"                FILE: there instead).  Left alone: dot-names, hidden and\n"
"                system entries, System Volume Information, long names over\n"
"                255 bytes.  A boot partition (EFI System, /boot, a Pi's\n"
"                firmware, GRUB's) is refused unless --force.  On a\n"
"                read-only mount: the plan only.\n"
"                Exit status 0: all done, 1: some not, 2: error.\n"
"  undo DIR      rename back what fix renamed, from its journal, the last\n"
"                first, never over an existing name (a conflict is said and\n"
"                kept in the journal; the journal goes when all is undone).\n"
"                Needs a mount that takes long names (not nolongcreate).\n"
"                Exit status 0: all undone, 1: conflicts, 2: error.\n"
"  name NAME...  print the 8.3 name fix would give each NAME; --in DIR: one\n"
"                not taken in DIR.\n"
"  put FILE... DIR  copy each FILE into DIR under the 8.3 name fix would give\n"
"                it (CUBE1.GCO keeps its name; \"Benchy Final.gcode\" is\n"
"                BENCHYFI.GCO), never over an existing file (the next free\n"
"                name: BENCHYF1.GCO), for a file a program cannot write to a\n"
"                nolongcreate mount itself (a slicer's export); prints\n"
"                FILE -> DIR/NAME.  Each file is written to a scratch name\n"
"                F83Pnnnn.TMP in DIR and fsync'd, then renamed to its name:\n"
"                a card pulled mid-copy leaves no file cut short under its\n"
"                name (at most an F83Pnnnn.TMP, which check and put point\n"
"                out); on any error the files made are removed.\n"
"                --replace: when that name (CUBE1.GCO) is a file in DIR,\n"
"                replace it (one rename), never a directory.\n"
"                --dry-run: print, copy nothing.  Exit\n"
"                status 0: copied, 1: copied, but the mount gave one a long\n"
"                name, 2: error, nothing copied.\n"
"  supported     whether the running kernel's vfat takes the nolongcreate\n"
"                mount option (needs root).  Exit status 0: yes, 1: no,\n"
"                2: cannot tell.\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "case", no_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "map", required_argument, NULL, 'm' },
		{ "in", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "journal", required_argument, NULL, 'j' },
		{ "replace", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { 0 };
	const char *sub, *mapfile = NULL, *in = NULL;
	int o, fd, i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "--version")) {
		printf("fat83 %s\n", FAT83_VERSION);
		return 0;
	}
	if (!strcmp(sub, "supported")) {
		if (argc != 2) {
			usage(stderr);
			return 2;
		}
		return supported();
	}
	if (strcmp(sub, "check") && strcmp(sub, "fix") && strcmp(sub, "name") &&
	    strcmp(sub, "undo") && strcmp(sub, "put")) {
		warnx("unknown command '%s'", sub);
		usage(stderr);
		return 2;
	}
	argv++;
	argc--;
	while ((o = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (o) {
		case 'c': c.show_case = true; break;
		case 'n': c.dry_run = true; break;
		case 'm': mapfile = optarg; break;
		case 'i': in = optarg; break;
		case 'f': c.force = true; break;
		case 'j': c.journal = optarg; break;
		case 'r': c.replace = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((c.show_case && strcmp(sub, "check")) ||
	    (c.dry_run && strcmp(sub, "fix") && strcmp(sub, "put")) ||
	    (mapfile && strcmp(sub, "fix")) ||
	    (in && strcmp(sub, "name")) || (c.force && strcmp(sub, "fix")) ||
	    (c.replace && strcmp(sub, "put")) ||
	    (c.journal && strcmp(sub, "fix") && strcmp(sub, "undo"))) {
		warnx("%s: option not for this command", sub);
		return 2;
	}

	if (!strcmp(sub, "name")) {
		struct dirlist dl = { 0 };
		struct taken t = { .dl = &dl };
		char out[FAT83_NAME_SIZE];
		int rc = 0;

		if (optind >= argc) {
			usage(stderr);
			return 2;
		}
		if (in) {
			fd = open_top(&c, in);
			if (fd < 0)
				return 2;
			o = read_dir(fd, &dl);
			close(fd);
			if (o) {
				warnx("%s: %s", in, strerror(-o));
				return 2;
			}
		}
		for (i = optind; i < argc; i++) {
			if (fat83_suggest(argv[i], is_taken, &t, out) < 0) {
				warnx("%s: no free 8.3 name", argv[i]);
				rc = 2;
				continue;
			}
			add_extra(&t, out);
			printf("%s\n", out);
		}
		free_extra(&t);
		free_dirlist(&dl);
		return rc;
	}

	if (!strcmp(sub, "put")) {
		if (argc - optind < 2) {
			usage(stderr);
			return 2;
		}
		fd = open_top(&c, argv[argc - 1]);
		if (fd < 0)
			return 2;
		o = run_put(&c, fd, argv + optind, argc - 1 - optind);
		close(fd);
		return o;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c.cmd = !strcmp(sub, "check") ? CHECK : !strcmp(sub, "fix") ? FIX : UNDO;
	c.jfd = c.jdir = -1;
	if (mapfile && read_map(&c, mapfile))
		return 2;
	fd = open_top(&c, argv[optind]);
	if (fd < 0)
		return 2;
	if (c.cmd != CHECK && journal_at(&c, fd)) {
		close(fd);
		return 2;
	}
	if (c.cmd == UNDO) {
		if (c.rdonly) {
			warnx("%s is mounted read-only: nothing can be renamed back "
			      "(sudo mount -o remount,rw %s)", esc(c.top), shw(c.mnt.point));
			close(fd);
			return 2;
		}
		if (c.mnt.nolongcreate) {
			warnx("%s is mounted with nolongcreate, which refuses the old long "
			      "names: mount it with longcreate first (sudo mount -o "
			      "remount,longcreate %s), then fat83 undo", esc(c.top),
			      shw(c.mnt.point));
			close(fd);
			return 2;
		}
		o = run_undo(&c, fd);
		close(fd);
		return o;
	}
	if (c.cmd == FIX) {
		char why[512];

		if (boot_partition(&c, why, sizeof(why))) {
			if (!c.force) {
				warnx("%s: refused: a boot or EFI System Partition (%s); its "
				      "names are the firmware's and the boot loader's: "
				      "fat83 fix --force renames there all the same", esc(c.top),
				      why);
				close(fd);
				return 2;
			}
			warnx("%s: a boot or EFI System Partition (%s): --force, so "
			      "renaming all the same", esc(c.top), why);
		}
		printf("%s: %s: vfat, shortname=%s%s: new names in %s case\n", prog,
		       esc(c.top), c.mnt.shortname, c.mnt.nolongcreate ? ", nolongcreate" : "",
		       c.mnt.lower ? "lower" : "upper");
		if (c.rdonly)
			printf("%s: %s is mounted read-only: nothing will be renamed; the plan "
			       "follows (sudo mount -o remount,rw %s, then fat83 fix again)\n",
			       prog, esc(c.top), shw(c.mnt.point));
	}
	walk(&c, fd, "", 0);
	if (c.cmd == CHECK) {
		close(fd);
		if (c.errors)
			return 2;
		if (!c.nlong && !c.ncase && !c.noverlong && !c.nodd && !c.nput) {
			printf("%s: %s: every name is an 8.3 name%s\n", prog, esc(c.top),
			       c.show_case ? " in the case 8.3 readers see" : "");
			return 0;
		}
		printf("%s: %s: %lu long name(s) 8.3 readers do not see", prog, esc(c.top),
		       c.nlong + c.noverlong);
		if (c.show_case)
			printf(", %lu name(s) they see in another case", c.ncase);
		printf(", %lu 8.3 name(s) some firmware cannot open, %lu file(s) left by a "
		       "put stopped short\n", c.nodd, c.nput);
		return 1;
	}
	for (size_t k = 0; k < c.nmap; k++)
		if (!c.map[k].used) {
			warnx("%s:%u: %s: no such entry below %s", mapfile, c.map[k].line,
			      esc(c.map[k].old), esc(c.top));
			c.map_errors++;
		}
	if (c.map_errors) {
		warnx("%lu error(s) in the map: nothing renamed", c.map_errors);
		close(fd);
		return 2;
	}
	if (c.errors) {
		warnx("%lu error(s) reading %s: nothing renamed", c.errors, esc(c.top));
		close(fd);
		return 2;
	}
	o = run_fix(&c, fd);
	close(fd);
	return o;
}
