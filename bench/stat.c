// SPDX-License-Identifier: MIT
/*
 * Statistical quality: a program of ~100 ms in which target() holds about 2% of the run time
 * and three stages the rest. PG_SLOW=P makes target() P% slower (PG_SLOW=2.5 allowed), and so
 * does an argument P (`stat 5`: for perfgate ab, whose two sides are two commands).
 * PG_SHARE=S gives target() S% of the run instead of 2% (before PG_SLOW's change).
 * Built with clang -fpatchable-function-entry=5 (cheap probes).
 */
#include <stdlib.h>

volatile unsigned long sink;
static unsigned long target_iters = 32000;

static inline __attribute__((always_inline)) unsigned long lcg(unsigned long x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) void target(void) { sink += lcg(sink, target_iters); }
__attribute__((noinline)) void stage_a(void) { sink += lcg(sink, 520000); }
__attribute__((noinline)) void stage_b(void) { sink += lcg(sink, 480000); }
__attribute__((noinline)) void stage_c(void) { sink += lcg(sink, 560000); }

int main(int argc, char **argv)
{
	const char *slow = argc > 1 ? argv[1] : getenv("PG_SLOW");
	const char *share = getenv("PG_SHARE");

	if (share)	/* of the three stages' 1560000 iterations */
		target_iters = (unsigned long)(1560000 * atof(share) / (100 - atof(share)) + 0.5);
	if (slow)
		target_iters = (unsigned long)(target_iters * (1 + atof(slow) / 100) + 0.5);
	for (int i = 0; i < 50; i++) {
		stage_a();
		stage_b();
		stage_c();
		target();
	}
	return 0;
}
