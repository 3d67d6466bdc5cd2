// SPDX-License-Identifier: MIT
/*
 * Unit tests of the sampled-profile part of run files (formats/runfile_*.c): "samples",
 * "samples_lost", "samples_truncated", "stacks", "offcpu_stacks" and "offcpu_wakers" in a
 * repetition,
 * "own_samples" and "incl_samples" in a repetition, "sample_hz" (and "budget_pct") in the
 * options, "frame_sources" and "sampled_objects" at the top. They round-trip;
 * files without them still read; malformed ones are refused with a message. Also the checks
 * of off-CPU stacks in pg_run_validate(), and folded's pg_run_offcpu_as_stacks() with the
 * pprof profile of its result.
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

#include "../../formats/folded.h"
#include "../../formats/pprof.h"
#include "../../formats/runfile.h"
#include "../../core/run.h"
#include "../../core/strv.h"
#include "util.h"

static char dir[] = "/tmp/pg-test-profile-XXXXXX";

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
	run->meta.sample_hz = 499;
	run->meta.budget_pct = 2.5;	/* record --budget 2.5 */
	assert_int_equal(pg_run_add_func(run, "/bin/bench", "main", "main", 0x1139, 0x1139,
					 PG_SITE_NOP5, false, NULL), 0);
	rep = pg_run_add_rep(run);
	rep->exit_code = 0;
	rep->samples = 10;
	rep->samples_lost = 1;
	rep->samples_truncated = 2;
	rep->nstacks = 2;
	rep->stacks = calloc(2, sizeof(*rep->stacks));
	rep->stacks[0].folded = strdup("_start;main;a;b;c");
	rep->stacks[0].count = 7;
	rep->stacks[1].folded = strdup("_start;main;write;entry_SYSCALL_64 [k]");
	rep->stacks[1].count = 2;
	rep->noffcpu = 2;
	rep->offcpu = calloc(2, sizeof(*rep->offcpu));
	set_stack(&rep->offcpu[0], "_start;main;lock;futex_wait [k]", 20000000);
	set_stack(&rep->offcpu[1], "_start;main;sleeper;hrtimer_nanosleep [k]", 40000001);
	/* who woke them: the lock's 20 ms, 15 ms by another process; the sleep by a timer */
	rep->nwoken = 2;
	rep->woken = calloc(2, sizeof(*rep->woken));
	rep->woken[0] = (struct pg_woken){ 0, PG_WOKEN_OTHER, strdup("redis-server"), 15000000 };
	rep->woken[1] = (struct pg_woken){ 1, PG_WOKEN_IRQ, strdup(""), 40000001 };
	rep = pg_run_add_rep(run);	/* no samples at all */
	rep->exit_code = 0;
	rep->noffcpu = 1;
	rep->offcpu = calloc(1, sizeof(*rep->offcpu));
	set_stack(&rep->offcpu[0], "_start;main;sleeper;hrtimer_nanosleep [k]", 5000000000ull);
	run->nsources = 1;
	run->sources = calloc(1, sizeof(*run->sources));
	run->sources[0].frame = strdup("main");
	run->sources[0].file = strdup("bench.c");
	run->sources[0].line = 12;
	run->funcs[0].code = 0x5ca1ab1e00c0ffeeull;
	run->ncodes = 2;
	run->codes = calloc(2, sizeof(*run->codes));
	run->codes[0].frame = strdup("a");
	run->codes[0].digest = 0x0123456789abcdefull;
	run->codes[1].frame = strdup("main");
	run->codes[1].digest = 0x5ca1ab1e00c0ffeeull;
	/* own and inclusive samples of the first repetition: c's code, the stacks' functions */
	rep = &run->reps[0];
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/bin/bench"), 0);
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/lib/libc.so.6"), 0);
	rep->nown = 1;
	rep->own = calloc(1, sizeof(*rep->own));
	rep->own[0] = (struct pg_own){ 0, 0, strdup("c"), 7 };
	rep->nincl = 3;
	rep->incl = calloc(3, sizeof(*rep->incl));
	rep->incl[0] = (struct pg_own){ 0, 0, strdup("a"), 7 };
	rep->incl[1] = (struct pg_own){ 0, 0, strdup("main"), 9 };
	rep->incl[2] = (struct pg_own){ 1, 0, strdup("write"), 2 };
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
	assert_int_equal(pg_runfile_write(&run, path("run.json")), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path("run.json"), &back), 0);
	assert_int_equal(back.meta.sample_hz, 499);
	assert_float_equal(back.meta.budget_pct, 2.5, 0);
	assert_int_equal(back.nreps, 2);
	assert_int_equal(back.reps[0].samples, 10);
	assert_int_equal(back.reps[0].samples_lost, 1);
	assert_int_equal(back.reps[0].samples_truncated, 2);
	assert_int_equal(back.reps[0].nstacks, 2);
	assert_string_equal(back.reps[0].stacks[0].folded, "_start;main;a;b;c");
	assert_int_equal(back.reps[0].stacks[0].count, 7);
	assert_string_equal(back.reps[0].stacks[1].folded,
			    "_start;main;write;entry_SYSCALL_64 [k]");
	assert_int_equal(back.reps[1].samples, 0);
	assert_int_equal(back.reps[1].nstacks, 0);
	assert_int_equal(back.reps[0].noffcpu, 2);
	assert_string_equal(back.reps[0].offcpu[0].folded, "_start;main;lock;futex_wait [k]");
	assert_int_equal(back.reps[0].offcpu[0].count, 20000000);
	assert_string_equal(back.reps[0].offcpu[1].folded,
			    "_start;main;sleeper;hrtimer_nanosleep [k]");
	assert_int_equal(back.reps[0].offcpu[1].count, 40000001);
	assert_int_equal(back.reps[1].noffcpu, 1);
	assert_int_equal(back.reps[1].offcpu[0].count, 5000000000ull);
	assert_int_equal(pg_run_noffcpu(&back), 3);
	assert_int_equal(back.reps[0].nwoken, 2);
	assert_int_equal(back.reps[0].woken[0].stack, 0);
	assert_int_equal(back.reps[0].woken[0].kind, PG_WOKEN_OTHER);
	assert_string_equal(back.reps[0].woken[0].comm, "redis-server");
	assert_int_equal(back.reps[0].woken[0].ns, 15000000);
	assert_int_equal(back.reps[0].woken[1].stack, 1);
	assert_int_equal(back.reps[0].woken[1].kind, PG_WOKEN_IRQ);
	assert_string_equal(back.reps[0].woken[1].comm, "");
	assert_int_equal(back.reps[1].nwoken, 0);	/* none recorded: nothing said */
	assert_int_equal(back.nsources, 1);
	assert_string_equal(back.sources[0].frame, "main");
	assert_string_equal(back.sources[0].file, "bench.c");
	assert_int_equal(back.sources[0].line, 12);
	assert_true(back.funcs[0].code == 0x5ca1ab1e00c0ffeeull);
	assert_int_equal(back.ncodes, 2);
	assert_string_equal(back.codes[0].frame, "a");
	assert_true(pg_run_code(&back, "a") == 0x0123456789abcdefull);
	assert_true(pg_run_code(&back, "main") == 0x5ca1ab1e00c0ffeeull);
	assert_true(pg_run_code(&back, "b") == 0);
	assert_int_equal(back.nobjects, 2);
	assert_string_equal(back.objects[1], "/lib/libc.so.6");
	assert_int_equal(back.reps[0].nown, 1);
	assert_int_equal(back.reps[0].nincl, 3);
	assert_string_equal(back.reps[0].incl[1].frame, "main");
	assert_int_equal(back.reps[0].incl[1].count, 9);
	assert_int_equal(back.reps[0].incl[2].object, 1);
	assert_int_equal(back.reps[0].incl[2].exe, 0);
	assert_int_equal(back.reps[1].nincl, 0);
	assert_true(pg_run_has_incl(&back));
	assert_int_equal(pg_run_validate(&back, NULL, 0), 0);
	pg_run_release(&back);
	pg_run_release(&run);
}

