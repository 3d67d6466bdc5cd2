// SPDX-License-Identifier: MIT
/*
 * A benchmark on a model shared machine: each process draws its own speed, and every function
 * of it does that much more work: most processes within 3%, about one in three 20-50% slower
 * all over (a neighbour took the CPU). The first argument P makes work0() do P% more work on
 * top (default 0). work0() .. work5() are leaves of ~300 us; main calls each 10 times.
 * With SHARED_CPU_SEQ=FILE the draws follow a fixed sequence instead: FILE holds the index of
 * the next process's (none: 0), so that a test's session sees the same machine every time.
 * SHARED_CPU_SLOWER=P makes the machine P% slower on top: a recording made at another moment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

volatile unsigned long sink;
static double speed = 1;

static unsigned long spin(unsigned long x, double iters)
{
	for (unsigned long i = 0; i < (unsigned long)(iters * speed); i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static double slow0 = 1;

__attribute__((noinline)) unsigned long work0(unsigned long x) { return spin(x, 300000 * slow0); }
__attribute__((noinline)) unsigned long work1(unsigned long x) { return spin(x, 300000); }
__attribute__((noinline)) unsigned long work2(unsigned long x) { return spin(x, 300000); }
__attribute__((noinline)) unsigned long work3(unsigned long x) { return spin(x, 300000); }
__attribute__((noinline)) unsigned long work4(unsigned long x) { return spin(x, 300000); }
__attribute__((noinline)) unsigned long work5(unsigned long x) { return spin(x, 300000); }

/* the next draw of the fixed sequence in @path, as two 32-bit halves (splitmix64) */
static int draw_seq(const char *path, unsigned int r[2])
{
	unsigned long long n = 0, z;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f || fprintf(f, "%llu\n", n + 1) < 0 || fclose(f))
		return -1;
	z = (n + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	r[0] = (unsigned int)(z >> 32);
	r[1] = (unsigned int)z;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int r[2] = { 0, 0 };
	const char *seq = getenv("SHARED_CPU_SEQ");

	if (seq ? draw_seq(seq, r) : getrandom(r, sizeof(r), 0) != sizeof(r))
		return 3;
	if (r[0] % 3 == 0)
		speed = 1.2 + 0.3 * (r[1] / 4294967296.0);
	else
		speed = 1 + 0.03 * (r[1] / 4294967296.0);
	if (getenv("SHARED_CPU_SLOWER"))
		speed *= 1 + strtod(getenv("SHARED_CPU_SLOWER"), NULL) / 100;
	if (argc > 1)
		slow0 = 1 + strtod(argv[1], NULL) / 100;
	for (unsigned long i = 0; i < 10; i++)
		sink += work0(i) + work1(i) + work2(i) + work3(i) + work4(i) + work5(i);
	return 0;
}
