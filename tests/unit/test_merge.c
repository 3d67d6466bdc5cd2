// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_merge.c - merging runs (formats/merge.h), their sampled functions by object
 * among them, and the optional source position
 * of functions in run files (formats/runfile_*.c: "file"/"line" written when known, files
 * without them still read).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/merge.h"
#include "../../formats/runfile.h"
#include "../../core/log.h"
#include "../../core/strv.h"

static char dir[64];

static int setup(void **state)
{
	strcpy(dir, "/tmp/pg-test-merge-XXXXXX");
	pg_log_set_level(PG_LOG_ERROR);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* A run of "./bench 3" at @start on @host with functions @names[0..n) of binary @bin, @reps
 * repetitions; function k is called k + 1 times per repetition, 100 ns each. */
static void make_run(struct pg_run *run, const char *bin, const char *const *names, size_t n,
		     size_t reps, const char *start, const char *host)
{
	pg_run_init(run);
	run->meta.argc = 2;
	run->meta.argv = calloc(2, sizeof(char *));
	run->meta.argv[0] = strdup("./bench");
	run->meta.argv[1] = strdup("3");
	run->meta.start_time = strdup(start);
	run->meta.host = strdup(host);
	run->meta.repetitions = (uint32_t)reps;
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(pg_run_add_func(run, bin, names[k], NULL, 0x1000 + k, 0x1000 + k,
						 PG_SITE_NOP5, false, NULL), 0);
		assert_int_equal(pg_func_set_src(&run->funcs[k], "src/b.c", 10 + (uint32_t)k), 0);
	}
	for (size_t r = 0; r < reps; r++) {
		struct pg_rep *rep = pg_run_add_rep(run);

		rep->exit_code = 0;
		rep->wall_ns = 1000000;
		for (size_t k = 0; k < n; k++) {
			struct pg_fstat *s = pg_rep_add_stat(rep, (uint32_t)k);

			s->calls = k + 1;
			s->total_ns = s->self_ns = 100 * (k + 1);
			s->min_ns = s->max_ns = 100;
			assert_int_equal(pg_hist_add(&s->hist, 100, k + 1), 0);
		}
	}
}

static const struct pg_fstat *stat_of(const struct pg_run *run, size_t r, const char *name)
{
	for (size_t i = 0; i < run->nfuncs; i++)
		if (!strcmp(run->funcs[i].name, name))
			return pg_rep_find(&run->reps[r], (uint32_t)i);
	return NULL;
}

static void test_merge_shards(void **state)
{
	static const char *const fa[] = { "main", "parse", "lex" };
	static const char *const fb[] = { "lex", "emit", "main" };
	const char *names[] = { "a.json", "b.json" };
	struct pg_run a, b, out;
	const struct pg_run *runs[] = { &a, &b };
	char why[128], path[128];

	make_run(&a, "/ci/1/build/bench", fa, 3, 4, "2026-11-20T10:00:00Z", "ci-1");
	make_run(&b, "/ci/2/build/bench", fb, 3, 6, "2026-11-21T10:00:00Z", "ci-2");
	pg_run_init(&out);
	assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);
	assert_int_equal(pg_run_validate(&out, why, sizeof(why)), 0);
	assert_int_equal(out.nreps, 10);
	assert_int_equal(out.meta.repetitions, 10);
	assert_int_equal(out.nfuncs, 4);	/* main parse lex emit */
	assert_string_equal(out.funcs[0].name, "main");
	assert_string_equal(out.funcs[3].name, "emit");
	assert_string_equal(out.funcs[0].binary, "/ci/1/build/bench");	/* the first run's */
	assert_string_equal(out.funcs[2].src_file, "src/b.c");
	assert_string_equal(out.meta.host, "ci-2");			/* the newest run's */
	assert_string_equal(out.meta.start_time, "2026-11-21T10:00:00Z");
	/* repetitions keep their numbers under the new ids */
	assert_int_equal(stat_of(&out, 0, "parse")->calls, 2);
	assert_null(stat_of(&out, 4, "parse"));
	assert_int_equal(stat_of(&out, 4, "main")->calls, 3);
	assert_int_equal(stat_of(&out, 4, "emit")->calls, 2);
	assert_int_equal(pg_hist_total(&stat_of(&out, 9, "lex")->hist), 1);
	snprintf(path, sizeof(path), "%s/merged.json", dir);
	assert_int_equal(pg_runfile_write(&out, path), 0);
	pg_run_release(&out);
	assert_int_equal(pg_runfile_read(path, &out), 0);
	assert_int_equal(out.nreps, 10);
	pg_run_release(&out);
	pg_run_release(&a);
	pg_run_release(&b);
}

