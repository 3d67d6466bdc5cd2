// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_hspeed.c - history check's correction for the machine's speed in each
 * session (diff/hspeed.h), through pg_history_compare(): power on sessions that drift, no
 * false alarms, a whole program that moved left as measured, too few references.
 *
 * A history: NF functions, K sessions; in session s every function runs at the machine's
 * speed exp(g[s]) (g of standard deviation DRIFT), times its own noise exp(e) (sd NOISE).
 * The new session: its own g, and the change of each function.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "../../diff/hcheck.h"

#define NF 5
#define K 10
#define REPS 10

static uint64_t state;

static double gauss(void)
{
	return pg_test_gauss(&state);
}

struct hist {
	double s[NF][K], r[NF][REPS];
	size_t at[K];
	struct pg_hfunc f[NF];
};

static const char *const names[NF] = { "target", "a", "b", "c", "d" };
/* target holds 5% of the time, the others the rest */
static const double level[NF] = { 5000, 20000, 25000, 30000, 20000 };

/* A history and a new session: function i changed by change[i] (all: by @all). */
static void make(struct hist *h, double drift, double noise, const double *change, double all,
		 bool correct)
{
	double g;

	for (size_t s = 0; s < K; s++) {
		g = drift * gauss();
		h->at[s] = 2 * s;	/* any increasing sessions */
		for (size_t i = 0; i < NF; i++)
			h->s[i][s] = level[i] * exp(g + noise * gauss());
	}
	g = drift * gauss();
	for (size_t i = 0; i < NF; i++) {
		double v = level[i] * exp(g + noise * gauss()) * (1 + change[i]) * (1 + all);

		for (size_t k = 0; k < REPS; k++)
			h->r[i][k] = v * (1 + 0.001 * ((double)k - 4.5));
		h->f[i] = (struct pg_hfunc){ "prog", names[i], "", names[i], h->s[i], K, h->r[i],
					     REPS, 100, 100, correct ? h->at : NULL };
	}
}

static enum pg_verdict verdict(const struct pg_comparison *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return c->f[i].verdict;
	fail_msg("no %s", name);
	return PG_VERDICT_COUNT;
}

/* Trials of a target 8% slower on a machine drifting 3% between sessions: regressions found,
 * and untouched functions flagged. */
static void trials(bool correct, double drift, int *found, int *others)
{
	static const double change[NF] = { 0.08, 0, 0, 0, 0 };
	struct hist h;
	int applied = 0;

	*found = *others = 0;
	for (int t = 0; t < 20; t++) {
		struct pg_comparison c;

		make(&h, drift, 0.004, change, 0, correct);
		pg_comparison_init(&c);
		assert_int_equal(pg_history_compare(h.f, NF, NULL, 2 * K, REPS, NULL, &c), 0);
		*found += verdict(&c, "target") == PG_VERDICT_REGRESSION;
		for (size_t i = 1; i < NF; i++)
			*others += verdict(&c, names[i]) == PG_VERDICT_REGRESSION ||
				   verdict(&c, names[i]) == PG_VERDICT_IMPROVEMENT;
		applied += c.speed_applied;
		assert_int_equal(c.speed_refs, correct ? NF : 0);
		pg_comparison_release(&c);
	}
	/* a new session whose machine was itself significantly slower is left as measured */
	assert_true(correct ? applied >= 18 : !applied);
}

static void test_power(void **st)
{
	int found, others;

	state = 1;
	trials(false, 0.03, &found, &others);
	assert_true(found <= 10);
	trials(true, 0.03, &found, &others);
	assert_true(found >= 19);
	assert_int_equal(others, 0);
}

/* No change: nothing flagged in 40 checks, the machine drifting 3% or 1% */
static void test_aa(void **st)
{
	static const double none[NF] = { 0 };
	struct hist h;
	int flagged = 0;

	state = 2;
	for (int t = 0; t < 40; t++) {
		struct pg_comparison c;

		make(&h, t % 2 ? 0.03 : 0.01, 0.004, none, 0, true);
		pg_comparison_init(&c);
		assert_int_equal(pg_history_compare(h.f, NF, NULL, 2 * K, REPS, NULL, &c), 0);
		flagged += c.nregressions + c.nimprovements;
		pg_comparison_release(&c);
	}
	assert_int_equal(flagged, 0);
}

/* A build 15% slower everywhere on a steady machine: not corrected away, every function a
 * regression, and the result says the whole program moved */
static void test_whole_program(void **st)
{
	static const double none[NF] = { 0 };
	struct pg_comparison c;
	struct hist h;

	state = 3;
	make(&h, 0.005, 0.004, none, 0.15, true);
	pg_comparison_init(&c);
	assert_int_equal(pg_history_compare(h.f, NF, NULL, 2 * K, REPS, NULL, &c), 0);
	assert_false(c.speed_applied);
	assert_true(c.speed_p <= 0.05 && c.speed_shift > 0.12 && c.speed_shift < 0.18);
	assert_int_equal(c.nregressions, NF);
	pg_comparison_release(&c);
}

/*
 * Three functions cannot tell the machine's speed from their own (each would have two others):
 * judged as measured, the target's 8% inside the drift
 */
static void test_too_few_refs(void **st)
{
	static const double change[NF] = { 0.08, 0, 0, 0, 0 };
	struct pg_comparison c;
	struct hist h;

	state = 4;
	make(&h, 0.03, 0.004, change, 0, true);
	pg_comparison_init(&c);
	assert_int_equal(pg_history_compare(h.f, 3, NULL, 2 * K, REPS, NULL, &c), 0);
	assert_false(c.speed_applied);
	assert_int_equal(c.speed_refs, 3);
	assert_true(isnan(c.speed_p));
	assert_int_not_equal(verdict(&c, "target"), PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_whole_program),
		cmocka_unit_test(test_too_few_refs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
