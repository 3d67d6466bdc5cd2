/* SPDX-License-Identifier: MIT */
/*
 * diff/paired.h - the pairs of an interleaved A/B session (perfgate ab) and the alpha a look of
 * a sequential comparison may spend. Pure computation: no I/O, no logging. pg_compare()
 * (diff/compare.c) uses them; docs/statistics.md, "Paired comparisons", says why.
 *
 * Two runs are paired when both carry the same pg_meta.ab_session, one is the base side
 * (PG_AB_BASE) and the other the new side (PG_AB_NEW), and on each side no pair index
 * (pg_rep.pair) occurs twice. Files given the other way round (the new side as BASE) are still
 * paired: the comparison goes the way the user gave it (*swapped says so, compare warns).
 * Repetition r of one side and repetition s of the other are a pair when their pg_rep.pair
 * are equal; a pair with a repetition on one side only (a session cut short) is not used.
 *
 * For one function, the per-pair differences are d = log(new value) - log(base value) over
 * the pairs in which it was called on both sides: pg_pair_diffs() matches two samples by
 * their pair indices.
 *
 *	bool swapped;
 *
 *	if (pg_runs_paired(&base, &new, &swapped))
 *		npairs = pg_runs_npairs(&base, &new);
 *
 * Sequential design (opts.look of opts.looks, perfgate ab --max-reps): alpha spending with the
 * power family alpha(t) = alpha * t^PG_SPEND_RHO at t = look / looks (Lan and DeMets). Look k
 * tests at its nominal level, the group-sequential boundary: the level at which a statistic
 * that no earlier look rejected crosses at look k with probability alpha(k/K) - alpha((k-1)/K),
 * the looks' standardized statistics taken as a Brownian motion in information time t = k/K
 * (correlation sqrt(t_j / t_k), computed by numerical integration). That level is both the
 * Benjamini-Hochberg level and 1 - the confidence level of the intervals. It is above the bare
 * increment because a function's looks are correlated (each holds the previous one's pairs):
 * with 3 looks, 0.0056, 0.0189 and 0.0392 at alpha 0.05 against increments of 0.0056, 0.0167
 * and 0.0278. perfgate ab's first block (10 pairs) is larger than its later ones (5), so the
 * real correlations are higher than t = k/K assumes, which keeps the total at most alpha.
 */
#ifndef PG_PAIRED_H
#define PG_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/comparison.h"
#include "../core/run.h"

/*
 * The minimum effect of a paired comparison when the user gives none (perfgate compare and
 * perfgate ab): docs/statistics.md, "Paired comparisons", gives the measurements behind it.
 */
#define PG_MIN_EFFECT_PAIRED 0.02
/*
 * The minimum impact of a paired comparison when the user gives none: half the unpaired
 * default (PG_MIN_IMPACT_DEFAULT): docs/statistics.md, "Paired comparisons", says why.
 */
#define PG_MIN_IMPACT_PAIRED 0.0005

/* rho of the power family of alpha spending (2: the later looks, with more pairs, get more) */
#define PG_SPEND_RHO 2.0

/*
 * More pairs for a sampled function only too wide to decide (pg_comparison_undecided()) when
 * its estimated slowdown moves the run by this many times the impact rule's bar
 * (max(min_impact, PG_MIN_IMPACT_PAIRED)): a leaf of 10% of the run at +7% after 10 pairs.
 */
#define PG_EXTEND_IMPACT 10

/* Are @base and @new the two sides of one perfgate ab session (see the top)? *@swapped (may be
 * NULL) is set when @base is the session's new side and @new its base side. */
bool pg_runs_paired(const struct pg_run *base, const struct pg_run *new, bool *swapped);

/* The pair indices found on both sides (the pairs of the session that were completed). */
size_t pg_runs_npairs(const struct pg_run *base, const struct pg_run *new);

/*
 * The differences nv[j] - bv[i] for every i, j with bp[i] == np[j] (each index at most once
 * per side), in increasing pair order, into @d and their pair indices into @dp (each NULL or
 * room for min(nb, nn) values). Returns how many, or a negative errno (-ENOMEM).
 */
ssize_t pg_pair_diffs(const double *bv, const uint32_t *bp, size_t nb, const double *nv,
		      const uint32_t *np, size_t nn, double *d, uint32_t *dp);

/*
 * The effect of one function from its per-repetition log values on each side (bl, bp: values
 * and pair indices of the base side; nl, np: the new side): the per-pair differences (into a
 * malloc'd *@d the caller frees, also on error), corrected for the machine's speed in each pair
 * (@speed, NULL for none; @share: the function's time not blocked over its time, diff/speed.h),
 * their Hodges-Lehmann estimate (the median of the Walsh averages) with its 1 - @alpha
 * interval as f->change, ci_lo, ci_hi, and f->pairs. Returns the number of differences
 * (f->pairs) or a negative errno.
 */
struct pg_speed;
ssize_t pg_paired_effect(struct pg_fcmp *f, const double *bl, const uint32_t *bp, size_t nb,
			 const double *nl, const uint32_t *np, size_t nn, double alpha,
			 const struct pg_speed *speed, double share, uint32_t speed_id,
			 double **d);

/*
 * The Wilcoxon signed-rank test of the differences d[0..nd) at @o (alpha of the look): 1 and
 * f->p when tested; 0 when too few pairs (fewer than o->min_reps, or too few for the test to
 * reach alpha: f->cause PG_CAUSE_REPS and f->reason); or a negative errno.
 */
int pg_paired_test(struct pg_fcmp *f, const double *d, size_t nd,
		   const struct pg_compare_opts *o);

/*
 * The overall_reason of a paired comparison @c that tested no function (the options @o of the
 * look): too few pairs, or no function called on both sides of enough pairs (@ncommon: the
 * functions called in both runs).
 */
void pg_paired_overall_reason(struct pg_comparison *c, const struct pg_compare_opts *o,
			      size_t ncommon);

/* The alpha spent by the end of look @look of @looks: alpha * (look / looks)^PG_SPEND_RHO;
 * alpha itself when looks is 0, 0 when look is 0. */
double pg_alpha_spent(double alpha, uint32_t look, uint32_t looks);

/* The nominal level look opts->look tests at (the boundary above); opts->alpha when looks is
 * 0 or 1. */
double pg_look_alpha(const struct pg_compare_opts *opts);

/*
 * Sequential design: replace every function of @out that @prev (the previous look's result)
 * decided - regression, improvement, notable or unchanged - by a copy of prev's, verdict,
 * numbers and pairs. Functions are matched by binary, name and scope. Counts and order of
 * @out are not touched (pg_compare() makes them after). 0 or -ENOMEM.
 */
int pg_keep_decided(struct pg_comparison *out, const struct pg_comparison *prev);

#endif
