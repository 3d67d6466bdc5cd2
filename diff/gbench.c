// SPDX-License-Identifier: MIT
/*
 * diff/gbench.c - Google Benchmark's benchmarks judged beside the functions, and the
 * functions attributed to them. See gbench.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbench.h"
#include "repvalues.h"
#include "verdict.h"

/* The sorted, unique names of the benchmarks of both runs (borrowed), or NULL (-ENOMEM) */
static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char **bench_names(const struct pg_run *base, const struct pg_run *new, size_t *n)
{
	const struct pg_run *runs[2] = { base, new };
	size_t cap = 0, k = 0;
	const char **v;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < runs[s]->nreps; i++)
			cap += runs[s]->reps[i].nbench;
	*n = 0;
	v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < runs[s]->nreps; i++)
			for (size_t b = 0; b < runs[s]->reps[i].nbench; b++)
				v[k++] = runs[s]->reps[i].bench[b].name;
	qsort(v, k, sizeof(*v), cmp_strp);
	for (size_t i = 0; i < k; i++)
		if (!*n || strcmp(v[*n - 1], v[i]))
			v[(*n)++] = v[i];
	return v;
}

/*
 * @s := the CPU time per iteration of benchmark @name in each repetition of @run where it
 * ran; *@listed: repetitions that reported it at all; *@iters their mean iterations; *@msg
 * the message of one that failed, if any.
 */
static void gather(struct pg_sample *s, const struct pg_run *run, const char *name,
		   size_t *listed, double *iters, const char **msg)
{
	double it = 0;

	s->n = 0;
	*listed = 0;
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];
		const struct pg_gb_value *v = pg_gb_find(rep->bench, rep->nbench, name);

		if (!v)
			continue;
		++*listed;
		if (v->state != PG_GB_OK) {
			*msg = v->message ? v->message : pg_gb_state_name(v->state);
			continue;
		}
		pg_sample_push(s, v->cpu_ns, rep->pair);
		it += (double)v->iterations;
	}
	*iters = s->n ? it / (double)s->n : 0;
}

/* One benchmark's entry: tested (1), not tested (0), or -ENOMEM */
static int judge(struct pg_fcmp *f, const char *name, const struct pg_run *base,
		 const struct pg_run *new, struct pg_sample *sb, struct pg_sample *sn,
		 const struct pg_compare_opts *o, struct pg_stats_ws *ws)
{
	const char *bmsg = NULL, *nmsg = NULL;
	size_t lb, ln;
	int t;

	f->binary = strdup(PG_GB_BINARY);
	f->name = strdup(name);
	f->display = strdup(name);
	if (!f->binary || !f->name || !f->display)
		return -ENOMEM;
	gather(sb, base, name, &lb, &f->base_calls, &bmsg);
	gather(sn, new, name, &ln, &f->new_calls, &nmsg);
	if (!lb || !ln) {
		f->verdict = lb ? PG_VERDICT_REMOVED : PG_VERDICT_ADDED;
		f->n_base = sb->n;
		f->n_new = sn->n;
		snprintf(f->reason, sizeof(f->reason), "benchmark reported only in the %s run",
			 lb ? "base" : "new");
		return 0;
	}
	t = pg_analyse(f, sb, sn, o, false, ws);
	if (t < 0)
		return t;
	if (!isnan(f->change)) {
		f->impact_ns = f->change * f->base_ns;
		f->impact = f->change;	/* a benchmark is its own program */
	}
	if (t == 0 && (!sb->n || !sn->n)) {
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason), "no time in the %s run: %.120s",
			 !sb->n ? "base" : "new",
			 !sb->n ? (bmsg ? bmsg : "?") : (nmsg ? nmsg : "?"));
	}
	return t;
}

