// SPDX-License-Identifier: MIT
/*
 * diff/stats.c - Mann-Whitney U test, Benjamini-Hochberg, Hodges-Lehmann, median.
 *
 * The exact null distribution of U is computed as counts: the number of the C(m + n, m)
 * equally likely arrangements of m x and n y values in which U = k is the coefficient of q^k
 * in the Gaussian binomial [m + n choose m]_q (mwu_exact_cdf()). In uint64_t the counts are
 * exact up to C(60, 30) ~ 1.2e17 (in a double they would not be, past 2^53); only the final
 * division by C(m + n, m) rounds.
 */
#include <errno.h>
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "stats.h"

/*
 * The null distribution of U for samples of m and n values without ties, as a cumulative
 * distribution: cdf[k] = P(U <= k) for k in [0, m * n]. @cdf holds m * n + 1 doubles.
 * 0, -ENOMEM, or -EINVAL when m + n > PG_MWU_EXACT_MAX (the callers check that first).
 *
 * The number of arrangements with U = k is the coefficient of q^k in the Gaussian binomial
 * [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), built one factor at a time in
 * O(m * (m * n)). The counts are exact in uint64_t: the final ones sum to C(m + n, m), which
 * for m + n <= PG_MWU_EXACT_MAX (60) is at most C(60, 30) ~ 1.2e17 < 2^64, and arithmetic
 * modulo 2^64 makes the negative coefficients between the two steps harmless.
 */
static int mwu_exact_cdf(size_t m, size_t n, double *cdf)
{
	size_t len = m * n + 1, i, k;
	uint64_t *c, total = 0, acc = 0;

	if (m + n > PG_MWU_EXACT_MAX)
		return -EINVAL;
	c = calloc(len, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		/* times (1 - q^(n+i)): from the top, so that c[k - n - i] is still the old one */
		for (k = len - 1; k + 1 > n + i; k--)
			c[k] -= c[k - n - i];
		/* over (1 - q^i), a running sum with stride i */
		for (k = i; k < len; k++)
			c[k] += c[k - i];
	}
	for (k = 0; k < len; k++)
		total += c[k];
	for (k = 0; k < len; k++) {
		acc += c[k];
		cdf[k] = (double)acc / (double)total;
	}
	free(c);
	return 0;
}

/*
 * The exact null distribution for samples of m and n values (m + n <= PG_MWU_EXACT_MAX, which
 * the callers check): the one @ws holds if it is for m and n, else computed (and kept in @ws,
 * or with no workspace returned in *@own for the caller to free). NULL: out of memory.
 */
static const double *exact_cdf(struct pg_stats_ws *ws, size_t m, size_t n, double **own)
{
	double *cdf;

	*own = NULL;
	if (ws && ws->cdf && ws->m == m && ws->n == n)
		return ws->cdf;
	cdf = malloc((m * n + 1) * sizeof(*cdf));
	if (cdf && mwu_exact_cdf(m, n, cdf)) {
		free(cdf);
		cdf = NULL;
	}
	if (!cdf || !ws) {
		*own = cdf;
		return cdf;
	}
	free(ws->cdf);
	ws->cdf = cdf;
	ws->m = m;
	ws->n = n;
	return cdf;
}

void pg_stats_ws_release(struct pg_stats_ws *ws)
{
	free(ws->cdf);
	free(ws->d);
	*ws = (struct pg_stats_ws)PG_STATS_WS_INIT;
}

struct ranked {
	double v;
	size_t i;	/* index in the concatenation x ++ y */
};

