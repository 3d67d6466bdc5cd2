// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_offcpu.c - off-CPU time without BPF: its invariants, the run file
 * (columns, threads, meta.options.offcpu), the cpu metric and the split of a change
 * (diff/cpusplit.h), and the compare result's fields.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/run.h"
#include "../../diff/compare.h"
#include "../../diff/cpusplit.h"
#include "../../formats/result.h"
#include "../../formats/runfile.h"
#include "../../reporters/report.h"
#include "fixtures.h"

/*
 * A run of @nreps repetitions of one function "wait" (10 calls of @on ns on-CPU and @off ns
 * off-CPU each, a tenth of that runnable) and "work" (10 calls of 1 ms, all on-CPU), with a
 * little deterministic noise; off-CPU measured.
 */
static struct pg_run *model(double on, double off, size_t nreps)
{
	struct pg_run *run = pg_run_new();

	assert_non_null(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(1, sizeof(char *));
	run->meta.argv[0] = strdup("./bench");
	run->meta.offcpu = true;
	pg_fx_func(run, "/bin/bench", "wait", NULL, PG_SITE_NOP5);
	pg_fx_func(run, "/bin/bench", "work", NULL, PG_SITE_NOP5);
	for (size_t r = 0; r < nreps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 100000000);
		double k = 1 + 0.002 * (double)(r % 5), t = (on + off) * k;
		struct pg_fstat *s = pg_fx_stat_each(rep, 0, 10, t, t);

		s->offcpu_ns = s->self_offcpu_ns = (uint64_t)(10 * off * k);
		s->runq_ns = s->self_runq_ns = s->offcpu_ns / 10;
		pg_fx_stat_each(rep, 1, 10, 1e6 * k, 1e6 * k);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

static void test_invariants(void **state)
{
	struct pg_fstat s = { .calls = 1, .total_ns = 100, .self_ns = 50 };
	char why[128];

	assert_int_equal(pg_fstat_check_offcpu(&s, why, sizeof(why)), 0);
	s.offcpu_ns = 100;
	s.runq_ns = 10;
	s.self_offcpu_ns = 50;
	s.self_runq_ns = 10;
	assert_int_equal(pg_fstat_check_offcpu(&s, why, sizeof(why)), 0);
	s.self_offcpu_ns = 51;		/* more than self */
	assert_int_not_equal(pg_fstat_check_offcpu(&s, why, sizeof(why)), 0);
	s.self_offcpu_ns = 50;
	s.runq_ns = 101;		/* more than off-CPU */
	assert_int_not_equal(pg_fstat_check_offcpu(&s, why, sizeof(why)), 0);
	s.runq_ns = 5;			/* less than its self part */
	assert_int_not_equal(pg_fstat_check_offcpu(&s, why, sizeof(why)), 0);
}

static void test_runfile(void **state)
{
	struct pg_run *run = model(1000, 20000, 3), back;
	char dir[] = "/tmp/pg-test-offcpu-XXXXXX", path[64];
	struct pg_rep *rep = &run->reps[1];

	rep->threads = calloc(2, sizeof(*rep->threads));
	rep->nthreads = 2;
	rep->threads[0] = (struct pg_thread){ 7, strdup("main"), 10, 20, 30 };
	rep->threads[1] = (struct pg_thread){ 9, strdup("w \"1\""), 1, 0, 2 };
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(pg_runfile_write(run, path), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_true(back.meta.offcpu);
	assert_int_equal(back.reps[0].stats[0].offcpu_ns, run->reps[0].stats[0].offcpu_ns);
	assert_int_equal(back.reps[0].stats[0].self_runq_ns, run->reps[0].stats[0].self_runq_ns);
	assert_int_equal(back.reps[0].nthreads, 0);
	assert_int_equal(back.reps[1].nthreads, 2);
	assert_int_equal(back.reps[1].threads[1].tid, 9);
	assert_string_equal(back.reps[1].threads[1].comm, "w \"1\"");
	assert_int_equal(back.reps[1].threads[0].blocked_ns, 30);
	pg_run_release(&back);

	/* threads out of order: refused by the writer */
	rep->threads[1].tid = 7;
	assert_int_not_equal(pg_runfile_write(run, path), 0);
	rep->threads[1].tid = 9;
	/* a run without off-CPU time reads back as such */
	run->meta.offcpu = false;
	for (size_t r = 0; r < run->nreps; r++) {
		struct pg_fstat *s = &run->reps[r].stats[0];

		s->offcpu_ns = s->runq_ns = s->self_offcpu_ns = s->self_runq_ns = 0;
	}
	assert_int_equal(pg_runfile_write(run, path), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_false(back.meta.offcpu);
	assert_int_equal(back.reps[0].stats[0].offcpu_ns, 0);
	pg_run_release(&back);
	unlink(path);
	rmdir(dir);
	pg_run_free(run);
}

static const struct pg_fcmp *find(const struct pg_comparison *c, const char *name)
{
	size_t i = 0;

	while (i < c->n && strcmp(c->f[i].name, name))
		i++;
	assert_true(i < c->n);
	return &c->f[i];
}

/* "wait" waits 10 us longer per call: self time flags it, all off-CPU; cpu time does not */
static void test_compare_split(void **state)
{
	struct pg_run *a = model(1000, 20000, 10), *b = model(1000, 30000, 10);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c;
	const struct pg_fcmp *f;
	char w[96];

	o.min_impact = 0;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	/*
	 * two recordings: their waits for a CPU (a tenth of the off-CPU time) are left out of the
	 * time judged, 1 + 18 us a call; what grows is blocked, 18 -> 27 us
	 */
	assert_true(c.runq_out);
	assert_true(fabs(f->change - 9.0 / 19) < 0.02);
	assert_true(fabs(f->change_offcpu - 9.0 / 19) < 0.02);
	assert_true(fabs(f->change_cpu) < 0.01);
	assert_true(f->change_runq == 0);
	assert_string_equal(pg_cpusplit_words(f, w, sizeof(w)), "all of it off-CPU, blocked");
	assert_non_null(strstr(f->reason, "all of it off-CPU, blocked"));
	f = find(&c, "work");
	assert_true(isnan(f->change) || fabs(f->change_offcpu) < 1e-9);
	pg_comparison_release(&c);

	o.metric = PG_METRIC_CPU;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_int_not_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(f->base_ns - 1000) < 10);
	pg_comparison_release(&c);

	/* no split without off-CPU time on both sides */
	b->meta.offcpu = false;
	o.metric = PG_METRIC_SELF;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_true(isnan(f->change_cpu) && isnan(f->change_offcpu));
	assert_string_equal(pg_cpusplit_words(f, w, sizeof(w)), "");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_words(void **state)
{
	struct pg_fcmp f;
	char w[96];

	pg_fcmp_init(&f);
	f.change = 0.12;
	f.change_cpu = 0.11;
	f.change_offcpu = 0.01;
	f.change_runq = 0.01;
	assert_string_equal(pg_cpusplit_words(&f, w, sizeof(w)), "all of it on-CPU");
	f.change_cpu = 0.08;
	f.change_offcpu = 0.04;
	f.change_runq = 0.04;
	assert_string_equal(pg_cpusplit_words(&f, w, sizeof(w)),
			    "+8.0% on-CPU, +4.0% off-CPU (waiting for a CPU)");
	f.change_cpu = 0;
	f.change_runq = 0.02;
	assert_string_equal(pg_cpusplit_words(&f, w, sizeof(w)),
			    "all of it off-CPU, blocked and waiting for a CPU");
	pg_fcmp_release(&f);
}

/* @c of runs @a and @b written as a compare result and read back into @back (initialised here;
 * the caller releases it). */
static void round_trip(const struct pg_comparison *c, const struct pg_run *a,
		       const struct pg_run *b, struct pg_comparison *back)
{
	char dir[] = "/tmp/pg-test-offcpu-XXXXXX", path[64];
	struct pg_run rb, rn;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/result.json", dir);
	assert_int_equal(pg_result_write(c, a, b, path), 0);
	pg_comparison_init(back);
	pg_run_init(&rb);
	pg_run_init(&rn);
	assert_int_equal(pg_result_read(path, false, back, &rb, &rn), 0);
	pg_run_release(&rb);
	pg_run_release(&rn);
	unlink(path);
	rmdir(dir);
}

/* the compare result carries the split, and reads it back */
static void test_result(void **state)
{
	struct pg_run *a = model(1000, 20000, 10), *b = model(1000, 30000, 10);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c, back;
	const struct pg_fcmp *f, *g;

	o.min_impact = 0;	/* wait's +90 us is 0.09% of a 100 ms repetition */
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	assert_int_equal(find(&c, "wait")->verdict, PG_VERDICT_REGRESSION);
	round_trip(&c, a, b, &back);
	assert_true(c.runq_out && back.runq_out);
	f = find(&c, "wait");
	g = find(&back, "wait");
	assert_true(fabs(f->change_offcpu - g->change_offcpu) < 1e-6);
	assert_true(fabs(f->change_runq - g->change_runq) < 1e-6);
	assert_true(fabs(f->change_cpu - g->change_cpu) < 1e-6);
	pg_comparison_release(&back);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* report: the split's columns and the threads, only for a run that measured them */
static void test_report(void **state)
{
	struct pg_run *run = model(1000, 20000, 2);
	struct pg_rep *rep = &run->reps[0];
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	rep->threads = calloc(1, sizeof(*rep->threads));
	rep->nthreads = 1;
	rep->threads[0] = (struct pg_thread){ 7, strdup("worker"), 4000000, 1000000, 2000000 };
	f = open_memstream(&buf, &size);
	assert_non_null(f);
	assert_int_equal(pg_report_write(run, PG_REPORT_TEXT, f), 0);
	assert_int_equal(pg_report_write(run, PG_REPORT_CSV, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "self     on-CPU    off-CPU       mean"));
	/* wait: 10 calls of 1 us on-CPU and 20 us off, then of 0.2% more */
	assert_non_null(strstr(buf, ",cpu_ns,offcpu_ns,self_cpu_ns,self_offcpu_ns\n"));
	assert_non_null(strstr(buf, ",20020,400400,20020,400400\n"));
	assert_non_null(strstr(buf, "    0.5    2.00 ms     500 us    1.00 ms  worker\n"));
	free(buf);
	buf = NULL;
	run->meta.offcpu = false;
	f = open_memstream(&buf, &size);
	assert_non_null(f);
	assert_int_equal(pg_report_write(run, PG_REPORT_TEXT, f), 0);
	fclose(f);
	assert_null(strstr(buf, "on-CPU"));
	free(buf);
	pg_run_free(run);
}

/*
 * "wait", here a sync (10 calls of @on ns on-CPU and 300 us blocked each), and "work" (10
 * calls of 1 ms); in the repetitions below @slow, each call of wait blocks 30 ms instead: a
 * file sync that the disk made wait.
 */
static struct pg_run *syncing(double on, size_t nreps, size_t slow)
{
	struct pg_run *run = model(1000, 1000, 0);

	for (size_t r = 0; r < nreps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 100000000);
		double k = 1 + 0.003 * (double)((r * 7) % 10), off = r < slow ? 3e7 : 3e5;
		struct pg_fstat *s = pg_fx_stat_each(rep, 0, 10, on * k + off, on * k + off);

		s->offcpu_ns = s->self_offcpu_ns = (uint64_t)(10 * off);
		pg_fx_stat_each(rep, 1, 10, 1e6 * k, 1e6 * k);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* Blocked time far out in three base repetitions hides a +25% on-CPU change from self time;
 * judged on its on-CPU time, it is found. Not blocked, work is judged on self time. */
static void test_judged_on_cpu(void **state)
{
	struct pg_run *a = syncing(1e6, 10, 3), *b = syncing(1.25e6, 10, 0);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c, back;
	const struct pg_fcmp *f;

	(void)state;
	o.min_impact = 0;
	o.no_speed = true;	/* no witness of the machine's speed: it would widen */
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_true(f->by_cpu);
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(f->change - 0.25) < 0.02);
	assert_true(fabs(f->base_ns - 1.0135e6) < 1e4);	/* on-CPU, per call */
	assert_non_null(strstr(f->reason, "judged on its on-CPU time"));
	assert_false(find(&c, "work")->by_cpu);
	/* the result file says so: "judged_on": "cpu" */
	round_trip(&c, a, b, &back);
	assert_true(find(&back, "wait")->by_cpu);
	assert_false(find(&back, "work")->by_cpu);
	pg_comparison_release(&back);
	pg_comparison_release(&c);

	/* by self time only (--metric total is judged as asked): not found */
	o.metric = PG_METRIC_TOTAL;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_false(f->by_cpu);
	assert_int_not_equal(f->verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
	pg_run_free(b);

	/* the same outliers and no change: nothing flagged */
	b = syncing(1e6, 10, 0);
	o.metric = PG_METRIC_SELF;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	assert_int_equal(c.nregressions + c.nimprovements, 0);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * A lock waiter whose wait grew from 20 to 30 ms a call, with ~20 us of its own on-CPU time
 * (16 us after): both times move every repetition alike, so neither has heavy tails (self
 * 1.14, on-CPU 1.00). On-CPU time is not clearly the steadier: it is judged on its self time
 * and regresses. Without PG_TAIL_MARGIN, on-CPU time won this toss and hid the regression.
 */
static struct pg_run *waiting(double blocked, double on, double spread)
{
	struct pg_run *run = model(1000, 1000, 0);

	for (size_t r = 0; r < 10; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 100000000);
		double k = 1 + spread * (double)((r * 7) % 10), t = blocked * k;
		struct pg_fstat *s = pg_fx_stat_each(rep, 0, 10, t, t);

		s->offcpu_ns = s->self_offcpu_ns = (uint64_t)(10 * (t - on));
		pg_fx_stat_each(rep, 1, 10, 1e6, 1e6);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

static void test_waiter_on_self(void **state)
{
	struct pg_run *a = waiting(2e7, 2e4, 0.002), *b = waiting(3e7, 1.6e4, 0.02);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	(void)state;
	o.min_impact = 0;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	f = find(&c, "wait");
	assert_false(f->by_cpu);
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(f->change > 0.4);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_runfile),
		cmocka_unit_test(test_compare_split),
		cmocka_unit_test(test_judged_on_cpu),
		cmocka_unit_test(test_waiter_on_self),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_result),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
