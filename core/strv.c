// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "strv.h"

int pg_strv_push(char ***v, size_t *n, const char *s)
{
	char *c = strdup(s);

	if (!c || PG_ALLOC_GROW_POW2(*v, *n)) {
		free(c);
		return -ENOMEM;
	}
	(*v)[(*n)++] = c;
	return 0;
}

int pg_strv_dup(char ***dst, size_t *ndst, char *const *src, size_t n)
{
	char **v = NULL;
	size_t k = 0;

	*dst = NULL;
	*ndst = 0;
	for (size_t i = 0; i < n; i++) {
		if (pg_strv_push(&v, &k, src[i])) {
			pg_strv_free(v, k);
			return -ENOMEM;
		}
	}
	*dst = v;
	*ndst = k;
	return 0;
}

bool pg_strv_equal(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

void pg_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
