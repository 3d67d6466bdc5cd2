// SPDX-License-Identifier: MIT
/*
 * diff/hcheck.c - a new session against stored sessions, the session the unit of replication
 * (method: hcheck.h and docs/history.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "hcheck.h"
#include "hspeed.h"
#include "repvalues.h"
#include "stats.h"
#include "verdict.h"

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/*
 * The effect and p of @f from @h (both sides present): 1 tested, 0 not (cause and reason
 * set), -ENOMEM.
 */
static int analyse(struct pg_fcmp *f, const struct pg_hfunc *h, const struct pg_compare_opts *o,
		   const double *corr, double corr_new, double lever)
{
	double mean = 0, ss = 0, lnew, s, se, t, q, k, df, y, logs = 0;
	size_t nil = 0;

	f->new_ns = pg_median(h->reps, h->nreps);
	if (isnan(f->new_ns))
		return -ENOMEM;
	for (size_t i = 0; i < h->nsessions; i++)
		nil += !(h->sessions[i] > PG_MIN_NS);
	/*
	 * A median the compensation for probe overhead left nothing of (a function whose time is
	 * mostly its probes') has no logarithm to compare: judged, it would be a change of -100%
	 * or of many times
	 */
	if (nil || !(f->new_ns > PG_MIN_NS)) {
		f->base_ns = pg_median(h->sessions, h->nsessions);
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_PROBES;
		if (nil)
			snprintf(f->reason, sizeof(f->reason), "compensated for probe overhead, "
				 "nothing of its time left in %zu of %zu baseline sessions", nil,
				 h->nsessions);
		else
			snprintf(f->reason, sizeof(f->reason), "compensated for probe overhead, "
				 "nothing of its time left in the new session");
		return 0;
	}
	/* corrected for the machine's speed (hspeed.h): the logs less it, beta fitted; a
	 * session whose speed is not known (NAN) left out */
	k = 0;
	for (size_t i = 0; i < h->nsessions; i++) {
		if (corr && isnan(corr[i]))
			continue;
		y = log(h->sessions[i]);
		logs += y;
		mean += y - (corr ? corr[i] : 0);
		k++;
	}
	f->base_ns = exp(logs / k);
	mean /= k;
	f->n_base = (size_t)k;
	for (size_t i = 0; i < h->nsessions; i++) {
		if (corr && isnan(corr[i]))
			continue;
		y = log(h->sessions[i]) - (corr ? corr[i] : 0);
		ss += (y - mean) * (y - mean);
	}
	if (h->nsessions < PG_HCHECK_MIN_SESSIONS || h->nreps < o->min_reps) {
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_REPS;
		snprintf(f->reason, sizeof(f->reason),
			 "%zu baseline sessions and %zu repetitions (at least %d and %u needed)",
			 h->nsessions, h->nreps, PG_HCHECK_MIN_SESSIONS, o->min_reps);
		return 0;
	}
	lnew = log(f->new_ns) - (corr ? corr_new : 0);
	df = k - 1 - (corr ? 1 : 0);
	s = sqrt(ss / df);
	se = s * sqrt(1 + 1 / k + (corr ? lever : 0));
	f->change = expm1(lnew - mean);
	if (!(se > 0)) {
		f->p = lnew == mean ? 1 : 0;
		f->ci_lo = f->ci_hi = f->change;
		return 1;
	}
	t = (lnew - mean) / se;
	f->p = fmin(1, 2 * pg_t_sf(fabs(t), df));
	q = pg_t_isf(o->alpha / 2, df);
	f->ci_lo = expm1(lnew - mean - q * se);
	f->ci_hi = expm1(lnew - mean + q * se);
	return 1;
}

