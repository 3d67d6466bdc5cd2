// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_rnull.c - two recordings judged against their own noise (diff/rnull.h): the
 * null's scale from the references' residual shifts, and an interval widened and a p raised
 * by it; the factor on each interval from the judged functions' z, and its use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../diff/rnull.h"

/* An applied correction with @n references whose shifts are @shift + @d[i]. */
static void refs(struct pg_rspeed *s, struct pg_rspeed_ref *r, size_t n, const double *d,
		 double shift)
{
	memset(s, 0, sizeof(*s));
	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i].d = shift + d[i];
	s->ref = r;
	s->nrefs = n;
	s->applied = true;
	s->shift = shift;
}

static void test_sigma(void **state)
{
	/* residuals +-0.01 .. +-0.04 and one changed by 0.5: |r| median 0.03, the change in */
	const double d[9] = { 0.01, -0.01, 0.02, -0.02, 0.03, -0.03, 0.04, -0.04, 0.5 };
	struct pg_rspeed_ref r[9];
	struct pg_rspeed s;
	double sigma, mad_sd = 1.482602218505602 * 0.03;
	size_t n;

	refs(&s, r, 9, d, 0.3);
	r[8].changed = true;
	assert_int_equal(pg_rnull_sigma(&s, &sigma, &n), 0);
	assert_int_equal(n, 9);
	/* the 95% upper bound of sigma from 9 residuals: 1.7x the estimate (chi-square, 8 df) */
	assert_true(sigma > 1.6 * mad_sd && sigma < 1.8 * mad_sd);
	/* the same spread from 600 references: the bound comes near the estimate */
	{
		static struct pg_rspeed_ref many[600];
		double dd[600];

		for (size_t i = 0; i < 600; i++)
			dd[i] = d[i % 8];	/* |r| median 0.025 */
		refs(&s, many, 600, dd, 0.3);
		assert_int_equal(pg_rnull_sigma(&s, &sigma, &n), 0);
		assert_int_equal(n, 600);
		assert_true(sigma > mad_sd * 25 / 30 && sigma < 1.1 * mad_sd * 25 / 30);
	}
	/* not applied, or too few (7 of 8 needed): none */
	refs(&s, r, 7, d, 0);
	assert_int_equal(pg_rnull_sigma(&s, &sigma, &n), 0);
	assert_true(sigma == 0 && n == 0);
	refs(&s, r, 8, d, 0);
	s.applied = false;
	assert_int_equal(pg_rnull_sigma(&s, &sigma, &n), 0);
	assert_true(sigma == 0 && n == 0);
}

static void test_widen(void **state)
{
	struct pg_fcmp f = { .change = 0.03, .ci_lo = 0.02, .ci_hi = 0.04, .p = 1e-6 };
	double l = log1p(0.03), z = 1.959963984540054, lo = l - log1p(0.02);

	/* a 3% change with a narrow interval, against a 5% null: the interval covers 0 now */
	pg_rnull_widen(&f, 0.05, 0.05);
	assert_true(fabs(f.ci_lo - expm1(l - sqrt(lo * lo + z * z * 0.0025))) < 1e-12);
	assert_true(f.ci_lo < 0 && f.ci_hi > 0.1);
	assert_true(fabs(f.p - 2 * 0.5 * erfc(l / 0.05 / sqrt(2))) < 1e-9);
	assert_true(fabs(f.noise - expm1(0.05)) < 1e-12);
	/* a 60% change stays far out: its p the test's own, the interval still above 40% */
	f = (struct pg_fcmp){ .change = 0.6, .ci_lo = 0.55, .ci_hi = 0.65, .p = 1e-6 };
	pg_rnull_widen(&f, 0.05, 0.05);
	assert_true(f.p == 1e-6 && f.ci_lo > 0.4);
	/* no null: nothing moves */
	f = (struct pg_fcmp){ .change = 0.03, .ci_lo = 0.02, .ci_hi = 0.04, .p = 1e-6 };
	pg_rnull_widen(&f, 0, 0.05);
	assert_true(f.ci_lo == 0.02 && f.ci_hi == 0.04 && f.p == 1e-6 && f.noise == 0);
}

