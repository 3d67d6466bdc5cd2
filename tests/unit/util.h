/* SPDX-License-Identifier: MIT */
/* tests/unit/util.h - small helpers shared by the cmocka tests (include after cmocka.h). */
#ifndef PG_TEST_UTIL_H
#define PG_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Uniform in (0, 1) from a 64-bit LCG at *@state: the same sequence everywhere. */
static inline double pg_test_unif(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((*state >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller) from the same generator. */
static inline double pg_test_gauss(uint64_t *state)
{
	double u = pg_test_unif(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * pg_test_unif(state));
}

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
