// SPDX-License-Identifier: MIT
/*
 * The spread of what one traced call costs. work() and work_u() are identical ~2 us
 * functions; perfgate traces work() only. `tail N` makes N pairs of calls, the untraced one
 * first, each call followed by ~1 us of untraced work as in perfgate's calibration, and times
 * each call with its work after it (the code after a probe runs slower for a while). The
 * difference within a pair is what the probes of one call cost at that moment. The program
 * prints the quantiles of those differences in ns, their mean, and the mean after the top 1%
 * is dropped ("p50 1640" and so on, one per line).
 *
 * Untraced (`tail N` alone), the differences are the noise of the method: about 0 at every
 * quantile.
 *
 * `tail N T` runs T threads at once, each making N pairs (the quantiles are over all T x N):
 * with T at least the number of CPUs, calls of work() run on several CPUs at the same moment,
 * and a tracer whose counters are shared between CPUs pays for it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_PAIRS 200000
#define MAX_THREADS 16

volatile unsigned long sink;
static unsigned long k_work = 2000, k_gap = 1000;

/* twins share their loop: the speed of a loop on a volatile depends on where it lands */
__attribute__((noinline)) static void spin(unsigned long k)
{
	for (unsigned long i = 0; i < k; i++)
		sink += i;
}

__attribute__((noinline)) void work(void) { spin(k_work); }
__attribute__((noinline)) void work_u(void) { spin(k_work); }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @arg: where this thread's differences go, n of them (static: a thread's stack is small) */
struct pairs {
	double *d;
	int n;
};

static void *make_pairs(void *arg)
{
	struct pairs *p = arg;

	for (int i = 0; i < p->n; i++) {
		double a = now(), b, c;

		work_u();
		spin(k_gap);
		b = now();
		work();
		spin(k_gap);
		c = now();
		p->d[i] = (c - b) - (b - a);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000, nt = argc > 2 ? atoi(argv[2]) : 1;
	static double d[MAX_PAIRS * MAX_THREADS];
	struct pairs p[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	double t, sum = 0, trimmed = 0;
	int keep;

	if (n < 100 || n > MAX_PAIRS || nt < 1 || nt > MAX_THREADS)
		return 2;
	t = now();
	spin(10000000);
	t = (now() - t) / 10000000;	/* ns per iteration */
	k_work = (unsigned long)(2000 / t);
	k_gap = (unsigned long)(1000 / t);
	for (int i = 0; i < nt; i++)
		p[i] = (struct pairs){ .d = d + (size_t)i * n, .n = n };
	for (int i = 1; i < nt; i++)
		if (pthread_create(&tid[i], NULL, make_pairs, &p[i]))
			return 2;
	make_pairs(&p[0]);
	for (int i = 1; i < nt; i++)
		pthread_join(tid[i], NULL);
	n *= nt;
	qsort(d, n, sizeof(*d), cmp);
	keep = n - n / 100;
	for (int i = 0; i < n; i++) {
		sum += d[i];
		if (i < keep)
			trimmed += d[i];
	}
	printf("p1 %.0f\np50 %.0f\np90 %.0f\np99 %.0f\np999 %.0f\nmax %.0f\n", d[n / 100],
	       d[n / 2], d[n * 9 / 10], d[n * 99 / 100], d[n * 999 / 1000], d[n - 1]);
	printf("mean %.1f\nmean_trim1 %.1f\n", sum / n, trimmed / keep);
	return 0;
}
