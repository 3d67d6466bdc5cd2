// SPDX-License-Identifier: MIT
/*
 * diff/speed.c - the machine's speed in each pair of an interleaved session (diff/speed.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "speed.h"
#include "stats.h"

int pg_speed_init(struct pg_speed *s, size_t npairs)
{
	memset(s, 0, sizeof(*s));
	s->p = NAN;
	s->npairs = npairs;
	s->c = calloc(npairs ? npairs : 1, sizeof(*s->c));
	return s->c ? 0 : -ENOMEM;
}

void pg_speed_release(struct pg_speed *s)
{
	free(s->c);
	free(s->v);
	free(s->ref);
	s->c = NULL;
	s->v = NULL;
	s->ref = NULL;
	s->nv = s->alloc = 0;
	s->nrefs = s->ref_alloc = 0;
}

int pg_speed_add(struct pg_speed *s, const double *d, const uint32_t *pairs, size_t nd,
		 double time_ns, uint32_t id)
{
	double w = sqrt(time_ns > 1 ? time_ns : 1), *own;
	size_t n = 0;

	if (PG_ALLOC_GROW(s->v, s->nv + nd, s->alloc) ||
	    PG_ALLOC_GROW(s->ref, s->nrefs + 1, s->ref_alloc))
		return -ENOMEM;
	own = malloc((nd ? nd : 1) * sizeof(*own));
	if (!own)
		return -ENOMEM;
	for (size_t i = 0; i < nd; i++) {
		if (pairs[i] >= s->npairs || !isfinite(d[i]))
			continue;
		s->v[s->nv++] = (struct pg_speed_val){ pairs[i], id, d[i], w, 1 };
		own[n++] = d[i];
	}
	s->ref[s->nrefs] = (struct pg_speed_val){ 0, id, n ? pg_median(own, n) : 0, n ? w : 0, 1 };
	if (n) {
		struct pg_wsr t;
		int err = pg_wsr_test(own, n, &t);

		if (err) {
			free(own);
			return err;
		}
		s->ref[s->nrefs].p = t.p;
	}
	s->nrefs++;
	free(own);
	return 0;
}

/* Did reference @x change by itself: its own differences, uncorrected, significant at @alpha
 * with a median of at least @min_effect either way (see the top)? */
static bool changed_alone(const struct pg_speed_val *x, double alpha, double min_effect)
{
	return x->p <= alpha && fabs(expm1(x->d)) >= min_effect;
}

/* Leave out the references that changed by themselves, and their values. */
static void drop_changed(struct pg_speed *s, double alpha, double min_effect)
{
	size_t nr = 0, nv = 0;

	for (size_t r = 0; r < s->nrefs; r++) {
		const struct pg_speed_val *x = &s->ref[r];

		if (changed_alone(x, alpha, min_effect)) {
			for (size_t i = 0; i < s->nv; i++)
				if (s->v[i].id == x->id)
					s->v[i].id = PG_SPEED_NO_ID;
			continue;
		}
		s->ref[nr++] = *x;
	}
	s->nrefs = nr;
	for (size_t i = 0; i < s->nv; i++)
		if (s->v[i].id != PG_SPEED_NO_ID)
			s->v[nv++] = s->v[i];
	s->nv = nv;
}

/* Do the references that changed by themselves hold half the references' weight or more?
 * *@unchanged: how many did not. */
static bool most_changed(const struct pg_speed *s, double alpha, double min_effect,
			 size_t *unchanged)
{
	double all = 0, changed = 0;

	*unchanged = 0;
	for (size_t r = 0; r < s->nrefs; r++) {
		bool c = changed_alone(&s->ref[r], alpha, min_effect);

		all += s->ref[r].w;
		changed += c ? s->ref[r].w : 0;
		*unchanged += !c;
	}
	return all > 0 && 2 * changed >= all;
}

/*
 * The weighted median of the values of v[0..n) (sorted by d) but those of reference @skip: the
 * first d at which the weights reach half their sum, or the mean of it and the next when they
 * reach it exactly (equal weights give the plain median). 0 when no value is left.
 */
static double weighted_median(const struct pg_speed_val *v, size_t n, uint32_t skip)
{
	double total = 0, cum = 0;
	size_t t, next;

	for (t = 0; t < n; t++)
		total += v[t].id == skip ? 0 : v[t].w;
	for (t = 0; t < n; t = next) {
		for (; t < n && v[t].id == skip; t++)
			;
		if (t == n)
			break;
		for (next = t + 1; next < n && v[next].id == skip; next++)
			;
		cum += v[t].w;
		if (next == n)
			return v[t].d;
		if (cum == total / 2)
			return (v[t].d + v[next].d) / 2;
		if (cum > total / 2)
			return v[t].d;
	}
	return 0;
}

