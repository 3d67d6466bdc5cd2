// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_changepoint.c - E-divisive change points (diff/changepoint.h) on synthetic
 * series with known change points, and the t distribution behind the merge step.
 *
 * A series is a level times exp(sd * N(0, 1)) noise from a fixed generator; a step multiplies
 * the level from a known session on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "../../diff/changepoint.h"

static uint64_t state;

static double gauss(void)
{
	return pg_test_gauss(&state);
}

/* x[0..n): 1000 ns with noise @sd, times @f1 from @at1 on and @f2 from @at2 on (0: none). */
static void series(double *x, size_t n, double sd, size_t at1, double f1, size_t at2, double f2)
{
	for (size_t i = 0; i < n; i++) {
		double level = 1000;

		if (at1 && i >= at1)
			level *= f1;
		if (at2 && i >= at2)
			level *= f2;
		x[i] = level * exp(sd * gauss());
	}
}

static void test_t_distribution(void **st)
{
	/* scipy.stats.t.sf */
	assert_true(fabs(pg_t_sf(2.262157, 9) - 0.025) < 1e-6);
	assert_true(fabs(pg_t_sf(1.0, 1) - 0.25) < 1e-9);
	assert_true(fabs(pg_t_sf(0, 5) - 0.5) < 1e-12);
	assert_true(fabs(pg_t_sf(-2.0, 30) - 0.9726875) < 1e-6);
	assert_true(fabs(pg_t_isf(0.025, 9) - 2.262157) < 1e-5);
	assert_true(fabs(pg_t_isf(0.975, 9) + 2.262157) < 1e-5);
	assert_true(fabs(pg_t_isf(0.0005, 3) - 12.92398) < 1e-3);
}

static void test_one_step(void **st)
{
	double x[60];
	struct pg_cp *cp;
	size_t n;

	state = 1;
	series(x, 60, 0.01, 30, 1.10, 0, 1);
	assert_int_equal(pg_changepoints(x, 60, NULL, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].index, 30);
	assert_true(cp[0].change > 0.09 && cp[0].change < 0.11);
	assert_true(cp[0].ci_lo < cp[0].change && cp[0].change < cp[0].ci_hi);
	assert_true(cp[0].ci_lo > 0.05);
	assert_true(cp[0].p <= 0.001 && cp[0].perm_p <= 0.01);
	assert_int_equal(cp[0].n_before, 30);
	assert_int_equal(cp[0].n_after, 30);
	free(cp);
}

static void test_two_steps_long(void **st)
{
	double x[300];
	struct pg_cp *cp;
	size_t n;

	state = 7;
	/* across several windows: a slowdown at 120 and a recovery at 210 */
	series(x, 300, 0.02, 120, 1.08, 210, 1 / 1.08);
	assert_int_equal(pg_changepoints(x, 300, NULL, &cp, &n), 0);
	assert_int_equal(n, 2);
	assert_true(cp[0].index >= 119 && cp[0].index <= 121);
	assert_true(cp[1].index >= 209 && cp[1].index <= 211);
	assert_true(cp[0].change > 0.05 && cp[1].change < -0.04);
	free(cp);
}

/* No change: no change point in 20 series of 100 sessions (at max_p 0.001, a few windows each) */
static void test_no_change(void **st)
{
	double x[100];
	size_t found = 0;

	state = 42;
	for (int r = 0; r < 20; r++) {
		struct pg_cp *cp;
		size_t n;

		series(x, 100, 0.03, 0, 1, 0, 1);
		assert_int_equal(pg_changepoints(x, 100, NULL, &cp, &n), 0);
		found += n;
		free(cp);
	}
	assert_int_equal(found, 0);
}

