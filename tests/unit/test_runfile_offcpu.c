// SPDX-License-Identifier: MIT
/*
 * Unit tests of off-CPU stacks in run files and their readers: "offcpu_stacks" in a
 * repetition round-trips, with or without sampled stacks beside it; files without it read
 * empty; malformed ones are refused; pg_run_validate() checks them; folded's
 * pg_run_offcpu_as_stacks() makes them the run's stacks; pprof writes offcpu/nanoseconds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../core/run.h"
#include "../../formats/folded.h"
#include "../../formats/pprof.h"
#include "../../formats/runfile.h"
#include "util.h"

static char dir[] = "/tmp/pg-test-offcpu-XXXXXX";

static void set_stack(struct pg_stack *st, const char *folded, uint64_t count)
{
	st->folded = strdup(folded);
	assert_non_null(st->folded);
	st->count = count;
}

/* Two repetitions: the first with samples and off-CPU stacks, the second off-CPU only. */
static void make_run(struct pg_run *run)
{
	struct pg_rep *rep;

	pg_run_init(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(1, sizeof(char *));
	run->meta.argv[0] = strdup("./bench");
	run->meta.repetitions = 2;
	run->meta.sample_hz = 199;
	assert_int_equal(pg_run_add_func(run, "/bin/bench", "main", "main", 0x1139, 0x1139,
					 PG_SITE_NOP5, false, NULL), 0);
	rep = pg_run_add_rep(run);
	rep->samples = 3;
	rep->nstacks = 1;
	rep->stacks = calloc(1, sizeof(*rep->stacks));
	set_stack(&rep->stacks[0], "main;work", 3);
	rep->noffcpu = 2;
	rep->offcpu = calloc(2, sizeof(*rep->offcpu));
	set_stack(&rep->offcpu[0], "main;lock;futex_wait [k]", 20000000);
	set_stack(&rep->offcpu[1], "main;sleeper;hrtimer_nanosleep [k]", 40000001);
	rep = pg_run_add_rep(run);
	rep->noffcpu = 1;
	rep->offcpu = calloc(1, sizeof(*rep->offcpu));
	set_stack(&rep->offcpu[0], "main;sleeper;hrtimer_nanosleep [k]", 5000000000ull);
}

static char *path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void spit(const char *p, const char *s)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

/* @text with its first @from replaced by @to (malloc'd). */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	assert_non_null(at);
	out = calloc(1, strlen(text) + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcat(out, to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_round_trip(void **state)
{
	struct pg_run run, back;

	make_run(&run);
	assert_int_equal(pg_run_validate(&run, NULL, 0), 0);
	assert_int_equal(pg_runfile_write(&run, path("run.json")), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path("run.json"), &back), 0);
	assert_int_equal(back.reps[0].nstacks, 1);
	assert_int_equal(back.reps[0].noffcpu, 2);
	assert_string_equal(back.reps[0].offcpu[0].folded, "main;lock;futex_wait [k]");
	assert_int_equal(back.reps[0].offcpu[0].count, 20000000);
	assert_string_equal(back.reps[0].offcpu[1].folded, "main;sleeper;hrtimer_nanosleep [k]");
	assert_int_equal(back.reps[0].offcpu[1].count, 40000001);
	assert_int_equal(back.reps[1].samples, 0);
	assert_int_equal(back.reps[1].nstacks, 0);
	assert_int_equal(back.reps[1].noffcpu, 1);
	assert_int_equal(back.reps[1].offcpu[0].count, 5000000000ull);
	assert_int_equal(pg_run_noffcpu(&back), 3);
	assert_int_equal(pg_run_validate(&back, NULL, 0), 0);
	pg_run_release(&back);
	pg_run_release(&run);
}

static void test_old_files(void **state)
{
	struct pg_run run, back;
	char *text;

	make_run(&run);
	for (size_t r = 0; r < run.nreps; r++) {
		pg_stacks_free(run.reps[r].offcpu, run.reps[r].noffcpu);
		run.reps[r].offcpu = NULL;
		run.reps[r].noffcpu = 0;
	}
	assert_int_equal(pg_runfile_write(&run, path("old.json")), 0);
	text = pg_test_slurp(path("old.json"), NULL);
	assert_null(strstr(text, "offcpu_stacks"));
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path("old.json"), &back), 0);
	assert_int_equal(pg_run_noffcpu(&back), 0);
	assert_int_equal(back.reps[0].nstacks, 1);
	pg_run_release(&back);
	free(text);
	pg_run_release(&run);
}

static void test_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "\"main;lock;futex_wait [k]\",20000000", "\"main;lock;futex_wait [k]\",0" },
		{ "\"main;lock;futex_wait [k]\",20000000", "\"main;lock;futex_wait [k]\",-1" },
		{ "\"main;lock;futex_wait [k]\",20000000", "\"main;;x\",20000000" },
		{ "\"main;lock;futex_wait [k]\",20000000", "\"zzz\",20000000" },	/* unsorted */
		{ "\"main;lock;futex_wait [k]\",20000000", "\"main;lock\",1,2" },
		{ "\"offcpu_stacks\":[", "\"offcpu_stacks\":[7," },	/* not a pair */
	};
	struct pg_run run, back;
	char *text;

	make_run(&run);
	assert_int_equal(pg_runfile_write(&run, path("good.json")), 0);
	pg_run_release(&run);
	text = pg_test_slurp(path("good.json"), NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = replace(text, bad[i][0], bad[i][1]);

		spit(path("bad.json"), t);
		pg_run_init(&back);
		if (pg_runfile_read(path("bad.json"), &back) == 0)
			fail_msg("case %zu was accepted: %s -> %s", i, bad[i][0], bad[i][1]);
		pg_run_release(&back);
		free(t);
	}
	free(text);
}

static void test_validate(void **state)
{
	struct pg_run run;
	char why[256];

	make_run(&run);
	run.reps[0].offcpu[1].count = 0;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0, off-CPU stack 1: bad count");
	run.reps[0].offcpu[1].count = 1;
	free(run.reps[0].offcpu[1].folded);
	run.reps[0].offcpu[1].folded = strdup("main;lock");	/* before its predecessor */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0: off-CPU stacks out of order or repeated");
	free(run.reps[0].offcpu[1].folded);
	run.reps[0].offcpu[1].folded = strdup("main;;x");
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	pg_run_release(&run);
}

static void test_as_stacks(void **state)
{
	unsigned char *pb = NULL;
	struct pg_run run;
	size_t len = 0;

	make_run(&run);
	assert_int_equal(pg_run_offcpu_as_stacks(&run), 0);
	assert_int_equal(pg_run_noffcpu(&run), 0);
	assert_int_equal(run.reps[0].nstacks, 2);
	assert_string_equal(run.reps[0].stacks[0].folded, "main;lock;futex_wait [k]");
	assert_int_equal(run.reps[0].samples, 60000001);
	assert_int_equal(run.reps[0].samples_lost, 0);
	assert_int_equal(run.reps[1].samples, 5000000000ull);
	assert_int_equal(pg_run_validate(&run, NULL, 0), 0);
	/* pprof: one sample type, offcpu/nanoseconds, and no cpu or samples */
	assert_int_equal(pg_pprof_encode_as(&run, run.reps[0].stacks, run.reps[0].nstacks, true,
					    &pb, &len), 0);
	assert_non_null(memmem(pb, len, "offcpu", 6));
	assert_non_null(memmem(pb, len, "nanoseconds", 11));
	assert_null(memmem(pb, len, "samples", 7));
	free(pb);
	pg_run_release(&run);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_old_files),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_as_stacks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
