// SPDX-License-Identifier: MIT
/*
 * diff/verdict.c - one function's comparison: its effect, its test, and its verdict once the
 * false-discovery control has given its q (diff/verdict.h; method: compare.h and
 * docs/statistics.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/numfmt.h"
#include "calibunc.h"
#include "compare.h"
#include "paired.h"
#include "repvalues.h"
#include "rnull.h"
#include "rspeed.h"
#include "stats.h"
#include "verdict.h"

/* Append printf-formatted text to a fixed buffer, truncating. */
void pg_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* "+12.1% [+9.8%, +14.0%]": the change and its interval as every report writes them. */
static void effect_words(char *buf, size_t size, const struct pg_fcmp *f)
{
	char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];

	pg_append(buf, size, "%s %s", pg_fmt_pct(ch, sizeof(ch), f->change),
		  pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi));
}

/* ------------------------------------------------------------------------------------------ */
/* One function (or the wall time): effect, test, verdict */

/*
 * Is @f mostly probe effects on either side (PG_MIN_NS_PER_CALLEE, PG_MAX_PROBE_SHARE)? Then
 * its cause and reason are set and it is not tested.
 */
bool pg_probe_bound(struct pg_fcmp *f, const struct pg_sample *b, const struct pg_sample *n,
		    bool compensated)
{
	for (const struct pg_sample *x = b; x; x = x == b ? n : NULL) {
		double per = x->callees > 0 ? x->measured / x->callees : INFINITY;

		if (per < PG_MIN_NS_PER_CALLEE) {
			f->cause = PG_CAUSE_CALLEE_TIME;
			snprintf(f->reason, sizeof(f->reason),
				 "only ~%.1f us of its measured time per call to a traced "
				 "function: too little to tell apart from the probes' effects",
				 per / 1e3);
			return true;
		}
	}
	if (compensated) {
		double sb = b->measured > 0 ? 1 - b->compensated / b->measured : 0;
		double sn = n->measured > 0 ? 1 - n->compensated / n->measured : 0;

		f->probe_share = sb > sn ? sb : sn;
		if (f->probe_share > PG_MAX_PROBE_SHARE) {
			f->cause = PG_CAUSE_PROBES;
			snprintf(f->reason, sizeof(f->reason),
				 "probes are ~%.0f%% of its measured time: too much to subtract "
				 "reliably; compare with --raw, or use cheaper probe sites",
				 100 * f->probe_share);
			return true;
		}
	}
	return false;
}

/*
 * analyse() of the two sides of an interleaved session (diff/paired.h): the effect and the
 * signed-rank test over the pairs in which the function was called on both sides.
 */
static int analyse_paired(struct pg_fcmp *f, const struct pg_sample *b, const struct pg_sample *n,
			  const struct pg_compare_opts *o, bool compensated)
{
	double *d = NULL;
	ssize_t nd;
	int err;

	nd = pg_paired_effect(f, b->log, b->pair, b->n, n->log, n->pair, n->n, o->alpha, b->speed,
			      b->share, b->speed_id, &d);
	if (nd < 0)
		return (int)nd;
	err = pg_probe_bound(f, b, n, compensated) ? 0 : pg_paired_test(f, d, (size_t)nd, o);
	free(d);
	return err;
}

/*
 * analyse() of two recordings with the machine's speed between them (diff/rspeed.h): the new
 * run's logs less the part of it the function follows, its medians as measured; the interval
 * widened by the two recordings' own noise (the references' null) or by the speed's
 * uncertainty (the spins', or an unknown speed's).
 */
static int analyse_corrected(struct pg_fcmp *f, const struct pg_sample *b,
			     const struct pg_sample *n, const struct pg_compare_opts *o,
			     bool compensated, struct pg_stats_ws *ws)
{
	struct pg_sample bc = *b, nc = *n;
	double beta, c = pg_rspeed_of(b->rspeed, b->speed_id, b->log, b->pair, b->n, n->log,
				      n->pair, n->n, b->share, &beta);
	double *y = malloc((n->n ? n->n : 1) * sizeof(*y));
	int err;

	if (!y)
		return -ENOMEM;
	for (size_t i = 0; i < n->n; i++)
		y[i] = n->log[i] - c;
	nc.log = y;
	bc.rspeed = nc.rspeed = NULL;
	err = pg_analyse(f, &bc, &nc, o, compensated, ws);
	if (err == 1)	/* judged against the two recordings' own noise */
		pg_rnull_widen(f, b->rspeed->null_sigma, o->alpha);
	if (err == 1)	/* and against the speed's uncertainty, without references */
		pg_rnull_widen_by(f, pg_rspeed_se(b->rspeed, beta), o->alpha);
	free(y);
	return err;
}

