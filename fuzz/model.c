// SPDX-License-Identifier: GPL-2.0
/*
 * Reference model of the vfat nolongcreate create rule, from
 * the contract in README.md ("The contract") and the CP437 chart (see model.h).
 *
 * Stock vfat behaviour that the contract takes as given (VFS lookup before
 * the create: case-insensitive with nls iso8859-1 lower-casing of the bytes
 * unless check=strict; how an 8.3 entry is displayed for each shortname=
 * value) is modelled from the documented behaviour
 * (Documentation/filesystems/vfat.rst): dentry names and displayed short
 * names both take part in the lookup.
 */
#include <errno.h>
#include <string.h>

#include "model.h"

/*
 * CP437 chart, for the characters the fuzzer uses.  cp = 0: the code page
 * has no such character.  up: the CP437 upper-case letter of the same
 * letter, if the chart has one, else the byte itself.
 */
const struct nlc_char nlc_alphabet[] = {
	{ 0x00E9, 0x82, 0x90, "e acute" },
	{ 0x00C9, 0x90, 0x90, "E acute" },
	{ 0x00DF, 0xE1, 0xE1, "sharp s" },
	{ 0x00E4, 0x84, 0x8E, "a umlaut" },
	{ 0x00C4, 0x8E, 0x8E, "A umlaut" },
	{ 0x00F1, 0xA4, 0xA5, "n tilde" },
	{ 0x00D1, 0xA5, 0xA5, "N tilde" },
	{ 0x00FC, 0x81, 0x9A, "u umlaut" },
	{ 0x00DC, 0x9A, 0x9A, "U umlaut" },
	{ 0x00E5, 0x86, 0x8F, "a ring" },
	{ 0x00C5, 0x8F, 0x8F, "A ring" },
	{ 0x00E0, 0x85, 0x85, "a grave (no upper in cp437)" },
	{ 0x00FF, 0x98, 0x98, "y diaeresis (no upper in cp437)" },
	{ 0x00A3, 0x9C, 0x9C, "pound sign" },
	{ 0x03C3, 0xE5, 0xE4, "small sigma (cp437 0xE5)" },
	{ 0x03A3, 0xE4, 0xE4, "capital sigma" },
	{ 0x00A4, 0x00, 0x00, "currency sign (not in cp437)" },
	{ 0x00C0, 0x00, 0x00, "A grave (not in cp437)" },
	{ 0x0085, 0x00, 0x00, "C1 control NEL (not in cp437)" },
	{ 0x4E2D, 0x00, 0x00, "CJK (not in cp437)" },
	{ 0x1F600, 0x00, 0x00, "emoji (not in cp437, 2 UTF-16 units)" },
};
const size_t nlc_alphabet_len = sizeof(nlc_alphabet) / sizeof(nlc_alphabet[0]);

static const struct nlc_char *by_uni(uint32_t u)
{
	size_t i;

	for (i = 0; i < nlc_alphabet_len; i++)
		if (nlc_alphabet[i].uni == u)
			return &nlc_alphabet[i];
	return NULL;
}

static const struct nlc_char *by_cp(unsigned char b)
{
	size_t i;

	for (i = 0; i < nlc_alphabet_len; i++)
		if (nlc_alphabet[i].cp == b)
			return &nlc_alphabet[i];
	return NULL;
}

/* CP437 byte -> Unicode (identity below 0x80); 0 if unknown to the model */
static uint32_t cp_to_uni(unsigned char b)
{
	const struct nlc_char *c;

	if (b < 0x80)
		return b;
	c = by_cp(b);
	return c ? c->uni : 0;
}

/* CP437 lower-case of a byte: the chart's lower-case letter whose
 * upper-case is @b */
static unsigned char cp_lower(unsigned char b)
{
	size_t i;

	if (b >= 'A' && b <= 'Z')
		return b + 32;
	for (i = 0; i < nlc_alphabet_len; i++)
		if (nlc_alphabet[i].cp && nlc_alphabet[i].up == b &&
		    nlc_alphabet[i].cp != b)
			return nlc_alphabet[i].cp;
	return b;
}

