// SPDX-License-Identifier: MIT
/*
 * diff/paired.c - pairs of an interleaved session, the boundaries of a sequential comparison
 * (diff/paired.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "paired.h"
#include "speed.h"
#include "stats.h"

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

/* Does no pair index occur twice among the repetitions of @run? (false when out of memory) */
static bool pairs_unique(const struct pg_run *run)
{
	uint32_t *v = malloc((run->nreps ? run->nreps : 1) * sizeof(*v));
	bool ok = v != NULL;

	for (size_t r = 0; ok && r < run->nreps; r++)
		v[r] = run->reps[r].pair;
	if (ok)
		qsort(v, run->nreps, sizeof(*v), cmp_u32);
	for (size_t r = 1; ok && r < run->nreps; r++)
		ok = v[r] != v[r - 1];
	free(v);
	return ok;
}

bool pg_runs_paired(const struct pg_run *base, const struct pg_run *new, bool *swapped)
{
	const struct pg_meta *a = &base->meta, *b = &new->meta;
	bool straight = a->ab_side == PG_AB_BASE && b->ab_side == PG_AB_NEW;
	bool crossed = a->ab_side == PG_AB_NEW && b->ab_side == PG_AB_BASE;

	if (swapped)
		*swapped = false;
	if (!a->ab_session || !b->ab_session || strcmp(a->ab_session, b->ab_session))
		return false;
	if (!straight && !crossed)
		return false;
	/* a pair index is a repetition's partner: one per side, or the pairing means nothing */
	if (!pairs_unique(base) || !pairs_unique(new))
		return false;
	if (swapped)
		*swapped = crossed;
	return true;
}

struct pv {
	uint32_t pair;
	double v;
};

static int cmp_pv(const void *pa, const void *pb)
{
	const struct pv *a = pa, *b = pb;

	return (a->pair > b->pair) - (a->pair < b->pair);
}

static struct pv *sorted_pv(const double *v, const uint32_t *p, size_t n)
{
	struct pv *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct pv){ p[i], v ? v[i] : 0 };
	qsort(s, n, sizeof(*s), cmp_pv);
	return s;
}

ssize_t pg_pair_diffs(const double *bv, const uint32_t *bp, size_t nb, const double *nv,
		      const uint32_t *np, size_t nn, double *d, uint32_t *dp)
{
	struct pv *x = sorted_pv(bv, bp, nb), *y = sorted_pv(nv, np, nn);
	size_t i = 0, j = 0;
	ssize_t k = 0;

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	while (i < nb && j < nn) {
		if (x[i].pair < y[j].pair) {
			i++;
		} else if (x[i].pair > y[j].pair) {
			j++;
		} else {
			if (d)
				d[k] = y[j].v - x[i].v;
			if (dp)
				dp[k] = x[i].pair;
			k++;
			i++;
			j++;
		}
	}
	free(x);
	free(y);
	return k;
}

size_t pg_runs_npairs(const struct pg_run *base, const struct pg_run *new)
{
	uint32_t *bp = malloc((base->nreps ? base->nreps : 1) * sizeof(*bp));
	uint32_t *np = malloc((new->nreps ? new->nreps : 1) * sizeof(*np));
	ssize_t n = 0;

	if (bp && np) {
		for (size_t r = 0; r < base->nreps; r++)
			bp[r] = base->reps[r].pair;
		for (size_t r = 0; r < new->nreps; r++)
			np[r] = new->reps[r].pair;
		n = pg_pair_diffs(NULL, bp, base->nreps, NULL, np, new->nreps, NULL, NULL);
	}
	free(bp);
	free(np);
	return n > 0 ? (size_t)n : 0;
}

ssize_t pg_paired_effect(struct pg_fcmp *f, const double *bl, const uint32_t *bp, size_t nb,
			 const double *nl, const uint32_t *np, size_t nn, double alpha,
			 const struct pg_speed *speed, double share, uint32_t speed_id,
			 double **d)
{
	size_t cap = nb < nn ? nb : nn;
	uint32_t *dp = malloc((cap ? cap : 1) * sizeof(*dp));
	struct pg_hl hl;
	ssize_t k;
	int err;

	*d = malloc((cap ? cap : 1) * sizeof(**d));
	if (!*d || !dp) {
		free(dp);
		return -ENOMEM;
	}
	k = pg_pair_diffs(bl, bp, nb, nl, np, nn, *d, dp);
	if (k > 0)
		pg_speed_correct(speed, *d, dp, (size_t)k, share, speed_id);
	free(dp);
	if (k <= 0)
		return k;
	f->pairs = (size_t)k;
	err = pg_hodges_lehmann_paired(*d, (size_t)k, alpha, &hl);
	if (err)
		return err;
	f->change = expm1(hl.estimate);
	/* an infinite end stays infinite, as compare.c has it */
	f->ci_lo = isinf(hl.lo) ? -INFINITY : expm1(hl.lo);
	f->ci_hi = isinf(hl.hi) ? INFINITY : expm1(hl.hi);
	return k;
}

