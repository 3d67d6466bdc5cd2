// SPDX-License-Identifier: MIT
/*
 * diff/inlined.c - the inlined function that explains a sampled function's change
 * (inlined.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inlined.h"
#include "probeframes.h"
#include "verdict.h"

/* One function inlined into the function explained: its samples by side and repetition. */
struct xin {
	const char *s;		/* its frame, in a stack of the new run */
	size_t len;
	double *cnt[2];		/* per repetition */
	uint64_t tot[2];
};

struct xins {
	struct xin *v;
	size_t n, cap;
	uint64_t all[2];	/* the samples of the function explained */
	size_t nreps[2];
};

static bool frame_is(const char *f, size_t len, const char *name, size_t nl)
{
	return len == nl && !memcmp(f, name, nl);
}

/* The start of the frame that ends at @end (exclusive) in @s. */
static const char *frame_start(const char *s, const char *end)
{
	while (end > s && end[-1] != ';')
		end--;
	return end;
}

/*
 * The function whose code holds stack @s's own time, and the function inlined into it
 * directly there (*x, *xl; NULL when the time is not in inlined code): its last user frame
 * that is not inlined. Kernel frames and perfgate's probe frames are not the program's.
 */
static void stack_owner(const char *s, const char **f, size_t *fl, const char **x, size_t *xl)
{
	size_t keep;
	const char *end = s + (pg_probe_split(s, &keep) ? keep : strlen(s)), *b;

	*x = NULL;
	for (;;) {
		b = frame_start(s, end);
		if (b == s || !(pg_frame_inlined(b, (size_t)(end - b)) ||
				((size_t)(end - b) > 4 && !memcmp(end - 4, " [k]", 4))))
			break;
		if (pg_frame_inlined(b, (size_t)(end - b))) {
			*x = b;
			*xl = (size_t)(end - b);
		}
		end = b - 1;
	}
	*f = b;
	*fl = (size_t)(end - b);
}

static struct xin *xin_find(struct xins *t, const char *x, size_t xl)
{
	for (size_t i = 0; i < t->n; i++)
		if (frame_is(t->v[i].s, t->v[i].len, x, xl))
			return &t->v[i];
	return NULL;
}

/* The entry of @x[0..xl), added when new; NULL on ENOMEM. */
static struct xin *xin_get(struct xins *t, const char *x, size_t xl)
{
	struct xin *e = xin_find(t, x, xl);

	if (e)
		return e;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct xin *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	e->s = x;
	e->len = xl;
	e->cnt[0] = calloc(t->nreps[0] ? t->nreps[0] : 1, sizeof(double));
	e->cnt[1] = calloc(t->nreps[1] ? t->nreps[1] : 1, sizeof(double));
	if (!e->cnt[0] || !e->cnt[1]) {
		free(e->cnt[0]);
		free(e->cnt[1]);
		return NULL;
	}
	t->n++;
	return e;
}

/* The samples of function @name[0..nl) in @run (side @side) by what is inlined into it. */
static int gather(struct xins *t, const struct pg_run *run, int side, const char *name,
		  size_t nl)
{
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t k = 0; k < rep->nstacks; k++) {
			const char *f, *x;
			size_t fl, xl;
			struct xin *e;

			stack_owner(rep->stacks[k].folded, &f, &fl, &x, &xl);
			if (!frame_is(f, fl, name, nl))
				continue;
			t->all[side] += rep->stacks[k].count;
			if (!x)
				continue;
			/* only frames the new run has are explained: the base side adds to them */
			e = side ? xin_get(t, x, xl) : xin_find(t, x, xl);
			if (!e && side)
				return -ENOMEM;
			if (!e)
				continue;
			e->cnt[side][r] += (double)rep->stacks[k].count;
			e->tot[side] += rep->stacks[k].count;
		}
	}
	return 0;
}

/* The mean over @run's repetitions of @cnt's share of each one's samples times its CPU
 * time; NAN when the run has no CPU time. */
static double mean_time(const struct pg_run *run, const double *cnt)
{
	double sum = 0;
	size_t n = 0;

	for (size_t r = 0; r < run->nreps; r++) {
		uint64_t kept = 0;

		for (size_t k = 0; k < run->reps[r].nstacks; k++)
			kept += run->reps[r].stacks[k].count;
		if (!kept || !run->reps[r].cpu_ns)
			continue;
		sum += cnt[r] / (double)kept * (double)run->reps[r].cpu_ns;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

/* The frame name of @f in stacks: its name without the " [scope]" own samples add. */
static size_t stack_name_len(const struct pg_fcmp *f)
{
	size_t n = strlen(f->name);
	const char *b = n && f->name[n - 1] == ']' ? strrchr(f->name, '[') : NULL;

	if (b && b > f->name + 1 && b[-1] == ' ' && !memchr(b, ' ', (size_t)(f->name + n - b)))
		return (size_t)(b - 1 - f->name);
	return n;
}

static void xins_release(struct xins *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].cnt[0]);
		free(t->v[i].cnt[1]);
	}
	free(t->v);
}

/* Explain one sampled entry @f. 0 or -ENOMEM. */
static int explain_one(struct pg_fcmp *f, const struct pg_run *base, const struct pg_run *new)
{
	struct xins t = { .nreps = { base->nreps, new->nreps } };
	size_t nl = stack_name_len(f), best = SIZE_MAX;
	int err = gather(&t, new, 1, f->name, nl) ?: gather(&t, base, 0, f->name, nl);
	double mb, mn;

	for (size_t i = 0; !err && i < t.n; i++)	/* the most samples; ties: the first seen */
		if (best == SIZE_MAX || t.v[i].tot[1] > t.v[best].tot[1])
			best = i;
	if (!err && best != SIZE_MAX && t.v[best].tot[0] && t.all[1]) {
		const struct xin *x = &t.v[best];
		const char *sep = f->explain[0] ? "; " : "";

		mb = mean_time(base, x->cnt[0]);
		mn = mean_time(new, x->cnt[1]);
		if (mb > 0 && !isnan(mn))
			pg_append(f->explain, sizeof(f->explain),
				  "%sof which %.*s inlined: %+.1f%% (%.0f%% of its samples)", sep,
				  (int)(x->len - strlen(PG_INLINED_MARK)), x->s,
				  100 * (mn / mb - 1),
				  100.0 * (double)x->tot[1] / (double)t.all[1]);
	}
	xins_release(&t);
	return err;
}

int pg_inlined_explain(struct pg_comparison *c, const struct pg_run *base,
		       const struct pg_run *new)
{
	int err = 0;

	for (size_t i = 0; i < c->n && !err; i++)
		if (c->f[i].origin == PG_ORIGIN_SAMPLED && pg_change_counts(&c->f[i]))
			err = explain_one(&c->f[i], base, new);
	return err;
}
