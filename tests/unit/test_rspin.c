// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_rspin.c - the machine's speed between two recordings from their reference
 * spins (diff/rspeed.h, pg_rspeed_spin(); diff/compare.c), and an unknown speed, on runs built
 * in memory.
 *
 * The model: two recordings of ten repetitions of NFUNCS leaf functions, the new one's machine
 * @drift slower; each repetition runs at its own speed around its recording's (1 + REP_SD *
 * N(0, 1)), its spin and its functions with it, each function with its own noise on top; f0
 * may be @effect slower in the new run. Each spin also waits in a run queue for a random time
 * of up to its own length, which the speed must not count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/run.h"
#include "../../diff/compare.h"
#include "../../diff/rspeed.h"
#include "../../diff/stats.h"
#include "fixtures.h"

#define REPS 10
#define SPIN_NS 1e7
#define REP_SD 0.01
#define FUNC_SD 0.01

static const char *const names[] = { "f0", "f1", "f2", "f3" };

struct model {
	size_t nfuncs;
	double drift;		/* the new recording's machine is this much slower */
	double spin_drift;	/* its spins are this much slower (drift, unless they disagree) */
	double effect;		/* f0 is this much slower in the new run */
	bool spins;		/* the runs have reference spins */
	/* the spins ran on two CPUs, the benchmark on CPU 0 alone, which alone slowed by
	 * drift (CPU 1 kept the base recording's speed); placed: the samples say so */
	bool per_cpu, placed;
	uint64_t seed;
};

/* Repetition @r's spin of @run on two CPUs: CPU 0 @t0 ns, CPU 1 @t1, no waits; @placed: the
 * repetition's 100 samples all on CPU 0 */
static void spin_two_cpus(struct pg_run *run, double t0, double t1, bool placed)
{
	struct pg_spin *s;

	pg_fx_spin(run, 1, 0);
	s = &run->meta.spin[run->meta.nspin - 1];
	s->ncpu = 2;
	s->cpus[0] = (struct pg_spin_cpu){ .cpu = 0, .wall_ns = (uint64_t)t0,
					   .cpu_ns = (uint64_t)t0, .samples = placed ? 100 : 0 };
	s->cpus[1] = (struct pg_spin_cpu){ .cpu = 1, .wall_ns = (uint64_t)t1,
					   .cpu_ns = (uint64_t)t1 };
	pg_spin_combine(s);
}

static struct pg_run *recording(const struct model *m, int k, uint64_t *s)
{
	struct pg_run *run = pg_fx_prog_run(names, m->nfuncs, PG_AB_NONE);

	run->meta.offcpu = true;
	for (uint32_t r = 0; r < REPS; r++) {
		double speed = pg_fx_noise(s, REP_SD), spin = speed;
		struct pg_rep *rep;

		speed *= k ? 1 + m->drift : 1;
		spin *= k ? 1 + m->spin_drift : 1;
		if (m->per_cpu)
			spin_two_cpus(run, SPIN_NS * spin, SPIN_NS * spin / (k ? 1 + m->drift : 1),
				      m->placed);
		else if (m->spins)
			pg_fx_spin(run, (uint64_t)(SPIN_NS * spin),
				   (uint64_t)(SPIN_NS * pg_fx_uniform(s)));
		rep = pg_fx_rep(run, (uint64_t)(1e8 * speed));
		rep->cpu_ns = rep->wall_ns;
		for (uint32_t f = 0; f < m->nfuncs; f++) {
			double v = 1e5 * (1 + f) * speed * pg_fx_noise(s, FUNC_SD);

			if (k && f == 0)
				v *= 1 + m->effect;
			pg_fx_stat_each(rep, f, 10, v, v);
		}
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

static void compare(const struct model *m, struct pg_comparison *c)
{
	uint64_t s = m->seed * 0x9E3779B97F4A7C15ULL + 7;
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run *a = recording(m, 0, &s), *b = recording(m, 1, &s);

	o.min_impact = 0;
	pg_comparison_init(c);
	assert_int_equal(pg_compare(a, b, &o, c), 0);
	pg_run_free(a);
	pg_run_free(b);
}

static bool has_warning(const struct pg_comparison *c, const char *text)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], text))
			return true;
	return false;
}

