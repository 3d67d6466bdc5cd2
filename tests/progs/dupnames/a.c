// SPDX-License-Identifier: MIT
/* dupnames: a static step() in two translation units (a.c, b.c) with different costs. */
volatile unsigned long sink_a;

static __attribute__((noinline)) void step(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink_a += i;
}

void run_a(unsigned long scale)
{
	for (int i = 0; i < 20; i++)
		step(300000 * scale);
}
