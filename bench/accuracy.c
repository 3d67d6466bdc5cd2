// SPDX-License-Identifier: MIT
/*
 * Accuracy of compensated latencies: leaf20() takes ~20 us, parent10() makes ten calls of
 * child2() (~2 us each) plus ~1 us of its own. Each has an identical twin (leaf20_u,
 * parent10_u calling child2_u) that perfgate does not trace: the program times the twins
 * itself, interleaved call by call with the traced functions, so that the truth and
 * perfgate's measurement see the same machine at the same moment (on a shared VM, the speed
 * of the same loop varies by 2x within a second).
 *
 * `accuracy N` makes N rounds of: leaf20_u (timed), leaf20, leaf20_v (timed), parent10_u (timed),
 * parent10, parent10_v (timed); and prints the _u twins' mean time per call in ns ("leaf20 T"
 * and "parent10 T") and their median ("leaf20_p50 T", "parent10_p50 T", as perfgate's p50
 * would be: see quantile()), and the _v twins' mean ("leaf20_floor T", "parent10_floor T"): two
 * untraced copies timed side by side, whose difference is the floor of what one process's
 * figure can be trusted to. Loop sizes are scaled at start so that leaf20 takes ~20 us and
 * child2 ~2 us. (leaf20 calls an untraced spin loop: a leaf as far as perfgate can see.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_ROUNDS 100000

volatile unsigned long sink;
static unsigned long k_leaf = 20000, k_child = 2000, k_parent = 1000;

/* all of them spin in the same function (spin.h says why) */
#include "spin.h"

__attribute__((noinline)) void leaf20(void) { spin(k_leaf); }
__attribute__((noinline)) void leaf20_u(void) { spin(k_leaf); }
__attribute__((noinline)) void leaf20_v(void) { spin(k_leaf); }
__attribute__((noinline)) void child2(void) { spin(k_child); }
__attribute__((noinline)) void child2_u(void) { spin(k_child); }
__attribute__((noinline)) void parent10(void)
{
	spin(k_parent);
	for (int c = 0; c < 10; c++)
		child2();
}
__attribute__((noinline)) void parent10_u(void)
{
	spin(k_parent);
	for (int c = 0; c < 10; c++)
		child2_u();
}
__attribute__((noinline)) void parent10_v(void)
{
	spin(k_parent);
	for (int c = 0; c < 10; c++)
		child2_u();
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v[0..n) with numpy's default ("linear") rule, as perfgate's p50 */
static double quantile(double *v, int n)
{
	double r = 0.5 * (n - 1);
	int i = (int)r;

	qsort(v, n, sizeof(*v), cmp);
	return i + 1 < n ? v[i] + (r - i) * (v[i + 1] - v[i]) : v[i];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* scale the loops so that leaf20 takes ~20 us and child2 ~2 us on this machine */
static void scale(void)
{
	double t = now();

	spin(10000000);
	t = (now() - t) / 10000000;	/* ns per iteration */
	k_leaf = (unsigned long)(20000 / t);
	k_child = (unsigned long)(2000 / t);
	k_parent = (unsigned long)(1000 / t);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	static double lv[MAX_ROUNDS], pv[MAX_ROUNDS];
	double leaf = 0, parent = 0, leaf_v = 0, parent_v = 0, clk = 1e300, t0, t1;

	if (n < 1 || n > MAX_ROUNDS)
		return 2;

	scale();
	for (int i = 0; i < 1000; i++) {	/* the clock's own cost */
		t0 = now();
		t1 = now();
		clk = t1 - t0 < clk ? t1 - t0 : clk;
	}
	for (int i = 0; i < n; i++) {
		t0 = now();
		leaf20_u();
		lv[i] = now() - t0 - clk;
		leaf += lv[i];
		leaf20();
		t0 = now();
		leaf20_v();
		leaf_v += now() - t0 - clk;
		t0 = now();
		parent10_u();
		pv[i] = now() - t0 - clk;
		parent += pv[i];
		parent10();
		t0 = now();
		parent10_v();
		parent_v += now() - t0 - clk;
	}
	printf("leaf20 %.1f\nparent10 %.1f\n", leaf / n, parent / n);
	printf("leaf20_floor %.1f\nparent10_floor %.1f\n", leaf_v / n, parent_v / n);
	printf("leaf20_p50 %.1f\nparent10_p50 %.1f\n", quantile(lv, n), quantile(pv, n));
	return 0;
}