/* Grow out->f and the family's arrays for @more entries */
static int grow(struct pg_comparison *out, size_t **tested, double **p, size_t ntested,
		size_t more)
{
	struct pg_fcmp *f = realloc(out->f, (out->n + more) * sizeof(*f));
	size_t *t;
	double *q;

	if (!f)
		return -ENOMEM;
	out->f = f;
	out->falloc = out->n + more;
	t = realloc(*tested, (ntested + more) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	*tested = t;
	q = realloc(*p, (ntested + more) * sizeof(*q));
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

int pg_gb_compare(const struct pg_run *base, const struct pg_run *new,
		  const struct pg_compare_opts *o, struct pg_stats_ws *ws,
		  struct pg_comparison *out, size_t **tested, double **p, size_t *ntested,
		  size_t *ncommon)
{
	struct pg_sample sb = { 0 }, sn = { 0 };
	const char **names;
	size_t n;
	int err;

	names = bench_names(base, new, &n);
	if (!names)
		return -ENOMEM;
	err = n ? grow(out, tested, p, *ntested, n) : 0;
	if (!err && n && (pg_sample_init(&sb, base->nreps) || pg_sample_init(&sn, new->nreps)))
		err = -ENOMEM;
	sb.paired = sn.paired = out->paired;	/* pair by pair under perfgate ab */
	for (size_t i = 0; !err && i < n; i++) {
		struct pg_fcmp *f = &out->f[out->n++];
		int t;

		pg_fcmp_init(f);
		t = judge(f, names[i], base, new, &sb, &sn, o, ws);
		if (t < 0)
			err = t;
		if (t == 1) {
			(*tested)[*ntested] = out->n - 1;
			(*p)[(*ntested)++] = f->p;
		}
		if (sb.n && sn.n)
			++*ncommon;
	}
	pg_sample_release(&sb);
	pg_sample_release(&sn);
	free(names);
	return err;
}

/* ---- attribution ---- */

#define MAX_BODIES 16

struct body {
	const char *frame;	/* into a folded stack of the run */
	size_t len;
	uint64_t samples;
};

/*
 * The benchmark body (the last frame pg_gb_body() says yes to) above a frame equal to @fn in
 * the folded stack @s (@fn NULL: the stack's last body), into *@at, *@len; false when there is
 * none.
 */
static bool body_above(const char *s, const char *fn, const char **at, size_t *len)
{
	size_t fl = fn ? strlen(fn) : 0;
	const char *b = NULL;
	bool hit = !fn;
	size_t bl = 0;
	char tmp[512];

	for (const char *c = s; *c;) {
		const char *e = strchrnul(c, ';');
		size_t l = (size_t)(e - c);

		if (b && fn && l == fl && !memcmp(c, fn, l)) {
			hit = true;
			break;
		}
		if (l < sizeof(tmp)) {
			memcpy(tmp, c, l);
			tmp[l] = '\0';
			if (pg_gb_body(tmp)) {
				b = c;
				bl = l;
			}
		}
		c = *e ? e + 1 : e;
	}
	if (!b || !hit)
		return false;
	*at = b;
	*len = bl;
	return true;
}

/* The body on all of @run's sampled stacks that have one, into *@at, *@len, if there is
 * exactly one such body */
static bool only_body(const struct pg_run *run, const char **at, size_t *len)
{
	*at = NULL;
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t k = 0; k < run->reps[r].nstacks; k++) {
			const char *b;
			size_t l;

			if (!body_above(run->reps[r].stacks[k].folded, NULL, &b, &l))
				continue;
			if (*at && (l != *len || memcmp(b, *at, l)))
				return false;
			*at = b;
			*len = l;
		}
	}
	return *at != NULL;
}

/* The bodies whose stacks hold @fn in @run, by samples, into @v (at most MAX_BODIES) */
static size_t bodies_of(const struct pg_run *run, const char *fn, struct body *v, uint64_t *all)
{
	size_t n = 0;

	*all = 0;
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t k = 0; k < run->reps[r].nstacks; k++) {
			const struct pg_stack *st = &run->reps[r].stacks[k];
			const char *at;
			size_t len, i;

			if (!body_above(st->folded, fn, &at, &len))
				continue;
			*all += st->count;
			for (i = 0; i < n; i++)
				if (v[i].len == len && !memcmp(v[i].frame, at, len))
					break;
			if (i == n && n == MAX_BODIES)
				continue;
			if (i == n)
				v[n++] = (struct body){ at, len, 0 };
			v[i].samples += st->count;
		}
	}
	return n;
}

