/* SPDX-License-Identifier: MIT */
/*
 * core/hist.h - sparse log-linear latency histograms (scheme in core/hist_bucket.h).
 *
 * struct pg_hist holds only non-empty buckets, sorted by strictly increasing bucket index.
 * The histogram owns its arrays, which share one allocation (count first, then idx: a run
 * file holds one histogram per function per repetition, most with a few buckets, and one
 * block each halves what malloc spends on them); only the functions here grow or free them,
 * and pg_hist_release() leaves an empty histogram. A zero-initialised struct pg_hist (or
 * PG_HIST_INIT) is a valid empty histogram.
 */
#ifndef PG_HIST_H
#define PG_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "hist_bucket.h"

struct pg_hist {
	uint32_t n;		/* number of non-empty buckets (<= PG_HIST_NBUCKETS) */
	uint32_t alloc;		/* capacity of idx/count (32 bits: a run file holds one
				 * histogram per function per repetition) */
	uint32_t *idx;		/* bucket indexes, strictly increasing, each < PG_HIST_NBUCKETS;
				 * at count + alloc, in count's block */
	uint64_t *count;	/* count[i] > 0 is the number of values in bucket idx[i]; the
				 * block both live in (NULL when alloc is 0) */
};

#define PG_HIST_INIT { 0, 0, NULL, NULL }

void pg_hist_init(struct pg_hist *h);
void pg_hist_release(struct pg_hist *h);

/* Lower bound (inclusive) and width in ns of bucket @idx. */
uint64_t pg_hist_bucket_lo(uint32_t idx);
uint64_t pg_hist_bucket_width(uint32_t idx);

/*
 * Make room for @n non-empty buckets in all, exactly (a reader that knows how many it will add
 * allocates no more). 0 or -ENOMEM (the histogram is unchanged).
 */
int pg_hist_reserve(struct pg_hist *h, size_t n);
/* Add @count values to bucket @idx (any order; keeps the arrays sorted). 0 or -ENOMEM/-EINVAL. */
int pg_hist_add(struct pg_hist *h, uint32_t idx, uint64_t count);
/* Add one value of @ns nanoseconds. */
int pg_hist_record(struct pg_hist *h, uint64_t ns);
/* dst += src, bucket by bucket. */
int pg_hist_merge(struct pg_hist *dst, const struct pg_hist *src);

uint64_t pg_hist_total(const struct pg_hist *h);

/*
 * Quantile @q in [0, 1] in ns, interpolating linearly inside the bucket that holds the rank
 * q * (total - 1) (the same rank convention as numpy's default "linear" method, applied to
 * bucket-uniform values). Returns NAN for an empty histogram.
 */
double pg_hist_quantile(const struct pg_hist *h, double q);

/*
 * An estimate of the sum of the largest floor(total * @trim) values (0 <= trim < 1), each
 * taken at its bucket's midpoint (exact below 64 ns); *n is set to how many that is.
 */
double pg_hist_top_sum(const struct pg_hist *h, double trim, uint64_t *n);

#endif
