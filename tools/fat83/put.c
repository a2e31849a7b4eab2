// SPDX-License-Identifier: GPL-2.0
/*
 * put.c - fat83 put: files copied onto the card under the 8.3 names fix
 * would give them, each through a scratch F83Pnnnn.TMP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat83.h"

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
unsigned long put_leftovers(const char *prefix, const struct dirlist *dl)
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
	warnf("%s: the mount refused %s (%s); trying it in %s case",
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
			warnf("%s/%s: %s", esc(c->top), p->tmp, strerror(err));
			return -1;
		}
	}
	warnf("%s: no free scratch name (F83P0000.TMP to F83P9999.TMP) in %s",
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
			warnf("%s/%s -> %s: %s", esc(c->top), p->tmp, p->name, strerror(errno));
			return -1;
		}
		set_case(p->name, *lower);
		if (!renameat2(dfd, p->tmp, dfd, p->name, RENAME_NOREPLACE))
			break;
		err = errno;
		if (err == ENOSYS || err == EINVAL) {
			/* not the name: the mount took the scratch name so typed */
			warnf("%s/%s -> %s: renameat2 with RENAME_NOREPLACE: %s: this kernel "
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
				warnf("%s: no free 8.3 name in %s", esc(p->src), esc(c->top));
				return -1;
			}
			add_extra(t, p->name);
		} else {
			warnf("%s/%s -> %s: %s", esc(c->top), p->tmp, p->name, strerror(err));
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
			warnf("%s and %s would both replace %s/%s", esc(p[j].src),
			      esc(p[i].src), esc(c->top), esc(e->name));
			return -1;
		}
	if (!fat83_eq_nocase(e->name, want)) {
		warnf("%s/%s: the 8.3 name of %s, not replaced (--replace replaces a "
		      "file of that name only)", esc(c->top), e->alias, esc(e->name));
		return -1;
	}
	if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW)) {
		warnf("%s/%s: %s", esc(c->top), esc(e->name), strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		warnf("%s/%s: %s, not replaced (--replace replaces a regular file only)",
		      esc(c->top), esc(e->name),
		      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		return -1;
	}
	snprintf(p[i].name, sizeof(p[i].name), "%s", e->name);
	p[i].replace = true;
	return 0;
}

int run_put(struct ctx *c, int dfd, char **srcs, int nsrc)
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
		warnf("%s: cannot read the directory: %s", esc(c->top), strerror(-r));
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
			warnf("%s: %s", esc(srcs[i]), strerror(errno));
			failed = true;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			warnf("%s: not a regular file", esc(srcs[i]));
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
			warnf("%s: no free 8.3 name in %s", esc(srcs[i]), esc(c->top));
			failed = true;
			continue;
		}
		add_extra(&t, p[i].name);
		if (lower)
			to_lower(p[i].name);
	}
	if (failed) {
		warnf("nothing copied to %s", esc(c->top));
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
			warnf("%s: %s", esc(p[i].src), strerror(errno));
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
			warnf("%s: stopped (a signal: Ctrl-C, a closed terminal, a logout); nothing is left on the card",
			      esc(p[i].src));
			failed = true;
		} else if (r) {
			warnf("%s: %s (writing it to %s/%s)", esc(p[i].src), strerror(-r),
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
					warnf("%s/%s: cannot remove it: %s", esc(c->top), p[j].tmp,
					      strerror(errno));
				else
					warnf("%s/%s: removed (the copy of %s)", esc(c->top),
					      p[j].tmp, esc(p[j].src));
			} else if (p[j].placed && !p[j].replace) {
				if (unlinkat(dfd, p[j].name, 0))
					warnf("%s/%s: cannot remove it: %s", esc(c->top),
					      esc(p[j].name), strerror(errno));
				else
					warnf("%s/%s: removed", esc(c->top), esc(p[j].name));
			} else if (p[j].placed) {
				warnf("%s/%s: already replaced by %s", esc(c->top),
				      esc(p[j].name), esc(p[j].src));
				kept++;
			}
		}
		syncfs(dfd);
		if (kept)
			warnf("nothing else copied to %s", esc(c->top));
		else
			warnf("nothing copied to %s", esc(c->top));
		goto out;
	}
	if (syncfs(dfd))
		warnf("%s: syncfs: %s", esc(c->top), strerror(errno));
	/* read back: each new name an 8.3 entry without a long name */
	free_dirlist(&dl);
	if (read_dir(dfd, &dl)) {
		warnf("%s: cannot read it back", esc(c->top));
		bad = nsrc;
	}
	for (i = 0; i < nsrc && !bad; i++) {
		for (k = 0; k < dl.n; k++)
			if (fat83_eq_nocase(dl.e[k].alias, p[i].name))
				break;
		if (k == dl.n) {
			warnf("%s/%s: not found after the copy", esc(c->top), esc(p[i].name));
			bad++;
		} else if (dl.e[k].has_long && p[i].replace) {
			/* vfat's rename over a file reuses its entry, long name too */
			if (strcmp(dl.e[k].name, dl.e[k].alias))
				printf("%s/%s: the file replaced had the long name %s, the same name in another case, which the new one keeps (readers of 8.3 names see %s)\n",
				       esc(c->top), dl.e[k].alias, esc(dl.e[k].name), dl.e[k].alias);
		} else if (dl.e[k].has_long) {
			warnf("%s/%s: the mount gave it a long name (%s) besides %s",
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
