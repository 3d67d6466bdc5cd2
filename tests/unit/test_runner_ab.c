// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_ab.c - perfgate ab's running order (runner/session/ab.h, pg_ab_order()):
 * balanced in every block, random in which pairs run NEW first. The session itself is tested
 * end to end (tests/e2e/test_ab.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "../../runner/session/ab.h"

static uint32_t count_new_first(const bool *v, uint32_t n)
{
	uint32_t c = 0;

	for (uint32_t k = 0; k < n; k++)
		c += v[k];
	return c;
}

/* every block is balanced: n / 2 pairs NEW first, the odd one either way */
static void test_balanced(void **state)
{
	uint64_t rng = 42;
	bool v[64];
	uint32_t odd_new = 0;

	for (uint32_t n = 1; n <= 64; n++) {
		for (int t = 0; t < 20; t++) {
			uint32_t c;

			pg_ab_order(&rng, n, v);
			c = count_new_first(v, n);
			assert_true(c == n / 2 || (n % 2 && c == n / 2 + 1));
			odd_new += n % 2 && c > n / 2;
		}
	}
	/* the odd pair goes either way: 32 odd sizes x 20 tries */
	assert_in_range(odd_new, 200, 440);
}

/* which pairs run NEW first is random: each position about half the time, orders differ */
static void test_random(void **state)
{
	uint64_t rng = 7;
	uint32_t first[10] = { 0 };
	bool v[10], prev[10] = { false };
	int same = 0;

	for (int t = 0; t < 2000; t++) {
		pg_ab_order(&rng, 10, v);
		for (int k = 0; k < 10; k++)
			first[k] += v[k];
		same += !memcmp(v, prev, sizeof(v));
		memcpy(prev, v, sizeof(v));
	}
	for (int k = 0; k < 10; k++)
		assert_in_range(first[k], 850, 1150);
	/* 252 balanced orders of 10: repeats are rare */
	assert_in_range(same, 0, 40);
}

/* the same seed, the same order (--seed) */
static void test_seeded(void **state)
{
	uint64_t a = 12345, b = 12345;
	bool va[15], vb[15];

	pg_ab_order(&a, 15, va);
	pg_ab_order(&b, 15, vb);
	assert_memory_equal(va, vb, sizeof(va));
	assert_true(a == b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