static void test_inflation(void **state)
{
	/* |z| 0.5 .. 2 and one change far out (z 40): median |z| 1.0, the change left out */
	const double z[9] = { 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 40 };
	double many[600], lambda;
	size_t n;

	assert_int_equal(pg_rnull_inflation(z, 9, &lambda, &n), 0);
	assert_int_equal(n, 9);
	/* 1.4826 x 1.5 (the median of |z|), by the 95% bound from 9 (1.7x) */
	assert_true(lambda > 1.6 * 1.4826 * 1.5 && lambda < 1.8 * 1.4826 * 1.5);
	/* z that spread like a standard normal's from 600 functions: no wider than needed */
	for (size_t i = 0; i < 600; i++)
		many[i] = (i % 2 ? -0.6745 : 0.6745) * (0.9 + 0.2 * (double)(i % 3) / 2);
	assert_int_equal(pg_rnull_inflation(many, 600, &lambda, &n), 0);
	assert_true(lambda >= 1 && lambda < 1.1);
	/* narrower than a normal's: never below 1 */
	for (size_t i = 0; i < 600; i++)
		many[i] *= 0.2;
	assert_int_equal(pg_rnull_inflation(many, 600, &lambda, &n), 0);
	assert_true(lambda == 1 && n == 600);
	/* too few finite ones (7 of 8): not estimated */
	many[0] = NAN;
	assert_int_equal(pg_rnull_inflation(many, 8, &lambda, &n), 0);
	assert_true(lambda == 0 && n == 0);
}

static void test_inflate(void **state)
{
	/* +20% [+10%, +31%] at alpha 0.05: z from the half-width towards zero */
	struct pg_fcmp f = { .change = 0.2, .ci_lo = 0.1, .ci_hi = 0.31, .p = 1e-4 };
	double l = log1p(0.2), h = l - log1p(0.1), z = pg_rnull_z(&f, 0.05);

	assert_true(fabs(z - l / h * 1.959963984540054) < 1e-9);
	pg_rnull_inflate(&f, z, 2);
	assert_true(fabs(f.ci_lo - expm1(l - 2 * h)) < 1e-12);
	assert_true(fabs(f.ci_hi - expm1(l + 2 * (log1p(0.31) - l))) < 1e-12);
	assert_true(f.ci_lo < 0.01);	/* covers no change now */
	assert_true(fabs(f.p - erfc(z / 2 / sqrt(2))) < 1e-9);
	/* a slowdown: the side towards zero is the lower one; an improvement, the upper */
	f = (struct pg_fcmp){ .change = -0.2, .ci_lo = -0.3, .ci_hi = -0.1, .p = 1e-4 };
	assert_true(pg_rnull_z(&f, 0.05) < 0);
	assert_true(fabs(pg_rnull_z(&f, 0.05) - log1p(-0.2) / (log1p(-0.1) - log1p(-0.2)) *
			 1.959963984540054) < 1e-9);
	/* no finite interval: no z, nothing moves */
	f = (struct pg_fcmp){ .change = 0.2, .ci_lo = 0.1, .ci_hi = INFINITY, .p = 1e-4 };
	assert_true(isnan(pg_rnull_z(&f, 0.05)));
	pg_rnull_inflate(&f, NAN, 2);
	assert_true(f.ci_lo == 0.1 && f.p == 1e-4);
	/* a factor of 1: nothing moves */
	f = (struct pg_fcmp){ .change = 0.2, .ci_lo = 0.1, .ci_hi = 0.31, .p = 1e-4 };
	pg_rnull_inflate(&f, pg_rnull_z(&f, 0.05), 1);
	assert_true(f.ci_lo == 0.1 && f.ci_hi == 0.31 && f.p == 1e-4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigma),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_inflation),
		cmocka_unit_test(test_inflate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
