// SPDX-License-Identifier: MIT
/*
 * Accuracy of compensated latencies: leaf20() takes ~20 us, parent10() makes ten calls of
 * child2() (~2 us each) plus ~1 us of its own. `accuracy scale` prints the loop sizes for this
 * machine (ACCURACY_ITERS=...; pass them back in the environment so that every process does
 * the same work); `accuracy truth N` times N interleaved calls of each with no tracing and
 * prints the mean per call in ns (the uninstrumented truth); `accuracy run N` just makes the
 * calls, for perfgate to trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;
static unsigned long k_leaf = 20000, k_child = 2000, k_parent = 1000;

__attribute__((noinline)) void leaf20(void) { for (unsigned long i = 0; i < k_leaf; i++) sink += i; }
__attribute__((noinline)) void child2(void) { for (unsigned long i = 0; i < k_child; i++) sink += i; }
__attribute__((noinline)) void parent10(void)
{
	for (unsigned long i = 0; i < k_parent; i++)
		sink += i;
	for (int c = 0; c < 10; c++)
		child2();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* scale the loops so that leaf20 takes ~20 us and child2 ~2 us on this machine */
static void calibrate(void)
{
	double t = now();

	for (unsigned long i = 0; i < 10000000; i++)
		sink += i;
	t = (now() - t) / 10000000;	/* ns per iteration */
	k_leaf = (unsigned long)(20000 / t);
	k_child = (unsigned long)(2000 / t);
	k_parent = (unsigned long)(1000 / t);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 300;
	const char *kf = getenv("ACCURACY_ITERS");

	if (kf) {
		sscanf(kf, "%lu,%lu,%lu", &k_leaf, &k_child, &k_parent);
	} else {
		calibrate();
		printf("ACCURACY_ITERS=%lu,%lu,%lu\n", k_leaf, k_child, k_parent);
		if (argc > 1 && !strcmp(argv[1], "scale"))
			return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "truth")) {
		/* the same interleaved calls as `run`, each timed; minus the clock's own cost */
		double leaf = 0, parent = 0, clk = 1e300, t0, t1, t2;

		for (int i = 0; i < 1000; i++) {
			t0 = now();
			t1 = now();
			clk = t1 - t0 < clk ? t1 - t0 : clk;
		}
		for (int i = 0; i < n; i++) {
			t0 = now();
			leaf20();
			t1 = now();
			parent10();
			t2 = now();
			leaf += t1 - t0 - clk;
			parent += t2 - t1 - clk;
		}
		printf("leaf20 %.1f\nparent10 %.1f\n", leaf / n, parent / n);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		leaf20();
		parent10();
	}
	return 0;
}
