// SPDX-License-Identifier: MIT
/*
 * Deep recursion: 10 rounds of recurse(DEPTH) (DEPTH from argv[1], default 200: DEPTH + 1
 * calls a round) and one shallow() call a round. Prints the sum of the results.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long recurse(unsigned long n)
{
	sink++;
	return n ? recurse(n - 1) + 1 : 0;
}

__attribute__((noinline)) void shallow(void) { sink++; }

int main(int argc, char **argv)
{
	unsigned long depth = argc > 1 ? strtoul(argv[1], NULL, 10) : 200, s = 0;

	for (int i = 0; i < 10; i++) {
		s += recurse(depth);
		shallow();
	}
	printf("deep %lu\n", s);
	return 0;
}