/*
 * Fill medians and the Hodges-Lehmann effect of @f from the two samples, and decide whether it
 * can be tested; if so, set f->p. Returns 1 if tested, 0 if not (f->reason says why), or a
 * negative errno. Paired samples go to analyse_paired().
 */
int pg_analyse(struct pg_fcmp *f, const struct pg_sample *b, const struct pg_sample *n,
	       const struct pg_compare_opts *o, bool compensated, struct pg_stats_ws *ws)
{
	struct pg_hl hl;
	struct pg_mwu m;
	double min_p;
	int err;

	f->n_base = b->n;
	f->n_new = n->n;
	f->base_ns = pg_median(b->raw, b->n);
	f->new_ns = pg_median(n->raw, n->n);
	if (!b->n || !n->n)
		return 0;
	if (b->paired && n->paired)
		return analyse_paired(f, b, n, o, compensated);
	if (pg_rspeed_corrects(b->rspeed))
		return analyse_corrected(f, b, n, o, compensated, ws);
	err = pg_hodges_lehmann_ws(b->log, b->n, n->log, n->n, o->alpha, ws, &hl);
	if (err)
		return err;
	f->change = expm1(hl.estimate);
	/* an infinite end stays infinite: "no bound", rather than exp(-inf) - 1 = -100% */
	f->ci_lo = isinf(hl.lo) ? -INFINITY : expm1(hl.lo);
	f->ci_hi = isinf(hl.hi) ? INFINITY : expm1(hl.hi);
	if (pg_probe_bound(f, b, n, compensated))
		return 0;
	min_p = pg_mwu_min_p(b->n, n->n);
	if (min_p > o->alpha) {
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason),
			 "only %zu and %zu repetitions: the smallest possible p-value is %.2g > "
			 "alpha %g",
			 b->n, n->n, min_p, o->alpha);
		return 0;
	}
	if (b->n < o->min_reps || n->n < o->min_reps) {
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason),
			 "only %zu and %zu repetitions: at least %u per side needed", b->n, n->n,
			 o->min_reps);
		return 0;
	}
	err = pg_mwu_test_ws(b->log, b->n, n->log, n->n, ws, &m);
	if (err)
		return err;
	f->p = m.p;
	return 1;
}

double pg_tail_index(const struct pg_sample *b, const struct pg_sample *n)
{
	size_t cap = b->n + n->n, m = 0;
	double *v = malloc((cap ? cap : 1) * sizeof(*v)), sum = 0, med, mid;
	ssize_t nd;

	if (!v)
		return NAN;
	if (b->paired && n->paired) {	/* |d|: a pair's sides swapped flip d only */
		nd = pg_pair_diffs(b->log, b->pair, b->n, n->log, n->pair, n->n, v, NULL);
		m = nd > 0 ? (size_t)nd : 0;
		for (size_t k = 0; k < m; k++)
			v[k] = fabs(v[k]);
	} else {		/* distances from the pooled median: labels do not matter */
		memcpy(v, b->log, b->n * sizeof(*v));
		memcpy(v + b->n, n->log, n->n * sizeof(*v));
		m = cap;
		mid = pg_median(v, m);
		for (size_t k = 0; k < m; k++)
			v[k] = fabs(v[k] - mid);
	}
	for (size_t k = 0; k < m; k++)
		sum += v[k];
	med = m ? pg_median(v, m) : NAN;
	free(v);
	if (!m || !(med > 0))
		return m && sum > 0 ? INFINITY : NAN;
	return sum / (double)m / med;
}

int pg_analyse_cpu(struct pg_fcmp *f, double tail_self, const struct pg_sample *b,
		   const struct pg_sample *n, const struct pg_compare_opts *o, bool compensated,
		   struct pg_stats_ws *ws)
{
	double tail_cpu = pg_tail_index(b, n);
	struct pg_fcmp c;
	int err;

	/* NAN on either side, or no clear difference: self time stays */
	if (!(tail_cpu * PG_TAIL_MARGIN <= tail_self))
		return 0;
	pg_fcmp_init(&c);
	err = pg_analyse(&c, b, n, o, compensated, ws);
	if (err != 1 || !isfinite(c.p))
		return err < 0 ? err : 0;
	f->by_cpu = true;
	f->base_ns = c.base_ns;
	f->new_ns = c.new_ns;
	f->change = c.change;
	f->ci_lo = c.ci_lo;
	f->ci_hi = c.ci_hi;
	f->p = c.p;
	return 0;
}

