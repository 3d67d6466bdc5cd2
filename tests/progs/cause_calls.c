// SPDX-License-Identifier: MIT
/*
 * A changed caller that calls an unchanged callee 40% more often (tests/e2e/test_cause.sh).
 * caller() calls callee() CALLS times, 60 here and 84 when built with -DMORE (the Makefile
 * builds both: cause_calls and cause_calls_more): the constant is in caller's instructions,
 * so its machine code differs between the two builds, while callee's, which never sees it, is
 * the same. other() is the rest of the run, unchanged. Each callee call runs for about a
 * millisecond: calls much shorter than the sampling period would alias with it.
 * With -DCHAIN (cause_chain and cause_chain_more) caller() reaches callee() through mid1() and
 * mid2(), unchanged: the changed code is two frames above callee's caller.
 * Built with gcc -O2 -g (its own Makefile rules); noipa keeps gcc from cloning or inlining.
 */
#include <stdint.h>
#include <stdio.h>

#ifdef MORE
#define CALLS 84
#else
#define CALLS 60
#endif

#define ROUNDS 600000L		/* callee's rounds a call */

__attribute__((noipa)) uint64_t callee(uint64_t x)
{
	for (long i = 0; i < ROUNDS; i++)
		x = x * 6364136223846793005ULL + (1442695040888963407ULL ^ (uint64_t)i);
	return x;
}

#ifdef CHAIN
__attribute__((noipa)) uint64_t mid2(uint64_t x)
{
	return callee(x) ^ 3;
}

__attribute__((noipa)) uint64_t mid1(uint64_t x)
{
	return mid2(x) + 5;
}
#define REACH(x) mid1(x)
#else
#define REACH(x) callee(x)
#endif

__attribute__((noipa)) uint64_t caller(uint64_t x)
{
	for (int k = 0; k < CALLS; k++)
		x = REACH(x) + (uint64_t)k;
	return x;
}

__attribute__((noipa)) uint64_t other(uint64_t x)
{
	for (long i = 0; i < 40 * ROUNDS; i++)
		x = x * 2862933555777941757ULL + (3037000493ULL ^ (uint64_t)i);
	return x;
}

int main(void)
{
	uint64_t x = caller(1);

	x = other(x);
	printf("%llu\n", (unsigned long long)(x & 1));
	return 0;
}
