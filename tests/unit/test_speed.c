// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_speed.c - the machine's speed per pair of an interleaved session and the
 * correction of paired differences for it (diff/speed.h, diff/compare.c), on runs built in
 * memory.
 *
 * The model machine is shared: each repetition runs at its own speed, 1 + @machine_sd * N(0, 1)
 * drawn afresh, and every function of the repetition moves with it; each function's per-call
 * time has its own smaller noise on top. Eight leaf functions, the first of which may be
 * slower on the new side.
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
#include "../../diff/speed.h"
#include "fixtures.h"

#define NFUNCS 8
static const char *const names[NFUNCS] = { "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7" };
#define PAIRS 20
#define WALL_NS 1e8

struct model {
	double machine_sd;	/* each repetition's speed: 1 + machine_sd * N(0, 1) */
	double sd;		/* each function's own noise */
	double effect;		/* f0 is this much slower on the new side */
	double all;		/* every function is this much slower on the new side */
	double blocked;		/* f1's share of time blocked (off-CPU, not runnable) */
	double heavy;		/* f6 and f7, the two heaviest, are this much slower */
	uint64_t seed;
};

static void build(const struct model *m, struct pg_run **base, struct pg_run **new)
{
	uint64_t s = m->seed * 0x9E3779B97F4A7C15ULL + 7;
	struct pg_run *run[2];

	for (int k = 0; k < 2; k++) {
		run[k] = pg_fx_prog_run(names, NFUNCS, k ? PG_AB_NEW : PG_AB_BASE);
		run[k]->meta.offcpu = true;
	}
	for (uint32_t p = 0; p < PAIRS; p++) {
		for (int k = 0; k < 2; k++) {
			double speed = pg_fx_noise(&s, m->machine_sd);
			struct pg_rep *rep = pg_fx_rep(run[k], (uint64_t)(WALL_NS * speed));

			rep->pair = p;
			rep->seq = 2 * p + (uint32_t)k;
			for (uint32_t f = 0; f < NFUNCS; f++) {
				double v = 1e5 * (1 + f) * pg_fx_noise(&s, m->sd);
				struct pg_fstat *st;

				if (k)
					v *= (1 + m->all) * (f == 0 ? 1 + m->effect : 1) *
					     (f >= 6 ? 1 + m->heavy : 1);
				/* the blocked part of f1 does not move with the machine */
				if (f == 1)
					v = v * (1 - m->blocked) * speed + v * m->blocked;
				else
					v *= speed;
				st = pg_fx_stat_each(rep, f, 10, v, v);
				if (f == 1) {
					st->offcpu_ns = st->self_offcpu_ns =
						(uint64_t)((double)st->self_ns * m->blocked);
				}
			}
		}
	}
	for (int k = 0; k < 2; k++)
		assert_int_equal(pg_run_validate(run[k], NULL, 0), 0);
	*base = run[0];
	*new = run[1];
}

static void compare(const struct model *m, bool no_speed, struct pg_comparison *c)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run *a, *b;

	o.min_effect = PG_MIN_EFFECT_PAIRED;
	o.min_impact = 0;
	o.no_speed = no_speed;
	build(m, &a, &b);
	pg_comparison_init(c);
	assert_int_equal(pg_compare(a, b, &o, c), 0);
	pg_run_free(a);
	pg_run_free(b);
}

