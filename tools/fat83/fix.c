// SPDX-License-Identifier: GPL-2.0
/*
 * fix.c - fat83 fix and undo: the owner's map, the plan of a directory's
 * renames, the renames (each recorded in journal.c's journal first), the
 * read-back, and undo's renames back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat83.h"

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
int read_map(struct ctx *c, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	char *line = NULL, *tab;
	size_t cap = 0, i;
	ssize_t len;
	unsigned int no = 0;
	int bad = 0;

	if (!f) {
		warnf("%s: %s", file, strerror(errno));
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
			warnf("%s:%u: not \"old<TAB>new\" (exactly one tab): %s", file, no, line);
			bad++;
			continue;
		}
		*tab = 0;
		if (bad_path(line)) {
			warnf("%s:%u: \"%s\" is no path relative to the directory", file, no, line);
			bad++;
			continue;
		}
		if (!fat83_is_83(tab + 1)) {
			warnf("%s:%u: \"%s\" is no 8.3 name (1-8 characters, a dot and 0-3, of "
			      "A-Z 0-9 ! # $ %% & ' ( ) - @ _ ` { })", file, no, tab + 1);
			bad++;
			continue;
		}
		if (fat83_is_device(tab + 1)) {
			warnf("%s:%u: \"%s\" is a DOS device name", file, no, tab + 1);
			bad++;
			continue;
		}
		for (i = 0; i < c->nmap; i++)
			if (!strcmp(c->map[i].old, line))
				break;
		if (i < c->nmap) {
			warnf("%s:%u: \"%s\" is already mapped on line %u", file, no, line,
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
		warnf("%s: %s", file, strerror(errno));
		bad++;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return bad ? -1 : 0;
}

/* ----------------------------------------------------------- the plan -- */

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
void plan_dir(struct ctx *c, const char *rel, const struct dirlist *dl)
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
				warnf("map line %u: %s: %s is taken in its directory",
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
			warnf("%s/%s: no free 8.3 name", esc(rel), esc(dl->e[i].name));
			c->errors++;
			continue;
		}
		add_extra(&t, out);
		add_item(c, rel, &dl->e[i], out, false);
	}
	free_extra(&t);
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
			warnf("%s: the mount refused %s (%s); trying %s", esc(it->old),
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
				warnf("%s: no free 8.3 name", esc(it->old));
				goto fail;
			}
			if (lower)
				to_lower(out);
		} else {
			warnf("%s%s%s -> %s: %s", esc(it->dir), *it->dir ? "/" : "",
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
		warnf("new names in %s case from now on", lower ? "lower" : "upper");
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
		warnf("%s/%s: cannot read it back", esc(c->top), esc(c->items[from].dir));
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
			warnf("%s/%s: not found after the rename", esc(c->top), c->items[i].new);
			bad++;
		} else if (dl.e[j].has_long) {
			warnf("%s/%s: the mount gave it a long name (%s) besides %s",
			      esc(c->top), c->items[i].new, esc(dl.e[j].name), dl.e[j].alias);
			bad++;
		}
	}
	free_dirlist(&dl);
	close(dfd);
	return bad;
}

int run_fix(struct ctx *c, int top)
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
				warnf("%s/%s: %s", esc(c->top), esc(c->items[from].dir),
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
				warnf("%s/%s: syncfs: %s", esc(c->top), esc(c->items[from].dir),
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

/*
 * Undo: the journal's renames back, the directories in the reverse order of
 * the fix (a directory's own rename was made after its entries'), each
 * directory's renames in their order (then vfat gives the old long names the
 * same ~N aliases as before, where nothing else took them); each NOREPLACE,
 * so a name that came back meanwhile is never replaced: reported, and left
 * in the journal.
 */
int run_undo(struct ctx *c, int top)
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
				warnf("%s/%s: %s: %s left in the journal", esc(c->top),
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
					warnf("conflict: %s and %s both exist: neither renamed "
					      "(left in the journal)", esc(path), esc(pnew));
				else if (err == ENOENT)
					warnf("conflict: neither %s nor %s is there (left in the "
					      "journal)", esc(pnew), esc(path));
				else
					warnf("%s -> %s: %s (left in the journal)", esc(pnew),
					      esc(path), strerror(err));
				r[j].state = U_KEEP;
				kept++;
			}
			free(path);
			free(pnew);
		}
		if (syncfs(dfd))
			warnf("%s/%s: syncfs: %s", esc(c->top), esc(r[from].dir), strerror(errno));
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
	for (i = 0; i < n; i++)
		free_rec(&r[i]);
	free(r);
	return err ? 2 : kept ? 1 : 0;
}

