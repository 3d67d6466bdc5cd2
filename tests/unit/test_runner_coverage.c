// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_coverage.c - what the sampled first pass says each function is worth
 * (runner/budget/stack_gain.h): stacks mapped to function ids, samples owned by the innermost kept
 * frame, and the choice within a budget, on a profile shaped like zstd's: a wrapper chain over
 * the main loop, and a function of a few percent (huf) under a wrapper of its own (lit).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../core/strv.h"
#include "../../runner/budget/choose.h"
#include "../../runner/budget/cover_summary.h"
#include "../../runner/budget/stack_gain.h"

enum { MAIN, WRAP, WORK, LIT, HUF, WAIT, IDLE, NFUNCS };

static const char *const names[NFUNCS] = { "main", "wrap", "work", "lit", "huf", "wait", "idle" };

/* (samples, stack): work holds 90%, huf 6% under lit, main 3% of its own */
static const struct {
	uint64_t count;
	const char *folded;
} stacks[] = {
	{ 90, "_start;main;wrap;work" },
	{ 6, "_start;main;wrap;lit;huf" },
	{ 1, "_start;main;wrap;lit" },
	{ 3, "_start;main" },
	{ 2, "_start;main;wrap;work;memcpy;page_fault [k]" },
	{ 1, "clone3;start_thread;idle" },
};

struct fixture {
	struct pg_run run;
	struct pg_coverage cov;
	struct pg_cov_map map;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct pg_rep rep = { 0 };

	assert_non_null(f);
	pg_run_init(&f->run);
	for (int i = 0; i < NFUNCS; i++)
		assert_int_equal(pg_run_add_func(&f->run, "/bin/prog", names[i], NULL, 0x1000 + i,
						 0x1000 + i, PG_SITE_NOP5, false, NULL), 0);
	rep.nstacks = sizeof(stacks) / sizeof(stacks[0]);
	rep.stacks = calloc(rep.nstacks, sizeof(*rep.stacks));
	assert_non_null(rep.stacks);
	for (size_t k = 0; k < rep.nstacks; k++)
		rep.stacks[k] = (struct pg_stack){ (char *)stacks[k].folded, stacks[k].count };
	assert_int_equal(pg_coverage_add(&f->cov, &rep), 0);
	free(rep.stacks);	/* the coverage holds its own copies */
	assert_int_equal(pg_cov_map_build(&f->map, &f->cov, &f->run), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pg_cov_map_release(&f->map);
	pg_coverage_release(&f->cov);
	pg_run_release(&f->run);
	free(f);
	return 0;
}

static void test_add_copies(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->cov.runs, 1);
	assert_int_equal(f->cov.n, 6);
	assert_int_equal(f->cov.samples, 103);
	assert_string_equal(f->cov.stacks[1].folded, "_start;main;wrap;lit;huf");
	/* frames naming no function are left out, root first */
	assert_int_equal(f->map.nstacks, 6);
	assert_int_equal(f->map.start[1] - f->map.start[0], 3);
	assert_int_equal(f->map.ids[f->map.start[1] + 3], HUF);
	assert_int_equal(f->map.start[6] - f->map.start[5], 1);
}

/* A sample goes to its innermost kept frame: with work not allowed, wrap owns work's samples
 * and is worth its probes, whatever the room; lit is not allowed either, and huf owns its 6. */
static void test_choose_innermost_kept(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 1, 1, 1, 1, 1, 1 }, extra[NFUNCS] = { 0 };
	bool keep[NFUNCS] = { [MAIN] = true, [WRAP] = true, [HUF] = true };
	double total;

	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 0, keep, &total), 0);
	assert_true(keep[MAIN] && keep[WRAP] && keep[HUF]);
	assert_false(keep[WORK] || keep[LIT] || keep[IDLE] || keep[WAIT]);
	assert_true(total == 3);
}

/* Budget for main and two of the others: work and the few percent under lit (lit or huf) split
 * the time; wrap would only pass it on (the old rule, by inclusive time, kept wrap). */
static void test_choose_splits_time(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 200, 200, 200, 200, 200, 200 }, extra[NFUNCS] = { 0 };
	bool keep[NFUNCS];
	double total;

	memset(keep, 1, sizeof(keep));
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 401, 0, keep, &total), 0);
	assert_true(keep[MAIN] && keep[WORK] && (keep[HUF] || keep[LIT]));
	assert_false(keep[WRAP] || keep[IDLE] || keep[WAIT]);
	assert_true(total == 401);
}

/* A function with no sample of its own is not worth its probes, whatever the room. */
static void test_choose_nothing_owned(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 2, 1, 1, 1, 1, 1 }, extra[NFUNCS] = { 0 };
	bool keep[NFUNCS];
	double total;

	memset(keep, 1, sizeof(keep));
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 0, keep, &total), 0);
	assert_true(keep[MAIN] && keep[WORK] && keep[HUF] && keep[LIT] && keep[IDLE]);
	/* wrap owns nothing once work and lit are kept; wait is on no stack */
	assert_false(keep[WRAP]);
	assert_false(keep[WAIT]);
}

