// SPDX-License-Identifier: MIT
/*
 * diff/rspeed.c - the machine's speed between two recordings (method: rspeed.h).
 *
 * Every median here is a weighted median with at most one value left out, asked once per
 * function (and per repetition): struct pg_rspeed_wmed keeps the values sorted with their
 * running weights, and a binary search answers each question in O(log n), so that comparisons
 * of thousands of functions stay near linear.
 */
#include "rspeed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

/* Values sorted, each with its weight, the running sum of weights, and its reference. */
struct pg_rspeed_wmed {
	size_t n;
	double *v, *cum;	/* cum[i]: the weights of v[0..i] */
	uint32_t *ref;		/* the reference (index into pg_rspeed.ref) of v[i] */
	size_t *pos;		/* per reference: its index in v, or SIZE_MAX */
};

struct wm_item {
	double v, w;
	uint32_t ref;
};

static int cmp_item(const void *pa, const void *pb)
{
	const struct wm_item *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->ref > b->ref) - (a->ref < b->ref);
}

static void wmed_release(struct pg_rspeed_wmed *m)
{
	free(m->v);
	free(m->cum);
	free(m->ref);
	free(m->pos);
	memset(m, 0, sizeof(*m));
}

/* @m from it[0..n) (sorted here) among @nrefs references. 0 or -ENOMEM. */
static int wmed_build(struct pg_rspeed_wmed *m, struct wm_item *it, size_t n, size_t nrefs)
{
	double sum = 0;

	m->n = n;
	m->v = malloc((n ? n : 1) * sizeof(*m->v));
	m->cum = malloc((n ? n : 1) * sizeof(*m->cum));
	m->ref = malloc((n ? n : 1) * sizeof(*m->ref));
	m->pos = malloc((nrefs ? nrefs : 1) * sizeof(*m->pos));
	if (!m->v || !m->cum || !m->ref || !m->pos)
		return -ENOMEM;
	qsort(it, n, sizeof(*it), cmp_item);
	for (size_t r = 0; r < nrefs; r++)
		m->pos[r] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		sum += it[i].w;
		m->v[i] = it[i].v;
		m->cum[i] = sum;
		m->ref[i] = it[i].ref;
		m->pos[it[i].ref] = i;
	}
	return 0;
}

/* The weighted median of @m without reference @skip's value (any other: none left out): the
 * first value at which the running weights, less @skip's, reach half of theirs. They never
 * grow at @skip's own slot, so that is never the first. NAN when no value is left. */
static double wmed_of(const struct pg_rspeed_wmed *m, size_t skip)
{
	size_t k = skip < SIZE_MAX ? m->pos[skip] : SIZE_MAX, lo = 0, hi;
	double wk, half;

	if (!m->n || (m->n == 1 && k == 0))
		return NAN;
	wk = k == SIZE_MAX ? 0 : m->cum[k] - (k ? m->cum[k - 1] : 0);
	half = (m->cum[m->n - 1] - wk) / 2;
	hi = m->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cum[mid] - (k != SIZE_MAX && mid >= k ? wk : 0) >= half)
			hi = mid;
		else
			lo = mid + 1;
	}
	return m->v[lo];
}

int pg_rspeed_add(struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		  size_t nb, const double *ln, const uint32_t *tn, size_t nn, double time_ns)
{
	struct pg_rspeed_ref *r;

	if (id == UINT32_MAX || (s->nrefs && id <= s->ref[s->nrefs - 1].id))
		return -EINVAL;
	if (PG_ALLOC_GROW(s->ref, s->nrefs + 1, s->alloc))
		return -ENOMEM;
	r = &s->ref[s->nrefs];
	memset(r, 0, sizeof(*r));
	r->l[0] = malloc((nb ? nb : 1) * sizeof(double));
	r->l[1] = malloc((nn ? nn : 1) * sizeof(double));
	r->t[0] = malloc((nb ? nb : 1) * sizeof(uint32_t));
	r->t[1] = malloc((nn ? nn : 1) * sizeof(uint32_t));
	s->nrefs++;	/* released with the others, also when incomplete */
	if (!r->l[0] || !r->l[1] || !r->t[0] || !r->t[1])
		return -ENOMEM;
	memcpy(r->l[0], lb, nb * sizeof(*lb));
	memcpy(r->l[1], ln, nn * sizeof(*ln));
	memcpy(r->t[0], tb, nb * sizeof(*tb));
	memcpy(r->t[1], tn, nn * sizeof(*tn));
	r->n[0] = nb;
	r->n[1] = nn;
	r->id = id;
	r->w = sqrt(time_ns > 1 ? time_ns : 1);
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < r->n[side]; i++)
			s->ntags[side] = r->t[side][i] + 1 > s->ntags[side] ? r->t[side][i] + 1 :
									       s->ntags[side];
	return 0;
}