/*
 * Give each repetition of @run 10 samples in "__libc_start_main;main;loop", and own samples
 * (loop) and inclusive ones (with @incl) by object: the program @bin and libc, in the
 * table's order @libc_first or not.
 */
static void add_samples(struct pg_run *run, const char *bin, bool libc_first, bool incl)
{
	uint32_t b = libc_first, l = !libc_first;

	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, libc_first ? "/lib/libc.so.6" :
				      bin), 0);
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, libc_first ? bin :
				      "/lib/libc.so.6"), 0);
	for (size_t r = 0; r < run->nreps; r++) {
		struct pg_rep *rep = &run->reps[r];
		const struct pg_own v[] = { { b, b, "loop", 10 }, { b, b, "main", 10 },
					    { l, b, "__libc_start_main", 10 } };

		rep->samples = 10;
		rep->nstacks = 1;
		rep->stacks = calloc(1, sizeof(*rep->stacks));
		rep->stacks[0].folded = strdup("__libc_start_main;main;loop");
		rep->stacks[0].count = 10;
		rep->nown = 1;
		rep->own = calloc(1, sizeof(*rep->own));
		rep->own[0] = (struct pg_own){ b, b, strdup("loop"), 10 };
		rep->nincl = incl ? 3 : 0;
		rep->incl = incl ? calloc(3, sizeof(*rep->incl)) : NULL;
		for (size_t i = 0; i < rep->nincl; i++) {
			rep->incl[i] = v[i];
			rep->incl[i].frame = strdup(v[i].frame);
		}
		qsort(rep->incl, rep->nincl, sizeof(*rep->incl), pg_own_cmp);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

/* Own and inclusive samples merge under one object table; inclusive ones only when every run
 * has them (else sampled time comes from the stacks of all of them alike). */
static void test_merge_samples(void **state)
{
	static const char *const f[] = { "main" };
	const char *names[] = { "a.json", "b.json" };
	struct pg_run a, b, out;
	const struct pg_run *runs[] = { &a, &b };
	char why[128];

	for (int with = 1; with >= 0; with--) {
		make_run(&a, "/ci/1/bench", f, 1, 2, "2026-11-20T10:00:00Z", "ci-1");
		make_run(&b, "/ci/1/bench", f, 1, 3, "2026-11-21T10:00:00Z", "ci-1");
		add_samples(&a, "/ci/1/bench", false, true);
		add_samples(&b, "/ci/1/bench", true, with);
		pg_run_init(&out);
		assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);
		assert_int_equal(pg_run_validate(&out, why, sizeof(why)), 0);
		assert_int_equal(out.nobjects, with ? 2 : 1);	/* the objects samples name */
		assert_int_equal(pg_run_has_incl(&out), with);
		for (size_t r = 0; r < out.nreps; r++) {
			const struct pg_rep *rep = &out.reps[r];

			assert_int_equal(rep->nown, 1);
			assert_string_equal(out.objects[rep->own[0].object], "/ci/1/bench");
			assert_int_equal(rep->nincl, with ? 3 : 0);
			for (size_t i = 0; i < rep->nincl; i++) {
				const struct pg_own *w = &rep->incl[i];
				bool libc = !strcmp(w->frame, "__libc_start_main");

				assert_string_equal(out.objects[w->object],
						    libc ? "/lib/libc.so.6" : "/ci/1/bench");
				assert_string_equal(out.objects[w->exe], "/ci/1/bench");
			}
		}
		pg_run_release(&out);
		pg_run_release(&a);
		pg_run_release(&b);
	}
}

