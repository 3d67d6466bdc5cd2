// SPDX-License-Identifier: MIT
/*
 * Twelve leaves, work0() .. work11(), of ~200 us, each called 10 times: a program whose
 * functions each vary between recordings on their own, as code placed otherwise in the caches
 * does. OWN_NOISE_SEED=S draws each function's own factor for this recording, within
 * +-OWN_NOISE_PCT% (default 8), from S (splitmix64): two recordings with other seeds are two
 * recordings of one build whose functions moved apart by up to 16%. The first argument P
 * makes work0() do P% more work on top (default 0). The factors are the same in every
 * repetition of a recording, so the rank test over its repetitions cannot see them.
 */
#include <stdio.h>
#include <stdlib.h>

#define NWORK 12

volatile unsigned long sink;
static double own[NWORK];

static unsigned long spin(unsigned long x, double iters)
{
	for (unsigned long i = 0; i < (unsigned long)iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

#define WORK(n) \
	__attribute__((noinline)) unsigned long work##n(unsigned long x) \
	{ return spin(x, 200000 * own[n]); }
WORK(0) WORK(1) WORK(2) WORK(3) WORK(4) WORK(5)
WORK(6) WORK(7) WORK(8) WORK(9) WORK(10) WORK(11)

static unsigned long long splitmix(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	const char *seed = getenv("OWN_NOISE_SEED"), *pct = getenv("OWN_NOISE_PCT");
	unsigned long long s = seed ? strtoull(seed, NULL, 10) : 0;
	double range = (pct ? strtod(pct, NULL) : 8) / 100;

	for (int i = 0; i < NWORK; i++)
		own[i] = 1 + (seed ? range * (2 * (splitmix(&s) >> 11) / 9007199254740992.0 - 1) :
			      0);
	if (argc > 1)
		own[0] *= 1 + strtod(argv[1], NULL) / 100;
	for (unsigned long i = 0; i < 10; i++)
		sink += work0(i) + work1(i) + work2(i) + work3(i) + work4(i) + work5(i) +
			work6(i) + work7(i) + work8(i) + work9(i) + work10(i) + work11(i);
	return 0;
}
