// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_hcheck.c - a new session against stored sessions (diff/hcheck.h): the
 * prediction-interval test, its verdicts, inconclusive with too few sessions, added and
 * removed functions, and the interval of a median.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../diff/changepoint.h"
#include "../../diff/hcheck.h"

/* ten sessions' medians around 1000 ns, spread 1% */
static const double sessions[10] = { 1000, 1010, 990, 1005, 995, 1012, 988, 1003, 997, 1000 };

/* ten repetitions around @level */
static void reps(double *r, double level)
{
	for (int i = 0; i < 10; i++)
		r[i] = level * (1 + 0.002 * (i - 4.5));
}

static struct pg_hfunc func(const char *name, const double *s, size_t ns, const double *r,
			    size_t nr)
{
	return (struct pg_hfunc){ "prog", name, "", name, s, ns, r, nr, 100, 100, NULL, NULL };
}

/* history check of f[0..n), the wall time @w and the program's CPU time @cpu */
static int hcompare(const struct pg_hfunc *f, size_t n, const struct pg_hfunc *w,
		    const struct pg_hfunc *cpu, size_t nsessions, struct pg_comparison *c)
{
	const struct pg_hinput in = { f, n, f, n, w, cpu, nsessions, 10 };

	return pg_history_compare(&in, NULL, c);
}

static const struct pg_fcmp *find(const struct pg_comparison *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	fail_msg("no %s", name);
	return NULL;
}

static void test_verdicts(void **st)
{
	double same[10], slow[10], fast[10], wall[10];
	struct pg_hfunc f[5];
	struct pg_hfunc w;
	struct pg_comparison c;
	const struct pg_fcmp *x;
	double wall_sessions[10];

	reps(same, 1001);
	reps(slow, 1200);
	reps(fast, 800);
	reps(wall, 1e6);
	for (int i = 0; i < 10; i++)
		wall_sessions[i] = 1e6;
	f[0] = func("same", sessions, 10, same, 10);
	f[1] = func("slow", sessions, 10, slow, 10);
	f[2] = func("fast", sessions, 10, fast, 10);
	f[3] = func("new", NULL, 0, same, 10);
	f[4] = func("gone", sessions, 10, NULL, 0);
	w = (struct pg_hfunc){ "[wall]", "[wall]", "", "[wall]", wall_sessions, 10, wall, 10, 1, 1,
			       NULL, NULL };
	pg_comparison_init(&c);
	assert_int_equal(hcompare(f, 5, &w, NULL, 10, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	assert_int_equal(c.ntested, 3);
	assert_int_equal(c.nregressions, 1);
	/* sorted as compare sorts: the regression first */
	assert_string_equal(c.f[0].name, "slow");
	x = find(&c, "slow");
	assert_true(fabs(x->change - 0.2) < 0.01);
	assert_true(x->ci_lo > 0.15 && x->ci_hi < 0.25);
	assert_true(x->q <= 0.05);
	assert_int_equal(x->n_base, 10);
	assert_int_equal(find(&c, "fast")->verdict, PG_VERDICT_IMPROVEMENT);
	x = find(&c, "same");
	assert_int_equal(x->verdict, PG_VERDICT_UNCHANGED);
	/* the interval holds the spread between sessions: about +-1.8% here, not +-0.2% */
	assert_true(x->ci_hi - x->ci_lo > 0.03);
	assert_int_equal(find(&c, "new")->verdict, PG_VERDICT_ADDED);
	assert_int_equal(find(&c, "gone")->verdict, PG_VERDICT_REMOVED);
	assert_true(isfinite(c.wall.base_ns));
	pg_comparison_release(&c);
}

/* Two baseline sessions, or too few repetitions: inconclusive, and nothing judged at all is
 * INCONCLUSIVE overall, never PASS */
static void test_too_few(void **st)
{
	double slow[10];
	struct pg_hfunc f[2];
	struct pg_comparison c;

	reps(slow, 1500);
	f[0] = func("a", sessions, 2, slow, 10);
	f[1] = func("b", sessions, 10, slow, 3);
	pg_comparison_init(&c);
	assert_int_equal(hcompare(f, 2, NULL, NULL, 2, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_int_equal(c.ninconclusive, 2);
	assert_int_equal(c.f[0].cause, PG_CAUSE_REPS);
	assert_true(strlen(c.overall_reason) > 0);
	pg_comparison_release(&c);
}

/* A shift within the sessions' own spread is not significant */
static void test_within_spread(void **st)
{
	double r[10];
	struct pg_hfunc f;
	struct pg_comparison c;

	reps(r, 1015);
	f = func("a", sessions, 10, r, 10);
	pg_comparison_init(&c);
	assert_int_equal(hcompare(&f, 1, NULL, NULL, 10, &c), 0);
	assert_true(c.f[0].p > 0.05);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	pg_comparison_release(&c);
}

/* A median that compensation left nothing of (0) is inconclusive, not a change of -100% */
static void test_nothing_left(void **st)
{
	double r[10], zero[10] = { 0 }, some[10];
	struct pg_hfunc f[2];
	struct pg_comparison c;

	reps(r, 1000);
	memcpy(some, sessions, sizeof(some));
	some[3] = 0;
	f[0] = func("a", sessions, 10, zero, 10);
	f[1] = func("b", some, 10, r, 10);
	pg_comparison_init(&c);
	assert_int_equal(hcompare(f, 2, NULL, NULL, 10, &c), 0);
	assert_int_equal(c.ninconclusive, 2);
	assert_int_equal(find(&c, "a")->cause, PG_CAUSE_PROBES);
	assert_int_equal(find(&c, "b")->cause, PG_CAUSE_PROBES);
	assert_non_null(strstr(find(&c, "b")->reason, "1 of 10 baseline sessions"));
	assert_int_equal(c.nimprovements, 0);
	pg_comparison_release(&c);
}

static void test_median_interval(void **st)
{
	double v[10] = { 9, 1, 8, 2, 7, 3, 6, 4, 5, 10 }, lo, hi;

	/* n = 10 at 95%: the 2nd and the 9th of ten */
	assert_int_equal(pg_median_interval(v, 10, 0.05, &lo, &hi), 0);
	assert_true(lo == 2 && hi == 9);
	/* five: no 95% interval, the range */
	assert_int_equal(pg_median_interval(v, 5, 0.05, &lo, &hi), 0);
	assert_true(lo == 1 && hi == 9);
	assert_int_equal(pg_median_interval(v, 1, 0.05, &lo, &hi), 0);
	assert_true(isnan(lo) && isnan(hi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_within_spread),
		cmocka_unit_test(test_nothing_left),
		cmocka_unit_test(test_median_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
