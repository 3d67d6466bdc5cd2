// SPDX-License-Identifier: MIT
/*
 * C++ exceptions: 100 times, ex_catcher(i) calls ex_thrower(10, ...), which recurses 10 deep
 * and, every other time, throws from the bottom; ex_catcher catches it. ex_after() runs once
 * per round. Expected per run: ex_catcher 100, ex_after 100, ex_thrower 11 * 50 = 550 returns
 * (the throwing rounds never return). Prints "caught 50 sum 550".
 */
#include <cstdio>
#include <stdexcept>

volatile unsigned long sink;

__attribute__((noinline)) int ex_thrower(int d, bool do_throw)
{
	sink += (unsigned long)d;
	if (d == 0) {
		if (do_throw)
			throw std::runtime_error("boom");
		return 1;
	}
	return ex_thrower(d - 1, do_throw) + 1;
}

__attribute__((noinline)) int ex_catcher(int i)
{
	try {
		return ex_thrower(10, i % 2);
	} catch (const std::exception &e) {
		return -1;
	}
}

__attribute__((noinline)) void ex_after(void) { sink++; }

int main()
{
	int caught = 0, sum = 0;

	for (int i = 0; i < 100; i++) {
		int r = ex_catcher(i);

		if (r < 0)
			caught++;
		else
			sum += r;
		ex_after();
	}
	printf("caught %d sum %d\n", caught, sum);
	return 0;
}
