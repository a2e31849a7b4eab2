/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace reference model of the vfat `nolongcreate` create rule
 * (README.md, "The contract"),
 * codepage 437, iocharset iso8859-1, with or without `utf8`.
 *
 * Written from the contract text and the CP437 chart, not from
 * fs/fat/namei_vfat.c.  The small CP437 table in model.c covers a fixed
 * alphabet (see nlc_alphabet); nlc_check_table() can compare it with the
 * kernel's fs/nls/nls_cp437.c on the host.
 */
#ifndef NLC_MODEL_H
#define NLC_MODEL_H

#include <stddef.h>
#include <stdint.h>

enum nlc_shortname { NLC_SN_MIXED, NLC_SN_LOWER, NLC_SN_WIN95, NLC_SN_WINNT };

struct nlc_mount {
	int utf8;		/* `utf8`: names are UTF-8, else iso8859-1 bytes */
	int strict;		/* check=strict (case-sensitive lookup) */
	int shortname;		/* enum nlc_shortname */
};

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

/* The non-ASCII alphabet of the model: Unicode code point, CP437 byte
 * (0 = CP437 cannot encode it), CP437 upper-case of that byte. */
struct nlc_char {
	uint32_t uni;
	unsigned char cp;
	unsigned char up;
	const char *desc;
};
extern const struct nlc_char nlc_alphabet[];
extern const size_t nlc_alphabet_len;

/* Encode a code point in the mount's I/O encoding; returns bytes written
 * (0: not representable, e.g. U+4E2D without utf8). */
size_t nlc_encode(const struct nlc_mount *m, uint32_t uni, unsigned char *out);

const char *nlc_errname(int err);

#endif /* NLC_MODEL_H */
