// SPDX-License-Identifier: MIT
/*
 * What pg_compare() judges beyond the traced functions: functions of the sampled profile
 * (diff/sampled.c), the whole program's CPU time (diff/program.c), and the overall verdict's
 * need for evidence, on model runs whose stacks and CPU times are known.
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

#include "../../core/run.h"
#include "../../core/strv.h"
#include "../../diff/compare.h"
#include "../../formats/result.h"
#include "fixtures.h"

/*
 * A model program of @nreps repetitions: main calls traced() once, which runs the untraced
 * leaf (its self samples "main;traced;leaf") and some code of its own; main also runs other()
 * (untraced). Per repetition: @leaf ms in leaf, 40 ms in other, 5 ms in traced's own code,
 * each with ~2% noise, all of it times k[r] (@k NULL: 1); 1 sample a ms. traced's exact self
 * time holds its own code and leaf.
 */
static struct pg_run *model(double leaf, double other, size_t nreps, uint64_t seed, bool trace,
			    const double *k)
{
	const char *const names[] = { "traced" };
	struct pg_run *run = pg_fx_prog_run(names, trace ? 1 : 0, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 3;

	for (size_t r = 0; r < nreps; r++) {
		double m = k ? k[r] : 1;
		double l = m * leaf * pg_fx_noise(&s, 0.02), o = m * other * pg_fx_noise(&s, 0.02);
		double t = m * 5 * pg_fx_noise(&s, 0.02);
		char text[200];
		struct pg_rep *rep;

		snprintf(text, sizeof(text),
			 "main;other %.0f\nmain;traced %.0f\nmain;traced;leaf %.0f\n", o, t, l);
		rep = pg_fx_stacks(run, text);
		rep->wall_ns = (uint64_t)((l + o + t + 1) * 1e6);
		rep->cpu_ns = (uint64_t)((l + o + t) * 1e6);
		if (trace)
			pg_fx_stat_each(rep, 0, 1, (l + t) * 1e6, (l + t) * 1e6);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* The defaults but the machine's speed, not corrected: these runs of one steady machine have no
 * witness of its speed (no reference spins), whose unknown speed would widen every interval */
static int compare_metric(const struct pg_run *a, const struct pg_run *b, enum pg_metric m,
			  struct pg_comparison *c)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

	o.no_speed = true;
	o.metric = m;
	pg_comparison_init(c);
	return pg_compare(a, b, &o, c);
}

static int compare(const struct pg_run *a, const struct pg_run *b, struct pg_comparison *c)
{
	return compare_metric(a, b, PG_METRIC_SELF, c);
}

static const struct pg_fcmp *find(const struct pg_comparison *c, enum pg_origin o,
				  const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin == o && !strcmp(c->f[i].name, name))
			return &c->f[i];
	return NULL;
}

/* The JSON result keeps what the reports need: origin, samples, explain, what was judged. */
static void round_trip(const struct pg_comparison *c)
{
	char path[] = "/tmp/pg-judged-XXXXXX";
	struct pg_comparison r;
	struct pg_run b, n;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	pg_comparison_init(&r);
	pg_run_init(&b);
	pg_run_init(&n);
	assert_int_equal(pg_result_write(c, NULL, NULL, path), 0);
	assert_int_equal(pg_result_read(path, false, &r, &b, &n), 0);
	unlink(path);
	assert_int_equal(r.n, c->n);
	for (size_t i = 0; i < c->n; i++) {
		assert_int_equal(r.f[i].origin, c->f[i].origin);
		assert_int_equal(r.f[i].samples, c->f[i].samples);
		assert_string_equal(r.f[i].explain, c->f[i].explain);
		assert_string_equal(r.f[i].why, c->f[i].why);
		assert_int_equal(r.f[i].code, c->f[i].code);
	}
	assert_int_equal(r.ncode_changed, c->ncode_changed);
	assert_int_equal(r.nsampled, c->nsampled);
	assert_int_equal(r.njudged_exact, c->njudged_exact);
	assert_int_equal(r.njudged_sampled, c->njudged_sampled);
	assert_int_equal(r.program_judged, c->program_judged);
	assert_true(fabs(r.judged_share - c->judged_share) < 1e-9);
	assert_int_equal(r.nunjudged, c->nunjudged);
	for (size_t i = 0; i < c->nunjudged; i++) {
		assert_string_equal(r.unjudged[i].binary, c->unjudged[i].binary);
		assert_string_equal(r.unjudged[i].name, c->unjudged[i].name);
		assert_true(fabs(r.unjudged[i].share - c->unjudged[i].share) < 1e-9);
		assert_true(fabs(r.unjudged[i].per_rep - c->unjudged[i].per_rep) < 1e-9);
	}
	pg_comparison_release(&r);
	pg_run_release(&b);
	pg_run_release(&n);
}

/*
 * A server and its load generator, each with its own loop() that holds an inlined mix(): the
 * stacks cannot tell the two loops apart ("main;loop;mix [i]"), their own samples can. Per
 * repetition @srv ms in the server's loop, 40 ms in the client's, 1 sample a ms; with @own
 * false the run has no own samples (a file of before).
 */
static struct pg_run *two_loops(double srv, size_t nreps, uint64_t seed, bool own)
{
	struct pg_run *run = pg_fx_prog_run(NULL, 0, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 7;

	if (own) {
		assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/b/server"), 0);
		assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/b/client"), 0);
	}
	for (size_t r = 0; r < nreps; r++) {
		double a = srv * pg_fx_noise(&s, 0.02), b = 40 * pg_fx_noise(&s, 0.02);
		char text[100];
		struct pg_rep *rep;

		snprintf(text, sizeof(text), "main;loop;mix [i] %.0f\n", a + b);
		rep = pg_fx_stacks(run, text);
		rep->cpu_ns = rep->wall_ns = (uint64_t)((a + b) * 1e6);
		if (!own)
			continue;
		rep->own = calloc(2, sizeof(*rep->own));
		assert_non_null(rep->own);
		rep->own[0] = (struct pg_own){ 0, 0, strdup("loop"), (uint64_t)(a + 0.5) };
		rep->own[1] = (struct pg_own){ 1, 1, strdup("loop"), rep->stacks[0].count -
					       (uint64_t)(a + 0.5) };
		rep->nown = 2;
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* The server's loop 30% slower: it alone is named, in its object; mix is never a function */
static void test_own_samples(void **state)
{
	struct pg_run *a = two_loops(50, 10, 1, true), *b = two_loops(65, 10, 2, true);
	struct pg_run *oa = two_loops(50, 10, 1, false), *ob = two_loops(65, 10, 2, false);
	const struct pg_fcmp *srv = NULL, *cli = NULL;
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	assert_int_equal(c.nsampled, 2);
	for (size_t i = 0; i < c.n; i++) {
		if (c.f[i].origin != PG_ORIGIN_SAMPLED)
			continue;
		assert_string_equal(c.f[i].name, "loop");
		if (!strcmp(c.f[i].binary, "server"))
			srv = &c.f[i];
		else if (!strcmp(c.f[i].binary, "client"))
			cli = &c.f[i];
	}
	assert_non_null(srv);
	assert_non_null(cli);
	assert_int_equal(srv->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(srv->change - 0.3) < 0.05);
	assert_int_equal(cli->verdict, PG_VERDICT_UNCHANGED);
	/*
	 * the stacks cannot tell the server's mix from the client's: no inlined function explains
	 * it (pooled over both loops, mix would read +16.7%, not the server's +30%)
	 */
	assert_null(strstr(srv->explain, "of which"));
	round_trip(&c);
	pg_comparison_release(&c);
	/* without own samples: the stacks' function, not its inlined frame, one entry */
	assert_int_equal(compare(oa, ob, &c), 0);
	assert_int_equal(c.nsampled, 1);
	assert_non_null(find(&c, PG_ORIGIN_SAMPLED, "loop"));
	assert_string_equal(find(&c, PG_ORIGIN_SAMPLED, "loop")->binary, "");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(oa);
	pg_run_free(ob);
}

/*
 * Inclusive samples for two_loops(): each program's loop and main hold its samples, and so
 * does libc's __libc_start_main, shared by both programs' processes.
 */
static void add_incl(struct pg_run *run)
{
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/lib/libc.so.6"), 0);
	for (size_t r = 0; r < run->nreps; r++) {
		struct pg_rep *rep = &run->reps[r];
		uint64_t a = rep->own[0].count, b = rep->own[1].count;
		const struct pg_own v[] = {
			{ 0, 0, "loop", a }, { 0, 0, "main", a }, { 1, 1, "loop", b },
			{ 1, 1, "main", b }, { 2, 0, "__libc_start_main", a },
			{ 2, 1, "__libc_start_main", b },
		};

		rep->incl = calloc(6, sizeof(*rep->incl));
		assert_non_null(rep->incl);
		for (size_t i = 0; i < 6; i++) {
			rep->incl[i] = v[i];
			rep->incl[i].frame = strdup(v[i].frame);
		}
		rep->nincl = 6;
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

/*
 * --metric total with inclusive samples: the server's loop and the client's are two functions
 * in their objects, libc's in each program's processes another two; only the server's loop
 * (and main, which holds it) 30% slower. Without inclusive samples on one side: the stacks,
 * by name alone, no object.
 */
static void test_incl_samples(void **state)
{
	struct pg_run *a = two_loops(50, 10, 1, true), *b = two_loops(65, 10, 2, true);
	struct pg_run *ob = two_loops(65, 10, 2, true);
	const char *const want[][2] = {
		{ "loop", "server" }, { "loop", "client" }, { "main", "server" },
		{ "main", "client" }, { "__libc_start_main", "libc.so.6 (server)" },
		{ "__libc_start_main", "libc.so.6 (client)" },
	};
	const struct pg_fcmp *f[6] = { NULL };
	struct pg_comparison c;

	(void)state;
	add_incl(a);
	add_incl(b);
	assert_int_equal(compare_metric(a, b, PG_METRIC_TOTAL, &c), 0);
	assert_int_equal(c.nsampled, 6);
	for (size_t i = 0; i < c.n; i++)
		for (size_t k = 0; k < 6 && c.f[i].origin == PG_ORIGIN_SAMPLED; k++)
			if (!strcmp(c.f[i].name, want[k][0]) &&
			    !strcmp(c.f[i].binary, want[k][1]))
				f[k] = &c.f[i];
	for (size_t k = 0; k < 6; k++)
		assert_non_null(f[k]);
	/* the server's side: 50 of 90 ms a repetition, 30% more of it (noise 2%) */
	assert_int_equal(f[0]->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(f[0]->change - 0.3) < 0.05);
	assert_int_equal(f[1]->verdict, PG_VERDICT_UNCHANGED);
	assert_int_equal(f[2]->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(f[4]->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(f[5]->verdict, PG_VERDICT_UNCHANGED);
	round_trip(&c);
	pg_comparison_release(&c);
	/* the new run from before inclusive samples: the stacks' frames, no object */
	assert_int_equal(compare_metric(a, ob, PG_METRIC_TOTAL, &c), 0);
	assert_int_equal(c.nsampled, 2);	/* main and loop; mix is inlined */
	assert_string_equal(find(&c, PG_ORIGIN_SAMPLED, "loop")->binary, "");
	assert_string_equal(find(&c, PG_ORIGIN_SAMPLED, "main")->binary, "");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(ob);
}

/* leaf 30% slower: a sampled regression; traced's exact self time grows, explained by it */
static void test_sampled_regression(void **state)
{
	struct pg_run *a = model(50, 40, 10, 1, true, NULL), *b = model(65, 40, 10, 2, true, NULL);
	const struct pg_fcmp *leaf, *other, *traced, *cpu;
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	leaf = find(&c, PG_ORIGIN_SAMPLED, "leaf");
	other = find(&c, PG_ORIGIN_SAMPLED, "other");
	traced = find(&c, PG_ORIGIN_EXACT, "traced");
	cpu = find(&c, PG_ORIGIN_PROGRAM, PG_PROGRAM_CPU);
	assert_non_null(leaf);
	assert_non_null(other);
	assert_non_null(traced);
	assert_non_null(cpu);
	/* a traced function is judged exactly, never from its samples */
	assert_null(find(&c, PG_ORIGIN_SAMPLED, "traced"));
	assert_int_equal(c.nsampled, 2);	/* leaf and other: main has no self samples */
	assert_int_equal(leaf->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(leaf->change - 0.3) < 0.05);
	assert_string_equal(leaf->binary, "");	/* no own samples: no object */
	assert_true(leaf->samples > 1000 && leaf->samples < 1200);
	assert_int_equal(other->verdict, PG_VERDICT_UNCHANGED);
	/* traced's self time (its code and leaf) grew: the explanation names leaf */
	assert_int_equal(traced->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(traced->explain, "sampled under it: leaf +"));
	/* the program: +15/95, explained by leaf, not twice by leaf and traced */
	assert_int_equal(cpu->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(cpu->change - 15.0 / 95) < 0.03);
	assert_non_null(strstr(cpu->explain, "traced +"));
	assert_null(strstr(cpu->explain, "leaf +"));
	assert_non_null(strstr(cpu->explain, "unexplained"));
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	assert_int_equal(c.njudged_exact, 1);
	assert_int_equal(c.njudged_sampled, 2);
	assert_true(c.program_judged);
	/* a sequential look keeps sampled and program verdicts as it keeps exact ones */
	assert_false(pg_comparison_undecided(&c));
	round_trip(&c);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Untraced, unchanged: a pass on the program's CPU time and the sampled functions. */
/* Give @run code digests: traced's @traced, the frames leaf's @leaf and other's @other. */
static void set_codes(struct pg_run *run, uint64_t traced, uint64_t leaf, uint64_t other)
{
	run->funcs[0].code = traced;
	run->ncodes = 2;
	run->codes = calloc(2, sizeof(*run->codes));
	run->codes[0].frame = strdup("leaf");
	run->codes[0].digest = leaf;
	run->codes[1].frame = strdup("other");
	run->codes[1].digest = other;
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

/* Whose machine code changed: exact and sampled entries, kept by the JSON result */
static void test_code_compared(void **state)
{
	struct pg_run *a = model(50, 40, 10, 1, true, NULL), *b = model(65, 40, 10, 2, true, NULL);
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);	/* runs of older files: nothing known */
	assert_int_equal(find(&c, PG_ORIGIN_SAMPLED, "leaf")->code, PG_CODE_UNKNOWN);
	assert_int_equal(find(&c, PG_ORIGIN_EXACT, "traced")->code, PG_CODE_UNKNOWN);
	assert_int_equal(c.ncode_changed, 0);
	pg_comparison_release(&c);
	set_codes(a, 0x11, 0x22, 0x33);
	set_codes(b, 0x44, 0x22, 0x55);
	assert_int_equal(compare(a, b, &c), 0);
	assert_int_equal(find(&c, PG_ORIGIN_EXACT, "traced")->code, PG_CODE_CHANGED);
	assert_int_equal(find(&c, PG_ORIGIN_SAMPLED, "leaf")->code, PG_CODE_SAME);
	assert_int_equal(find(&c, PG_ORIGIN_SAMPLED, "other")->code, PG_CODE_CHANGED);
	assert_int_equal(find(&c, PG_ORIGIN_PROGRAM, PG_PROGRAM_CPU)->code, PG_CODE_UNKNOWN);
	assert_int_equal(c.ncode_changed, 2);
	round_trip(&c);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

static void test_untraced_pass(void **state)
{
	struct pg_run *a = model(50, 40, 10, 3, false, NULL);
	struct pg_run *b = model(50, 40, 10, 4, false, NULL);
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	assert_int_equal(c.njudged_exact, 0);
	assert_true(c.njudged_sampled >= 2);
	assert_true(c.program_judged);
	assert_true(c.judged_share > 0.9 && c.judged_share <= 1);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* Nothing judged: every function and the program too noisy: inconclusive, not a pass. */
static void test_nothing_judged(void **state)
{
	/* every repetition's time 0.5x or 2x, alike on both sides: nothing can rule out 5% */
	static const double ka[] = { 0.5, 2, 2, 0.5, 0.5, 2, 2, 0.5 };
	static const double kb[] = { 2, 0.5, 0.5, 2, 2, 0.5, 0.5, 2 };
	struct pg_run *a = model(50, 40, 8, 5, true, ka), *b = model(50, 40, 8, 6, true, kb);
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	assert_true(c.ntested > 0);
	assert_int_equal(c.njudged_exact + c.njudged_sampled, 0);
	assert_false(c.program_judged);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_non_null(strstr(c.overall_reason, "nothing could be judged"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * An untraced function too rare to be judged from its samples (other: ~5 a repetition, under
 * PG_SAMPLED_MIN_SAMPLES) gets no entry, but is named as unjudged with its share, when that
 * share is PG_SAMPLED_SHOW_SHARE or more: 5 of ~60 samples (8%) is; 5 of ~1010 (0.5%) is not.
 */
static void test_unjudged_named(void **state)
{
	struct pg_run *a = model(50, 5, 10, 9, true, NULL), *b = model(50, 5, 10, 10, true, NULL);
	struct pg_run *la = model(1000, 5, 10, 11, true, NULL);
	struct pg_run *lb = model(1000, 5, 10, 12, true, NULL);
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	assert_null(find(&c, PG_ORIGIN_SAMPLED, "other"));
	assert_non_null(find(&c, PG_ORIGIN_SAMPLED, "leaf"));
	assert_int_equal(c.nunjudged, 1);
	assert_string_equal(c.unjudged[0].name, "other");
	assert_string_equal(c.unjudged[0].binary, "");	/* no own samples: no object */
	/* 5 of 60 a repetition, each count within +-1 of it by the 2% noise and rounding */
	assert_true(c.unjudged[0].share > 4.0 / 61 && c.unjudged[0].share < 6.0 / 59);
	assert_true(c.unjudged[0].per_rep >= 4 && c.unjudged[0].per_rep <= 6);
	round_trip(&c);
	pg_comparison_release(&c);
	assert_int_equal(compare(la, lb, &c), 0);
	assert_null(find(&c, PG_ORIGIN_SAMPLED, "other"));
	assert_int_equal(c.nunjudged, 0);	/* 0.5% of the samples: below the share shown */
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(la);
	pg_run_free(lb);
}

/*
 * Sixteen small untraced functions beside a traced one: per repetition 60 ms in traced (its
 * exact self time), 2.5 ms in each spread_N, each under PG_SAMPLED_MIN_SAMPLES samples (1 a
 * ms): too rare to judge; all ~2% noise. @slow: the spread functions' factor.
 */
static struct pg_run *spread_model(double slow, uint64_t seed)
{
	const char *const names[] = { "traced" };
	struct pg_run *run = pg_fx_prog_run(names, 1, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 11;

	for (size_t r = 0; r < 10; r++) {
		double t = 60 * pg_fx_noise(&s, 0.02), all = t;
		char text[1024];
		size_t len = (size_t)snprintf(text, sizeof(text), "main;traced %.0f\n", t);
		struct pg_rep *rep;

		for (int i = 0; i < 16; i++) {
			double v = 2.5 * slow * pg_fx_noise(&s, 0.02);

			all += v;
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"main;spread_%d %.0f\n", i, v);
		}
		rep = pg_fx_stacks(run, text);
		rep->wall_ns = (uint64_t)((all + 1) * 1e6);
		rep->cpu_ns = (uint64_t)(all * 1e6);
		pg_fx_stat_each(rep, 0, 1, t * 1e6, t * 1e6);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * Judged functions holding 60% of the CPU time, unchanged, and the rest, nothing judged, 12.5%
 * slower: the program +5% by the 5% minimum effect, surely slower but not surely by it. The
 * judged share's argument (a regression of the rest would show in the program) does not hold
 * here: inconclusive, not a pass. Unchanged, the same share passes.
 */
static void test_slower_unseen(void **state)
{
	struct pg_run *a = spread_model(1, 13), *b = spread_model(1.125, 14);
	struct pg_run *a2 = spread_model(1, 15);
	const struct pg_fcmp *p;
	struct pg_comparison c;

	(void)state;
	assert_int_equal(compare(a, b, &c), 0);
	p = find(&c, PG_ORIGIN_PROGRAM, PG_PROGRAM_CPU);
	assert_non_null(p);
	assert_int_equal(p->verdict, PG_VERDICT_INCONCLUSIVE);
	assert_true(p->ci_lo > 0 && p->ci_hi > 0.05);
	assert_int_equal(c.njudged_exact, 1);
	assert_true(c.judged_share > 0.5);
	assert_int_equal(c.overall, PG_OVERALL_INCONCLUSIVE);
	assert_non_null(strstr(c.overall_reason, "the program's CPU time is slower"));
	assert_non_null(strstr(c.overall_reason, "not surely by the 5% that counts"));
	pg_comparison_release(&c);
	assert_int_equal(compare(a, a2, &c), 0);
	assert_int_equal(c.overall, PG_OVERALL_PASS);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(a2);
}

/* Old run files: no CPU time, no sampled or program CPU verdicts, the share unknown. */
static void test_no_cpu_time(void **state)
{
	struct pg_run *a = model(50, 40, 10, 7, true, NULL), *b = model(50, 40, 10, 8, true, NULL);
	struct pg_comparison c;

	(void)state;
	for (size_t r = 0; r < 10; r++)
		a->reps[r].cpu_ns = b->reps[r].cpu_ns = 0;
	assert_int_equal(compare(a, b, &c), 0);
	assert_int_equal(c.nsampled, 0);
	assert_null(find(&c, PG_ORIGIN_PROGRAM, PG_PROGRAM_CPU));
	assert_non_null(find(&c, PG_ORIGIN_PROGRAM, PG_PROGRAM_WALL));
	assert_true(isnan(c.judged_share));
	assert_int_equal(c.overall, PG_OVERALL_PASS);	/* traced judged, unchanged */
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_regression),
		cmocka_unit_test(test_own_samples),
		cmocka_unit_test(test_incl_samples),
		cmocka_unit_test(test_code_compared),
		cmocka_unit_test(test_untraced_pass),
		cmocka_unit_test(test_nothing_judged),
		cmocka_unit_test(test_slower_unseen),
		cmocka_unit_test(test_no_cpu_time),
		cmocka_unit_test(test_unjudged_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