/* pg_rspeed_spin() alone: the ratio of the medians of the on-CPU times, its floor, and when
 * there is none */
static void test_spin_speed(void **state)
{
	struct pg_run *a = pg_fx_prog_run(names, 1, PG_AB_NONE);
	struct pg_run *b = pg_fx_prog_run(names, 1, PG_AB_NONE);
	struct pg_run *e = pg_fx_prog_run(names, 1, PG_AB_NONE);
	double c, se;

	(void)state;
	/* base on-CPU 10, 11, 12 ms (median 11), new 13, 14, 30 ms (median 14); waits apart */
	for (int i = 0; i < 3; i++) {
		pg_fx_spin(a, (uint64_t)(10e6 + 1e6 * i), 50000000);
		pg_fx_spin(b, i == 2 ? 30000000 : (uint64_t)(13e6 + 1e6 * i), 0);
	}
	assert_int_equal(pg_rspeed_spin(&a->meta, &b->meta, false, &c, &se), 0);
	assert_true(fabs(c - log(14.0 / 11)) < 1e-12);
	/* the medians' standard errors from their MADs (log 12/11 and log 14/13; the 30 ms one
	 * moves neither), 1.4826 * 1.2533 * MAD / sqrt(3) each, in quadrature */
	assert_true(fabs(se - 1.4826 * 1.2533 / sqrt(3) * hypot(log(12.0 / 11), log(14.0 / 13)))
		    < 1e-4);
	assert_true(se > PG_RSPEED_SPIN_FLOOR);
	/* the CPU times, as --metric cpu compares them: the same here */
	assert_int_equal(pg_rspeed_spin(&a->meta, &b->meta, true, &c, &se), 0);
	assert_true(fabs(c - log(14.0 / 11)) < 1e-12);
	/* spins without spread: the floor */
	for (int i = 0; i < 3; i++)
		pg_fx_spin(e, 10000000, 0);
	assert_int_equal(pg_rspeed_spin(&e->meta, &e->meta, false, &c, &se), 0);
	assert_true(c == 0 && se == PG_RSPEED_SPIN_FLOOR);
	/* two workloads are never compared */
	free(b->meta.spin_workload);
	b->meta.spin_workload = strdup("another-spin");
	assert_int_equal(pg_rspeed_spin(&a->meta, &b->meta, false, &c, &se), -ENODATA);
	/* too few */
	b->meta.nspin = PG_RSPEED_SPIN_MIN - 1;
	free(b->meta.spin_workload);
	b->meta.spin_workload = strdup("test-spin");
	assert_int_equal(pg_rspeed_spin(&a->meta, &b->meta, false, &c, &se), -ENODATA);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(e);
}

/* Two traced functions, the machine and its spins 20% slower, the code the same: corrected
 * from the spins, nothing flagged, and the header's source is the spin. */
static void test_spin_slower_machine(void **state)
{
	struct model m = { .nfuncs = 2, .drift = 0.2, .spin_drift = 0.2, .spins = true };
	struct pg_comparison c;

	(void)state;
	for (m.seed = 1; m.seed <= 10; m.seed++) {
		compare(&m, &c);
		assert_int_equal(c.speed_src, PG_SRC_SPIN);
		assert_false(c.speed_applied);
		/* 1% noise a repetition, ten of them: the medians within 2% of +20% */
		assert_true(fabs(c.speed_shift - 0.2) < 0.02);
		assert_true(fabs(c.speed_spin - 0.2) < 0.02 && c.speed_spin_se > 0);
		for (size_t i = 0; i < c.n; i++) {
			if (c.f[i].origin == PG_ORIGIN_PROGRAM)
				continue;
			if (c.f[i].verdict == PG_VERDICT_REGRESSION)
				fail_msg("seed %" PRIu64 ": %s flagged %+.1f%%", m.seed,
					 c.f[i].name, 100 * c.f[i].change);
			/* corrected: near 0, the spins' uncertainty in the interval */
			assert_true(fabs(c.f[i].change) < 0.03);
			assert_true(c.f[i].ci_hi - c.f[i].ci_lo > 2 * 1.9 * PG_RSPEED_SPIN_FLOOR);
		}
		pg_comparison_release(&c);
	}
}

