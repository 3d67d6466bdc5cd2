// SPDX-License-Identifier: MIT
/*
 * diff/inlined.c - the inlined function that explains a sampled function's change
 * (inlined.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "inlined.h"
#include "probeframes.h"
#include "verdict.h"

/* The functions inlined into the function explained: their samples by side and repetition. */
struct xins {
	struct pg_fcounts t;
	uint64_t all[2];	/* the samples of the function explained */
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
				pg_frame_kernel(b, (size_t)(end - b))))
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

/* The samples of function @name[0..nl) in @run (side @side) by what is inlined into it. */
static int gather(struct xins *t, const struct pg_run *run, int side, const char *name,
		  size_t nl)
{
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t k = 0; k < rep->nstacks; k++) {
			const char *f, *x;
			size_t fl, xl;
			struct pg_fcount *e;

			stack_owner(rep->stacks[k].folded, &f, &fl, &x, &xl);
			if (!frame_is(f, fl, name, nl))
				continue;
			t->all[side] += rep->stacks[k].count;
			if (!x)
				continue;
			/* only frames the new run has are explained: the base side adds to them */
			e = side ? pg_fcounts_get(&t->t, x, xl) : pg_fcounts_find(&t->t, x, xl);
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

/* Explain one sampled entry @f. 0 or -ENOMEM. */
static int explain_one(struct pg_fcmp *f, const struct pg_run *base, const struct pg_run *new)
{
	struct xins x = { .all = { 0, 0 } };
	struct pg_fcounts *t = &x.t;
	size_t nl = pg_frame_name_len(f->name), best = SIZE_MAX;
	int err = pg_fcounts_init(t, base, new);
	double mb, mn;

	if (err)
		return err;
	err = gather(&x, new, 1, f->name, nl) ?: gather(&x, base, 0, f->name, nl);

	for (size_t i = 0; !err && i < t->n; i++)	/* the most samples; ties: the first seen */
		if (best == SIZE_MAX || t->v[i].tot[1] > t->v[best].tot[1])
			best = i;
	if (!err && best != SIZE_MAX && t->v[best].tot[0] && x.all[1]) {
		const struct pg_fcount *e = &t->v[best];
		const char *sep = f->explain[0] ? "; " : "";

		mb = pg_fcounts_time(t, e, 0);
		mn = pg_fcounts_time(t, e, 1);
		if (mb > 0 && !isnan(mn))
			pg_append(f->explain, sizeof(f->explain),
				  "%sof which %.*s inlined: %+.1f%% (%.0f%% of its samples)", sep,
				  (int)(e->len - strlen(PG_INLINED_MARK)), e->s,
				  100 * (mn / mb - 1),
				  100.0 * (double)e->tot[1] / (double)x.all[1]);
	}
	pg_fcounts_release(t);
	return err;
}

int pg_inlined_explain(struct pg_comparison *c, const struct pg_run *base,
		       const struct pg_run *new)
{
	int err = 0;

	for (size_t i = 0; i < c->n && !err; i++)
		if (c->f[i].origin == PG_ORIGIN_SAMPLED && pg_change_counts(&c->f[i]) &&
		    !pg_name_shared(c, &c->f[i], base, new))
			err = explain_one(&c->f[i], base, new);
	return err;
}
