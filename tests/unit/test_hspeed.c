// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_hspeed.c - history check's correction for the machine's speed in each
 * session (diff/hspeed.h), through pg_history_compare(): power on sessions that drift, no
 * false alarms, a whole program that moved found by its CPU time, self times corrected by
 * the on-CPU times' speed, too few references.
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
	double cs[K], cr[REPS];	/* the program's CPU time */
	size_t at[K];
	struct pg_hfunc f[NF], cpu;
};

static const char *const names[NF] = { "target", "a", "b", "c", "d" };
/* target holds 5% of the time, the others the rest */
static const double level[NF] = { 5000, 20000, 25000, 30000, 20000 };

/* A history and a new session: function i changed by change[i] (all: by @all). */
static void make(struct hist *h, double drift, double noise, const double *change, double all,
		 bool correct)
{
	double g, total = 0, grown = 0;

	for (size_t i = 0; i < NF; i++) {
		total += 100 * level[i];
		grown += 100 * level[i] * change[i];
	}
	for (size_t s = 0; s < K; s++) {
		g = drift * gauss();
		h->at[s] = 2 * s;	/* any increasing sessions */
		for (size_t i = 0; i < NF; i++)
			h->s[i][s] = level[i] * exp(g + noise * gauss());
		h->cs[s] = total * exp(g + noise * gauss());
	}
	g = drift * gauss();
	for (size_t i = 0; i < NF; i++) {
		double v = level[i] * exp(g + noise * gauss()) * (1 + change[i]) * (1 + all);

		for (size_t k = 0; k < REPS; k++)
			h->r[i][k] = v * (1 + 0.001 * ((double)k - 4.5));
		h->f[i] = (struct pg_hfunc){ "prog", names[i], "", names[i], h->s[i], K, h->r[i],
					     REPS, 100, 100, correct ? h->at : NULL,
					     correct ? &h->f[i] : NULL };
	}
	for (size_t k = 0; k < REPS; k++)
		h->cr[k] = (total + grown) * exp(g + noise * gauss()) * (1 + all);
	h->cpu = (struct pg_hfunc){ "prog", "cpu", "", "cpu", h->cs, K, h->cr, REPS, 1, 1, NULL,
				    NULL };
}

/* history check of @h's first @n functions, their own references, and the program's CPU */
static int hcompare(const struct hist *h, size_t n, struct pg_comparison *c)
{
	const struct pg_hinput in = { h->f, n, h->f, n, NULL, &h->cpu, 2 * K, REPS };

	return pg_history_compare(&in, NULL, c);
}

static const struct pg_fcmp *entry(const struct pg_comparison *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	fail_msg("no %s", name);
	return NULL;
}

static enum pg_verdict verdict(const struct pg_comparison *c, const char *name)
{
	return entry(c, name)->verdict;
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
		assert_int_equal(hcompare(&h, NF, &c), 0);
		*found += verdict(&c, "target") == PG_VERDICT_REGRESSION;
		for (size_t i = 1; i < NF; i++)
			*others += verdict(&c, names[i]) == PG_VERDICT_REGRESSION ||
				   verdict(&c, names[i]) == PG_VERDICT_IMPROVEMENT;
		applied += c.speed_applied;
		assert_int_equal(c.speed_refs, correct ? NF : 0);
		pg_comparison_release(&c);
	}
	/* applied however far the new session's machine moved */
	assert_int_equal(applied, correct ? 20 : 0);
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
		assert_int_equal(hcompare(&h, NF, &c), 0);
		flagged += c.nregressions + c.nimprovements;
		pg_comparison_release(&c);
	}
	assert_int_equal(flagged, 0);
}

/*
 * A build 15% slower everywhere on a steady machine: the functions move with the speed and
 * are corrected, but the program's CPU time, judged as measured, is a regression, and the
 * result says how far the speed moved
 */
static void test_whole_program(void **st)
{
	static const double none[NF] = { 0 };
	struct pg_comparison c;
	const struct pg_fcmp *p;
	struct hist h;

	state = 3;
	make(&h, 0.005, 0.004, none, 0.15, true);
	pg_comparison_init(&c);
	assert_int_equal(hcompare(&h, NF, &c), 0);
	assert_true(c.speed_applied);
	assert_true(c.speed_p <= 0.05 && c.speed_shift > 0.12 && c.speed_shift < 0.18);
	p = entry(&c, PG_PROGRAM_CPU);
	assert_int_equal(p->origin, PG_ORIGIN_PROGRAM);
	assert_int_equal(p->verdict, PG_VERDICT_REGRESSION);
	assert_true(p->change > 0.12 && p->change < 0.18);
	assert_int_equal(c.nregressions, 1);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	assert_true(c.program_judged);
	pg_comparison_release(&c);
}

/*
 * Self times corrected by the speed of the on-CPU times (the references apart): "b" also
 * waits, 40% of its self time, by as much as it likes in each session; it follows the speed
 * by its on-CPU part, and is not flagged. The target's 8% is found.
 */
static void test_self_by_cpu(void **st)
{
	static const double change[NF] = { 0.08, 0, 0, 0, 0 };
	struct pg_hfunc self[NF];
	double bs[K], br[REPS];
	int found = 0, flagged = 0;
	struct hist h;

	state = 5;
	for (int t = 0; t < 20; t++) {
		struct pg_hinput in = { self, NF, h.f, NF, NULL, &h.cpu, 2 * K, REPS };
		struct pg_comparison c;

		make(&h, 0.03, 0.004, change, 0, true);
		memcpy(self, h.f, sizeof(self));
		for (size_t s = 0; s < K; s++)
			bs[s] = h.s[2][s] + level[2] * 0.67 * exp(0.2 * gauss());
		for (size_t k = 0; k < REPS; k++)
			br[k] = h.r[2][k] + level[2] * 0.67 * exp(0.2 * gauss());
		self[2].sessions = bs;
		self[2].reps = br;
		for (size_t i = 0; i < NF; i++)
			self[i].speed = &h.f[i];
		pg_comparison_init(&c);
		assert_int_equal(pg_history_compare(&in, NULL, &c), 0);
		assert_true(c.speed_applied);
		found += verdict(&c, "target") == PG_VERDICT_REGRESSION;
		for (size_t i = 1; i < NF; i++)
			flagged += verdict(&c, names[i]) == PG_VERDICT_REGRESSION ||
				   verdict(&c, names[i]) == PG_VERDICT_IMPROVEMENT;
		pg_comparison_release(&c);
	}
	assert_true(found >= 19);
	assert_int_equal(flagged, 0);
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
	assert_int_equal(hcompare(&h, 3, &c), 0);
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
		cmocka_unit_test(test_self_by_cpu),
		cmocka_unit_test(test_too_few_refs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
