// SPDX-License-Identifier: MIT
/*
 * diff/speedlib.c - the primitives of the corrections for the machine's speed (speedlib.h).
 */
#include "speedlib.h"

#include <math.h>
#include <stdlib.h>

double pg_speed_weight(double time_ns)
{
	return sqrt(time_ns > 1 ? time_ns : 1);
}

double pg_speed_beta(double sxy, double sxx, double share, double flat)
{
	double b;

	if (!(sxx > 0))
		return flat;
	b = sxy / sxx;
	return b < 0 ? 0 : b > share ? share : b;
}

static int cmp_item(const void *pa, const void *pb)
{
	const struct pg_wmed_item *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->owner > b->owner) - (a->owner < b->owner);
}

void pg_wmed_sort(struct pg_wmed_item *it, size_t n)
{
	double sum = 0;

	qsort(it, n, sizeof(*it), cmp_item);
	for (size_t i = 0; i < n; i++) {
		sum = i && it[i].group == it[i - 1].group ? sum + it[i].w : it[i].w;
		it[i].cum = sum;
	}
}

size_t pg_wmed_find(const struct pg_wmed_item *it, size_t n, uint32_t group, size_t *end)
{
	size_t lo = 0, hi = n, e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (it[mid].group < group)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < n && it[e].group == group; e++)
		;
	*end = e;
	return lo < e ? lo : n;
}

size_t pg_wmed_pos(const struct pg_wmed_item *g, size_t n, uint32_t owner)
{
	for (size_t i = n; i-- > 0;)
		if (g[i].owner == owner)
			return i;
	return n;
}

/* The running weight of g[0..i] without the one at @skip (weight @wk) */
static inline double running(const struct pg_wmed_item *g, size_t i, size_t skip, double wk)
{
	return g[i].cum - (i >= skip ? wk : 0);
}

double pg_wmed(const struct pg_wmed_item *g, size_t n, size_t skip)
{
	double wk, half, tol;
	size_t lo = 0, hi, next;

	if (skip > n)
		skip = n;
	if (!n || (n == 1 && skip == 0))
		return NAN;
	wk = skip < n ? g[skip].w : 0;
	half = (g[n - 1].cum - wk) / 2;
	tol = PG_WMED_TIE_REL * g[n - 1].cum;
	/* the first position whose running weight reaches half; it never grows at @skip */
	hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (running(g, mid, skip, wk) >= half - tol)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == skip)
		lo++;	/* skip == 0 and weights so small that 0 reached half less tol */
	if (lo >= n)
		return NAN;
	if (fabs(running(g, lo, skip, wk) - half) > tol)
		return g[lo].v;
	/* half exactly: the mean of it and the next value left in */
	next = lo + 1 == skip ? lo + 2 : lo + 1;
	return next < n ? (g[lo].v + g[next].v) / 2 : g[lo].v;
}