/* Blocked time is worth keeping (a thread's wait has no samples); cost unknown is kept;
 * a function that may not be kept is not. */
static void test_choose_blocked_unknown_gone(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 0, 200, 210, 200, 50, 200 }, extra[NFUNCS] = { [WAIT] = 5e6 };
	bool keep[NFUNCS];
	double total;

	memset(keep, 1, sizeof(keep));
	keep[HUF] = false;
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 251, 0, keep, &total), 0);
	assert_true(keep[WRAP]);	/* cost 0: unknown */
	assert_true(keep[WAIT]);
	assert_false(keep[HUF]);
	assert_true(keep[MAIN] && keep[WORK]);
	assert_false(keep[LIT] || keep[IDLE]);
	assert_true(total == 251);
}

/* Two functions with one name: a frame names both. */
static void test_shared_names(void **state)
{
	struct fixture *f = *state;
	struct pg_cov_map m;
	double cost[NFUNCS + 1] = { 1, 1, 1, 1, 1, 1, 1, 1 }, extra[NFUNCS + 1] = { 0 };
	bool keep[NFUNCS + 1] = { 0 };
	double total;

	assert_int_equal(pg_run_add_func(&f->run, "/bin/prog2", "huf", NULL, 0x2000, 0x2000,
					 PG_SITE_NOP5, false, NULL), 0);
	assert_int_equal(pg_cov_map_build(&m, &f->cov, &f->run), 0);
	assert_int_equal(m.start[2] - m.start[1], 5);	/* main, wrap, lit, huf, huf */
	keep[NFUNCS] = true;	/* only the second huf may be kept: it owns the frame's samples */
	assert_int_equal(pg_cov_choose(&m, cost, extra, 1000, 1e9, 0, keep, &total), 0);
	assert_true(keep[NFUNCS] && !keep[HUF]);
	assert_true(total == 1);
	pg_cov_map_release(&m);
}

/* pg_budget_choose() with the stacks: the same choice, and the dropped named costliest first. */
static void test_budget_choose_by_samples(void **state)
{
	struct fixture *f = *state;
	static const uint64_t calls[NFUNCS] = { 1, 200, 200, 210, 200, 190, 220 };
	struct pg_rep pilot = { .wall_ns = 1000000000 };
	struct pg_budget_choice c;
	bool keep[NFUNCS];

	f->run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		f->run.calib.in_ns[k] = 600;
		f->run.calib.out_ns[k] = 400;
	}
	for (uint32_t i = 0; i < NFUNCS; i++) {
		struct pg_fstat *s = pg_rep_add_stat(&pilot, i);

		assert_non_null(s);
		s->calls = calls[i];
	}
	/* 5% of 8.1 ms: 405 us, room for main and two of the 200 us ones */
	assert_int_equal(pg_budget_choose(&f->run, &pilot, 5, 8100000, false, NULL, &f->cov, 0,
					  keep, &c), 4);
	assert_true(keep[MAIN] && keep[WORK] && keep[HUF]);
	assert_string_equal(c.dropped.s, "idle; lit; wrap; wait");
	assert_true(c.after == 401000);
	assert_true(c.before == 1221000);
	pg_rep_release(&pilot);
}

/*
 * Samples none of the functions owns (a program of a few ms: the loader's and the kernel's):
 * the minimum own time would leave nothing, so what fits by cost stays, here everything.
 */
static void test_budget_no_owner(void **state)
{
	struct fixture *f = *state;
	struct pg_coverage cov = PG_COVERAGE_INIT;
	struct pg_stack st = { (char *)"_dl_start;_dl_relocate_object", 60 };
	struct pg_rep rep = { .nstacks = 1, .stacks = &st }, pilot = { .wall_ns = 1000000000 };
	struct pg_budget_choice c;
	struct pg_fstat *s;
	bool keep[NFUNCS];

	f->run.calib.valid = true;
	for (int k = 0; k < PG_SITE_COUNT; k++)
		f->run.calib.in_ns[k] = f->run.calib.out_ns[k] = 500;
	s = pg_rep_add_stat(&pilot, MAIN);
	assert_non_null(s);
	s->calls = 1;
	assert_int_equal(pg_coverage_add(&cov, &rep), 0);
	memset(keep, 1, sizeof(keep));
	assert_int_equal(pg_budget_choose(&f->run, &pilot, 5, 0, false, NULL, &cov, 0.01, keep,
					  &c), 0);
	for (int i = 0; i < NFUNCS; i++)
		assert_true(keep[i]);
	assert_true(c.after == 1000);
	pg_coverage_release(&cov);
	pg_rep_release(&pilot);
}

/* Under a minimum own time, a function that would own less is not kept, whatever the room:
 * with 1% of 103 samples (1.03 at 1000 ns each, 1030 ns), main's 3 stay and idle's 1 goes. */
