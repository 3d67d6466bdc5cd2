/* SPDX-License-Identifier: MIT */
/*
 * core/sort.h - orders that never depend on the sort that made them: a comparison of doubles
 * that orders NaN, indices sorted by a key with ties broken by index, the median, and the
 * selection of one order statistic the median and the Hodges-Lehmann estimate share.
 *
 * Why: qsort() leaves the order of equal elements unspecified (glibc's merge sort keeps them
 * in input order, musl's smoothsort does not), and a comparison that says neither of two
 * values comes first (NaN against anything) makes the order of a whole array unspecified. A
 * choice taken from such an order (which functions fill --max-funcs, which are dropped for
 * --budget and in what order they are named) could differ between two machines' C
 * libraries on the same profile. Every order here is total: the result is the same whatever
 * order the input came in.
 *
 *	pg_sort_idx_desc(cost, order, n);	// order[] holds the indices to sort
 *	for (size_t k = 0; k < n; k++)
 *		... cost[order[k]] largest first, equal costs by smaller index first
 */
#ifndef PG_SORT_H
#define PG_SORT_H

#include <stddef.h>
#include <stdint.h>

/* qsort() comparison of doubles, ascending, NaN after every number (all NaN equal). */
int pg_cmp_double(const void *a, const void *b);

/*
 * Sort the indices idx[0..n) (any subset of @keys' indices, in any order) by keys[idx[k]],
 * largest first, equal keys by the smaller index first, NaN keys last. Keys that are counts
 * (uint64_t) convert to double exactly below 2^53.
 */
void pg_sort_idx_desc(const double *keys, size_t *idx, size_t n);
/* The same for 32-bit indices. */
void pg_sort_idx32_desc(const double *keys, uint32_t *idx, size_t n);

/*
 * The median of v[0..n) (@v unchanged): the middle value, or the mean of the middle two of an
 * even count; NaN values sort last (a NaN in the middle makes it NaN). NAN when n is 0, or
 * when a copy of more than 64 values cannot be allocated. The middle values are selected, not
 * sorted for: O(n) on average.
 */
double pg_median(const double *v, size_t n);

/*
 * Rearrange v[lo..hi) so that v[k] is the value a sort would put there, with no larger value
 * before it and no smaller one after (k in [lo, hi)). No value is NaN (infinities are fine).
 * O(hi - lo) on average, O(n log n) at worst.
 */
void pg_select_kth(double *v, size_t lo, size_t hi, size_t k);

#endif