void pg_rspeed_release(struct pg_rspeed *s)
{
	for (size_t i = 0; i < s->nrefs; i++)
		for (int side = 0; side < 2; side++) {
			free(s->ref[i].l[side]);
			free(s->ref[i].t[side]);
		}
	free(s->ref);
	if (s->shifts)
		wmed_release(s->shifts);
	free(s->shifts);
	for (int side = 0; side < 2; side++) {
		for (size_t t = 0; s->reps[side] && t < s->ntags[side]; t++)
			wmed_release(&s->reps[side][t]);
		free(s->reps[side]);
	}
	memset(s, 0, sizeof(*s));
}

static double mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / (double)n : 0;
}

/* s->shifts: the references' shifts (those not changed, or all when @all). 0 or -ENOMEM. */
static int build_shifts(struct pg_rspeed *s, bool all)
{
	struct wm_item *it = malloc((s->nrefs ? s->nrefs : 1) * sizeof(*it));
	size_t n = 0;
	int err;

	if (!it)
		return -ENOMEM;
	for (size_t r = 0; r < s->nrefs; r++)
		if (all || !s->ref[r].changed)
			it[n++] = (struct wm_item){ s->ref[r].d, s->ref[r].w, (uint32_t)r };
	if (s->shifts)
		wmed_release(s->shifts);
	else
		s->shifts = calloc(1, sizeof(*s->shifts));
	err = s->shifts ? wmed_build(s->shifts, it, n, s->nrefs) : -ENOMEM;
	free(it);
	return err;
}

/* The kept references' distances from their mean log in each repetition of run @side, into
 * s->reps[side][tag], the values put in their repetition's place by one pass of counting. */
static int build_side(struct pg_rspeed *s, int side)
{
	size_t nt = s->ntags[side], total = 0;
	size_t *at = calloc(nt + 1, sizeof(*at));
	struct wm_item *it = NULL;
	int err = -ENOMEM;

	s->reps[side] = calloc(nt ? nt : 1, sizeof(*s->reps[side]));
	if (!at || !s->reps[side])
		goto out;
	for (size_t r = 0; r < s->nrefs; r++)	/* at[t + 1]: the values of tag t */
		for (size_t i = 0; !s->ref[r].changed && i < s->ref[r].n[side]; i++)
			at[s->ref[r].t[side][i] + 1]++;
	for (size_t t = 0; t < nt; t++)		/* at[t]: where tag t's values start */
		at[t + 1] += at[t];
	total = at[nt];
	it = malloc((total ? total : 1) * sizeof(*it));
	if (!it)
		goto out;
	for (size_t r = 0; r < s->nrefs; r++) {
		const struct pg_rspeed_ref *f = &s->ref[r];
		double m = mean(f->l[side], f->n[side]);

		for (size_t i = 0; !f->changed && i < f->n[side]; i++)
			it[at[f->t[side][i]]++] = (struct wm_item){ f->l[side][i] - m, f->w,
								     (uint32_t)r };
	}
	/* each at[t] is now where tag t's values end */
	err = 0;
	for (size_t t = 0; !err && t < nt; t++) {
		size_t from = t ? at[t - 1] : 0;

		err = wmed_build(&s->reps[side][t], it + from, at[t] - from, s->nrefs);
	}
out:
	free(at);
	free(it);
	return err;
}

