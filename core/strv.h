/* SPDX-License-Identifier: MIT */
/*
 * core/strv.h - string vectors: an array of @n malloc'd NUL-terminated strings.
 *
 * A string vector is a pair (char **v, size_t n) as the data model holds them (a command's
 * argv, -f and -x filters in struct pg_meta: core/run.h). Invariants: v is NULL exactly when
 * n == 0, or was allocated by these functions; every v[i] is a malloc'd string owned by the
 * vector; v is not NULL-terminated unless the caller adds the terminator itself.
 *
 *	char **v = NULL;
 *	size_t n = 0;
 *
 *	if (pg_strv_push(&v, &n, "zstd") || pg_strv_push(&v, &n, "-3"))
 *		goto cleanup;
 *	...
 * cleanup:
 *	pg_strv_free(v, n);
 *
 * Growth is PG_ALLOC_GROW_POW2 (core/alloc.h): push one string at a time.
 */
#ifndef PG_STRV_H
#define PG_STRV_H

#include <stdbool.h>
#include <stddef.h>

/* Append a copy of @s. 0 or -ENOMEM (the vector is unchanged). */
int pg_strv_push(char ***v, size_t *n, const char *s);

/*
 * *dst, *ndst = a deep copy of @src (n strings, none NULL). *dst is NULL for n == 0.
 * On -ENOMEM nothing is allocated and *dst, *ndst are NULL, 0. The old *dst is not freed.
 */
int pg_strv_dup(char ***dst, size_t *ndst, char *const *src, size_t n);

/* Same strings in the same order. */
bool pg_strv_equal(char *const *a, size_t na, char *const *b, size_t nb);

/* Free every string and the array; NULL with n == 0 is fine. */
void pg_strv_free(char **v, size_t n);

#endif