/* A change too small for min_magnitude is merged away; a constant series has none */
static void test_magnitude_and_constant(void **st)
{
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	double x[60];
	struct pg_cp *cp;
	size_t n;

	state = 3;
	series(x, 60, 0.002, 30, 1.02, 0, 1);
	assert_int_equal(pg_changepoints(x, 60, &o, &cp, &n), 0);
	assert_int_equal(n, 1);
	free(cp);
	o.min_magnitude = 0.05;
	assert_int_equal(pg_changepoints(x, 60, &o, &cp, &n), 0);
	assert_int_equal(n, 0);
	assert_null(cp);
	for (int i = 0; i < 60; i++)
		x[i] = 5;
	assert_int_equal(pg_changepoints(x, 60, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
}

static void test_bad_input(void **st)
{
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	double x[4] = { 1, 2, 0, 3 };
	struct pg_cp *cp;
	size_t n;

	assert_int_equal(pg_changepoints(x, 4, NULL, &cp, &n), -EINVAL);
	x[2] = NAN;
	assert_int_equal(pg_changepoints(x, 4, NULL, &cp, &n), -EINVAL);
	x[2] = 2;
	o.window = 2;
	assert_int_equal(pg_changepoints(x, 4, &o, &cp, &n), -EINVAL);
	assert_int_equal(pg_changepoints(x, 1, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
}

/* Same seed, same answer */
static void test_deterministic(void **st)
{
	double x[80];
	struct pg_cp *a, *b;
	size_t na, nb;

	state = 11;
	series(x, 80, 0.03, 50, 1.06, 0, 1);
	assert_int_equal(pg_changepoints(x, 80, NULL, &a, &na), 0);
	assert_int_equal(pg_changepoints(x, 80, NULL, &b, &nb), 0);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].index, b[i].index);
		assert_true(a[i].perm_p == b[i].perm_p);
	}
	free(a);
	free(b);
}

/* A change point just where the resumed search starts is kept */
static void test_resume_boundary(void **st)
{
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	double x[241];
	struct pg_cp *weak, *a, *b;
	size_t nweak, na, nb;

	o.min_magnitude = 0.05;	/* as history changes: no 1% change points of the noise */
	state = 6;
	/* resumed at 240 - 2 * 50 = 140: the step there */
	series(x, 241, 0.02, 140, 1.15, 0, 1);
	assert_int_equal(pg_changepoints_resume(x, 240, &o, NULL, 0, 0, &weak, &nweak, &a, &na),
			 0);
	assert_int_equal(na, 1);
	assert_int_equal(a[0].index, 140);
	free(a);
	assert_int_equal(pg_changepoints_resume(x, 241, &o, weak, nweak, 240, NULL, NULL, &b,
						&nb), 0);
	assert_int_equal(nb, 1);
	assert_int_equal(b[0].index, 140);
	free(weak);
	free(b);
}

/* Resumed after sessions were added: the same change points as a scan from scratch */
static void test_resume(void **st)
{
	double x[340];
	struct pg_cp *weak, *weak2, *a, *b;
	size_t nweak, nweak2, na, nb;

	state = 5;
	series(x, 340, 0.02, 120, 1.10, 300, 1.10);
	assert_int_equal(pg_changepoints_resume(x, 280, NULL, NULL, 0, 0, &weak, &nweak, &a, &na),
			 0);
	assert_int_equal(na, 1);
	assert_true(a[0].index >= 119 && a[0].index <= 121);
	assert_true(nweak >= na);
	free(a);
	/* 60 sessions more, with a second step */
	assert_int_equal(pg_changepoints_resume(x, 340, NULL, weak, nweak, 280, &weak2, &nweak2,
						&a, &na), 0);
	assert_int_equal(pg_changepoints(x, 340, NULL, &b, &nb), 0);
	assert_int_equal(na, 2);
	assert_int_equal(nb, 2);
	for (size_t i = 0; i < na; i++)
		assert_int_equal(a[i].index, b[i].index);
	assert_true(a[1].index >= 299 && a[1].index <= 301);
	/* the weak change points before the resumed windows are kept as they were */
	assert_int_equal(weak2[0].index, weak[0].index);
	assert_true(weak2[0].perm_p == weak[0].perm_p);
	free(weak);
	free(weak2);
	free(a);
	free(b);
}

/* Q-hat of the split y[0..tau) | y[tau..kappa), every distance summed afresh */
static double naive_q(const double *y, size_t tau, size_t kappa)
{
	double n = (double)tau, m = (double)(kappa - tau), sxy = 0, sxx = 0, syy = 0, q;

	for (size_t i = 0; i < tau; i++)
		for (size_t j = tau; j < kappa; j++)
			sxy += fabs(y[i] - y[j]);
	for (size_t i = 0; i < tau; i++)
		for (size_t j = i + 1; j < tau; j++)
			sxx += fabs(y[i] - y[j]);
	for (size_t i = tau; i < kappa; i++)
		for (size_t j = i + 1; j < kappa; j++)
			syy += fabs(y[i] - y[j]);
	q = 2 / (m + n) * sxy;
	if (n > 1)
		q -= 2 * m / ((m + n) * (n - 1)) * sxx;
	if (m > 1)
		q -= 2 * n / ((m + n) * (m - 1)) * syy;
	return q;
}

/*
 * The split search (partial sums, taus two at a time) finds the largest Q-hat of a window as
 * the exhaustive one does: the first weak change point of a series of one window is the split
 * of the largest Q-hat over every tau and kappa. Odd and even lengths, a step anywhere.
 */
static void test_split_exhaustive(void **st)
{
	static const size_t lens[] = { 12, 13, 23, 50 };
	double x[50], y[50];

	state = 21;
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
		size_t n = lens[t], at = n / 2 - t, bt = 0, found = 0, nweak, ncp;
		double best = -INFINITY;
		struct pg_cp *weak, *cp;

		series(x, n, 0.01, at, 1.2, 0, 1);
		for (size_t i = 0; i < n; i++)
			y[i] = log(x[i]);
		for (size_t tau = 1; tau < n; tau++)
			for (size_t kappa = tau + 1; kappa <= n; kappa++)
				if (naive_q(y, tau, kappa) > best) {
					best = naive_q(y, tau, kappa);
					bt = tau;
				}
		assert_int_equal(pg_changepoints_resume(x, n, NULL, NULL, 0, 0, &weak, &nweak, &cp,
							&ncp), 0);
		assert_true(nweak >= 1);
		for (size_t i = 0; i < nweak; i++)
			found += weak[i].index == bt && fabs(weak[i].qhat - best) <= 1e-9 * best;
		assert_int_equal(found, 1);
		free(weak);
		free(cp);
	}
}

/*
 * The permutation test stops once its answer cannot change: with max_p 0.01 and 3 reaching
 * permutations to stop, a clear change is significant after 398 permutations none of which
 * reached it (p = 1/399); with max_p 0.001 that takes more than the 999 allowed, which all run.
 */
static void test_perm_decided(void **st)
{
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	double x[60];
	struct pg_cp *cp;
	size_t n;

	state = 1;
	series(x, 60, 0.01, 30, 1.10, 0, 1);
	assert_int_equal(pg_changepoints(x, 60, &o, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_true(fabs(cp[0].perm_p - 1.0 / 399) < 1e-12);
	free(cp);
	o.max_p = 0.001;
	assert_int_equal(pg_changepoints(x, 60, &o, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_true(fabs(cp[0].perm_p - 1.0 / 1000) < 1e-12);
	free(cp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_distribution),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_two_steps_long),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_magnitude_and_constant),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_resume_boundary),
		cmocka_unit_test(test_split_exhaustive),
		cmocka_unit_test(test_perm_decided),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
