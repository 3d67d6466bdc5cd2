// SPDX-License-Identifier: MIT
/*
 * diff/calibunc.c - the compensation's uncertainty in the intervals (calibunc.h).
 */
#include <math.h>
#include <string.h>

#include "calibunc.h"
#include "stats.h"

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

/* @r, but at least PG_CALIBUNC_TRAP_DRIFT for a kind of site not scaled and with a cost */
static double drift_floor(double r, int k, double cost)
{
	if (cost > 0 && !pg_calib_scaled_site((enum pg_site)k) && r < PG_CALIBUNC_TRAP_DRIFT)
		return PG_CALIBUNC_TRAP_DRIFT;
	return r;
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

		u->u[0][k] = drift_floor(rel(base->spread_ns[k] + half, joint), k, joint);
		u->u[1][k] = drift_floor(rel(new->spread_ns[k] + half, joint), k, joint);
		u->in[k] = (base->in_ns[k] + new->in_ns[k]) / 2;
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

/*
 * The largest relative error of kind @k's cost that @s allows: its own probes' in is within
 * the shortest of its calls, so x(k) <= shortest / in(k) - 1; INFINITY without such calls,
 * and at scaled sites, whose in compensation scales by the BPF run time (core/calib.h).
 */
static double cap_of(const struct pg_calibunc *u, const struct pg_sample *s, int k)
{
	if (pg_calib_scaled_site((enum pg_site)k) || !(s->shortest[k] > 0) || !(u->in[k] > 0))
		return INFINITY;
	return s->shortest[k] / u->in[k] - 1;
}

/*
 * The box of errors of one side, @side's bounds of x(k) capped at @cap[k]: [@lo[k], @hi[k]].
 * A cap below the box's lower end lowers it too: the data place the error there.
 */
static void side_box(const struct pg_calibunc *u, int side, const double *cap, double *lo,
		     double *hi)
{
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		hi[k] = fmin(u->u[side][k], cap[k]);
		lo[k] = fmin(-u->u[side][k], cap[k]);
	}
}

/*
 * T' of a side: its calls times the median of its values, the time the tests' estimate stands
 * for; the sum of its compensated time when it has no values. Not the sum itself: a few
 * repetitions whose probes ran slow move the sums of both sides alike, not the median change.
 * In a gcc -O2 ab session of bench/probeunc.c (work() single-stepped, +19.8% slower) the sums
 * were 3% apart and the medians 10%: over the sums the bias bound was 3%, over the medians 8%.
 */
static double side_time(const struct pg_sample *s)
{
	if (!s->n || !(s->calls > 0))
		return s->compensated;
	return pg_median(s->raw, s->n) * s->calls;
}

/* a of a side (calibunc.h) with the relative error @x[k]: sum_k x(k) sub(k) / T', T' = @t. */
static double side_a(const struct pg_sample *s, double t, const double *x)
{
	double a = 0;

	for (int k = 0; k < PG_SITE_COUNT; k++)
		a += x[k] * s->sub[k];
	return a / t;
}

/*
 * Both sides erring by one x(k) in [lo(k), hi(k)] (shared): g at the 2^PG_SITE_COUNT corners.
 * A corner where a side's error reaches its whole time: on the way to it from x = 0 (a grows
 * in proportion on both sides) the side whose a is larger gets there first, and g goes to
 * +infinity (base) or -infinity (new) before; with both alike, either.
 */
static void shared_bounds(const double *xlo, const double *xhi, const struct pg_sample *b,
			  const struct pg_sample *n, const double *t, double *lo, double *hi)
{
	for (unsigned int corner = 0; corner < 1u << PG_SITE_COUNT; corner++) {
		double x[PG_SITE_COUNT], ab, an, g;

		for (int k = 0; k < PG_SITE_COUNT; k++)
			x[k] = corner & 1u << k ? xhi[k] : xlo[k];
		ab = side_a(b, t[0], x);
		an = side_a(n, t[1], x);
		if (!(ab < 1) || !(an < 1)) {	/* an error as large as a side's time */
			if (!(ab < an))
				*hi = INFINITY;
			if (!(an < ab))
				*lo = -INFINITY;
			continue;
		}
		g = log1p(-an) - log1p(-ab);
		*lo = g < *lo ? g : *lo;
		*hi = g > *hi ? g : *hi;
	}
}

void pg_calibunc_bounds(const struct pg_calibunc *u, const struct pg_sample *b,
			const struct pg_sample *n, double *lo, double *hi)
{
	double cb[PG_SITE_COUNT], cn[PG_SITE_COUNT], blo[PG_SITE_COUNT], bhi[PG_SITE_COUNT];
	double nlo[PG_SITE_COUNT], nhi[PG_SITE_COUNT], ab_lo, ab_hi, an_lo, an_hi;
	double t[2];	/* T' of each side */

	*lo = *hi = 0;
	if (!u->on)
		return;
	t[0] = side_time(b);
	t[1] = side_time(n);
	/* no time left after compensation, or not an affine function of the error any more */
	if (!(t[0] > 0) || !(t[1] > 0) || b->floored || n->floored) {
		*lo = -INFINITY;
		*hi = INFINITY;
		return;
	}
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		cb[k] = cap_of(u, b, k);
		cn[k] = cap_of(u, n, k);
		if (u->shared)	/* one cost: what either side's calls allow */
			cb[k] = cn[k] = fmin(cb[k], cn[k]);
	}
	side_box(u, 0, cb, blo, bhi);
	side_box(u, 1, cn, nlo, nhi);
	if (u->shared) {
		shared_bounds(blo, bhi, b, n, t, lo, hi);
		return;
	}
	/* independent sides: each a within [a(lo), a(hi)] */
	ab_lo = side_a(b, t[0], blo);
	ab_hi = side_a(b, t[0], bhi);
	an_lo = side_a(n, t[1], nlo);
	an_hi = side_a(n, t[1], nhi);
	*hi = ab_hi < 1 ? fmax(log1p(-an_lo) - log1p(-ab_hi), 0) : INFINITY;
	*lo = an_hi < 1 ? fmin(log1p(-an_hi) - log1p(-ab_lo), 0) : -INFINITY;
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
