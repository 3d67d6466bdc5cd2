// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_compare.c - diff/compare.c on small runs built in memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/run.h"
#include "../../diff/compare.h"
#include "../../diff/stats.h"
#include "../../core/numfmt.h"
#include "fixtures.h"

static struct pg_run *new_run(const char *prog, const char *arg, const char *host)
{
	struct pg_run *run = pg_run_new();

	assert_non_null(run);
	run->meta.argc = 2;
	run->meta.argv = calloc(2, sizeof(char *));
	assert_non_null(run->meta.argv);
	run->meta.argv[0] = strdup(prog);
	run->meta.argv[1] = strdup(arg);
	run->meta.host = strdup(host);
	run->meta.kernel = strdup("6.1.0");
	run->meta.perfgate_version = strdup("0.1.0");
	return run;
}

/*
 * The model program: main (1 call) calls work (work_calls calls) and helper (50 calls). Every
 * per-call time gets its own ~1% noise in every repetition.
 */
struct prog {
	double main_self, work, helper;	/* ns per call */
	uint64_t work_calls;
	double wall;			/* ns */
	double sd;			/* relative noise */
};

static const struct prog base_prog = { 1e7, 1000, 200, 100, 5e7, 0.01 };

static struct pg_run *prog_run(const struct prog *p, size_t nreps, uint64_t seed,
			       const char *binary, const char *host)
{
	struct pg_run *run = new_run(binary, "--quick", host);
	uint32_t m = pg_fx_func(run, binary, "main", NULL, PG_SITE_NOP5);
	uint32_t w = pg_fx_func(run, binary, "work", NULL, PG_SITE_NOP5);
	uint32_t h = pg_fx_func(run, binary, "helper", NULL, PG_SITE_NOP5);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

	for (size_t r = 0; r < nreps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, (uint64_t)(p->wall * pg_fx_noise(&s, p->sd)));
		double ms = p->main_self * pg_fx_noise(&s, p->sd);
		double wk = p->work * pg_fx_noise(&s, p->sd);
		double hp = p->helper * pg_fx_noise(&s, p->sd);

		pg_fx_stat_each(rep, m, 1, ms, ms + wk * (double)p->work_calls + hp * 50);
		/* main calls work and helper: traced callees (nop5 sites) */
		rep->stats[rep->nstats - 1].kids[PG_SITE_NOP5] = p->work_calls + 50;
		rep->stats[rep->nstats - 1].desc[PG_SITE_NOP5] = p->work_calls + 50;
		pg_fx_stat_each(rep, w, p->work_calls, wk, wk);
		pg_fx_stat_each(rep, h, 50, hp, hp);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * pg_compare() into a fresh @c. NULL @o: the default options but for the impact rule, off
 * (min_impact 0), and for the machine's speed, not corrected (steady()): the model programs'
 * functions hold little of their wall time, and these tests are of the statistics; the impact
 * rule's tests (test_impact_*) pass their options.
 */
/* The defaults but the machine's speed between the runs not corrected: runs of one steady machine
 * without a witness of its speed (no reference spins), whose unknown speed would widen every
 * interval (test_rspeed.c tests that) */
static const struct pg_compare_opts *steady(void)
{
	static struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

	o.no_speed = true;
	return &o;
}

static int compare(const struct pg_run *a, const struct pg_run *b,
		   const struct pg_compare_opts *o, struct pg_comparison *c)
{
	struct pg_compare_opts stats = PG_COMPARE_OPTS_DEFAULT;

	stats.min_impact = 0;
	stats.no_speed = steady()->no_speed;
	pg_comparison_init(c);
	return pg_compare(a, b, o ? o : &stats, c);
}

static void test_names(void **state)
{
	assert_string_equal(pg_verdict_name(PG_VERDICT_UNCHANGED), "unchanged");
	assert_string_equal(pg_verdict_name(PG_VERDICT_REGRESSION), "regression");
	assert_string_equal(pg_verdict_name(PG_VERDICT_IMPROVEMENT), "improvement");
	assert_string_equal(pg_verdict_name(PG_VERDICT_INCONCLUSIVE), "inconclusive");
	assert_string_equal(pg_verdict_name(PG_VERDICT_ADDED), "added");
	assert_string_equal(pg_verdict_name(PG_VERDICT_REMOVED), "removed");
	assert_string_equal(pg_overall_name(PG_OVERALL_PASS), "pass");
	assert_string_equal(pg_overall_name(PG_OVERALL_REGRESSION), "regression");
	assert_string_equal(pg_overall_name(PG_OVERALL_INCONCLUSIVE), "inconclusive");
	assert_string_equal(pg_metric_name(PG_METRIC_SELF), "self");
	assert_string_equal(pg_metric_name(PG_METRIC_TOTAL), "total");
}

static void test_identical(void **state)
{
	struct pg_run *a = prog_run(&base_prog, 10, 1, "/b/prog", "h");
	struct pg_run *b = prog_run(&base_prog, 10, 2, "/b/prog", "h");
	struct pg_comparison c;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	assert_string_equal(c.overall_reason, "");
	assert_int_equal(c.n, 4);	/* + the program's wall time */
	assert_int_equal(c.ntested, 4);	/* + the program's wall time */
	assert_int_equal(c.nunchanged, 4);	/* + the program's wall time */
	assert_int_equal(c.nregressions + c.nimprovements + c.ninconclusive, 0);
	assert_int_equal(c.nwarnings, 0);
	assert_int_equal(c.base_reps, 10);
	assert_int_equal(c.new_reps, 10);
	for (size_t i = 0; i < c.n; i++) {
		const struct pg_fcmp *f = &c.f[i];

		assert_int_equal(f->verdict, PG_VERDICT_UNCHANGED);
		assert_int_equal(f->n_base, 10);
		assert_int_equal(f->n_new, 10);
		assert_false(f->calls_changed);
		assert_true(fabs(f->change) < 0.02);
		assert_true(f->ci_lo <= f->change && f->change <= f->ci_hi);
		assert_true(f->p > 0 && f->p <= 1 && f->q >= f->p && f->q <= 1);
		assert_string_equal(f->binary, i + 1 < c.n ? "prog" : PG_PROGRAM_BINARY);
	}
	assert_int_equal(c.f[c.n - 1].origin, PG_ORIGIN_PROGRAM);
	assert_string_equal(c.wall.name, "[wall]");
	assert_int_equal(c.wall.verdict, PG_VERDICT_UNCHANGED);
	/* defaults recorded */
	assert_true(c.opts.alpha == 0.05 && c.opts.min_effect == 0.05 && c.opts.min_reps == 5);
	assert_int_equal(c.opts.metric, PG_METRIC_SELF);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_regression(void **state)
{
	struct prog slow = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	slow.work *= 1.10;
	a = prog_run(&base_prog, 10, 3, "/build/a/prog", "h");
	b = prog_run(&slow, 10, 4, "/build/b/prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	assert_int_equal(c.nregressions, 1);
	assert_int_equal(c.nunchanged, 3);	/* + the program's wall time */
	assert_int_equal(c.ntested, 4);	/* + the program's wall time */
	f = &c.f[0];
	assert_string_equal(f->name, "work");
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(f->change - 0.10) < 0.02);
	assert_true(f->ci_lo > 0.05 && f->ci_hi < 0.15 && f->ci_lo < f->change);
	assert_true(f->q <= 0.05 && f->p <= f->q);
	/* 10 v 10 completely separated: the smallest exact p */
	assert_true(fabs(f->p - pg_mwu_min_p(10, 10)) < 1e-15);
	assert_true(fabs(f->new_ns / f->base_ns - 1.10) < 0.02);
	assert_true(f->reason[0] == '+' && strstr(f->reason, "q="));
	{
		/* the reason writes the change as every report does (core/numfmt.h) */
		char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], words[4 * PG_FMT_LEN];

		snprintf(words, sizeof(words), "%s %s, q=", pg_fmt_pct(ch, sizeof(ch), f->change),
			 pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi));
		assert_true(!strncmp(f->reason, words, strlen(words)));
	}
	/* callers with unchanged self time are not flagged */
	assert_int_equal(pg_fx_find(&c, "main")->verdict, PG_VERDICT_UNCHANGED);
	assert_int_equal(pg_fx_find(&c, "helper")->verdict, PG_VERDICT_UNCHANGED);
	pg_comparison_release(&c);

	pg_run_free(a);
	pg_run_free(b);

	/*
	 * With inclusive time the caller regresses too. A program whose work dominates main's
	 * total: main 8 ms + 100 x 200 us of work + 50 x 200 ns; work +10% makes main's total
	 * 28.01 ms -> 30.01 ms, +7.1%.
	 */
	{
		struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
		struct prog heavy = { 8e6, 200000, 200, 100, 5e7, 0.01 }, heavy_slow = heavy;

		heavy_slow.work *= 1.10;
		a = prog_run(&heavy, 10, 3, "/build/a/prog", "h");
		b = prog_run(&heavy_slow, 10, 4, "/build/b/prog", "h");
		o.metric = PG_METRIC_TOTAL;
		assert_int_equal(compare(a, b, &o, &c), 0);
		assert_int_equal(c.nregressions, 2);
		assert_string_equal(c.f[0].name, "work");
		assert_string_equal(c.f[1].name, "main");
		assert_int_equal(c.f[1].verdict, PG_VERDICT_REGRESSION);
		assert_true(fabs(c.f[1].change - 2e6 / 28.01e6) < 0.01);
		assert_int_equal(pg_fx_find(&c, "helper")->verdict, PG_VERDICT_UNCHANGED);
		pg_comparison_release(&c);
	}
	pg_run_free(a);
	pg_run_free(b);
}

