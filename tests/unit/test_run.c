// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_run.c - pg_run_validate() (core/run.h): every invariant the header lists
 * that a run can break, one by one, on an otherwise valid run, with the reason it gives.
 * (test_compensation.c checks the counts of traced calls inside and the probe times against
 * the calibration; test_runfile.c what the run file adds.)
 */
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
#include "fixtures.h"

static const uint64_t durations[] = { 100, 200, 300 };

/*
 * A valid run: ./prog; main and work in /bin/prog, work also in /lib/libw.so (the same name
 * in another binary); one repetition where main calls work, with a sampled stack and a frame
 * source. Each test breaks one thing in it.
 */
static struct pg_run *good_run(void)
{
	struct pg_run *run = pg_run_new();
	struct pg_rep *rep;
	struct pg_fstat *s;

	assert_non_null(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(1, sizeof(char *));
	assert_non_null(run->meta.argv);
	run->meta.argv[0] = pg_fx_strdup("./prog");
	pg_fx_func(run, "/bin/prog", "main", NULL, PG_SITE_NOP5);
	pg_fx_func(run, "/bin/prog", "work", NULL, PG_SITE_EMULATED);
	pg_fx_func(run, "/lib/libw.so", "work", NULL, PG_SITE_SSTEP);
	rep = pg_fx_rep(run, 1000000);
	s = pg_fx_stat(rep, 0, durations, 1);
	s->self_ns = 50;
	s->desc[PG_SITE_EMULATED] = s->kids[PG_SITE_EMULATED] = 2;
	s->desc_probe_ns = s->kids_probe_ns = 10;
	pg_fx_stat(rep, 1, durations, 2);
	rep->samples = 3;
	rep->nstacks = 1;
	rep->stacks = calloc(1, sizeof(*rep->stacks));
	assert_non_null(rep->stacks);
	rep->stacks[0].folded = pg_fx_strdup("main;work");
	rep->stacks[0].count = 3;
	run->nsources = 1;
	run->sources = calloc(1, sizeof(*run->sources));
	assert_non_null(run->sources);
	run->sources[0].frame = pg_fx_strdup("work");
	run->sources[0].file = pg_fx_strdup("prog.c");
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* @run is refused with a reason containing @needle; frees it. */
static void assert_invalid(struct pg_run *run, const char *needle)
{
	char why[256] = "";

	assert_int_equal(pg_run_validate(run, why, sizeof(why)), -EINVAL);
	if (!strstr(why, needle))
		fail_msg("reason \"%s\" does not contain \"%s\"", why, needle);
	/* without a buffer for the reason, the same answer */
	assert_int_equal(pg_run_validate(run, NULL, 0), -EINVAL);
	pg_run_free(run);
}

static void test_good(void **state)
{
	struct pg_run *run = good_run();
	char why[64] = "";

	(void)state;
	assert_int_equal(pg_run_validate(run, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	pg_run_free(run);
}

static void test_command(void **state)
{
	struct pg_run *run = good_run();

	(void)state;
	free(run->meta.argv[0]);
	free(run->meta.argv);
	run->meta.argv = NULL;
	run->meta.argc = 0;
	assert_invalid(run, "no command");
}

static void test_funcs(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	run->funcs[1].id = 2;
	assert_invalid(run, "function 1 is malformed");
	run = good_run();
	free(run->funcs[2].display);
	run->funcs[2].display = NULL;
	assert_invalid(run, "function 2 is malformed");
	run = good_run();
	run->funcs[0].site = PG_SITE_COUNT;
	assert_invalid(run, "function 0 is malformed");
}

/* (binary, name) pairs are unique: the same name in another binary is fine (good_run). */
static void test_unique(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	free(run->funcs[2].binary);
	run->funcs[2].binary = pg_fx_strdup("/bin/prog");
	assert_invalid(run, "functions 1 and 2 are both work in /bin/prog");
	/* whatever the order of the table */
	run = good_run();
	pg_fx_func(run, "/bin/prog", "main", "main again", PG_SITE_NOP5);
	assert_invalid(run, "functions 0 and 3 are both main in /bin/prog");
}

/*
 * Functions that share a name in one binary are told apart by their scope: the key is
 * (binary, name, scope); the scope is in the display name; a scope repeated is refused.
 */
static void test_scope(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	free(run->funcs[2].binary);
	run->funcs[2].binary = pg_fx_strdup("/bin/prog");
	assert_int_equal(pg_func_set_scope(&run->funcs[1], "a.c"), 0);
	assert_int_equal(pg_func_set_scope(&run->funcs[2], "b.c"), 0);
	assert_string_equal(run->funcs[2].display, "work [b.c]");
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	assert_true(pg_func_key_cmp(&run->funcs[1], &run->funcs[2]) < 0);
	assert_true(pg_func_key_cmp(&run->funcs[2], &run->funcs[1]) > 0);
	/* a scope sorts after none: the same name without one is a different function */
	assert_int_equal(pg_func_set_scope(&run->funcs[1], NULL), 0);
	assert_null(run->funcs[1].scope);
	assert_true(pg_func_key_cmp(&run->funcs[1], &run->funcs[2]) < 0);
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	assert_int_equal(pg_func_set_scope(&run->funcs[1], "b.c"), 0);
	assert_invalid(run, "functions 1 and 2 are both work [b.c] in /bin/prog");
}

static void test_stats(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	run->reps[0].stats[1].func = 3;
	assert_invalid(run, "repetition 0 refers to function 3 of 3");
	run = good_run();
	run->reps[0].stats[1].func = 0;
	assert_invalid(run, "repetition 0: functions out of order or repeated");
	run = good_run();
	pg_hist_release(&run->reps[0].stats[1].hist);
	run->reps[0].stats[1].calls = 0;
	run->reps[0].stats[1].total_ns = run->reps[0].stats[1].self_ns = 0;
	assert_invalid(run, "function work: inconsistent counts");
	run = good_run();
	run->reps[0].stats[1].min_ns = run->reps[0].stats[1].max_ns + 1;
	assert_invalid(run, "function work: inconsistent counts");
	run = good_run();
	run->reps[0].stats[1].self_ns = run->reps[0].stats[1].total_ns + 1;
	assert_invalid(run, "function work: inconsistent counts");
	run = good_run();
	run->reps[0].stats[1].calls = 3;
	assert_invalid(run, "function work: histogram holds 2 calls, not 3");
}

static void test_children(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	run->reps[0].stats[0].kids[PG_SITE_EMULATED] = 3;
	assert_invalid(run, "function main: more direct children than descendants");
	run = good_run();
	run->reps[0].stats[0].kids_probe_ns = 11;
	assert_invalid(run, "function main: inconsistent probe times");
	run = good_run();
	run->reps[0].stats[1].desc_probe_ns = 1;	/* work has no descendants */
	assert_invalid(run, "function work: inconsistent probe times");
}

static void test_calibration(void **state)
{
	const struct pg_calib good = {
		.valid = true, .measured = true,
		.in_ns = { 100, 100, 200, 9000 },
		.out_ns = { 200, 200, 300, 9000 },
		.measured_ns = { 50, 50, 50, 50 },
	};
	struct pg_run *run;

	(void)state;
	run = good_run();
	run->calib = good;
	run->hist_compensated = true;
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	run->calib.in_ns[PG_SITE_SSTEP] = -1;
	assert_invalid(run, "calibration of sstep sites out of range");
	run = good_run();
	run->calib = good;
	run->calib.out_ns[PG_SITE_NOP5] = 1e7;
	assert_invalid(run, "calibration of nop5 sites out of range");
	run = good_run();
	run->calib = good;
	run->calib.in_ns[PG_SITE_EMULATED] = NAN;
	assert_invalid(run, "calibration of emulated sites out of range");
	/* an invalid calibration's figures are not looked at */
	run = good_run();
	run->calib = good;
	run->calib.valid = false;
	run->calib.in_ns[PG_SITE_EMULATED] = NAN;
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	run->hist_compensated = true;
	assert_invalid(run, "compensated histograms without a calibration");
	run = good_run();
	run->calib = good;
	run->calib.measured = false;
	run->hist_compensated = true;
	assert_invalid(run, "compensated histograms without a calibration");
}

/* Append a stack to @rep (no order kept: the tests break it on purpose). */
static void add_stack(struct pg_rep *rep, const char *folded, uint64_t count)
{
	rep->stacks = realloc(rep->stacks, (rep->nstacks + 1) * sizeof(*rep->stacks));
	assert_non_null(rep->stacks);
	rep->stacks[rep->nstacks].folded = pg_fx_strdup(folded);
	rep->stacks[rep->nstacks++].count = count;
}

static void test_stacks(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	run->reps[0].samples_lost = 4;
	assert_invalid(run, "repetition 0: more samples lost than taken");
	run = good_run();
	run->reps[0].samples = 4;
	add_stack(&run->reps[0], "main;;work", 1);
	assert_invalid(run, "repetition 0, stack 1: not a valid folded stack");
	run = good_run();
	run->reps[0].samples = 4;
	add_stack(&run->reps[0], "main", 1);
	assert_invalid(run, "repetition 0: stacks out of order or repeated");
	run = good_run();
	run->reps[0].samples = 4;
	add_stack(&run->reps[0], "main;work", 1);
	assert_invalid(run, "repetition 0: stacks out of order or repeated");
	run = good_run();
	add_stack(&run->reps[0], "main;work;x", 0);
	assert_invalid(run, "repetition 0, stack 1: bad count");
	run = good_run();
	run->reps[0].samples = 4;
	run->reps[0].samples_lost = 2;
	assert_invalid(run, "repetition 0: stacks hold 3 samples, more than the 2 kept");
}

static void test_sources(void **state)
{
	struct pg_run *run;

	(void)state;
	run = good_run();
	free(run->sources[0].file);
	run->sources[0].file = NULL;
	assert_invalid(run, "frame source 0 is malformed");
	run = good_run();
	free(run->sources[0].frame);
	run->sources[0].frame = pg_fx_strdup("main;work");
	assert_invalid(run, "frame source 0 is malformed");
	run = good_run();
	run->sources = realloc(run->sources, 2 * sizeof(*run->sources));
	assert_non_null(run->sources);
	run->sources[1].frame = pg_fx_strdup("main");	/* before "work" */
	run->sources[1].file = pg_fx_strdup("prog.c");
	run->sources[1].line = 0;
	run->nsources = 2;
	assert_invalid(run, "frame source 1 is malformed, out of order or repeated");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_funcs),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