static void test_without_profile(void **state)
{
	struct pg_run run, back;
	char *text;

	make_run(&run);
	/* sampling off: none of the keys is written, and the file reads as before */
	run.meta.sample_hz = 0;
	run.meta.budget_pct = 0;
	for (size_t i = 0; i < run.reps[0].nstacks; i++)
		free(run.reps[0].stacks[i].folded);
	free(run.reps[0].stacks);
	run.reps[0].stacks = NULL;
	run.reps[0].nstacks = 0;
	run.reps[0].samples = run.reps[0].samples_lost = run.reps[0].samples_truncated = 0;
	for (size_t r = 0; r < run.nreps; r++) {	/* nor off-CPU stacks (--no-offcpu) */
		pg_woken_free(run.reps[r].woken, run.reps[r].nwoken);
		run.reps[r].woken = NULL;
		run.reps[r].nwoken = 0;
		pg_stacks_free(run.reps[r].offcpu, run.reps[r].noffcpu);
		run.reps[r].offcpu = NULL;
		run.reps[r].noffcpu = 0;
	}
	free(run.sources[0].frame);
	free(run.sources[0].file);
	free(run.sources);
	run.sources = NULL;
	run.nsources = 0;
	for (size_t i = 0; i < run.ncodes; i++)
		free(run.codes[i].frame);
	free(run.codes);
	run.codes = NULL;
	run.ncodes = 0;
	run.funcs[0].code = 0;
	pg_run_own_release(&run);
	assert_int_equal(pg_runfile_write(&run, path("plain.json")), 0);
	text = pg_test_slurp(path("plain.json"), NULL);
	assert_null(strstr(text, "stacks"));
	assert_null(strstr(text, "samples"));
	assert_null(strstr(text, "sample_hz"));
	assert_null(strstr(text, "budget_pct"));
	assert_null(strstr(text, "frame_sources"));
	assert_null(strstr(text, "frame_code"));
	assert_null(strstr(text, "\"code\""));
	assert_null(strstr(text, "own_samples"));
	assert_null(strstr(text, "incl_samples"));
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path("plain.json"), &back), 0);
	assert_int_equal(back.meta.sample_hz, 0);
	assert_true(back.meta.budget_pct == 0);
	assert_int_equal(back.reps[0].nstacks, 0);
	assert_int_equal(pg_run_noffcpu(&back), 0);
	assert_false(pg_run_has_incl(&back));
	pg_run_release(&back);
	free(text);
	pg_run_release(&run);
}

