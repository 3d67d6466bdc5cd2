// SPDX-License-Identifier: MIT
/* Overhead compensation (core/run.c) and the function-table surgery --budget relies on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/run.h"

static const struct pg_calib calib = {
	.valid = true,
	/*            unknown  nop5   emulated  sstep */
	.in_ns = { 11000, 600, 700, 11000 },
	.out_ns = { 1500, 1000, 1100, 1500 },
};

static void test_leaf(void **state)
{
	struct pg_func f = { .site = PG_SITE_NOP5 };
	struct pg_fstat s = { .calls = 10, .total_ns = 100000, .self_ns = 100000 };

	/* a leaf: each call carries in(nop5) = 600 ns inside its own window */
	assert_true(fabs(pg_fstat_comp_total(&calib, &f, &s) - (100000 - 10 * 600)) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&calib, &f, &s) - (100000 - 10 * 600)) < 1e-9);
	assert_true(fabs(pg_fstat_probe_cost(&calib, &f, &s) - 10 * 1600) < 1e-9);
}

static void test_parent(void **state)
{
	/* 2 calls of an emulated parent, each making 10 nop5 calls, one of which calls 1 sstep */
	struct pg_func f = { .site = PG_SITE_EMULATED };
	struct pg_fstat s = {
		.calls = 2, .total_ns = 1000000, .self_ns = 300000,
		.desc = { [PG_SITE_NOP5] = 20, [PG_SITE_SSTEP] = 2 },
		.kids = { [PG_SITE_NOP5] = 20 },
	};
	double total = 1000000 - 2 * 700 - 20 * 1600 - 2 * 12500;
	double self = 300000 - 2 * 700 - 20 * 1000;

	assert_true(fabs(pg_fstat_comp_total(&calib, &f, &s) - total) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&calib, &f, &s) - self) < 1e-9);
}

/* Measured probe times at calibration: nop5 400, emulated 500 ns, single-stepped @sstep. */
static void set_measured(struct pg_calib *m, double sstep)
{
	m->measured = true;
	m->measured_ns[PG_SITE_NOP5] = 400;
	m->measured_ns[PG_SITE_SSTEP] = sstep;
	m->measured_ns[PG_SITE_EMULATED] = 500;
}

/* @s's scales of its descendants and children, and its compensated total and self. */
static void check_comp(const struct pg_calib *m, const struct pg_func *f,
		       const struct pg_fstat *s, double desc_scale, double kids_scale,
		       double total, double self)
{
	assert_true(fabs(pg_calib_scale(m, s->desc, s->desc_probe_ns) - desc_scale) < 1e-12);
	assert_true(fabs(pg_calib_scale(m, s->kids, s->kids_probe_ns) - kids_scale) < 1e-12);
	assert_true(fabs(pg_fstat_comp_total(m, f, s) - total) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(m, f, s) - self) < 1e-9);
}

/*
 * Runs with measured probe times: the measured part of out(k) is taken as measured, and the
 * calibrated rest of the nop5 descendants' (children's) cost is scaled by how long their probes
 * ran in BPF against the calibration's measured_ns; emulated and single-stepped ones are not.
 */
static void test_measured(void **state)
{
	struct pg_calib m = calib;
	struct pg_func f = { .site = PG_SITE_EMULATED };
	/*
	 * descendants' probes: 20 x 400 + 4 x 500 + 2 x 1700 = 13400 ns expected, 16750 ran
	 * (x 1.25); children's: 20 x 400 + 4 x 500 = 10000 expected, 15000 ran (x 1.5)
	 */
	struct pg_fstat s = {
		.calls = 2, .total_ns = 1000000, .self_ns = 300000,
		.desc = { [PG_SITE_NOP5] = 20, [PG_SITE_EMULATED] = 4, [PG_SITE_SSTEP] = 2 },
		.kids = { [PG_SITE_NOP5] = 20, [PG_SITE_EMULATED] = 4 },
		.probe_ns = 3000, .desc_probe_ns = 16750, .kids_probe_ns = 15000,
	};
	/*
	 * nop5: out 1000 of which 400 measured at calibration, emulated: 1100 of which 500;
	 * sstep: all of its 1500, and more. Only nop5 calls are scaled; the emulated parent's own
	 * in is not either.
	 */
	double total = 1000000 - 2 * 700 - 1.25 * 20 * (600 + 600) - 4 * (700 + 600) -
		       2 * (11000 + 0) - 16750;
	double self = 300000 - 2 * 700 - 1.5 * 20 * 600 - 4 * 600 - 15000;

	set_measured(&m, 1700);
	check_comp(&m, &f, &s, 1.25, 1.5, total, self);
	/* own probes: in + the unmeasured part of out per call, plus what was measured */
	assert_true(fabs(pg_fstat_probe_cost(&m, &f, &s) - (2 * (700 + 600) + 3000)) < 1e-9);
	/* per descendant, before the scale (what the BPF programs subtract from each call's
	 * histogram entry) */
	assert_true(pg_calib_desc_ns(&m, PG_SITE_NOP5) == 600 + 600);
	assert_true(pg_calib_desc_ns(&m, PG_SITE_SSTEP) == 11000);
	/* the same calibration without measured probe times ignores the sums: no scale either */
	m.measured = false;
	assert_true(pg_calib_scale(&m, s.desc, s.desc_probe_ns) == 1);
	assert_true(pg_calib_desc_ns(&m, PG_SITE_NOP5) == 1600);
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) -
			 (1000000 - 2 * 700 - 20 * 1600 - 4 * 1800 - 2 * 12500)) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&m, &f, &s) -
			 (300000 - 2 * 700 - 20 * 1000 - 4 * 1100)) < 1e-9);
}