int pg_paired_test(struct pg_fcmp *f, const double *d, size_t nd,
		   const struct pg_compare_opts *o)
{
	double min_p = pg_wsr_min_p(nd);
	struct pg_wsr w;
	int err;

	if (min_p > o->alpha) {
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason),
			 "only %zu pairs with calls on both sides: the smallest possible p-value "
			 "is %.2g > alpha %g", nd, min_p, o->alpha);
		return 0;
	}
	if (nd < o->min_reps) {
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason),
			 "only %zu pairs with calls on both sides: at least %u needed", nd,
			 o->min_reps);
		return 0;
	}
	err = pg_wsr_test(d, nd, &w);
	if (err)
		return err;
	f->p = w.p;
	return 1;
}

void pg_paired_overall_reason(struct pg_comparison *c, const struct pg_compare_opts *o,
			      size_t ncommon)
{
	size_t need = o->min_reps > 1 ? o->min_reps : 1;
	char *r = c->overall_reason;
	size_t rs = sizeof(c->overall_reason);

	/* the pairs needed before the signed-rank test can reach alpha */
	while (need < 1000 && pg_wsr_min_p(need) > o->alpha)
		need++;
	if (c->npairs < need)
		snprintf(r, rs, "too few pairs (%zu): at least %zu needed to reach alpha %g",
			 c->npairs, need, o->alpha);
	else if (!ncommon)
		snprintf(r, rs, "no function was called in both runs: nothing to compare");
	else
		snprintf(r, rs, "no function was called on both sides of at least %zu pairs", need);
}

double pg_alpha_spent(double alpha, uint32_t look, uint32_t looks)
{
	if (!looks)
		return alpha;
	if (!look)
		return 0;
	if (look >= looks)
		return alpha;
	return alpha * pow((double)look / (double)looks, PG_SPEND_RHO);
}

/* ---- group-sequential boundaries (diff/paired.h, "Sequential design") ---- */

#define GS_GRID 401	/* points of the numerical integration over a look's continuation */

/* The weight of point @i of @n on a grid of step @h (the trapezoid rule). */
static double trapezoid(size_t i, size_t n, double h)
{
	return (i == 0 || i == n - 1) ? h / 2 : h;
}

/*
 * P(|S| >= b) for S = x + N(0, sd^2), x distributed as the density f on the grid x[0..n)
 * (trapezoid weights h).
 */
static double gs_cross(const double *x, const double *f, size_t n, double h, double sd, double b)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += trapezoid(i, n, h) * f[i] *
		       (pg_norm_sf((b - x[i]) / sd) + pg_norm_sf((b + x[i]) / sd));
	return sum;
}

