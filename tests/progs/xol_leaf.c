// SPDX-License-Identifier: MIT
/*
 * A traced leaf whose probes the kernel single-steps (docs/sampling.md, "Probed
 * instructions"): built with gcc -O2 without frame pointers (see the Makefile), leaf() starts
 * with an instruction that the kernel copies to the uprobe XOL slot and single-steps.
 *   xol_leaf [CALLS [ITERS]]    main -> caller -> leaf, CALLS times ITERS iterations of leaf
 *                               (the defaults: 20000 calls of ~40 us)
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long leaf(unsigned long n)
{
	unsigned long x = n * 7;

	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		sink = x;
	}
	return x;
}

__attribute__((noinline)) unsigned long caller(unsigned long calls, unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < calls; i++)
		s += leaf(n + (i & 1));
	return s;
}

int main(int argc, char **argv)
{
	unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned long iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 40000;
	unsigned long s = caller(calls, iters);

	printf("%lu\n", s & 1);
	return 0;
}