static void test_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\",0" },	/* count 0 */
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\",-1" },
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\",\"7\"" },
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\",700" },	/* > samples */
		{ "\"_start;main;a;b;c\",7", "\"_start;;main\",7" },	/* empty frame */
		{ "\"_start;main;a;b;c\",7", "\"_start;main\\nx\",7" },	/* control char */
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\\u0000\",7" },
		{ "\"_start;main;a;b;c\",7", "\"_start;main;a;b;c\",7,1" },	/* not a pair */
		{ "\"_start;main;a;b;c\",7", "\"zzz\",7" },			/* unsorted */
		{ "\"_start;main;a;b;c\",7", "\"_start;main;write;entry_SYSCALL_64 [k]\",7" },
		{ "\"samples_lost\":1", "\"samples_lost\":11" },		/* lost > samples */
		{ "\"samples\":10", "\"samples\":\"10\"" },
		{ "\"stacks\":[", "\"stacks\":{\"a\":[" },
		{ "\"samples\":10,", "" },	/* stacks but no samples counted */
		{ "\"sample_hz\":499", "\"sample_hz\":-4" },
		{ "\"budget_pct\":2.5", "\"budget_pct\":0" },
		{ "\"budget_pct\":2.5", "\"budget_pct\":-2.5" },
		{ "\"budget_pct\":2.5", "\"budget_pct\":1000.5" },
		{ "\"budget_pct\":2.5", "\"budget_pct\":\"2.5\"" },
		{ "[\"main\",\"bench.c\",12]", "[\"ma;in\",\"bench.c\",12]" },
		{ "[\"main\",\"bench.c\",12]", "[\"main\",\"bench.c\"]" },
		{ "[\"main\",\"bench.c\",12]", "[\"main\",\"bench.c\",-12]" },
		{ "[\"main\",\"bench.c\",12]", "[\"main\",\"bench.c\",12],[\"main\",\"x.c\",1]" },
		/* off-CPU stacks: as stacks, but their counts are nanoseconds */
		{ "\"_start;main;lock;futex_wait [k]\",20000000",
		  "\"_start;main;lock;futex_wait [k]\",0" },
		{ "\"_start;main;lock;futex_wait [k]\",20000000",
		  "\"_start;main;lock;futex_wait [k]\",-1" },
		{ "\"_start;main;lock;futex_wait [k]\",20000000", "\"_start;;x\",20000000" },
		{ "\"_start;main;lock;futex_wait [k]\",20000000", "\"zzz\",20000000" },
		{ "\"_start;main;lock;futex_wait [k]\",20000000", "\"_start;main\",1,2" },
		{ "\"offcpu_stacks\":[", "\"offcpu_stacks\":[7," },
		/* wakers: an index of a stack, a known kind, a name only for processes, their
		 * time at most the stack's, sorted */
		{ "[0,\"other\",\"redis-server\",15000000]", "[2,\"other\",\"r\",15000000]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"else\",\"r\",15000000]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"other\",\"\",15000000]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"kernel\",\"r\",15000000]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"other\",\"r\",20000001]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"other\",\"r\",0]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[0,\"other\",\"r\"]" },
		{ "[0,\"other\",\"redis-server\",15000000]", "[1,\"same\",\"r\",1]" },
		{ "\"offcpu_wakers\":[", "\"offcpu_wakers\":{" },
		/* code digests: nonzero hexadecimal, frames sorted and unique */
		{ "\"code\":\"0x5ca1ab1e00c0ffee\"", "\"code\":\"0x0\"" },
		{ "\"code\":\"0x5ca1ab1e00c0ffee\"", "\"code\":\"cafe\"" },
		{ "\"code\":\"0x5ca1ab1e00c0ffee\"", "\"code\":12" },
		{ "[\"a\",\"0x0123456789abcdef\"]", "[\"a\",\"0x0\"]" },
		{ "[\"a\",\"0x0123456789abcdef\"]", "[\"a\",\"0x10123456789abcdef\"]" },
		{ "[\"a\",\"0x0123456789abcdef\"]", "[\"a;b\",\"0x0123456789abcdef\"]" },
		{ "[\"a\",\"0x0123456789abcdef\"]", "[\"a\"]" },
		{ "[\"a\",\"0x0123456789abcdef\"]", "[\"zz\",\"0x0123456789abcdef\"]" },
		{ "\"frame_code\":[", "\"frame_code\":{" },
		/* inclusive samples: each count at most the stacks' (9), indices of objects */
		{ "[0,0,\"main\",9]", "[0,0,\"main\",10]" },
		{ "[0,0,\"main\",9]", "[0,0,\"main\",0]" },
		{ "[0,0,\"main\",9]", "[0,2,\"main\",9]" },
		{ "[0,0,\"main\",9]", "[0,0,\"ma;in\",9]" },
		{ "[0,0,\"main\",9]", "[0,0,\"main\"]" },
		{ "[0,0,\"main\",9]", "[0,0,\"0main\",9]" },	/* unsorted */
		{ "\"incl_samples\":[", "\"incl_samples\":{" },
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

