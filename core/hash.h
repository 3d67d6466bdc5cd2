/* SPDX-License-Identifier: MIT */
/*
 * core/hash.h - FNV-1a, the one string hash of perfgate's tables (symbol caches, frame
 * tables, code digests). Not for anything an adversary chooses to collide.
 *
 *	uint64_t h = pg_fnv1a(PG_FNV1A_INIT, name, strlen(name));
 *
 * Feeding two pieces in turn, the first's result as @h of the second, hashes them as one.
 */
#ifndef PG_HASH_H
#define PG_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PG_FNV1A_INIT 0xcbf29ce484222325ull	/* the 64-bit offset basis */

static inline uint64_t pg_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

#endif
