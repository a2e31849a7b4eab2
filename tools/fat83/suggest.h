/* SPDX-License-Identifier: GPL-2.0 */
/*
 * suggest.h - the 8.3 name fat83 gives a long name (pure functions, no
 * system calls; unit-tested on the host by suggest_test.c).
 *
 * The rules, in order:
 *  1. Leading dots are dropped (".profile" has no extension: PROFILE).
 *  2. The extension is the part after the last remaining dot, the base is
 *     everything before it; a name without a dot (after 1) has no extension.
 *  3. From both, every character an 8.3 name cannot hold, or that an
 *     8.3-only reader may not open, is dropped: space, the other dots,
 *     + , ; = [ ], the characters no FAT name holds (* ? < > | " : \ /),
 *     control characters, '~' (so that no name looks like a numeric tail
 *     BENCHY~1), '^' (older SdFat, in Marlin and Prusa firmware, refuses
 *     it) and every non-ASCII character but the Latin letters of 3a (one
 *     UTF-8 character is dropped whole).  Letters are upper-cased.  Kept:
 *     A-Z 0-9 ! # $ % & ' ( ) - @ _ ` { }: the punctuation both SdFat's
 *     legal83Char and FatFs's create_name accept.
 *  3a. A Latin letter of U+00C0-U+017F is its ASCII letter without its
 *     marks (Ätzung: ATZUNG, Ł: L, Ð: D), Æ Œ ß Ĳ are AE OE SS IJ; thorn,
 *     kra and eng (Þ ĸ Ŋ) have no one obvious spelling and are dropped.
 *     Combining marks (a name in NFD, as macOS writes it) are dropped,
 *     which leaves the letter they mark.  A byte that starts no valid
 *     UTF-8 sequence is dropped alone.
 *  3b. A '-' that would start the base is dropped (-x.gcode: X.GCO), so
 *     that no name reads as an option to rm, cp and the like.
 *  4. The base is its first 8 characters ("_" when nothing is left of
 *     it), the extension its first 3 (".gcode" -> GCO).
 * On a collision (the caller says which names are taken) the base is
 * varied with a decimal counter in its last characters, never a "~N" tail:
 * BENCHYFI.GCO, BENCHYF1.GCO ... BENCHYF9.GCO, BENCHY10.GCO ...  The DOS
 * device names (CON, PRN, AUX, NUL, CLOCK$, COM0-9, LPT0-9, with any
 * extension) are always taken, and so are fat83's own scratch names and
 * journal (fat83_is_reserved).
 */
#ifndef FAT83_SUGGEST_H
#define FAT83_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* "BASENAME.EXT" and its terminating NUL */
#define FAT83_NAME_SIZE 13

/* The highest counter a candidate can carry (seven digits, one base char) */
#define FAT83_MAX_VARIANT 9999999UL

/*
 * Candidate @k of @name (k = 0: the plain one; k >= 1: the base varied with
 * the counter k) into @out, upper case.  Returns 0, or -1 when k is above
 * FAT83_MAX_VARIANT.
 */
int fat83_candidate(const char *name, unsigned long k,
		    char out[FAT83_NAME_SIZE]);

/*
 * The first candidate of @name that @taken (may be NULL) does not call
 * taken, and that is no DOS device name.  Returns the k used, or -1 when
 * every candidate is taken.
 */
long fat83_suggest(const char *name,
		   bool (*taken)(const char *cand, void *arg), void *arg,
		   char out[FAT83_NAME_SIZE]);

/*
 * Whether @name is an 8.3 name as fat83 writes one, ignoring letter case:
 * a base of 1-8 and an extension of 0-3 characters of the kept set of rule
 * 3 (ASCII only), at most one dot, not first or last, no '~', no '^', no
 * leading '-'.
 */
bool fat83_is_83(const char *name);

/* Whether @name is F83Pnnnn.TMP, FAT83Unn.TMP or FAT83UND.LOG, any case. */
bool fat83_is_reserved(const char *name);

/* Whether the base of @name (before its first dot) is a DOS device name. */
bool fat83_is_device(const char *name);

/*
 * The length of the UTF-8 sequence at @s (before @e) and its code point in
 * *@u; a byte that starts no valid sequence is one byte long, *@u 0.
 */
size_t fat83_utf8_char(const unsigned char *s, const unsigned char *e,
		       unsigned int *u);

/* ASCII case-insensitive equality (what vfat's lookup does for ASCII). */
bool fat83_eq_nocase(const char *a, const char *b);

/*
 * A path as /proc/self/mountinfo prints it (space, tab, newline and
 * backslash as \040 \011 \012 \134) back to the path itself, in place.
 */
void fat83_mountinfo_unescape(char *s);

/*
 * @s as one word a shell reads back as @s (for a command printed to be
 * pasted): as it is when it holds only A-Z a-z 0-9 and _ . / @ % + = : , -,
 * else in single quotes (a quote in it as '\''); in @out of @size bytes,
 * cut short if it does not fit.  Returns @out.
 */
char *fat83_shell_word(const char *s, char *out, size_t size);

#endif /* FAT83_SUGGEST_H */
