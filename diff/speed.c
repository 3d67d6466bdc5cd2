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
#include "speedlib.h"
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
	double w = pg_speed_weight(time_ns), *own;
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
		s->v[s->nv++] = (struct pg_wmed_item){ .v = d[i], .w = w, .group = pairs[i],
						       .owner = id };
		own[n++] = d[i];
	}
	s->ref[s->nrefs] = (struct pg_speed_ref){ id, n ? pg_median(own, n) : 0, n ? w : 0, 1 };
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
static bool changed_alone(const struct pg_speed_ref *x, double alpha, double min_effect)
{
	return x->p <= alpha && fabs(expm1(x->d)) >= min_effect;
}

/* Leave out the references that changed by themselves, and their values. */
static void drop_changed(struct pg_speed *s, double alpha, double min_effect)
{
	size_t nr = 0, nv = 0;

	for (size_t r = 0; r < s->nrefs; r++) {
		const struct pg_speed_ref *x = &s->ref[r];

		if (changed_alone(x, alpha, min_effect)) {
			for (size_t i = 0; i < s->nv; i++)
				if (s->v[i].owner == x->id)
					s->v[i].owner = PG_SPEED_NO_ID;
			continue;
		}
		s->ref[nr++] = *x;
	}
	s->nrefs = nr;
	for (size_t i = 0; i < s->nv; i++)
		if (s->v[i].owner != PG_SPEED_NO_ID)
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

/* Every pair's c[k] from the values of s->v (sorted here), their magnitudes into mag[], and
 * their count; a pair with fewer than PG_SPEED_MIN_REFS values has none (0). */
static size_t speeds(struct pg_speed *s, double *c, double *mag)
{
	size_t nc = 0;

	memset(s->c, 0, s->npairs * sizeof(*s->c));
	pg_wmed_sort(s->v, s->nv);
	for (size_t i = 0, j; i < s->nv; i = j) {
		size_t n, k = s->v[i].group;

		for (j = i; j < s->nv && s->v[j].group == k; j++)
			;
		n = j - i;
		if (n < PG_SPEED_MIN_REFS)
			continue;
		s->c[k] = pg_wmed(s->v + i, n, n);
		c[nc] = s->c[k];
		mag[nc++] = fabs(s->c[k]);
	}
	return nc;
}

/* s->shift: the weighted median of the references' median d. 0 or -ENOMEM. */
static int shift(struct pg_speed *s)
{
	struct pg_wmed_item *it = malloc((s->nrefs ? s->nrefs : 1) * sizeof(*it));

	if (!it)
		return -ENOMEM;
	for (size_t r = 0; r < s->nrefs; r++)
		it[r] = (struct pg_wmed_item){ .v = s->ref[r].d, .w = s->ref[r].w,
					       .owner = s->ref[r].id };
	pg_wmed_sort(it, s->nrefs);
	s->shift = s->nrefs ? pg_wmed(it, s->nrefs, s->nrefs) : 0;
	free(it);
	return 0;
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
	err = shift(s);
	if (err)
		goto out;
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
	size_t lo, end, n;
	double c;

	if (k >= s->npairs)
		return 0;
	if (id == PG_SPEED_NO_ID)
		return s->c[k];
	lo = pg_wmed_find(s->v, s->nv, k, &end);
	n = end - lo;
	if (n < PG_SPEED_MIN_REFS)
		return 0;
	c = pg_wmed(s->v + lo, n, pg_wmed_pos(s->v + lo, n, id));
	return isnan(c) ? 0 : c;
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
	beta = pg_speed_beta(dc, cc, share, 0);
	for (size_t i = 0; i < nd; i++)
		d[i] -= beta * speed_for(s, pairs[i], id);
}
