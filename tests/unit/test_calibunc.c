// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_calibunc.c - the calibration's uncertainty in the intervals of traced
 * functions (diff/calibunc.h): its bounds from fabricated samples, worked out by hand, and
 * the widening pg_compare() applies to runs whose calibrations' spreads differ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../diff/calibunc.h"
#include "fixtures.h"

/*
 * A sample with @calls own calls at a site of kind @k over @comp ns compensated, each
 * compensated by 10 us (the joint cost of calib(@k, 10000, ...) below, all in).
 */
static struct pg_sample sample(enum pg_site k, double calls, double comp)
{
	struct pg_sample s = { .compensated = comp, .measured = 2 * comp };

	s.sub[k] = 10000 * calls;
	return s;
}

/*
 * A calibration costing @cost ns a call at sites of kind @k (all in), spread @spread; the
 * other kinds 1 us (nop5: 0.5 in, 0.5 out) or 1.2 us, no spread. The spread's arithmetic is
 * tested at nop5 sites, whose cost the BPF run time scales (no drift floor, no cap).
 */
static struct pg_calib calib(enum pg_site k, double cost, double spread)
{
	struct pg_calib c = { .valid = true };

	c.in_ns[PG_SITE_NOP5] = c.out_ns[PG_SITE_NOP5] = 500;
	c.in_ns[PG_SITE_EMULATED] = c.out_ns[PG_SITE_EMULATED] = 600;
	c.in_ns[PG_SITE_SSTEP] = c.out_ns[PG_SITE_SSTEP] = 600;
	c.in_ns[k] = cost;
	c.out_ns[k] = 0;
	c.spread_ns[k] = spread;
	c.in_ns[PG_SITE_UNKNOWN] = c.in_ns[PG_SITE_SSTEP];
	c.out_ns[PG_SITE_UNKNOWN] = c.out_ns[PG_SITE_SSTEP];
	c.spread_ns[PG_SITE_UNKNOWN] = c.spread_ns[PG_SITE_SSTEP];
	return c;
}

#define N PG_SITE_NOP5
#define S PG_SITE_SSTEP

/*
 * Two recordings: each side errs on its own. Base 1000 calls over 1 ms, spread 100 ns: a
 * within +-0.1; new 1000 calls over 1.4 ms, spread 300 ns: +-0.2142857. The true log change
 * is the measured one plus log(1 - a_new) - log(1 - a_base): at most
 * log(1.2142857) - log(0.9) = 0.2995 above, at least log(0.7857143) - log(1.1) = -0.3365
 * below (worked out with a calculator, not the code's formula).
 */
static void test_bounds_separate(void **state)
{
	struct pg_calib b = calib(N, 10000, 100), n = calib(N, 10000, 300);
	struct pg_sample sb = sample(N, 1000, 1e6), sn = sample(N, 1000, 1.4e6);
	struct pg_calibunc u;
	double lo, hi;

	(void)state;
	pg_calibunc_init(&u, &b, &n, true);
	assert_true(u.on);
	assert_false(u.shared);
	assert_null(pg_calibunc_unknown(&u));
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, 0.299517, 1e-6);
	assert_float_equal(lo, -0.336472, 1e-6);
	/* calibrations 2 us apart with no spread: each side within +-1 us a call; the base's
	 * 10 calls over 10 us could be all probe cost (a = 1), the new's 1 over 14 us a = 1/14 */
	b = calib(N, 9000, 0);
	n = calib(N, 11000, 0);
	pg_calibunc_init(&u, &b, &n, true);
	sb = sample(N, 10, 10000);
	sn = sample(N, 1, 14000);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	/* the base side's error could be its whole time: no upper bound */
	assert_true(isinf(hi) && hi > 0);
	assert_float_equal(lo, log(1 - 1000.0 / 14000) - log(2), 1e-12);
	assert_non_null(pg_calibunc_unknown(&u));
	/* a spread of 5x the cost (a disturbed calibration) counts as the whole cost: the base's
	 * 10 calls of 10 us over 1 ms within +-10%, not +-50% */
	b = calib(N, 10000, 50000);
	n = calib(N, 10000, 0);
	pg_calibunc_init(&u, &b, &n, true);
	sb = sample(N, 10, 1e6);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, -log(0.9), 1e-12);
	assert_float_equal(lo, -log(1.1), 1e-12);
	/* not compensated: nothing */
	pg_calibunc_init(&u, &b, &n, false);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
}

