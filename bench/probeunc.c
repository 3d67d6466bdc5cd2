// SPDX-License-Identifier: MIT
/*
 * The calibration's uncertainty against the truth (bench/probeunc.py): work() does ~W us of
 * work a call (W: PU_WORK_US, default 2), times SLOW (a build flag, 1.0, 1.2 or 1.4), so that
 * a traced call's probe cost (1.4-10 us) is a large share of it. Its twin work_u(), the same
 * loop but never traced, is timed by the program itself, call by call interleaved with work().
 * Run alone (no perfgate), base and new builds alternating, the fastest process of each side
 * gives the truth; timed inside the processes perfgate traces, the twin sees the same moments
 * as the traced calls, probes included, and is kept beside the truth for comparison.
 *
 * `probeunc N` makes N rounds of work_u (timed), work; it appends "SLOW MEAN_NS" to the file
 * $PU_TRUTH when set: the twin's mean time per call but its slowest 5% (preempted, or hit by
 * a timer: as perfgate leaves out a leaf's slowest 5%, diff/repvalues.h). The loop's length
 * is $PU_K x SLOW iterations; without PU_K it is scaled to W us a call, and `probeunc 0`
 * prints it (the harness scales once, so that every process and build does the same work).
 * Built three ways by the harness: gcc -O2 (work's first instruction single-stepped), gcc -O2
 * -pg -mfentry -mnop-mcount (a 5-byte nop), clang -O2 -fpatchable-function-entry=5.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef SLOW
#define SLOW 1.0
#endif

volatile unsigned long sink;
static unsigned long k_work = 2000;

/* the twins share their loop (spin.h) */
#include "spin.h"

__attribute__((noinline)) void work(void) { spin(k_work); }
__attribute__((noinline)) void work_u(void) { spin(k_work); }

#define MAX_CALLS 1000000

static double one[MAX_CALLS];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The mean of @v[0..n) but its slowest 5% (sorts @v). */
static double trimmed_mean(double *v, long n)
{
	long keep = n - n / 20;
	double sum = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (long i = 0; i < keep; i++)
		sum += v[i];
	return keep ? sum / (double)keep : 0;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* the loop's length for ~@us microseconds a call on this machine now (before SLOW) */
static unsigned long scale(double us)
{
	double t0 = now_ns();

	spin(100000);
	return (unsigned long)(us * 1e3 * 100000 / (now_ns() - t0 + 1)) + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	const char *w = getenv("PU_WORK_US"), *k = getenv("PU_K"), *path = getenv("PU_TRUTH");
	FILE *f;

	k_work = k ? strtoul(k, NULL, 10) : scale(w ? atof(w) : 2.0);
	if (!n) {
		printf("%lu\n", k_work);
		return 0;
	}
	k_work = (unsigned long)((double)k_work * SLOW);
	n = n < MAX_CALLS ? n : MAX_CALLS;
	for (long r = 0; r < n; r++) {
		double a = now_ns();

		work_u();
		one[r] = now_ns() - a;
		work();
	}
	if (path) {
		f = fopen(path, "a");
		if (!f)
			return 1;
		fprintf(f, "%.2f %.3f\n", SLOW, trimmed_mean(one, n));
		fclose(f);
	}
	return 0;
}
