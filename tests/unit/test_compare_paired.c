// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_compare_paired.c - paired comparisons of the two sides of an interleaved
 * session and the sequential design (diff/paired.h, diff/compare.c), on runs built in memory.
 *
 * The model machine drifts: its speed at time step t is 1 + drift * t, and every repetition
 * runs at one time step. An interleaved session runs pair p at steps 2p and 2p + 1, the order of
 * the two sides drawn at random; two sequential recordings run the base side at steps 0..n-1
 * and the new side at n..2n-1.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/run.h"
#include "../../diff/compare.h"
#include "../../diff/paired.h"
#include "fixtures.h"

/* three leaf functions: calls per repetition and ns per call */
static const char *const names[] = { "hot", "mid", "cold" };
static const uint64_t calls[] = { 100, 50, 10 };
static const double per_call[] = { 20000, 40000, 100000 };
#define NFUNCS 3
#define WALL_NS 1e7

struct session {
	size_t pairs;
	double effect;		/* the new side's hot is this much slower ... */
	double late_effect;	/* ... and this much from pair late_from on */
	size_t late_from;
	double drift;		/* the machine's speed changes by this per time step */
	double sd;		/* each per-call time's own relative noise */
	bool interleaved;	/* one perfgate ab session; else two sequential recordings */
	uint64_t seed;
};

static void add_rep(struct pg_run *run, double speed, double effect, uint32_t pair, uint32_t seq,
		    uint64_t *s, double sd)
{
	struct pg_rep *rep = pg_fx_rep(run, (uint64_t)(WALL_NS * speed * pg_fx_noise(s, sd)));

	rep->pair = pair;
	rep->seq = seq;
	for (uint32_t f = 0; f < NFUNCS; f++) {
		double v = per_call[f] * speed * pg_fx_noise(s, sd) * (f == 0 ? 1 + effect : 1);

		pg_fx_stat_each(rep, f, calls[f], v, v);
	}
}

/* The two runs of @x into *@base and *@new (the caller frees them with pg_run_free()). */
static void build(const struct session *x, struct pg_run **base, struct pg_run **new)
{
	uint64_t s = x->seed * 0x9E3779B97F4A7C15ULL + 1;
	struct pg_run *run[2];

	for (int k = 0; k < 2; k++)
		run[k] = pg_fx_prog_run(names, NFUNCS,
					x->interleaved ? (k ? PG_AB_NEW : PG_AB_BASE) : PG_AB_NONE);
	for (size_t p = 0; p < x->pairs; p++) {
		double effect = p >= x->late_from && x->late_from ? x->late_effect : x->effect;
		int first = pg_fx_uniform(&s) < 0.5;	/* which side runs first in the pair */

		for (int k = 0; k < 2; k++) {
			size_t t = x->interleaved ? 2 * p + (k != first) : p + (k ? x->pairs : 0);

			add_rep(run[k], 1 + x->drift * (double)t, k ? effect : 0, (uint32_t)p,
				(uint32_t)t, &s, x->sd);
		}
	}
	for (int k = 0; k < 2; k++)
		assert_int_equal(pg_run_validate(run[k], NULL, 0), 0);
	*base = run[0];
	*new = run[1];
}

/* The options of a paired comparison at its defaults, without the impact rule (the model's
 * functions hold little of its wall time; these tests are of the statistics). */
static struct pg_compare_opts paired_opts(void)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

	o.min_effect = PG_MIN_EFFECT_PAIRED;
	o.min_impact = 0;
	return o;
}

/* build() and pg_compare() with @o into @c (initialised here). */
static void build_compare(const struct session *x, const struct pg_compare_opts *o,
			  struct pg_comparison *c, struct pg_run **base, struct pg_run **new)
{
	build(x, base, new);
	pg_comparison_init(c);
	assert_int_equal(pg_compare(*base, *new, o, c), 0);
}

static size_t flagged(const struct pg_comparison *c)
{
	return c->nregressions + c->nimprovements + c->nnotable;
}

