// SPDX-License-Identifier: MIT
/*
 * diff/overall.c - what a comparison says as a whole: the counts of its verdicts and what it
 * judged, the order of its entries, and its overall verdict with the reason (overall.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/numfmt.h"
#include "gbench.h"
#include "overall.h"
#include "paired.h"
#include "program.h"
#include "stats.h"
#include "verdict.h"

static int verdict_rank(enum pg_verdict v)
{
	switch (v) {
	case PG_VERDICT_REGRESSION:
		return 0;
	case PG_VERDICT_IMPROVEMENT:
		return 1;
	case PG_VERDICT_NOTABLE:
		return 2;
	case PG_VERDICT_INCONCLUSIVE:
		return 3;
	case PG_VERDICT_ADDED:
		return 4;
	case PG_VERDICT_REMOVED:
		return 5;
	case PG_VERDICT_UNCHANGED:
		return 6;
	}
	return 7;
}

/* The order of f[] (overall.h); @ctx: the comparison, whose ncode_changed it reads */
static int cmp_fcmp(const void *pa, const void *pb, void *ctx)
{
	const struct pg_fcmp *a = pa, *b = pb;
	bool builds_differ = ((const struct pg_comparison *)ctx)->ncode_changed;
	int d = (a->origin == PG_ORIGIN_PROGRAM) - (b->origin == PG_ORIGIN_PROGRAM);

	/* the whole program's entries last: the functions' table, then the program's lines */
	if (d)
		return d;
	d = verdict_rank(a->verdict) - verdict_rank(b->verdict);

	if (d)
		return d;
	/* changes that count in two builds: changed code first, then code the same in both */
	d = (a->code == PG_CODE_SAME) - (b->code == PG_CODE_SAME);
	if (d && builds_differ && pg_change_counts(a))
		return d;
	/* the largest regression first, the largest improvement first */
	if (a->verdict == PG_VERDICT_REGRESSION && a->change != b->change)
		return a->change > b->change ? -1 : 1;
	if (a->verdict == PG_VERDICT_IMPROVEMENT && a->change != b->change)
		return a->change < b->change ? -1 : 1;
	/* the largest share of the run first (unknown last), then the largest change */
	if (a->verdict == PG_VERDICT_NOTABLE) {
		double x = isnan(a->impact) ? -1 : fabs(a->impact);
		double y = isnan(b->impact) ? -1 : fabs(b->impact);

		if (x != y)
			return x > y ? -1 : 1;
		if (fabs(a->change) != fabs(b->change))
			return fabs(a->change) > fabs(b->change) ? -1 : 1;
	}
	d = strcmp(a->binary, b->binary);
	return d ?: strcmp(a->name, b->name) ?: strcmp(a->scope ? a->scope : "",
						       b->scope ? b->scope : "");
}

/* Repetitions per side needed before any test can reach alpha (and opts.min_reps). */
static size_t reps_needed(const struct pg_compare_opts *o)
{
	size_t n = o->min_reps > 1 ? o->min_reps : 1;

	while (n < 1000 && pg_mwu_min_p(n, n) > o->alpha)
		n++;
	return n;
}

/*
 * Does the whole program's CPU time forbid a pass? Yes, with the reason in @r, when it moved
 * beyond the minimum effect by the build or the machine (two recordings), or is surely slower
 * but not surely by the minimum effect: the judged functions' share below argues from a
 * program that would show a regression of the rest, and this one shows one it cannot size.
 */
static bool program_unsure(const struct pg_comparison *c, char *r, size_t rs)
{
	char ch[PG_FMT_LEN], ci[2 * PG_FMT_LEN];

	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->origin != PG_ORIGIN_PROGRAM || strcmp(f->name, PG_PROGRAM_CPU))
			continue;
		if (f->cause == PG_CAUSE_DRIFT) {
			snprintf(r, rs, "the program's CPU time %s", f->reason);
			return true;
		}
		if (f->verdict != PG_VERDICT_INCONCLUSIVE || !(f->ci_lo > 0))
			continue;
		snprintf(r, rs, "the program's CPU time is slower, %s %s, but not surely by the "
			 "%g%% that counts: possibly a regression in code nothing judged",
			 pg_fmt_pct(ch, sizeof(ch), f->change),
			 pg_fmt_interval(ci, sizeof(ci), f->ci_lo, f->ci_hi),
			 100 * c->opts.min_effect);
		return true;
	}
	return false;
}

/*
 * No regression, something tested: a pass only with evidence (docs/statistics.md, "No pass
 * without evidence"): something judged, and either the whole program or functions holding
 * PG_MIN_JUDGED_SHARE of the CPU time; never while the program says otherwise
 * (program_unsure()). Else inconclusive, saying why.
 */