static void test_merge_refuses(void **state)
{
	static const char *const f[] = { "main" };
	static const char *const dup[] = { "main", "main" };
	const char *names[] = { "a.json", "b.json" };
	struct pg_run a, b, out;
	const struct pg_run *runs[] = { &a, &b };

	make_run(&a, "/x/bench", f, 1, 2, "2026-11-20T10:00:00Z", "ci");
	make_run(&b, "/x/bench", f, 1, 2, "2026-11-21T10:00:00Z", "ci");
	pg_run_init(&out);
	free(b.meta.argv[1]);
	b.meta.argv[1] = strdup("4");
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	assert_int_equal(out.nreps, 0);
	free(b.meta.argv[1]);
	b.meta.argv[1] = strdup("3");
	/* the same benchmark built in another directory (pg_meta_same_benchmark): merged, as
	 * compare and vote take it, with the newest run's command; another program: refused */
	free(b.meta.argv[0]);
	b.meta.argv[0] = strdup("/src/build-new/bench");
	assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);
	assert_int_equal(out.nreps, 4);
	assert_string_equal(out.meta.argv[0], "/src/build-new/bench");
	pg_run_release(&out);
	free(b.meta.argv[0]);
	b.meta.argv[0] = strdup("/src/build-new/other");
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	assert_int_equal(out.nreps, 0);
	free(b.meta.argv[0]);
	b.meta.argv[0] = strdup("./bench");
	b.meta.filters = calloc(1, sizeof(char *));
	b.meta.filters[0] = strdup("main");
	b.meta.nfilters = 1;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	pg_run_release(&b);
	/* two binaries with the same basename in one run: ambiguous */
	make_run(&b, "/x/bench", dup, 1, 1, "2026-11-21T10:00:00Z", "ci");
	assert_int_equal(pg_run_add_func(&b, "/y/bench", "main", NULL, 1, 1, PG_SITE_NOP5, false,
					 NULL), 0);
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	assert_int_equal(out.nfuncs, 0);
	/* also when that run comes first */
	assert_int_equal(pg_run_merge((const struct pg_run *[]){ &b, &a }, names, 2, &out),
			 -EINVAL);
	assert_int_equal(out.nfuncs, 0);
	pg_run_release(&b);
	/* compensated histograms with raw ones: refused; compensated with compensated: kept */
	make_run(&b, "/x/bench", f, 1, 2, "2026-11-21T10:00:00Z", "ci");
	a.calib = b.calib = (struct pg_calib){ .valid = true, .measured = true,
					      .in_ns = { 1, 2, 3, 4 }, .out_ns = { 5, 6, 7, 8 } };
	b.hist_compensated = true;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	assert_int_equal(out.nreps, 0);
	a.hist_compensated = true;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);
	assert_true(out.hist_compensated);
	assert_int_equal(out.nreps, 4);
	pg_run_release(&out);
	pg_run_release(&a);
	pg_run_release(&b);
}

/*
 * --budget chooses the functions anew in each recording: runs whose tables differ are refused
 * when either was recorded with it (without it, the code changed: merged with a warning).
 */