static void test_choose_min_own(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 1, 1, 1, 1, 1, 1 }, extra[NFUNCS] = { 0 };
	bool keep[NFUNCS];
	double total;

	memset(keep, 1, sizeof(keep));
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 1030, keep, &total), 0);
	assert_true(keep[WORK] && keep[HUF] && keep[MAIN]);
	assert_false(keep[IDLE]);
	assert_false(keep[LIT]);	/* its 1 sample, under the minimum */
	memset(keep, 1, sizeof(keep));
	keep[WORK] = keep[HUF] = false;
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 1030, keep, &total), 0);
	assert_true(keep[WRAP]);	/* work's and huf's 98 samples its own */
	/* wrap goes first, as the largest; work and huf then take its samples: it goes again */
	memset(keep, 1, sizeof(keep));
	cost[WORK] = cost[HUF] = cost[LIT] = 3;
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 1030, keep, &total), 0);
	assert_true(keep[WORK] && keep[HUF] && keep[MAIN]);
	assert_false(keep[WRAP]);
	assert_true(total == 1 + 3 + 3);
	cost[WORK] = cost[HUF] = cost[LIT] = 1;
	memset(keep, 1, sizeof(keep));
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 0, keep, &total), 0);
	assert_true(keep[IDLE]);
	assert_true(total > 1);
}

/*
 * A kernel that holds nearly all of the run inside a cheap caller (lz4's compression loop under
 * its block function): it is kept itself, first, by the time it holds as its own; the sum of
 * square roots alone gains nothing from moving the caller's own time whole to it. Here work
 * holds 92 of 103 samples under wrap: with main and wrap kept first, work would add nothing.
 */
static void test_choose_kernel_over_caller(void **state)
{
	struct fixture *f = *state;
	double cost[NFUNCS] = { 1, 1, 1, 1, 1, 1, 1 }, extra[NFUNCS] = { 0 };
	bool keep[NFUNCS] = { [MAIN] = true, [WRAP] = true, [WORK] = true };
	double total;

	/* room for one: the kernel, not the caller that would pass its time on */
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1, 1030, keep, &total), 0);
	assert_true(keep[WORK]);
	assert_false(keep[WRAP] || keep[MAIN]);
	assert_true(total == 1);
	/* room for all: wrap too, for the 7 samples of lit and huf, which may not be kept */
	memset(keep, 0, sizeof(keep));
	keep[MAIN] = keep[WRAP] = keep[WORK] = true;
	assert_int_equal(pg_cov_choose(&f->map, cost, extra, 1000, 1e9, 1030, keep, &total), 0);
	assert_true(keep[WORK] && keep[WRAP] && keep[MAIN]);
	assert_true(total == 3);
}

/*
 * The frames of the stacks, each once; the leaves: the innermost user frame of each stack
 * sampled in user mode (not memcpy, whose 2 samples are a page fault's), by the samples held.
 */
static void test_frames_and_leaves(void **state)
{
	struct fixture *f = *state;
	char **v;
	size_t n;

	assert_int_equal(pg_coverage_frames(&f->cov, &v, &n), 0);
	/* _start main wrap work lit huf memcpy page_fault [k] ... */
	assert_int_equal(n, 11);
	assert_true(pg_frames_have(v, n, "_start") && pg_frames_have(v, n, "page_fault [k]"));
	pg_strv_free(v, n);
	assert_int_equal(pg_coverage_leaves(&f->cov, 0, &v, &n), 0);
	assert_int_equal(n, 5);		/* huf idle lit main work */
	assert_true(pg_frames_have(v, n, "idle") && pg_frames_have(v, n, "lit"));
	assert_false(pg_frames_have(v, n, "_start") || pg_frames_have(v, n, "wrap") ||
		     pg_frames_have(v, n, "memcpy") || pg_frames_have(v, n, "page_fault [k]"));
	pg_strv_free(v, n);
	/* 2% of 103 samples: work's 90, huf's 6, main's 3 */
	assert_int_equal(pg_coverage_leaves(&f->cov, 0.02, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_true(pg_frames_have(v, n, "huf") && pg_frames_have(v, n, "main") &&
		    pg_frames_have(v, n, "work"));
	pg_strv_free(v, n);
}

/* What a choice covers: each sample for its innermost candidate, exact when that is kept. */
static void test_covered(void **state)
{
	struct fixture *f = *state;
	bool keep[NFUNCS] = { [MAIN] = true, [WORK] = true };
	struct pg_covered c;

	assert_int_equal(pg_covered_count(&f->map, keep, &c), 0);
	assert_int_equal(c.samples, 103);
	assert_int_equal(c.exact, 92 + 3);	/* work's 90 and 2, main's 3 */
	assert_int_equal(c.unprobed, 6 + 1 + 1);	/* huf, lit, idle */
	assert_int_equal(c.elsewhere, 0);
	assert_int_equal(c.leaf[HUF], 6);
	pg_covered_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_innermost_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_splits_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_nothing_owned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_blocked_unknown_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_choose_by_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_min_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_no_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_kernel_over_caller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames_and_leaves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_covered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
