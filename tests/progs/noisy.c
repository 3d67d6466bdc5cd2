// SPDX-License-Identifier: MIT
/*
 * A benchmark nothing can be judged on: with no argument, noisy_work() does a fixed amount of
 * work; with "swing FILE", each run does 1.6 times that or 1/1.6 of it, in turn (FILE counts
 * the runs). As the new side of an ab session against the first, every pair differs by
 * +60% or -37.5%, half one way, half the other: each function's and the whole program's
 * change is about 0 with an interval far wider than any minimum effect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long noisy_work(unsigned long x, unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* The runs counted in @path so far; the count incremented. */
static unsigned long next_run(const char *path)
{
	unsigned long n = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%lu\n", n + 1);
		fclose(f);
	}
	return n;
}

int main(int argc, char **argv)
{
	double scale = 1;
	unsigned long x = 1;

	if (argc > 2 && !strcmp(argv[1], "swing"))
		scale = next_run(argv[2]) % 2 ? 1 / 1.6 : 1.6;
	for (int i = 0; i < 20; i++)
		x = noisy_work(x, (unsigned long)(1500000 * scale));
	sink = x;
	return 0;
}
