/* SPDX-License-Identifier: GPL-2.0 */
/* The in-guest image writers' LFN slots: @len UTF-16 units of @u before a short entry of checksum @sum. */
#ifndef NLC_LFN_H
#define NLC_LFN_H

#include <stdint.h>
#include <string.h>
#include <linux/msdos_fs.h>

#include "splitmix.h"

/* @len random units: mostly lower case, some space, dot, upper case and one of @wide */
static void lfn_random_units(uint16_t *u, int len, const uint16_t *wide, unsigned int nwide)
{
	int i;

	for (i = 0; i < len; i++) {
		unsigned int r = rn(10);

		u[i] = r < 6 ? 'a' + rn(26) : r < 7 ? ' ' : r < 8 ? '.' :
		       r < 9 ? 'A' + rn(26) : wide[rn(nwide)];
	}
}

/* writes the slots to @out, last slot first as on disk; returns their count */
static int lfn_write_slots(unsigned char *out, const uint16_t *u, int len, unsigned char sum)
{
	static const int off[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	int ns = (len + 12) / 13, s, i;

	for (s = ns; s >= 1; s--) {
		unsigned char *p = out + (ns - s) * 32;

		memset(p, 0, 32);
		p[0] = s | (s == ns ? 0x40 : 0);
		p[11] = ATTR_EXT;
		p[13] = sum;
		for (i = 0; i < 13; i++) {
			int k = (s - 1) * 13 + i;
			unsigned int v = k < len ? u[k] : k == len ? 0 : 0xffff;

			p[off[i]] = v;
			p[off[i] + 1] = v >> 8;
		}
	}
	return ns;
}

#endif /* NLC_LFN_H */