static int cmp_ranked(const void *a, const void *b)
{
	return pg_cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

double pg_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

double pg_norm_pdf(double z)
{
	return exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

double pg_norm_isf(double p)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (pg_norm_sf(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int pg_mwu_test(const double *x, size_t nx, const double *y, size_t ny, struct pg_mwu *out)
{
	return pg_mwu_test_ws(x, nx, y, ny, NULL, out);
}

int pg_mwu_test_ws(const double *x, size_t nx, const double *y, size_t ny,
		   struct pg_stats_ws *ws, struct pg_mwu *out)
{
	size_t n = nx + ny, i, j;
	struct ranked *r;
	double r1 = 0, tie_term = 0, u1, u2, u, mu, s, p;
	int ties = 0;

	if (!nx || !ny)
		return -EINVAL;
	for (i = 0; i < nx; i++)
		if (isnan(x[i]))
			return -EINVAL;
	for (i = 0; i < ny; i++)
		if (isnan(y[i]))
			return -EINVAL;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r[i].v = i < nx ? x[i] : y[i - nx];
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* midranks: the tie group r[i..j) gets the mean of ranks i + 1 .. j */
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		rank = (double)(i + 1 + j) / 2;
		t = (double)(j - i);
		if (j - i > 1) {
			ties = 1;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (r[k].i < nx)
				r1 += rank;
	}
	free(r);

	u1 = r1 - (double)nx * (double)(nx + 1) / 2;
	u2 = (double)nx * (double)ny - u1;
	u = u1 > u2 ? u1 : u2;
	out->u = u1;

	if (!ties && n <= PG_MWU_EXACT_MAX) {
		double *own;
		const double *cdf = exact_cdf(ws, nx, ny, &own);

		if (!cdf)
			return -ENOMEM;
		/* P(U >= u) = P(U <= nx * ny - u) by symmetry; u >= nx * ny / 2 */
		p = 2 * cdf[(size_t)((double)nx * (double)ny - u + 0.5)];
		free(own);
		out->exact = 1;
	} else {
		mu = (double)nx * (double)ny / 2;
		s = sqrt((double)nx * (double)ny / 12 *
			 ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1))));
		/* all values equal: U is exactly its mean, nothing to see */
		p = s > 0 ? 2 * pg_norm_sf((u - mu - 0.5) / s) : 1;
		out->exact = 0;
	}
	if (!(p <= 1))
		p = 1;
	if (p < DBL_MIN)	/* keep p in (0, 1] even if erfc underflows */
		p = DBL_MIN;
	out->p = p;
	return 0;
}

double pg_mwu_min_p(size_t nx, size_t ny)
{
	double c = 1;
	size_t k = nx < ny ? nx : ny, n = nx + ny;

	/* C(n, k) as a running product: each partial product is itself a binomial coefficient */
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c > 2 ? 2 / c : 1;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	return pg_cmp_double(&((const struct pidx *)a)->p, &((const struct pidx *)b)->p);
}

int pg_bh_adjust(const double *p, size_t n, double *q)
{
	struct pidx *s;
	size_t m = 0, k;
	double run = 1;

	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* NaN p-values are not part of the family (as R's p.adjust) and stay NaN */
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		s[m].p = p[i];
		s[m].i = i;
		m++;
	}
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	qsort(s, m, sizeof(*s), cmp_pidx);
	/* step up: from the largest p down, q_(k) = min(q_(k+1), p_(k) * m / k) */
	for (k = m; k > 0; k--) {
		double v = s[k - 1].p * (double)m / (double)k;

		if (v < run)
			run = v;
		q[s[k - 1].i] = run;
	}
	free(s);
	return 0;
}

/*
 * k of a distribution-free interval from the order statistics of @nn values: the largest
 * k >= 1 with P(S <= k - 1) <= alpha / 2 under the null, where S, symmetric about nn / 2, has
 * the cumulative distribution @cdf (exact), or without one is normal with standard deviation
 * @sigma (with continuity correction); 0 if there is none. At most (nn + 1) / 2.
 */
static size_t interval_k(const double *cdf, size_t nn, double sigma, double alpha)
{
	size_t k = 0;

	if (cdf)
		while (k < nn && cdf[k] <= alpha / 2)
			k++;
	else	/* P(S <= k - 1) ~ Phi((k - 1 + 0.5 - mu) / sigma) */
		while (k < nn &&
		       pg_norm_sf(((double)nn / 2 - ((double)k + 0.5)) / sigma) <= alpha / 2)
			k++;
	/* the k' that qualify are a prefix 1..k of the integers, so k is the largest one */
	return k > (nn + 1) / 2 ? (nn + 1) / 2 : k;
}

/* k of the Hodges-Lehmann interval of two samples (interval_k() of U), or -ENOMEM. */
static int hl_k(size_t nx, size_t ny, double alpha, struct pg_stats_ws *ws, size_t *kout)
{
	size_t nn = nx * ny;

	if (nx + ny <= PG_MWU_EXACT_MAX) {
		double *own;
		const double *cdf = exact_cdf(ws, nx, ny, &own);

		if (!cdf)
			return -ENOMEM;
		*kout = interval_k(cdf, nn, 0, alpha);
		free(own);
	} else {
		*kout = interval_k(NULL, nn,
				   sqrt((double)nx * (double)ny * (double)(nx + ny + 1) / 12),
				   alpha);
	}
	return 0;
}

/* The value at sorted position @k of @d[0..nn), @d already split at @m by pg_select_kth(). */
static double order_stat(double *d, size_t nn, size_t m, size_t k)
{
	if (k < m)
		pg_select_kth(d, 0, m, k);
	else if (k > m)
		pg_select_kth(d, m + 1, nn, k);
	return d[k];
}


int pg_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		      struct pg_hl *out)
{
	return pg_hodges_lehmann_ws(x, nx, y, ny, alpha, NULL, out);
}

