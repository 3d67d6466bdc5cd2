// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_budget.c - record --budget's decisions without BPF
 * (runner/budget/choose.h): which functions pg_budget_choose() keeps for a pilot repetition, budget
 * and calibration, the figures and the lists of names its messages give, and which functions a
 * sampled profile saw.
 *
 * The calibration makes every traced call cost 1 us (in 600 ns + out 400 ns, unmeasured), so a
 * function's pilot cost is its calls in us.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../runner/budget/choose.h"

enum { HOT, WARM, COLD, MAIN, NEVER, NFUNCS };

static const char *const names[NFUNCS] = { "hot", "warm", "cold", "main", "never" };
/* pilot calls: hot 0.3 s, warm 0.1 s, cold 1 ms, main 1 us of probes; never not returned */
static const uint64_t calls[NFUNCS] = { 300000, 100000, 1000, 1, 0 };

struct fixture {
	struct pg_run run;
	struct pg_rep pilot;
	bool keep[NFUNCS];
	struct pg_budget_choice c;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	pg_run_init(&f->run);
	for (int i = 0; i < NFUNCS; i++)
		assert_int_equal(pg_run_add_func(&f->run, "/bin/prog", names[i], NULL, 0x1000 + i,
						 0x1000 + i, PG_SITE_NOP5, false, NULL), 0);
	f->run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		f->run.calib.in_ns[k] = 600;
		f->run.calib.out_ns[k] = 400;
	}
	f->pilot.wall_ns = 1000000000;	/* 1 s */
	for (uint32_t i = 0; i < NFUNCS; i++) {
		struct pg_fstat *s;

		if (!calls[i])
			continue;
		s = pg_rep_add_stat(&f->pilot, i);
		assert_non_null(s);
		s->calls = calls[i];
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pg_rep_release(&f->pilot);
	pg_run_release(&f->run);
	free(f);
	return 0;
}

/* pg_budget_choose() on the fixture; returns its result. */
static int choose(struct fixture *f, double pct, uint64_t sampled_wall_ns, bool cut)
{
	memset(f->keep, 0xff, sizeof(f->keep));
	return pg_budget_choose(&f->run, &f->pilot, pct, sampled_wall_ns, cut, NULL, NULL, 0,
				f->keep, &f->c);
}

/* cmocka's assert_float_equal() compares floats: too coarse for nanoseconds in seconds */
static void assert_near(double a, double b, double eps)
{
	if (!(a - b <= eps && b - a <= eps))
		fail_msg("%.6f is not %.6f (+-%g)", a, b, eps);
}

static void assert_kept(const struct fixture *f, const bool want[NFUNCS])
{
	for (int i = 0; i < NFUNCS; i++)
		if (f->keep[i] != want[i])
			fail_msg("%s: kept %d, expected %d", names[i], f->keep[i], want[i]);
}

/* Own time 1 s - 0.401001 s of probes; 5% of it is 29.9 ms: hot and warm must go, costliest
 * first, and cold, main and never (cost unknown) stay. */
static void test_drops_costliest_first(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { false, false, true, true, true };

	assert_int_equal(choose(f, 5, 0, false), 2);
	assert_kept(f, want);
	assert_string_equal(f->c.dropped.s, "hot; warm");
	assert_int_equal(f->c.dropped.n, 2);
	assert_string_equal(pg_names_more(&f->c.dropped), "");
	assert_near(f->c.before, 401001000.0, 1);
	assert_near(f->c.own, 1e9 - 401001000.0, 1);
	assert_near(f->c.allowed, 0.05 * (1e9 - 401001000.0), 1);
	assert_near(f->c.after, 1001000.0, 1);
	assert_int_equal(f->c.unreached.n, 0);	/* not cut: nobody is named */
}

/* 50%: dropping hot alone is enough. */
static void test_stops_when_it_fits(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { false, true, true, true, true };

	assert_int_equal(choose(f, 50, 0, false), 1);
	assert_kept(f, want);
	assert_string_equal(f->c.dropped.s, "hot");
}

