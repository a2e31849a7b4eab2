// SPDX-License-Identifier: GPL-2.0
/*
 * fat83 - find and fix the names on a vfat volume that a reader of 8.3
 * names only (printer firmware, embedded FAT libraries, DOS) sees under
 * another name than its owner: a long name it sees as BENCHY~1.GCO.
 *
 *   fat83 check [--case] DIR       list them; exit 0 none, 1 some, 2 error
 *   fat83 fix [--dry-run] [--map FILE] DIR
 *                                  rename each to an 8.3 name of its own
 *   fat83 name [--in DIR] NAME...  print the 8.3 name fix would give NAME
 *   fat83 supported                exit 0 if the running kernel's vfat
 *                                  takes nolongcreate (root: fsopen)
 *
 * Every name comes from the kernel's VFAT_IOCTL_READDIR_BOTH on each
 * directory's fd (the name the owner sees and the 8.3 alias); renames are
 * renameat2(RENAME_NOREPLACE), one atomic rename per entry.  The 8.3 names
 * are made by suggest.c.  See README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

#define FAT83_VERSION "1"
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

/* ------------------------------------------------ a directory's names -- */

struct ent {
	char *name;	/* what the owner sees: the long name, else the 8.3 one */
	char *alias;	/* the 8.3 name as this mount shows it */
	bool has_long;
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
	char line[4096], fstype[64], opts[1024];
	unsigned int maj, min;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	const char *force;
	char *sep;

	memset(m, 0, sizeof(*m));
	strcpy(m->shortname, "?");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %u:%u", &maj, &min) != 2 ||
		    maj != major(dev) || min != minor(dev))
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (strcmp(fstype, "vfat"))
			continue;
		snprintf(m->opts, sizeof(m->opts), "%s", opts);
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
	bool mapped;
	bool done;
};

enum cmd { CHECK, FIX };

struct ctx {
	enum cmd cmd;
	bool dry_run, show_case;
	const char *top;
	dev_t dev;
	struct mount mnt;
	struct mapent *map;
	size_t nmap;
	struct item *items;
	size_t nitems;
	unsigned long nlong, ncase, errors, map_errors, skipped_case;
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

static void add_item(struct ctx *c, const char *dir, const char *old,
		     const char *new, bool mapped)
{
	struct item *it;

	c->items = xrealloc(c->items, (c->nitems + 1) * sizeof(*c->items));
	it = &c->items[c->nitems++];
	it->dir = xstrdup(dir);
	it->old = xstrdup(old);
	it->new = xstrdup(new);
	if (c->mnt.lower)
		to_lower(it->new);
	else
		to_upper(it->new);
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

	for (i = 0; i < dl->n; i++) {
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
				add_item(c, rel, dl->e[i].name, m->new, true);
			}
		}
		free(path);
	}
	for (i = 0; i < dl->n; i++) {
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
			warnx("%s/%s: no free 8.3 name", rel, dl->e[i].name);
			c->errors++;
			continue;
		}
		add_extra(&t, out);
		add_item(c, rel, dl->e[i].name, out, false);
	}
	free_extra(&t);
}

static void report_dir(struct ctx *c, const char *rel, const struct dirlist *dl)
{
	char reader[256];
	enum kind k;
	size_t i;
	char *path;

	for (i = 0; i < dl->n; i++) {
		k = classify(&dl->e[i], reader);
		if (k == K_OK || (k == K_CASE && !c->show_case))
			continue;
		path = join(rel, dl->e[i].name);
		if (k == K_LONG) {
			printf("%s: 8.3 readers see %s\n", path, reader);
			c->nlong++;
		} else {
			printf("%s: 8.3 readers see %s (other case)\n", path, reader);
			c->ncase++;
		}
		free(path);
	}
}

