// SPDX-License-Identifier: MIT
/*
 * history/codec.c - series' values as blobs (codec.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../diff/stats.h"
#include "codec.h"

static size_t put_varint(uint8_t *p, uint64_t x)
{
	size_t k = 0;

	while (x >= 0x80) {
		p[k++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	p[k++] = (uint8_t)x;
	return k;
}

static int get_varint(const uint8_t *b, size_t len, size_t *at, uint64_t *x)
{
	*x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return -EINVAL;
		*x |= (uint64_t)(b[*at] & 0x7f) << shift;
		if (!(b[(*at)++] & 0x80))
			return 0;
	}
	return -EINVAL;
}

static void put_double(uint8_t *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(u >> (8 * i));
}

static double get_double(const uint8_t *p)
{
	uint64_t u = 0;
	double d;

	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	memcpy(&d, &u, sizeof(d));
	return d;
}

static bool all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] <= 0 || fabs(log(v[i])) > 700)
			return false;
	return true;
}

static bool all_counts(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] >= 0 && v[i] <= 9007199254740992.0 && v[i] == floor(v[i])))
			return false;
	return true;
}

int pg_hcodec_encode(const double *v, size_t n, int counts, uint8_t **out, size_t *len)
{
	uint8_t *p = malloc(1 + 10 + 8 + n * 10), *q;
	double ref, lref;

	*out = p;
	if (!p)
		return -ENOMEM;
	q = p + 1;
	if (counts && all_counts(v, n)) {
		*p = 'c';
		q += put_varint(q, n);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && v[j] == v[i]; j++)
				;
			q += put_varint(q, (uint64_t)v[i]);
			q += put_varint(q, j - i);
		}
	} else if (!counts && all_positive(v, n) && !isnan(ref = pg_median(v, n))) {
		*p = 'q';
		put_double(q, ref);
		q += 8;
		q += put_varint(q, n);
		lref = log(ref);
		for (size_t i = 0; i < n; i++) {
			int64_t k = llround((log(v[i]) - lref) / PG_HCODEC_STEP);

			q += put_varint(q, ((uint64_t)k << 1) ^ (uint64_t)(k >> 63));
		}
	} else {
		*p = 'd';
		q += put_varint(q, n);
		for (size_t i = 0; i < n; i++, q += 8)
			put_double(q, v[i]);
	}
	*len = (size_t)(q - p);
	return 0;
}

int pg_hcodec_decode(const uint8_t *b, size_t len, double **v, size_t *n)
{
	size_t at = 1, k = 0;
	uint64_t cnt, x, run;
	double ref = 0, *o;

	*v = NULL;
	*n = 0;
	if (len < 2 || (b[0] != 'q' && b[0] != 'c' && b[0] != 'd'))
		return -EINVAL;
	if (b[0] == 'q') {
		if (len < 10)
			return -EINVAL;
		ref = get_double(b + 1);
		at += 8;
		if (!isfinite(ref) || ref <= 0)
			return -EINVAL;
	}
	if (get_varint(b, len, &at, &cnt) || !cnt || cnt > PG_HCODEC_MAX_VALUES)
		return -EINVAL;
	o = malloc(cnt * sizeof(*o));
	if (!o)
		return -ENOMEM;
	while (k < cnt) {
		if (b[0] == 'd') {
			if (len - at < 8)
				break;
			o[k++] = get_double(b + at);
			at += 8;
		} else if (b[0] == 'q') {
			if (get_varint(b, len, &at, &x))
				break;
			o[k++] = ref * exp((double)((int64_t)(x >> 1) ^ -(int64_t)(x & 1)) *
					   PG_HCODEC_STEP);
		} else {
			if (get_varint(b, len, &at, &x) || get_varint(b, len, &at, &run) || !run ||
			    run > cnt - k)
				break;
			while (run--)
				o[k++] = (double)x;
		}
	}
	if (k < cnt || at != len) {
		free(o);
		return -EINVAL;
	}
	*v = o;
	*n = cnt;
	return 0;
}

int pg_hcodec_summary_encode(const int64_t *ids, const double *v, size_t n, uint8_t **ob,
			     size_t *olen, uint8_t **vb, size_t *vlen)
{
	uint8_t *o = malloc(n * 10 + 1), *p = malloc(n * 4 + 1);
	int64_t prev = 0;
	size_t k = 0;

	*ob = o;
	*vb = p;
	if (!o || !p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		float f = (float)v[i];
		uint32_t u;

		k += put_varint(o + k, (uint64_t)(ids[i] - prev));
		prev = ids[i];
		memcpy(&u, &f, 4);
		for (int b = 0; b < 4; b++)
			p[4 * i + b] = (uint8_t)(u >> (8 * b));
	}
	*olen = k;
	*vlen = 4 * n;
	return 0;
}

int pg_hcodec_summary_decode(const uint8_t *ob, size_t olen, const uint8_t *vb, size_t vlen,
			     int64_t **ids, double **v, size_t *n)
{
	size_t cnt = vlen / 4, at = 0;
	int64_t prev = 0;
	uint64_t d;

	*ids = NULL;
	*v = NULL;
	*n = 0;
	if (vlen % 4)
		return -EINVAL;
	*ids = malloc((cnt + 1) * sizeof(**ids));
	*v = malloc((cnt + 1) * sizeof(**v));
	if (!*ids || !*v) {
		free(*ids);
		free(*v);
		*ids = NULL;
		*v = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < cnt; i++) {
		uint32_t u = 0;
		float f;

		if (get_varint(ob, olen, &at, &d) || (i && !d))
			goto corrupt;
		prev += (int64_t)d;
		(*ids)[i] = prev;
		for (int b = 0; b < 4; b++)
			u |= (uint32_t)vb[4 * i + b] << (8 * b);
		memcpy(&f, &u, 4);
		(*v)[i] = f;
	}
	if (at != olen)
		goto corrupt;
	*n = cnt;
	return 0;
corrupt:
	free(*ids);
	free(*v);
	*ids = NULL;
	*v = NULL;
	return -EINVAL;
}

size_t pg_hcodec_put_varint(uint8_t *p, uint64_t x)
{
	return put_varint(p, x);
}

int pg_hcodec_get_varint(const uint8_t *b, size_t len, size_t *at, uint64_t *x)
{
	return get_varint(b, len, at, x);
}

size_t pg_hcodec_put_double(uint8_t *p, double d)
{
	put_double(p, d);
	return 8;
}

int pg_hcodec_get_double(const uint8_t *b, size_t len, size_t *at, double *d)
{
	if (*at > len || len - *at < 8)
		return -EINVAL;
	*d = get_double(b + *at);
	*at += 8;
	return 0;
}