/* Fill @f from @h: names, calls, and the verdict for added/removed ones; returns analyse()'s. */
static int fill(struct pg_fcmp *f, const struct pg_hfunc *h, const struct pg_compare_opts *o,
		const double *corr, double corr_new, double lever)
{
	f->binary = strdup(h->binary);
	f->name = strdup(h->name);
	f->display = strdup(h->display ? h->display : h->name);
	f->scope = dup_or_null(h->scope);
	if (!f->binary || !f->name || !f->display || (h->scope && *h->scope && !f->scope))
		return -ENOMEM;
	f->n_base = h->nsessions;
	f->n_new = h->nreps;
	f->base_calls = h->nsessions ? h->base_calls : 0;
	f->new_calls = h->nreps ? h->new_calls : 0;
	f->calls_changed = h->nsessions && h->nreps &&
			   fabs(f->new_calls - f->base_calls) >
			   PG_HCHECK_CALLS_CHANGED * f->base_calls;
	if (!h->nsessions || !h->nreps) {
		f->verdict = h->nreps ? PG_VERDICT_ADDED : PG_VERDICT_REMOVED;
		if (h->nsessions)
			f->base_ns = pg_median(h->sessions, h->nsessions);
		else
			f->new_ns = pg_median(h->reps, h->nreps);
		return 0;
	}
	return analyse(f, h, o, corr, corr_new, lever);
}

static int rank(enum pg_verdict v)
{
	static const int r[PG_VERDICT_COUNT] = {
		[PG_VERDICT_REGRESSION] = 0, [PG_VERDICT_IMPROVEMENT] = 1,
		[PG_VERDICT_NOTABLE] = 2, [PG_VERDICT_INCONCLUSIVE] = 3, [PG_VERDICT_ADDED] = 4,
		[PG_VERDICT_REMOVED] = 5, [PG_VERDICT_UNCHANGED] = 6,
	};

	return r[v];
}

/* compare's order: by verdict, then the largest |change| first, then by name */
static int by_verdict(const void *pa, const void *pb)
{
	const struct pg_fcmp *a = pa, *b = pb;
	double x = isnan(a->change) ? -1 : fabs(a->change);
	double y = isnan(b->change) ? -1 : fabs(b->change);

	if (rank(a->verdict) != rank(b->verdict))
		return rank(a->verdict) - rank(b->verdict);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->binary, b->binary) ?: strcmp(a->name, b->name);
}

/* The verdicts and what was judged counted; the overall result (a pass only with evidence). */
static void count(struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		pg_count_verdict(c, f);
		if (!pg_judged(f))
			continue;
		if (f->origin == PG_ORIGIN_PROGRAM)
			c->program_judged = true;
		else
			c->njudged_exact++;
	}
	if (c->nregressions) {
		c->overall = PG_OVERALL_REGRESSION;
	} else if (c->program_judged || c->njudged_exact) {
		c->overall = PG_OVERALL_PASS;
	} else if (c->ntested) {
		c->overall = PG_OVERALL_INCONCLUSIVE;
		snprintf(c->overall_reason, sizeof(c->overall_reason),
			 "nothing could be judged: %zu of %zu inconclusive, the whole program too",
			 c->ninconclusive, c->n);
	} else {
		c->overall = PG_OVERALL_INCONCLUSIVE;
		snprintf(c->overall_reason, sizeof(c->overall_reason),
			 "no function could be judged: at least %d baseline sessions and %u "
			 "repetitions with calls needed", PG_HCHECK_MIN_SESSIONS, c->opts.min_reps);
	}
}

/* The tested functions' q, impact and verdict; @tested marks them. */
static int decide(struct pg_comparison *c, const char *tested, double wall_ns)
{
	double *p = malloc((c->n + 1) * sizeof(*p));
	size_t k = 0;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (tested[i])
			p[k++] = c->f[i].p;
	if (k && pg_bh_adjust(p, k, p)) {
		free(p);
		return -ENOMEM;
	}
	c->ntested = k;
	k = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct pg_fcmp *f = &c->f[i];

		if (!tested[i])
			continue;
		f->q = p[k++];
		pg_impact(f, wall_ns);
		pg_decide(f, &c->opts, wall_ns);
		pg_calls_words(f);
	}
	free(p);
	return 0;
}

