// SPDX-License-Identifier: MIT
/*
 * dupnames: functions that share a name in one binary, as real programs have them: a static
 * step() in a.c and in b.c, and a C++ clone work.constprop.0 in c1.cc and in c2.cc.
 * `dupnames [SCALE [slow-b]]`; slow-b (or PG_SLOW_B=1) makes b.c's step() twice as slow (a.c's
 * stays).
 */
#include <stdlib.h>
#include <string.h>

void run_a(unsigned long scale);
void run_b(unsigned long scale);
unsigned long run_c1(unsigned long scale);
unsigned long run_c2(unsigned long scale);

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	int slow_b = getenv("PG_SLOW_B") || (argc > 2 && !strcmp(argv[2], "slow-b"));

	run_a(scale);
	run_b(slow_b ? 2 * scale : scale);
	return (int)(run_c1(scale) + run_c2(scale)) & 0;
}