/* The machine 20% slower and f0 116% slower as measured: a regression of +116% scaled by the
 * speed (2.16 / 1.2 - 1 = +80%), inside its interval; f1 unchanged. (The two functions
 * cannot estimate their own noise: it is taken as PG_RNULL_PRIOR, 5%; with the spins'
 * uncertainty and what they do not see, PG_RSPEED_SPIN_BLIND, and the inflation prior 1.3,
 * the half-width is about 0.32 on the log scale: +80% is log 0.59, a +33% change, log 0.29,
 * would be inconclusive.) */
static void test_spin_finds_change(void **state)
{
	struct model m = { .nfuncs = 2, .drift = 0.2, .spin_drift = 0.2, .spins = true };
	struct pg_comparison c;
	const struct pg_fcmp *f;
	double want;

	(void)state;
	m.effect = 0.8;		/* measured: 1.2 * (1 + effect) = +116% */
	want = 0.8;
	for (m.seed = 1; m.seed <= 10; m.seed++) {
		compare(&m, &c);
		f = pg_fx_find(&c, "f0");
		assert_non_null(f);
		if (f->verdict != PG_VERDICT_REGRESSION || !(f->ci_lo <= want && want <= f->ci_hi))
			fail_msg("seed %" PRIu64 ": f0 %s %+.1f%% [%+.1f%%, %+.1f%%], want %+.1f%% "
				 "in it", m.seed, pg_verdict_name(f->verdict), 100 * f->change,
				 100 * f->ci_lo, 100 * f->ci_hi, 100 * want);
		assert_int_not_equal(pg_fx_find(&c, "f1")->verdict, PG_VERDICT_REGRESSION);
		pg_comparison_release(&c);
	}
}

/* No spins (files from before), too few references: the speed is unknown, every interval is
 * widened by PG_RSPEED_UNKNOWN and what a spin would not have seen either
 * (pg_rspeed_spin_error(): hypot(0.093, 0.113)), and a 20% slower machine flags nothing. */