static enum pg_overall evidence(struct pg_comparison *c, size_t ncommon)
{
	char *r = c->overall_reason;
	size_t rs = sizeof(c->overall_reason);

	if (program_unsure(c, r, rs))
		return PG_OVERALL_INCONCLUSIVE;
	if (c->program_judged)
		return PG_OVERALL_PASS;
	if (!ncommon && !c->nsampled) {
		snprintf(r, rs, "no function was called in both runs: nothing to compare");
		return PG_OVERALL_INCONCLUSIVE;
	}
	if (!c->njudged_exact && !c->njudged_sampled) {
		snprintf(r, rs, "nothing could be judged: %zu of %zu inconclusive, the whole "
			 "program too", c->ninconclusive, c->n);
		return PG_OVERALL_INCONCLUSIVE;
	}
	if (!isnan(c->judged_share) && c->judged_share < PG_MIN_JUDGED_SHARE) {
		snprintf(r, rs, "the judged functions hold %.0f%% of the CPU time (%.0f%% needed) "
			 "and the whole program could not be judged", 100 * c->judged_share,
			 100 * PG_MIN_JUDGED_SHARE);
		return PG_OVERALL_INCONCLUSIVE;
	}
	return PG_OVERALL_PASS;
}

void pg_overall_decide(struct pg_comparison *c, const struct pg_compare_opts *o, size_t ncommon)
{
	size_t need = reps_needed(o), rec = need > PG_RECOMMENDED_REPS ? need : PG_RECOMMENDED_REPS;
	char *r = c->overall_reason;
	size_t rs = sizeof(c->overall_reason);
	double min_p;

	r[0] = 0;
	if (c->nregressions) {
		c->overall = PG_OVERALL_REGRESSION;
		return;
	}
	if (c->ntested) {
		c->overall = evidence(c, ncommon);
		return;
	}
	c->overall = PG_OVERALL_INCONCLUSIVE;
	if (c->paired) {
		pg_paired_overall_reason(c, o, ncommon);
		return;
	}
	min_p = pg_mwu_min_p(c->base_reps, c->new_reps);
	if (min_p > o->alpha) {
		snprintf(r, rs,
			 "too few repetitions (%zu and %zu): the smallest possible p-value is %.2g "
			 "> alpha %g",
			 c->base_reps, c->new_reps, min_p, o->alpha);
	} else if (c->base_reps < o->min_reps || c->new_reps < o->min_reps) {
		snprintf(r, rs, "too few repetitions (%zu and %zu; at least %u per side needed)",
			 c->base_reps, c->new_reps, o->min_reps);
	} else {
		if (!ncommon)
			snprintf(r, rs, "no function was called in both runs: nothing to compare");
		else
			snprintf(r, rs,
				 "no function was called in at least %zu repetitions of both runs",
				 need);
		return;
	}
	if (rec > need)
		pg_append(r, rs, "; use at least %zu repetitions per side, %zu recommended", need,
			  rec);
	else
		pg_append(r, rs, "; use at least %zu repetitions per side", need);
}

/* The time a repetition of a judged function: per call x calls, or per repetition. */
static double rep_time(const struct pg_fcmp *f)
{
	double t = f->origin == PG_ORIGIN_SAMPLED ? f->base_ns : f->base_ns * f->base_calls;

	return isnan(t) ? 0 : t;
}

void pg_overall_count(struct pg_comparison *out, const struct pg_run *base)
{
	double cpu = pg_program_cpu_ns(base), held = 0;

	for (size_t i = 0; i < out->n; i++) {
		const struct pg_fcmp *f = &out->f[i];

		pg_count_verdict(out, f);
		if (!pg_judged(f))
			continue;
		if (f->origin == PG_ORIGIN_PROGRAM) {
			/* its CPU time: the wall time may be mostly waiting */
			out->program_judged |= !strcmp(f->name, PG_PROGRAM_CPU);
			continue;
		}
		if (pg_gb_is_bench(f))
			continue;	/* a benchmark's time is per iteration, not of the run */
		held += rep_time(f);
		if (f->origin == PG_ORIGIN_SAMPLED)
			out->njudged_sampled++;
		else
			out->njudged_exact++;
	}
	out->judged_share = cpu > 0 ? (held < cpu ? held / cpu : 1) : NAN;
}

void pg_overall_sort(struct pg_comparison *c)
{
	qsort_r(c->f, c->n, sizeof(*c->f), cmp_fcmp, c);
}
