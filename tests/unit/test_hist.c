// SPDX-License-Identifier: MIT
/* Unit tests of core/hist.c and core/hist_bucket.h: bucket scheme, sparse arrays, quantiles. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/hist.h"

#define LAST (PG_HIST_NBUCKETS - 1)

static void test_scheme_constants(void **state)
{
	/* 64 exact buckets, then 64 per power of two from 2^6 to 2^41 */
	assert_int_equal(PG_HIST_SUB, 64);
	assert_int_equal(PG_HIST_NBUCKETS, 64 + 36 * 64);
}

static void test_log2(void **state)
{
	assert_int_equal(pg_log2_u64(1), 0);
	for (unsigned int k = 1; k < 64; k++) {
		unsigned long long p = 1ULL << k;

		assert_int_equal(pg_log2_u64(p), k);
		assert_int_equal(pg_log2_u64(p - 1), k - 1);
		assert_int_equal(pg_log2_u64(p + 1), k);
	}
	assert_int_equal(pg_log2_u64(UINT64_MAX), 63);
}

static void test_exact_buckets(void **state)
{
	for (uint32_t v = 0; v < 64; v++) {
		assert_int_equal(pg_hist_bucket(v), v);
		assert_int_equal(pg_hist_bucket_lo(v), v);
		assert_int_equal(pg_hist_bucket_width(v), 1);
	}
}

static void test_boundaries(void **state)
{
	assert_int_equal(pg_hist_bucket(63), 63);
	assert_int_equal(pg_hist_bucket(64), 64);	/* first log-linear bucket, width 1 */
	assert_int_equal(pg_hist_bucket(65), 65);
	assert_int_equal(pg_hist_bucket(127), 127);
	assert_int_equal(pg_hist_bucket(128), 128);	/* width 2 from here */
	assert_int_equal(pg_hist_bucket(129), 128);
	assert_int_equal(pg_hist_bucket(130), 129);
	assert_int_equal(pg_hist_bucket(255), 191);
	assert_int_equal(pg_hist_bucket(256), 192);
	assert_int_equal(pg_hist_bucket(1ULL << 20), 64 + (20 - 6) * 64);
	assert_int_equal(pg_hist_bucket((1ULL << 20) - 1), 64 + (20 - 6) * 64 - 1);
	assert_int_equal(pg_hist_bucket_lo(64 + (20 - 6) * 64), 1ULL << 20);
	/* the last power of two, [2^41, 2^42), is still resolved */
	assert_int_equal(pg_hist_bucket(1ULL << 41), 64 + 35 * 64);
	assert_int_equal(pg_hist_bucket_lo(64 + 35 * 64), 1ULL << 41);
	assert_int_equal(pg_hist_bucket((1ULL << 42) - 1), LAST);
	/* 2^42 and above clamp to the last bucket */
	assert_int_equal(pg_hist_bucket(1ULL << 42), LAST);
	assert_int_equal(pg_hist_bucket((1ULL << 42) + 12345), LAST);
	assert_int_equal(pg_hist_bucket(1ULL << 50), LAST);
	assert_int_equal(pg_hist_bucket(UINT64_MAX), LAST);
	assert_int_equal(pg_hist_bucket_lo(LAST), (1ULL << 42) - (1ULL << 35));
	assert_int_equal(pg_hist_bucket_width(LAST), 1ULL << 35);
}

/* Buckets tile [0, 2^42) without gaps, each at most 1/64 of its lower bound wide. */
static void test_every_bucket(void **state)
{
	for (uint32_t i = 0; i < PG_HIST_NBUCKETS; i++) {
		uint64_t lo = pg_hist_bucket_lo(i), w = pg_hist_bucket_width(i);

		assert_true(w >= 1);
		assert_int_equal(pg_hist_bucket(lo), i);
		assert_int_equal(pg_hist_bucket(lo + w - 1), i);
		if (i + 1 < PG_HIST_NBUCKETS) {
			assert_int_equal(pg_hist_bucket_lo(i + 1), lo + w);
			assert_int_equal(pg_hist_bucket(lo + w), i + 1);
		} else {
			assert_int_equal(lo + w, 1ULL << 42);
		}
		if (i >= PG_HIST_SUB) {
			assert_true(w * 64 <= lo);			/* <= 1/64 = 1.56% */
			assert_true((double)w / (double)lo <= 0.02);
		}
		if (i)
			assert_true(pg_hist_bucket_lo(i - 1) < lo);
	}
}