/* A budget the pilot already fits keeps everything, with an empty list. */
static void test_everything_fits(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { true, true, true, true, true };

	assert_int_equal(choose(f, 100, 0, false), 0);
	assert_kept(f, want);
	assert_int_equal(f->c.dropped.n, 0);
	assert_string_equal(f->c.dropped.s, "");
	assert_near(f->c.after, f->c.before, 1e-6);
}

/* A tiny budget drops every function with a known cost, never the one without. */
static void test_unknown_cost_stays(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { false, false, false, false, true };

	assert_int_equal(choose(f, 1e-9, 0, false), 4);
	assert_kept(f, want);
	assert_string_equal(f->c.dropped.s, "hot; warm; cold; main");
	assert_near(f->c.after, 0, 1e-6);
}

/* The sampled first pass's wall time is the own time when the pilot completed: 6% of 2 s is
 * 120 ms, so dropping hot (leaving 101 ms) is enough; 5% (100 ms) needs warm to go too. */
static void test_sampled_wall_is_own_time(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(choose(f, 6, 2000000000, false), 1);
	assert_near(f->c.own, 2e9, 1);
	assert_string_equal(f->c.dropped.s, "hot");
	assert_int_equal(choose(f, 5, 2000000000, false), 2);
	assert_string_equal(f->c.dropped.s, "hot; warm");
}

/* A stopped pilot: the sampled wall time no longer counts (6% of the pilot's own time drops
 * both), and the functions none of whose calls returned are named. */
static void test_cut_pilot(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(choose(f, 6, 2000000000, true), 2);
	assert_near(f->c.own, 1e9 - 401001000.0, 1);
	assert_int_equal(f->c.unreached.n, 1);
	assert_string_equal(f->c.unreached.s, "never");
	assert_true(f->keep[NEVER]);
}

/* Probes costing more than the pilot's wall time: the own time is 1% of the wall time. */
static void test_own_time_floor(void **state)
{
	struct fixture *f = *state;

	f->pilot.wall_ns = 300000000;	/* 0.3 s, less than the probes' 0.401 s */
	assert_int_equal(choose(f, 10, 0, false), 3);
	assert_near(f->c.own, 3e6, 1);
	assert_string_equal(f->c.dropped.s, "hot; warm; cold");
}

/*
 * Without a valid calibration (or one that reads 0) a call costs the floor of its site kind,
 * 0.5 us on a nop5 site: 200.5005 ms in all; 1% of the own time (1 s less that) drops hot
 * and warm.
 */
static void test_no_calibration(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { false, false, true, true, true };

	f->run.calib.valid = false;
	assert_int_equal(choose(f, 1, 0, false), 2);
	assert_near(f->c.before, 0.5 * 401001000.0, 1);
	assert_kept(f, want);
	f->run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++)
		f->run.calib.in_ns[k] = f->run.calib.out_ns[k] = 0;
	assert_int_equal(choose(f, 1, 0, false), 2);
	assert_near(f->c.before, 0.5 * 401001000.0, 1);
}

/*
 * What goes first is what is mostly probe: warm's probes are 0.1 s of its 10 s of measured
 * time (1%), cold's 1 ms of its 1.2 ms, main's 1 us of 11 s; hot has no time measured (all
 * probe). 0.95% of the own time (100.7 ms) drops hot and then cold, not warm, though warm
 * costs a hundred times what cold does.
 */
static void test_probe_bound_go_first(void **state)
{
	struct fixture *f = *state;
	static const bool want[NFUNCS] = { false, true, false, true, true };
	struct pg_fstat *warm = (struct pg_fstat *)pg_rep_find(&f->pilot, WARM);
	struct pg_fstat *cold = (struct pg_fstat *)pg_rep_find(&f->pilot, COLD);

	warm->total_ns = 10000000000ULL;
	cold->total_ns = 1200000;
	((struct pg_fstat *)pg_rep_find(&f->pilot, MAIN))->total_ns = 11000000000ULL;
	f->pilot.wall_ns = 11000000000ULL;
	assert_int_equal(choose(f, 0.95, 0, false), 2);
	assert_kept(f, want);
	assert_string_equal(f->c.dropped.s, "hot; cold");
}