/*
 * One calibration on both sides (perfgate ab): one error x in +-100 ns. With the same share of
 * probes on both sides it cancels; with twice the calls on the new side (1000 over 1 ms
 * against 2000 over 1 ms) a_base = x / 1000 and a_new = x / 500: at x = +100,
 * log(0.8) - log(0.9) = -0.117783; at x = -100, log(1.2) - log(1.1) = 0.087011.
 */
static void test_bounds_shared(void **state)
{
	struct pg_calib c = calib(N, 10000, 100);
	struct pg_sample sb = sample(N, 1000, 1e6), sn = sample(N, 1000, 1e6);
	struct pg_calibunc u;
	double lo, hi;

	(void)state;
	pg_calibunc_init(&u, &c, &c, true);
	assert_true(u.shared);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(lo, 0, 1e-15);
	assert_float_equal(hi, 0, 1e-15);
	sn = sample(N, 2000, 1e6);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(lo, -0.117783, 1e-6);
	assert_float_equal(hi, 0.087011, 1e-6);
	/* the same with no recorded spread: nothing to widen, and said */
	c = calib(N, 10000, 0);
	pg_calibunc_init(&u, &c, &c, true);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	assert_non_null(strstr(pg_calibunc_unknown(&u), "do not carry"));
}

#define NREPS 10
#define CALLS 100

/*
 * A run of one function, "work", at a nop5 site: @pc ns a call plus a little deterministic
 * variation, its own probes' in included, and one nop5 callee a repetition (not a leaf: no
 * trimming, every call counts; calib(N, ...) puts no cost of it in its caller).
 */
static struct pg_run *work_run(double pc, unsigned int seed, const struct pg_calib *c)
{
	struct pg_run *run = pg_fx_prog_run(NULL, 0, 0);

	pg_fx_func(run, "/bin/prog", "work", NULL, PG_SITE_NOP5);
	for (unsigned int r = 0; r < NREPS; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 10000000);
		double v = pc + 20.0 * ((r * seed) % 7);
		struct pg_fstat *s = pg_fx_stat_each(rep, 0, CALLS, v, v);

		s->kids[PG_SITE_NOP5] = s->desc[PG_SITE_NOP5] = 1;
	}
	run->calib = *c;
	return run;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Compensated time of work_run(@pc, @seed) with the joint nop5 in @in, as the bounds take it:
 * its calls times the median of its repetitions' values (NREPS even: the middle two's mean).
 */
static double comp_sum(double pc, unsigned int seed, double in)
{
	double v[NREPS];

	for (unsigned int r = 0; r < NREPS; r++)
		v[r] = pc + 20.0 * ((r * seed) % 7) - in;
	qsort(v, NREPS, sizeof(v[0]), by_value);
	return (double)NREPS * CALLS * (v[NREPS / 2 - 1] + v[NREPS / 2]) / 2;
}

/* pg_compare() of base (@pc_b, calibration @cb) and new (@pc_n, @cn); "work"'s entry */
static void compare(double pc_b, const struct pg_calib *cb, double pc_n,
		    const struct pg_calib *cn, struct pg_comparison *out, struct pg_fcmp *f)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run *b = work_run(pc_b, 3, cb), *n = work_run(pc_n, 5, cn);

	o.no_speed = true;	/* one function: nothing to tell the machine's speed from */
	pg_comparison_init(out);
	assert_int_equal(pg_compare(b, n, &o, out), 0);
	*f = *pg_fx_find(out, "work");
	pg_run_free(b);
	pg_run_free(n);
}

static bool warned(const struct pg_comparison *c, const char *what)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], what))
			return true;
	return false;
}

/*
 * A function 40% slower (6 us a call, then 8.4 us) under probes that cost it
 * 9 us a call in both recordings, while the new recording's calibration read 11 us: the joint
 * calibration (10 us) reads it +48%, with an interval of the repetitions' variation only
 * that leaves +40% out. The calibrations' disagreement widens it over +40%; their spreads
 * widen it by exactly as much more as the bounds say.
 */