/*
 * The impact of @f: its change of time per repetition, change * base_ns * new_calls, and that
 * as a share of @wall_ns (the median repetition's wall time; NAN when unknown).
 */
void pg_impact(struct pg_fcmp *f, double wall_ns)
{
	if (isnan(f->change) || isnan(f->base_ns))
		return;
	f->impact_ns = f->change * f->base_ns * f->new_calls;
	if (wall_ns > 0)
		f->impact = f->impact_ns / wall_ns;
}

/*
 * A regression or an improvement that does not matter to the whole run (|impact| under
 * opts.min_impact) becomes notable, its reason saying how much of the run it is.
 */
static void weigh(struct pg_fcmp *f, const struct pg_compare_opts *o, double wall_ns)
{
	char *r = f->reason;
	size_t rs = sizeof(f->reason);
	char ns[PG_FMT_LEN], wall[PG_FMT_LEN];

	if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT)
		return;
	if (!(o->min_impact > 0) || !isfinite(f->impact) || fabs(f->impact) >= o->min_impact)
		return;
	f->verdict = PG_VERDICT_NOTABLE;
	pg_append(r, rs, "; %s%s in a %s repetition (%.2g%%): under %g%% of it, %s",
		  f->impact_ns < 0 ? "-" : "+", pg_fmt_ns(ns, sizeof(ns), fabs(f->impact_ns)),
		  pg_fmt_ns(wall, sizeof(wall), wall_ns), 100 * fabs(f->impact),
		  100 * o->min_impact, f->impact_ns < 0 ? "not counted" : "does not fail");
}

/* The verdict of a tested function, from q, the interval and opts (compare.h). */
void pg_decide(struct pg_fcmp *f, const struct pg_compare_opts *o, double wall_ns)
{
	double me = o->min_effect;
	bool sig = f->q <= o->alpha;
	bool finite = isfinite(f->ci_lo) && isfinite(f->ci_hi);
	char *r = f->reason;
	size_t rs = sizeof(f->reason);

	r[0] = 0;
	f->cause = PG_CAUSE_NONE;
	if (sig && f->ci_lo > me) {
		f->verdict = PG_VERDICT_REGRESSION;
		effect_words(r, rs, f);
		pg_append(r, rs, ", q=%.2g", f->q);
		weigh(f, o, wall_ns);
	} else if (sig && f->ci_hi < -me) {
		f->verdict = PG_VERDICT_IMPROVEMENT;
		effect_words(r, rs, f);
		pg_append(r, rs, ", q=%.2g", f->q);
		weigh(f, o, wall_ns);
	} else if (finite && f->ci_lo >= -me && f->ci_hi <= me) {
		f->verdict = PG_VERDICT_UNCHANGED;
		if (sig) {
			effect_words(r, rs, f);
			pg_append(r, rs, ", q=%.2g: significant but within +-%g%%", f->q, me * 100);
		}
	} else if (finite && f->ci_hi < me) {
		/*
		 * A regression of min_effect is ruled out. Not significant: the case compare.h
		 * names. Significant (then the interval reaches below -min_effect): faster, but
		 * not surely by min_effect; not a regression either, so unchanged as well.
		 */
		f->verdict = PG_VERDICT_UNCHANGED;
		if (sig) {
			effect_words(r, rs, f);
			pg_append(r, rs, ", q=%.2g: faster, but not surely by %g%%", f->q,
				  me * 100);
		}
	} else if (!sig && f->ci_lo > me) {
		/* the interval says slower, but the family-wise corrected test does not */
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_NOT_SIG;
		effect_words(r, rs, f);
		pg_append(r, rs, ", but q=%.2g > alpha %g", f->q, o->alpha);
	} else if (sig) {
		/* significant, but the interval straddles +min_effect */
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_NOT_SURELY;
		effect_words(r, rs, f);
		pg_append(r, rs, ", q=%.2g: slower, but not surely by %g%%", f->q, me * 100);
	} else {
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_WIDE;
		effect_words(r, rs, f);
		pg_append(r, rs, ": too wide to rule a %g%% regression in or out", me * 100);
	}
	if (f->noise > 0 && f->verdict == PG_VERDICT_INCONCLUSIVE)
		pg_append(r, rs, "%swithin the recordings' own noise (+-%.1f%%)", r[0] ? "; " : "",
			  100 * f->noise);
	if (f->calib_unc > 0 && f->probe_share > PG_CALIBUNC_SHARE)
		pg_append(r, rs, "%smostly probe cost: +-%.1f%% from the calibration",
			  r[0] ? "; " : "", 100 * f->calib_unc);
	if (f->by_cpu)	/* PG_SPLIT_BLOCKED */
		pg_append(r, rs, "%sjudged on its on-CPU time (its self time varied more)",
			  r[0] ? "; " : "");
}