/* Invariants of a sparse histogram: strictly increasing indexes, positive counts. */
static void assert_sorted(const struct pg_hist *h)
{
	assert_true(h->n <= h->alloc || !h->n);
	for (size_t i = 0; i < h->n; i++) {
		assert_true(h->idx[i] < PG_HIST_NBUCKETS);
		assert_true(h->count[i] > 0);
		if (i)
			assert_true(h->idx[i - 1] < h->idx[i]);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void test_empty(void **state)
{
	struct pg_hist h = PG_HIST_INIT;

	assert_int_equal(pg_hist_total(&h), 0);
	assert_true(isnan(pg_hist_quantile(&h, 0.5)));
	pg_hist_release(&h);
	pg_hist_release(&h);
	assert_int_equal(h.n, 0);
	assert_null(h.idx);
}

static void test_add_order(void **state)
{
	struct pg_hist h = PG_HIST_INIT;
	uint64_t expect[PG_HIST_NBUCKETS] = { 0 }, total = 0;
	size_t used = 0;

	assert_int_equal(pg_hist_add(&h, PG_HIST_NBUCKETS, 1), -EINVAL);
	assert_int_equal(pg_hist_add(&h, UINT32_MAX, 1), -EINVAL);
	assert_int_equal(pg_hist_add(&h, 5, 0), 0);	/* nothing to add */
	assert_int_equal(h.n, 0);
	/* descending, ascending, random, repeated */
	for (uint32_t i = 300; i-- > 200;) {
		assert_int_equal(pg_hist_add(&h, i, i), 0);
		expect[i] += i;
	}
	for (uint32_t i = 0; i < 100; i++) {
		assert_int_equal(pg_hist_add(&h, i * 3, 1), 0);
		expect[i * 3] += 1;
	}
	for (int k = 0; k < 5000; k++) {
		uint32_t i = (uint32_t)(rng() % PG_HIST_NBUCKETS);
		uint64_t c = rng() % 1000 + 1;

		assert_int_equal(pg_hist_add(&h, i, c), 0);
		expect[i] += c;
	}
	assert_int_equal(pg_hist_add(&h, LAST, 7), 0);
	expect[LAST] += 7;
	assert_sorted(&h);
	for (uint32_t i = 0; i < PG_HIST_NBUCKETS; i++) {
		total += expect[i];
		used += expect[i] > 0;
	}
	assert_int_equal(h.n, used);
	for (size_t k = 0; k < h.n; k++)
		assert_int_equal(h.count[k], expect[h.idx[k]]);
	assert_int_equal(pg_hist_total(&h), total);
	pg_hist_release(&h);
}

static void test_record(void **state)
{
	struct pg_hist h = PG_HIST_INIT;
	static const uint64_t v[] = { 0, 1, 63, 64, 1000, 1001, 1000000, 1ULL << 41, UINT64_MAX };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(pg_hist_record(&h, v[i]), 0);
	assert_int_equal(pg_hist_record(&h, 1000), 0);
	assert_sorted(&h);
	assert_int_equal(pg_hist_total(&h), 10);
	/* 1000 and 1001 share a bucket of width 8 */
	assert_int_equal(h.n, 8);
	assert_int_equal(h.idx[0], 0);
	assert_int_equal(h.idx[h.n - 1], LAST);
	for (size_t k = 0; k < h.n; k++) {
		if (h.idx[k] == pg_hist_bucket(1000))
			assert_int_equal(h.count[k], 3);
	}
	pg_hist_release(&h);
}

static void test_merge(void **state)
{
	struct pg_hist a = PG_HIST_INIT, b = PG_HIST_INIT, e = PG_HIST_INIT, c = PG_HIST_INIT;

	for (uint32_t i = 0; i < 500; i += 2)
		assert_int_equal(pg_hist_add(&a, i, i + 1), 0);
	for (uint32_t i = 1001; i-- > 0;)	/* overlaps a, interleaves, goes past it */
		if (i % 3 == 0)
			assert_int_equal(pg_hist_add(&b, i, 10), 0);
	assert_int_equal(pg_hist_merge(&c, &e), 0);	/* empty into empty */
	assert_int_equal(c.n, 0);
	assert_int_equal(pg_hist_merge(&c, &a), 0);	/* into empty: a copy */
	assert_int_equal(c.n, a.n);
	assert_memory_equal(c.idx, a.idx, a.n * sizeof(*a.idx));
	assert_memory_equal(c.count, a.count, a.n * sizeof(*a.count));
	assert_int_equal(pg_hist_merge(&c, &b), 0);
	assert_int_equal(pg_hist_merge(&c, &e), 0);
	assert_sorted(&c);
	assert_int_equal(pg_hist_total(&c), pg_hist_total(&a) + pg_hist_total(&b));
	for (size_t k = 0; k < c.n; k++) {
		uint32_t i = c.idx[k];
		uint64_t want = (i < 500 && i % 2 == 0 ? i + 1 : 0) + (i % 3 == 0 ? 10 : 0);

		assert_int_equal(c.count[k], want);
	}
	/* merging is commutative */
	assert_int_equal(pg_hist_merge(&b, &a), 0);
	assert_int_equal(b.n, c.n);
	assert_memory_equal(b.idx, c.idx, c.n * sizeof(*c.idx));
	assert_memory_equal(b.count, c.count, c.n * sizeof(*c.count));
	pg_hist_release(&a);
	pg_hist_release(&b);
	pg_hist_release(&c);
}

/* |got - want| within the width of want's bucket (and 2% of want for large values). */
static void assert_near_bucket(double got, double want)
{
	uint64_t w = pg_hist_bucket_width(pg_hist_bucket((uint64_t)want));

	if (fabs(got - want) > (double)w)
		fail_msg("quantile %.3f, expected %.3f within %llu", got, want,
			 (unsigned long long)w);
}

static void test_quantile_uniform(void **state)
{
	struct pg_hist h = PG_HIST_INIT;

	for (uint64_t v = 1; v <= 10000; v++)
		assert_int_equal(pg_hist_record(&h, v), 0);
	assert_int_equal(pg_hist_total(&h), 10000);
	/* numpy.quantile(range(1, 10001), q) = 1 + q * 9999 */
	for (int i = 0; i <= 100; i++) {
		double q = i / 100.0, want = 1 + q * 9999;
		double got = pg_hist_quantile(&h, q);

		assert_near_bucket(got, want);
		assert_true(fabs(got - want) <= 0.02 * want);
	}
	assert_true(fabs(pg_hist_quantile(&h, 0.5) - 5000) <= 0.02 * 5000);
	assert_true(fabs(pg_hist_quantile(&h, 0.99) - 9900) <= 0.02 * 9900);
	/* q is clamped to [0, 1] */
	assert_true(pg_hist_quantile(&h, -1) == pg_hist_quantile(&h, 0));
	assert_true(pg_hist_quantile(&h, 2) == pg_hist_quantile(&h, 1));
	/* monotonic in q */
	for (int i = 1; i <= 1000; i++)
		assert_true(pg_hist_quantile(&h, i / 1000.0) >= pg_hist_quantile(&h, (i - 1) /
										1000.0));
	pg_hist_release(&h);
}

static void test_quantile_exact_small(void **state)
{
	struct pg_hist h = PG_HIST_INIT;

	/* values below 64 have their own buckets: quantiles are exact sample values */
	assert_int_equal(pg_hist_add(&h, 7, 3), 0);
	assert_true(pg_hist_quantile(&h, 0) == 7);
	assert_true(pg_hist_quantile(&h, 0.5) == 7);
	assert_true(pg_hist_quantile(&h, 1) == 7);
	assert_int_equal(pg_hist_add(&h, 20, 1), 0);
	assert_true(pg_hist_quantile(&h, 0) == 7);
	assert_true(pg_hist_quantile(&h, 1) == 20);
	pg_hist_release(&h);
}

static void test_quantile_single_bucket(void **state)
{
	struct pg_hist h = PG_HIST_INIT;
	uint32_t b = pg_hist_bucket(1000000);
	double lo = (double)pg_hist_bucket_lo(b), w = (double)pg_hist_bucket_width(b);

	assert_int_equal(pg_hist_record(&h, 1000000), 0);
	for (int i = 0; i <= 10; i++) {
		double got = pg_hist_quantile(&h, i / 10.0);

		assert_true(got >= lo && got < lo + w);
	}
	pg_hist_release(&h);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Spread-out data (100 ns .. 10 ms, log-uniform): quantiles within 2% of numpy's. */
static void test_quantile_lognormal(void **state)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct pg_hist h = PG_HIST_INIT;
	static const double qs[] = { 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99 };

	assert_non_null(v);
	for (int i = 0; i < N; i++) {
		double u = (double)(rng() >> 11) / 9007199254740992.0;

		v[i] = (uint64_t)(100 * pow(1e5, u));
		assert_int_equal(pg_hist_record(&h, v[i]), 0);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double rank = qs[i] * (N - 1), frac = rank - floor(rank);
		size_t k = (size_t)rank;
		double want = (double)v[k] + frac * (double)(v[k + 1] - v[k]);
		double got = pg_hist_quantile(&h, qs[i]);

		assert_true(fabs(got - want) <= 0.02 * want);
	}
	free(v);
	pg_hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scheme_constants),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_exact_buckets),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_every_bucket),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_add_order),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_quantile_uniform),
		cmocka_unit_test(test_quantile_exact_small),
		cmocka_unit_test(test_quantile_single_bucket),
		cmocka_unit_test(test_quantile_lognormal),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
