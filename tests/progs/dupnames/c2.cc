// SPDX-License-Identifier: MIT
/*
 * dupnames: the twin of c1.cc (see there), twice the work.
 * .constprop.0) in each of two translation units, c2.cc and c2.cc: two local symbols
 * _ZL4workmm.constprop.0 with one name.
 */
volatile unsigned long sink_c2;

static __attribute__((noinline)) unsigned long work(unsigned long n, unsigned long mul)
{
	for (unsigned long i = 0; i < n; i++)
		sink_c2 += i * mul;
	return sink_c2;
}

extern "C" unsigned long run_c2(unsigned long scale)
{
	unsigned long r = 0;

	for (int i = 0; i < 20; i++)
		r += work(60000 * scale, 11);
	return r;
}
