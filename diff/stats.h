/* SPDX-License-Identifier: MIT */
/*
 * diff/stats.h - the statistics behind perfgate compare. Pure computation: no I/O, no logging,
 * no global state. Inputs are never modified (functions copy what they sort).
 *
 * A comparison of many functions runs the same tests on samples of the same sizes: a
 * workspace (struct pg_stats_ws) keeps what the next call can reuse, the exact null
 * distribution of U for the last sizes and scratch memory, and gives the same results as the
 * calls without one (a NULL workspace: each call allocates and computes its own):
 *
 *	struct pg_stats_ws ws = PG_STATS_WS_INIT;
 *
 *	for (each function)
 *		err = pg_hodges_lehmann_ws(x, nx, y, ny, alpha, &ws, &hl) ?:
 *		      pg_mwu_test_ws(x, nx, y, ny, &ws, &m);
 *	pg_stats_ws_release(&ws);
 */
#ifndef PG_STATS_H
#define PG_STATS_H

#include <stddef.h>

#include "../core/sort.h"

/*
 * Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny).
 * U is the statistic of x: the number of pairs (x_i, y_j) with x_i > y_j, plus half the ties.
 * The p-value is exact (the permutation distribution of U, counted exactly) when there
 * are no ties and nx + ny <= PG_MWU_EXACT_MAX; otherwise the normal approximation with tie
 * correction and continuity correction, as scipy.stats.mannwhitneyu(method="asymptotic",
 * use_continuity=True) computes it. Returns 0, or -EINVAL if nx or ny is 0.
 */
#define PG_MWU_EXACT_MAX 60

struct pg_mwu {
	double u;		/* U statistic of x */
	double p;		/* two-sided p-value, in (0, 1] */
	int exact;		/* 1 if the exact distribution was used */
};

int pg_mwu_test(const double *x, size_t nx, const double *y, size_t ny, struct pg_mwu *out);

/* Scratch memory and the last exact null distribution computed (see the top); owns both. */
struct pg_stats_ws {
	size_t m, n;		/* the sizes of cdf; cdf NULL: none yet */
	double *cdf;		/* P(U <= k) for k in [0, m * n] */
	double *d;		/* room for dcap doubles */
	size_t dcap;
};

#define PG_STATS_WS_INIT { 0, 0, NULL, NULL, 0 }

void pg_stats_ws_release(struct pg_stats_ws *ws);	/* frees; back to PG_STATS_WS_INIT */

/* pg_mwu_test() with a workspace (NULL: none). */
int pg_mwu_test_ws(const double *x, size_t nx, const double *y, size_t ny,
		   struct pg_stats_ws *ws, struct pg_mwu *out);

/*
 * The smallest two-sided p-value an exact Mann-Whitney test can reach with samples of nx and ny
 * (2 / C(nx + ny, nx)): with 3 and 3 it is 0.1, so no alpha below that can ever be met.
 */
double pg_mwu_min_p(size_t nx, size_t ny);

/*
 * Benjamini-Hochberg adjusted p-values (step-up, as R's p.adjust(method = "BH")):
 * q[i] = min over k >= rank(i) of p_(k) * n / k, capped at 1. q may alias p. 0 or -ENOMEM.
 */
int pg_bh_adjust(const double *p, size_t n, double *q);

/*
 * Hodges-Lehmann estimate of the shift y - x, with a distribution-free confidence interval of
 * level 1 - alpha from the order statistics of the nx * ny pairwise differences d = y_j - x_i
 * (Bauer 1972): [d_(k), d_(nx*ny+1-k)] where k is the largest integer with
 * P(U < k) <= alpha / 2 under the null (exact distribution for nx + ny <= PG_MWU_EXACT_MAX,
 * normal approximation beyond). When even k = 1 exceeds alpha / 2 (too few samples) the
 * interval is infinite: lo = -INFINITY, hi = +INFINITY.
 */
struct pg_hl {
	double estimate;	/* median of the pairwise differences */
	double lo, hi;		/* confidence interval */
};

int pg_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		      struct pg_hl *out);
/* pg_hodges_lehmann() with a workspace (NULL: none). */
int pg_hodges_lehmann_ws(const double *x, size_t nx, const double *y, size_t ny, double alpha,
			 struct pg_stats_ws *ws, struct pg_hl *out);
/* The estimate alone (no interval: less work), into *@est. 0, -EINVAL or -ENOMEM. */
int pg_hl_estimate_ws(const double *x, size_t nx, const double *y, size_t ny,
		      struct pg_stats_ws *ws, double *est);

/*
 * Paired samples (an interleaved A/B session: docs/statistics.md): d[0..n) are the per-pair
 * differences (for perfgate, log(new) - log(base) of one pair of repetitions).
 *
 * Wilcoxon signed-rank test of d against 0, two-sided. Zero differences are dropped (Wilcoxon's
 * convention; n_used says how many remain); tied |d| get their mean rank. W+ is the sum of the
 * ranks of the positive differences. The p-value is exact (the null distribution of W+,
 * counted over the 2^n sign patterns) when no |d| is tied and n_used <= PG_WSR_EXACT_MAX;
 * otherwise the normal approximation with tie and continuity correction (as
 * scipy.stats.wilcoxon(method="approx", correction=True, zero_method="wilcox")). With no
 * difference left, p = 1. Returns 0, -EINVAL (n == 0, or a difference not finite), -ENOMEM.
 */
#define PG_WSR_EXACT_MAX 60

struct pg_wsr {
	double w_plus;		/* sum of the ranks of the positive differences */
	double p;		/* two-sided p-value, in (0, 1] */
	size_t n_used;		/* differences that were not zero */
	int exact;
};

int pg_wsr_test(const double *d, size_t n, struct pg_wsr *out);

/* The smallest two-sided p-value an exact signed-rank test of n pairs can reach: 2 / 2^n. */
double pg_wsr_min_p(size_t n);

/*
 * Hodges-Lehmann estimate of the centre of paired differences d[0..n): the median of the
 * n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j, with the distribution-free interval of level
 * 1 - alpha from their order statistics [w_(k), w_(N+1-k)], k the largest integer with
 * P(W+ < k) <= alpha / 2 under the null (exact for n <= PG_WSR_EXACT_MAX, normal beyond);
 * infinite when no k qualifies. 0, -EINVAL or -ENOMEM.
 */
int pg_hodges_lehmann_paired(const double *d, size_t n, double alpha, struct pg_hl *out);

/* The standard normal distribution: survival function P(Z > z), density, and the z with
 * P(Z > z) = p for 0 < p < 1 (bisection to ~1e-16 over [-40, 40]). */
double pg_norm_sf(double z);
double pg_norm_pdf(double z);
double pg_norm_isf(double p);

/* pg_median(): core/sort.h, included here for diff/'s users */

#endif
