// SPDX-License-Identifier: MIT
/*
 * A change that is real but does not matter to the program: main calls work() 80 times
 * (~2.5 ms each, ~200 ms in all) and once_small() once (~20-40 us). PG_SLOW_SMALL=1 makes
 * once_small() three times as slow (+200%): ~40-80 us more in a ~200 ms run, 0.02-0.04% of
 * it. (With 40 calls of work(), ~100 ms on today's machines, it was 0.08%, and a slow moment
 * of the machine on one side pushed it over the 0.1% line.)
 */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long k)
{
	for (unsigned long i = 0; i < 2500000; i++)
		sink += i ^ k;
}

__attribute__((noinline)) void once_small(unsigned long reps)
{
	/* ~0.5 ns an iteration on the project machines: ~20 us of its own, more than its probes */
	for (unsigned long i = 0; i < 40000 * reps; i++)
		sink += i;
}

int main(void)
{
	once_small(getenv("PG_SLOW_SMALL") ? 3 : 1);
	for (unsigned long k = 0; k < 80; k++)
		work(k);
	return 0;
}
