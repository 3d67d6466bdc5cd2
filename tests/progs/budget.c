// SPDX-License-Identifier: MIT
/*
 * For --budget's sampled first pass: hot() holds most of the time (~150 ms in all), tiny()
 * is called 20,000 times (or argv[1] times) and holds well under 1%, late() runs once at the end
 * (~1/6 of the time), never_called() never runs, so that no sampled stack can show it.
 * `budget 2000000`: tiny holds ~1/4 of the time, and its probes would cost ~100 times the
 * program's own time, so a pilot stopped early does not reach late().
 */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void hot(void)
{
	for (unsigned long i = 0; i < 3000000; i++)
		sink += i;
}

__attribute__((noinline)) void tiny(unsigned long i)
{
	for (unsigned long k = 0; k < 16; k++)
		sink ^= i + k;
}
__attribute__((noinline)) void never_called(void) { sink = 0; }

__attribute__((noinline)) void late(void)
{
	for (unsigned long i = 0; i < 30000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;

	for (int i = 0; i < 50; i++)
		hot();
	for (unsigned long i = 0; i < n; i++)
		tiny(i);
	late();
	if (argc > 5)
		never_called();
	return 0;
}
