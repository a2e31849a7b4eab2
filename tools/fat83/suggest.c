// SPDX-License-Identifier: GPL-2.0
/*
 * suggest.c - the 8.3 name fat83 gives a long name; the rules are in
 * suggest.h.  Pure: no system calls, no global state.
 */
#include <stdio.h>
#include <string.h>

#include "suggest.h"

/*
 * Rule 3's kept set, besides letters and digits: the punctuation that both
 * SdFat (FatFile::legal83Char: 0x21-0x7E but " * + , . / : ; < = > ? [ \ ] |)
 * and FatFs (create_name: not * + , : ; < = > ? [ ] | " DEL) accept in an
 * 8.3 name, less '^', which older SdFat (make83Name, in Marlin and Prusa's
 * MK3 firmware) refuses, and '~' (rule 3).
 */
static const char KEPT_PUNCT[] = "!#$%&'()-@_`{}";

/*
 * Rule 3a: the Latin letters of U+00C0-U+017F (Latin-1 Supplement and
 * Latin Extended-A) as the ASCII letters without their marks; "" where
 * no one spelling is the obvious one (thorn, kra, eng) or no letter
 * (multiplication and division signs): dropped.
 */
static const struct {
	unsigned int lo, hi;
	const char *as;
} LATIN[] = {
	{ 0xC0, 0xC5, "A" }, { 0xC6, 0xC6, "AE" }, { 0xC7, 0xC7, "C" },
	{ 0xC8, 0xCB, "E" }, { 0xCC, 0xCF, "I" }, { 0xD0, 0xD0, "D" },
	{ 0xD1, 0xD1, "N" }, { 0xD2, 0xD6, "O" }, { 0xD7, 0xD7, "" },
	{ 0xD8, 0xD8, "O" }, { 0xD9, 0xDC, "U" }, { 0xDD, 0xDD, "Y" },
	{ 0xDE, 0xDE, "" }, { 0xDF, 0xDF, "SS" },
	{ 0xE0, 0xE5, "A" }, { 0xE6, 0xE6, "AE" }, { 0xE7, 0xE7, "C" },
	{ 0xE8, 0xEB, "E" }, { 0xEC, 0xEF, "I" }, { 0xF0, 0xF0, "D" },
	{ 0xF1, 0xF1, "N" }, { 0xF2, 0xF6, "O" }, { 0xF7, 0xF7, "" },
	{ 0xF8, 0xF8, "O" }, { 0xF9, 0xFC, "U" }, { 0xFD, 0xFD, "Y" },
	{ 0xFE, 0xFE, "" }, { 0xFF, 0xFF, "Y" },
	{ 0x100, 0x105, "A" }, { 0x106, 0x10D, "C" }, { 0x10E, 0x111, "D" },
	{ 0x112, 0x11B, "E" }, { 0x11C, 0x123, "G" }, { 0x124, 0x127, "H" },
	{ 0x128, 0x131, "I" }, { 0x132, 0x133, "IJ" }, { 0x134, 0x135, "J" },
	{ 0x136, 0x137, "K" }, { 0x138, 0x138, "" }, { 0x139, 0x142, "L" },
	{ 0x143, 0x149, "N" }, { 0x14A, 0x14B, "" }, { 0x14C, 0x151, "O" },
	{ 0x152, 0x153, "OE" }, { 0x154, 0x159, "R" }, { 0x15A, 0x161, "S" },
	{ 0x162, 0x167, "T" }, { 0x168, 0x173, "U" }, { 0x174, 0x175, "W" },
	{ 0x176, 0x178, "Y" }, { 0x179, 0x17E, "Z" }, { 0x17F, 0x17F, "S" },
};

/* The ASCII letters of code point @u by rule 3a, or "" */
static const char *latin(unsigned int u)
{
	unsigned int i;

	for (i = 0; i < sizeof(LATIN) / sizeof(LATIN[0]); i++)
		if (u >= LATIN[i].lo && u <= LATIN[i].hi)
			return LATIN[i].as;
	return "";
}

size_t fat83_utf8_char(const unsigned char *s, const unsigned char *e,
		       unsigned int *u)
{
	size_t n, i;

	*u = 0;
	if (*s < 0xC2 || *s > 0xF4)
		return 1;
	n = *s < 0xE0 ? 2 : *s < 0xF0 ? 3 : 4;
	if ((size_t)(e - s) < n)
		return 1;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 1;
	*u = *s & (0x7F >> n);
	for (i = 1; i < n; i++)
		*u = (*u << 6) | (s[i] & 0x3F);
	return n;
}

static int kept(unsigned char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 'A';
	if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return c;
	if (c && c < 0x80 && strchr(KEPT_PUNCT, c))
		return c;
	return 0;
}

/*
 * The kept characters of [s, e), upper-cased, the Latin letters as ASCII
 * (rule 3a), at most @max of them; @lead: without a leading '-' (rule 3b).
 */