/* Did reference @r change by itself, against the others' median @c? 1, 0 or a negative errno. */
static int changed_alone(const struct pg_rspeed_ref *r, double c, double alpha, double min_effect,
			 struct pg_stats_ws *ws)
{
	double *y;
	struct pg_mwu m;
	int err;

	if (isnan(c) || !(fabs(r->d - c) >= log1p(min_effect)))
		return 0;
	y = malloc((r->n[1] ? r->n[1] : 1) * sizeof(*y));
	if (!y)
		return -ENOMEM;
	for (size_t i = 0; i < r->n[1]; i++)
		y[i] = r->l[1][i] - c;
	err = pg_mwu_test_ws(r->l[0], r->n[0], y, r->n[1], ws, &m);
	free(y);
	if (err)
		return err;
	return m.p <= alpha;
}

int pg_rspeed_finish(struct pg_rspeed *s, double alpha, double min_effect,
		     struct pg_stats_ws *ws)
{
	double all = 0, changed = 0;
	struct pg_hl hl;
	int err;

	s->applied = false;
	s->shift = 0;
	s->nchanged = 0;
	if (s->nrefs < PG_RSPEED_MIN_REFS)
		return 0;
	for (size_t i = 0; i < s->nrefs; i++) {
		err = pg_hodges_lehmann_ws(s->ref[i].l[0], s->ref[i].n[0], s->ref[i].l[1],
					   s->ref[i].n[1], alpha, ws, &hl);
		if (err)
			return err;
		s->ref[i].d = hl.estimate;
	}
	err = build_shifts(s, true);
	for (size_t i = 0; !err && i < s->nrefs; i++) {
		err = changed_alone(&s->ref[i], wmed_of(s->shifts, i), alpha, min_effect, ws);
		if (err < 0)
			return err;
		s->ref[i].changed = err;
		s->nchanged += (size_t)err;
		all += s->ref[i].w;
		changed += err ? s->ref[i].w : 0;
		err = 0;
	}
	if (err || 2 * changed >= all)
		return err;	/* most of the references moved by themselves: no common speed */
	if (s->nrefs - s->nchanged < PG_RSPEED_MIN_REFS)
		return 0;	/* too few unchanged ones to stand for the machine */
	err = build_shifts(s, false) ?: build_side(s, 0) ?: build_side(s, 1);
	if (err)
		return err;
	s->applied = true;
	s->shift = wmed_of(s->shifts, SIZE_MAX);
	return 0;
}

/* The reference of function @id, or SIZE_MAX (the references are in the order of their ids,
 * as compare.c adds them) */
static size_t ref_of(const struct pg_rspeed *s, uint32_t id)
{
	size_t lo = 0, hi = s->nrefs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ref[mid].id == id)
			return mid;
		if (s->ref[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* beta: the slope, through 0, of the function's distances from its run's mean on the
 * repetitions' speeds (without its own), both runs together; NAN when they do not vary. */
static double slope(const struct pg_rspeed *s, size_t self, const double *const l[2],
		    const uint32_t *const t[2], const size_t n[2])
{
	double xy = 0, xx = 0;

	for (int side = 0; side < 2; side++) {
		double m = mean(l[side], n[side]);

		for (size_t i = 0; i < n[side]; i++) {
			double u;

			if (t[side][i] >= s->ntags[side])
				continue;
			u = wmed_of(&s->reps[side][t[side][i]], self);
			if (isnan(u))
				continue;
			xy += (l[side][i] - m) * u;
			xx += u * u;
		}
	}
	return xx > 0 ? xy / xx : NAN;
}

double pg_rspeed_of(const struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		    size_t nb, const double *ln, const uint32_t *tn, size_t nn, double share,
		    double *beta)
{
	const double *l[2] = { lb, ln };
	const uint32_t *t[2] = { tb, tn };
	size_t n[2] = { nb, nn }, self;
	double c, b;

	*beta = 0;
	if (!s || !s->applied)
		return 0;
	self = ref_of(s, id);
	c = wmed_of(s->shifts, self);
	if (isnan(c))
		return 0;
	b = slope(s, self, l, t, n);
	b = isnan(b) ? share : b < 0 ? 0 : b > share ? share : b;
	*beta = b;
	return b * c;
}