/*
 * Tail calls: a traced child entered by `jmp` shares its return trip into the kernel with its
 * caller's return probe, so the caller's window holds trip(k) = in(k) less per such call (at
 * most in(emulated): a single-stepped site's in holds the step). For the total that is every
 * tail call at any depth (desc_tails), for self the caller's own (tails).
 */
static void test_tails(void **state)
{
	struct pg_calib m = calib;
	struct pg_func f = { .site = PG_SITE_NOP5 };
	/* 2 calls of a parent, each calling 10 nop5 children, the last by a tail call; one child
	 * tail-calls a single-stepped grandchild */
	struct pg_fstat s = {
		.calls = 2, .total_ns = 1000000, .self_ns = 300000,
		.desc = { [PG_SITE_NOP5] = 20, [PG_SITE_SSTEP] = 2 },
		.kids = { [PG_SITE_NOP5] = 20 },
		.tails = { [PG_SITE_NOP5] = 2 },
		.desc_tails = { [PG_SITE_NOP5] = 2, [PG_SITE_SSTEP] = 2 },
		.probe_ns = 800, .desc_probe_ns = 10650, .kids_probe_ns = 10000,
	};
	struct pg_fstat none = s;
	double total, self;

	memset(none.tails, 0, sizeof(none.tails));
	memset(none.desc_tails, 0, sizeof(none.desc_tails));
	assert_true(pg_calib_trip_ns(&m, PG_SITE_NOP5) == 600);
	assert_true(pg_calib_trip_ns(&m, PG_SITE_EMULATED) == 700);
	assert_true(pg_calib_trip_ns(&m, PG_SITE_SSTEP) == 700);
	/* uncalibrated emulated: in(k) itself */
	m.in_ns[PG_SITE_EMULATED] = 0;
	assert_true(pg_calib_trip_ns(&m, PG_SITE_SSTEP) == 11000);
	m.in_ns[PG_SITE_EMULATED] = 700;

	/* without measured probe times */
	total = 1000000 - 2 * 600 - 20 * 1600 - 2 * 12500 + 2 * 600 + 2 * 700;
	self = 300000 - 2 * 600 - 20 * 1000 + 2 * 600;
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) - total) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&m, &f, &s) - self) < 1e-9);
	/* each tail call gives back one trip against the same counts without tails */
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) - pg_fstat_comp_total(&m, &f, &none) -
			 (2 * 600 + 2 * 700)) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&m, &f, &s) - pg_fstat_comp_self(&m, &f, &none) -
			 2 * 600) < 1e-9);

	/* measured: the nop5 trips take the scale of the group they belong to (x1 of the
	 * descendants, x1.25 of the children: 20 x 400 expected, 10000 ran); own in x1 */
	set_measured(&m, 1325);
	total = 1000000 - 2 * 600 - 20 * (600 + 600) - 2 * (11000 + 175) - 10650 +
		2 * 600 + 2 * 700;
	self = 300000 - 2 * 600 - 1.25 * 20 * 600 - 10000 + 1.25 * 2 * 600;
	check_comp(&m, &f, &s, 1.0, 1.25, total, self);
}