static void test_compare_widens(void **state)
{
	struct pg_calib same = calib(N, 10000, 0), lo_c = calib(N, 9000, 0);
	struct pg_calib hi_c = calib(N, 11000, 0), lo_s = calib(N, 9000, 300);
	struct pg_calib hi_s = calib(N, 11000, 500);
	struct pg_comparison c0, c1, c2;
	struct pg_fcmp f0, f1, f2;
	double ab, an, lo, hi;

	(void)state;
	/* raw: 9 us of probes in both; compensated with 10 us (the joint calibration) */
	compare(15000, &same, 17400, &same, &c0, &f0);
	assert_true(warned(&c0, "no recorded spread"));
	assert_true(f0.calib_unc == 0);
	assert_true(f0.change > 0.45 && f0.change < 0.51);
	assert_true(f0.ci_lo > 0.40);	/* narrow and wrong: what the widening is for */

	compare(15000, &lo_c, 17400, &hi_c, &c1, &f1);
	assert_true(f1.change == f0.change && f1.p == f0.p);
	/* +-1 us a call on each side: a = 1000 x calls / compensated */
	ab = 1000.0 * NREPS * CALLS / comp_sum(15000, 3, 10000);
	an = 1000.0 * NREPS * CALLS / comp_sum(17400, 5, 10000);
	lo = log1p(-an) - log1p(ab);
	hi = log1p(an) - log1p(-ab);
	assert_float_equal(f1.ci_lo, expm1(log1p(f0.ci_lo) + lo), 1e-9);
	assert_float_equal(f1.ci_hi, expm1(log1p(f0.ci_hi) + hi), 1e-9);
	assert_true(f1.ci_lo < 0.40 && f1.ci_hi > 0.40);
	assert_float_equal(f1.calib_unc, fmax(expm1(hi), -expm1(lo)), 1e-12);

	/* spreads of 300 and 500 ns on top: each side's bound grows by its own */
	compare(15000, &lo_s, 17400, &hi_s, &c2, &f2);
	assert_false(warned(&c2, "no recorded spread"));
	ab = 1300.0 * NREPS * CALLS / comp_sum(15000, 3, 10000);
	an = 1500.0 * NREPS * CALLS / comp_sum(17400, 5, 10000);
	assert_float_equal(f2.ci_lo, expm1(log1p(f0.ci_lo) + log1p(-an) - log1p(ab)), 1e-9);
	assert_float_equal(f2.ci_hi, expm1(log1p(f0.ci_hi) + log1p(an) - log1p(-ab)), 1e-9);
	assert_true(f2.ci_lo < f1.ci_lo && f2.ci_hi > f1.ci_hi);
	/* probes are ~2/3 of its measured time: said in the verdict */
	assert_true(f2.probe_share > PG_CALIBUNC_SHARE);
	assert_non_null(strstr(f2.reason, "mostly probe cost: +-"));
	assert_non_null(strstr(f2.reason, "from the calibration"));
	assert_int_not_equal(f2.verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c0);
	pg_comparison_release(&c1);
	pg_comparison_release(&c2);
}

