// SPDX-License-Identifier: MIT
/*
 * core/sort.c - orders that never depend on the sort that made them (sort.h).
 */
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	/* NaN sorts last so that the order is total */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

/* keys[i] before keys[j]: larger first, NaN last, then the smaller index */
static int desc(const double *keys, size_t i, size_t j)
{
	int c = pg_cmp_double(&keys[j], &keys[i]);

	/* NaN is "largest" to pg_cmp_double(): reversed, it would lead; put it last again */
	if (isnan(keys[i]) != isnan(keys[j]))
		c = isnan(keys[i]) ? 1 : -1;
	return c ? c : (i > j) - (i < j);
}

static int cmp_idx_desc(const void *a, const void *b, void *keys)
{
	return desc(keys, *(const size_t *)a, *(const size_t *)b);
}

static int cmp_idx32_desc(const void *a, const void *b, void *keys)
{
	return desc(keys, *(const uint32_t *)a, *(const uint32_t *)b);
}

void pg_sort_idx_desc(const double *keys, size_t *idx, size_t n)
{
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_idx_desc, (void *)keys);
}

void pg_sort_idx32_desc(const double *keys, uint32_t *idx, size_t n)
{
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_idx32_desc, (void *)keys);
}

/*
 * Quickselect, partitioning without branches on the data (random differences would mispredict
 * half of them); a range that does not shrink fast enough is sorted instead, so the worst case
 * stays O(n log n).
 */
void pg_select_kth(double *v, size_t lo, size_t hi, size_t k)
{
	int budget = 64;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, eq;
		double a = v[lo], b = v[mid], c = v[hi - 1], p;

		if (!budget--) {
			qsort(v + lo, hi - lo, sizeof(*v), pg_cmp_double);
			return;
		}
		p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		/* [lo, lt) < p, then [lt, eq) == p, the rest > p */
		for (size_t i = lo; i < hi; i++) {
			double x = v[i];

			v[i] = v[lt];
			v[lt] = x;
			lt += x < p;
		}
		eq = lt;
		for (size_t i = lt; i < hi; i++) {
			double x = v[i];

			v[i] = v[eq];
			v[eq] = x;
			eq += x == p;
		}
		if (k < lt)
			hi = lt;
		else if (k >= eq)
			lo = eq;
		else
			return;
	}
}

/* The middle value(s) are selected, not sorted for: the same values in linear time. */
double pg_median(const double *v, size_t n)
{
	double buf[64], *s, m, below;

	if (!n)
		return NAN;
	if (n == 1)
		return v[0];
	s = n <= 64 ? buf : malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		if (isnan(s[i])) {
			/* pg_select_kth() wants no NaN: sorted, NaN last (pg_cmp_double()) */
			qsort(s, n, sizeof(*s), pg_cmp_double);
			m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
			goto out;
		}
	}
	pg_select_kth(s, 0, n, n / 2);
	m = s[n / 2];
	if (n % 2 == 0) {
		below = s[0];
		for (size_t i = 1; i < n / 2; i++)
			below = s[i] > below ? s[i] : below;
		m = (below + m) / 2;
	}
out:
	if (s != buf)
		free(s);
	return m;
}
