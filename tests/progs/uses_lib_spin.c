// SPDX-License-Identifier: MIT
/* Spins inside libpgtest.so: main -> call_lib -> pgtest_lib_spin (the sampling tests). */
#include <stdlib.h>

void pgtest_lib_spin(unsigned long n);

__attribute__((noinline)) void call_lib(unsigned long n)
{
	pgtest_lib_spin(n);
	pgtest_lib_spin(1);
}

int main(int argc, char **argv)
{
	call_lib(argc > 1 ? strtoul(argv[1], NULL, 10) : 300000000);
	return 0;
}
