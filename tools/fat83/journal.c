// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c - fat83's undo journal: written line by line before each of
 * fix's renames, read back and rewritten by undo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fat83.h"

/* the journal's copy while undo rewrites it: the first free of FAT83U00.TMP... */
#define JOURNAL_TMP "FAT83U%02u.TMP"

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
int journal_at(struct ctx *c, int top)
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
		warnf("%s: %s", esc(dir), strerror(errno));
		return -1;
	}
	return 0;
}

const char *journal_path(struct ctx *c)
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
		warnf("%s: cannot write the undo journal: %s: nothing renamed",
		      esc(journal_path(c)), strerror(errno));
		return -1;
	}
	if (st.st_size > 0 && (cut_unfinished(c->jfd, st.st_size) || fstat(c->jfd, &st)))
		goto fail;
	n = 0;
	if (!st.st_size)
		n = snprintf(head, sizeof(head),
			"# fat83 undo journal: the renames of fat83 fix, each written here\n"
			"# before it is made; \"fat83 undo DIR\" puts them back, the last first.\n"
			"# R: about to rename DIR/OLD to NEW (ALIAS: OLD's 8.3 name); F: that\n"
			"# rename failed.  R|F<TAB>DIR<TAB>OLD<TAB>NEW<TAB>ALIAS, escaped as ls -b.\n");
	strftime(head + n, sizeof(head) - n, "# fix %Y-%m-%dT%H:%M:%SZ\n", gmtime(&now));
	if (write(c->jfd, head, strlen(head)) != (ssize_t)strlen(head) || fsync(c->jfd))
		goto fail;
	printf("%s: each rename is recorded first in %s (fat83 undo%s%s %s puts them back)\n",
	       prog, esc(journal_path(c)), c->journal ? " --journal " : "",
	       c->journal ? esc(c->journal) : "", esc(c->top));
	return 0;
fail:
	warnf("%s: %s: nothing renamed", esc(journal_path(c)), strerror(errno));
	close(c->jfd);
	c->jfd = -1;
	return -1;
}

/* One line, written and fsync'd; -1 (said) when it could not be. */
int journal_add(struct ctx *c, char kind, const struct item *it)
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
		warnf("%s: %s: %s not renamed", esc(journal_path(c)), strerror(errno),
		      esc(it->old));
	free(line);
	return ok ? 0 : -1;
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

void free_rec(struct rec *r)
{
	free(r->dir);
	free(r->old);
	free(r->new);
	free(r->alias);
}

/* The R lines of the journal whose renames were made (an F line right
 * after its R: not made).  -1 on a line that is no journal line.
 */
int read_journal(struct ctx *c, struct rec **out, size_t *nout)
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
			warnf("%s: no undo journal: nothing to undo (fat83 fix writes it)",
			      esc(journal_path(c)));
		else
			warnf("%s: %s", esc(journal_path(c)), strerror(errno));
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
			warnf("%s:%u: not a journal line", esc(journal_path(c)), no);
			bad++;
			continue;
		}
		x.kind = f[0][0];
		if (x.kind == 'F') {
			if (n && !strcmp(r[n - 1].dir, f[1]) && !strcmp(r[n - 1].old, f[2]) &&
			    !strcmp(r[n - 1].new, f[3])) {
				free_rec(&r[--n]);
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
int rewrite_journal(struct ctx *c, struct rec *r, size_t n)
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
			warnf("%s: %s", esc(journal_path(c)), strerror(errno));
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
		warnf("%s: %s", tmp, strerror(errno));
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
		warnf("%s: %s", esc(journal_path(c)), strerror(errno));
		unlinkat(c->jdir, tmp, 0);
		return -1;
	}
	return 0;
}