static void test_pairing_detected(void **state)
{
	struct session x = { .pairs = 6, .sd = 0.01, .interleaved = true, .seed = 1 };
	struct pg_run *a, *b;
	bool swapped;

	(void)state;
	build(&x, &a, &b);
	assert_true(pg_runs_paired(a, b, &swapped));
	assert_false(swapped);
	assert_true(pg_runs_paired(b, a, &swapped));
	assert_true(swapped);
	assert_int_equal(pg_runs_npairs(a, b), 6);
	/* a session cut short: pair 5 has no base side */
	a->reps[5].pair = 7;
	assert_int_equal(pg_runs_npairs(a, b), 5);
	/* a pair index twice on one side: no pairing */
	a->reps[5].pair = 0;
	assert_false(pg_runs_paired(a, b, NULL));
	a->reps[5].pair = 5;
	/* the same side twice, or two sessions */
	b->meta.ab_side = PG_AB_BASE;
	assert_false(pg_runs_paired(a, b, NULL));
	b->meta.ab_side = PG_AB_NEW;
	free(b->meta.ab_session);
	b->meta.ab_session = pg_fx_strdup("session-2");
	assert_false(pg_runs_paired(a, b, NULL));
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * An A/A session on a machine that gets 1% slower every step (20% over the session): the
 * pairs cancel the drift and nothing is flagged; the same drift over two sequential
 * recordings reads as a 10% regression of every function uncorrected, and corrected for the
 * speed between the recordings (diff/rspeed.h) as none.
 */
static void test_drift_cancelled(void **state)
{
	struct session x = { .pairs = 10, .drift = 0.01, .sd = 0.003, .interleaved = true,
			     .seed = 2 };
	struct pg_compare_opts o = paired_opts(), seq = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c;
	struct pg_run *a, *b;

	(void)state;
	build_compare(&x, &o, &c, &a, &b);
	assert_true(c.paired);
	assert_int_equal(c.npairs, 10);
	assert_int_equal(flagged(&c), 0);
	assert_int_equal(c.nunchanged, NFUNCS + 1);	/* + the program's wall time */
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	for (int f = 0; f < NFUNCS; f++)
		assert_int_equal(pg_fx_find(&c, names[f])->pairs, 10);
	/* the whole-process line is paired too */
	assert_int_equal(c.wall.pairs, 10);
	assert_int_equal(c.wall.verdict, PG_VERDICT_UNCHANGED);
	pg_run_free(a);
	pg_run_free(b);

	x.interleaved = false;
	build(&x, &a, &b);
	seq.min_impact = 0;
	seq.no_speed = true;
	assert_int_equal(pg_compare(a, b, &seq, &c), 0);
	assert_false(c.paired);
	assert_int_equal(c.npairs, 0);
	assert_int_equal(pg_fx_find(&c, "hot")->pairs, 0);
	assert_int_equal(pg_fx_find(&c, "hot")->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	seq.no_speed = false;
	assert_int_equal(pg_compare(a, b, &seq, &c), 0);
	assert_true(c.speed_runs && c.speed_applied);
	assert_true(c.speed_shift > 0.05);
	assert_int_equal(flagged(&c), 0);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* 5% slower with 0.5% noise, on a drifting machine: caught with 10 pairs, nothing else. */
static void test_paired_shift(void **state)
{
	struct session x = { .pairs = 10, .effect = 0.05, .drift = 0.005, .sd = 0.005,
			     .interleaved = true, .seed = 3 };
	struct pg_compare_opts o = paired_opts();
	struct pg_comparison c;
	const struct pg_fcmp *hot;
	struct pg_run *a, *b;

	(void)state;
	build_compare(&x, &o, &c, &a, &b);
	hot = pg_fx_find(&c, "hot");
	assert_int_equal(hot->verdict, PG_VERDICT_REGRESSION);
	assert_true(hot->change > 0.04 && hot->change < 0.06);
	assert_true(hot->ci_lo > PG_MIN_EFFECT_PAIRED && hot->ci_hi < 0.08);
	assert_true(hot->q <= 0.05);
	assert_int_equal(hot->pairs, 10);
	assert_int_equal(c.nregressions, 1);
	assert_int_equal(flagged(&c), 1);

	/* the files the other way round: still paired, with a warning, and an improvement */
	assert_int_equal(pg_compare(b, a, &o, &c), 0);
	assert_true(c.paired);
	assert_int_equal(pg_fx_find(&c, "hot")->verdict, PG_VERDICT_IMPROVEMENT);
	assert_true(c.nwarnings >= 1 && strstr(c.warnings[c.nwarnings - 1], "base side"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Too few pairs: inconclusive for the pairs, which more pairs could remove. */
static void test_paired_few_pairs(void **state)
{
	struct session x = { .pairs = 4, .effect = 0.2, .sd = 0.005, .interleaved = true,
			     .seed = 4 };
	struct pg_compare_opts o = paired_opts();
	struct pg_comparison c;
	struct pg_run *a, *b;

	(void)state;
	build_compare(&x, &o, &c, &a, &b);
	assert_int_equal(pg_fx_find(&c, "hot")->cause, PG_CAUSE_REPS);
	assert_non_null(strstr(pg_fx_find(&c, "hot")->reason, "pairs"));
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_non_null(strstr(c.overall_reason, "too few pairs (4)"));
	assert_true(pg_comparison_undecided(&c));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * The alpha spent by each look, alpha * (k / K)^rho, and the nominal level each look tests at:
 * the first look's increment, then group-sequential boundaries above the increments (values
 * from an independent computation: scipy, the same numerical integration on a finer grid).
 */
static void test_alpha_spending(void **state)
{
	static const double want[3][4] = {
		{ 0.0125, 0.04356 },
		{ 0.00556, 0.01891, 0.03922 },
		{ 0.00312, 0.01049, 0.0214, 0.03644 },
	};
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

	(void)state;
	assert_float_equal(pg_alpha_spent(0.05, 0, 4), 0, 1e-15);
	assert_float_equal(pg_alpha_spent(0.05, 4, 4), 0.05, 1e-15);
	assert_float_equal(pg_alpha_spent(0.05, 1, 0), 0.05, 1e-15);
	assert_float_equal(pg_look_alpha(&o), 0.05, 1e-15);	/* no looks: one test at alpha */
	o.looks = 1;
	o.look = 1;
	assert_float_equal(pg_look_alpha(&o), 0.05, 1e-15);	/* one look: alpha */
	for (o.looks = 2; o.looks <= 4; o.looks++) {
		for (o.look = 1; o.look <= o.looks; o.look++) {
			double inc = pg_alpha_spent(0.05, o.look, o.looks) -
				     pg_alpha_spent(0.05, o.look - 1, o.looks);

			assert_float_equal(pg_alpha_spent(0.05, o.look, o.looks),
					   0.05 * pow((double)o.look / o.looks, PG_SPEND_RHO),
					   1e-15);
			assert_float_equal(pg_look_alpha(&o), want[o.looks - 2][o.look - 1], 5e-5);
			/* correlated looks: at least the increment, never more than alpha */
			assert_true(pg_look_alpha(&o) >= inc - 1e-12);
			assert_true(pg_look_alpha(&o) < 0.05);
		}
	}
}

/* A look tests at its share of alpha: with 10 pairs and 30 looks (0.0017 a look) the signed
 * rank test cannot get there (its smallest p is 0.002), and the reason quotes that alpha. */
static void test_look_alpha_used(void **state)
{
	struct session x = { .pairs = 10, .effect = 0.2, .sd = 0.005, .interleaved = true,
			     .seed = 5 };
	struct pg_compare_opts o = paired_opts();
	struct pg_comparison c;
	struct pg_run *a, *b;
	char want[64];

	(void)state;
	build(&x, &a, &b);
	pg_comparison_init(&c);
	o.look = 1;
	o.looks = 30;
	assert_int_equal(pg_compare_look(a, b, &o, NULL, &c), 0);
	assert_int_equal(pg_fx_find(&c, "hot")->cause, PG_CAUSE_REPS);
	snprintf(want, sizeof(want), "alpha %g", pg_look_alpha(&o));
	assert_non_null(strstr(pg_fx_find(&c, "hot")->reason, want));
	/* the options kept are the user's */
	assert_float_equal(c.opts.alpha, 0.05, 0);
	assert_true(pg_comparison_undecided(&c));
	/* a look out of range is refused */
	o.look = 31;
	assert_int_equal(pg_compare_look(a, b, &o, NULL, &c), -EINVAL);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * A function decided at look 1 keeps its verdict and its pairs at look 2, though the pairs
 * since then (the new side 5% faster in them) would undo it.
 */
static void test_sequential_keeps_verdict(void **state)
{
	struct session x = { .pairs = 10, .effect = 0.05, .late_effect = -0.05, .late_from = 10,
			     .sd = 0.003, .interleaved = true, .seed = 6 };
	struct pg_compare_opts o = paired_opts();
	struct pg_comparison c1, c2, alone;
	struct pg_run *a, *b;

	(void)state;
	pg_comparison_init(&c1);
	pg_comparison_init(&c2);
	pg_comparison_init(&alone);
	o.looks = 2;
	o.look = 1;
	build(&x, &a, &b);
	assert_int_equal(pg_compare_look(a, b, &o, NULL, &c1), 0);
	assert_int_equal(pg_fx_find(&c1, "hot")->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(pg_fx_find(&c1, "hot")->pairs, 10);
	pg_run_free(a);
	pg_run_free(b);

	x.pairs = 20;
	build(&x, &a, &b);
	o.look = 2;
	assert_int_equal(pg_compare_look(a, b, &o, NULL, &alone), 0);
	assert_int_not_equal(pg_fx_find(&alone, "hot")->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(pg_compare_look(a, b, &o, &c1, &c2), 0);
	assert_int_equal(pg_fx_find(&c2, "hot")->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(pg_fx_find(&c2, "hot")->pairs, 10);
	assert_float_equal(pg_fx_find(&c2, "hot")->change, pg_fx_find(&c1, "hot")->change, 0);
	assert_int_equal(c2.nregressions, 1);
	assert_int_equal(c2.overall, PG_OVERALL_REGRESSION);
	assert_int_equal(c2.npairs, 20);
	/* the others were decided unchanged at look 1, and stay so with their 10 pairs */
	assert_int_equal(pg_fx_find(&c2, "mid")->verdict, PG_VERDICT_UNCHANGED);
	assert_int_equal(pg_fx_find(&c2, "mid")->pairs, 10);
	pg_comparison_release(&c1);
	pg_comparison_release(&c2);
	pg_comparison_release(&alone);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * Many A/A sessions, each run sequentially (looks at 10, 15 and 20 pairs, stopping when
 * nothing is undecided), with noise and a drift of its own: the share of sessions with any
 * function flagged stays under alpha (generously: the boundaries allow alpha per function).
 */
#define AA_SESSIONS 300

static void test_sequential_aa(void **state)
{
	struct pg_compare_opts o = paired_opts();
	size_t false_alarms = 0, stopped_early = 0;
	uint64_t s = 42;

	(void)state;
	o.looks = 3;
	for (size_t i = 0; i < AA_SESSIONS; i++) {
		struct pg_comparison prev, cur;
		struct session x = { .sd = 0.01, .interleaved = true, .seed = 1000 + i };

		x.drift = (pg_fx_uniform(&s) - 0.5) * 0.02;
		pg_comparison_init(&prev);
		pg_comparison_init(&cur);
		for (o.look = 1; o.look <= o.looks; o.look++) {
			struct pg_run *a, *b;

			x.pairs = 5 + 5 * o.look;
			build(&x, &a, &b);
			assert_int_equal(pg_compare_look(a, b, &o, o.look > 1 ? &prev : NULL,
							 &cur), 0);
			pg_run_free(a);
			pg_run_free(b);
			if (!pg_comparison_undecided(&cur) || o.look == o.looks) {
				stopped_early += o.look < o.looks;
				break;
			}
			pg_comparison_release(&prev);
			prev = cur;
			pg_comparison_init(&cur);
		}
		false_alarms += flagged(&cur) > 0;
		pg_comparison_release(&prev);
		pg_comparison_release(&cur);
	}
	print_message("%zu of %d A/A sessions flagged a function, %zu stopped early\n",
		      false_alarms, AA_SESSIONS, stopped_early);
	assert_true(false_alarms <= AA_SESSIONS / 20);
	assert_true(stopped_early > 0);
}

/*
 * A sampled function too wide to decide keeps the session going when its estimate is a
 * slowdown beyond the minimum effect that moves the run by 0.5% (ten times ab's bar); not a
 * small one, nor one within the minimum effect (A/A noise would hold every session).
 */
static void test_sampled_wide_extends(void **state)
{
	struct pg_fcmp f = { .origin = PG_ORIGIN_SAMPLED, .cause = PG_CAUSE_WIDE, .change = 0.072,
			     .impact = 0.0072, .verdict = PG_VERDICT_INCONCLUSIVE };
	struct pg_comparison c = { .f = &f, .n = 1 };

	c.opts.min_effect = 0.02;
	c.opts.min_impact = 0.0005;
	assert_true(pg_comparison_undecided(&c));
	f.impact = 0.001;	/* a small function's +7% */
	assert_false(pg_comparison_undecided(&c));
	f.impact = 0.0072;
	f.change = 0.015;	/* within the minimum effect */
	assert_false(pg_comparison_undecided(&c));
	f.change = -0.072;	/* faster */
	assert_false(pg_comparison_undecided(&c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing_detected),
		cmocka_unit_test(test_drift_cancelled),
		cmocka_unit_test(test_paired_shift),
		cmocka_unit_test(test_paired_few_pairs),
		cmocka_unit_test(test_alpha_spending),
		cmocka_unit_test(test_look_alpha_used),
		cmocka_unit_test(test_sequential_keeps_verdict),
		cmocka_unit_test(test_sequential_aa),
		cmocka_unit_test(test_sampled_wide_extends),
	};

	return cmocka_run_group_tests_name("compare_paired", tests, NULL, NULL);
}