/* iso8859-1 lower-casing, as nls_strnicmp applies it byte by byte */
static unsigned char iso_lower(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 32;
	return c;
}

size_t nlc_encode(const struct nlc_mount *m, uint32_t u, unsigned char *o)
{
	if (!m->utf8) {
		if (u > 0xFF)
			return 0;
		o[0] = u;
		return 1;
	}
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

/* Strict UTF-8 (no overlong forms, no surrogates, nothing above
 * U+10FFFF).  Returns the number of code points or -1. */
static int utf8_decode(const unsigned char *s, size_t len, uint32_t *out)
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		unsigned char c = s[i];
		uint32_t u, min;
		int k, j;

		if (c < 0x80) {
			out[n++] = c;
			i++;
			continue;
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
		if (i + k >= len)
			return -1;	/* truncated */
		for (j = 1; j <= k; j++) {
			if ((s[i + j] & 0xC0) != 0x80)
				return -1;
			u = (u << 6) | (s[i + j] & 0x3F);
		}
		if (u < min || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF))
			return -1;
		out[n++] = u;
		i += k + 1;
	}
	return n;
}

static size_t strip_dots(const unsigned char *s, size_t len)
{
	while (len && s[len - 1] == '.')
		len--;
	return len;
}

/* The entry's name as the mount shows it (readdir, lookup). */
static size_t display(const struct nlc_mount *m, const struct nlc_entry *e,
		      unsigned char *out)
{
	unsigned char w[11];
	size_t o = 0;
	int i, end, part;

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
		for (i = from; i < to; i++)
			if (w[i] != ' ')
				end = i + 1;
		if (part && end > from)
			out[o++] = '.';
		for (i = from; i < end; i++) {
			unsigned char b = lower ? cp_lower(w[i]) : w[i];
			size_t n = nlc_encode(m, cp_to_uni(b), out + o);

			if (!n)
				out[o++] = '?';
			else
				o += n;
		}
	}
	return o;
}

static int name_eq(const struct nlc_mount *m, const unsigned char *a,
		   size_t alen, const unsigned char *b, size_t blen)
{
	size_t i;

	if (alen != blen)
		return 0;
	if (m->strict)
		return !memcmp(a, b, alen);
	for (i = 0; i < alen; i++)
		if (iso_lower(a[i]) != iso_lower(b[i]))
			return 0;
	return 1;
}

/* VFS lookup: the dentry (name as created) or the displayed 8.3 name. */
static int vfs_lookup(const struct nlc_mount *m, const unsigned char *name,
		      size_t len, const struct nlc_entry *ents, size_t n)
{
	unsigned char disp[64];
	size_t i, sl = strip_dots(name, len), dl;

	if (!sl)
		return -1;
	for (i = 0; i < n; i++) {
		const struct nlc_entry *e = &ents[i];

		if (name_eq(m, name, sl, e->cname, strip_dots(e->cname, e->cname_len)))
			return i;
		dl = display(m, e, disp);
		if (name_eq(m, name, sl, disp, dl))
			return i;
	}
	return -1;
}

struct part {
	unsigned char b[16];
	int n;			/* bytes produced */
	int invalid;		/* not a valid 8.3 part */
	int changed;		/* a non-ASCII char changed by upper-casing */
	int has_lower, has_upper, has_nonascii;
};

static void convert_part(const uint32_t *u, size_t from, size_t to,
			 struct part *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = from; i < to; i++) {
		uint32_t c = u[i];
		unsigned char b;

		if (c == '.' || c == ' ') {
			p->invalid = 1;
			continue;
		}
		if (c && strchr("+,;=[]", (int)c) && c < 0x80) {
			b = '_';
			p->invalid = 1;
		} else if (c == 0x7F) {
			/*
			 * DEL: the contract says "non-ASCII char" for what
			 * blocks the lcase flags and fails check=strict; the
			 * kernel (like stock vfat) means "byte >= 0x7F", so
			 * DEL counts as well.  Found by the fuzzer (seed 1),
			 * see README "Differential test".
			 */
			b = c;
			p->has_nonascii = 1;
		} else if (c < 0x80) {
			b = c;
			if (b >= 'a' && b <= 'z') {
				p->has_lower = 1;
				b -= 32;
			} else if (b >= 'A' && b <= 'Z') {
				p->has_upper = 1;
			}
		} else {
			const struct nlc_char *ch = by_uni(c);

			p->has_nonascii = 1;
			if (!ch || !ch->cp) {
				/* unknown to the model counts as unencodable */
				b = '_';
				p->invalid = 1;
			} else {
				b = ch->up;
				if (ch->up != ch->cp)
					p->changed = 1;
			}
		}
		if (p->n < (int)sizeof(p->b))
			p->b[p->n] = b;
		p->n++;
	}
}