/* A function with little probe cost keeps a near-unchanged interval and says nothing. */
static void test_compare_small_share(void **state)
{
	struct pg_calib lo_s = calib(N, 9000, 300), hi_s = calib(N, 11000, 500);
	struct pg_comparison c;
	struct pg_fcmp f;

	(void)state;
	/* 1 ms a call: 10 us of probes is 1% of it */
	compare(1e6, &lo_s, 1.4e6, &hi_s, &c, &f);
	assert_true(f.calib_unc > 0 && f.calib_unc < 0.02);
	assert_true(f.probe_share < PG_CALIBUNC_SHARE);
	assert_null(strstr(f.reason, "mostly probe cost"));
	assert_int_equal(f.verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
}

/*
 * Probes ~87% of its measured time (2 us of its own under 13 us of them): not tested, but its
 * interval is shown, widened all the same.
 */
static void test_untested_widened(void **state)
{
	struct pg_calib same = calib(N, 13000, 0), lo_s = calib(N, 12000, 300);
	struct pg_calib hi_s = calib(N, 14000, 500);
	struct pg_comparison c0, c1;
	struct pg_fcmp f0, f1;

	(void)state;
	compare(15000, &same, 15800, &same, &c0, &f0);
	compare(15000, &lo_s, 15800, &hi_s, &c1, &f1);
	assert_int_equal(f1.cause, PG_CAUSE_PROBES);
	assert_true(f1.change == f0.change);
	assert_true(f1.calib_unc > f0.calib_unc);
	assert_true(f1.ci_lo < f0.ci_lo && f1.ci_hi > f0.ci_hi);
	pg_comparison_release(&c0);
	pg_comparison_release(&c1);
}

/*
 * A single-stepped site (a trap: not scaled by the BPF run time) with a shared calibration of
 * 10 us and a spread of 10 ns: its error is taken within +-PG_CALIBUNC_TRAP_DRIFT (50%) all the
 * same, capped above by the shortest call. 1000 calls over 2 ms (base) and 2.8 ms (new), the
 * shortest 11 us: x in [-0.5, +0.1]. At x = +0.1, a_base = 0.5 and a_new = 1/2.8:
 * log(1 - 0.357143) - log(0.5) = 0.251314; at x = -0.5, a_base = -2.5 and a_new = -1.785714:
 * log(2.785714) - log(3.5) = -0.228259 (a calculator's).
 */
static void test_trap_drift(void **state)
{
	struct pg_calib c = calib(S, 10000, 10);
	struct pg_sample sb = sample(S, 1000, 2e6), sn = sample(S, 1000, 2.8e6);
	struct pg_calibunc u;
	double lo, hi;

	(void)state;
	pg_calibunc_init(&u, &c, &c, true);
	assert_true(u.shared);
	assert_float_equal(u.u[0][S], PG_CALIBUNC_TRAP_DRIFT, 1e-15);
	/* no call bounds it: at x = +0.5 the base's error is 2.5 times its time (the new's 1.79:
	 * the base's reaches its whole time first), no upper end; the lower one stays */
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_true(isinf(hi) && hi > 0);
	assert_float_equal(lo, -0.228259, 1e-6);
	sb.shortest[S] = sn.shortest[S] = 11000;
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, 0.251314, 1e-6);
	assert_float_equal(lo, -0.228259, 1e-6);
	/* one side's shorter call caps the one cost of both */
	sn.shortest[S] = 10500;
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, log(1 - 0.05 / 0.28) - log(1 - 0.05 / 0.2), 1e-12);
	/* the same numbers at a nop5 site keep the spread's +-0.1%: no floor there */
	c = calib(N, 10000, 10);
	sb = sample(N, 1000, 2e6);
	sn = sample(N, 1000, 2.8e6);
	pg_calibunc_init(&u, &c, &c, true);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, log(1 - 0.005 / 1.4) - log(1 - 0.005), 1e-12);
	assert_float_equal(lo, log(1 + 0.005 / 1.4) - log(1 + 0.005), 1e-12);
}

/*
 * The sums of a perfgate ab session of bench/probeunc.c (gcc -O2: work() single-stepped, ~2 us
 * of its own, 40% slower in new; 10 pairs of 2000 calls; 2026-11-29, kept as
 * sstep-keep/ab5): its one calibration read in(sstep) 12820 ns, out 2064 ns, spread 368 ns,
 * taken in a slow stretch of the machine (the other sessions read 8.9-9.4 us). The shortest
 * calls were 10856 ns (base) and 11657 ns (new): shorter than the calibrated in, so 7 base and
 * 4 new repetitions came out at the floor, and the paired test read +3654% [-94%, +257136%].
 * With the spread alone the ends moved by [-0.185, +0.426] (log), and a session like it read
 * +3634.7% [+83.4%, +74658.3%] for a true +39.8%. Floored repetitions leave both ends
 * unbounded; without them the calls cap x at 10856 / 12820.18 - 1 = -0.153210, below the
 * box's -0.5 .. +0.5, and the box becomes [-0.5, -0.153210]: g at -0.5 is
 * log(1 + 0.5 x 256403556 / 24373257) - log(1 + 0.5 x 256403556 / 12266573) = -0.603934, at
 * -0.153210 -0.475657, and the upper end stays (0: never moved inwards).
 */
