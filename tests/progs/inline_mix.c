// SPDX-License-Identifier: MIT
/*
 * One static inline helper, mix(), that gcc -O2 inlines into every caller: leaf() holds ~20%
 * of the run, spread_0() .. spread_15() together another ~20%, outer() the rest. "leaf" as the
 * first argument makes leaf's call of mix do 15% more rounds; "spread" makes every spread_N's
 * do 15% more. Built with gcc -O2 -g (its own Makefile rule): the samples of mix's copies lie
 * in the machine code of the functions it was inlined into. Each call runs for milliseconds:
 * a loop of calls much shorter than the sampling period would alias with it (a 214 us loop
 * sampled every 500 us read leaf's +15% as +29%).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 2500000L		/* outer's rounds a call; leaf's and spread's are set from it */

static inline uint64_t mix(long n, uint64_t x)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + (1442695040888963407ULL ^ (uint64_t)i);
	return x;
}

static long leaf_rounds = ROUNDS / 3, spread_rounds = ROUNDS / 3 / 16;

__attribute__((noinline)) uint64_t leaf(uint64_t x) { return mix(leaf_rounds, x) ^ 1; }

/* sixteen small functions, each a little different (identical ones would be folded into one) */
#define SPREAD(N) __attribute__((noinline)) uint64_t spread_##N(uint64_t x) \
	{ return mix(spread_rounds, x + N) ^ N; }
SPREAD(0) SPREAD(1) SPREAD(2) SPREAD(3) SPREAD(4) SPREAD(5) SPREAD(6) SPREAD(7)
SPREAD(8) SPREAD(9) SPREAD(10) SPREAD(11) SPREAD(12) SPREAD(13) SPREAD(14) SPREAD(15)

__attribute__((noinline)) uint64_t outer(uint64_t x) { return mix(ROUNDS, x) + 3; }

int main(int argc, char **argv)
{
	uint64_t (*spread[])(uint64_t) = {
		spread_0, spread_1, spread_2, spread_3, spread_4, spread_5, spread_6,
		spread_7, spread_8, spread_9, spread_10, spread_11, spread_12, spread_13,
		spread_14, spread_15,
	};
	uint64_t x = 1;

	if (argc > 1 && !strcmp(argv[1], "leaf"))
		leaf_rounds += leaf_rounds * 15 / 100;
	if (argc > 1 && !strcmp(argv[1], "spread"))
		spread_rounds += spread_rounds * 15 / 100;
	for (int k = 0; k < 20; k++) {
		x = outer(x);
		x = leaf(x);
		for (int j = 0; j < 16; j++)
			x = spread[j](x);
	}
	printf("%llu\n", (unsigned long long)(x & 1));
	return 0;
}