bool pg_change_counts(const struct pg_fcmp *f)
{
	return f->verdict == PG_VERDICT_REGRESSION || f->verdict == PG_VERDICT_IMPROVEMENT ||
	       f->verdict == PG_VERDICT_NOTABLE;
}

bool pg_judged(const struct pg_fcmp *f)
{
	return pg_change_counts(f) || f->verdict == PG_VERDICT_UNCHANGED;
}

void pg_count_verdict(struct pg_comparison *c, const struct pg_fcmp *f)
{
	size_t *const counts[PG_VERDICT_COUNT] = {
		[PG_VERDICT_UNCHANGED] = &c->nunchanged,
		[PG_VERDICT_REGRESSION] = &c->nregressions,
		[PG_VERDICT_IMPROVEMENT] = &c->nimprovements,
		[PG_VERDICT_INCONCLUSIVE] = &c->ninconclusive,
		[PG_VERDICT_ADDED] = &c->nadded,
		[PG_VERDICT_REMOVED] = &c->nremoved,
		[PG_VERDICT_NOTABLE] = &c->nnotable,
	};

	if ((unsigned int)f->verdict < PG_VERDICT_COUNT)
		(*counts[f->verdict])++;
	c->ncode_changed += f->code == PG_CODE_CHANGED;
}

void pg_calls_words(struct pg_fcmp *f)
{
	if (!f->calls_changed)
		return;
	pg_append(f->reason, sizeof(f->reason), "%scalls %.6g -> %.6g per repetition",
		  f->reason[0] ? "; " : "", f->base_calls, f->new_calls);
}

/*
 * When the runs traced different sets of functions: does @f make a different number of traced
 * calls per call inside its measured time on the two sides (by more than 5%,
 * PG_CALLEES_DIFFER)? Then its time
 * holds, on one side, callees the other side timed apart, or the other way round, and it is
 * not judged. (The code may also have changed its calls: it is not judged either way.)
 */
bool pg_callees_differ(struct pg_fcmp *f, const struct pg_sample *b, double cb,
		       const struct pg_sample *n, double cn)
{
	double kb = cb > 0 ? b->callees / cb : 0, kn = cn > 0 ? n->callees / cn : 0;

	if (fabs(kb - kn) <= PG_CALLEES_DIFFER * fmax(kb, kn))
		return false;
	f->cause = PG_CAUSE_CALLEES;
	snprintf(f->reason, sizeof(f->reason),
		 "the runs traced different functions, and its traced callees differ (%.3g and "
		 "%.3g traced calls per call): not comparable", kb, kn);
	return true;
}


int pg_family_add(struct pg_family *fam, size_t idx, double p)
{
	if (fam->n == fam->cap) {
		size_t cap = fam->cap ? 2 * fam->cap : 64;
		size_t *i = realloc(fam->idx, cap * sizeof(*i));
		double *q;

		if (!i)
			return -ENOMEM;
		fam->idx = i;
		q = realloc(fam->p, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		fam->p = q;
		fam->cap = cap;
	}
	fam->idx[fam->n] = idx;
	fam->p[fam->n++] = p;
	return 0;
}

void pg_family_release(struct pg_family *fam)
{
	free(fam->idx);
	free(fam->p);
	memset(fam, 0, sizeof(*fam));
}

int pg_judge_alone(struct pg_fcmp *f, size_t idx, const struct pg_sample *b,
		   const struct pg_sample *n, const struct pg_compare_opts *o, double wall_ns,
		   double sigma, struct pg_stats_ws *ws, struct pg_family *fam)
{
	int t = pg_analyse(f, b, n, o, false, ws);

	if (t < 0)
		return t;
	if (t == 1 && sigma > 0)
		pg_rnull_widen_by(f, sigma, o->alpha);
	if (!isnan(f->change) && !isnan(f->base_ns)) {
		f->impact_ns = f->change * f->base_ns;
		if (wall_ns > 0)
			f->impact = f->impact_ns / wall_ns;
	}
	return t == 1 ? pg_family_add(fam, idx, f->p) : 0;
}