static void test_offcpu_validate(void **state)
{
	struct pg_run run;
	char why[256];

	make_run(&run);
	run.reps[0].offcpu[1].count = 0;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0, off-CPU stack 1: bad count");
	run.reps[0].offcpu[1].count = 1;
	free(run.reps[0].offcpu[1].folded);
	/* before its predecessor */
	run.reps[0].offcpu[1].folded = strdup("_start;main;lock");
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0: off-CPU stacks out of order or repeated");
	free(run.reps[0].offcpu[1].folded);
	run.reps[0].offcpu[1].folded = strdup("_start;;x");
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	pg_run_release(&run);

	/* wakers: two of one stack may hold all of it, not more; same and other have names */
	make_run(&run);
	free(run.reps[0].woken[1].comm);
	run.reps[0].woken[1] = (struct pg_woken){ 0, PG_WOKEN_OTHER, strdup("zstd"), 5000000 };
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), 0);
	run.reps[0].woken[1].ns++;
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0: off-CPU wakers of stack 0 hold more than its time");
	run.reps[0].woken[1].ns--;
	run.reps[0].woken[1].kind = PG_WOKEN_SAME;	/* before "other" */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0: off-CPU wakers out of order or repeated");
	run.reps[0].woken[1].kind = PG_WOKEN_KERNEL;	/* a kernel waker has no name */
	assert_int_equal(pg_run_validate(&run, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "repetition 0, off-CPU waker 1: bad stack, kind, name or time");
	pg_run_release(&run);
}

static void test_offcpu_as_stacks(void **state)
{
	unsigned char *pb = NULL;
	struct pg_run run;
	size_t len = 0;

	make_run(&run);
	assert_int_equal(pg_run_offcpu_as_stacks(&run), 0);
	assert_int_equal(pg_run_noffcpu(&run), 0);
	assert_int_equal(run.reps[0].nwoken, 0);	/* they indexed the off-CPU stacks */
	assert_int_equal(run.reps[0].nstacks, 2);
	assert_string_equal(run.reps[0].stacks[0].folded, "_start;main;lock;futex_wait [k]");
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
	unlink(path("run.json"));
	unlink(path("plain.json"));
	unlink(path("good.json"));
	unlink(path("bad.json"));
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_without_profile),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_offcpu_validate),
		cmocka_unit_test(test_offcpu_as_stacks),
	};

	return cmocka_run_group_tests_name("runfile_profile", tests, setup, teardown);
}