/*
 * Only a few order statistics of the nx * ny differences are needed: the middle one or two
 * and the interval's ends. They are selected, not sorted for (the same values, in linear
 * instead of n log n time).
 */
/*
 * The nx * ny differences y[j] - x[i] into *@dp (@ws's buffer, or a new one when @ws is NULL:
 * the caller frees it), partly ordered around their middle, and their median into *@est.
 * 0, -EINVAL or -ENOMEM (nothing to free).
 */
static int hl_middle(const double *x, size_t nx, const double *y, size_t ny,
		     struct pg_stats_ws *ws, double **dp, double *est)
{
	size_t nn, i, j, m;
	double *d, below;

	if (!nx || !ny)
		return -EINVAL;
	for (i = 0; i < nx; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	for (i = 0; i < ny; i++)
		if (!isfinite(y[i]))
			return -EINVAL;
	if (nx > SIZE_MAX / sizeof(double) / ny)
		return -ENOMEM;
	nn = nx * ny;
	if (ws && ws->dcap >= nn) {
		d = ws->d;
	} else {
		d = malloc(nn * sizeof(*d));
		if (!d)
			return -ENOMEM;
		if (ws) {
			free(ws->d);
			ws->d = d;
			ws->dcap = nn;
		}
	}
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++)
			d[i * ny + j] = y[j] - x[i];
	m = nn / 2;
	pg_select_kth(d, 0, nn, m);
	if (nn % 2) {
		*est = d[m];
	} else {
		/* the largest value below position m */
		below = d[0];
		for (i = 1; i < m; i++)
			below = d[i] > below ? d[i] : below;
		*est = (below + d[m]) / 2;
	}
	*dp = d;
	return 0;
}

int pg_hodges_lehmann_ws(const double *x, size_t nx, const double *y, size_t ny, double alpha,
			 struct pg_stats_ws *ws, struct pg_hl *out)
{
	size_t nn = nx * ny, k;
	double *d;
	int err;

	if (!(alpha > 0 && alpha < 1))
		return -EINVAL;
	err = hl_middle(x, nx, y, ny, ws, &d, &out->estimate);
	if (err)
		return err;
	err = hl_k(nx, ny, alpha, ws, &k);
	if (!err && k) {
		out->lo = order_stat(d, nn, nn / 2, k - 1);
		out->hi = order_stat(d, nn, nn / 2, nn - k);
	} else if (!err) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
	}
	if (!ws)
		free(d);
	return err;
}

int pg_hl_estimate_ws(const double *x, size_t nx, const double *y, size_t ny,
		      struct pg_stats_ws *ws, double *est)
{
	double *d;
	int err = hl_middle(x, nx, y, ny, ws, &d, est);

	if (!err && !ws)
		free(d);
	return err;
}

/* ---- paired samples: Wilcoxon signed-rank ---- */

double pg_wsr_min_p(size_t n)
{
	return n >= 1024 ? 0 : fmin(1, 2 / ldexp(1, (int)n));
}

/*
 * The null distribution of W+ for n untied differences: count[w] is the number of the 2^n sign
 * patterns whose positive ranks add up to w (0 <= w <= n(n+1)/2), built one rank at a time
 * (count'[w] = count[w] + count[w - r]). Exact in uint64_t while 2^n fits: n <= 63.
 * Returns the cumulative distribution P(W+ <= w) (malloc'd, n(n+1)/2 + 1 entries), or NULL.
 */
