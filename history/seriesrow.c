// SPDX-License-Identifier: MIT
/*
 * history/seriesrow.c - the series table's rows: an object's series in one blob and back
 * (seriesrow.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "seriesrow.h"

/*
 * A function's total time that is its self time (a leaf's) as an alias of it: *@blob
 * (malloc'd) and 1 returned; 0 otherwise, or -ENOMEM.
 */
static int alias(const struct pg_hrecord *r, const struct pg_hseries *x, uint8_t **blob,
		 size_t *len)
{
	const struct pg_hseries *self = x->metric == PG_HM_TOTAL ?
					pg_hrecord_find(r, x->object, PG_HM_SELF) : NULL;

	if (!self || self->n != x->n || memcmp(self->v, x->v, x->n * sizeof(*x->v)))
		return 0;
	*blob = malloc(2);
	if (!*blob)
		return -ENOMEM;
	(*blob)[0] = PG_HCODEC_ALIAS;
	(*blob)[1] = PG_HM_SELF;
	*len = 2;
	return 1;
}

/* A series' blob, its alias or its encoding: *@blob (malloc'd). 0 or -ENOMEM. */
static int series_blob(const struct pg_hrecord *r, const struct pg_hseries *x, uint8_t **blob,
		       size_t *len)
{
	int err;

	*blob = NULL;
	err = alias(r, x, blob, len);
	if (!err)
		err = pg_hcodec_encode(x->v, x->n, x->metric == PG_HM_CALLS, blob, len);
	if (err < 0) {
		free(*blob);
		*blob = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pg_hrow_append(uint8_t **row, size_t *n, size_t *cap, int metric, const uint8_t *b,
		   size_t len)
{
	/* the metric's byte and at most 10 of varint */
	if (*n + len + 11 > *cap) {
		size_t c = 2 * (*n + len + 11);
		uint8_t *tmp = realloc(*row, c);

		if (!tmp)
			return -ENOMEM;
		*row = tmp;
		*cap = c;
	}
	(*row)[(*n)++] = (uint8_t)metric;
	*n += pg_hcodec_put_varint(*row + *n, len);
	memcpy(*row + *n, b, len);
	*n += len;
	return 0;
}

int pg_hrow_encode(const struct pg_hrecord *r, size_t *at, uint8_t **blob, size_t *len)
{
	uint32_t obj = r->series[*at].object;
	size_t cap = 0;
	int err = 0;

	*blob = NULL;
	*len = 0;
	for (; !err && *at < r->nseries && r->series[*at].object == obj; (*at)++) {
		const struct pg_hseries *x = &r->series[*at];
		uint8_t *one;
		size_t olen;

		err = series_blob(r, x, &one, &olen);
		err = err ?: pg_hrow_append(blob, len, &cap, x->metric, one, olen);
		free(one);
	}
	if (err) {
		free(*blob);
		*blob = NULL;
	}
	return err;
}

/* In the row's blob b[0..len), the blob of @metric's series: *@at and *@n (*@n = 0: none). */
static int find_metric(const uint8_t *b, size_t len, int metric, size_t *at, size_t *n)
{
	size_t i = 0;

	*n = 0;
	while (i < len) {
		int m = b[i++];
		uint64_t l;

		if (pg_hcodec_get_varint(b, len, &i, &l) || l == 0 || l > len - i)
			return -EINVAL;
		if (m == metric) {
			*at = i;
			*n = l;
			return 0;
		}
		i += l;
	}
	return 0;
}

int pg_hrow_decode(const uint8_t *b, size_t len, int metric, double **v, size_t *n)
{
	size_t at = 0, l = 0;
	int err = find_metric(b, len, metric, &at, &l);

	*v = NULL;
	*n = 0;
	/* an alias: the series it names (which is no alias) */
	if (!err && l == 2 && b[at] == PG_HCODEC_ALIAS && b[at + 1] != metric) {
		err = pg_hmetric_name(b[at + 1]) ? find_metric(b, len, b[at + 1], &at, &l) :
						   -EINVAL;
		err = err ?: (l == 2 && b[at] == PG_HCODEC_ALIAS ? -EINVAL : 0);
	}
	return err ?: (l ? pg_hcodec_decode(b + at, l, v, n) : 0);
}

int pg_hrow_put(struct hrows *w, int64_t session, int64_t object, const uint8_t *b, size_t len)
{
	return hrows_int(w, 1, session) ?: hrows_int(w, 2, object) ?: hrows_blob(w, 3, b, len) ?:
	       hrows_put(w);
}
