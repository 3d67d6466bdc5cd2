// SPDX-License-Identifier: MIT
/*
 * Known stacks for the sampling tests.
 *   sample_chain [ITERS]        spins in c(), called as main -> a -> b -> c
 *   sample_chain qsort [ITERS]  spins in cmp(), called by libc's qsort from sort_all()
 *   sample_chain mix A D        spins A iterations in c() (main -> a -> b -> c), then D in d()
 *                               (D times $PG_D_FACTOR, if set: the "change" of the diff tests)
 *   sample_chain thread [ITERS] spins in c() called from a second thread: worker -> a -> b -> c
 *   sample_chain sys [ITERS]    writes to /dev/null from sys_loop(): time in the kernel
 *   sample_chain inline [ITERS] spins in inl_spin(), inlined into outer(): two frames, one pc
 *   sample_chain deep [ITERS]   spins in c() below 48 frames of deep() with 1 KiB each: a
 *                               stack deeper than the unwinder's 16 KiB snapshot
 * Built twice: with frame pointers (sample_chain) and without (sample_chain_nofp).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long c(unsigned long n)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long b(unsigned long n)
{
	return c(n) + 1;
}

__attribute__((noinline)) unsigned long a(unsigned long n)
{
	return b(n) + 1;
}

__attribute__((noinline)) unsigned long d(unsigned long n)
{
	return c(n) + 2;
}

static unsigned long spin;

static int cmp(const void *x, const void *y)
{
	int l = *(const int *)x, r = *(const int *)y;

	for (unsigned long i = 0; i < spin; i++)
		sink += i;
	return (l > r) - (l < r);
}

__attribute__((noinline)) void sort_all(unsigned long iters)
{
	enum { N = 2000 };
	static int v[N];

	spin = iters / (N * 11);	/* ~ N log2 N comparisons */
	for (int i = 0; i < N; i++)
		v[i] = (i * 7919) % N;
	qsort(v, N, sizeof(v[0]), cmp);
	sink += (unsigned long)v[0];
}

static inline __attribute__((always_inline)) unsigned long inl_spin(unsigned long n)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 5);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	return inl_spin(n) + 3;
}

__attribute__((noinline)) unsigned long deep(int n, unsigned long iters)
{
	volatile char buf[1024];

	buf[n] = (char)n;
	if (!n)
		return c(iters);
	return deep(n - 1, iters) + (unsigned long)buf[n];
}

static void *worker(void *arg)
{
	sink += a((unsigned long)arg);
	return NULL;
}

__attribute__((noinline)) void sys_loop(unsigned long n)
{
	static char buf[4096];
	int fd = open("/dev/null", O_WRONLY);

	for (unsigned long i = 0; i < n; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long iters = 300000000;

	if (argc > 1 && !strcmp(argv[1], "qsort")) {
		if (argc > 2)
			iters = strtoul(argv[2], NULL, 10);
		sort_all(iters);
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "mix")) {
		const char *f = getenv("PG_D_FACTOR");

		sink += a(strtoul(argv[2], NULL, 10));
		sink += d(strtoul(argv[3], NULL, 10) * (f ? strtoul(f, NULL, 10) : 1));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;

		if (argc > 2)
			iters = strtoul(argv[2], NULL, 10);
		if (pthread_create(&t, NULL, worker, (void *)iters))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "deep")) {
		sink += deep(48, argc > 2 ? strtoul(argv[2], NULL, 10) : iters);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "inline")) {
		sink += outer(argc > 2 ? strtoul(argv[2], NULL, 10) : iters);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "sys")) {
		sys_loop(argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000);
		return 0;
	}
	if (argc > 1)
		iters = strtoul(argv[1], NULL, 10);
	sink += a(iters);
	return 0;
}
