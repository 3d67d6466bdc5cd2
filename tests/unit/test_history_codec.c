// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_codec.c - the history's blobs (history/codec.h): values back within
 * half a step, counts and other values exactly, corrupt blobs refused, summaries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../history/codec.h"

static void roundtrip(const double *v, size_t n, int counts, char kind, double tol)
{
	uint8_t *b;
	size_t len, m;
	double *w;

	assert_int_equal(pg_hcodec_encode(v, n, counts, &b, &len), 0);
	assert_int_equal(b[0], kind);
	assert_int_equal(pg_hcodec_decode(b, len, &w, &m), 0);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++) {
		if (tol)
			assert_true(fabs(w[i] / v[i] - 1) <= tol);
		else
			assert_true(w[i] == v[i] || (isnan(w[i]) && isnan(v[i])));
	}
	free(w);
	free(b);
}

static void test_times(void **st)
{
	double v[30];

	for (int i = 0; i < 30; i++)
		v[i] = 12345.678 * (1 + 0.03 * sin(i)) * (i == 7 ? 40 : 1);
	/* half a step of the log: 2^-12, 0.0244% */
	roundtrip(v, 30, 0, 'q', 0.000245);
	v[3] = -1;
	roundtrip(v, 30, 0, 'd', 0);
	v[3] = 0;
	roundtrip(v, 30, 0, 'd', 0);
}

static void test_compact(void **st)
{
	double v[30];
	uint8_t *b;
	size_t len;

	for (int i = 0; i < 30; i++)
		v[i] = 1000 * (1 + 0.02 * cos(i));
	assert_int_equal(pg_hcodec_encode(v, 30, 0, &b, &len), 0);
	/* kind, reference, count, then one byte a value within 3% of the median */
	assert_true(len <= 1 + 8 + 1 + 30);
	free(b);
	for (int i = 0; i < 30; i++)
		v[i] = 300;
	assert_int_equal(pg_hcodec_encode(v, 30, 1, &b, &len), 0);
	assert_int_equal(len, 1 + 1 + 2 + 1);	/* 'c', n, (300, 30) */
	free(b);
}

static void test_counts(void **st)
{
	double v[6] = { 300, 300, 301, 301, 0, 9007199254740992.0 };

	roundtrip(v, 6, 1, 'c', 0);
	v[2] = 1.5;
	roundtrip(v, 6, 1, 'd', 0);
}

static void test_corrupt(void **st)
{
	double v[4] = { 10, 11, 12, 13 }, *w;
	uint8_t *b, bad[] = { 'x', 1, 2 }, empty[] = { 'q' };
	size_t len, m;

	assert_int_equal(pg_hcodec_decode(bad, sizeof(bad), &w, &m), -EINVAL);
	assert_int_equal(pg_hcodec_decode(empty, sizeof(empty), &w, &m), -EINVAL);
	assert_int_equal(pg_hcodec_encode(v, 4, 0, &b, &len), 0);
	/* cut short, or with a byte too many */
	assert_int_equal(pg_hcodec_decode(b, len - 1, &w, &m), -EINVAL);
	b = realloc(b, len + 1);
	b[len] = 0;
	assert_int_equal(pg_hcodec_decode(b, len + 1, &w, &m), -EINVAL);
	assert_null(w);
	/* a count beyond the limit */
	b[9] = 0xff;
	b[10] = 0xff;
	assert_int_equal(pg_hcodec_decode(b, len, &w, &m), -EINVAL);
	free(b);
}

static void test_summary(void **st)
{
	int64_t ids[4] = { 3, 4, 200, 100000 }, *ri;
	double v[4] = { 1.5, 2000.25, 0, 123456789 }, *rv;
	uint8_t *ob, *vb;
	size_t ol, vl, n;

	assert_int_equal(pg_hcodec_summary_encode(ids, v, 4, &ob, &ol, &vb, &vl), 0);
	assert_int_equal(vl, 16);
	assert_int_equal(pg_hcodec_summary_decode(ob, ol, vb, vl, &ri, &rv, &n), 0);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ri[i], ids[i]);
		assert_true(fabs(rv[i] - v[i]) <= 1e-7 * v[i]);
	}
	free(ri);
	free(rv);
	/* ids and values that do not match */
	assert_int_equal(pg_hcodec_summary_decode(ob, ol, vb, vl - 4, &ri, &rv, &n), -EINVAL);
	assert_null(ri);
	assert_int_equal(pg_hcodec_summary_decode(ob, ol, vb, vl - 1, &ri, &rv, &n), -EINVAL);
	free(ob);
	free(vb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