static void test_unknown_speed(void **state)
{
	struct model m = { .nfuncs = 2, .drift = 0.2, .spin_drift = 0.2 };
	double z = pg_norm_isf(0.025);
	struct pg_comparison c;

	(void)state;
	for (m.seed = 1; m.seed <= 10; m.seed++) {
		compare(&m, &c);
		assert_int_equal(c.speed_src, PG_SRC_UNKNOWN);
		assert_true(isnan(c.speed_spin));
		for (size_t i = 0; i < c.n; i++) {
			const struct pg_fcmp *f = &c.f[i];
			double l = log1p(f->change);
			double u = z * hypot(PG_RSPEED_UNKNOWN, PG_RSPEED_SPIN_BLIND) - 1e-9;

			if (f->origin == PG_ORIGIN_PROGRAM)
				continue;
			assert_int_not_equal(f->verdict, PG_VERDICT_REGRESSION);
			/* each side at least the unknown speed's: log scale, 1e-9 of rounding */
			assert_true(log1p(f->ci_hi) - l >= u && l - log1p(f->ci_lo) >= u);
		}
		pg_comparison_release(&c);
	}
	/* a change far beyond it is still called: +100% measured */
	m.effect = 1.0 / 1.2 * 2 - 1;
	m.seed = 1;
	compare(&m, &c);
	assert_int_equal(pg_fx_find(&c, "f0")->verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
}

/* Four functions, references enough: they tell the speed; spins that agree say nothing, spins
 * that say the machine did not slow (while all functions did) are a warning. */
static void test_spin_checks_refs(void **state)
{
	struct model m = { .nfuncs = 4, .drift = 0.2, .spin_drift = 0.2, .spins = true, .seed = 3 };
	struct pg_comparison c;

	(void)state;
	compare(&m, &c);
	assert_int_equal(c.speed_src, PG_SRC_REFS);
	assert_true(c.speed_applied);
	assert_false(has_warning(&c, "reference spin"));
	pg_comparison_release(&c);
	m.spin_drift = 0;
	compare(&m, &c);
	assert_int_equal(c.speed_src, PG_SRC_REFS);
	assert_true(fabs(c.speed_spin) < 0.02);
	assert_true(has_warning(&c, "the reference spin and the reference functions disagree"));
	pg_comparison_release(&c);
}

/*
 * The program 20% slower in the new recording, its functions with it, and the spins not: the
 * memory or the files of the machine moved, which an integer chain does not see. With two
 * traced functions the spins are the speed, and what they cannot see (PG_RSPEED_SPIN_BLIND,
 * 0.113: log 1.2 is 1.6 of it) keeps every function and the program's CPU time from being
 * called a regression; each interval covers the true 0.
 */
static void test_spin_blind(void **state)
{
	struct model m = { .nfuncs = 2, .drift = 0.2, .spins = true };
	struct pg_comparison c;

	(void)state;
	for (m.seed = 1; m.seed <= 10; m.seed++) {
		compare(&m, &c);
		assert_int_equal(c.speed_src, PG_SRC_SPIN);
		assert_true(fabs(c.speed_spin) < 0.02);
		for (size_t i = 0; i < c.n; i++) {
			const struct pg_fcmp *f = &c.f[i];

			if (f->verdict == PG_VERDICT_REGRESSION || f->ci_lo > 0)
				fail_msg("seed %" PRIu64 ": %s %s %+.1f%% [%+.1f%%, %+.1f%%]",
					 m.seed, f->name, pg_verdict_name(f->verdict),
					 100 * f->change, 100 * f->ci_lo, 100 * f->ci_hi);
		}
		pg_comparison_release(&c);
	}
}

/*
 * The new recording's benchmark ran on a CPU at half speed (a virtual machine's CPU beside a
 * busy neighbour on its host core), the other CPU at full speed, the code the same. With the
 * samples saying where it ran, its spin there tells the speed: nothing flagged, corrected to
 * within 3% of 0. Without them, the spin is the CPUs' mean (+50%), known within +-d/2 (d =
 * log 2): the intervals must cover the true 0, and nothing is called a regression.
 */
static void test_spin_slow_cpu(void **state)
{
	struct model m = { .nfuncs = 2, .drift = 1.0, .spin_drift = 1.0, .spins = true,
			   .per_cpu = true };
	struct pg_comparison c;

	(void)state;
	for (int placed = 1; placed >= 0; placed--) {
		m.placed = placed;
		for (m.seed = 1; m.seed <= 10; m.seed++) {
			compare(&m, &c);
			assert_int_equal(c.speed_src, PG_SRC_SPIN);
			/* placed: CPU 0's +100%; else the mean of 2 and 1, d^2/12 in its
			 * variance (the floor and the noise below it) */
			if (placed)
				assert_true(fabs(c.speed_spin - 1.0) < 0.03);
			else
				assert_true(fabs(c.speed_spin - 0.5) < 0.03 &&
					    c.speed_spin_se > log(2) / sqrt(12));
			for (size_t i = 0; i < c.n; i++) {
				const struct pg_fcmp *f = &c.f[i];

				if (f->origin == PG_ORIGIN_PROGRAM)
					continue;
				if (f->verdict == PG_VERDICT_REGRESSION || f->ci_lo > 0 ||
				    f->ci_hi < 0 || (placed && fabs(f->change) > 0.03))
					fail_msg("placed %d seed %" PRIu64 ": %s %s %+.1f%% "
						 "[%+.1f%%, %+.1f%%]", placed, m.seed, f->name,
						 pg_verdict_name(f->verdict), 100 * f->change,
						 100 * f->ci_lo, 100 * f->ci_hi);
			}
			pg_comparison_release(&c);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_speed),
		cmocka_unit_test(test_spin_slower_machine),
		cmocka_unit_test(test_spin_finds_change),
		cmocka_unit_test(test_unknown_speed),
		cmocka_unit_test(test_spin_checks_refs),
		cmocka_unit_test(test_spin_slow_cpu),
		cmocka_unit_test(test_spin_blind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