static int strict_ok(const struct nlc_mount *m, const struct part *p)
{
	if (p->has_nonascii)
		return 0;
	switch (m->shortname) {
	case NLC_SN_LOWER:
		return !p->has_upper;
	case NLC_SN_WIN95:
		return !p->has_lower;
	default:
		return !(p->has_lower && p->has_upper);
	}
}

static unsigned char lcase_flag(const struct part *p, unsigned char flag)
{
	return (p->has_lower && !p->has_upper && !p->has_nonascii) ? flag : 0;
}

void nlc_predict(const struct nlc_mount *m, enum nlc_op op,
		 const unsigned char *name, size_t len,
		 const struct nlc_entry *ents, size_t nents,
		 struct nlc_result *r)
{
	uint32_t u[256];
	size_t sl, nu, units, i, dot;
	struct part base, ext;
	int hit, has_ext;

	memset(r, 0, sizeof(*r));
	r->replaced = -1;

	/* VFS: NAME_MAX, then the (case-insensitive) lookup */
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

	/* 1. trailing dots */
	sl = strip_dots(name, len);
	if (!sl) {
		r->err = ENOENT;
		return;
	}
	/* 2. to UTF-16 */
	if (m->utf8) {
		int n = utf8_decode(name, sl, u);

		if (n < 0) {
			r->err = EINVAL;
			return;
		}
		nu = n;
	} else {
		for (i = 0; i < sl; i++)
			u[i] = name[i];	/* iso8859-1 */
		nu = sl;
	}
	for (i = 0, units = 0; i < nu; i++)
		units += u[i] >= 0x10000 ? 2 : 1;
	if (units > 255) {
		r->err = ENAMETOOLONG;
		return;
	}
	/* 3. bad characters, trailing space */
	for (i = 0; i < nu; i++) {
		if (u[i] < 0x20 || (u[i] < 0x80 && strchr("*?<>|\":\\", (int)u[i]))) {
			r->err = EINVAL;
			return;
		}
	}
	if (u[nu - 1] == ' ') {
		r->err = EINVAL;
		return;
	}
	/* 4. split at the last dot, unless only dots/spaces precede it */
	has_ext = 0;
	dot = nu;
	for (i = nu; i-- > 0;) {
		if (u[i] == '.') {
			size_t j;

			for (j = 0; j < i; j++)
				if (u[j] != '.' && u[j] != ' ')
					has_ext = 1;
			dot = i;
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
	if (base.n == 0) {
		r->err = EINVAL;
		return;
	}
	if (base.invalid || ext.invalid || base.n > 8 || ext.n > 3) {
		r->err = ENAMETOOLONG;	/* 6. */
		return;
	}
	/* 5. a valid 8.3 name */
	memset(r->ent.name, ' ', 11);
	memcpy(r->ent.name, base.b, base.n);
	memcpy(r->ent.name + 8, ext.b, ext.n);
	if (r->ent.name[0] == 0xE5)
		r->ent.name[0] = 0x05;
	for (i = 0; i < nents; i++) {
		if (!memcmp(ents[i].name, r->ent.name, 11)) {
			r->err = EEXIST;
			return;
		}
	}
	if (base.changed || ext.changed) {
		r->err = ENAMETOOLONG;
		return;
	}
	if (m->strict && (!strict_ok(m, &base) || !strict_ok(m, &ext))) {
		r->err = ENAMETOOLONG;
		return;
	}
	r->ent.lcase = lcase_flag(&base, 0x08) | lcase_flag(&ext, 0x10);
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
