/* SPDX-License-Identifier: GPL-2.0 */
/* The in-guest programs' reproducible random stream (splitmix64), seeded per batch or image. */
#ifndef NLC_SPLITMIX_H
#define NLC_SPLITMIX_H

#include <stdint.h>

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n-1 */
static unsigned int rn(unsigned int n)
{
	return n ? next() % n : 0;
}

#endif /* NLC_SPLITMIX_H */