static void test_improvement(void **state)
{
	struct prog fast = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;

	fast.helper *= 0.8;
	a = prog_run(&base_prog, 12, 5, "prog", "h");
	b = prog_run(&fast, 8, 6, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	assert_int_equal(c.nimprovements, 1);
	assert_int_equal(c.nregressions, 0);
	assert_string_equal(c.f[0].name, "helper");
	assert_int_equal(c.f[0].verdict, PG_VERDICT_IMPROVEMENT);
	assert_true(fabs(c.f[0].change + 0.2) < 0.02 && c.f[0].ci_hi < -0.05);
	assert_true(c.f[0].reason[0] == '-');
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Significant changes near min_effect: the interval decides. */
static void test_small_effects(void **state)
{
	struct prog tiny = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	tiny.work *= 1.03;
	tiny.main_self *= 1.06;
	tiny.helper *= 0.95;
	a = prog_run(&base_prog, 10, 3, "prog", "h");
	b = prog_run(&tiny, 10, 5, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);

	/* +2.3% [+1.3%, +3.4%]: real, but within +-5% */
	f = pg_fx_find(&c, "work");
	assert_true(f->q <= 0.05 && f->ci_lo > 0 && f->ci_hi < 0.05);
	assert_int_equal(f->verdict, PG_VERDICT_UNCHANGED);
	assert_true(strstr(f->reason, "significant but within +-5%") != NULL);

	/* +6% with an interval reaching below +5%: neither ruled in nor out */
	f = pg_fx_find(&c, "main");
	assert_true(f->q <= 0.05 && f->ci_lo < 0.05 && f->ci_hi > 0.05);
	assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_true(strstr(f->reason, "slower, but not surely by 5%") != NULL);

	/* -5% with an interval across -5%: faster, a regression is ruled out */
	f = pg_fx_find(&c, "helper");
	assert_true(f->q <= 0.05 && f->ci_lo < -0.05 && f->ci_hi > -0.05);
	assert_int_equal(f->verdict, PG_VERDICT_UNCHANGED);
	assert_true(strstr(f->reason, "faster, but not surely by 5%") != NULL);

	assert_int_equal(c.overall, PG_OVERALL_PASS);
	assert_int_equal(c.ninconclusive, 1);
	assert_string_equal(c.f[0].name, "main");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * A run with functions f0..f(n-1) of binary "prog": function i takes ns[i] per call (2 calls)
 * and is called in the first called[i] repetitions (all when called[i] < 0).
 */
static struct pg_run *multi_run(size_t n, const char *const *names, const double *ns,
				const int *called, size_t nreps, uint64_t seed)
{
	struct pg_run *run = new_run("/bin/prog", "--quick", "h");
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 7;

	for (size_t i = 0; i < n; i++)
		pg_fx_func(run, "/bin/prog", names[i], NULL, PG_SITE_NOP5);
	for (size_t r = 0; r < nreps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 1000000);

		for (size_t i = 0; i < n; i++) {
			double v = ns[i] * pg_fx_noise(&s, 0.01);

			if (ns[i] <= 0 || (called[i] >= 0 && r >= (size_t)called[i]))
				continue;
			pg_fx_stat_each(rep, (uint32_t)i, 2, v, v);
		}
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

static void test_added_removed(void **state)
{
	const char *const names[] = { "same", "gone", "new", "never", "late" };
	/* "never" is in the function tables but called in no repetition: skipped */
	const double nb[] = { 100, 100, 0, 0, 0 };
	const double nn[] = { 100, 0, 100, 0, 100 };
	const int all[] = { -1, -1, -1, -1, -1 };
	struct pg_run *a = multi_run(5, names, nb, all, 6, 1);
	struct pg_run *b = multi_run(5, names, nn, all, 6, 2);
	struct pg_comparison c;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.n, 5);	/* + the program's wall time */
	assert_int_equal(c.nadded, 2);
	assert_int_equal(c.nremoved, 1);
	assert_int_equal(c.nunchanged, 2);	/* + the program's wall time */
	assert_int_equal(c.ntested, 2);	/* + the program's wall time */
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	/* added (by name), removed, unchanged */
	assert_string_equal(c.f[0].name, "late");
	assert_string_equal(c.f[1].name, "new");
	assert_string_equal(c.f[2].name, "gone");
	assert_string_equal(c.f[3].name, "same");
	assert_int_equal(c.f[0].verdict, PG_VERDICT_ADDED);
	assert_int_equal(c.f[2].verdict, PG_VERDICT_REMOVED);
	assert_true(strstr(c.f[0].reason, "only in the new run") != NULL);
	assert_true(strstr(c.f[2].reason, "only in the base run") != NULL);
	assert_true(isnan(c.f[0].base_ns) && c.f[0].new_ns > 0);
	assert_true(c.f[0].base_calls == 0 && c.f[0].new_calls == 2 && c.f[0].calls_changed);
	assert_true(isnan(c.f[0].p) && isnan(c.f[0].q) && isnan(c.f[0].change));
	assert_int_equal(c.f[0].n_base, 0);
	assert_int_equal(c.f[0].n_new, 6);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_too_few_reps(void **state)
{
	struct prog slow = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	slow.work *= 1.5;
	a = prog_run(&base_prog, 3, 7, "prog", "h");
	b = prog_run(&slow, 3, 8, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_int_equal(c.ntested, 0);
	assert_int_equal(c.ninconclusive, 4);	/* + the program's wall time */
	assert_int_equal(c.nregressions, 0);
	assert_true(strstr(c.overall_reason, "too few repetitions (3 and 3)") != NULL);
	assert_true(strstr(c.overall_reason, "at least 5 repetitions per side") != NULL);
	assert_true(strstr(c.overall_reason, "10 recommended") != NULL);
	for (size_t i = 0; i < c.n; i++) {
		assert_int_equal(c.f[i].verdict, PG_VERDICT_INCONCLUSIVE);
		assert_non_null(strstr(c.f[i].reason,
				       "the smallest possible p-value is 0.1 > alpha 0.05"));
		assert_true(isnan(c.f[i].p) && isnan(c.f[i].q));
		/* the effect is still estimated */
		assert_false(isnan(c.f[i].change));
	}
	assert_true(fabs(pg_fx_find(&c, "work")->change - 0.5) < 0.05);
	assert_int_equal(c.wall.verdict, PG_VERDICT_INCONCLUSIVE);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);

	/* 4 v 4 could reach alpha (2/70) but min_reps is 5 */
	a = prog_run(&base_prog, 4, 7, "prog", "h");
	b = prog_run(&slow, 4, 8, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_true(strstr(c.overall_reason, "at least 5 per side") != NULL);
	assert_true(strstr(pg_fx_find(&c, "work")->reason, "only 4 and 4 repetitions: at least 5"));
	pg_comparison_release(&c);
	{
		struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

		o.min_reps = 4;
		o.no_speed = steady()->no_speed;
		assert_int_equal(compare(a, b, &o, &c), 0);
		assert_int_equal(c.ntested, 4);	/* + the program's wall time */
		/*
		 * work is 50% slower in all 4 repetitions: p = 2/70, the smallest possible,
		 * but among 4 tests (3 functions and the program's wall time) BH makes that
		 * q = 4 * 2/70 > alpha: not a regression
		 */
		f = pg_fx_find(&c, "work");
		assert_true(fabs(f->p - 2.0 / 70) < 1e-15);
		assert_true(fabs(f->q - 4 * 2.0 / 70) < 1e-15);
		assert_true(f->ci_lo > 0.3);
		assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
		assert_true(strstr(f->reason, "but q=0.11 > alpha 0.05") != NULL);
		assert_int_equal(c.overall, PG_OVERALL_PASS);
		pg_comparison_release(&c);
	}
	pg_run_free(a);
	pg_run_free(b);
}

static void test_different_argv(void **state)
{
	struct pg_run *a = prog_run(&base_prog, 5, 1, "/x/prog", "h");
	struct pg_run *b = prog_run(&base_prog, 5, 2, "/y/prog", "h");
	struct pg_comparison c;

	/* argv[0] is compared by basename */
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_false(c.commands_differ);
	assert_true(pg_meta_same_benchmark(&a->meta, &b->meta));
	pg_comparison_release(&c);

	/* different commands are compared all the same, with a warning naming both */
	free(b->meta.argv[1]);
	b->meta.argv[1] = strdup("--full");
	assert_false(pg_meta_same_benchmark(&a->meta, &b->meta));
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_true(c.commands_differ);
	assert_true(c.nwarnings >= 1);
	assert_true(strstr(c.warnings[0], "different commands") != NULL);
	assert_true(strstr(c.warnings[0], "/x/prog --quick") != NULL);
	assert_true(strstr(c.warnings[0], "/y/prog --full") != NULL);
	assert_true(c.n > 0);
	assert_int_equal(pg_comparison_matched(&c), c.n - 1);
	pg_comparison_release(&c);

	free(b->meta.argv[0]);
	free(b->meta.argv[1]);
	b->meta.argv[0] = strdup("/x/other");
	b->meta.argv[1] = strdup("--quick");
	assert_false(pg_meta_same_benchmark(&a->meta, &b->meta));
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_true(c.commands_differ);
	pg_comparison_release(&c);

	b->meta.argc = 1;
	assert_false(pg_meta_same_benchmark(&a->meta, &b->meta));
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_true(c.commands_differ);
	b->meta.argc = 2;
	pg_comparison_release(&c);

	/* invalid options */
	{
		struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

		o.alpha = 0;
		assert_int_equal(compare(a, a, &o, &c), -EINVAL);
		assert_true(c.error[0] != 0);
		pg_comparison_release(&c);
	}
	pg_run_free(a);
	pg_run_free(b);
}

static bool has_warning(const struct pg_comparison *c, const char *a, const char *b)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], a) && (!b || strstr(c->warnings[i], b)))
			return true;
	return false;
}

static void test_warnings(void **state)
{
	struct pg_run *a = prog_run(&base_prog, 5, 1, "prog", "alpha");
	struct pg_run *b = prog_run(&base_prog, 5, 2, "prog", "beta");
	struct pg_comparison c;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 1);
	assert_true(has_warning(&c, "different hosts", "alpha and beta"));
	pg_comparison_release(&c);

	free(b->meta.kernel);
	b->meta.kernel = strdup("6.12.0");
	free(b->meta.perfgate_version);
	b->meta.perfgate_version = NULL;	/* unknown: no warning */
	b->meta.cpu_model = strdup("Zen 4");	/* only one side knows it: no warning */
	b->reps[2].exit_code = 1;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 3);
	assert_true(has_warning(&c, "different kernels", "6.1.0 and 6.12.0"));
	assert_true(has_warning(&c, "1 of 5 repetitions of the new run failed", NULL));
	assert_false(has_warning(&c, "perfgate", NULL));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Sets of traced functions that differ because of how the runs were recorded are warned of. */
