// SPDX-License-Identifier: GPL-2.0
/*
 * Reference model of the vfat nolongcreate create rule (see model.h),
 * from the contract in README.md ("The contract"), the CP437 chart and the
 * iso8859-1 / UTF-8 encodings.
 *
 * The rule (series v7), as the model applies it to a name N as typed:
 *  1. N without its trailing dots -> UTF-16 (the utf8 option in force:
 *     UTF-8; else the iocharset's bytes, with ':XXXX' escapes if
 *     uni_xlate); bad characters and a trailing space EINVAL (a name of
 *     dots only: ENOENT).  Steps 2-5 see N without its trailing dots.
 *  2. Base and extension split at the last dot (none if only dots and
 *     spaces precede it); base over 8 or extension
 *     over 3 CP437 bytes (a character CP437 lacks counts 1):
 *     ENAMETOOLONG, the only refusal with that errno.
 *  3. Anything else the 8.3 builder cannot hold as one entry without a
 *     numeric tail: EINVAL (a space, a leading or second dot,
 *     +,;=[], a character CP437 lacks).
 *  4. Same 11 bytes as a live entry: EEXIST.
 *  5. lcase: a part with a lower-case ASCII letter and no upper-case
 *     letter and no byte >= 0x7F gets its flag; no other value is tried.
 *  6. The entry rendered as readdir shows it on the mount must be N,
 *     byte for byte, trailing dots included (so they are refused here:
 *     "abcdefgh." is EINVAL); else EINVAL.  No case folding, whatever check= or
 *     the iocharset: lookup by N then finds it wherever readdir shows N.
 *
 * Stock vfat behaviour the contract takes as given is modelled from the
 * documented behaviour (Documentation/filesystems/vfat.rst): the VFS
 * lookup before the create (dentry names and displayed 8.3 names), how an
 * 8.3 entry is displayed for each shortname= value, uni_xlate turning the
 * utf8 option off, iocharset=utf8 being case-sensitive.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

const char *const nlc_sn_names[4] = { "mixed", "lower", "win95", "winnt" };
const char *const nlc_check_names[3] = { "relaxed", "normal", "strict" };
const char *const nlc_io_names[2] = { "iso8859-1", "utf8" };

/*
 * CP437 chart, bytes 0x80-0xFF (bytes below 0x80 are ASCII).  Written
 * from the code page chart; model_test.c checks it against the kernel's
 * fs/nls/nls_cp437.c in both directions.
 */
static const uint16_t cp437_hi[128] = {
	0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,	/* 0x80 */
	0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,	/* 0x88 */
	0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,	/* 0x90 */
	0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,	/* 0x98 */
	0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,	/* 0xA0 */
	0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,	/* 0xA8 */
	0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556,	/* 0xB0 */
	0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,	/* 0xB8 */
	0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,	/* 0xC0 */
	0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,	/* 0xC8 */
	0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B,	/* 0xD0 */
	0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,	/* 0xD8 */
	0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,	/* 0xE0 */
	0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,	/* 0xE8 */
	0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,	/* 0xF0 */
	0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,	/* 0xF8 */
};

/*
 * Case pairs inside CP437 (lower, upper): Unicode's simple case mappings
 * of the chart's characters where both letters are in CP437.  Everything
 * else (à â ß µ ÿ, Greek letters without a partner, ...) has no other case.
 */
static const unsigned char cp437_pairs[][2] = {
	{ 0x87, 0x80 },	/* ç Ç */
	{ 0x81, 0x9A },	/* ü Ü */
	{ 0x82, 0x90 },	/* é É */
	{ 0x84, 0x8E },	/* ä Ä */
	{ 0x86, 0x8F },	/* å Å */
	{ 0x91, 0x92 },	/* æ Æ */
	{ 0x94, 0x99 },	/* ö Ö */
	{ 0xA4, 0xA5 },	/* ñ Ñ */
	{ 0xE5, 0xE4 },	/* σ Σ */
	{ 0xED, 0xE8 },	/* φ Φ */
};

uint32_t nlc_cp437_to_uni(unsigned char b)
{
	return b < 0x80 ? b : cp437_hi[b - 0x80];
}

