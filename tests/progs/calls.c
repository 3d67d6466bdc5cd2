// SPDX-License-Identifier: MIT
/* Exact call counts: count_a 1000 times, count_b 37 times, never_called never. */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void count_a(unsigned long i) { sink += i; }
__attribute__((noinline)) void count_b(unsigned long i) { sink ^= i; }
__attribute__((noinline)) void never_called(void) { sink = 0; }

int main(int argc, char **argv)
{
	for (unsigned long i = 0; i < 1000; i++)
		count_a(i);
	for (unsigned long i = 0; i < 37; i++)
		count_b(i);
	if (argc > 5)
		never_called();
	return 0;
}