static void test_traced_sets(void **state)
{
	const char *const names[] = { "same", "tiny" };
	const double ns[] = { 100, 100 };
	const int all[] = { -1, -1 };
	struct pg_run *a = multi_run(2, names, ns, all, 6, 1);
	struct pg_run *b = multi_run(1, names, ns, all, 6, 2);	/* "tiny" not traced */
	struct pg_run *c2 = multi_run(2, names, ns, all, 6, 3);
	struct pg_comparison c;

	(void)state;
	/* same options, no --budget: "tiny" is gone from the code, as far as compare knows */
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	pg_comparison_release(&c);
	/* either side chosen by --budget */
	b->meta.budget_pct = 5;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 1);
	assert_true(has_warning(&c, "traced different sets of functions (1 called only in the "
				"base run, 0 only in the new one: --budget chose them", NULL));
	pg_comparison_release(&c);
	assert_int_equal(compare(b, a, NULL, &c), 0);
	assert_true(has_warning(&c, "(0 called only in the base run, 1 only in the new one", NULL));
	pg_comparison_release(&c);
	/* listed on one side but called in none of its repetitions: the code's doing, no warning */
	for (size_t r = 0; r < a->nreps; r++)
		a->reps[r].stats[1].calls = 0;	/* stats sorted by id: "tiny" is id 1 */
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	pg_comparison_release(&c);
	for (size_t r = 0; r < a->nreps; r++)
		a->reps[r].stats[1].calls = 2;
	/* --budget on both sides, the same set: nothing to say */
	a->meta.budget_pct = 5;
	c2->meta.budget_pct = 2;
	assert_int_equal(compare(a, c2, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	pg_comparison_release(&c);
	/* no --budget, different -f */
	a->meta.budget_pct = b->meta.budget_pct = 0;
	b->meta.filters = calloc(1, sizeof(char *));
	assert_non_null(b->meta.filters);
	b->meta.filters[0] = strdup("same");
	b->meta.nfilters = 1;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 1);
	assert_true(has_warning(&c, "their -f/-x options differ", NULL));
	pg_comparison_release(&c);
	/* different -f, the same set: nothing to say */
	pg_run_free(c2);
	c2 = multi_run(1, names, ns, all, 6, 3);
	assert_int_equal(compare(c2, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(c2);
}

/* parent, with 10 traced children per call when @traced_kids, its self time @self ns a call */
static struct pg_run *kids_run(bool traced_kids, double self, uint64_t seed)
{
	struct pg_run *run = new_run("/bin/prog", "--quick", "h");
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 7;
	uint32_t parent = pg_fx_func(run, "/bin/prog", "parent", NULL, PG_SITE_NOP5), child = 0;

	if (traced_kids)
		child = pg_fx_func(run, "/bin/prog", "child", NULL, PG_SITE_NOP5);
	for (int r = 0; r < 8; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 10000000);
		double v = self * pg_fx_noise(&s, 0.01);

		pg_fx_stat_each(rep, parent, 2, v, 5e6);
		if (traced_kids) {
			rep->stats[0].kids[PG_SITE_NOP5] = rep->stats[0].desc[PG_SITE_NOP5] = 20;
			pg_fx_stat_each(rep, child, 20, 20000 * pg_fx_noise(&s, 0.01), 20000);
		}
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * --budget traced the children in one run and not in the other: the parent's self time holds
 * them on one side only (+200%), which is no regression of the code.
 */
static void test_traced_callees_differ(void **state)
{
	struct pg_run *a = kids_run(true, 1e6, 1), *b = kids_run(false, 3e6, 2);
	const struct pg_fcmp *f;
	struct pg_comparison c;

	(void)state;
	/* the same options, no --budget: compare cannot tell, and judges */
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(pg_fx_find(&c, "parent")->verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
	b->meta.budget_pct = 5;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	f = pg_fx_find(&c, "parent");
	assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(f->reason,
			       "traced callees differ (10 and 0 traced calls per call)"));
	assert_int_equal(c.nregressions, 0);
	assert_int_not_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	/* total time, compensated: which callees were traced does not matter, it is judged */
	{
		struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

		o.metric = PG_METRIC_TOTAL;
		for (size_t r = 0; r < b->nreps; r++)
			b->reps[r].stats[0].total_ns *= 3;
		assert_int_equal(compare(a, b, &o, &c), 0);
		assert_int_equal(pg_fx_find(&c, "parent")->verdict, PG_VERDICT_REGRESSION);
		pg_comparison_release(&c);
	}
	pg_run_free(b);
	/* the sets differ, but the parent's traced callees do not: a regression is judged */
	b = kids_run(true, 3e6, 2);
	pg_fx_func(b, "/bin/prog", "other", NULL, PG_SITE_NOP5);
	for (size_t r = 0; r < b->nreps; r++)
		pg_fx_stat_each(&b->reps[r], 2, 1, 1000, 1000);
	b->meta.budget_pct = 5;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_true(has_warning(&c, "(0 called only in the base run, 1 only in the new one", NULL));
	assert_int_equal(pg_fx_find(&c, "parent")->verdict, PG_VERDICT_REGRESSION);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_bh_family(void **state)
{
	const char *const names[] = { "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7" };
	const double nb[] = { 100, 100, 100, 100, 100, 100, 100, 0 };
	const double nn[] = { 100, 112, 100, 101, 100, 100, 100, 100 };
	/* f5 is called in 3 repetitions only, f6 in 5: only f6 can be tested */
	const int cb[] = { -1, -1, -1, -1, -1, 3, 5, -1 };
	struct pg_run *a = multi_run(8, names, nb, cb, 8, 11);
	struct pg_run *b = multi_run(8, names, nn, cb, 8, 12);
	struct pg_comparison c;
	double p[8], q[8];
	size_t k = 0;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	/* f0-f4 and f6 tested; f5 too few repetitions; f7 added */
	assert_int_equal(c.ntested, 7);	/* + the program's wall time */
	assert_int_equal(pg_fx_find(&c, "f5")->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(pg_fx_find(&c, "f5")->n_base, 3);
	assert_true(isnan(pg_fx_find(&c, "f5")->q));
	assert_int_equal(pg_fx_find(&c, "f1")->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(c.nregressions, 1);
	for (size_t i = 0; i < c.n; i++) {
		if (isnan(c.f[i].p))
			continue;
		p[k] = c.f[i].p;
		q[k] = c.f[i].q;
		k++;
	}
	assert_int_equal(k, 7);	/* + the program's wall time */
	assert_int_equal(pg_bh_adjust(p, k, p), 0);
	for (size_t i = 0; i < k; i++)
		assert_true(p[i] == q[i]);
	/* the wall time is not in the family: its q is its p */
	assert_true(c.wall.q == c.wall.p);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_sort_order(void **state)
{
	const char *const names[] = { "u1", "r10", "gone", "i20", "r30", "few", "u0", "new" };
	const double nb[] = { 100, 100, 100, 100, 100, 100, 100, 0 };
	const double nn[] = { 100, 110, 0, 80, 130, 200, 100, 100 };
	const int called[] = { -1, -1, -1, -1, -1, 2, -1, -1 };
	const enum pg_verdict want[] = {
		PG_VERDICT_REGRESSION, PG_VERDICT_REGRESSION, PG_VERDICT_IMPROVEMENT,
		PG_VERDICT_INCONCLUSIVE, PG_VERDICT_ADDED, PG_VERDICT_REMOVED,
		PG_VERDICT_UNCHANGED, PG_VERDICT_UNCHANGED,
	};
	const char *const want_names[] = { "r30", "r10", "i20", "few", "new", "gone", "u0", "u1" };
	struct pg_run *a = multi_run(8, names, nb, called, 10, 21);
	struct pg_run *b = multi_run(8, names, nn, called, 10, 22);
	struct pg_comparison c;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.n, 9);	/* + the program's wall time, last */
	for (size_t i = 0; i + 1 < c.n; i++) {
		if (c.f[i].verdict != want[i] || strcmp(c.f[i].name, want_names[i]))
			fail_msg("position %zu: %s %s, want %s %s", i, c.f[i].name,
				 pg_verdict_name(c.f[i].verdict), want_names[i],
				 pg_verdict_name(want[i]));
	}
	assert_int_equal(c.nregressions, 2);
	assert_int_equal(c.nimprovements, 1);
	assert_int_equal(c.ninconclusive, 1);
	assert_int_equal(c.nadded, 1);
	assert_int_equal(c.nremoved, 1);
	assert_int_equal(c.nunchanged, 3);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_calls_changed(void **state)
{
	struct prog more = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	more.work_calls = 120;
	a = prog_run(&base_prog, 6, 31, "prog", "h");
	b = prog_run(&more, 6, 32, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	f = pg_fx_find(&c, "work");
	assert_true(f->calls_changed);
	assert_true(f->base_calls == 100 && f->new_calls == 120);
	assert_int_equal(f->verdict, PG_VERDICT_UNCHANGED);
	assert_true(strstr(f->reason, "calls 100 -> 120 per repetition") != NULL);
	assert_false(pg_fx_find(&c, "helper")->calls_changed);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * The whole program's wall time is tested like a function, in the family: +20% everywhere else
 * unchanged is significant, but in two recordings made apart (unpaired) it is the machine's
 * drift as much as the program's, so it is inconclusive with that cause and does not fail the
 * comparison (perfgate ab's pairs judge it; the informational wall line stays tested alone).
 */
static void test_wall(void **state)
{
	struct prog slow = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;

	slow.wall *= 1.2;
	a = prog_run(&base_prog, 8, 41, "prog", "h");
	b = prog_run(&slow, 8, 42, "prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.wall.verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(c.wall.change - 0.2) < 0.03);
	assert_true(c.wall.q == c.wall.p);
	assert_int_equal(c.nregressions, 0);
	assert_int_equal(c.f[c.n - 1].origin, PG_ORIGIN_PROGRAM);
	assert_string_equal(c.f[c.n - 1].name, PG_PROGRAM_WALL);
	assert_int_equal(c.f[c.n - 1].verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(c.f[c.n - 1].cause, PG_CAUSE_DRIFT);
	assert_non_null(strstr(c.f[c.n - 1].reason, "drift"));
	assert_true(c.f[c.n - 1].q < 0.05);
	assert_int_equal(c.ntested, 4);	/* + the program's wall time */
	assert_int_not_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Self times of 0 ns (all time in children) stay finite: no NaN, no infinite change. */
static void test_zero_ns(void **state)
{
	const char *const names[] = { "z" };
	const double ns[] = { 1 };
	const int all[] = { -1 };
	struct pg_run *a = multi_run(1, names, ns, all, 6, 51);
	struct pg_run *b = multi_run(1, names, ns, all, 6, 52);
	struct pg_comparison c;

	for (size_t r = 0; r < 6; r++) {
		a->reps[r].stats[0].self_ns = 0;
		b->reps[r].stats[0].self_ns = r % 2;	/* 0 or 0.5 ns per call */
	}
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.n, 2);	/* + the program's wall time */
	assert_true(c.f[0].change == 0);
	assert_true(isfinite(c.f[0].ci_lo) && isfinite(c.f[0].ci_hi));
	assert_true(c.f[0].p == 1);
	assert_int_equal(c.f[0].verdict, PG_VERDICT_UNCHANGED);
	assert_true(c.f[0].base_ns == 0);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* No function in common: inconclusive, however many repetitions; reuse of a result. */
static void test_nothing_common(void **state)
{
	const char *const names[] = { "x", "y" };
	const double nb[] = { 100, 0 }, nn[] = { 0, 100 };
	const int all[] = { -1, -1 };
	struct pg_run *a = multi_run(2, names, nb, all, 10, 61);
	struct pg_run *b = multi_run(2, names, nn, all, 10, 62);
	struct pg_comparison c;

	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_true(strstr(c.overall_reason, "no function was called in both runs") != NULL);
	/* pg_compare() may reuse a result: the old one is released first */
	assert_int_equal(pg_compare(a, a, steady(), &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	assert_int_equal(c.n, 2);	/* + the program's wall time */
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * A repetition of a 50-call leaf taking @per ns a call, @slow of them interrupted (2x as long).
 * Its histogram holds the durations less @hist_in (0: raw; a compensated histogram lacks each
 * call's own in_ns). Returns the stat.
 */
static struct pg_fstat *add_leaf_rep(struct pg_run *run, double per, uint64_t slow,
				     double hist_in)
{
	struct pg_rep *rep = pg_fx_rep(run, 50000000);
	struct pg_fstat *st = pg_rep_add_stat(rep, 0);

	assert_non_null(st);
	st->calls = 50;
	st->total_ns = st->self_ns = (uint64_t)(per * 50 + per * (double)slow);
	st->min_ns = (uint64_t)per;
	st->max_ns = (uint64_t)(slow ? 2 * per : per);
	assert_int_equal(pg_hist_add(&st->hist, pg_hist_bucket((uint64_t)(per - hist_in)),
				     50 - slow), 0);
	if (slow)
		assert_int_equal(pg_hist_add(&st->hist,
					     pg_hist_bucket((uint64_t)(2 * per - hist_in)), slow),
				 0);
	return st;
}

/* A leaf whose calls are now and then interrupted (a sample, a tick): the slowest 5% of calls
 * are left out per repetition, so rare 2x calls do not pass for a slowdown. With @comp, both
 * runs are calibrated (a probe puts 20 us into each 40 us call) and the new one has compensated
 * histograms, the old one raw ones: the same verdict. */
static void leaf_trim(bool comp)
{
	struct pg_run *a = new_run("/b/prog", "--quick", "h");
	struct pg_run *b = new_run("/b/prog", "--quick", "h");
	const struct pg_calib calib = { .valid = true, .measured = true,
					.in_ns = { 0, 20000, 0, 0 }, .out_ns = { 0, 1000, 0, 0 } };
	struct pg_comparison c;
	uint64_t s = 42;

	pg_fx_func(a, "/b/prog", "leaf", NULL, PG_SITE_NOP5);
	pg_fx_func(b, "/b/prog", "leaf", NULL, PG_SITE_NOP5);
	if (comp) {
		a->calib = b->calib = calib;
		b->hist_compensated = true;
	}
	/* the new side: two calls of every repetition interrupted, 2x as long */
	for (int r = 0; r < 10; r++)
		add_leaf_rep(a, 40000 * pg_fx_noise(&s, 0.002), 0, 0);
	for (int r = 0; r < 10; r++)
		add_leaf_rep(b, 40000 * pg_fx_noise(&s, 0.002), 2, comp ? 20000 : 0);
	assert_int_equal(pg_run_validate(b, NULL, 0), 0);
	assert_int_equal(compare(a, b, NULL, &c), 0);
	/* the plain mean would say +4% (+8% compensated), significant; trimmed, nothing changed */
	assert_int_equal(pg_fx_find(&c, "leaf")->verdict, PG_VERDICT_UNCHANGED);
	assert_true(fabs(pg_fx_find(&c, "leaf")->change) < 0.01);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_leaf_trim(void **state)
{
	leaf_trim(false);
	leaf_trim(true);
}

/*
 * A nop5 leaf whose probes ran twice as slow in the new run (their BPF run time doubled, so
 * their untimed part is taken to have doubled too: core/run.h, pg_calib_scale): the trimmed
 * leaf path subtracts the scaled own in, as pg_fstat_comp_*() do, and the 2 us more per call
 * that the slower probe put in is not a regression. The histogram lacks the calibrated,
 * unscaled in, as the BPF programs subtract it.
 */
static void test_leaf_scale(void **state)
{
	struct pg_run *a = new_run("/b/prog", "--quick", "h");
	struct pg_run *b = new_run("/b/prog", "--quick", "h");
	const struct pg_calib calib = { .valid = true, .measured = true,
					.in_ns = { 0, 2000, 0, 0 }, .out_ns = { 0, 1000, 0, 0 },
					.measured_ns = { 0, 1000, 0, 0 } };
	struct pg_comparison c;
	const struct pg_fcmp *f;
	uint64_t s = 7;

	pg_fx_func(a, "/b/prog", "leaf", NULL, PG_SITE_NOP5);
	pg_fx_func(b, "/b/prog", "leaf", NULL, PG_SITE_NOP5);
	a->calib = b->calib = calib;
	a->hist_compensated = b->hist_compensated = true;
	/* 20 us of work a call; in: 2 us at calibration's speed, 4 us at half of it */
	for (int r = 0; r < 10; r++) {
		struct pg_fstat *st = add_leaf_rep(a, 22000 * pg_fx_noise(&s, 0.002), 2, 2000);

		st->probe_ns = st->calls * 1000;
	}
	for (int r = 0; r < 10; r++) {
		struct pg_fstat *st = add_leaf_rep(b, 24000 * pg_fx_noise(&s, 0.002), 2, 2000);

		st->probe_ns = st->calls * 2000;
	}
	assert_int_equal(pg_run_validate(b, NULL, 0), 0);
	assert_int_equal(compare(a, b, NULL, &c), 0);
	f = pg_fx_find(&c, "leaf");
	/* unscaled, the new side would be 22 us a call against 20: +10%, a regression */
	assert_true(fabs(f->base_ns - 20000) < 400);
	assert_true(fabs(f->new_ns - 20000) < 400);
	assert_int_equal(f->verdict, PG_VERDICT_UNCHANGED);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* A caller with little time of its own per traced callee cannot be judged on it. */
static void test_little_own_time(void **state)
{
	struct prog thin = base_prog;
	struct pg_run *a, *b;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	thin.main_self = 150 * 20000.0;	/* 20 us per traced callee */
	a = prog_run(&thin, 10, 5, "/b/prog", "h");
	b = prog_run(&thin, 10, 6, "/b/prog", "h");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	f = pg_fx_find(&c, "main");
	assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(f->reason, "per call to a traced function"));
	assert_true(isnan(f->q));
	assert_int_equal(c.ntested, 3);	/* + the program's wall time */
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * The program of tests/progs/negligible.c: main calls once_small() once (@small ns) and work()
 * 40 times (@work ns each); its repetitions take @wall ns. Every time gets ~1% noise.
 */
static struct pg_run *impact_run(double small, double work, double wall, uint64_t seed)
{
	struct pg_run *run = new_run("/b/negligible", "--quick", "h");
	uint32_t s_id = pg_fx_func(run, "/b/negligible", "once_small", NULL, PG_SITE_NOP5);
	uint32_t w_id = pg_fx_func(run, "/b/negligible", "work", NULL, PG_SITE_NOP5);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 3;

	for (int r = 0; r < 10; r++) {
		struct pg_rep *rep = pg_fx_rep(run, (uint64_t)(wall * pg_fx_noise(&s, 0.01)));
		double sm = small * pg_fx_noise(&s, 0.01), wk = work * pg_fx_noise(&s, 0.01);

		pg_fx_stat_each(rep, s_id, 1, sm, sm);
		pg_fx_stat_each(rep, w_id, 40, wk, wk);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* The verdict of function @name comparing @a with @b under @o (NULL: the true defaults). */
static enum pg_verdict verdict_of(const struct pg_run *a, const struct pg_run *b,
				  const struct pg_compare_opts *o, const char *name)
{
	struct pg_comparison c;
	enum pg_verdict v;

	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, o, &c), 0);
	v = pg_fx_find(&c, name)->verdict;
	pg_comparison_release(&c);
	return v;
}

/* A +200% change of a function that holds 0.01% of the run: notable, and the build passes. */
static void test_impact_negligible(void **state)
{
	struct pg_run *a = impact_run(20000, 5e6, 2e8, 1), *b = impact_run(60000, 5e6, 2e8, 2);
	struct pg_comparison c;
	const struct pg_fcmp *f;

	(void)state;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, steady(), &c), 0);	/* the defaults */
	assert_true(c.opts.min_impact == PG_MIN_IMPACT_DEFAULT);
	f = pg_fx_find(&c, "once_small");
	assert_int_equal(f->verdict, PG_VERDICT_NOTABLE);
	assert_true(f->q <= 0.05 && f->ci_lo > 0.05);	/* it would be a regression by itself */
	assert_true(fabs(f->change - 2) < 0.1);
	/* ~40 us more in a 200 ms repetition: 0.02% */
	assert_true(fabs(f->impact_ns - 40000) < 2000);
	assert_true(fabs(f->impact - 0.0002) < 0.00002);
	assert_int_equal(f->cause, PG_CAUSE_NONE);
	assert_non_null(strstr(f->reason, "q="));
	if (!strstr(f->reason, " ms repetition (0.02%): under 0.1% of it, does not fail"))
		fail_msg("reason: %s", f->reason);
	assert_int_equal(c.nnotable, 1);
	assert_int_equal(c.nregressions, 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	/* sorted after what failed and what improved: here first */
	assert_string_equal(c.f[0].name, "once_small");
	assert_int_equal(pg_fx_find(&c, "work")->verdict, PG_VERDICT_UNCHANGED);
	pg_comparison_release(&c);

	/* faster by as much: notable too, not an improvement (symmetric) */
	assert_int_equal(pg_compare(b, a, steady(), &c), 0);
	f = pg_fx_find(&c, "once_small");
	assert_int_equal(f->verdict, PG_VERDICT_NOTABLE);
	assert_true(f->change < -0.5 && f->impact < 0);
	assert_non_null(strstr(f->reason, "not counted"));
	assert_int_equal(c.nimprovements, 0);
	assert_int_equal(c.nnotable, 1);
	pg_comparison_release(&c);

	/* no wall time on either side: the share is unknown and the rule cannot apply */
	for (size_t r = 0; r < 10; r++)
		a->reps[r].wall_ns = b->reps[r].wall_ns = 0;
	assert_int_equal(pg_compare(a, b, steady(), &c), 0);
	f = pg_fx_find(&c, "once_small");
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(isnan(f->impact) && f->impact_ns > 0);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* The same +200% of a function holding a large share of the run fails the build. */
static void test_impact_large(void **state)
{
	struct pg_run *a = impact_run(5e6, 4e6, 2e8, 3), *b = impact_run(15e6, 4e6, 2e8, 4);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	(void)state;
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(a, b, steady(), &c), 0);
	f = pg_fx_find(&c, "once_small");
	/* +10 ms in a 200 ms repetition: 5% */
	assert_int_equal(f->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(f->impact - 0.05) < 0.005);
	assert_int_equal(c.nregressions, 1);
	assert_int_equal(c.nnotable, 0);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	/* unless the bar is raised above its share (--min-impact 10) */
	o.min_impact = 0.10;
	assert_int_equal(verdict_of(a, b, &o, "once_small"), PG_VERDICT_NOTABLE);
	/* total time (a leaf's is its self time) is weighed the same way */
	o.min_impact = PG_MIN_IMPACT_DEFAULT;
	o.metric = PG_METRIC_TOTAL;
	assert_int_equal(verdict_of(a, b, &o, "once_small"), PG_VERDICT_REGRESSION);
	pg_run_free(a);
	pg_run_free(b);
}

/* The boundary: an impact of exactly min_impact fails, a hair less does not. */
static void test_impact_boundary(void **state)
{
	struct pg_run *a = impact_run(200000, 5e6, 2e8, 5), *b = impact_run(400000, 5e6, 2e8, 6);
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison c;
	double share;

	(void)state;
	pg_comparison_init(&c);
	o.min_impact = 0;	/* off: every significant change beyond min_effect fails */
	assert_int_equal(pg_compare(a, b, &o, &c), 0);
	assert_int_equal(pg_fx_find(&c, "once_small")->verdict, PG_VERDICT_REGRESSION);
	share = pg_fx_find(&c, "once_small")->impact;
	assert_true(share > 0.0009 && share < 0.0011);	/* +200 us of 200 ms */
	pg_comparison_release(&c);

	o.min_impact = share;
	assert_int_equal(verdict_of(a, b, &o, "once_small"), PG_VERDICT_REGRESSION);
	o.min_impact = nextafter(share, 1);
	assert_int_equal(verdict_of(a, b, &o, "once_small"), PG_VERDICT_NOTABLE);
	/* invalid */
	o.min_impact = -0.01;
	assert_int_equal(pg_compare(a, b, &o, &c), -EINVAL);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * Two runs whose functions a budget chose on each side (the default selection, or --budget),
 * recorded independently: a function called in one run and not even listed in the other was
 * not traced there. It is not judged, neither added nor removed; the rest is compared.
 */
static void test_selection_one_side(void **state)
{
	const char *const names[] = { "same", "base_only", "listed" };
	const double nb[] = { 100, 100, 100 }, nn[] = { 100, 0, 0 };
	const char *const names_new[] = { "same", "listed", "new_only" };
	const double nn2[] = { 100, 0, 100 };
	const int all[] = { -1, -1, -1 };
	struct pg_run *a = multi_run(3, names, nb, all, 10, 1);
	struct pg_run *b = multi_run(3, names_new, nn2, all, 10, 2);
	struct pg_comparison c;
	const struct pg_fcmp *f;

	(void)state;
	(void)nn;
	a->meta.budget_pct = b->meta.budget_pct = 5;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_true(has_warning(&c, "(1 called only in the base run, 1 only in the new one",
				"those are not judged"));
	f = pg_fx_find(&c, "base_only");
	assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(f->cause, PG_CAUSE_ONE_SIDE);
	assert_non_null(strstr(f->reason, "traced only in the base run"));
	f = pg_fx_find(&c, "new_only");
	assert_int_equal(f->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(f->reason, "traced only in the new run"));
	assert_true(isnan(f->q) && isnan(f->impact));
	/* listed in both, called in one: the code stopped calling it */
	assert_int_equal(pg_fx_find(&c, "listed")->verdict, PG_VERDICT_REMOVED);
	assert_int_equal(pg_fx_find(&c, "same")->verdict, PG_VERDICT_UNCHANGED);
	assert_int_equal(c.nadded, 0);
	assert_int_equal(c.nremoved, 1);
	assert_int_equal(c.ninconclusive, 3);	/* + the program's wall time */
	assert_int_equal(c.ntested, 1);
	assert_int_equal(pg_comparison_matched(&c), 1);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	pg_comparison_release(&c);

	/* the new run traced the base run's functions (--functions-of): the code's doing */
	b->meta.functions_of = strdup("base.json");
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	assert_int_equal(pg_fx_find(&c, "base_only")->verdict, PG_VERDICT_REMOVED);
	assert_int_equal(pg_fx_find(&c, "new_only")->verdict, PG_VERDICT_ADDED);
	pg_comparison_release(&c);

	/* chosen alike (the same -f, no budget): added and removed, as ever */
	a->meta.budget_pct = b->meta.budget_pct = 0;
	free(b->meta.functions_of);
	b->meta.functions_of = NULL;
	assert_int_equal(compare(a, b, NULL, &c), 0);
	assert_int_equal(c.nwarnings, 0);
	assert_int_equal(pg_fx_find(&c, "base_only")->verdict, PG_VERDICT_REMOVED);
	assert_int_equal(pg_fx_find(&c, "new_only")->verdict, PG_VERDICT_ADDED);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_regression),
		cmocka_unit_test(test_leaf_trim),
		cmocka_unit_test(test_leaf_scale),
		cmocka_unit_test(test_little_own_time),
		cmocka_unit_test(test_improvement),
		cmocka_unit_test(test_small_effects),
		cmocka_unit_test(test_added_removed),
		cmocka_unit_test(test_too_few_reps),
		cmocka_unit_test(test_different_argv),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_traced_sets),
		cmocka_unit_test(test_traced_callees_differ),
		cmocka_unit_test(test_bh_family),
		cmocka_unit_test(test_sort_order),
		cmocka_unit_test(test_calls_changed),
		cmocka_unit_test(test_wall),
		cmocka_unit_test(test_zero_ns),
		cmocka_unit_test(test_nothing_common),
		cmocka_unit_test(test_impact_negligible),
		cmocka_unit_test(test_impact_large),
		cmocka_unit_test(test_impact_boundary),
		cmocka_unit_test(test_selection_one_side),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