/* The scale is bounded: stalls inside the probes are not a machine 10 times slower. */
static void test_scale_bounds(void **state)
{
	struct pg_calib m = calib;
	uint64_t n[PG_SITE_COUNT] = { [PG_SITE_NOP5] = 10 }, none[PG_SITE_COUNT] = { 0 };
	struct pg_func f = { .site = PG_SITE_NOP5 };
	struct pg_fstat s = {
		.calls = 1, .total_ns = 100000, .self_ns = 50000,
		.desc = { [PG_SITE_NOP5] = 10 }, .kids = { [PG_SITE_NOP5] = 10 },
		.probe_ns = 400, .desc_probe_ns = 40000, .kids_probe_ns = 40000,
	};

	m.measured = true;
	m.measured_ns[PG_SITE_NOP5] = 400;
	assert_true(pg_calib_scale(&m, n, 4000) == 1);
	assert_true(fabs(pg_calib_scale(&m, n, 2000) - 0.5) < 1e-12);
	assert_true(pg_calib_scale(&m, n, 40000) == PG_CALIB_SCALE_MAX);	/* 10x */
	assert_true(pg_calib_scale(&m, n, 100) == 1.0 / PG_CALIB_SCALE_MAX);	/* 1/40 */
	assert_true(pg_calib_scale(&m, none, 100) == 1);	/* no calls: nothing to scale */
	m.measured_ns[PG_SITE_NOP5] = 0;	/* nothing measured at calibration */
	assert_true(pg_calib_scale(&m, n, 4000) == 1);
	m.measured_ns[PG_SITE_NOP5] = 400;
	/* in the sums: 10 x 1200 of calibrated rest, taken 4 times, not 10 */
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) -
			 (100000 - 600 - 4 * 10 * 1200 - 40000)) < 1e-9);
	assert_true(pg_fstat_comp_self(&m, &f, &s) == 0);	/* 50000 - 600 - 24000 - 40000 */
	assert_true(pg_calib_scaled_site(PG_SITE_NOP5));
	assert_false(pg_calib_scaled_site(PG_SITE_EMULATED) ||
		     pg_calib_scaled_site(PG_SITE_SSTEP) || pg_calib_scaled_site(PG_SITE_UNKNOWN));
}

/*
 * A call's own in: on nop5 sites scaled by its own probes' BPF run time against calibration;
 * on trap sites (emulated, single-stepped) as calibrated.
 */
static void test_own_in(void **state)
{
	struct pg_calib m = calib;
	struct pg_func f = { .site = PG_SITE_NOP5 };
	/* a leaf: 10 calls whose probes ran 10 x 400 x 1.5 ns in BPF */
	struct pg_fstat s = { .calls = 10, .total_ns = 100000, .self_ns = 100000,
			      .probe_ns = 6000 };

	m.measured = true;
	m.measured_ns[PG_SITE_NOP5] = 400;
	m.measured_ns[PG_SITE_EMULATED] = 400;
	m.measured_ns[PG_SITE_SSTEP] = 400;
	assert_true(fabs(pg_fstat_own_in(&m, &f, &s) - 1.5 * 10 * 600) < 1e-9);
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) - (100000 - 1.5 * 10 * 600)) < 1e-9);
	assert_true(fabs(pg_fstat_comp_self(&m, &f, &s) - (100000 - 1.5 * 10 * 600)) < 1e-9);
	/* bounded like every scale */
	s.probe_ns = 10 * 400 * 10;
	assert_true(fabs(pg_fstat_own_in(&m, &f, &s) - PG_CALIB_SCALE_MAX * 10 * 600) < 1e-9);
	s.probe_ns = 6000;
	f.site = PG_SITE_EMULATED;
	assert_true(fabs(pg_fstat_own_in(&m, &f, &s) - 10 * 700) < 1e-9);
	assert_true(fabs(pg_fstat_comp_total(&m, &f, &s) - (100000 - 10 * 700)) < 1e-9);
	f.site = PG_SITE_SSTEP;
	assert_true(fabs(pg_fstat_own_in(&m, &f, &s) - 10 * 11000) < 1e-9);
	/* without measured probe times, or without a calibration */
	f.site = PG_SITE_NOP5;
	m.measured = false;
	assert_true(fabs(pg_fstat_own_in(&m, &f, &s) - 10 * 600) < 1e-9);
	m.valid = false;
	assert_true(pg_fstat_own_in(&m, &f, &s) == 0);
}

