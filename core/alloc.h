/* SPDX-License-Identifier: MIT */
/*
 * core/alloc.h - the one way perfgate grows an array.
 *
 * Invariant: an array grown here is described by a pointer, a count of elements in use and a
 * capacity (elements allocated), with count <= capacity. Only PG_ALLOC_GROW changes the
 * capacity; the caller changes the count after the room is there. Growth is geometric
 * (half as much again, at least 8), so appending n elements costs O(n) copies in all.
 *
 *	struct thing *v = NULL;
 *	size_t n = 0, alloc = 0;
 *
 *	if (PG_ALLOC_GROW(v, n + 1, alloc))
 *		return -ENOMEM;		// v, n and alloc are unchanged
 *	v[n++] = t;
 *	...
 *	free(v);
 *
 * On failure the array and both numbers are left as they were (nothing is freed), so the
 * caller's cleanup path frees what it had. The new elements are not initialised.
 *
 * For arrays of the data model whose capacity is not stored (struct pg_run's funcs, reps,
 * stats: core/run.h), PG_ALLOC_GROW_POW2 derives it from the count instead: max(8, the next
 * power of two >= count). Such an array must only ever be grown by it, one element at a time.
 */
#ifndef PG_ALLOC_H
#define PG_ALLOC_H

#include <stddef.h>

/* Make room for @need elements of @elsize bytes in *@arr of capacity *@alloc. 0 or -ENOMEM. */
int pg_alloc_grow(void **arr, size_t elsize, size_t need, size_t *alloc);

/* Make room for element @n (0-based) of an array of @n elements with implicit capacity. */
int pg_alloc_grow_pow2(void **arr, size_t elsize, size_t n);

#define PG_ALLOC_GROW(arr, need, alloc) \
	pg_alloc_grow((void **)&(arr), sizeof(*(arr)), (need), &(alloc))
#define PG_ALLOC_GROW_POW2(arr, n) pg_alloc_grow_pow2((void **)&(arr), sizeof(*(arr)), (n))

#endif