/* A message's list: each name cut to 60 characters, the first ~170 characters, all counted. */
static void test_names_list(void **state)
{
	struct pg_names l = { 0 };
	char longname[80];

	(void)state;
	assert_string_equal(pg_names_more(&l), "");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (int i = 0; i < 10; i++)
		pg_names_add(&l, longname);
	assert_int_equal(l.n, 10);
	assert_string_equal(pg_names_more(&l), "; ...");
	assert_true(strlen(l.s) < sizeof(l.s));
	assert_int_equal(strspn(l.s, "a"), 57);
	assert_memory_equal(l.s + 57, "...; ", 5);
	assert_int_equal(strspn(l.s + 62, "a"), 57);
	assert_int_equal(l.len, strlen(l.s));
	/* three fit (3 * 60 + 2 * 2 = 184 characters), the fourth does not */
	assert_int_equal(l.len, 184);
}

/* A long C++ name loses its parameter list whole, never half a parameter. */
static void test_names_cxx(void **state)
{
	struct pg_names l = { 0 };

	(void)state;
	pg_names_add(&l, "snappy::internal::CompressFragment(char const*, unsigned long, char*, "
			 "unsigned short*, int)");
	pg_names_add(&l, "f(int, int)");
	assert_string_equal(l.s, "snappy::internal::CompressFragment(...); f(int, int)");
}

/* The budget's messages list many dropped functions as "a; b; ..." with the count. */
static void test_many_dropped(void **state)
{
	struct pg_run run;
	struct pg_rep pilot = { .wall_ns = 1000000000 };
	struct pg_budget_choice c;
	bool keep[20];
	char name[48];

	(void)state;
	pg_run_init(&run);
	run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++)
		run.calib.in_ns[k] = 1000;
	for (uint32_t i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "function_number_%02u_with_a_long_name", i);
		assert_int_equal(pg_run_add_func(&run, "/bin/prog", name, NULL, 0x1000 + i,
						 0x1000 + i, PG_SITE_NOP5, false, NULL), 0);
		assert_non_null(pg_rep_add_stat(&pilot, i));
		pilot.stats[i].calls = 1000 * (i + 1);	/* the last is the costliest */
	}
	assert_int_equal(pg_budget_choose(&run, &pilot, 0.001, 0, false, NULL, NULL, 0, keep, &c),
			 20);
	assert_int_equal(c.dropped.n, 20);
	assert_string_equal(pg_names_more(&c.dropped), "; ...");
	assert_true(!strncmp(c.dropped.s, "function_number_19_with_a_long_name; "
			     "function_number_18_with_a_long_name", 72));
	assert_null(strstr(c.dropped.s, "function_number_00"));
	pg_rep_release(&pilot);
	pg_run_release(&run);
}

/* Functions detached while the pilot ran (@gone) go whatever their cost so far. */
static void test_gone_always_dropped(void **state)
{
	struct fixture *f = *state;
	bool gone[NFUNCS] = { false };
	static const bool want[NFUNCS] = { true, true, false, true, true };

	gone[COLD] = true;
	memset(f->keep, 0xff, sizeof(f->keep));
	assert_int_equal(pg_budget_choose(&f->run, &f->pilot, 100, 0, false, gone, NULL, 0, f->keep,
					  &f->c), 1);
	assert_kept(f, want);
	assert_string_equal(f->c.dropped.s, "cold");
	assert_near(f->c.after, f->c.before - 1e6, 1);
}

/* The live rule's input: costs so far (ns) of five functions, all live. */
static const double live_cost[5] = { 9e6, 4e6, 2e6, 1e6, 0 };

/* A function over budget x the sampled run goes at once, the others stay: 5 ms limit. */
static void test_live_over_its_share(void **state)
{
	bool live[5] = { true, true, true, true, true }, drop[5];

	(void)state;
	/* own time 1 s: the probes (16 ms) are far from the global rule */
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 5e6, 1e9, drop), 1);
	assert_true(drop[0]);
	assert_false(drop[1] || drop[2] || drop[3] || drop[4]);
	/* one already detached is not dropped again */
	live[0] = false;
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 5e6, 1e9, drop), 0);
	assert_false(drop[0]);
}

