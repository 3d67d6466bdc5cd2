// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_speedlib.c - the primitives the three corrections for the machine's speed
 * share (diff/speedlib.h): the weighted median's rule at an exact tie, with one value left
 * out, against a plain scan on inputs without ties, its symmetry and its independence of the
 * input's order; the clamp of the slope; and the tie rule as each of the three corrections
 * (pairs: diff/speed.h, two recordings: diff/rspeed.h, sessions: diff/hspeed.h) applies it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../diff/hspeed.h"
#include "../../diff/rspeed.h"
#include "../../diff/speed.h"
#include "../../diff/speedlib.h"

/* Items of one group from values and weights, owners 0..n), sorted. */
static void items(struct pg_wmed_item *it, const double *v, const double *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		it[i] = (struct pg_wmed_item){ .v = v[i], .w = w ? w[i] : 1, .owner = (uint32_t)i };
	pg_wmed_sort(it, n);
}

static void test_wmed_ties(void **state)
{
	struct pg_wmed_item it[8];
	const double v4[] = { 4, 1, 3, 2 }, v5[] = { 5, 1, 4, 2, 3 };

	(void)state;
	/* equal weights: the plain median, the mean of the middle two of an even count */
	items(it, v4, NULL, 4);
	assert_true(pg_wmed(it, 4, 4) == 2.5);
	items(it, v5, NULL, 5);
	assert_true(pg_wmed(it, 5, 5) == 3);
	/* one left out of five leaves four: a tie each time (sorted: 1 2 3 4 5) */
	assert_true(pg_wmed(it, 5, 4) == 2.5);	/* without 5 */
	assert_true(pg_wmed(it, 5, 0) == 3.5);	/* without 1 */
	assert_true(pg_wmed(it, 5, 2) == 3);	/* without 3: 1 2 4 5 */
	assert_true(pg_wmed(it, 5, 1) == 3.5);	/* without 2: 1 3 4 5, the next past the gap */
	/* unequal weights reaching half exactly: 1 (2), 2 (1), 3 (1) */
	{
		const double v[] = { 1, 2, 3 }, w[] = { 2, 1, 1 };

		items(it, v, w, 3);
		assert_true(pg_wmed(it, 3, 3) == 1.5);
		assert_true(pg_wmed(it, 3, 1) == 1);	/* 1 (2), 3 (1): past half at 1 */
	}
	/* half within rounding: 0.1 + 0.2 is not 0.3 in binary, and is half of 0.6 here */
	{
		const double v[] = { 1, 2, 3 }, w[] = { 0.1, 0.2, 0.3 };

		items(it, v, w, 3);
		assert_true(pg_wmed(it, 3, 3) == 2.5);
	}
}

static void test_wmed_edges(void **state)
{
	struct pg_wmed_item it[2] = { 0 };
	const double v[] = { 7, 9 };

	(void)state;
	assert_true(isnan(pg_wmed(it, 0, 0)));
	items(it, v, NULL, 1);
	assert_true(isnan(pg_wmed(it, 1, 0)));	/* nothing left */
	assert_true(pg_wmed(it, 1, 1) == 7);
	items(it, v, NULL, 2);
	assert_true(pg_wmed(it, 2, 0) == 9);
	assert_true(pg_wmed(it, 2, 1) == 7);
	assert_true(pg_wmed(it, 2, 2) == 8);
}

/* The rule by a plain scan (as the pairs' correction computed it): the first value whose
 * running weight, the skipped one's left out, passes half, or the mean with the next at half. */
static double scan(const struct pg_wmed_item *it, size_t n, size_t skip)
{
	double total = 0, cum = 0;

	for (size_t i = 0; i < n; i++)
		total += i == skip ? 0 : it[i].w;
	for (size_t i = 0; i < n; i++) {
		size_t next = i + 1 == skip ? i + 2 : i + 1;

		if (i == skip)
			continue;
		cum += it[i].w;
		if (next >= n || cum > total / 2)
			return it[i].v;
		if (cum == total / 2)
			return (it[i].v + it[next].v) / 2;
	}
	return NAN;
}

/* Random weights (no ties): every value left out in turn, as a plain scan finds it; the
 * values negated give the median negated. */
static void test_wmed_scan(void **state)
{
	uint64_t st = 7;
	struct pg_wmed_item it[41], neg[41];

	(void)state;
	for (size_t round = 0; round < 50; round++) {
		size_t n = 1 + round % 41;

		for (size_t i = 0; i < n; i++)
			it[i] = (struct pg_wmed_item){ .v = pg_test_gauss(&st),
						       .w = 0.5 + pg_test_unif(&st),
						       .owner = (uint32_t)i };
		for (size_t i = 0; i < n; i++)
			neg[i] = (struct pg_wmed_item){ .v = -it[i].v, .w = it[i].w,
							.owner = it[i].owner };
		pg_wmed_sort(it, n);
		pg_wmed_sort(neg, n);
		for (size_t skip = 0; skip <= n; skip++) {
			double m = pg_wmed(it, n, skip), e = scan(it, n, skip);
			size_t nskip = skip < n ? pg_wmed_pos(neg, n, it[skip].owner) : n;

			if (isnan(e)) {
				assert_true(isnan(m));
				continue;
			}
			assert_true(m == e);
			assert_true(pg_wmed(neg, n, nskip) == -m);
		}
	}
}

