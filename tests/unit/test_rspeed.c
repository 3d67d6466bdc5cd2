// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_rspeed.c - the machine's speed between two recordings compared unpaired, and
 * the correction of the new run's values for it (diff/rspeed.h, diff/compare.c), on runs built
 * in memory.
 *
 * The model: two recordings of ten repetitions, one after the other. Each recording runs at
 * its own speed (the new one @drift slower), each repetition at its own speed around it
 * (1 + @rep_sd * N(0, 1)), and every function of the repetition moves with both; each function's
 * per-call time has its own smaller noise on top. Eight leaf functions, the first of which may
 * be slower in the new run; f1 may be partly blocked, which the machine does not slow.
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
#include "../../diff/rspeed.h"
#include "fixtures.h"

#define NFUNCS 8
static const char *const names[NFUNCS] = { "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7" };
#define REPS 10
#define WALL_NS 1e8

struct model {
	double drift;		/* the new recording's machine is this much slower */
	double rep_sd;		/* each repetition's speed around its recording's */
	double sd;		/* each function's own noise */
	double effect;		/* f0 is this much slower in the new run */
	double all;		/* every function is this much slower in the new run */
	double blocked;		/* f1's share of time blocked */
	uint64_t seed;
};

static struct pg_run *recording(const struct model *m, int k, uint64_t *s)
{
	struct pg_run *run = pg_fx_prog_run(names, NFUNCS, PG_AB_NONE);

