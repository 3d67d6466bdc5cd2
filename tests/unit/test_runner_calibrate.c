// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_calibrate.c - the calibration's arithmetic and its sanity check
 * (runner/probes/calibrate.h): in and out from the child's loop timings and the targets' maps, and
 * which results count as disturbed by the machine (measured again by record).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../core/log.h"
#include "../../runner/probes/calibrate.h"

static const struct pg_calib_targets targets = {
	.site = { PG_SITE_NOP5, PG_SITE_EMULATED, PG_SITE_SSTEP },
};

/* loop costs, unprobed bodies, probed medians and BPF run times as seen on the project VMs */
static const struct pg_calib_loops loops = {
	.cost_ns = { 2200, 2400, 16000 },
	.body_ns = { 2000, 2000, 2000 },
	.spread_ns = { 120, 150, 900 },
};
static const double median[PG_CALIB_NTARGETS] = { 2750, 2850, 15500 };
static const double bpf[PG_CALIB_NTARGETS] = { 500, 510, 650 };

static void test_compute(void **state)
{
	struct pg_calib c;

	(void)state;
	pg_calib_compute(&targets, &loops, median, bpf, &c);
	assert_true(c.valid);
	assert_true(c.measured);
	assert_float_equal(c.in_ns[PG_SITE_NOP5], 750, 1e-9);
	assert_float_equal(c.out_ns[PG_SITE_NOP5], 1450, 1e-9);
	assert_float_equal(c.measured_ns[PG_SITE_NOP5], 500, 1e-9);
	assert_float_equal(c.in_ns[PG_SITE_EMULATED], 850, 1e-9);
	assert_float_equal(c.out_ns[PG_SITE_EMULATED], 1550, 1e-9);
	assert_float_equal(c.in_ns[PG_SITE_SSTEP], 13500, 1e-9);
	assert_float_equal(c.out_ns[PG_SITE_SSTEP], 2500, 1e-9);
	/* sites without a target of their own get the dearest figures */
	assert_float_equal(c.in_ns[PG_SITE_UNKNOWN], 13500, 1e-9);
	assert_float_equal(c.out_ns[PG_SITE_UNKNOWN], 2500, 1e-9);
	assert_float_equal(c.measured_ns[PG_SITE_UNKNOWN], 650, 1e-9);
	assert_float_equal(c.spread_ns[PG_SITE_NOP5], 120, 1e-9);
	assert_float_equal(c.spread_ns[PG_SITE_SSTEP], 900, 1e-9);
	assert_float_equal(c.spread_ns[PG_SITE_UNKNOWN], 900, 1e-9);
	assert_true(pg_calib_spread_known(&c));
	assert_true(pg_calib_plausible(&c));
}

/*
 * The median's uncertainty from the rounds' median absolute deviation: 1.96 x sqrt(pi / 2) x
 * 1.4826 x MAD / sqrt(n), so that a few disturbed rounds do not set it.
 */
static void test_round_spread(void **state)
{
	const double d[PG_CALIB_ROUNDS] = { 1500, 1400, 1450, 1300, 1420, 9700, 1440 };
	const double e[PG_CALIB_ROUNDS] = { 1500, 1400, 1450, 9100, 1420, 8700, 9900 };

	(void)state;
	/* median 1440; distances 60 40 10 140 20 8260 0: MAD 40, x 3.642 / sqrt(7) = 55.06 */
	assert_float_equal(pg_calib_round_spread(d, PG_CALIB_ROUNDS, 1440), 55.06, 0.01);
	/* three of seven disturbed, thousands of ns off: median 1500, distances 0 100 50 7600 80
	 * 7200 8400, MAD 100: 137.65 */
	assert_float_equal(pg_calib_round_spread(e, PG_CALIB_ROUNDS, 1500), 137.65, 0.01);
	assert_float_equal(pg_calib_round_spread(d, 1, 1500), 0, 1e-9);
	assert_float_equal(pg_calib_round_spread(d, 0, 1500), 0, 1e-9);
}

/* A probed median at or under the unprobed one: in = 0, a probe costing nothing inside. */
static void test_in_zero(void **state)
{
	double m[PG_CALIB_NTARGETS];
	struct pg_calib c;

	(void)state;
	for (int k = 0; k < PG_CALIB_NTARGETS; k++) {
		memcpy(m, median, sizeof(m));
		m[k] = loops.body_ns[k] - 10;
		pg_calib_compute(&targets, &loops, m, bpf, &c);
		assert_float_equal(c.in_ns[targets.site[k]], 0, 1e-9);
		assert_false(pg_calib_plausible(&c));
	}
}