unsigned char nlc_cp437_from_uni(uint32_t u)
{
	size_t i;

	if (u && u < 0x80)
		return u;
	for (i = 0; u && i < 128; i++)
		if (cp437_hi[i] == u)
			return 0x80 + i;
	return 0;
}

unsigned char nlc_cp437_upper(unsigned char b)
{
	size_t i;

	if (b >= 'a' && b <= 'z')
		return b - 32;
	for (i = 0; i < sizeof(cp437_pairs) / sizeof(cp437_pairs[0]); i++)
		if (cp437_pairs[i][0] == b)
			return cp437_pairs[i][1];
	return b;
}

unsigned char nlc_cp437_lower(unsigned char b)
{
	size_t i;

	if (b >= 'A' && b <= 'Z')
		return b + 32;
	for (i = 0; i < sizeof(cp437_pairs) / sizeof(cp437_pairs[0]); i++)
		if (cp437_pairs[i][1] == b)
			return cp437_pairs[i][0];
	return b;
}

/* iso8859-1: A-Z and À-Þ except × have a lower case 0x20 above */
unsigned char nlc_iso8859_1_lower(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 32;
	return c;
}

/*
 * The fuzzer's non-ASCII alphabet: letters with and without a CP437 case
 * partner, caseless CP437 characters, characters CP437 lacks (some in
 * iso8859-1, some not), one outside the BMP.
 */
const struct nlc_char nlc_alphabet[] = {
	{ 0x00E9, "e acute (cp437 0x82, upper 0x90)" },
	{ 0x00C9, "E acute (cp437 0x90)" },
	{ 0x00DF, "sharp s (cp437 0xE1, no upper)" },
	{ 0x00E4, "a umlaut" },
	{ 0x00C4, "A umlaut" },
	{ 0x00F1, "n tilde" },
	{ 0x00D1, "N tilde" },
	{ 0x00FC, "u umlaut" },
	{ 0x00DC, "U umlaut" },
	{ 0x00E5, "a ring" },
	{ 0x00C5, "A ring" },
	{ 0x00E7, "c cedilla" },
	{ 0x00C7, "C cedilla" },
	{ 0x00E6, "ae" },
	{ 0x00C6, "AE" },
	{ 0x00F6, "o umlaut" },
	{ 0x00D6, "O umlaut" },
	{ 0x00E0, "a grave (no upper in cp437)" },
	{ 0x00E2, "a circumflex (no upper in cp437)" },
	{ 0x00FF, "y diaeresis (no upper in cp437)" },
	{ 0x00B5, "micro sign (cp437 0xE6, caseless there)" },
	{ 0x00A0, "no-break space (cp437 0xFF)" },
	{ 0x00A3, "pound sign" },
	{ 0x00AA, "feminine ordinal" },
	{ 0x03C3, "small sigma (cp437 0xE5, upper 0xE4)" },
	{ 0x03A3, "capital sigma (cp437 0xE4)" },
	{ 0x03C6, "small phi (cp437 0xED, upper 0xE8)" },
	{ 0x03A6, "capital phi (cp437 0xE8)" },
	{ 0x0393, "capital gamma (cp437 0xE2, no lower)" },
	{ 0x03A9, "capital omega (cp437 0xEA, no lower)" },
	{ 0x0192, "f hook (cp437 0x9F, not iso8859-1)" },
	{ 0x2591, "light shade (cp437 0xB0)" },
	{ 0x00A4, "currency sign (not in cp437)" },
	{ 0x00C0, "A grave (not in cp437)" },
	{ 0x00D8, "O stroke (not in cp437)" },
	{ 0x0085, "C1 control NEL (not in cp437)" },
	{ 0x03B8, "small theta (not in cp437)" },
	{ 0x4E2D, "CJK (not in cp437)" },
	{ 0x1F600, "emoji (not in cp437, 2 UTF-16 units)" },
};
const size_t nlc_alphabet_len = sizeof(nlc_alphabet) / sizeof(nlc_alphabet[0]);

int nlc_utf8_on(const struct nlc_mount *m)
{
	return m->utf8 && !m->uni_xlate;
}

int nlc_io_is_utf8(const struct nlc_mount *m)
{
	return nlc_utf8_on(m) || m->iocharset == NLC_IO_UTF8;
}