/* pg_speed on its own: the per-pair medians, the correction, and a shift that is no noise */
static void test_speed_medians(void **state)
{
	uint32_t pairs[6] = { 0, 1, 2, 3, 4, 5 };
	double c[6] = { 0.2, -0.1, 0.05, -0.3, 0.15, -0.02 };
	double d[6], x[6];
	struct pg_speed sp;

	(void)state;
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	/* seven reference functions: the speed plus a little of their own, one really changed
	 * (+0.5 in every pair: p = 0.031 by itself), which is left out */
	for (int f = 0; f < 7; f++) {
		for (int i = 0; i < 6; i++)
			d[i] = c[i] + (f == 6 ? 0.5 : 0.001 * (f - 2.5));
		assert_int_equal(pg_speed_add(&sp, d, pairs, 6, 1e6, (uint32_t)f), 0);
	}
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	assert_int_equal(sp.nrefs, 6);
	for (size_t r = 0; r < sp.nrefs; r++)
		assert_true(sp.ref[r].id != 6);
	assert_true(sp.applied);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(sp.c[i] - c[i]) < 1e-9);
	/* a function that follows 80% of the machine's speed: corrected by that */
	for (int i = 0; i < 6; i++)
		x[i] = 0.8 * c[i];
	pg_speed_correct(&sp, x, pairs, 6, 1, PG_SPEED_NO_ID);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(x[i]) < 1e-9);
	/* ... but by no more than its time not blocked */
	for (int i = 0; i < 6; i++)
		x[i] = 0.8 * c[i];
	pg_speed_correct(&sp, x, pairs, 6, 0.5, PG_SPEED_NO_ID);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(x[i] - 0.3 * c[i]) < 1e-9);
	/* one that does not follow it at all (or against it) is left alone */
	for (int i = 0; i < 6; i++)
		x[i] = -c[i];
	pg_speed_correct(&sp, x, pairs, 6, 1, PG_SPEED_NO_ID);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(x[i] + c[i]) < 1e-9);
	pg_speed_release(&sp);

	/* the same shift in every pair: the program moved, nothing is corrected */
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (int f = 0; f < 7; f++) {
		for (int i = 0; i < 6; i++)
			d[i] = 0.1 + 0.001 * i + 0.0001 * f;
		assert_int_equal(pg_speed_add(&sp, d, pairs, 6, 1e6, (uint32_t)f), 0);
	}
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	assert_false(sp.applied);
	assert_true(sp.p <= 0.05);
	for (int i = 0; i < 6; i++)
		x[i] = 0.1;
	pg_speed_correct(&sp, x, pairs, 6, 1, PG_SPEED_NO_ID);
	for (int i = 0; i < 6; i++)
		assert_true(x[i] == 0.1);
	pg_speed_release(&sp);

	/* the same shift in every pair, but under the minimum effect: corrected all the same */
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (int f = 0; f < 7; f++) {
		for (int i = 0; i < 6; i++)
			d[i] = 0.01 + 0.001 * i + 0.0001 * f;
		assert_int_equal(pg_speed_add(&sp, d, pairs, 6, 1e6, (uint32_t)f), 0);
	}
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	assert_true(sp.p <= 0.05);
	assert_true(sp.applied);
	pg_speed_release(&sp);

	/*
	 * One reference of six changed by +20%, the machine steady: every pair's median of six
	 * moves up by the gap between its middle values (+2%, significant), but the references'
	 * own medians are 0 but for one. Not a move of the program: corrected, without it.
	 */
	{
		double noise[5] = { -0.04, -0.02, 0, 0.04, 0.06 };
		uint32_t p10[10];
		double d10[10];

		assert_int_equal(pg_speed_init(&sp, 10), 0);
		for (int f = 0; f < 6; f++) {
			for (int k = 0; k < 10; k++) {
				p10[k] = (uint32_t)k;
				d10[k] = f == 5 ? 0.2 : noise[(f + k) % 5];
			}
			assert_int_equal(pg_speed_add(&sp, d10, p10, 10, 1e6, (uint32_t)f), 0);
		}
		assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
		assert_true(fabs(sp.shift) < 1e-9);
		assert_true(sp.applied);
		/*
		 * ... but the changed one is left out, and moves no median: the other five's
		 * is 0
		 */
		assert_int_equal(sp.nrefs, 5);
		for (int k = 0; k < 10; k++)
			assert_true(fabs(sp.c[k]) < 1e-12);
		pg_speed_release(&sp);
	}

	/* too few reference functions */
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (int f = 0; f < PG_SPEED_MIN_REFS - 1; f++)
		assert_int_equal(pg_speed_add(&sp, c, pairs, 6, 1e6, (uint32_t)f), 0);
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	assert_false(sp.applied);
	pg_speed_release(&sp);
}

/*
 * The median is weighted by the square root of each reference's time: two functions that hold
 * the CPU time and follow the machine outweigh five small ones whose times wander on their own
 * (a real program's setup calls), which a plain median would follow.
 */