	run->meta.offcpu = true;
	for (uint32_t r = 0; r < REPS; r++) {
		double speed = (k ? 1 + m->drift : 1) * pg_fx_noise(s, m->rep_sd);
		struct pg_rep *rep = pg_fx_rep(run, (uint64_t)(WALL_NS * speed *
							       (k ? 1 + m->all : 1)));

		rep->seq = r;
		rep->cpu_ns = rep->wall_ns;
		for (uint32_t f = 0; f < NFUNCS; f++) {
			double v = 1e5 * (1 + f) * pg_fx_noise(s, m->sd);
			struct pg_fstat *st;

			if (k)
				v *= (1 + m->all) * (f == 0 ? 1 + m->effect : 1);
			if (f == 1)
				v = v * (1 - m->blocked) * speed + v * m->blocked;
			else
				v *= speed;
			st = pg_fx_stat_each(rep, f, 10, v, v);
			if (f == 1)
				st->offcpu_ns = st->self_offcpu_ns =
					(uint64_t)((double)st->self_ns * m->blocked);
		}
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

static void compare(const struct model *m, bool no_speed, struct pg_comparison *c)
{
	uint64_t s = m->seed * 0x9E3779B97F4A7C15ULL + 11;
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run *a = recording(m, 0, &s), *b = recording(m, 1, &s);

	o.min_impact = 0;
	o.no_speed = no_speed;
	pg_comparison_init(c);
	assert_int_equal(pg_compare(a, b, &o, c), 0);
	pg_run_free(a);
	pg_run_free(b);
}

static bool flagged(const struct pg_fcmp *f)
{
	return f->verdict == PG_VERDICT_REGRESSION || f->verdict == PG_VERDICT_IMPROVEMENT;
}

/* The functions (not the program's lines) flagged in @c */
static size_t nflagged(const struct pg_comparison *c, bool *f0)
{
	size_t n = 0;

	*f0 = false;
	for (size_t i = 0; i < c->n; i++) {
		if (c->f[i].origin == PG_ORIGIN_PROGRAM || !flagged(&c->f[i]))
			continue;
		n++;
		*f0 |= !strcmp(c->f[i].name, "f0");
	}
	return n;
}

static const struct pg_fcmp *program_cpu(const struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin == PG_ORIGIN_PROGRAM && !strcmp(c->f[i].name, PG_PROGRAM_CPU))
			return &c->f[i];
	return NULL;
}

/* pg_rspeed on its own: the median, a changed reference left out, leave one out, beta */
static void test_rspeed_medians(void **state)
{
	uint32_t tags[6] = { 0, 1, 2, 3, 4, 5 };
	double u[6] = { 0.02, -0.03, 0.01, -0.01, 0.04, -0.03 };
	double lb[6], ln[6], beta, c;
	struct pg_stats_ws ws = PG_STATS_WS_INIT;
	struct pg_rspeed rs = { 0 };

	(void)state;
	/* six references 10% slower in the new run, one of them 60% (changed by itself); every
	 * repetition's speed u moves them all */
	for (int f = 0; f < 6; f++) {
		for (int i = 0; i < 6; i++) {
			lb[i] = 10 + f + u[i] + 0.0001 * i;
			ln[i] = 10 + f + u[(i + 3) % 6] + log(f == 5 ? 1.6 : 1.1) + 0.0001 * i;
		}
		assert_int_equal(pg_rspeed_add(&rs, (uint32_t)f, lb, tags, 6, ln, tags, 6, 1e6),
				 0);
	}
	assert_int_equal(pg_rspeed_finish(&rs, 0.05, 0.05, &ws), 0);
	assert_true(rs.applied);
	assert_int_equal(rs.nchanged, 1);
	assert_true(fabs(rs.shift - log(1.1)) < 0.002);
	/* a function that follows the machine wholly: its new values less the shift */
	for (int i = 0; i < 6; i++) {
		lb[i] = 5 + u[i];
		ln[i] = 5 + u[(i + 3) % 6] + log(1.1);
	}
	c = pg_rspeed_of(&rs, 99, lb, tags, 6, ln, tags, 6, 1, &beta);
	assert_true(fabs(beta - 1) < 0.05);
	assert_true(fabs(c - log(1.1)) < 0.005);
	/* ... but by no more than its time not blocked */
	c = pg_rspeed_of(&rs, 99, lb, tags, 6, ln, tags, 6, 0.5, &beta);
	assert_true(fabs(c - 0.5 * log(1.1)) < 0.005);
	/* one that does not move with the repetitions' speeds is not corrected */
	for (int i = 0; i < 6; i++)
		lb[i] = ln[i] = 5;
	c = pg_rspeed_of(&rs, 99, lb, tags, 6, ln, tags, 6, 1, &beta);
	assert_true(fabs(c) < 1e-9);
	pg_rspeed_release(&rs);

	/* most of the weight changed by itself: no common speed */
	for (int f = 0; f < 4; f++) {
		for (int i = 0; i < 6; i++) {
			lb[i] = 10 + u[i];
			ln[i] = 10 + u[i] + (f == 0 ? 0 : f == 1 ? 0.5 : f == 2 ? -0.5 : 1.0);
		}
		assert_int_equal(pg_rspeed_add(&rs, (uint32_t)f, lb, tags, 6, ln, tags, 6,
					       f ? 1e8 : 1e2), 0);
	}
	assert_int_equal(pg_rspeed_finish(&rs, 0.05, 0.05, &ws), 0);
	assert_false(rs.applied);
	assert_true(pg_rspeed_of(&rs, 9, lb, tags, 6, ln, tags, 6, 1, &beta) == 0);
	pg_rspeed_release(&rs);

	/* two references are not enough */
	for (int f = 0; f < 2; f++)
		assert_int_equal(pg_rspeed_add(&rs, (uint32_t)f, lb, tags, 6, ln, tags, 6, 1e6), 0);
	assert_int_equal(pg_rspeed_finish(&rs, 0.05, 0.05, &ws), 0);
	assert_false(rs.applied);
	pg_rspeed_release(&rs);
	pg_stats_ws_release(&ws);
}

/* A/A, the new recording's machine 15% slower: uncorrected every function is flagged;
 * corrected none is, and the program's CPU time, as measured +15%, is inconclusive: less the
 * speed its functions tell it is unchanged, and two recordings cannot tell which it was */
static void test_rspeed_aa(void **state)
{
	size_t raw = 0, corr = 0, prog = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct model m = { .drift = 0.15, .rep_sd = 0.03, .sd = 0.01, .seed = seed };
		struct pg_comparison c;
		const struct pg_fcmp *p;
		bool f0;

		compare(&m, true, &c);
		raw += nflagged(&c, &f0) >= 6;
		pg_comparison_release(&c);
		compare(&m, false, &c);
		assert_true(c.speed_runs);
		assert_true(c.speed_applied);
		/* within what ten repetitions of a 3% spread tell of a recording's speed */
		assert_true(fabs(c.speed_shift - 0.15) < 0.05);
		corr += nflagged(&c, &f0);
		p = program_cpu(&c);
		prog += p && p->verdict == PG_VERDICT_INCONCLUSIVE && p->cause == PG_CAUSE_DRIFT;
		assert_int_not_equal(c.overall, PG_OVERALL_REGRESSION);
		pg_comparison_release(&c);
	}
	assert_true(raw >= 18);
	assert_true(corr <= 1);
	/* what the machine did to the whole program: two recordings cannot tell, and say so */
	assert_true(prog >= 18);
}

