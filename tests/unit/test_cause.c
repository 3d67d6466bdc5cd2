// SPDX-License-Identifier: MIT
/*
 * The cause line of a function whose code did not change (diff/cause.c), on model runs fed to
 * pg_compare(): the caller, changed ancestors, call count or wait it names, that it says
 * nothing explains a change when nothing does, and nothing at all without digests; changed
 * code sorted first; sampled functions under a traced one matched by (object, name).
 *
 * Margins: every model's noise is ~1-2% a repetition (deterministic, pg_fx_noise()); the
 * changes are +20% to +40%, and a number a line prints is checked within 5 points of the
 * model's.
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
#include "../../diff/waker.h"
#include "fixtures.h"

#define NREPS 10

static const struct pg_fcmp *entry(const struct pg_comparison *c, enum pg_origin o,
				   const char *bin, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin == o && !strcmp(c->f[i].name, name) &&
		    (!bin || !strcmp(c->f[i].binary, bin)))
			return &c->f[i];
	fail_msg("%s not in the comparison", name);
	return NULL;
}

/* The number after @lead in @s, which must hold it. */
static double number_after(const char *s, const char *lead)
{
	const char *p = strstr(s, lead);

	assert_non_null(p);
	return strtod(p + strlen(lead), NULL);
}

/*
 * main calls caller() (traced) and steady() (not traced), and each calls callee() (not
 * traced); main also runs other(). Per repetition, 1 sample a ms: @via ms of callee under
 * caller, 20 under steady, 30 in caller's own code and 40 in other, each with ~1% noise.
 * Digests: caller's @code, callee's @callee, other's different in every run (@code 0: none
 * at all).
 */
