// SPDX-License-Identifier: MIT
/*
 * A hot leaf too short and too often called to probe: leaf() (~50 ns) is called millions of
 * times and holds about 10% of the run's CPU time, stage_a() and stage_b() the rest. An
 * argument P (or PG_SLOW=P) makes leaf() P% slower (in steps of 2.5%: 40 rounds, one more a
 * step), and a second argument N runs N calls instead of the default. Built with clang
 * -fpatchable-function-entry=5, so that a forced probe (-f leaf) is as cheap as one can be.
 */
#include <stdlib.h>

volatile unsigned long sink;
static unsigned long leaf_rounds = 40;

static inline __attribute__((always_inline)) unsigned long lcg(unsigned long x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf(unsigned long x) { return lcg(x, leaf_rounds); }
__attribute__((noinline)) unsigned long stage_a(unsigned long x) { return lcg(x ^ 1, 170); }
__attribute__((noinline)) unsigned long stage_b(unsigned long x) { return lcg(x ^ 2, 190); }

int main(int argc, char **argv)
{
	const char *slow = argc > 1 ? argv[1] : getenv("PG_SLOW");
	unsigned long calls = argc > 2 ? strtoul(argv[2], NULL, 10) : 4000000, x = 1;

	if (slow)
		leaf_rounds = (unsigned long)(leaf_rounds * (1 + atof(slow) / 100) + 0.5);
	for (unsigned long i = 0; i < calls; i++)
		x = stage_b(stage_a(leaf(x + i)));
	sink = x;
	return 0;
}