void nlc_mount_opts(const struct nlc_mount *m, char *buf, size_t size)
{
	snprintf(buf, size,
		 "nolongcreate,codepage=437,iocharset=%s,utf8=%d,shortname=%s,check=%s,uni_xlate=%d,nonumtail=%d",
		 nlc_io_names[m->iocharset], !!m->utf8, nlc_sn_names[m->shortname],
		 nlc_check_names[m->check], !!m->uni_xlate, !!m->nonumtail);
}

static size_t utf8_put(uint32_t u, unsigned char *o)
{
	if (u < 0x80) {
		o[0] = u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = 0xC0 | (u >> 6);
		o[1] = 0x80 | (u & 0x3F);
		return 2;
	}
	if (u < 0x10000) {
		o[0] = 0xE0 | (u >> 12);
		o[1] = 0x80 | ((u >> 6) & 0x3F);
		o[2] = 0x80 | (u & 0x3F);
		return 3;
	}
	o[0] = 0xF0 | (u >> 18);
	o[1] = 0x80 | ((u >> 12) & 0x3F);
	o[2] = 0x80 | ((u >> 6) & 0x3F);
	o[3] = 0x80 | (u & 0x3F);
	return 4;
}

size_t nlc_encode(const struct nlc_mount *m, uint32_t u, unsigned char *o)
{
	if (nlc_io_is_utf8(m))
		return utf8_put(u, o);
	if (!u || u > 0xFF)
		return 0;
	o[0] = u;
	return 1;
}

/* One strict UTF-8 character (no overlong forms, no surrogates, nothing
 * above U+10FFFF) at s[0..len); returns its length or -1. */
static int utf8_get(const unsigned char *s, size_t len, uint32_t *out)
{
	unsigned char c = s[0];
	uint32_t u, min;
	int k, j;

	if (c < 0x80) {
		*out = c;
		return 1;
	}
	if ((c & 0xE0) == 0xC0) {
		k = 1; u = c & 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		k = 2; u = c & 0x0F; min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		k = 3; u = c & 0x07; min = 0x10000;
	} else {
		return -1;	/* continuation byte, 5/6-byte lead, FE, FF */
	}
	if ((size_t)k >= len)
		return -1;	/* truncated */
	for (j = 1; j <= k; j++) {
		if ((s[j] & 0xC0) != 0x80)
			return -1;
		u = (u << 6) | (s[j] & 0x3F);
	}
	if (u < min || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF))
		return -1;
	*out = u;
	return k + 1;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The name's bytes -> UTF-16 units, as the mount reads names:
 *  - utf8 in force: UTF-8, characters above U+FFFF become surrogate pairs;
 *  - else one character of the iocharset at a time (iso8859-1: a byte;
 *    utf8: one UTF-8 character, which must be in the BMP), and with
 *    uni_xlate ':' starts an escape of exactly four hex digits.
 * Returns the number of units, -EINVAL or -ENAMETOOLONG.
 */
static int to_units(const struct nlc_mount *m, const unsigned char *s,
		    size_t len, uint16_t *u)
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		uint32_t c;
		int k;

		if (n >= 255)
			return -ENAMETOOLONG;
		if (!nlc_utf8_on(m) && m->uni_xlate && s[i] == ':') {
			int h[4], j;

			if (i + 5 > len)
				return -EINVAL;
			for (j = 0; j < 4; j++)
				if ((h[j] = hexval(s[i + 1 + j])) < 0)
					return -EINVAL;
			u[n++] = h[0] << 12 | h[1] << 8 | h[2] << 4 | h[3];
			i += 5;
			continue;
		}
		if (!nlc_io_is_utf8(m)) {
			u[n++] = s[i++];	/* iso8859-1 */
			continue;
		}
		k = utf8_get(s + i, len - i, &c);
		if (k < 0)
			return -EINVAL;
		i += k;
		if (c < 0x10000) {
			u[n++] = c;
		} else if (!nlc_utf8_on(m)) {
			return -EINVAL;	/* the utf8 iocharset: BMP only */
		} else {
			if (n + 2 > 255)
				return -ENAMETOOLONG;
			c -= 0x10000;
			u[n++] = 0xD800 | (c >> 10);
			u[n++] = 0xDC00 | (c & 0x3FF);
		}
	}
	return n;
}

static size_t strip_dots(const unsigned char *s, size_t len)
{
	while (len && s[len - 1] == '.')
		len--;
	return len;
}