/* Equal values with different owners and weights, in two orders: one sorted order, one
 * running weight at each position, one median. */
static void test_wmed_order(void **state)
{
	struct pg_wmed_item a[6], b[6];
	const double v[] = { 1, 2, 2, 2, 3, 3 }, w[] = { 1, 4, 1, 2, 3, 1 };

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		a[i] = (struct pg_wmed_item){ .v = v[i], .w = w[i], .group = 0,
					      .owner = (uint32_t)i };
		b[5 - i] = a[i];
	}
	pg_wmed_sort(a, 6);
	pg_wmed_sort(b, 6);
	assert_memory_equal(a, b, sizeof(a));
	for (size_t k = 0; k < 6; k++)
		assert_true(a[k].owner == k);	/* ties by owner */
	assert_true(pg_wmed(a, 6, 6) == 2);
}

static int cmp_ref(const void *pa, const void *pb)
{
	const struct pg_wmed_item *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->owner > b->owner) - (a->owner < b->owner);
}

/* The sort against qsort() on inputs of many equal values, sorted, reversed and random. */
static void test_wmed_sort(void **state)
{
	enum { N = 3000 };
	struct pg_wmed_item *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	uint64_t st = 11;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (int shape = 0; shape < 4; shape++) {
		for (size_t i = 0; i < N; i++) {
			double v = shape == 0 ? (double)(i % 7) : shape == 1 ? (double)i :
				   shape == 2 ? (double)(N - i) : floor(20 * pg_test_unif(&st));

			a[i] = (struct pg_wmed_item){ .v = v, .w = 1, .group = (uint32_t)(i % 3),
						      .owner = (uint32_t)((i * 7919) % N) };
		}
		memcpy(b, a, N * sizeof(*a));
		pg_wmed_sort(a, N);
		qsort(b, N, sizeof(*b), cmp_ref);
		for (size_t i = 0; i < N; i++) {
			assert_true(a[i].v == b[i].v);
			assert_int_equal(a[i].owner, b[i].owner);
			assert_int_equal(a[i].group, b[i].group);
		}
	}
	free(a);
	free(b);
}

static void test_wmed_groups(void **state)
{
	struct pg_wmed_item it[7];
	size_t lo, end;
	const uint32_t g[] = { 3, 1, 3, 1, 3, 1, 3 };

	(void)state;
	for (size_t i = 0; i < 7; i++)
		it[i] = (struct pg_wmed_item){ .v = (double)i, .w = 1, .group = g[i],
					       .owner = (uint32_t)i };
	pg_wmed_sort(it, 7);
	lo = pg_wmed_find(it, 7, 1, &end);
	assert_int_equal(lo, 0);
	assert_int_equal(end, 3);
	assert_true(it[2].cum == 3);	/* running weights restart in each group */
	assert_true(pg_wmed(it + lo, end - lo, end - lo) == 3);	/* 1 3 5 */
	lo = pg_wmed_find(it, 7, 3, &end);
	assert_int_equal(lo, 3);
	assert_int_equal(end, 7);
	assert_true(pg_wmed(it + lo, end - lo, end - lo) == 3);	/* 0 2 4 6: (2 + 4) / 2 */
	assert_int_equal(pg_wmed_pos(it + lo, end - lo, 6), 3);
	assert_int_equal(pg_wmed_pos(it + lo, end - lo, 1), 4);	/* not in the group */
	lo = pg_wmed_find(it, 7, 2, &end);
	assert_int_equal(lo, 7);
}

static void test_beta_weight(void **state)
{
	(void)state;
	assert_true(pg_speed_beta(-1, 2, 0.8, 0) == 0);
	assert_true(pg_speed_beta(3, 2, 0.8, 0) == 0.8);
	assert_true(pg_speed_beta(1, 2, 0.8, 0) == 0.5);
	assert_true(pg_speed_beta(1, 0, 0.8, 0.7) == 0.7);
	assert_true(pg_speed_beta(NAN, NAN, 1, 0.25) == 0.25);
	assert_true(pg_speed_weight(400) == 20);
	assert_true(pg_speed_weight(0) == 1);
	assert_true(pg_speed_weight(-5) == 1);
}

/* Four references of equal weight: each of the three corrections takes the mean of the
 * middle two (the two recordings' took the lower one before the rule was shared). */
static const double shifts4[] = { 0.04, 0.01, 0.03, 0.02 };

static void test_pairs_tie(void **state)
{
	struct pg_speed sp;
	double d[6];
	uint32_t pairs[6];

	(void)state;
	assert_int_equal(pg_speed_init(&sp, 6), 0);
	for (uint32_t f = 0; f < 4; f++) {
		for (size_t k = 0; k < 6; k++) {
			d[k] = shifts4[f] * (k % 2 ? 1 : -1);
			pairs[k] = (uint32_t)k;
		}
		assert_int_equal(pg_speed_add(&sp, d, pairs, 6, 1e6, f), 0);
	}
	assert_int_equal(pg_speed_finish(&sp, 0.05, 0.05), 0);
	for (size_t k = 0; k < 6; k++)
		assert_true(fabs(sp.c[k] - (k % 2 ? 0.025 : -0.025)) < 1e-15);
	pg_speed_release(&sp);
}