static void test_contradicted(void **state)
{
	struct pg_calib c = calib(S, 12820.177777777777, 368.1573910316105);
	struct pg_sample sb = sample(S, 0, 12266573), sn = sample(S, 0, 24373257);
	struct pg_calibunc u;
	double lo, hi;

	(void)state;
	c.out_ns[S] = c.out_ns[PG_SITE_UNKNOWN] = 2063.982222222223;
	sb.sub[S] = sn.sub[S] = 256403556;
	sb.shortest[S] = 10856;
	sn.shortest[S] = 11657;
	sb.floored = 7;
	sn.floored = 4;
	pg_calibunc_init(&u, &c, &c, true);
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_true(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
	sb.floored = sn.floored = 0;
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(lo, -0.603934, 1e-6);
	assert_true(hi == 0);
}

/*
 * The bias is bounded against the time the estimate stands for, the median value, not the
 * sums. A perfgate ab session of bench/probeunc.c (gcc -O2, work() single-stepped, 19.8%
 * slower in new; 10 pairs of 2000 calls; 2026-11-29): one calibration, in(sstep) 9034.15 ns,
 * spread 243 ns; 180682975 ns of in taken out of each side; compensated sums 71560176 and
 * 73679302 ns (3% apart), medians of the repetitions' values 3728.1 and 4095.3 ns a call (10%
 * apart; the paired estimate read +11.1%). The shortest call, 10846 ns, caps x at
 * 10846 / 9034.15 - 1 = 0.200556: a_base = 0.200556 x 180682975 / (3728.1 x 20000) = 0.485997,
 * a_new 0.442420, g = log(0.557580) - log(0.514003) = +0.081376; at x = -0.5: a -1.211624 and
 * -1.102985, g = -0.050369 (a calculator's). Over the sums the upper end moved by 0.029 only,
 * and the interval, [-18.7%, +17.8%], missed the true change.
 */
static void test_median_time(void **state)
{
	struct pg_calib c = calib(S, 9034.1487603305777, 243.1256623817654);
	struct pg_sample sb = sample(S, 0, 71560175.553719059);
	struct pg_sample sn = sample(S, 0, 73679301.553719059);
	double rb = 3728.114923879949, rn = 4095.3167659852124;
	struct pg_calibunc u;
	double lo, hi;

	(void)state;
	sb.sub[S] = sn.sub[S] = 180682975.20661154;
	sb.shortest[S] = 10846;
	sn.shortest[S] = 11237;
	pg_calibunc_init(&u, &c, &c, true);
	/* no values: the sums */
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, 0.029079, 1e-6);
	sb.raw = &rb;
	sn.raw = &rn;
	sb.n = sn.n = 1;
	sb.calls = sn.calls = 20000;
	pg_calibunc_bounds(&u, &sb, &sn, &lo, &hi);
	assert_float_equal(hi, 0.081376, 1e-6);
	assert_float_equal(lo, -0.050369, 1e-6);
}

/* A run of "work" at a single-stepped site, @pc ns a call, calibrated @in ns (spread 100). */
static struct pg_run *sstep_run(double pc, double in)
{
	struct pg_calib c = calib(S, in, 100);
	struct pg_run *run = pg_fx_prog_run(NULL, 0, 0);

	pg_fx_func(run, "/bin/prog", "work", NULL, PG_SITE_SSTEP);
	for (unsigned int r = 0; r < NREPS; r++)
		pg_fx_stat_each(pg_fx_rep(run, 10000000), 0, CALLS, pc + 10.0 * r, pc + 10.0 * r);
	run->calib = c;
	return run;
}

/*
 * pg_compare() gathers what the bounds need: a calibrated in of 12 us over 11-11.1 us calls
 * floors every base repetition (its interval unbounded); with 9 us, 11 us and 11.8 us calls
 * (+40% of 2 us) keep a lower end (the drift floor's x = -0.5: a_base -2.25, a_new -1.6,
 * about -20%), and the shortest calls, nearly as long as every call, move the upper one far.
 */
static void test_compare_gathers(void **state)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run *b = sstep_run(11000, 12000), *n = sstep_run(11800, 12000);
	struct pg_comparison c;
	const struct pg_fcmp *f;

	(void)state;
	o.no_speed = true;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(b, n, &o, &c), 0);
	f = pg_fx_find(&c, "work");
	assert_true(isinf(f->ci_lo) && isinf(f->ci_hi));
	pg_comparison_release(&c);
	pg_run_free(b);
	pg_run_free(n);
	b = sstep_run(11000, 9000);
	n = sstep_run(11800, 9000);
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(b, n, &o, &c), 0);
	f = pg_fx_find(&c, "work");
	/* every call nearly as long as the shortest: nearly all of it could be probe (x = 2 / 9:
	 * a_base 2000 / 2045, a_new 2000 / 2845, g = log(0.297012) - log(0.022005) = 2.6026), an
	 * upper end 13.5 times the measured one */
	assert_true(f->ci_hi > 10);
	assert_true(isfinite(f->ci_lo) && f->ci_lo < 0.40);
	assert_true(f->change > 0.35 && f->change < 0.45);
	pg_comparison_release(&c);
	pg_run_free(b);
	pg_run_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_separate),
		cmocka_unit_test(test_bounds_shared),
		cmocka_unit_test(test_compare_widens),
		cmocka_unit_test(test_compare_small_share),
		cmocka_unit_test(test_untested_widened),
		cmocka_unit_test(test_median_time),
		cmocka_unit_test(test_trap_drift),
		cmocka_unit_test(test_contradicted),
		cmocka_unit_test(test_compare_gathers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
