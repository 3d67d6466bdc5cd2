/* SPDX-License-Identifier: MIT */
/* tests/unit/util.h - small helpers shared by the cmocka tests (include after cmocka.h). */
#ifndef PG_TEST_UTIL_H
#define PG_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

/* The whole file @path as a NUL-terminated string (malloc'd); *len (may be NULL) its size.
 * Fails the test if it cannot be read. */
static inline char *pg_test_slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	if (len)
		*len = n;
	return s;
}

#endif
