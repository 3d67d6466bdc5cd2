// SPDX-License-Identifier: MIT
/* A shared library function for the end-to-end tests: libpgtest.so. */
volatile unsigned long pgtest_sink;

__attribute__((noinline)) void pgtest_lib_func(unsigned long i)
{
	pgtest_sink += i;
}

/* Spins for @n iterations: a frame in a shared library for the sampling tests. */
__attribute__((noinline)) void pgtest_lib_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		pgtest_sink += i;
}
