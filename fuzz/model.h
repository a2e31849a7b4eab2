/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace reference model of the vfat `nolongcreate` create rule of
 * series v7 (docs/contract.md): the 8.3 builder must hold the name as one
 * entry, and readdir on the mount must show that entry exactly as the
 * name was typed (no case folding); ENAMETOOLONG only for a name too long
 * for 8.3, EINVAL for every other refusal.
 *
 * Mount configurations: codepage 437; iocharset iso8859-1 or utf8; utf8,
 * shortname=, check=, uni_xlate, nonumtail (see struct nlc_mount).
 *
 * Written from the contract text, the CP437 chart and Unicode's simple
 * case pairs, not from fs/fat/namei_vfat.c.  The CP437 table in model.c
 * covers the whole code page; nlc_check_table() style checks in
 * model_test.c compare it, and the iso8859-1 lower-case table, with the
 * kernel's fs/nls tables on the host.
 */
#ifndef NLC_MODEL_H
#define NLC_MODEL_H

#include <stddef.h>
#include <stdint.h>

enum nlc_shortname { NLC_SN_MIXED, NLC_SN_LOWER, NLC_SN_WIN95, NLC_SN_WINNT };
enum nlc_iocharset { NLC_IO_ISO8859_1, NLC_IO_UTF8 };
/* check=relaxed and check=normal compare names the same way on vfat */
enum nlc_check { NLC_CHECK_RELAXED, NLC_CHECK_NORMAL, NLC_CHECK_STRICT };

struct nlc_mount {
	int iocharset;		/* enum nlc_iocharset */
	int utf8;		/* the utf8= option as given */
	int shortname;		/* enum nlc_shortname */
	int check;		/* enum nlc_check */
	int uni_xlate;		/* uni_xlate=1: ':XXXX' escapes (turns utf8 off) */
	int nonumtail;		/* predicted to change nothing under nolongcreate */
};

extern const char *const nlc_sn_names[4];
extern const char *const nlc_check_names[3];
extern const char *const nlc_io_names[2];

/* The utf8 option in force: vfat turns it off when uni_xlate is set. */
int nlc_utf8_on(const struct nlc_mount *m);
/* Names on this mount are UTF-8 bytes (utf8 in force or iocharset=utf8),
 * else iso8859-1 bytes. */
int nlc_io_is_utf8(const struct nlc_mount *m);
/* The -o string for the mount (with nolongcreate), every option explicit */
void nlc_mount_opts(const struct nlc_mount *m, char *buf, size_t size);

/* One live 8.3 entry of the directory, as the model remembers it. */
struct nlc_entry {
	unsigned char name[11];	/* on-disk bytes (0xE5 stored as 0x05) */
	unsigned char lcase;	/* offset 12: 0x08 base lower, 0x10 ext lower */
	unsigned char is_dir;
	/* the name it was created with (the dentry name while mounted) */
	unsigned char cname[256];
	size_t cname_len;
};

enum nlc_op { NLC_CREAT, NLC_MKDIR, NLC_RENAME };

struct nlc_result {
	int err;		/* 0 or a positive errno */
	int replaced;		/* rename onto an existing entry: index in ents */
	int rt;			/* shown as typed: -1 not reached, 0 yes,
				 * 1 no (EINVAL: a valid 8.3 entry refused) */
	struct nlc_entry ent;	/* err == 0 && replaced < 0: the new entry */
};

/*
 * Predict what creat(O_CREAT|O_EXCL) / mkdir / rename (of a file from
 * another directory) to @name in a directory holding @ents gives on a
 * vfat mount with nolongcreate.
 */
void nlc_predict(const struct nlc_mount *m, enum nlc_op op,
		 const unsigned char *name, size_t len,
		 const struct nlc_entry *ents, size_t nents,
		 struct nlc_result *r);

/* The entry's name as readdir shows it on the mount (no NUL added);
 * @out needs 64 bytes. */
size_t nlc_display(const struct nlc_mount *m, const struct nlc_entry *e,
		   unsigned char *out);

/* Does a lookup of @a find a name shown as @b (trailing dots of @a and
 * @b ignored, the mount's comparison)? */
int nlc_name_match(const struct nlc_mount *m, const unsigned char *a,
		   size_t alen, const unsigned char *b, size_t blen);

/* CP437 (the on-disk code page), from the chart: byte -> code point
 * (identity below 0x80), code point -> byte (0: not in CP437), and the
 * upper/lower case of a byte (Unicode's simple case pairs inside CP437). */
uint32_t nlc_cp437_to_uni(unsigned char b);
unsigned char nlc_cp437_from_uni(uint32_t u);
unsigned char nlc_cp437_upper(unsigned char b);
unsigned char nlc_cp437_lower(unsigned char b);
/* iso8859-1 lower-casing of a byte (what the iocharset's table does) */
unsigned char nlc_iso8859_1_lower(unsigned char c);

/* The non-ASCII alphabet the fuzzer draws from (code points; some are
 * not in CP437, some not in iso8859-1, one is outside the BMP). */
struct nlc_char {
	uint32_t uni;
	const char *desc;
};
extern const struct nlc_char nlc_alphabet[];
extern const size_t nlc_alphabet_len;

/* Code point ranges the fuzzer draws ':XXXX' escapes from that CP437 has
 * no character in (checked against the kernel by model_test). */
struct nlc_range {
	uint32_t lo, hi;
};
extern const struct nlc_range nlc_no_cp437[];
extern const size_t nlc_no_cp437_len;

/* Encode a code point in the mount's I/O encoding (UTF-8 or iso8859-1
 * bytes, no escapes); returns bytes written (0: not representable, e.g.
 * U+4E2D on an iso8859-1 mount). */
size_t nlc_encode(const struct nlc_mount *m, uint32_t uni, unsigned char *out);

const char *nlc_errname(int err);

#endif /* NLC_MODEL_H */