static int cmp_val(const void *pa, const void *pb)
{
	const struct pg_speed_val *a = pa, *b = pb;

	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	return (a->d > b->d) - (a->d < b->d);
}

/* Every pair's c[k] from the values of s->v (sorted here), their magnitudes into mag[], and
 * their count; a pair with fewer than PG_SPEED_MIN_REFS values has none (0). */
static size_t speeds(struct pg_speed *s, double *c, double *mag)
{
	size_t nc = 0;

	memset(s->c, 0, s->npairs * sizeof(*s->c));
	qsort(s->v, s->nv, sizeof(*s->v), cmp_val);
	for (size_t i = 0, j; i < s->nv; i = j) {
		size_t n, k = s->v[i].pair;

		for (j = i; j < s->nv && s->v[j].pair == k; j++)
			;
		n = j - i;
		if (n < PG_SPEED_MIN_REFS)
			continue;
		/* sorted by d within the pair */
		s->c[k] = weighted_median(s->v + i, n, PG_SPEED_NO_ID);
		c[nc] = s->c[k];
		mag[nc++] = fabs(s->c[k]);
	}
	return nc;
}

int pg_speed_finish(struct pg_speed *s, double alpha, double min_effect)
{
	double *c = malloc((s->npairs ? s->npairs : 1) * sizeof(*c));
	double *mag = malloc((s->npairs ? s->npairs : 1) * sizeof(*mag));
	size_t nc, unchanged;
	bool moved;
	struct pg_wsr w;
	int err = -ENOMEM;

	if (!c || !mag)
		goto out;
	/* the machine, from the references that did not change by themselves, unless most did
	 * or too few are left (then all, each corrected without its own values) */
	moved = most_changed(s, alpha, min_effect, &unchanged);
	if (!moved && unchanged >= PG_SPEED_MIN_REFS)
		drop_changed(s, alpha, min_effect);
	nc = speeds(s, c, mag);
	err = 0;
	if (nc < PG_SPEED_MIN_PAIRS)
		goto none;
	s->spread = pg_median(mag, nc);
	qsort(s->ref, s->nrefs, sizeof(*s->ref), cmp_val);
	s->shift = weighted_median(s->ref, s->nrefs, PG_SPEED_NO_ID);
	err = pg_wsr_test(c, nc, &w);
	if (err)
		goto out;
	s->p = w.p;
	if (moved || (s->p <= alpha && fabs(expm1(s->shift)) >= min_effect))
		goto none;
	s->applied = true;
	goto out;
none:
	memset(s->c, 0, s->npairs * sizeof(*s->c));
out:
	free(c);
	free(mag);
	return err;
}

/*
 * c[k] for the function @id: without its own values when it is a reference (PG_SPEED_NO_ID:
 * c[k] itself). As in pg_speed_finish(), a pair with fewer than PG_SPEED_MIN_REFS values has
 * none. s->v is sorted by pair.
 */
static double speed_for(const struct pg_speed *s, uint32_t k, uint32_t id)
{
	size_t lo = 0, hi = s->nv, end;

	if (k >= s->npairs)
		return 0;
	if (id == PG_SPEED_NO_ID)
		return s->c[k];
	while (lo < hi) {	/* the first value of pair k */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].pair < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < s->nv && s->v[end].pair == k; end++)
		;
	return end - lo < PG_SPEED_MIN_REFS ? 0 : weighted_median(s->v + lo, end - lo, id);
}

void pg_speed_correct(const struct pg_speed *s, double *d, const uint32_t *pairs, size_t nd,
		      double share, uint32_t id)
{
	double dc = 0, cc = 0, beta;
	bool ref = false;

	if (!s || !s->applied)
		return;
	for (size_t i = 0; i < s->nrefs && id != PG_SPEED_NO_ID; i++)
		ref = ref || s->ref[i].id == id;
	if (!ref)
		id = PG_SPEED_NO_ID;
	for (size_t i = 0; i < nd; i++) {
		double ck = speed_for(s, pairs[i], id);

		dc += d[i] * ck;
		cc += ck * ck;
	}
	/* how much of the machine's speed this function's differences follow (see the top) */
	beta = cc > 0 ? fmin(fmax(dc / cc, 0), share) : 0;
	for (size_t i = 0; i < nd; i++)
		d[i] -= beta * speed_for(s, pairs[i], id);
}