/* Without the sampled run's length only the global rule acts. */
static void test_live_no_limit(void **state)
{
	bool live[5] = { true, true, true, true, true }, drop[5];

	(void)state;
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 0, 1e9, drop), 0);
	/* 16 ms of probes in 10 ms of own time: the costliest go until under 5 ms */
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 0, 10e6, drop), 2);
	assert_true(drop[0] && drop[1]);
	assert_false(drop[2] || drop[3] || drop[4]);
}

/*
 * The global rule after the per-function one: the rest (7 ms) over the own time (6 ms) and
 * over the limit (5 ms): the costliest left go until at most 3 ms. Under the limit, never.
 */
static void test_live_global_rule(void **state)
{
	bool live[5] = { true, true, true, true, true }, drop[5];

	(void)state;
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 5e6, 6e6, drop), 2);
	assert_true(drop[0] && drop[1]);
	assert_false(drop[2] || drop[3] || drop[4]);
	/* all of them (16 ms) within a 20 ms limit: the own time does not matter */
	assert_int_equal(pg_budget_live_drop(5, live_cost, live, 20e6, 1e6, drop), 0);
}

/* A repetition with one folded stack (count 1) per string of @stacks. */
/*
 * The functions left out with a large share: only those with PG_BUDGET_OUT_SHARE or more that
 * have calls, largest share first and, between equal shares, by id; their cost here and at
 * the reference cost of their site kind.
 */
static void test_left_out(void **state)
{
	struct fixture *f = *state;
	const bool keep[NFUNCS] = { false, false, false, true, false };
	/* hot and cold tie at 0.2: by id; warm under the share; main kept; never: no calls */
	const double share[NFUNCS] = { 0.2, 0.04, 0.2, 0.5, 0.3 };
	const double cost[NFUNCS] = { 3e8, 1e8, 2e6, 1e3, 0 };
	const double ncalls[NFUNCS] = { 3e5, 1e5, 1e3, 1, 0 };
	struct pg_budget_out *out;
	size_t n;
	char line[512];

	assert_int_equal(pg_budget_left_out(&f->run, keep, share, cost, ncalls, 1e9, &out, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].name, "hot");
	assert_string_equal(out[1].name, "cold");
	assert_string_equal(out[0].binary, "/bin/prog");
	assert_near(out[0].call_ns, 1000, 1e-9);
	assert_near(out[0].cost_pct, 30, 1e-9);
	assert_near(out[0].ref_call_ns, PG_REF_CALL_NS_NOP5, 0);
	assert_near(out[0].ref_cost_pct, 30 * PG_REF_CALL_NS_NOP5 / 1000, 1e-9);
	assert_near(out[1].cost_pct, 0.2, 1e-9);
	pg_budget_out_say(&out[1], 5, line, sizeof(line));
	assert_non_null(strstr(line, "--budget left out cold (20.0% of the CPU time): its ~1000 "
				"calls a run would cost ~0.2% of it here, at 2.00 us"));
	assert_non_null(strstr(line, "~0.1% at the reference 1.40 us, within the budget."));
	for (size_t k = 0; k < n; k++)
		pg_budget_out_release(&out[k]);
	free(out);
	/* nothing left out with a large share: none, and no array */
	assert_int_equal(pg_budget_left_out(&f->run, (const bool[NFUNCS]){ true, true, true, true,
							     true }, share, cost, ncalls, 1e9,
					    &out, &n), 0);
	assert_int_equal(n, 0);
	assert_null(out);
}

static void add_stacks(struct pg_rep *rep, const char *const *stacks, size_t n)
{
	rep->stacks = calloc(n, sizeof(*rep->stacks));
	assert_non_null(rep->stacks);
	for (size_t i = 0; i < n; i++) {
		rep->stacks[i].folded = strdup(stacks[i]);
		assert_non_null(rep->stacks[i].folded);
		rep->stacks[i].count = 1;
	}
	rep->nstacks = n;
	rep->samples = n;
}