/* f0 20% slower on a machine 15% slower: found, and no other function flagged */
static void test_rspeed_finds_change(void **state)
{
	size_t found = 0, others = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct model m = { .drift = 0.15, .rep_sd = 0.03, .sd = 0.01, .effect = 0.2,
				   .seed = seed };
		struct pg_comparison c;
		const struct pg_fcmp *f;
		bool f0;

		compare(&m, false, &c);
		others += nflagged(&c, &f0) - f0;
		found += f0;
		f = pg_fx_find(&c, "f0");
		if (f0)
			assert_true(fabs(f->change - 0.2) < 0.05);
		pg_comparison_release(&c);
	}
	assert_true(found >= 19);
	assert_true(others <= 1);
}

/* f1, blocked 90% of its time, is no reference and is corrected by its 10% at most: a
 * machine 30% slower moves it +3%, which the correction must not turn into an improvement */
static void test_rspeed_blocked(void **state)
{
	size_t flagged_f1 = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct model m = { .drift = 0.3, .rep_sd = 0.03, .sd = 0.01, .blocked = 0.9,
				   .seed = seed };
		struct pg_comparison c;
		const struct pg_fcmp *f;

		compare(&m, false, &c);
		assert_int_equal(c.speed_refs, NFUNCS - 1);
		f = pg_fx_find(&c, "f1");
		flagged_f1 += flagged(f);
		pg_comparison_release(&c);
	}
	assert_true(flagged_f1 <= 1);
}

/* Every function 15% slower on a steady machine: indistinguishable from a machine 15% slower,
 * for the functions and for the program's CPU time (these runs have no reference spins):
 * inconclusive, never a pass */
static void test_rspeed_global_change(void **state)
{
	size_t prog = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct model m = { .rep_sd = 0.02, .sd = 0.01, .all = 0.15, .seed = seed };
		struct pg_comparison c;
		const struct pg_fcmp *p;

		compare(&m, false, &c);
		p = program_cpu(&c);
		prog += p && p->verdict == PG_VERDICT_INCONCLUSIVE && p->cause == PG_CAUSE_DRIFT;
		/* (a function of the model may be flagged on its own: one seed of ten here) */
		assert_int_not_equal(c.overall, PG_OVERALL_PASS);
		if (c.overall == PG_OVERALL_INCONCLUSIVE)
			assert_non_null(strstr(c.overall_reason, "ab tells them apart"));
		pg_comparison_release(&c);
	}
	assert_int_equal(prog, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rspeed_medians),
		cmocka_unit_test(test_rspeed_aa),
		cmocka_unit_test(test_rspeed_finds_change),
		cmocka_unit_test(test_rspeed_blocked),
		cmocka_unit_test(test_rspeed_global_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