static void test_runs_tie(void **state)
{
	struct pg_rspeed rs = { 0 };
	struct pg_stats_ws ws = { 0 };
	double lb[6] = { 0 }, ln[6];
	uint32_t tags[6] = { 0, 1, 2, 3, 4, 5 };

	(void)state;
	for (uint32_t f = 0; f < 4; f++) {
		for (size_t k = 0; k < 6; k++)
			ln[k] = shifts4[f];
		assert_int_equal(pg_rspeed_add(&rs, f, lb, tags, 6, ln, tags, 6, 1e6), 0);
	}
	assert_int_equal(pg_rspeed_finish(&rs, 0.05, 0.05, &ws), 0);
	assert_true(rs.applied);
	assert_true(fabs(rs.shift - 0.025) < 1e-15);
	pg_rspeed_release(&rs);
	pg_stats_ws_release(&ws);
}

/* Two recordings: tags in any order give the answers of the same values in order; a tag twice
 * in one run is refused. */
static void test_runs_tags(void **state)
{
	struct pg_rspeed a = { 0 }, b = { 0 };
	struct pg_stats_ws ws = { 0 };
	uint64_t st = 5;
	double lb[6], ln[6], rb[6], rn[6], ca, cb, ba, bb;
	uint32_t up[6] = { 0, 1, 2, 3, 4, 5 }, down[6] = { 5, 4, 3, 2, 1, 0 };
	uint32_t twice[6] = { 0, 1, 1, 3, 4, 5 };

	(void)state;
	for (uint32_t f = 0; f < 5; f++) {
		for (size_t k = 0; k < 6; k++) {
			lb[k] = 0.1 * pg_test_gauss(&st);
			ln[k] = 0.1 + 0.1 * pg_test_gauss(&st);
			rb[5 - k] = lb[k];
			rn[5 - k] = ln[k];
		}
		assert_int_equal(pg_rspeed_add(&a, f, lb, up, 6, ln, up, 6, 1e6 * (f + 1)), 0);
		assert_int_equal(pg_rspeed_add(&b, f, rb, down, 6, rn, down, 6, 1e6 * (f + 1)), 0);
	}
	assert_int_equal(pg_rspeed_add(&a, 9, lb, twice, 6, ln, up, 6, 1e6), -EINVAL);
	assert_int_equal(pg_rspeed_finish(&a, 0.05, 0.05, &ws), 0);
	assert_int_equal(pg_rspeed_finish(&b, 0.05, 0.05, &ws), 0);
	assert_true(a.applied && b.applied);
	assert_int_equal(a.nrefs, 5);
	assert_true(a.shift == b.shift);
	for (uint32_t f = 0; f < 5; f++) {
		ca = pg_rspeed_of(&a, f, lb, up, 6, ln, up, 6, 1, &ba);
		cb = pg_rspeed_of(&b, f, rb, down, 6, rn, down, 6, 1, &bb);
		/* the sums of the slope added in another order: equal to rounding */
		assert_true(fabs(ca - cb) < 1e-12);
		assert_true(fabs(ba - bb) < 1e-12);
	}
	pg_rspeed_release(&a);
	pg_rspeed_release(&b);
	pg_stats_ws_release(&ws);
}

static void test_history_tie(void **state)
{
	enum { NS = PG_HCHECK_MIN_SESSIONS + 1, NR = 5 };
	double sess[NS], reps[4][NR];
	size_t at[NS];
	struct pg_hfunc f[4];
	struct pg_hspeed s;

	(void)state;
	for (size_t i = 0; i < NS; i++) {
		sess[i] = 1000;		/* every reference's mean: equal weights */
		at[i] = i;
	}
	for (size_t r = 0; r < 4; r++) {
		for (size_t k = 0; k < NR; k++)
			reps[r][k] = 1000 * exp(shifts4[r]);
		f[r] = (struct pg_hfunc){ "prog", "f", "", "f", sess, NS, reps[r], NR, 10, 10, at,
					  NULL };
	}
	assert_int_equal(pg_hspeed_estimate(f, 4, f, 4, NS, 1, &s), 0);
	assert_true(s.applied);
	assert_true(fabs(s.shift - expm1(0.025)) < 1e-12);
	pg_hspeed_release(&s, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wmed_ties),
		cmocka_unit_test(test_wmed_edges),
		cmocka_unit_test(test_wmed_scan),
		cmocka_unit_test(test_wmed_order),
		cmocka_unit_test(test_wmed_sort),
		cmocka_unit_test(test_wmed_groups),
		cmocka_unit_test(test_beta_weight),
		cmocka_unit_test(test_pairs_tie),
		cmocka_unit_test(test_runs_tie),
		cmocka_unit_test(test_runs_tags),
		cmocka_unit_test(test_history_tie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
