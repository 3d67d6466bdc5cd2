// SPDX-License-Identifier: MIT
/*
 * A hot leaf called millions of times, too short and too often called to probe: hot_leaf()
 * (~40 ns) holds about half of the run, other_work() the rest. A first argument P (or
 * PG_SLOW=P) makes hot_leaf() do P% more work. setup() runs once: the function a test traces
 * with -f, so that hot_leaf() is judged from the samples only.
 *
 * Built again as hotleaf_new with -DLEAF_ITERS=52 -DOTHER_ITERS=50: other_work()'s code
 * changes there, and hot_leaf() is 30% slower with the same instructions (it reads its count
 * from leaf_iters).
 */
#include <stdlib.h>

#ifndef LEAF_ITERS
#define LEAF_ITERS 40
#endif
#ifndef OTHER_ITERS
#define OTHER_ITERS 40
#endif

volatile unsigned long sink;
static unsigned long leaf_iters = LEAF_ITERS;

__attribute__((noinline)) unsigned long hot_leaf(unsigned long x)
{
	for (unsigned long i = 0; i < leaf_iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long other_work(unsigned long x)
{
	for (unsigned long i = 0; i < OTHER_ITERS; i++)
		x ^= x >> 13, x *= 0x9e3779b97f4a7c15UL;
	return x;
}

__attribute__((noinline)) unsigned long setup(const char *slow)
{
	if (slow)
		leaf_iters += leaf_iters * strtoul(slow, NULL, 10) / 100;
	return leaf_iters;
}

int main(int argc, char **argv)
{
	unsigned long x = setup(argc > 1 ? argv[1] : getenv("PG_SLOW"));

	for (unsigned long i = 0; i < 3000000; i++)
		x = other_work(hot_leaf(x + i));
	sink = x;
	return 0;
}