static size_t filter(const char *s, const char *e, char *out, size_t max, bool lead)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = (const unsigned char *)e;
	const char *as;
	unsigned int u;
	size_t n = 0;
	int c;

	while (p < end && n < max) {
		if (*p < 0x80) {
			c = kept(*p++);
			if (c && !(lead && !n && c == '-'))
				out[n++] = (char)c;
			continue;
		}
		p += fat83_utf8_char(p, end, &u);
		for (as = latin(u); *as && n < max; as++)
			out[n++] = *as;
	}
	out[n] = 0;
	return n;
}

/* Base (up to 8) and extension (up to 3) of @name by rules 1-4. */
static void split(const char *name, char base[9], char ext[4])
{
	const char *end = name + strlen(name), *dot;

	while (*name == '.')
		name++;
	dot = strrchr(name, '.');
	if (dot) {
		filter(name, dot, base, 8, true);
		filter(dot + 1, end, ext, 3, false);
	} else {
		filter(name, end, base, 8, true);
		ext[0] = 0;
	}
	if (!base[0])
		strcpy(base, "_");
}

int fat83_candidate(const char *name, unsigned long k,
		    char out[FAT83_NAME_SIZE])
{
	char base[9], ext[4], digits[16];
	size_t nd, keep;

	if (k > FAT83_MAX_VARIANT)
		return -1;
	split(name, base, ext);
	if (k) {
		nd = (size_t)snprintf(digits, sizeof(digits), "%lu", k);
		keep = strlen(base);
		if (keep > 8 - nd)
			keep = 8 - nd;
		memcpy(base + keep, digits, nd + 1);
	}
	snprintf(out, FAT83_NAME_SIZE, "%s%s%s", base, ext[0] ? "." : "", ext);
	return 0;
}

static int up(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* The first @n characters of @s are @p (upper case), ignoring case. */
static bool prefix_nocase(const char *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || up((unsigned char)s[i]) != p[i])
			return false;
	return true;
}

bool fat83_is_device(const char *name)
{
	static const char *const dev[] = { "CON", "PRN", "AUX", "NUL", "CLOCK$" };
	size_t n = strcspn(name, ".");
	unsigned int i;

	for (i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (n == strlen(dev[i]) && prefix_nocase(name, dev[i], n))
			return true;
	if (n == 4 && name[3] >= '0' && name[3] <= '9' &&
	    (prefix_nocase(name, "COM", 3) ||
	     prefix_nocase(name, "LPT", 3)))
		return true;
	return false;
}

/* put's scratch names F83Pnnnn.TMP, undo's FAT83Unn.TMP, the journal FAT83UND.LOG */
bool fat83_is_reserved(const char *name)
{
	size_t nd = prefix_nocase(name, "F83P", 4) ? 4 : prefix_nocase(name, "FAT83U", 6) ? 2 : 0;
	size_t at = 8 - nd;

	if (fat83_eq_nocase(name, "FAT83UND.LOG"))
		return true;
	if (!nd || strspn(name + at, "0123456789") != nd)
		return false;
	return fat83_eq_nocase(name + 8, ".TMP");
}

long fat83_suggest(const char *name,
		   bool (*taken)(const char *cand, void *arg), void *arg,
		   char out[FAT83_NAME_SIZE])
{
	unsigned long k;

	for (k = 0; k <= FAT83_MAX_VARIANT; k++) {
		if (fat83_candidate(name, k, out))
			break;
		if (fat83_is_device(out) || fat83_is_reserved(out))
			continue;
		if (taken && taken(out, arg))
			continue;
		return (long)k;
	}
	out[0] = 0;
	return -1;
}

bool fat83_is_83(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t nb = dot ? (size_t)(dot - name) : strlen(name);
	size_t i;

	if (nb < 1 || nb > 8 || name[0] == '-')
		return false;
	if (dot && (strchr(dot + 1, '.') || !dot[1] || strlen(dot + 1) > 3))
		return false;
	for (i = 0; name[i]; i++)
		if (name + i != dot && !kept((unsigned char)name[i]))
			return false;
	return true;
}

bool fat83_eq_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (up((unsigned char)*a) != up((unsigned char)*b))
			return false;
	return !*a && !*b;
}

void fat83_mountinfo_unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

char *fat83_shell_word(const char *s, char *out, size_t size)
{
	const char *p;
	size_t k = 0;

	if (!size)
		return out;
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_./@%+=:,-") == strlen(s)) {
		snprintf(out, size, "%s", s);
		return out;
	}
#define PUT(c) do { if (k + 1 < size) out[k++] = (c); } while (0)
	PUT('\'');
	for (p = s; *p; p++) {
		if (*p == '\'') {
			PUT('\''); PUT('\\'); PUT('\''); PUT('\'');
		} else {
			PUT(*p);
		}
	}
	PUT('\'');
#undef PUT
	out[k] = '\0';
	return out;
}
