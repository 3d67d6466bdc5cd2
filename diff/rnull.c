// SPDX-License-Identifier: MIT
/*
 * diff/rnull.c - the empirical null of two recordings (rnull.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "../core/sort.h"
#include "rnull.h"
#include "stats.h"

/* 1 / Phi^-1(3/4): a normal's standard deviation from its median absolute deviation */
#define MAD_TO_SD 1.482602218505602

/* The p-quantile of chi-square with @k degrees of freedom (Wilson and Hilferty). */
static double chi2_quantile(double p, double k)
{
	double z = -pg_norm_isf(p), c = 2 / (9 * k), v = 1 - c + z * sqrt(c);

	return v > 0 ? k * v * v * v : 0;
}

int pg_rnull_sigma(const struct pg_rspeed *s, double *sigma, size_t *n)
{
	double *r, mad, lo;
	size_t m = 0;

	*sigma = 0;
	*n = 0;
	if (!s->applied)
		return 0;
	r = malloc((s->nrefs ? s->nrefs : 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* the changed ones too: left out of the speed, they are the null's own tail, and the
	 * median of the absolute residuals stands while fewer than half changed */
	for (size_t i = 0; i < s->nrefs; i++)
		r[m++] = fabs(s->ref[i].d - s->shift);
	lo = m >= PG_RNULL_MIN_REFS ? chi2_quantile(1 - PG_RNULL_BOUND, (double)(m - 1)) : 0;
	mad = lo > 0 ? pg_median(r, m) : 0;
	free(r);
	if (isnan(mad))		/* pg_median() could not copy them */
		return -ENOMEM;
	if (lo > 0) {
		*sigma = MAD_TO_SD * mad * sqrt((double)(m - 1) / lo);
		*n = m;
	}
	return 0;
}

void pg_rnull_widen_by(struct pg_fcmp *f, double sigma, double alpha)
{
	double z = pg_norm_isf(alpha / 2), zs = z * sigma, l, lo, hi, p;

	if (!(sigma > 0) || !isfinite(f->change))
		return;
	l = log1p(f->change);
	if (isfinite(f->ci_lo) && f->ci_lo > -1) {
		lo = l - log1p(f->ci_lo);
		f->ci_lo = expm1(l - sqrt(lo * lo + zs * zs));
	}
	if (isfinite(f->ci_hi)) {
		hi = log1p(f->ci_hi) - l;
		f->ci_hi = expm1(l + sqrt(hi * hi + zs * zs));
	}
	p = 2 * pg_norm_sf(fabs(l) / sigma);
	if (p > f->p)
		f->p = p;
}

void pg_rnull_widen(struct pg_fcmp *f, double sigma, double alpha)
{
	if (!(sigma > 0) || !isfinite(f->change))
		return;
	pg_rnull_widen_by(f, sigma, alpha);
	f->noise = expm1(sigma);
}

double pg_rnull_z(const struct pg_fcmp *f, double alpha)
{
	double l, h;

	if (!isfinite(f->change) || f->change <= -1 || !isfinite(f->ci_lo) || f->ci_lo <= -1 ||
	    !isfinite(f->ci_hi))
		return NAN;
	l = log1p(f->change);
	h = l >= 0 ? l - log1p(f->ci_lo) : log1p(f->ci_hi) - l;
	return h > 0 ? l / h * pg_norm_isf(alpha / 2) : NAN;
}

int pg_rnull_inflation(const double *z, size_t n, double *lambda, size_t *used)
{
	double *a = malloc((n ? n : 1) * sizeof(*a)), lo, mad;
	size_t m = 0;

	*lambda = 0;
	*used = 0;
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (isfinite(z[i]))
			a[m++] = fabs(z[i]);
	lo = m >= PG_RNULL_MIN_REFS ? chi2_quantile(1 - PG_RNULL_BOUND, (double)(m - 1)) : 0;
	mad = lo > 0 ? pg_median(a, m) : 0;
	free(a);
	if (isnan(mad))
		return -ENOMEM;
	if (lo > 0) {
		*lambda = fmax(1, MAD_TO_SD * mad * sqrt((double)(m - 1) / lo));
		*used = m;
	}
	return 0;
}

void pg_rnull_inflate(struct pg_fcmp *f, double z, double lambda)
{
	double l, p;

	if (!isfinite(z) || !(lambda > 1))
		return;
	l = log1p(f->change);
	f->ci_lo = expm1(l - lambda * (l - log1p(f->ci_lo)));
	f->ci_hi = expm1(l + lambda * (log1p(f->ci_hi) - l));
	p = 2 * pg_norm_sf(fabs(z) / lambda);
	if (p > f->p)
		f->p = p;
}
