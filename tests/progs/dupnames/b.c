// SPDX-License-Identifier: MIT
/* dupnames: the other static step(), with a loop of its own. */
volatile unsigned long sink_b;

static __attribute__((noinline)) void step(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink_b ^= i * 3;
}

void run_b(unsigned long scale)
{
	for (int i = 0; i < 20; i++)
		step(200000 * scale);
}
