// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_sort.c - orders that never depend on the sort that made them (core/sort.h):
 * NaN ordered last, indices by a key with ties broken by index whatever order they came in,
 * the median and the selection of one order statistic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/sort.h"

static void test_cmp_double_nan(void **state)
{
	double v[] = { 3, NAN, -1, INFINITY, NAN, 2, -INFINITY, 0 };
	size_t n = sizeof(v) / sizeof(*v);
	double one = 1, nan = NAN;

	(void)state;
	qsort(v, n, sizeof(*v), pg_cmp_double);
	assert_true(v[0] == -INFINITY && v[1] == -1 && v[2] == 0 && v[3] == 2 && v[4] == 3 &&
		    v[5] == INFINITY);
	assert_true(isnan(v[6]) && isnan(v[7]));
	assert_true(pg_cmp_double(&one, &nan) < 0);
	assert_true(pg_cmp_double(&nan, &one) > 0);
	assert_true(pg_cmp_double(&nan, &nan) == 0);
	assert_true(pg_cmp_double(&one, &one) == 0);
}

/* Equal keys given in three orders of their indices: one order out, ties by index. */
static void test_idx_desc_ties(void **state)
{
	const double keys[] = { 5, 7, 5, NAN, 7, 1, 5, 7 };
	const size_t want[] = { 1, 4, 7, 0, 2, 6, 5, 3 };
	enum { N = 8 };
	size_t up[N], down[N], mixed[N] = { 6, 3, 0, 7, 2, 5, 1, 4 };
	uint32_t up32[N], down32[N];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		up[i] = i;
		down[i] = N - 1 - i;
		up32[i] = (uint32_t)i;
		down32[i] = (uint32_t)(N - 1 - i);
	}
	pg_sort_idx_desc(keys, up, N);
	pg_sort_idx_desc(keys, down, N);
	pg_sort_idx_desc(keys, mixed, N);
	pg_sort_idx32_desc(keys, up32, N);
	pg_sort_idx32_desc(keys, down32, N);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(up[i], want[i]);
		assert_int_equal(down[i], want[i]);
		assert_int_equal(mixed[i], want[i]);
		assert_int_equal(up32[i], want[i]);
		assert_int_equal(down32[i], want[i]);
	}
	/* a subset, and nothing to sort */
	{
		size_t sub[] = { 6, 2, 0 };

		pg_sort_idx_desc(keys, sub, 3);
		assert_int_equal(sub[0], 0);
		assert_int_equal(sub[1], 2);
		assert_int_equal(sub[2], 6);
		pg_sort_idx_desc(keys, NULL, 0);
	}
}

/* Many equal keys, shuffled: the same order as a stable sort of the indices in order. */
static void test_idx_desc_shuffled(void **state)
{
	enum { N = 500 };
	double keys[N];
	size_t a[N], b[N];
	uint64_t st = 3;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		keys[i] = (double)(i % 5);
		a[i] = i;
		b[i] = i;
	}
	for (size_t i = N - 1; i > 0; i--) {	/* Fisher-Yates */
		size_t j = (size_t)(pg_test_unif(&st) * (double)(i + 1)), t = b[i];

		b[i] = b[j < i ? j : i];
		b[j < i ? j : i] = t;
	}
	pg_sort_idx_desc(keys, a, N);
	pg_sort_idx_desc(keys, b, N);
	assert_memory_equal(a, b, sizeof(a));
	for (size_t i = 1; i < N; i++)
		assert_true(keys[a[i - 1]] > keys[a[i]] ||
			    (keys[a[i - 1]] == keys[a[i]] && a[i - 1] < a[i]));
}

static void test_median(void **state)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, nan[] = { 1, NAN, 2 };
	double big[101], copy[101];

	(void)state;
	assert_true(isnan(pg_median(odd, 0)));
	assert_true(pg_median(odd, 1) == 5);
	assert_true(pg_median(odd, 3) == 3);
	assert_true(pg_median(even, 4) == 2.5);
	assert_true(pg_median(nan, 3) == 2);	/* 1 2 NaN: NaN sorts last */
	assert_true(isnan(pg_median(nan, 2)));	/* 1 NaN */
	for (size_t i = 0; i < 101; i++)
		big[i] = (double)((i * 37) % 101);
	memcpy(copy, big, sizeof(big));
	assert_true(pg_median(big, 101) == 50);
	assert_true(pg_median(big, 100) == 49.5);	/* 0..100 without 64 (i = 100) */
	assert_memory_equal(big, copy, sizeof(big));	/* the input is left as it was */
}

static void test_select_kth(void **state)
{
	double v[64], s[64];
	uint64_t st = 9;

	(void)state;
	for (size_t k = 0; k < 64; k += 7) {
		for (size_t i = 0; i < 64; i++)
			v[i] = s[i] = floor(10 * pg_test_unif(&st));
		qsort(s, 64, sizeof(*s), pg_cmp_double);
		pg_select_kth(v, 0, 64, k);
		assert_true(v[k] == s[k]);
		for (size_t i = 0; i < 64; i++)
			assert_true(i < k ? v[i] <= v[k] : i > k ? v[i] >= v[k] : 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmp_double_nan),
		cmocka_unit_test(test_idx_desc_ties),
		cmocka_unit_test(test_idx_desc_shuffled),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_select_kth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
