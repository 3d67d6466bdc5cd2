// SPDX-License-Identifier: MIT
/* A shared library function for the end-to-end tests: libpgtest.so. */
volatile unsigned long pgtest_sink;

__attribute__((noinline)) void pgtest_lib_func(unsigned long i)
{
	pgtest_sink += i;
}