size_t nlc_display(const struct nlc_mount *m, const struct nlc_entry *e,
		   unsigned char *out)
{
	unsigned char w[11];
	uint32_t u[12];
	size_t o = 0, nu = 0, i;
	int part, end, k;

	memcpy(w, e->name, 11);
	if (w[0] == 0x05)
		w[0] = 0xE5;
	for (part = 0; part < 2; part++) {
		int from = part ? 8 : 0, to = part ? 11 : 8;
		int flag = part ? 0x10 : 0x08;
		int lower = m->shortname == NLC_SN_LOWER ||
			    ((m->shortname == NLC_SN_MIXED ||
			      m->shortname == NLC_SN_WINNT) && (e->lcase & flag));

		end = from;
		for (k = from; k < to; k++)
			if (w[k] != ' ')
				end = k + 1;
		if (part && end > from)
			u[nu++] = '.';
		for (k = from; k < end; k++)
			u[nu++] = nlc_cp437_to_uni(lower ? nlc_cp437_lower(w[k]) : w[k]);
	}
	for (i = 0; i < nu; i++) {
		if (nlc_io_is_utf8(m)) {
			o += utf8_put(u[i], out + o);
		} else if (u[i] <= 0xFF) {
			out[o++] = u[i];
		} else if (m->uni_xlate) {
			o += sprintf((char *)out + o, ":%04x", (unsigned int)u[i]);
		} else {
			out[o++] = '?';
		}
	}
	return o;
}

int nlc_name_match(const struct nlc_mount *m, const unsigned char *a,
		   size_t alen, const unsigned char *b, size_t blen)
{
	size_t i;

	alen = strip_dots(a, alen);
	blen = strip_dots(b, blen);
	if (alen != blen)
		return 0;
	if (m->check == NLC_CHECK_STRICT)
		return !memcmp(a, b, alen);
	if (m->iocharset == NLC_IO_UTF8)
		return !memcmp(a, b, alen);	/* its case table is the identity */
	for (i = 0; i < alen; i++)
		if (nlc_iso8859_1_lower(a[i]) != nlc_iso8859_1_lower(b[i]))
			return 0;
	return 1;
}

/* VFS lookup: the dentry (name as created) or the displayed 8.3 name. */
static int vfs_lookup(const struct nlc_mount *m, const unsigned char *name,
		      size_t len, const struct nlc_entry *ents, size_t n)
{
	unsigned char disp[64];
	size_t i, dl;

	if (!strip_dots(name, len))
		return -1;
	for (i = 0; i < n; i++) {
		const struct nlc_entry *e = &ents[i];

		if (nlc_name_match(m, name, len, e->cname, e->cname_len))
			return i;
		dl = nlc_display(m, e, disp);
		if (nlc_name_match(m, name, len, disp, dl))
			return i;
	}
	return -1;
}

struct part {
	unsigned char b[16];
	int n;			/* bytes produced */
	int units;		/* UTF-16 units of the part: its length */
	int invalid;		/* not a valid 8.3 part */
	int has_lower, has_upper, has_high;
};

static void convert_part(const uint16_t *u, size_t from, size_t to,
			 struct part *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->units = to - from;	/* one CP437 byte each, or 1 if not in it */
	for (i = from; i < to; i++) {
		uint16_t c = u[i];
		unsigned char b;

		if (c == '.' || c == ' ') {
			p->invalid = 1;		/* no 8.3 character */
			continue;
		}
		if (c < 0x80 && strchr("+,;=[]", c)) {
			b = '_';
			p->invalid = 1;		/* would be replaced */
		} else if (!(b = nlc_cp437_from_uni(c))) {
			b = '_';
			p->invalid = 1;		/* not in the code page */
		} else if (b >= 0x7F) {
			/*
			 * A byte >= 0x7F (DEL included, found by the fuzzer,
			 * see README "Differential test") keeps no case flag.
			 */
			p->has_high = 1;
			b = nlc_cp437_upper(b);
		} else if (b >= 'a' && b <= 'z') {
			p->has_lower = 1;
			b -= 32;
		} else if (b >= 'A' && b <= 'Z') {
			p->has_upper = 1;
		}
		if (p->n < (int)sizeof(p->b))
			p->b[p->n] = b;
		p->n++;
	}
}

