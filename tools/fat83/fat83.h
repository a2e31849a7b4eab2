/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fat83.h - what crosses fat83's files: fat83.c (main, helpers,
 * supported), walk.c (the mount table, a directory's names, the walk,
 * check's report), fix.c (the map, fix and undo), journal.c (the undo
 * journal), put.c (put), boot.c (the boot-partition guard).  The 8.3
 * names are suggest.h's.
 */
#ifndef FAT83_H
#define FAT83_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "suggest.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* The undo journal's name at the top of the fixed tree (an 8.3 name) */
#define JOURNAL_NAME "FAT83UND.LOG"

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

enum kind { K_OK, K_LONG, K_CASE };

struct mount {
	char point[1024];	/* the mount point (mountinfo's \040 etc. undone) */
	char opts[1024];	/* the superblock options of mountinfo */
	bool nolongcreate;
	char shortname[16];
	bool lower;		/* new names typed in lower case */
};

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

/* A journal line of a rename made, as undo reads it */
struct rec {
	char kind;
	char *dir, *old, *new, *alias;
	unsigned int line;
	enum { U_TODO, U_DONE, U_ALREADY, U_KEEP } state;
};

/* fat83.c */
extern const char *prog;
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *join(const char *dir, const char *name);
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void to_upper(char *s);
void to_lower(char *s);
void set_case(char *s, bool lower);
const char *esc(const char *s);
const char *shw(const char *s);

/* walk.c */
void free_dirlist(struct dirlist *dl);
int read_dir(int fd, struct dirlist *dl);
enum kind classify(const struct ent *e, char reader[256]);
bool is_taken(const char *cand, void *arg);
void add_extra(struct taken *t, const char *name);
void free_extra(struct taken *t);
int open_top(struct ctx *c, const char *dir);
void walk(struct ctx *c, int dfd, const char *rel, int depth);

/* fix.c */
int read_map(struct ctx *c, const char *file);
void plan_dir(struct ctx *c, const char *rel, const struct dirlist *dl);
int run_fix(struct ctx *c, int top);
int run_undo(struct ctx *c, int top);

/* journal.c */
int journal_at(struct ctx *c, int top);
const char *journal_path(struct ctx *c);
int journal_add(struct ctx *c, char kind, const struct item *it);
int read_journal(struct ctx *c, struct rec **out, size_t *nout);
int rewrite_journal(struct ctx *c, struct rec *r, size_t n);
void free_rec(struct rec *r);

/* put.c */
unsigned long put_leftovers(const char *prefix, const struct dirlist *dl);
int run_put(struct ctx *c, int dfd, char **srcs, int nsrc);

/* boot.c */
bool boot_partition(struct ctx *c, char *why, size_t size);

#endif /* FAT83_H */
