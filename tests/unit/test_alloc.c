// SPDX-License-Identifier: MIT
/* core/alloc.h and core/strv.h: growth keeps what was there, strv copies deeply */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/alloc.h"
#include "../../core/strv.h"

static void test_grow(void **state)
{
	uint64_t *v = NULL;
	size_t n = 0, alloc = 0;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++) {
		assert_int_equal(PG_ALLOC_GROW(v, n + 1, alloc), 0);
		assert_true(alloc >= n + 1);
		v[n++] = i * 3;
	}
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 3);
	/* room already there: no change */
	size_t before = alloc;
	assert_int_equal(PG_ALLOC_GROW(v, 10, alloc), 0);
	assert_int_equal(alloc, before);
	/* impossible sizes fail and leave the array alone */
	assert_int_equal(PG_ALLOC_GROW(v, SIZE_MAX / 2, alloc), -ENOMEM);
	assert_int_equal(alloc, before);
	assert_int_equal(v[999], 2997);
	free(v);
}

static void test_grow_pow2(void **state)
{
	int *v = NULL;

	(void)state;
	for (size_t n = 0; n < 300; n++) {
		assert_int_equal(PG_ALLOC_GROW_POW2(v, n), 0);
		v[n] = (int)n;
	}
	for (size_t n = 0; n < 300; n++)
		assert_int_equal(v[n], (int)n);
	free(v);
}

static void test_strv(void **state)
{
	char **a = NULL, **b = NULL;
	size_t na = 0, nb = 0;

	(void)state;
	assert_int_equal(pg_strv_push(&a, &na, "zstd"), 0);
	assert_int_equal(pg_strv_push(&a, &na, "-3"), 0);
	assert_int_equal(na, 2);
	assert_int_equal(pg_strv_dup(&b, &nb, a, na), 0);
	assert_true(pg_strv_equal(a, na, b, nb));
	assert_ptr_not_equal(a[0], b[0]);
	free(b[1]);
	b[1] = strdup("-4");
	assert_false(pg_strv_equal(a, na, b, nb));
	assert_false(pg_strv_equal(a, na, b, 1));
	assert_true(pg_strv_equal(NULL, 0, NULL, 0));
	pg_strv_free(b, nb);
	assert_int_equal(pg_strv_dup(&b, &nb, NULL, 0), 0);
	assert_null(b);
	assert_int_equal(nb, 0);
	pg_strv_free(a, na);
	pg_strv_free(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_grow_pow2),
		cmocka_unit_test(test_strv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
