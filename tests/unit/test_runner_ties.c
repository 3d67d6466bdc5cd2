// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_ties.c - the runner's choices among functions of equal keys do not
 * depend on the order qsort() visits them (core/sort.h): --budget drops and names the
 * functions of equal probe share and cost by their index, the pilot's live rule detaches the
 * first of equally costly functions, and the first pass's objects of equal samples are taken
 * in the order they were found. A C library whose qsort() orders ties otherwise (musl's is
 * not stable) makes the same choice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/sort.h"
#include "../../runner/budget/choose.h"

enum { NF = 6 };

/* Six functions of equal calls: equal probe share and cost. Under a budget of none, all are
 * dropped, and named in the order of their index. */
static void test_budget_equal_keys(void **state)
{
	struct pg_run run;
	struct pg_rep pilot = { .wall_ns = 1000000000 };
	struct pg_budget_choice c;
	bool keep[NF];
	char name[16];

	(void)state;
	pg_run_init(&run);
	run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++)
		run.calib.in_ns[k] = 1000;
	for (uint32_t i = 0; i < NF; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(pg_run_add_func(&run, "/bin/prog", name, NULL, 0x1000 + i,
						 0x1000 + i, PG_SITE_NOP5, false, NULL), 0);
		assert_non_null(pg_rep_add_stat(&pilot, i));
		pilot.stats[i].calls = 1000;
	}
	assert_int_equal(pg_budget_choose(&run, &pilot, 0.001, 0, false, NULL, NULL, 0, keep, &c),
			 NF);
	assert_string_equal(c.dropped.s, "f0; f1; f2; f3; f4; f5");
	pg_rep_release(&pilot);
	pg_run_release(&run);
}

/* The live rule detaches every function over the limit, then the costliest until the rest is
 * under half the own time: of four equally costly functions, the first three. */
static void test_live_equal_costs(void **state)
{
	const double cost[4] = { 3e6, 3e6, 3e6, 3e6 };
	const bool live[4] = { true, true, true, true };
	bool drop[4];

	(void)state;
	assert_int_equal(pg_budget_live_drop(4, cost, live, 1e6, 10e6, drop), 4);
	/* 12 ms of probes over 10 ms of own time: dropped until at most 5 ms are left */
	assert_int_equal(pg_budget_live_drop(4, cost, live, 4e6, 10e6, drop), 3);
	assert_true(drop[0] && drop[1] && drop[2] && !drop[3]);
}

/* Objects of equal samples, as select.c orders them for --max-funcs: by their index, whatever
 * the order their indices are sorted from. */
static void test_objects_equal_samples(void **state)
{
	const uint64_t self[5] = { 10, 30, 10, 30, 10 };
	double keys[5];
	size_t a[5] = { 0, 1, 2, 3, 4 }, b[5] = { 4, 3, 2, 1, 0 };
	const size_t want[5] = { 1, 3, 0, 2, 4 };

	(void)state;
	for (size_t i = 0; i < 5; i++)
		keys[i] = (double)self[i];
	pg_sort_idx_desc(keys, a, 5);
	pg_sort_idx_desc(keys, b, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(a[i], want[i]);
		assert_int_equal(b[i], want[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_equal_keys),
		cmocka_unit_test(test_live_equal_costs),
		cmocka_unit_test(test_objects_equal_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