static void walk(struct ctx *c, int dfd, const char *rel, int depth)
{
	struct dirlist dl;
	struct stat st;
	size_t i;
	int r, sub;
	char *path;

	r = read_dir(dfd, &dl);
	if (r) {
		warnx("%s/%s: cannot read the directory: %s", c->top, rel, strerror(-r));
		c->errors++;
		return;
	}
	if (c->cmd == CHECK)
		report_dir(c, rel, &dl);
	for (i = 0; i < dl.n; i++) {
		if (fstatat(dfd, dl.e[i].name, &st, AT_SYMLINK_NOFOLLOW)) {
			warnx("%s/%s/%s: %s", c->top, rel, dl.e[i].name, strerror(errno));
			c->errors++;
			continue;
		}
		if (!S_ISDIR(st.st_mode) || st.st_dev != c->dev)
			continue;
		path = join(rel, dl.e[i].name);
		if (depth >= MAX_DEPTH) {
			warnx("%s/%s: deeper than %d directories", c->top, path, MAX_DEPTH);
			c->errors++;
		} else if ((sub = openat(dfd, dl.e[i].name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			warnx("%s/%s: %s", c->top, path, strerror(errno));
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
			      "A-Z 0-9 ! # $ %% & ' ( ) - @ ^ _ ` { })", file, no, tab + 1);
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

/* -------------------------------------------------------- the renames -- */

static int open_rel(int top, const char *rel)
{
	return openat(top, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* One rename, NOREPLACE; on EEXIST (a name that came since the walk) the
 * next candidate; on a refusal of the case the mount shows, the other case.
 */
static int do_rename(struct ctx *c, int dfd, struct item *it)
{
	char out[FAT83_NAME_SIZE];
	struct taken t = { 0 };
	struct dirlist dl;
	bool lower = c->mnt.lower, case_tried = false;
	int err;

	/* the case of the plan, or the one an earlier rename found taken */
	if (lower)
		to_lower(it->new);
	else
		to_upper(it->new);
	while (renameat2(dfd, it->old, dfd, it->new, RENAME_NOREPLACE)) {
		err = errno;
		if ((err == ENAMETOOLONG || err == EINVAL) && !case_tried) {
			/* the mount shows the other case as typed */
			snprintf(out, sizeof(out), "%s", it->new);
			lower = !lower;
			if (lower)
				to_lower(out);
			else
				to_upper(out);
			warnx("%s: the mount refused %s (%s); trying %s", it->old,
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
				warnx("%s: no free 8.3 name", it->old);
				goto fail;
			}
			if (lower)
				to_lower(out);
		} else {
			warnx("%s%s%s -> %s: %s", it->dir, *it->dir ? "/" : "", it->old,
			      it->new, strerror(err));
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
		warnx("%s/%s: cannot read it back", c->top, c->items[from].dir);
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
			warnx("%s/%s: not found after the rename", c->top, c->items[i].new);
			bad++;
		} else if (dl.e[j].has_long) {
			warnx("%s/%s: the mount gave it a long name (%s) besides %s",
			      c->top, c->items[i].new, dl.e[j].name, dl.e[j].alias);
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
	size_t i, from;
	int dfd = -1;

	for (from = 0; from < c->nitems; from = i) {
		for (i = from; i < c->nitems && !strcmp(c->items[i].dir, c->items[from].dir); i++)
			;
		if (!c->dry_run) {
			dfd = open_rel(top, c->items[from].dir);
			if (dfd < 0) {
				warnx("%s/%s: %s", c->top, c->items[from].dir, strerror(errno));
				failed += i - from;
				continue;
			}
		}
		for (size_t j = from; j < i; j++) {
			struct item *it = &c->items[j];
			const char *sl = *it->dir ? "/" : "";

			if (!c->dry_run && do_rename(c, dfd, it)) {
				failed++;
				continue;
			}
			printf("%s%s%s -> %s%s%s%s\n", it->dir, sl, it->old, it->dir, sl,
			       it->new, it->mapped ? "  (map)" : "");
			fflush(stdout);
			done++;
		}
		if (!c->dry_run) {
			close(dfd);
			bad += verify_dir(c, top, from, i);
		}
	}
	if (c->dry_run)
		printf("%s: dry run: %lu rename(s) planned under %s, nothing changed\n",
		       prog, done, c->top);
	else
		printf("%s: %lu renamed, %lu failed, %lu still with a long name under %s\n",
		       prog, done, failed, bad, c->top);
	if (c->skipped_case)
		printf("%s: %lu name(s) 8.3 readers see in another case left as they are "
		       "(fat83 check --case lists them)\n", prog, c->skipped_case);
	return failed || bad ? 1 : 0;
}

/* ------------------------------------------------------------- main -- */

static int open_top(struct ctx *c, const char *dir)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		warnx("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sfs) || fstat(fd, &st)) {
		warnx("%s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (sfs.f_type != MSDOS_SUPER_MAGIC) {
		warnx("%s: not on a FAT filesystem (vfat)", dir);
		close(fd);
		return -1;
	}
	c->top = dir;
	c->dev = st.st_dev;
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
	return yes ? 0 : 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: fat83 check [--case] DIR\n"
"       fat83 fix [--dry-run] [--map FILE] DIR\n"
"       fat83 name [--in DIR] NAME...\n"
"       fat83 supported\n"
"\n"
"Names on a vfat volume that readers of 8.3 names only (printer firmware,\n"
"embedded FAT libraries, DOS) see under another name, e.g. BENCHY~1.GCO for\n"
"\"Benchy Final.gcode\".\n"
"\n"
"  check DIR     list every entry below DIR with a long name those readers do\n"
"                not see, and the 8.3 name they see; --case also the names\n"
"                they see in another case (readme.txt is README.TXT to them).\n"
"                Exit status 0: none, 1: some, 2: error.\n"
"  fix DIR       rename each such entry to an 8.3 name made from its long\n"
"                name (BENCHYFI.GCO; BENCHYF1.GCO... when taken), one atomic\n"
"                rename each that never replaces a name; prints old -> new.\n"
"                --dry-run: print, rename nothing.  --map FILE: lines\n"
"                \"old<TAB>new\", old a path below DIR as check prints it, new\n"
"                an 8.3 name: these renames instead of suggested ones (a bad\n"
"                line: nothing is renamed).  Exit status 0: all done,\n"
"                1: some not, 2: error.\n"
"  name NAME...  print the 8.3 name fix would give each NAME; --in DIR: one\n"
"                not taken in DIR.\n"
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
	if (strcmp(sub, "check") && strcmp(sub, "fix") && strcmp(sub, "name")) {
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
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((c.show_case && strcmp(sub, "check")) ||
	    ((c.dry_run || mapfile) && strcmp(sub, "fix")) ||
	    (in && strcmp(sub, "name"))) {
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
			puts(out);
		}
		free_extra(&t);
		free_dirlist(&dl);
		return rc;
	}

	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c.cmd = strcmp(sub, "check") ? FIX : CHECK;
	if (mapfile && read_map(&c, mapfile))
		return 2;
	fd = open_top(&c, argv[optind]);
	if (fd < 0)
		return 2;
	if (c.cmd == FIX)
		printf("%s: %s: vfat, shortname=%s%s: new names in %s case\n", prog,
		       c.top, c.mnt.shortname, c.mnt.nolongcreate ? ", nolongcreate" : "",
		       c.mnt.lower ? "lower" : "upper");
	walk(&c, fd, "", 0);
	if (c.cmd == CHECK) {
		close(fd);
		if (c.errors)
			return 2;
		if (!c.nlong && !c.ncase) {
			printf("%s: %s: every name is an 8.3 name%s\n", prog, c.top,
			       c.show_case ? " in the case 8.3 readers see" : "");
			return 0;
		}
		printf("%s: %s: %lu long name(s) 8.3 readers do not see", prog, c.top, c.nlong);
		if (c.show_case)
			printf(", %lu name(s) they see in another case", c.ncase);
		printf("\n");
		return 1;
	}
	for (size_t k = 0; k < c.nmap; k++)
		if (!c.map[k].used) {
			warnx("%s:%u: %s: no such entry below %s", mapfile, c.map[k].line,
			      c.map[k].old, c.top);
			c.map_errors++;
		}
	if (c.map_errors) {
		warnx("%lu error(s) in the map: nothing renamed", c.map_errors);
		close(fd);
		return 2;
	}
	if (c.errors) {
		warnx("%lu error(s) reading %s: nothing renamed", c.errors, c.top);
		close(fd);
		return 2;
	}
	o = run_fix(&c, fd);
	close(fd);
	return o;
}