/* The program's CPU time as an entry of out->f, judged as measured; 1 tested, 0 not, -ENOMEM. */
static int program_cpu(struct pg_comparison *out, const struct pg_hfunc *cpu)
{
	struct pg_hfunc h = *cpu;
	struct pg_fcmp *f = &out->f[out->n++];

	h.binary = PG_PROGRAM_BINARY;
	h.name = PG_PROGRAM_CPU;
	h.scope = "";
	h.display = "the program: CPU time";
	h.base_calls = h.new_calls = 1;	/* one run of it a repetition */
	pg_fcmp_init(f);
	f->origin = PG_ORIGIN_PROGRAM;
	return fill(f, &h, &out->opts, NULL, 0, 0);
}

int pg_history_compare(const struct pg_hinput *in, const struct pg_compare_opts *opts,
		       struct pg_comparison *out)
{
	const struct pg_compare_opts def = PG_COMPARE_OPTS_DEFAULT;
	bool has_cpu = in->cpu && in->cpu->nsessions && in->cpu->nreps;
	struct pg_hspeed hs = { 0 };
	double wall_ns = NAN;
	char *tested = NULL;
	size_t n = in->n;
	int err = 0;

	out->opts = opts ? *opts : def;
	if (!(out->opts.alpha > 0 && out->opts.alpha < 1)) {
		snprintf(out->error, sizeof(out->error), "invalid alpha %g", out->opts.alpha);
		return -EINVAL;
	}
	out->base_reps = in->nsessions;
	out->new_reps = in->new_reps;
	out->f = calloc(n + 1, sizeof(*out->f));
	tested = calloc(n + 1, 1);
	if (!out->f || !tested) {
		err = -ENOMEM;
		goto done;
	}
	err = pg_hspeed_estimate(in->refs, in->nrefs, in->f, n, in->nsessions,
				 out->opts.min_reps, &hs);
	if (err)
		goto done;
	out->speed_refs = hs.nrefs;
	out->speed_applied = hs.applied;
	out->speed_shift = hs.shift;
	out->speed_p = hs.p;
	out->speed_spread = hs.spread;
	for (; out->n < n; out->n++) {
		pg_fcmp_init(&out->f[out->n]);
		err = fill(&out->f[out->n], &in->f[out->n], &out->opts, hs.corr[out->n],
			   hs.corr_new[out->n], hs.lever[out->n]);
		if (err < 0)
			goto done;
		tested[out->n] = err == 1;
		err = 0;
	}
	if (has_cpu) {
		err = program_cpu(out, in->cpu);
		if (err < 0)
			goto done;
		tested[out->n - 1] = err == 1;
	}
	if (in->wall && in->wall->nsessions && in->wall->nreps) {
		err = fill(&out->wall, in->wall, &out->opts, NULL, 0, 0);
		if (err < 0)
			goto done;
		out->wall.q = out->wall.p;
		if (err == 1)
			pg_decide(&out->wall, &out->opts, NAN);
		wall_ns = out->wall.base_ns;
	}
	err = decide(out, tested, wall_ns);
	if (err)
		goto done;
	qsort(out->f, out->n, sizeof(*out->f), by_verdict);
	count(out);
done:
	if (err == -ENOMEM)
		snprintf(out->error, sizeof(out->error), "out of memory");
	pg_hspeed_release(&hs, n);
	free(tested);
	return err;
}

int pg_median_interval(const double *v, size_t n, double alpha, double *lo, double *hi)
{
	double tail = 0, term, *s;
	size_t k = 0;

	*lo = *hi = NAN;
	/* the largest k with P(Bin(n, 1/2) < k) <= alpha / 2: [x_(k), x_(n+1-k)], 1-based */
	term = pow(0.5, (double)n);
	while (k < n / 2 && tail + term <= alpha / 2) {
		tail += term;
		term *= (double)(n - k) / (double)(k + 1);
		k++;
	}
	if (!k && n < 2)
		return 0;
	/* too few for the level: the range, the interval of the highest confidence there is */
	k = k ? k : 1;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), pg_cmp_double);
	*lo = s[k - 1];
	*hi = s[n - k];
	free(s);
	return 0;
}
