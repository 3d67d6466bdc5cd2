// SPDX-License-Identifier: MIT
/*
 * dupnames: a C++ function that g++ -O2 clones (a constant argument: work(int, int)
 * .constprop.0) in each of two translation units, c1.cc and c2.cc: two local symbols
 * _ZL4workmm.constprop.0 with one name.
 */
volatile unsigned long sink_c1;

static __attribute__((noinline)) unsigned long work(unsigned long n, unsigned long mul)
{
	for (unsigned long i = 0; i < n; i++)
		sink_c1 += i * mul;
	return sink_c1;
}

extern "C" unsigned long run_c1(unsigned long scale)
{
	unsigned long r = 0;

	for (int i = 0; i < 20; i++)
		r += work(30000 * scale, 7);
	return r;
}
