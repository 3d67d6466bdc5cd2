// SPDX-License-Identifier: MIT
/*
 * diff/speedlib.c - the primitives of the corrections for the machine's speed (speedlib.h).
 */
#include "speedlib.h"

#include <math.h>
#include <stdbool.h>
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

/* Is @a before @b: by group, value, then owner */
static inline bool before(const struct pg_wmed_item *a, const struct pg_wmed_item *b)
{
	if (a->group != b->group)
		return a->group < b->group;
	if (a->v != b->v)
		return a->v < b->v;
	return a->owner < b->owner;
}

static inline void swap(struct pg_wmed_item *a, struct pg_wmed_item *b)
{
	struct pg_wmed_item t = *a;

	*a = *b;
	*b = t;
}

static void insertion(struct pg_wmed_item *it, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct pg_wmed_item x = it[i];
		size_t j = i;

		for (; j && before(&x, &it[j - 1]); j--)
			it[j] = it[j - 1];
		it[j] = x;
	}
}

/*
 * Quicksort with the comparison inlined (a compare of 10,000 functions sorts 60 repetitions of
 * 10,000 values; qsort()'s call per comparison was most of it): the median of three as pivot,
 * the smaller part first and the larger one looped on (depth O(log n)), insertion sort below
 * 16. The order is total (owners differ within a group), so any sort gives the same result.
 */
static void sort(struct pg_wmed_item *it, size_t n)
{
	while (n > 16) {
		size_t mid = n / 2, i = 0, j = n - 1;
		struct pg_wmed_item p;

		if (before(&it[mid], &it[0]))
			swap(&it[mid], &it[0]);
		if (before(&it[n - 1], &it[mid])) {
			swap(&it[n - 1], &it[mid]);
			if (before(&it[mid], &it[0]))
				swap(&it[mid], &it[0]);
		}
		p = it[mid];
		/* Hoare's partition: it[0..i) not after p, it(j..n) not before it */
		for (;;) {
			while (before(&it[i], &p))
				i++;
			while (before(&p, &it[j]))
				j--;
			if (i >= j)
				break;
			swap(&it[i++], &it[j--]);
		}
		/* it[0..j] before or at p, it[j + 1..n) at or after it */
		if (j + 1 < n - j - 1) {
			sort(it, j + 1);
			it += j + 1;
			n -= j + 1;
		} else {
			sort(it + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	insertion(it, n);
}

void pg_wmed_sort(struct pg_wmed_item *it, size_t n)
{
	double sum = 0;

	sort(it, n);
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
