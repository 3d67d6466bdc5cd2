// SPDX-License-Identifier: MIT
/* Per-call probe cost: calls target() N times and prints the mean ns per call it measured. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void target(unsigned long i) { sink += i; }
int main(int argc, char **argv) {
	struct timespec a, b; long n = argc > 1 ? atol(argv[1]) : 200000;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) target(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
