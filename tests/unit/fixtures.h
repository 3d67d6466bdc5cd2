/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/fixtures.h - builders of runs and comparisons for the cmocka tests. Include it
 * after cmocka.h (every builder fails the test with a cmocka assertion instead of returning an
 * error).
 *
 * Runs: a test owns its struct pg_run (pg_run_init() or pg_run_new()) and adds to it:
 *   pg_fx_func()     a function at 0x1000 (pg_fx_func_at() to choose address, offset, endbr)
 *   pg_fx_rep()      a repetition of @wall_ns, exit code 0
 *   pg_fx_stat()     a function's stat in a repetition from its calls' durations, one by one
 *                    (calls, total, min, max, histogram; self_ns = total_ns: a leaf)
 *   pg_fx_stat_each() @calls calls of one duration each (a model program's noise-free stat)
 *   pg_fx_stacks()   a repetition whose sampled stacks are folded text ("m;a 10\nm;b 2\n")
 *   pg_fx_uniform(), pg_fx_noise()  deterministic noise (xorshift64*) for timings
 *   pg_fx_find()     a function's entry in a comparison
 * Ids and stats go in increasing order, as pg_rep_add_stat() wants. The result of
 * pg_fx_stat*() is the stat, for the test to set what it needs besides (self_ns of a caller,
 * desc[], probe times).
 *
 *	struct pg_rep *rep;
 *	static const uint64_t v[] = { 100, 200 };
 *
 *	pg_run_init(&run);
 *	pg_fx_func(&run, "/bin/prog", "foo", NULL, PG_SITE_NOP5);	// id 0
 *	rep = pg_fx_rep(&run, 1000000);
 *	pg_fx_stat(rep, 0, v, 2)->self_ns -= 50;	// 50 ns in foo's children
 *
 * Comparisons: struct pg_fx_compare is a hand-built comparison (no pg_compare()) with one
 * function of every verdict, special characters, a bad UTF-8 binary and a long C++ name, the
 * two runs it came from (metadata and 10 repetitions, no functions), and a temporary
 * directory with the paths the compare writers' tests write to. pg_fx_compare_setup() and
 * pg_fx_compare_teardown() are cmocka setup and teardown functions; the teardown fails when a
 * writer left a file other than fx->xml or fx->json behind.
 */
#ifndef PG_TEST_FIXTURES_H
#define PG_TEST_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/folded.h"
#include "../../core/log.h"
#include "../../core/run.h"
#include "../../diff/compare.h"

/* ---- runs ---- */

/* xorshift64*: a deterministic uniform number in [0, 1) from the state *@s (not 0) */
static inline double pg_fx_uniform(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* about 1 + sd * N(0, 1) (Irwin-Hall with 12 terms) */
static inline double pg_fx_noise(uint64_t *s, double sd)
{
	double g = -6;

	for (int i = 0; i < 12; i++)
		g += pg_fx_uniform(s);
	return 1 + sd * g;
}

/* strdup() that fails the test when out of memory; NULL stays NULL. */
static inline char *pg_fx_strdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	assert_true(!s || d);
	return d;
}

static inline uint32_t pg_fx_func_at(struct pg_run *run, const char *binary, const char *name,
				     const char *display, uint64_t addr, uint64_t offset,
				     enum pg_site site, bool endbr)
{
	uint32_t id;

	assert_int_equal(pg_run_add_func(run, binary, name, display, addr, offset, site, endbr,
					 &id), 0);
	return id;
}

static inline uint32_t pg_fx_func(struct pg_run *run, const char *binary, const char *name,
				  const char *display, enum pg_site site)
{
	return pg_fx_func_at(run, binary, name, display, 0x1000, 0x1000, site, false);
}

/* A new run of the command "/bin/prog" with the functions @names[0..n) of that binary; with
 * @side (PG_AB_BASE or PG_AB_NEW), that side of the perfgate ab session "session-1". */
static inline struct pg_run *pg_fx_prog_run(const char *const *names, size_t n, int side)
{
	struct pg_run *run = pg_run_new();

	assert_non_null(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(1, sizeof(char *));
	assert_non_null(run->meta.argv);
	run->meta.argv[0] = pg_fx_strdup("/bin/prog");
	for (size_t f = 0; f < n; f++)
		pg_fx_func(run, "/bin/prog", names[f], NULL, PG_SITE_NOP5);
	if (side) {
		run->meta.ab_session = pg_fx_strdup("session-1");
		run->meta.ab_side = side;
	}
	return run;
}

static inline struct pg_rep *pg_fx_rep(struct pg_run *run, uint64_t wall_ns)
{
	struct pg_rep *rep = pg_run_add_rep(run);

	assert_non_null(rep);
	rep->wall_ns = wall_ns;
	rep->exit_code = 0;
	return rep;
}

/* A reference spin (core/run.h struct pg_meta.spin) of workload "test-spin" for @run's next
 * repetition: @oncpu_ns on a CPU, @runq_ns waiting, its CPU time @oncpu_ns. */
static inline void pg_fx_spin(struct pg_run *run, uint64_t oncpu_ns, uint64_t runq_ns)
{
	struct pg_meta *m = &run->meta;

	if (!m->spin_workload)
		m->spin_workload = pg_fx_strdup("test-spin");
	m->spin = realloc(m->spin, (m->nspin + 1) * sizeof(*m->spin));
	assert_non_null(m->spin);
	m->spin[m->nspin++] = (struct pg_spin){ .wall_ns = oncpu_ns + runq_ns, .cpu_ns = oncpu_ns,
						 .runq_ns = runq_ns };
}

/* A repetition (wall 0, exit code 0) whose sampled stacks are the folded text @text; its
 * samples are their sum. */
static inline struct pg_rep *pg_fx_stacks(struct pg_run *run, const char *text)
{
	struct pg_rep *rep = pg_fx_rep(run, 0);
	char why[128];

	assert_int_equal(pg_folded_parse(text, strlen(text), &rep->stacks, &rep->nstacks, why,
					 sizeof(why)), 0);
	for (size_t i = 0; i < rep->nstacks; i++)
		rep->samples += rep->stacks[i].count;
	return rep;
}

/* The stat of @func in @rep from the durations @v[0..n) of its calls; self_ns = total_ns. */
static inline struct pg_fstat *pg_fx_stat(struct pg_rep *rep, uint32_t func, const uint64_t *v,
					  size_t n)
{
	struct pg_fstat *s = pg_rep_add_stat(rep, func);

	assert_non_null(s);
	s->min_ns = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		s->calls++;
		s->total_ns += v[i];
		s->min_ns = v[i] < s->min_ns ? v[i] : s->min_ns;
		s->max_ns = v[i] > s->max_ns ? v[i] : s->max_ns;
		assert_int_equal(pg_hist_record(&s->hist, v[i]), 0);
	}
	s->self_ns = s->total_ns;
	return s;
}

/* @calls calls of @total_pc inclusive and @self_pc self ns each (self at most total). */
static inline struct pg_fstat *pg_fx_stat_each(struct pg_rep *rep, uint32_t func,
					       uint64_t calls, double self_pc, double total_pc)
{
	struct pg_fstat *s = pg_rep_add_stat(rep, func);
	uint64_t t = (uint64_t)llround(total_pc);

	assert_non_null(s);
	s->calls = calls;
	s->self_ns = (uint64_t)llround(self_pc * (double)calls);
	s->total_ns = (uint64_t)llround(total_pc * (double)calls);
	if (s->self_ns > s->total_ns)
		s->self_ns = s->total_ns;
	s->min_ns = s->max_ns = t;
	assert_int_equal(pg_hist_add(&s->hist, pg_hist_bucket(t), calls), 0);
	return s;
}

/* The entry of function @name in @c; fails the test when there is none. */
static inline const struct pg_fcmp *pg_fx_find(const struct pg_comparison *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	fail_msg("function %s not in the comparison", name);
	return NULL;
}

/* ---- a comparison of every verdict, for the compare writers ---- */

#define PG_FX_LONG_NAME_REPEAT 12
/* a C++ operator with quotes: XML, JSON and the text table each escape something in it */
#define PG_FX_SPECIAL "operator<<(std::ostream&, Foo const&) \"q\" 'x'"
#define PG_FX_BAD_BINARY "lib\xff\xfe\x01" "bad\xc0\xaf.so"

struct pg_fx_compare {
	struct pg_comparison c;
	struct pg_run base, new;
	char dir[64];
	char xml[128], json[128];
	char long_name[1024];
};

/* Append a function comparison of verdict @v with unremarkable numbers; returns it. */
static inline struct pg_fcmp *pg_fx_fcmp(struct pg_comparison *c, const char *bin,
					 const char *name, const char *display, enum pg_verdict v)
{
	struct pg_fcmp *f;

	c->f = realloc(c->f, (c->n + 1) * sizeof(*c->f));
	assert_non_null(c->f);
	f = &c->f[c->n++];
	memset(f, 0, sizeof(*f));
	f->binary = pg_fx_strdup(bin);
	f->name = pg_fx_strdup(name);
	f->display = pg_fx_strdup(display ? display : name);
	f->n_base = f->n_new = 10;
	f->base_ns = f->new_ns = 1000;
	f->base_calls = f->new_calls = 100;
	f->change = 0.001;
	f->ci_lo = -0.01;
	f->ci_hi = 0.012;
	f->p = 0.5;
	f->q = 0.8;
	f->impact_ns = f->impact = NAN;	/* not weighed: pg_fx_compare_notable() for that */
	f->verdict = v;
	return f;
}

/* An initialized run of ./bench --size 'big input' with 10 repetitions of 2.5 s. */
static inline void pg_fx_compare_meta(struct pg_run *run, const char *host, const char *commit,
				      const char *start)
{
	static const char *const argv[] = { "./bench", "--size", "big input" };
	struct pg_meta *m = &run->meta;

	pg_run_init(run);
	m->perfgate_version = pg_fx_strdup("0.1.0");
	m->argc = 3;
	m->argv = calloc(3, sizeof(char *));
	assert_non_null(m->argv);
	for (int i = 0; i < 3; i++)
		m->argv[i] = pg_fx_strdup(argv[i]);
	m->host = pg_fx_strdup(host);
	m->git_commit = pg_fx_strdup(commit);
	m->start_time = pg_fx_strdup(start);
	m->kernel = pg_fx_strdup("6.18.0");
	m->repetitions = 10;
	for (int r = 0; r < 10; r++)
		pg_fx_rep(run, 2500000000ull);
}

static inline void pg_fx_compare_build(struct pg_fx_compare *fx)
{
	struct pg_comparison *c = &fx->c;
	struct pg_fcmp *f;
	size_t len = 0;

	pg_comparison_init(c);
	c->base_reps = c->new_reps = 10;

	f = pg_fx_fcmp(c, "prog", "_ZlsRSoRK3Foo", PG_FX_SPECIAL, PG_VERDICT_REGRESSION);
	f->base_ns = 1230;
	f->new_ns = 1381;
	f->new_calls = 120;
	f->calls_changed = true;
	f->change = 0.123;
	f->ci_lo = 0.098;
	f->ci_hi = 0.140;
	f->p = 0.0004;
	f->q = 0.0021;
	snprintf(f->reason, sizeof(f->reason), "regression reason, in the JUnit failure only");

	f = pg_fx_fcmp(c, "prog", "fast_path", NULL, PG_VERDICT_IMPROVEMENT);
	f->base_ns = 5e6;
	f->new_ns = 4e6;
	f->change = -0.2;
	f->ci_lo = -0.25;
	f->ci_hi = -0.15;
	f->p = 0.0002;
	f->q = 0.001;

	f = pg_fx_fcmp(c, "libfoo.so", "tiny", NULL, PG_VERDICT_INCONCLUSIVE);
	f->n_base = f->n_new = 3;
	f->change = 0.02;
	f->ci_lo = -INFINITY;
	f->ci_hi = INFINITY;
	f->p = 0.4;
	f->q = NAN;
	f->cause = PG_CAUSE_REPS;
	snprintf(f->reason, sizeof(f->reason), "too few repetitions with calls: 3 < 5");

	f = pg_fx_fcmp(c, "prog", "new_func", NULL, PG_VERDICT_ADDED);
	f->n_base = 0;
	f->base_ns = NAN;
	f->base_calls = 0;
	f->calls_changed = true;
	f->change = f->ci_lo = f->ci_hi = f->p = f->q = NAN;
	snprintf(f->reason, sizeof(f->reason), "called only in the new run");

	f = pg_fx_fcmp(c, "prog", "old_func", NULL, PG_VERDICT_REMOVED);
	f->n_new = 0;
	f->new_ns = NAN;
	f->new_calls = 0;
	f->calls_changed = true;
	f->change = f->ci_lo = f->ci_hi = f->p = f->q = NAN;

	/* a long C++ name, with runs of whitespace to collapse for xs:token */
	len += snprintf(fx->long_name, sizeof(fx->long_name), "ns::Tmpl<\tstd::map<int,  int> ");
	for (int i = 0; i < PG_FX_LONG_NAME_REPEAT; i++)
		len += snprintf(fx->long_name + len, sizeof(fx->long_name) - len,
				", std::vector<long>");
	snprintf(fx->long_name + len, sizeof(fx->long_name) - len, ">::run(int) const");
	pg_fx_fcmp(c, PG_FX_BAD_BINARY, "_ZN2ns4TmplIJEE3runEi", fx->long_name,
		   PG_VERDICT_UNCHANGED);

	c->ntested = 4;
	c->nregressions = c->nimprovements = c->ninconclusive = 1;
	c->nadded = c->nremoved = c->nunchanged = 1;
	c->overall = PG_OVERALL_REGRESSION;

	c->wall.binary = pg_fx_strdup("[wall]");
	c->wall.name = pg_fx_strdup("[wall]");
	c->wall.display = pg_fx_strdup("[wall]");
	c->wall.n_base = c->wall.n_new = 10;
	c->wall.base_ns = 2.5e9;
	c->wall.new_ns = 2.55e9;
	c->wall.change = 0.02;
	c->wall.ci_lo = -0.01;
	c->wall.ci_hi = 0.05;
	c->wall.p = 0.3;
	c->wall.q = NAN;

	c->nwarnings = 1;
	c->warnings = calloc(1, sizeof(char *));
	assert_non_null(c->warnings);
	c->warnings[0] = pg_fx_strdup("the runs come from different hosts: ci-1 and ci-2 <&>");

	pg_fx_compare_meta(&fx->base, "ci-1", "0123456789abcdef0123456789abcdef01234567",
			   "2026-11-20T09:00:00Z");
	pg_fx_compare_meta(&fx->new, "ci-2", "fedcba9876543210fedcba9876543210fedcba98",
			   "2026-11-21T10:22:22Z");
}

/*
 * Make the improvement of @fx (fast_path) a notable change: 10 ns a call faster, 100 calls a
 * repetition, 1 us of a 2.5 s repetition (impact -4e-7); min_impact 0.1%. Returns it.
 */
static inline struct pg_fcmp *pg_fx_compare_notable(struct pg_fx_compare *fx)
{
	struct pg_fcmp *f = &fx->c.f[1];

	assert_int_equal(f->verdict, PG_VERDICT_IMPROVEMENT);
	f->verdict = PG_VERDICT_NOTABLE;
	f->base_ns = 50;
	f->new_ns = 40;
	f->impact_ns = -1000;
	f->impact = -1000 / 2.5e9;
	snprintf(f->reason, sizeof(f->reason), "-20.0%% [-25.0%%, -15.0%%], q=0.001; -1.00 us "
		 "in a 2.50 s repetition (4e-05%%): under 0.1%% of it, not counted");
	fx->c.nimprovements--;
	fx->c.nnotable++;
	fx->c.opts.min_impact = 0.001;
	return f;
}

static inline int pg_fx_compare_setup(void **state)
{
	struct pg_fx_compare *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	pg_fx_compare_build(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/pg_test_compare.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->xml, sizeof(fx->xml), "%s/report.xml", fx->dir);
	snprintf(fx->json, sizeof(fx->json), "%s/compare.json", fx->dir);
	pg_log_set_level(PG_LOG_ERROR);
	*state = fx;
	return 0;
}

static inline int pg_fx_compare_teardown(void **state)
{
	struct pg_fx_compare *fx = *state;

	unlink(fx->xml);
	unlink(fx->json);
	/* fails (and the test with it) if a writer left a temporary file behind */
	if (rmdir(fx->dir))
		return -1;
	pg_comparison_release(&fx->c);
	pg_run_release(&fx->base);
	pg_run_release(&fx->new);
	free(fx);
	return 0;
}

#endif