static struct pg_run *callers_run(double via, uint64_t seed, uint64_t code, uint64_t callee)
{
	const char *const names[] = { "caller" };
	struct pg_run *run = pg_fx_prog_run(names, 1, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 5;

	for (size_t r = 0; r < NREPS; r++) {
		double v = via * pg_fx_noise(&s, 0.01), st = 20 * pg_fx_noise(&s, 0.01);
		double own = 30 * pg_fx_noise(&s, 0.01), o = 40 * pg_fx_noise(&s, 0.01);
		char text[200];
		struct pg_rep *rep;

		snprintf(text, sizeof(text), "main;caller %.0f\nmain;caller;callee %.0f\n"
			 "main;other %.0f\nmain;steady;callee %.0f\n", own, v, o, st);
		rep = pg_fx_stacks(run, text);
		rep->cpu_ns = (uint64_t)((v + st + own + o) * 1e6);
		rep->wall_ns = rep->cpu_ns + 1000000;
		pg_fx_stat_each(rep, 0, 1, (v + own) * 1e6, (v + own) * 1e6);
	}
	run->funcs[0].code = code;
	if (code) {
		run->ncodes = 2;
		run->codes = calloc(2, sizeof(*run->codes));
		assert_non_null(run->codes);
		run->codes[0] = (struct pg_code){ pg_fx_strdup("callee"), callee };
		/* the builds differ: other's code in each run is its own */
		run->codes[1] = (struct pg_code){ pg_fx_strdup("other"), 0x07e4 + seed };
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * The defaults but the machine's speed not corrected: these runs of one steady machine carry
 * no reference spins, and an unknown speed would widen every interval (test_rspin.c tests
 * that); what is tested here is the cause line of a change that counts.
 */
static void compare(const struct pg_run *a, const struct pg_run *b, struct pg_comparison *c)
{
	struct pg_compare_opts o = PG_COMPARE_OPTS_DEFAULT;

	o.no_speed = true;
	pg_comparison_init(c);
	assert_int_equal(pg_compare(a, b, &o, c), 0);
}

/* caller changed and calls callee 40% more: callee's line names caller, changed, first */
static void test_changed_caller(void **state)
{
	struct pg_run *a = callers_run(50, 1, 0x11, 0xca11ee);
	struct pg_run *b = callers_run(70, 2, 0x22, 0xca11ee);
	const struct pg_fcmp *callee, *caller;
	struct pg_comparison c;
	size_t icaller = 0, icallee = 0;

	(void)state;
	compare(a, b, &c);
	callee = entry(&c, PG_ORIGIN_SAMPLED, NULL, "callee");
	caller = entry(&c, PG_ORIGIN_EXACT, NULL, "caller");
	assert_int_equal(callee->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(callee->code, PG_CODE_SAME);
	assert_int_equal(caller->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(caller->code, PG_CODE_CHANGED);
	/* callee's time under caller: 50 -> 70 ms, +40%; under steady unchanged */
	assert_true(fabs(number_after(callee->why, "called from caller (changed): its time under "
				      "caller ") - 40) < 5);
	assert_non_null(strstr(callee->why, "more often"));
	assert_null(strstr(callee->why, "candidate for noise"));
	assert_string_equal(caller->why, "");	/* its own code changed */
	/* callee's +29% (70 -> 90 ms) is larger than caller's +25% (80 -> 100 ms a call), yet
	 * changed code comes first */
	for (size_t i = 0; i < c.n; i++) {
		icaller = &c.f[i] == caller ? i : icaller;
		icallee = &c.f[i] == callee ? i : icallee;
	}
	assert_true(callee->change > caller->change);
	assert_true(icaller < icallee);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* The same, caller's code unchanged too: named, and nothing explains either */
static void test_unchanged_caller(void **state)
{
	struct pg_run *a = callers_run(50, 3, 0x11, 0xca11ee);
	struct pg_run *b = callers_run(70, 4, 0x11, 0xca11ee);
	const struct pg_fcmp *callee, *caller;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	callee = entry(&c, PG_ORIGIN_SAMPLED, NULL, "callee");
	caller = entry(&c, PG_ORIGIN_EXACT, NULL, "caller");
	assert_int_equal(callee->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(callee->why, "called from caller (unchanged): its time under"));
	assert_non_null(strstr(callee->why, "its code did not change and no changed caller or "
			       "callee, call count or wait explains it: a candidate for noise"));
	/* caller: called once a repetition on both sides, slower per call */
	assert_int_equal(caller->code, PG_CODE_SAME);
	assert_non_null(strstr(caller->why, "as often, each call +"));
	assert_non_null(strstr(caller->why, "a candidate for noise"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* callee's code changed, caller's not: caller's time holds it, which explains caller */
static void test_changed_callee(void **state)
{
	struct pg_run *a = callers_run(50, 7, 0x11, 0xca11ee), *b = callers_run(70, 8, 0x11, 0xbad);
	const struct pg_fcmp *caller;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	caller = entry(&c, PG_ORIGIN_EXACT, NULL, "caller");
	assert_int_equal(caller->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(caller->code, PG_CODE_SAME);
	assert_int_equal(entry(&c, PG_ORIGIN_SAMPLED, NULL, "callee")->code, PG_CODE_CHANGED);
	/* callee a repetition: 70 -> 90 ms, +29% */
	assert_true(fabs(number_after(caller->why, "its time holds callee (changed, not traced): ")
			 - 29) < 5);
	assert_null(strstr(caller->why, "candidate for noise"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * No caller of leaf() changed, but code above them did: per repetition, 1 sample a ms,
 * @edited ms of leaf on main;edited;u1;u2;leaf (two unchanged frames between), @fresh on
 * main;fresh;helper [i];u2;leaf (helper inlined into fresh), @steady on main;steady;u2;leaf,
 * and 30 ms in edited's own code, 10 in fresh's, 40 in other's. Digests: edited's and fresh's
 * are @code and @code + 1 (the others the same in every run; @code 0: none at all).
 */
static struct pg_run *ancestors_run(double edited, double fresh, double steady, uint64_t seed,
				    uint64_t code)
{
	/* sorted by frame, as pg_run_code() wants */
	const char *const frames[] = { "edited", "fresh", "leaf", "other", "steady", "u1", "u2" };
	struct pg_run *run = pg_fx_prog_run(NULL, 0, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 13;

	for (size_t r = 0; r < NREPS; r++) {
		double e = edited * pg_fx_noise(&s, 0.01), f = fresh * pg_fx_noise(&s, 0.01);
		double st = steady * pg_fx_noise(&s, 0.01), own = 30 * pg_fx_noise(&s, 0.01);
		double fo = 10 * pg_fx_noise(&s, 0.01), o = 40 * pg_fx_noise(&s, 0.01);
		char text[300];
		struct pg_rep *rep;

		snprintf(text, sizeof(text), "main;edited %.0f\nmain;edited;u1;u2;leaf %.0f\n"
			 "main;fresh %.0f\nmain;other %.0f\nmain;steady;u2;leaf %.0f\n", own, e,
			 fo, o, st);
		if (f > 0)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "main;fresh;helper [i];u2;leaf %.0f\n", f);
		rep = pg_fx_stacks(run, text);
		rep->cpu_ns = (uint64_t)((e + f + st + own + fo + o) * 1e6);
		rep->wall_ns = rep->cpu_ns + 1000000;
	}
	if (code) {
		run->ncodes = sizeof(frames) / sizeof(frames[0]);
		run->codes = calloc(run->ncodes, sizeof(*run->codes));
		assert_non_null(run->codes);
		for (size_t i = 0; i < run->ncodes; i++)
			run->codes[i] = (struct pg_code){ pg_fx_strdup(frames[i]), 0xc0de + i };
		run->codes[0].digest = code;
		run->codes[1].digest = code + 1;
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * leaf 72 -> 99 ms (+38%): +12 ms through edited (+24%), +10 through fresh (new), +5 through
 * steady, which no changed code reaches. Its caller, u2, holds the whole move but did not
 * change; edited's and fresh's moves are the two largest, 22 ms of 27 together (edited's 12
 * alone is under PG_CAUSE_CALLER_SHARE of it, 13.5: the line names both)
 */
static void test_changed_ancestors(void **state)
{
	struct pg_run *a = ancestors_run(50, 0, 20, 1, 0x11);
	struct pg_run *b = ancestors_run(62, 10, 25, 2, 0x22);
	const char *lead = "reached from changed code: edited (via u1) ";
	const struct pg_fcmp *leaf;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	leaf = entry(&c, PG_ORIGIN_SAMPLED, NULL, "leaf");
	assert_int_equal(leaf->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(leaf->code, PG_CODE_SAME);
	assert_int_equal(entry(&c, PG_ORIGIN_SAMPLED, NULL, "edited")->code, PG_CODE_CHANGED);
	assert_non_null(strstr(leaf->why, lead));
	assert_true(fabs(number_after(leaf->why, lead) - 24) < 5);
	/* helper, inlined into fresh, is fresh's code: fresh called u2 */
	assert_non_null(strstr(leaf->why, "%, fresh (via u2) new"));
	assert_null(strstr(leaf->why, "steady"));
	assert_null(strstr(leaf->why, "candidate for noise"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * The same moves, but only other's code changed: no changed code reaches leaf, which is still
 * a candidate for noise under its unchanged caller
 */
static void test_no_changed_ancestor(void **state)
{
	struct pg_run *a = ancestors_run(50, 0, 20, 3, 0x11);
	struct pg_run *b = ancestors_run(62, 10, 25, 4, 0x11);
	const struct pg_fcmp *leaf;
	struct pg_comparison c;

	(void)state;
	b->codes[3].digest = 0x07e4;	/* other: the builds differ */
	compare(a, b, &c);
	leaf = entry(&c, PG_ORIGIN_SAMPLED, NULL, "leaf");
	assert_int_equal(leaf->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(leaf->why, "called from u2 (unchanged): its time under u2 +"));
	assert_null(strstr(leaf->why, "reached from"));
	assert_non_null(strstr(leaf->why, "a candidate for noise"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* No digests (older files): no cause line, whatever changed */
static void test_no_digests(void **state)
{
	struct pg_run *a = callers_run(50, 5, 0, 0), *b = callers_run(70, 6, 0, 0);
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	assert_int_equal(entry(&c, PG_ORIGIN_SAMPLED, NULL, "callee")->verdict,
			 PG_VERDICT_REGRESSION);
	for (size_t i = 0; i < c.n; i++)
		assert_string_equal(c.f[i].why, "");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * The builds differ only in a frame no entry compares (too small a share to be judged, as
 * leveldb's changed BlockBuilder methods under BuildTable): caller, same code and slower
 * through callee (same code too), still gets a line
 */
static void test_uncompared_change(void **state)
{
	struct pg_run *r[2] = { callers_run(50, 9, 0x11, 0xca11ee),
				callers_run(70, 10, 0x11, 0xca11ee) };
	const struct pg_fcmp *caller;
	struct pg_comparison c;

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct pg_code *v = realloc(r[k]->codes, 3 * sizeof(*v));

		assert_non_null(v);
		r[k]->codes = v;
		r[k]->ncodes = 3;
		v[1].digest = 0x07e4;			/* other: the same in both */
		v[2] = (struct pg_code){ pg_fx_strdup("zz_unsampled"), 0x100 + k };
	}
	compare(r[0], r[1], &c);
	for (size_t i = 0; i < c.n; i++)
		assert_int_not_equal(c.f[i].code, PG_CODE_CHANGED);
	caller = entry(&c, PG_ORIGIN_EXACT, NULL, "caller");
	assert_int_equal(caller->verdict, PG_VERDICT_REGRESSION);
	assert_string_not_equal(caller->why, "");
	pg_comparison_release(&c);
	pg_run_free(r[0]);
	pg_run_free(r[1]);
}

/*
 * Two traced functions: work(), same code, @calls calls a repetition of @ms ms each, of which
 * @blocked ms blocked (the run measured off-CPU time when @blocked >= 0); and edited(), 1 ms
 * once a repetition, whose code is @edited (the builds differ when the runs' do). No samples.
 */
static struct pg_run *work_run(uint64_t calls, double ms, double blocked, uint64_t seed,
			       uint64_t edited)
{
	const char *const names[] = { "edited", "work" };
	struct pg_run *run = pg_fx_prog_run(names, 2, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 9;

	run->meta.offcpu = blocked >= 0;
	run->funcs[0].code = edited;
	run->funcs[1].code = 0xf00d;
	for (size_t r = 0; r < NREPS; r++) {
		double off = blocked > 0 ? blocked : 0;
		double per = (ms - off) * pg_fx_noise(&s, 0.01) + off;
		uint64_t wall = (uint64_t)(per * 1e6 * (double)calls) + 1000000;
		struct pg_rep *rep = pg_fx_rep(run, wall + 1000000);
		struct pg_fstat *st;

		pg_fx_stat_each(rep, 0, 1, 1e6, 1e6);
		st = pg_fx_stat_each(rep, 1, calls, per * 1e6, per * 1e6);

		if (blocked > 0)
			st->offcpu_ns = st->self_offcpu_ns = (uint64_t)(blocked * 1e6 *
									(double)calls);
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/*
 * Exact call counts: 40% more calls, each 20% slower; as many calls, each 30% slower; and the
 * latter between two runs of one build: no line
 */
static void test_calls(void **state)
{
	struct pg_run *a = work_run(10, 1, -1, 1, 0xa), *b = work_run(14, 1.2, -1, 2, 0xb);
	struct pg_run *d = work_run(10, 1.3, -1, 3, 0xb), *e = work_run(10, 1.3, -1, 3, 0xa);
	const struct pg_fcmp *w;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_int_equal(w->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(number_after(w->why, "called ") - 40) < 0.5);	/* exact */
	assert_non_null(strstr(w->why, "% more often, each call +"));
	assert_true(fabs(number_after(w->why, "each call ") - 20) < 5);
	assert_null(strstr(w->why, "candidate for noise"));
	pg_comparison_release(&c);

	compare(a, d, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_int_equal(w->verdict, PG_VERDICT_REGRESSION);
	assert_true(fabs(number_after(w->why, "as often, each call ") - 30) < 5);
	assert_non_null(strstr(w->why, "a candidate for noise"));
	pg_comparison_release(&c);

	compare(a, e, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_int_equal(w->verdict, PG_VERDICT_REGRESSION);
	assert_string_equal(w->why, "");
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
	pg_run_free(d);
	pg_run_free(e);
}

/*
 * Off-CPU: 10 ms a call, none of it blocked, against 11 ms of which 1 ms blocked (+10%, all of
 * it blocked; the blocked share over both runs, 1/21, is under PG_SPLIT_BLOCKED, so self time
 * judges it)
 */
static void test_blocked(void **state)
{
	struct pg_run *a = work_run(10, 10, 0, 4, 0xa), *b = work_run(10, 11, 1, 5, 0xb);
	const struct pg_fcmp *w;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_int_equal(w->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(w->why, "its extra time is blocked (off-CPU +"));
	assert_true(fabs(number_after(w->why, "off-CPU ") - 10) < 2);
	assert_non_null(strstr(w->why, "waiting on another process or I/O"));
	assert_null(strstr(w->why, "candidate for noise"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/*
 * Give each repetition of @run one off-CPU stack under work, blocked @ms a repetition in all:
 * @other ms of it woken by "redis-server", @irq ms from an interrupt, the rest not seen.
 */
static void add_wakers(struct pg_run *run, double ms, double other, double irq)
{
	for (size_t r = 0; r < run->nreps; r++) {
		struct pg_rep *rep = &run->reps[r];

		rep->noffcpu = 1;
		rep->offcpu = calloc(1, sizeof(*rep->offcpu));
		rep->offcpu[0].folded = strdup("main;work;read;pipe_read [k]");
		rep->offcpu[0].count = (uint64_t)(ms * 1e6);
		rep->woken = calloc(2, sizeof(*rep->woken));
		rep->woken[rep->nwoken++] = (struct pg_woken){ 0, PG_WOKEN_OTHER,
			strdup("redis-server"), (uint64_t)(other * 1e6) };
		rep->woken[rep->nwoken++] = (struct pg_woken){ 0, PG_WOKEN_IRQ, strdup(""),
			(uint64_t)(irq * 1e6) };
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

/*
 * The same with who woke it: blocked 1 ms a call more, 10 ms a repetition, of which
 * redis-server woke 8 ms: the clause names it (8 of 10 is over PG_WAKER_SHARE); with the move
 * split, 4 ms by redis-server and 6 ms not seen, it names none
 */
static void test_blocked_waker(void **state)
{
	struct pg_run *a = work_run(10, 10, 0, 4, 0xa), *b = work_run(10, 11, 1, 5, 0xb);
	const struct pg_fcmp *w;
	struct pg_comparison c;

	(void)state;
	add_wakers(a, 5, 2, 3);
	add_wakers(b, 15, 10, 3);
	compare(a, b, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_int_equal(w->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(w->why, "its extra time is blocked (off-CPU +"));
	assert_non_null(strstr(w->why, "): waiting on redis-server (another process), +8.0 ms a "
				      "repetition"));
	assert_int_equal(w->waker.kind, PG_WOKEN_OTHER);
	assert_string_equal(w->waker.comm, "redis-server");
	assert_float_equal(w->waker.base_ns, 2e6, 1);
	assert_float_equal(w->waker.new_ns, 10e6, 1);
	pg_comparison_release(&c);
	pg_run_free(b);

	b = work_run(10, 11, 1, 5, 0xb);
	add_wakers(b, 15, 6, 3);
	compare(a, b, &c);
	w = entry(&c, PG_ORIGIN_EXACT, NULL, "work");
	assert_non_null(strstr(w->why, "waiting on another process or I/O"));
	assert_int_equal(w->waker.kind, 0);
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

/* The waker's words, of each kind; a move under 0.1 ms in microseconds */
static void test_waker_words(void **state)
{
	struct pg_waker_move w = { PG_WOKEN_SAME, "zstd", 1e6, 4.1e6 };
	char buf[160];

	(void)state;
	pg_waker_words(&w, buf, sizeof(buf));
	assert_string_equal(buf, "waiting on its own threads (zstd), +3.1 ms a repetition");
	w = (struct pg_waker_move){ PG_WOKEN_OTHER, "redis-server", 5e6, 4.9e6 };
	pg_waker_words(&w, buf, sizeof(buf));
	assert_string_equal(buf, "waiting on redis-server (another process), -0.1 ms a repetition");
	w = (struct pg_waker_move){ PG_WOKEN_IRQ, "", 5e6, 5.04e6 };
	pg_waker_words(&w, buf, sizeof(buf));
	assert_string_equal(buf, "waiting on I/O or a timer (woken from an interrupt), +40 us a "
			    "repetition");
	w.kind = PG_WOKEN_KERNEL;
	pg_waker_words(&w, buf, sizeof(buf));
	assert_string_equal(buf, "waiting on the kernel (woken by a kernel thread), +40 us a "
			    "repetition");
}

/*
 * A server and its load generator, each with a traced loop(); lookup() (not traced) runs
 * under the server's only: main;loop;lookup. Per repetition, 1 sample a ms: @lookup ms in
 * lookup, 5 in the server's loop's own code, @client ms in the client's loop.
 */
static struct pg_run *loops_run(double lookup, double client, uint64_t seed)
{
	struct pg_run *run = pg_fx_prog_run(NULL, 0, 0);
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 11;

	pg_fx_func(run, "/b/server", "loop", NULL, PG_SITE_NOP5);
	pg_fx_func(run, "/b/client", "loop", NULL, PG_SITE_NOP5);
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/b/server"), 0);
	assert_int_equal(pg_strv_push(&run->objects, &run->nobjects, "/b/client"), 0);
	for (size_t r = 0; r < NREPS; r++) {
		double l = lookup * pg_fx_noise(&s, 0.01), sv = 5 * pg_fx_noise(&s, 0.01);
		double cl = client * pg_fx_noise(&s, 0.01);
		uint64_t nl, ns, nc;
		char text[100];
		struct pg_rep *rep;

		snprintf(text, sizeof(text), "main;loop %.0f\nmain;loop;lookup %.0f\n", sv + cl, l);
		rep = pg_fx_stacks(run, text);
		nl = (uint64_t)llround(l);
		ns = (uint64_t)llround(sv);
		nc = (uint64_t)llround(sv + cl) - ns;
		rep->cpu_ns = (uint64_t)((l + sv + cl) * 1e6);
		rep->wall_ns = rep->cpu_ns + 1000000;
		pg_fx_stat_each(rep, 0, 1, (l + sv) * 1e6, (l + sv) * 1e6);
		pg_fx_stat_each(rep, 1, 1, cl * 1e6, cl * 1e6);
		rep->own = calloc(3, sizeof(*rep->own));
		assert_non_null(rep->own);
		rep->own[0] = (struct pg_own){ 0, 0, pg_fx_strdup("lookup"), nl };
		rep->own[1] = (struct pg_own){ 0, 0, pg_fx_strdup("loop"), ns };
		rep->own[2] = (struct pg_own){ 1, 1, pg_fx_strdup("loop"), nc };
		rep->nown = 3;
	}
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
	return run;
}

/* Both loops slower, lookup +30%: it is under the server's loop, never the client's */
static void test_under_by_object(void **state)
{
	struct pg_run *a = loops_run(50, 40, 1), *b = loops_run(65, 52, 2);
	const struct pg_fcmp *srv, *cli, *lookup;
	struct pg_comparison c;

	(void)state;
	compare(a, b, &c);
	srv = entry(&c, PG_ORIGIN_EXACT, "server", "loop");
	cli = entry(&c, PG_ORIGIN_EXACT, "client", "loop");
	lookup = entry(&c, PG_ORIGIN_SAMPLED, "server", "lookup");
	assert_int_equal(srv->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(cli->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(lookup->verdict, PG_VERDICT_REGRESSION);
	assert_non_null(strstr(srv->explain, "sampled under it: lookup +"));
	assert_null(strstr(cli->explain, "lookup"));
	pg_comparison_release(&c);
	pg_run_free(a);
	pg_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changed_caller),
		cmocka_unit_test(test_unchanged_caller),
		cmocka_unit_test(test_changed_callee),
		cmocka_unit_test(test_changed_ancestors),
		cmocka_unit_test(test_no_changed_ancestor),
		cmocka_unit_test(test_no_digests),
		cmocka_unit_test(test_uncompared_change),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_blocked_waker),
		cmocka_unit_test(test_waker_words),
		cmocka_unit_test(test_under_by_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
