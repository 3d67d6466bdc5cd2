// SPDX-License-Identifier: MIT
/*
 * A benchmark with a knob: PG_SLOW=P, or a first argument P, makes leaf_hash() do P% more work
 * (default 0); a second argument, an exit status or "abort", makes it fail when done (ab tests).
 * checksum() calls leaf_hash() and leaf_mix(); main calls checksum() 300 times. */
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;
static unsigned long hash_iters = 20000;

__attribute__((noinline)) unsigned long leaf_hash(unsigned long x)
{
	for (unsigned long i = 0; i < hash_iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_mix(unsigned long x)
{
	for (unsigned long i = 0; i < 20000; i++)
		x ^= x >> 13, x *= 0x9e3779b97f4a7c15UL;
	return x;
}

__attribute__((noinline)) unsigned long checksum(unsigned long seed)
{
	unsigned long x = seed;

	for (unsigned long i = 0; i < 5000; i++)
		x += i * seed;
	return leaf_mix(leaf_hash(x));
}

int main(int argc, char **argv)
{
	const char *slow = argc > 1 ? argv[1] : getenv("PG_SLOW");

	if (slow)
		hash_iters += hash_iters * strtoul(slow, NULL, 10) / 100;
	for (unsigned long i = 0; i < 300; i++)
		sink += checksum(i);
	if (argc > 2 && !strcmp(argv[2], "abort"))
		abort();
	return argc > 2 ? atoi(argv[2]) : 0;
}