/* Append the benchmarks of body @b (by the name of its function: BM_x, BM_x/8, ...) to @r;
 * @only: @b is the one body on the run's stacks */
static void name_benchmarks(char *r, size_t rs, const struct pg_comparison *out,
			    const struct body *b, bool only)
{
	const char *paren = memchr(b->frame, '(', b->len);
	size_t fl = paren ? (size_t)(paren - b->frame) : b->len, named = 0, all = 0;

	for (size_t i = 0; i < out->n; i++) {
		const char *name = out->f[i].name;

		if (!pg_gb_is_bench(&out->f[i]))
			continue;
		all++;
		if (strncmp(name, b->frame, fl) || (name[fl] && name[fl] != '/'))
			continue;
		if (named < 3)
			pg_append(r, rs, "%s%s", named ? ", " : "", name);
		named++;
	}
	if (named > 3)
		pg_append(r, rs, " and %zu more", named - 3);
	else if (!named && only && all)	/* under other names, all run by this body */
		pg_append(r, rs, "every benchmark (all %zu run by %.*s)", all, (int)fl, b->frame);
	else if (!named)	/* registered under other names: say the body */
		pg_append(r, rs, "the benchmarks of %.*s", (int)fl, b->frame);
}

static void attribute(const struct pg_run *base, const struct pg_run *new,
		      struct pg_comparison *out)
{
	const struct pg_run *run = new;
	struct body v[MAX_BODIES];
	const char *one;
	bool any = false, only;
	size_t onelen;

	for (size_t r = 0; r < new->nreps && !any; r++)
		any = new->reps[r].nstacks > 0;
	if (!any)
		run = base;
	only = only_body(run, &one, &onelen);
	for (size_t i = 0; i < out->n; i++) {
		struct pg_fcmp *f = &out->f[i];
		uint64_t all;
		size_t n, top = 0;

		if (pg_gb_is_bench(f) || !f->display || strstr(f->reason, "; on the stacks of ") ||
		    (f->verdict != PG_VERDICT_REGRESSION &&
		     f->verdict != PG_VERDICT_IMPROVEMENT && f->verdict != PG_VERDICT_NOTABLE))
			continue;
		n = bodies_of(run, f->display, v, &all);
		if (!n || !all)
			continue;
		for (size_t k = 1; k < n; k++)
			if (v[k].samples > v[top].samples)
				top = k;
		pg_append(f->reason, sizeof(f->reason), "; on the stacks of ");
		name_benchmarks(f->reason, sizeof(f->reason), out, &v[top], only);
		if (n > 1)
			pg_append(f->reason, sizeof(f->reason), " (%.0f%% of its samples)",
				  100.0 * (double)v[top].samples / (double)all);
	}
}

/* The benchmarks first, each part in the order it had (no copy when they lead already, as
 * when there are none) */
static int lead(struct pg_comparison *out)
{
	struct pg_fcmp *v;
	size_t k = 0, first = 0;

	while (first < out->n && pg_gb_is_bench(&out->f[first]))
		first++;
	for (k = first; k < out->n && !pg_gb_is_bench(&out->f[k]); k++)
		;
	if (k == out->n)
		return 0;
	k = 0;
	v = malloc(out->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < out->n; i++)
			if (pg_gb_is_bench(&out->f[i]) == !pass)
				v[k++] = out->f[i];
	memcpy(out->f, v, out->n * sizeof(*v));
	free(v);
	return 0;
}

int pg_gb_finish(const struct pg_run *base, const struct pg_run *new, struct pg_comparison *out)
{
	attribute(base, new, out);
	return lead(out);
}