static void test_merge_budget_sets(void **state)
{
	static const char *const fa[] = { "main", "parse", "lex" };
	static const char *const fb[] = { "lex", "main" };
	static const char *const fc[] = { "lex", "main", "parse" };
	const char *names[] = { "a.json", "b.json" };
	struct pg_run a, b, out;
	char path[128];
	const struct pg_run *runs[] = { &a, &b };

	make_run(&a, "/ci/1/bench", fa, 3, 2, "2026-11-20T10:00:00Z", "ci");
	make_run(&b, "/ci/2/bench", fb, 2, 2, "2026-11-21T10:00:00Z", "ci");
	pg_run_init(&out);
	assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);	/* no --budget: merged */
	pg_run_release(&out);
	b.meta.budget_pct = 5;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	assert_int_equal(out.nreps, 0);
	a.meta.budget_pct = 5;
	b.meta.budget_pct = 0;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	pg_run_release(&b);
	/* the same functions in another order, another directory: merged, both with --budget */
	make_run(&b, "/ci/2/bench", fc, 3, 2, "2026-11-21T10:00:00Z", "ci");
	b.meta.budget_pct = 5;
	b.meta.functions_of = strdup("a.json");
	assert_int_equal(pg_run_merge(runs, names, 2, &out), 0);
	assert_int_equal(out.nfuncs, 3);
	assert_int_equal(out.nreps, 4);
	assert_string_equal(out.meta.functions_of, "a.json");	/* the newest run's */
	snprintf(path, sizeof(path), "%s/of.json", dir);
	assert_int_equal(pg_runfile_write(&out, path), 0);
	pg_run_release(&out);
	assert_int_equal(pg_runfile_read(path, &out), 0);	/* meta.options.functions_of */
	assert_string_equal(out.meta.functions_of, "a.json");
	assert_true(out.meta.budget_pct == 5);
	pg_run_release(&out);
	/* one more function on either side is refused */
	assert_int_equal(pg_run_add_func(&b, "/ci/2/bench", "emit", NULL, 9, 9, PG_SITE_NOP5,
					 false, NULL), 0);
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	runs[0] = &b;
	runs[1] = &a;
	assert_int_equal(pg_run_merge(runs, names, 2, &out), -EINVAL);
	pg_run_release(&a);
	pg_run_release(&b);
	/* three runs: the first two without --budget and different, the third with it, like the
	 * first: refused (every run against the first once any has --budget) */
	{
		struct pg_run c;
		const struct pg_run *three[] = { &a, &b, &c };
		const char *names3[] = { "a.json", "b.json", "c.json" };

		make_run(&a, "/ci/1/bench", fa, 3, 1, "2026-11-20T10:00:00Z", "ci");
		make_run(&b, "/ci/1/bench", fb, 2, 1, "2026-11-20T11:00:00Z", "ci");
		make_run(&c, "/ci/1/bench", fa, 3, 1, "2026-11-20T12:00:00Z", "ci");
		assert_int_equal(pg_run_merge(three, names3, 3, &out), 0);
		pg_run_release(&out);
		c.meta.budget_pct = 5;
		assert_int_equal(pg_run_merge(three, names3, 3, &out), -EINVAL);
		pg_run_release(&a);
		pg_run_release(&b);
		pg_run_release(&c);
	}
}

/* Set "file" and "line" of every function of run file @path to the Python value @value. */
static void edit(const char *path, const char *value)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); "
		 "[f.update(file=%s, line=%s) for f in r[\"functions\"]]; "
		 "json.dump(r, open(sys.argv[1], \"w\"))' %s", value, value, path);
	assert_int_equal(system(cmd), 0);
}

static void test_runfile_source_position(void **state)
{
	static const char *const f[] = { "main", "parse" };
	struct pg_run a, back;
	char path[128], cmd[512];

	make_run(&a, "/x/bench", f, 2, 1, "2026-11-20T10:00:00Z", "ci");
	assert_int_equal(pg_func_set_src(&a.funcs[1], NULL, 0), 0);	/* unknown */
	snprintf(path, sizeof(path), "%s/src.json", dir);
	assert_int_equal(pg_runfile_write(&a, path), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_string_equal(back.funcs[0].src_file, "src/b.c");
	assert_int_equal(back.funcs[0].src_line, 10);
	assert_null(back.funcs[1].src_file);
	assert_int_equal(back.funcs[1].src_line, 0);
	pg_run_release(&back);
	/* a file without the keys (an older perfgate) reads, as unknown */
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); "
		 "[(f.pop(\"file\", 0), f.pop(\"line\", 0)) for f in r[\"functions\"]]; "
		 "json.dump(r, open(sys.argv[1], \"w\"))' %s", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_null(back.funcs[0].src_file);
	pg_run_release(&back);
	/* null is unknown too; a wrong type is an error */
	edit(path, "None");
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_null(back.funcs[0].src_file);
	pg_run_release(&back);
	edit(path, "1.5");
	assert_int_equal(pg_runfile_read(path, &back), -EINVAL);
	pg_run_release(&back);
	pg_run_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_shards),
		cmocka_unit_test(test_merge_refuses),
		cmocka_unit_test(test_merge_samples),
		cmocka_unit_test(test_merge_budget_sets),
		cmocka_unit_test(test_runfile_source_position),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