static void test_clamp_and_uncalibrated(void **state)
{
	struct pg_calib none = { 0 };
	struct pg_func f = { .site = PG_SITE_SSTEP };
	struct pg_fstat s = { .calls = 10, .total_ns = 5000, .self_ns = 4000 };

	/* probes said to cost more than was measured: never below zero */
	assert_true(pg_fstat_comp_total(&calib, &f, &s) == 0);
	assert_true(pg_fstat_comp_self(&calib, &f, &s) == 0);
	/* without calibration the raw values come back */
	assert_true(pg_fstat_comp_total(&none, &f, &s) == 5000);
	assert_true(pg_fstat_comp_self(&none, &f, &s) == 4000);
	assert_true(pg_fstat_probe_cost(&none, &f, &s) == 0);
}

static void test_retain(void **state)
{
	struct pg_run run;
	bool keep[4] = { true, false, true, false };

	pg_run_init(&run);
	assert_int_equal(pg_run_add_func(&run, "/bin/x", "a", NULL, 1, 1, PG_SITE_NOP5, false,
					 NULL), 0);
	assert_int_equal(pg_run_add_func(&run, "/bin/x", "b", NULL, 2, 2, PG_SITE_NOP5, false,
					 NULL), 0);
	assert_int_equal(pg_run_add_func(&run, "/bin/x", "c", NULL, 3, 3, PG_SITE_SSTEP, true,
					 NULL), 0);
	assert_int_equal(pg_run_add_func(&run, "/bin/y", "d", NULL, 4, 4, PG_SITE_NOP5, false,
					 NULL), 0);
	assert_int_equal(pg_run_retain_funcs(&run, keep), 0);
	assert_int_equal(run.nfuncs, 2);
	assert_string_equal(run.funcs[0].name, "a");
	assert_string_equal(run.funcs[1].name, "c");
	assert_int_equal(run.funcs[1].id, 1);
	assert_int_equal(run.funcs[1].site, PG_SITE_SSTEP);
	assert_true(run.funcs[1].endbr);
	/* a run with repetitions cannot lose functions */
	assert_non_null(pg_run_add_rep(&run));
	assert_int_equal(pg_run_retain_funcs(&run, keep), -EINVAL);
	pg_run_release(&run);
}

static void test_validate_counts(void **state)
{
	struct pg_run run;
	struct pg_rep *rep;
	struct pg_fstat *s;
	char why[128];
	char *argv0 = strdup("prog");

	pg_run_init(&run);
	run.meta.argc = 1;
	run.meta.argv = calloc(1, sizeof(char *));
	run.meta.argv[0] = argv0;
	assert_int_equal(pg_run_add_func(&run, "/bin/x", "a", NULL, 1, 1, PG_SITE_NOP5, false,
					 NULL), 0);
	rep = pg_run_add_rep(&run);
	s = pg_rep_add_stat(rep, 0);
	s->calls = 1;
	s->total_ns = s->self_ns = s->min_ns = s->max_ns = 10;
	assert_int_equal(pg_hist_record(&s->hist, 10), 0);
	s->desc[PG_SITE_NOP5] = 1;
	s->kids[PG_SITE_NOP5] = 1;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), 0);
	s->kids[PG_SITE_NOP5] = 2;	/* more children than descendants: impossible */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	s->kids[PG_SITE_NOP5] = 1;
	s->tails[PG_SITE_NOP5] = s->desc_tails[PG_SITE_NOP5] = 1;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), 0);
	s->tails[PG_SITE_NOP5] = 2;	/* more tail calls than children */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	s->tails[PG_SITE_NOP5] = 0;
	s->desc_tails[PG_SITE_NOP5] = 2;	/* more than descendants */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	s->desc_tails[PG_SITE_NOP5] = 0;
	s->desc_probe_ns = 10;
	s->kids_probe_ns = 11;	/* more than all descendants' */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	s->kids_probe_ns = 10;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), 0);
	s->desc[PG_SITE_NOP5] = s->kids[PG_SITE_NOP5] = 0;	/* probe time of no descendant */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	s->desc[PG_SITE_NOP5] = s->kids[PG_SITE_NOP5] = 1;
	/* compensated histograms need the calibration, with measured probe times */
	run.hist_compensated = true;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	run.calib = calib;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	run.calib.measured = true;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), 0);
	run.calib.in_ns[PG_SITE_NOP5] = NAN;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	pg_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf),
		cmocka_unit_test(test_parent),
		cmocka_unit_test(test_measured),
		cmocka_unit_test(test_scale_bounds),
		cmocka_unit_test(test_tails),
		cmocka_unit_test(test_own_in),
		cmocka_unit_test(test_clamp_and_uncalibrated),
		cmocka_unit_test(test_retain),
		cmocka_unit_test(test_validate_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