static double *wsr_exact_cdf_new(size_t n)
{
	size_t top = n * (n + 1) / 2;
	uint64_t *count = calloc(top + 1, sizeof(*count));
	double *cdf = malloc((top + 1) * sizeof(*cdf)), total, run = 0;

	if (!count || !cdf) {
		free(count);
		free(cdf);
		return NULL;
	}
	count[0] = 1;
	for (size_t r = 1, reach = 0; r <= n; r++) {
		reach += r;
		for (size_t w = reach; w >= r; w--)
			count[w] += count[w - r];
	}
	total = ldexp(1, (int)n);
	for (size_t w = 0; w <= top; w++) {
		run += (double)count[w];
		cdf[w] = run / total;
	}
	free(count);
	return cdf;
}

struct absrank {
	double a;	/* |d| */
	int sign;
};

static int cmp_absrank(const void *x, const void *y)
{
	double a = ((const struct absrank *)x)->a, b = ((const struct absrank *)y)->a;

	return (a > b) - (a < b);
}

int pg_wsr_test(const double *d, size_t n, struct pg_wsr *out)
{
	struct absrank *v;
	size_t m = 0;
	double wplus = 0, tie_term = 0;
	bool ties = false;

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			v[m++] = (struct absrank){ fabs(d[i]), d[i] > 0 };
	qsort(v, m, sizeof(*v), cmp_absrank);
	for (size_t i = 0, j; i < m; i = j) {
		double rank;

		for (j = i + 1; j < m && v[j].a == v[i].a; j++)
			;
		rank = (double)(i + 1 + j) / 2;	/* mean of ranks i+1..j */
		if (j - i > 1) {
			double t = (double)(j - i);

			ties = true;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (v[k].sign)
				wplus += rank;
	}
	free(v);
	out->w_plus = wplus;
	out->n_used = m;
	out->exact = 0;
	out->p = 1;
	if (!m)
		return 0;
	if (!ties && m <= PG_WSR_EXACT_MAX) {
		double *cdf = wsr_exact_cdf_new(m), lo, hi;
		size_t w = (size_t)wplus;

		if (!cdf)
			return -ENOMEM;
		/* two-sided: twice the smaller tail, W+ symmetric about top / 2 */
		lo = cdf[w];
		hi = w ? 1 - cdf[w - 1] : 1;
		out->p = fmin(1, 2 * fmin(lo, hi));
		out->exact = 1;
		free(cdf);
	} else {
		double mn = (double)m, mu = mn * (mn + 1) / 4;
		double var = mn * (mn + 1) * (2 * mn + 1) / 24 - tie_term / 48;
		double dev = fabs(wplus - mu);

		out->p = var > 0 ? fmin(1, 2 * pg_norm_sf((dev - 0.5) / sqrt(var))) : 1;
		if (dev < 0.5)
			out->p = 1;
	}
	if (out->p < DBL_MIN)
		out->p = DBL_MIN;
	return 0;
}

int pg_hodges_lehmann_paired(const double *d, size_t n, double alpha, struct pg_hl *out)
{
	size_t nw, k = 0, w = 0;
	double *walsh;

	if (!n || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	nw = n * (n + 1) / 2;
	walsh = malloc(nw * sizeof(*walsh));
	if (!walsh)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			walsh[w++] = (d[i] + d[j]) / 2;
	qsort(walsh, nw, sizeof(*walsh), pg_cmp_double);
	out->estimate = nw % 2 ? walsh[nw / 2] : (walsh[nw / 2 - 1] + walsh[nw / 2]) / 2;
	if (n <= PG_WSR_EXACT_MAX) {
		double *cdf = wsr_exact_cdf_new(n);

		if (!cdf) {
			free(walsh);
			return -ENOMEM;
		}
		k = interval_k(cdf, nw, 0, alpha);
		free(cdf);
	} else {
		k = interval_k(NULL, nw,
			       sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24), alpha);
	}
	if (k) {
		out->lo = walsh[k - 1];
		out->hi = walsh[nw - k];
	} else {
		out->lo = -INFINITY;
		out->hi = INFINITY;
	}
	free(walsh);
	return 0;
}
