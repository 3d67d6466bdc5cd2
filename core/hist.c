// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

void pg_hist_init(struct pg_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void pg_hist_release(struct pg_hist *h)
{
	free(h->count);		/* the block idx lives in too */
	pg_hist_init(h);
}

/* Move the buckets into one new block with room for @n (>= h->n). 0 or -ENOMEM. */
static int hist_realloc(struct pg_hist *h, size_t n)
{
	uint64_t *block;
	uint32_t *idx;

	if (n > PG_HIST_NBUCKETS)	/* never more buckets than there are */
		n = PG_HIST_NBUCKETS;
	block = malloc(n * (sizeof(*block) + sizeof(*idx)));
	if (!block)
		return -ENOMEM;
	idx = (uint32_t *)(block + n);
	if (h->n) {
		memcpy(block, h->count, h->n * sizeof(*block));
		memcpy(idx, h->idx, h->n * sizeof(*idx));
	}
	free(h->count);
	h->count = block;
	h->idx = idx;
	h->alloc = (uint32_t)n;
	return 0;
}

uint64_t pg_hist_bucket_lo(uint32_t idx)
{
	uint32_t e, sub;

	if (idx < PG_HIST_SUB)
		return idx;
	e = (idx - PG_HIST_SUB) / PG_HIST_SUB + PG_HIST_SUB_BITS;
	sub = (idx - PG_HIST_SUB) % PG_HIST_SUB;
	return (uint64_t)(PG_HIST_SUB + sub) << (e - PG_HIST_SUB_BITS);
}

uint64_t pg_hist_bucket_width(uint32_t idx)
{
	uint32_t e;

	if (idx < PG_HIST_SUB)
		return 1;
	e = (idx - PG_HIST_SUB) / PG_HIST_SUB + PG_HIST_SUB_BITS;
	return 1ULL << (e - PG_HIST_SUB_BITS);
}

int pg_hist_reserve(struct pg_hist *h, size_t n)
{
	return n <= h->alloc ? 0 : hist_realloc(h, n);
}

int pg_hist_add(struct pg_hist *h, uint32_t idx, uint64_t count)
{
	size_t lo = 0, hi = h->n;

	if (idx >= PG_HIST_NBUCKETS)
		return -EINVAL;
	if (!count)
		return 0;
	/* fast path: appending in order */
	if (h->n && h->idx[h->n - 1] < idx) {
		lo = h->n;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (h->idx[mid] < idx)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < h->n && h->idx[lo] == idx) {
			h->count[lo] += count;
			return 0;
		}
	}
	if (h->n == h->alloc &&
	    hist_realloc(h, h->alloc + h->alloc / 2 > h->alloc + 4 ? h->alloc + h->alloc / 2 :
			 h->alloc + 4))
		return -ENOMEM;
	memmove(h->idx + lo + 1, h->idx + lo, (h->n - lo) * sizeof(*h->idx));
	memmove(h->count + lo + 1, h->count + lo, (h->n - lo) * sizeof(*h->count));
	h->idx[lo] = idx;
	h->count[lo] = count;
	h->n++;
	return 0;
}

int pg_hist_record(struct pg_hist *h, uint64_t ns)
{
	return pg_hist_add(h, pg_hist_bucket(ns), 1);
}

int pg_hist_merge(struct pg_hist *dst, const struct pg_hist *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int err = pg_hist_add(dst, src->idx[i], src->count[i]);

		if (err)
			return err;
	}
	return 0;
}

uint64_t pg_hist_total(const struct pg_hist *h)
{
	uint64_t t = 0;

	for (size_t i = 0; i < h->n; i++)
		t += h->count[i];
	return t;
}

double pg_hist_quantile(const struct pg_hist *h, double q)
{
	uint64_t total = pg_hist_total(h);
	double rank, before = 0;

	if (!total)
		return NAN;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = q * (double)(total - 1);
	for (size_t i = 0; i < h->n; i++) {
		double c = (double)h->count[i];

		if (rank < before + c) {
			/* values of this bucket sit at lo + (k + 0.5) * width / c, k = 0..c-1 */
			double lo = (double)pg_hist_bucket_lo(h->idx[i]);
			double w = (double)pg_hist_bucket_width(h->idx[i]);

			if (h->idx[i] < PG_HIST_SUB)
				return lo;
			return lo + (rank - before + 0.5) * w / c;
		}
		before += c;
	}
	return (double)pg_hist_bucket_lo(h->idx[h->n - 1]);
}

double pg_hist_top_sum(const struct pg_hist *h, double trim, uint64_t *n)
{
	uint64_t total = pg_hist_total(h), left;
	double sum = 0;

	if (trim < 0)
		trim = 0;
	left = *n = (uint64_t)((double)total * trim);
	for (size_t i = h->n; i-- > 0 && left;) {
		uint64_t c = h->count[i] < left ? h->count[i] : left;
		double mid = (double)pg_hist_bucket_lo(h->idx[i]);

		if (h->idx[i] >= PG_HIST_SUB)
			mid += (double)pg_hist_bucket_width(h->idx[i]) / 2;
		sum += mid * (double)c;
		left -= c;
	}
	return sum;
}