/* The sampled first pass keeps the functions named as frames, by their display names. */
static void test_mark_sampled(void **state)
{
	struct fixture *f = *state;
	static const char *const stacks[] = { "main;hot", "main;work;warm;[unknown]" };
	struct pg_coverage cov = PG_COVERAGE_INIT;
	struct pg_rep rep = { 0 };
	bool seen[NFUNCS] = { false };

	add_stacks(&rep, stacks, 2);
	assert_int_equal(pg_coverage_add(&cov, &rep), 0);
	assert_int_equal(pg_budget_mark_sampled(&f->run, &cov, seen), 0);
	pg_coverage_release(&cov);
	assert_true(seen[HOT]);
	assert_true(seen[WARM]);
	assert_true(seen[MAIN]);
	assert_false(seen[COLD]);
	assert_false(seen[NEVER]);
	pg_rep_release(&rep);
}

/*
 * no -F: ~2,600 samples a repetition, their cost (30 us each, after 0.5 ms a repetition) under
 * 2% of the run, or 1% when that is more, odd, in [49, 4999]
 */
static void test_sample_hz(void **state)
{
	uint64_t n;

	(void)state;
	/* 2.5 s, 5 s and 10 s: the target */
	assert_int_equal(pg_budget_sample_hz(2500000000ULL, 1, &n), 1039);
	assert_int_equal(n, 2598);
	assert_int_equal(pg_budget_sample_hz(5000000000ULL, 1, &n), 519);
	assert_int_equal(n, 2595);
	assert_int_equal(pg_budget_sample_hz(10000000000ULL, 1, &n), 259);
	assert_int_equal(n, 2590);
	assert_int_equal(pg_budget_sample_hz(1000000000, 1, &n), 1299);	/* 1 s: 2% less 0.5 ms */
	assert_int_equal(n, 1299);
	assert_int_equal(pg_budget_sample_hz(100000000, 1, &n), 999);	/* 100 ms: 2% less 0.5 ms */
	assert_int_equal(n, 100);
	assert_int_equal(pg_budget_sample_hz(50000000, 1, &n), 665);	/* 50 ms: 1% */
	assert_int_equal(n, 33);
	assert_int_equal(pg_budget_sample_hz(10000000, 1, &n), 665);	/* 10 ms: 1% */
	assert_int_equal(n, 7);
	assert_int_equal(pg_budget_sample_hz(1000000000, 2, &n), 649);	/* two busy CPUs */
	assert_int_equal(n, 1298);
	assert_int_equal(pg_budget_sample_hz(1000000000, 0, &n), 1299);	/* unknown: one */
	/* asleep: the cap */
	assert_int_equal(pg_budget_sample_hz(50000000, 0.001, &n), 4999);
	assert_int_equal(n, 2);
	/* the floor */
	assert_int_equal(pg_budget_sample_hz(100000000000ULL, 20, NULL), 49);
	assert_int_equal(pg_budget_sample_hz(100000000000ULL, 1, &n), 49);
	assert_int_equal(n, 4900);
	assert_int_equal(pg_budget_sample_hz(0, 1, &n), 199);	/* no wall time: the default */
	assert_int_equal(n, 0);
	/* the cost stays within the budget wherever the cap, not the floor, decides */
	for (uint64_t w = 30000000; w <= 3000000000ULL; w += 7000000) {
		uint32_t hz = pg_budget_sample_hz(w, 1, &n);

		if (hz > PG_AUTO_MIN_HZ)
			assert_true(n * PG_SAMPLE_COST_NS <= PG_SAMPLE_COST_NS +
				    (w < 50000000 ? PG_AUTO_MIN_BUDGET_PCT / 100 * w :
				     PG_AUTO_BUDGET_PCT / 100 * w - PG_SAMPLE_FIXED_NS));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drops_costliest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stops_when_it_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_bound_go_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_everything_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_cost_stays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampled_wall_is_own_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_pilot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_time_floor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_calibration, setup, teardown),
		cmocka_unit_test(test_names_list),
		cmocka_unit_test(test_names_cxx),
		cmocka_unit_test(test_many_dropped),
		cmocka_unit_test_setup_teardown(test_gone_always_dropped, setup, teardown),
		cmocka_unit_test(test_live_over_its_share),
		cmocka_unit_test(test_live_no_limit),
		cmocka_unit_test(test_live_global_rule),
		cmocka_unit_test_setup_teardown(test_mark_sampled, setup, teardown),
		cmocka_unit_test(test_sample_hz),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