static unsigned char lcase_flag(const struct part *p, unsigned char flag)
{
	return (p->has_lower && !p->has_upper && !p->has_high) ? flag : 0;
}

void nlc_predict(const struct nlc_mount *m, enum nlc_op op,
		 const unsigned char *name, size_t len,
		 const struct nlc_entry *ents, size_t nents,
		 struct nlc_result *r)
{
	uint16_t u[256];
	size_t nu, i, dot;
	struct part base, ext;
	unsigned char disp[64];
	int hit, n, has_ext;
	size_t dl;

	memset(r, 0, sizeof(*r));
	r->replaced = -1;
	r->rt = -1;

	/* VFS: NAME_MAX, then the lookup (trailing dots ignored) */
	if (len > 255) {
		r->err = ENAMETOOLONG;
		return;
	}
	hit = vfs_lookup(m, name, len, ents, nents);
	if (hit >= 0) {
		if (op == NLC_RENAME) {
			if (ents[hit].is_dir)
				r->err = EISDIR;
			else
				r->replaced = hit;
		} else {
			r->err = EEXIST;
		}
		return;
	}

	/* nothing but dots: no name */
	if (!strip_dots(name, len)) {
		r->err = ENOENT;
		return;
	}
	/* 1. without its trailing dots to UTF-16, bad characters, trailing
	 * space (step 6 compares the name with them) */
	n = to_units(m, name, strip_dots(name, len), u);
	if (n < 0) {
		r->err = -n;
		return;
	}
	nu = n;
	for (i = 0; i < nu; i++) {
		if (u[i] < 0x20 || (u[i] < 0x80 && strchr("*?<>|\":/\\", u[i]))) {
			r->err = EINVAL;
			return;
		}
	}
	if (u[nu - 1] == ' ') {
		r->err = EINVAL;
		return;
	}
	/*
	 * 2. base and extension: split at the last dot, unless it is the
	 * last unit (an escaped dot) or only dots and spaces precede it.
	 */
	has_ext = 0;
	dot = nu;
	for (i = nu; i-- > 0;) {
		if (u[i] == '.') {
			size_t j;

			dot = i;
			if (i == nu - 1)
				break;
			for (j = 0; j < i; j++)
				if (u[j] != '.' && u[j] != ' ')
					has_ext = 1;
			break;
		}
	}
	if (has_ext) {
		convert_part(u, 0, dot, &base);
		convert_part(u, dot + 1, nu, &ext);
	} else {
		convert_part(u, 0, nu, &base);
		memset(&ext, 0, sizeof(ext));
	}
	/* 3. only the length gives ENAMETOOLONG, every other refusal EINVAL */
	if (base.units > 8 || ext.units > 3) {
		r->err = ENAMETOOLONG;
		return;
	}
	if (base.n == 0 || base.invalid || ext.invalid) {
		r->err = EINVAL;
		return;
	}
	memset(r->ent.name, ' ', 11);
	memcpy(r->ent.name, base.b, base.n);
	memcpy(r->ent.name + 8, ext.b, ext.n);
	if (r->ent.name[0] == 0xE5)
		r->ent.name[0] = 0x05;
	/* 4. the same 11 bytes as a live entry */
	for (i = 0; i < nents; i++) {
		if (!memcmp(ents[i].name, r->ent.name, 11)) {
			r->err = EEXIST;
			return;
		}
	}
	/*
	 * 5. the case flags of the create rule, then 6. shown by readdir
	 * exactly as typed, byte for byte, or EINVAL
	 */
	r->ent.lcase = lcase_flag(&base, 0x08) | lcase_flag(&ext, 0x10);
	dl = nlc_display(m, &r->ent, disp);
	if (dl != len || memcmp(name, disp, len)) {
		r->rt = 1;
		r->err = EINVAL;
		return;
	}
	r->rt = 0;
	r->ent.is_dir = op == NLC_MKDIR;
	memcpy(r->ent.cname, name, len);
	r->ent.cname_len = len;
}

const char *nlc_errname(int err)
{
	switch (err) {
	case 0: return "OK";
	case EINVAL: return "EINVAL";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EISDIR: return "EISDIR";
	case ENOTDIR: return "ENOTDIR";
	case EBUSY: return "EBUSY";
	default: return strerror(err);
	}
}