static void test_speed_weighted(void **state)
{
	uint32_t pairs[6] = { 0, 1, 2, 3, 4, 5 };
	double c[6] = { 0.2, -0.1, 0.05, -0.3, 0.15, -0.02 };
	double small[5][6] = {
		{ -0.05, 0.04, 0.02, 0.03, -0.06, 0.01 },
		{ -0.04, 0.05, 0.01, 0.04, -0.05, 0.02 },
		{ -0.06, 0.03, 0.03, 0.02, -0.04, 0.00 },
		{ -0.03, 0.06, 0.00, 0.05, -0.07, 0.03 },
		{ -0.07, 0.02, 0.04, 0.01, -0.03, -0.01 },
	};
	double d[6];
	struct pg_speed sp;

	(void)state;
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (int f = 0; f < 2; f++) {	/* 20 ms a repetition each */
		for (int i = 0; i < 6; i++)
			d[i] = c[i] + 0.001 * f;
		assert_int_equal(pg_speed_add(&sp, d, pairs, 6, 2e7, (uint32_t)f), 0);
	}
	for (int f = 0; f < 5; f++)	/* 50 us each */
		assert_int_equal(pg_speed_add(&sp, small[f], pairs, 6, 5e4, (uint32_t)(2 + f)), 0);
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	assert_true(sp.applied);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(sp.c[i] - c[i]) <= 0.001 + 1e-9);
	pg_speed_release(&sp);

	/* equal times: the plain median, the small ones' */
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (int f = 0; f < 2; f++)
		assert_int_equal(pg_speed_add(&sp, c, pairs, 6, 5e4, (uint32_t)f), 0);
	for (int f = 0; f < 5; f++)
		assert_int_equal(pg_speed_add(&sp, small[f], pairs, 6, 5e4, (uint32_t)(2 + f)), 0);
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.02), 0);
	/* of 0.2 0.2 -0.05 -0.04 -0.06 -0.03 -0.07 */
	assert_true(fabs(sp.c[0] - -0.04) < 1e-9);
	assert_true(fabs(sp.c[3] - 0.02) < 1e-9);	/* of -0.3 -0.3 0.01 0.02 ... 0.05 */
	pg_speed_release(&sp);
}

/*
 * A 6% slowdown of f0 on a machine whose repetitions differ by 15%: found in every session
 * with the correction, and in fewer without it; the comparison says it corrected.
 */
static void test_speed_finds_change(void **state)
{
	struct model m = { .machine_sd = 0.15, .sd = 0.01, .effect = 0.06 };
	size_t with = 0, without = 0;

	(void)state;
	for (m.seed = 1; m.seed <= 10; m.seed++) {
		struct pg_comparison c;
		const struct pg_fcmp *f;

		compare(&m, false, &c);
		assert_true(c.speed_applied);
		/* f0 is left out where its own +6% shows through the machine's noise */
		assert_true(c.speed_refs >= NFUNCS - 1);
		assert_true(c.speed_spread > 0.03);
		f = pg_fx_find(&c, "f0");
		with += f->verdict == PG_VERDICT_REGRESSION;
		assert_true(f->change > 0.03 && f->change < 0.09);
		/* nothing else */
		assert_int_equal(c.nregressions + c.nimprovements, f->verdict ==
				 PG_VERDICT_REGRESSION);
		pg_comparison_release(&c);

		compare(&m, true, &c);
		assert_false(c.speed_applied);
		without += pg_fx_find(&c, "f0")->verdict == PG_VERDICT_REGRESSION;
		pg_comparison_release(&c);
	}
	assert_int_equal(with, 10);
	assert_true(without <= 5);
}

/*
 * Two references changed by themselves, the two heaviest (+50%, a third of the weight, as the
 * demo's blur_row and tone_row): they are left out, and the untouched functions read unchanged,
 * not a few percent faster.
 */
static void test_speed_changed_refs(void **state)
{
	struct model m = { .machine_sd = 0.05, .sd = 0.01, .heavy = 0.5 };
	size_t applied = 0;

	(void)state;
	for (m.seed = 40; m.seed < 50; m.seed++) {
		struct pg_comparison c;

		compare(&m, false, &c);
		/* a session whose random order left one side slower throughout reads as the
		 * program moving (every function +3%), as without the changed ones */
		if (!c.speed_applied) {
			pg_comparison_release(&c);
			continue;
		}
		applied++;
		assert_int_equal(c.speed_refs, NFUNCS - 2);
		for (int f = 0; f < 6; f++) {
			const struct pg_fcmp *x = pg_fx_find(&c, names[f]);

			assert_true(fabs(x->change) < 0.01);
			assert_true(x->verdict != PG_VERDICT_REGRESSION &&
				    x->verdict != PG_VERDICT_IMPROVEMENT);
		}
		assert_int_equal(c.nregressions, 2);
		pg_comparison_release(&c);
	}
	assert_true(applied >= 8);
}

/* A/A on the same noisy machine: nothing is flagged in 20 sessions */
static void test_speed_aa(void **state)
{
	struct model m = { .machine_sd = 0.15, .sd = 0.01 };
	size_t alarms = 0;

	(void)state;
	for (m.seed = 100; m.seed < 120; m.seed++) {
		struct pg_comparison c;

		compare(&m, false, &c);
		alarms += c.nregressions + c.nimprovements;
		pg_comparison_release(&c);
	}
	assert_true(alarms <= 1);
}