double pg_look_alpha(const struct pg_compare_opts *o)
{
	double x[GS_GRID], f[GS_GRID], y[GS_GRID], g[GS_GRID];
	double t_prev = 0, spent_prev = 0, h = 0, nominal = 0;
	uint32_t k;

	if (!o->looks || o->looks == 1)
		return o->alpha;
	/*
	 * S_k = Z_k sqrt(t_k) is a Brownian motion in information time t_k = k / K: independent
	 * N(0, t_k - t_(k-1)) increments. f is the density of S_(k-1) on the continuation
	 * region (-b, b) of look k-1, whose mass is what no earlier look rejected.
	 */
	for (k = 1; k <= o->look; k++) {
		double t = (double)k / (double)o->looks;
		double spent = pg_alpha_spent(o->alpha, k, o->looks);
		double inc = spent - spent_prev, sd = sqrt(t - t_prev), b, lo, hi;

		if (!(inc > 0))
			return 0;
		if (k == 1) {
			b = pg_norm_isf(inc / 2) * sqrt(t);
		} else {
			for (lo = 0, hi = 40 * sqrt(t); hi - lo > 1e-9 * hi;) {
				b = (lo + hi) / 2;
				if (gs_cross(x, f, GS_GRID, h, sd, b) > inc)
					lo = b;
				else
					hi = b;
			}
			b = (lo + hi) / 2;
		}
		nominal = 2 * pg_norm_sf(b / sqrt(t));
		if (k == o->look)
			break;
		/*
		 * the density of S_k on (-b, b): at look 1 normal, later f convolved with
		 * N(0, sd^2)
		 */
		for (size_t j = 0; j < GS_GRID; j++) {
			y[j] = -b + 2 * b * (double)j / (GS_GRID - 1);
			g[j] = k == 1 ? pg_norm_pdf(y[j] / sd) / sd : 0;
			for (size_t i = 0; k > 1 && i < GS_GRID; i++)
				g[j] += trapezoid(i, GS_GRID, h) * f[i] *
					pg_norm_pdf((y[j] - x[i]) / sd) / sd;
		}
		memcpy(x, y, sizeof(x));
		memcpy(f, g, sizeof(f));
		h = 2 * b / (GS_GRID - 1);
		t_prev = t;
		spent_prev = spent;
	}
	return nominal;
}

/* ---- a function decided at an earlier look keeps its verdict ---- */

static bool decided(enum pg_verdict v)
{
	return v == PG_VERDICT_REGRESSION || v == PG_VERDICT_IMPROVEMENT ||
	       v == PG_VERDICT_NOTABLE || v == PG_VERDICT_UNCHANGED;
}

static bool same_func(const struct pg_fcmp *a, const struct pg_fcmp *b)
{
	return a->origin == b->origin && !strcmp(a->binary, b->binary) &&
	       !strcmp(a->name, b->name) &&
	       !strcmp(a->scope ? a->scope : "", b->scope ? b->scope : "");
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

/* *@to = a deep copy of @from; @to released first. 0 or -ENOMEM. */
static int fcmp_copy(struct pg_fcmp *to, const struct pg_fcmp *from)
{
	bool oom = false;

	pg_fcmp_release(to);
	*to = *from;
	to->binary = dup_or_null(from->binary, &oom);
	to->name = dup_or_null(from->name, &oom);
	to->display = dup_or_null(from->display, &oom);
	to->scope = dup_or_null(from->scope, &oom);
	to->src_file = dup_or_null(from->src_file, &oom);
	return oom ? -ENOMEM : 0;
}

int pg_keep_decided(struct pg_comparison *out, const struct pg_comparison *prev)
{
	if (!prev)
		return 0;
	for (size_t i = 0; i < prev->n; i++) {
		const struct pg_fcmp *p = &prev->f[i];

		if (!decided(p->verdict))
			continue;
		for (size_t j = 0; j < out->n; j++) {
			if (!same_func(&out->f[j], p))
				continue;
			if (fcmp_copy(&out->f[j], p))
				return -ENOMEM;
			break;
		}
	}
	return 0;
}

bool pg_comparison_undecided(const struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];
		enum pg_cause k = f->cause;
		bool all = f->origin == PG_ORIGIN_EXACT ||
			   (f->origin == PG_ORIGIN_PROGRAM && !strcmp(f->name, PG_PROGRAM_CPU));

		/* a slowdown not yet sure: more pairs may decide it, whatever it is of */
		if (k == PG_CAUSE_NOT_SIG || k == PG_CAUSE_NOT_SURELY)
			return true;
		/* too few pairs or too wide: only for the exact functions and the program's CPU
		 * time (the many sampled functions and the wall time would keep every session to
		 * its maximum); not probe share, callee time, callees or one side: more pairs
		 * change none */
		if (all && (k == PG_CAUSE_REPS || k == PG_CAUSE_WIDE))
			return true;
		/* ...and for a sampled function estimated slower beyond the minimum effect by
		 * enough to move the run (PG_EXTEND_IMPACT times the impact rule's bar, and at
		 * least times the paired default PG_MIN_IMPACT_PAIRED when the bar is lower): a
		 * leaf of 10% of the run at +7% [-8%, +25%] after 10 pairs */
		if (f->origin == PG_ORIGIN_SAMPLED && k == PG_CAUSE_WIDE &&
		    f->change > c->opts.min_effect &&
		    f->impact >= PG_EXTEND_IMPACT * fmax(c->opts.min_impact, PG_MIN_IMPACT_PAIRED))
			return true;
	}
	return false;
}
