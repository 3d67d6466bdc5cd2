// SPDX-License-Identifier: MIT
/*
 * diff/calibunc.c - the compensation's uncertainty in the intervals (calibunc.h).
 */
#include <math.h>
#include <string.h>

#include "calibunc.h"

/* The calibrated cost of a traced call of kind @k: both probes, in and out. */
static double call_cost(const struct pg_calib *c, int k)
{
	return c->in_ns[k] + c->out_ns[k];
}

/* Two calibrations alike in every figure: one calibration written into both runs. */
static bool same_calib(const struct pg_calib *a, const struct pg_calib *b)
{
	for (int k = 0; k < PG_SITE_COUNT; k++)
		if (a->in_ns[k] != b->in_ns[k] || a->out_ns[k] != b->out_ns[k] ||
		    a->measured_ns[k] != b->measured_ns[k] || a->spread_ns[k] != b->spread_ns[k])
			return false;
	return a->measured == b->measured;
}

/* @err ns of error in a cost of @cost ns, as a share of it: at most 1 (nor any if no cost) */
static double rel(double err, double cost)
{
	return cost > 0 ? fmin(err / cost, 1) : 0;
}

void pg_calibunc_init(struct pg_calibunc *u, const struct pg_calib *base,
		      const struct pg_calib *new, bool compensated)
{
	memset(u, 0, sizeof(*u));
	if (!compensated || !base->valid || !new->valid)
		return;
	u->on = true;
	u->shared = same_calib(base, new);
	u->unknown[0] = !pg_calib_spread_known(base);
	u->unknown[1] = !pg_calib_spread_known(new);
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		double cb = call_cost(base, k), cn = call_cost(new, k), joint = (cb + cn) / 2;
		double half = u->shared ? 0 : fabs(cb - cn) / 2;

		u->u[0][k] = rel(base->spread_ns[k] + half, joint);
		u->u[1][k] = rel(new->spread_ns[k] + half, joint);
	}
}

const char *pg_calibunc_unknown(const struct pg_calibunc *u)
{
	if (!u->on || (!u->unknown[0] && !u->unknown[1]))
		return NULL;
	if (u->shared)
		return "the runs' calibration has no recorded spread (an older perfgate): the "
		       "intervals of traced functions do not carry its uncertainty";
	return u->unknown[0] && u->unknown[1] ?
	       "neither run's calibration has a recorded spread (an older perfgate): the "
	       "intervals of traced functions carry only the calibrations' disagreement" :
	       "one run's calibration has no recorded spread (an older perfgate): the intervals "
	       "of traced functions carry only the other's and the calibrations' disagreement";
}

/* a of a side (calibunc.h) with the relative error @x[k]: sum_k x(k) sub(k) / T'. */
static double side_a(const struct pg_sample *s, const double *x)
{
	double a = 0;

	for (int k = 0; k < PG_SITE_COUNT; k++)
		a += x[k] * s->sub[k];
	return a / s->compensated;
}

/* Both sides erring by one x(k) of either sign (shared): g at the 2^PG_SITE_COUNT corners. */
static void shared_bounds(const struct pg_calibunc *u, const struct pg_sample *b,
			  const struct pg_sample *n, double *lo, double *hi)
{
	for (unsigned int corner = 0; corner < 1u << PG_SITE_COUNT; corner++) {
		double x[PG_SITE_COUNT], ab, an, g;

		for (int k = 0; k < PG_SITE_COUNT; k++)
			x[k] = corner & 1u << k ? u->u[0][k] : -u->u[0][k];
		ab = side_a(b, x);
		an = side_a(n, x);
		if (!(ab < 1) || !(an < 1)) {	/* an error as large as a side's time */
			*lo = -INFINITY;
			*hi = INFINITY;
			return;
		}
		g = log1p(-an) - log1p(-ab);
		*lo = g < *lo ? g : *lo;
		*hi = g > *hi ? g : *hi;
	}
}

void pg_calibunc_bounds(const struct pg_calibunc *u, const struct pg_sample *b,
			const struct pg_sample *n, double *lo, double *hi)
{
	double ab, an;

	*lo = *hi = 0;
	if (!u->on)
		return;
	if (!(b->compensated > 0) || !(n->compensated > 0)) {
		*lo = -INFINITY;
		*hi = INFINITY;
		return;
	}
	if (u->shared) {
		shared_bounds(u, b, n, lo, hi);
		return;
	}
	/* independent sides: each a within +-A, A with every x(k) at its bound */
	ab = side_a(b, u->u[0]);
	an = side_a(n, u->u[1]);
	*hi = ab < 1 ? log1p(an) - log1p(-ab) : INFINITY;
	*lo = an < 1 ? log1p(-an) - log1p(ab) : -INFINITY;
}

void pg_calibunc_widen(struct pg_fcmp *f, const struct pg_calibunc *u, const struct pg_sample *b,
		       const struct pg_sample *n)
{
	double lo, hi;

	f->calib_unc = 0;
	if (isnan(f->change) || !b->n || !n->n)
		return;
	pg_calibunc_bounds(u, b, n, &lo, &hi);
	if (!(hi > 0) && !(lo < 0))
		return;
	f->calib_unc = fmax(expm1(hi), -expm1(lo));
	if (isfinite(f->ci_lo) && f->ci_lo > -1)
		f->ci_lo = isinf(lo) ? -INFINITY : expm1(log1p(f->ci_lo) + lo);
	if (isfinite(f->ci_hi))
		f->ci_hi = isinf(hi) ? INFINITY : expm1(log1p(f->ci_hi) + hi);
}
