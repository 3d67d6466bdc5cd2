// SPDX-License-Identifier: MIT
/*
 * diff/rspeed.c - the machine's speed between two recordings (method: rspeed.h).
 *
 * Every median here is a weighted median with at most one value left out (diff/speedlib.h).
 * The shift's is asked once per function: a binary search over the kept references' sorted
 * shifts. A repetition's speed is asked once per reference and repetition: pg_rspeed_finish()
 * goes through the repetitions one at a time, sorts each one's values once, and adds each
 * reference's term of its slope to two sums; only the sums stay, with the speed of each
 * repetition for the functions that are no reference. Comparisons of thousands of functions
 * stay near linear in time, and hold one repetition's values at a time.
 */
#include "rspeed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

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
	r->w = pg_speed_weight(time_ns);
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < r->n[side]; i++)
			s->ntags[side] = r->t[side][i] + 1 > s->ntags[side] ? r->t[side][i] + 1 :
									       s->ntags[side];
	return 0;
}

/* Free @r's copies of its logs (they are no longer needed once its slope is learnt). */
static void free_logs(struct pg_rspeed_ref *r)
{
	for (int side = 0; side < 2; side++) {
		free(r->l[side]);
		free(r->t[side]);
		r->l[side] = NULL;
		r->t[side] = NULL;
	}
}

void pg_rspeed_release(struct pg_rspeed *s)
{
	for (size_t i = 0; i < s->nrefs; i++)
		free_logs(&s->ref[i]);
	free(s->ref);
	free(s->shifts);
	free(s->at);
	free(s->speed[0]);
	free(s->speed[1]);
	memset(s, 0, sizeof(*s));
}

static double mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / (double)n : 0;
}

/* s->shifts and s->at: the references' shifts (those not changed, or all when @all). 0 or
 * -ENOMEM. */
static int build_shifts(struct pg_rspeed *s, bool all)
{
	size_t n = 0, cap = s->nrefs ? s->nrefs : 1;
	struct pg_wmed_item *it = s->shifts ? s->shifts : malloc(cap * sizeof(*it));
	size_t *at = s->at ? s->at : malloc(cap * sizeof(*at));

	s->shifts = it;
	s->at = at;
	if (!it || !at)
		return -ENOMEM;
	for (size_t r = 0; r < s->nrefs; r++)
		if (all || !s->ref[r].changed)
			it[n++] = (struct pg_wmed_item){ .v = s->ref[r].d, .w = s->ref[r].w,
							 .owner = (uint32_t)r };
	pg_wmed_sort(it, n);
	s->nshifts = n;
	for (size_t r = 0; r < s->nrefs; r++)
		at[r] = n;
	for (size_t i = 0; i < n; i++)
		at[it[i].owner] = i;
	return 0;
}

/* The weighted median of the shifts without reference @self's (any other: none left out) */
static double shift_of(const struct pg_rspeed *s, size_t self)
{
	return pg_wmed(s->shifts, s->nshifts, self < s->nrefs ? s->at[self] : s->nshifts);
}

/* Reference @r's term of its slope from the repetition whose values, its own at position
 * @k, are @it[0..n) */
static void add_term(struct pg_rspeed *s, const struct pg_wmed_item *it, size_t n, size_t k)
{
	double u = pg_wmed(it, n, k);
	struct pg_rspeed_ref *r = &s->ref[it[k].owner];

	if (isnan(u))
		return;
	r->xy += it[k].v * u;
	r->xx += u * u;
}

/*
 * Run @side's repetitions one at a time: the kept references' distances from their run's mean
 * log in it, sorted; its speed into s->speed[side][tag], and each reference's term of its
 * slope on the speed without its own value. The values are put in their repetition's place by
 * one pass of counting, as (reference, value) indices. 0 or -ENOMEM.
 */