/*
 * Every function 10% slower on the new side: the whole program moved, so nothing is corrected
 * and every function is a regression (a correction would have hidden them all).
 */
static void test_speed_global_change(void **state)
{
	struct model m = { .machine_sd = 0.02, .sd = 0.01, .all = 0.10, .seed = 3 };
	struct pg_comparison c;

	(void)state;
	compare(&m, false, &c);
	assert_false(c.speed_applied);
	assert_true(c.speed_p <= 0.05);
	assert_true(c.speed_shift > 0.07);
	assert_int_equal(c.nregressions, NFUNCS);
	pg_comparison_release(&c);
}

/*
 * f1 spends 90% of its time blocked (its wait does not move with the machine): it is no
 * reference, and at most its tenth on a CPU is corrected, so it is not flagged.
 */
static void test_speed_blocked(void **state)
{
	struct model m = { .machine_sd = 0.15, .sd = 0.01, .blocked = 0.9 };
	size_t alarms = 0;

	(void)state;
	for (m.seed = 200; m.seed < 210; m.seed++) {
		struct pg_comparison c;

		compare(&m, false, &c);
		assert_true(c.speed_applied);
		assert_int_equal(c.speed_refs, NFUNCS - 1);
		alarms += pg_fx_find(&c, "f1")->verdict != PG_VERDICT_INCONCLUSIVE &&
			  pg_fx_find(&c, "f1")->verdict != PG_VERDICT_UNCHANGED;
		pg_comparison_release(&c);
	}
	assert_int_equal(alarms, 0);
}

/*
 * Leave one out: a heavy reference that changed +20% holds 3/7 of the weight. Above the four
 * others in every pair, it makes their largest value each pair's median: c[k] 3% too high, and
 * its own change corrected by that much. Its c[k] without its own values is the others' median.
 */
static void test_speed_leave_one_out(void **state)
{
	double c[10] = { 0.1, -0.1, 0.05, -0.05, 0.2, -0.2, 0.02, -0.02, 0.08, -0.08 };
	double noise[4] = { -0.03, -0.01, 0.01, 0.03 };
	double d[10], x[10];
	uint32_t pairs[10];
	struct pg_speed sp;

	(void)state;
	assert_int_equal(pg_speed_init(&sp, 10), 0);
	for (int k = 0; k < 10; k++) {
		pairs[k] = (uint32_t)k;
		d[k] = c[k] + 0.2;
	}
	assert_int_equal(pg_speed_add(&sp, d, pairs, 10, 3.6e7, 0), 0);	/* weight 6000 */
	for (int f = 1; f <= 4; f++) {						/* 2000 each */
		for (int k = 0; k < 10; k++)
			d[k] = c[k] + noise[(f + k) % 4];
		assert_int_equal(pg_speed_add(&sp, d, pairs, 10, 4e6, (uint32_t)f), 0);
	}
	/* (under a minimum effect of 25%, its +20% keeps it a reference) */
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.25), 0);
	assert_true(sp.applied);
	for (int k = 0; k < 10; k++)
		assert_true(fabs(sp.c[k] - (c[k] + 0.03)) < 1e-9);
	/* the changed reference, corrected without its own values: its +20% stays */
	for (int k = 0; k < 10; k++)
		x[k] = c[k] + 0.2;
	pg_speed_correct(&sp, x, pairs, 10, 1, 0);
	for (int k = 0; k < 10; k++)
		assert_true(fabs(x[k] - 0.2) < 1e-9);
	/* the same values as a function that is no reference: the whole c[k], 3% less */
	for (int k = 0; k < 10; k++)
		x[k] = c[k] + 0.2;
	pg_speed_correct(&sp, x, pairs, 10, 1, PG_SPEED_NO_ID);
	for (int k = 0; k < 10; k++)
		assert_true(fabs(x[k] - 0.17) < 1e-9);
	pg_speed_release(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_medians),
		cmocka_unit_test(test_speed_weighted),
		cmocka_unit_test(test_speed_leave_one_out),
		cmocka_unit_test(test_speed_finds_change),
		cmocka_unit_test(test_speed_aa),
		cmocka_unit_test(test_speed_changed_refs),
		cmocka_unit_test(test_speed_global_change),
		cmocka_unit_test(test_speed_blocked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
