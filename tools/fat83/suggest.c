// SPDX-License-Identifier: GPL-2.0
/*
 * suggest.c - the 8.3 name fat83 gives a long name; the rules are in
 * suggest.h.  Pure: no system calls, no global state.
 */
#include <stdio.h>
#include <string.h>

#include "suggest.h"

/* Rule 3's kept set, besides letters and digits. */
static const char KEPT_PUNCT[] = "!#$%&'()-@^_`{}";

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

/* The kept characters of [s, e), upper-cased, at most @max of them. */
static size_t filter(const char *s, const char *e, char *out, size_t max)
{
	size_t n = 0;
	int c;

	for (; s < e && n < max; s++) {
		c = kept((unsigned char)*s);
		if (c)
			out[n++] = (char)c;
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
		filter(name, dot, base, 8);
		filter(dot + 1, end, ext, 3);
	} else {
		filter(name, end, base, 8);
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
	static const char *const dev[] = { "CON", "PRN", "AUX", "NUL" };
	size_t n = strcspn(name, ".");
	unsigned int i;

	for (i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (n == 3 && prefix_nocase(name, dev[i], 3))
			return true;
	if (n == 4 && name[3] >= '1' && name[3] <= '9' &&
	    (prefix_nocase(name, "COM", 3) ||
	     prefix_nocase(name, "LPT", 3)))
		return true;
	return false;
}

long fat83_suggest(const char *name,
		   bool (*taken)(const char *cand, void *arg), void *arg,
		   char out[FAT83_NAME_SIZE])
{
	unsigned long k;

	for (k = 0; k <= FAT83_MAX_VARIANT; k++) {
		if (fat83_candidate(name, k, out))
			break;
		if (fat83_is_device(out))
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

	if (nb < 1 || nb > 8)
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