/* A loop cost under in (the rounds drifted apart): in takes it all, out = 0 < measured. */
static void test_out_below_measured(void **state)
{
	struct pg_calib_loops l = loops;
	struct pg_calib c;

	(void)state;
	l.cost_ns[1] = 900;	/* in = 850: out 50 < 510 measured */
	pg_calib_compute(&targets, &l, median, bpf, &c);
	assert_float_equal(c.out_ns[PG_SITE_EMULATED], 50, 1e-9);
	assert_false(pg_calib_plausible(&c));
	l.cost_ns[1] = 800;	/* under in: clamped */
	pg_calib_compute(&targets, &l, median, bpf, &c);
	assert_float_equal(c.in_ns[PG_SITE_EMULATED], 800, 1e-9);
	assert_float_equal(c.out_ns[PG_SITE_EMULATED], 0, 1e-9);
	assert_false(pg_calib_plausible(&c));
	l.cost_ns[1] = 850 + 510;	/* out == measured: possible */
	pg_calib_compute(&targets, &l, median, bpf, &c);
	assert_true(pg_calib_plausible(&c));
}

/*
 * out far above the BPF run time on a nop5 or emulated site (other probes attached and detached
 * on the machine during calibration): disturbed. Single-stepped sites, which pay the step
 * outside BPF, have a looser bound.
 */
static void test_out_far_above_measured(void **state)
{
	struct pg_calib c;

	(void)state;
	pg_calib_compute(&targets, &loops, median, bpf, &c);
	for (int k = PG_SITE_NOP5; k <= PG_SITE_EMULATED; k++) {
		double out = c.out_ns[k];

		c.out_ns[k] = PG_CALIB_MAX_OUT_RATIO * c.measured_ns[k];
		assert_true(pg_calib_plausible(&c));
		c.out_ns[k] = 7.8 / 1.2 * PG_CALIB_MAX_OUT_RATIO * c.measured_ns[k];
		assert_false(pg_calib_plausible(&c));
		c.measured = false;		/* older calibrations: no bound */
		assert_true(pg_calib_plausible(&c));
		c.measured = true;
		c.out_ns[k] = out;
	}
	assert_true(pg_calib_excess(&c) <= 1);
	c.out_ns[PG_SITE_SSTEP] = PG_CALIB_MAX_OUT_RATIO_SSTEP * c.measured_ns[PG_SITE_SSTEP];
	assert_true(pg_calib_plausible(&c));
	assert_float_equal(pg_calib_excess(&c), 1, 1e-9);
	c.out_ns[PG_SITE_SSTEP] = 140 * c.measured_ns[PG_SITE_SSTEP];	/* 84 us: seen */
	assert_false(pg_calib_plausible(&c));
	assert_float_equal(pg_calib_excess(&c), 140 / PG_CALIB_MAX_OUT_RATIO_SSTEP, 1e-9);
	c.measured = false;
	assert_float_equal(pg_calib_excess(&c), 0, 1e-9);
}

/* Calibrations from before measured_ns only need in > 0; an invalid one never passes. */
static void test_old_and_invalid(void **state)
{
	struct pg_calib c;

	(void)state;
	pg_calib_compute(&targets, &loops, median, bpf, &c);
	c.measured = false;
	c.out_ns[PG_SITE_SSTEP] = 0;
	assert_true(pg_calib_plausible(&c));
	c.in_ns[PG_SITE_SSTEP] = 0;
	assert_false(pg_calib_plausible(&c));
	memset(&c, 0, sizeof(c));
	assert_false(pg_calib_plausible(&c));
}

/* The probed targets are in this very executable. */
static void test_find(void **state)
{
	struct pg_calib_targets t;

	(void)state;
	assert_int_equal(pg_calib_find(&t), 0);
	assert_non_null(t.path);
	for (int k = 0; k < PG_CALIB_NTARGETS; k++) {
		assert_int_equal(t.site[k], targets.site[k]);
		assert_true(t.offset[k] > 0);
		for (int j = 0; j < k; j++)
			assert_true(t.offset[j] != t.offset[k]);
	}
	pg_calib_targets_release(&t);
	assert_null(t.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_round_spread),
		cmocka_unit_test(test_in_zero),
		cmocka_unit_test(test_out_below_measured),
		cmocka_unit_test(test_out_far_above_measured),
		cmocka_unit_test(test_old_and_invalid),
		cmocka_unit_test(test_find),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