static int learn(struct pg_rspeed *s, int side)
{
	size_t nt = s->ntags[side], most = 0;
	size_t *at = calloc(nt + 1, sizeof(*at));
	double *m = malloc((s->nrefs ? s->nrefs : 1) * sizeof(*m));
	uint32_t (*ix)[2] = NULL;
	struct pg_wmed_item *it = NULL;
	int err = -ENOMEM;

	s->speed[side] = malloc((nt ? nt : 1) * sizeof(*s->speed[side]));
	if (!at || !m || !s->speed[side])
		goto out;
	for (size_t r = 0; r < s->nrefs; r++)	/* at[t + 1]: the values of tag t */
		for (size_t i = 0; !s->ref[r].changed && i < s->ref[r].n[side]; i++)
			at[s->ref[r].t[side][i] + 1]++;
	for (size_t t = 0; t < nt; t++) {	/* at[t]: where tag t's values start */
		most = at[t + 1] > most ? at[t + 1] : most;
		at[t + 1] += at[t];
	}
	ix = malloc((at[nt] ? at[nt] : 1) * sizeof(*ix));
	it = malloc((most ? most : 1) * sizeof(*it));
	if (!ix || !it)
		goto out;
	for (size_t r = 0; r < s->nrefs; r++) {
		const struct pg_rspeed_ref *f = &s->ref[r];

		m[r] = mean(f->l[side], f->n[side]);
		for (size_t i = 0; !f->changed && i < f->n[side]; i++) {
			ix[at[f->t[side][i]]][0] = (uint32_t)r;
			ix[at[f->t[side][i]]++][1] = (uint32_t)i;
		}
	}
	/* each at[t] is now where tag t's values end */
	for (size_t t = 0; t < nt; t++) {
		size_t from = t ? at[t - 1] : 0, n = at[t] - from;

		for (size_t k = 0; k < n; k++) {
			const struct pg_rspeed_ref *f = &s->ref[ix[from + k][0]];

			it[k] = (struct pg_wmed_item){ .v = f->l[side][ix[from + k][1]] -
							    m[ix[from + k][0]],
						       .w = f->w, .owner = ix[from + k][0] };
		}
		pg_wmed_sort(it, n);
		s->speed[side][t] = pg_wmed(it, n, n);
		for (size_t k = 0; k < n; k++)
			add_term(s, it, n, k);
	}
	err = 0;
out:
	free(at);
	free(m);
	free(ix);
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

/* The shifts, the references that changed by themselves, and whether it applies (the body of
 * pg_rspeed_finish(), which frees the copies of the logs after it). */
static int finish(struct pg_rspeed *s, double alpha, double min_effect, struct pg_stats_ws *ws)
{
	double all = 0, changed = 0;
	int err;

	if (s->nrefs < PG_RSPEED_MIN_REFS)
		return 0;
	for (size_t i = 0; i < s->nrefs; i++) {
		err = pg_hl_estimate_ws(s->ref[i].l[0], s->ref[i].n[0], s->ref[i].l[1],
					s->ref[i].n[1], ws, &s->ref[i].d);
		if (err)
			return err;
	}
	err = build_shifts(s, true);
	for (size_t i = 0; !err && i < s->nrefs; i++) {
		err = changed_alone(&s->ref[i], shift_of(s, i), alpha, min_effect, ws);
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
	err = build_shifts(s, false) ?: learn(s, 0) ?: learn(s, 1);
	if (err)
		return err;
	s->applied = true;
	s->shift = shift_of(s, SIZE_MAX);
	return 0;
}

int pg_rspeed_finish(struct pg_rspeed *s, double alpha, double min_effect,
		     struct pg_stats_ws *ws)
{
	int err;

	s->applied = false;
	s->shift = 0;
	s->nchanged = 0;
	err = finish(s, alpha, min_effect, ws);
	for (size_t i = 0; i < s->nrefs; i++)
		free_logs(&s->ref[i]);
	return err;
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

/* The sums of the slope, through 0, of a function that is no kept reference: its distances
 * from its run's mean on the repetitions' speeds, both runs together. */
static void slope(const struct pg_rspeed *s, const double *const l[2], const uint32_t *const t[2],
		  const size_t n[2], double *xy, double *xx)
{
	*xy = *xx = 0;
	for (int side = 0; side < 2; side++) {
		double m = mean(l[side], n[side]);

		for (size_t i = 0; i < n[side]; i++) {
			double u;

			if (t[side][i] >= s->ntags[side])
				continue;
			u = s->speed[side][t[side][i]];
			if (isnan(u))
				continue;
			*xy += (l[side][i] - m) * u;
			*xx += u * u;
		}
	}
}

double pg_rspeed_of(const struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		    size_t nb, const double *ln, const uint32_t *tn, size_t nn, double share,
		    double *beta)
{
	const double *l[2] = { lb, ln };
	const uint32_t *t[2] = { tb, tn };
	size_t n[2] = { nb, nn }, self;
	double c, xy, xx;

	*beta = 0;
	if (!s || !s->applied)
		return 0;
	self = ref_of(s, id);
	c = shift_of(s, self);
	if (isnan(c))
		return 0;
	if (self < s->nrefs && !s->ref[self].changed) {
		xy = s->ref[self].xy;	/* learnt by learn() */
		xx = s->ref[self].xx;
	} else {
		slope(s, l, t, n, &xy, &xx);
	}
	/* the speeds not varying, it follows the machine as far as its time is on a CPU */
	*beta = pg_speed_beta(xy, xx, share, share);
	return *beta * c;
}
