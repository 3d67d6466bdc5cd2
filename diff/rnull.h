/* SPDX-License-Identifier: MIT */
/*
 * diff/rnull.h - two recordings judged against their own noise: the empirical null of a
 * comparison of two separate recordings. Pure computation: no I/O, no logging.
 * docs/statistics.md, "Two recordings against their own noise".
 *
 * Why: the correction for the machine's speed between two recordings (diff/rspeed.h) takes
 * out what all functions share. What is left is each function's own variation between the
 * recordings (its code placed otherwise in the caches, a neighbour on the machine in one of
 * them), which the rank test over the repetitions of each recording cannot see: two
 * recordings of one build then flag unchanged functions with narrow intervals.
 *
 * What: the references' shifts d (diff/rspeed.h) less the common shift are the comparison's
 * own sample of that variation: with hundreds of functions it is well estimated. Those the
 * correction left out as changed by themselves count too: a function that moved by its own
 * variation beyond the minimum effect is one of them, and leaving them out would keep the
 * null's tail out of its estimate. Its scale is 1.4826 times their median absolute value (a
 * normal variation's standard deviation, robust while fewer than half really changed),
 * raised to its upper 95% confidence bound for the n functions it came from (chi-square with
 * n - 1 degrees of freedom, by Wilson and Hilferty; 1.8x the estimate from 8 functions, 1.1x
 * from 600), so that a comparison with few functions widens more. Every function judged in
 * such a comparison then
 *  - has its interval widened on the log scale: each side's half-width h becomes
 *    sqrt(h^2 + (z * sigma)^2), z the normal quantile of the interval's confidence;
 *  - has its p raised to at least the null's: the probability of a shift as large as its
 *    own from the variation alone, 2 * P(Z > |log(1 + change)| / sigma).
 * A change within the recordings' own noise is then unchanged or inconclusive, with the
 * noise in its reason (f->noise), never a regression.
 *
 *	err = pg_rnull_sigma(&rs, &sigma, &n);	// after pg_rspeed_finish(); sigma 0: none
 *	...
 *	if (tested && sigma > 0)
 *		pg_rnull_widen(f, sigma, alpha);
 */
#ifndef PG_RNULL_H
#define PG_RNULL_H

#include <stddef.h>

#include "../core/comparison.h"
#include "rspeed.h"

/*
 * The references an estimate needs at least: fewer give sigma 0, nothing is
 * widened, and the comparison says that a function's own variation is not ruled out. From 3
 * (the correction's least), the 95% bound would widen every interval by 4.4x the estimate's
 * spread, and two recordings of three traced functions could decide nothing.
 */
#define PG_RNULL_MIN_REFS 8
/* the confidence of sigma's upper bound */
#define PG_RNULL_BOUND 0.95
/*
 * With fewer references than PG_RNULL_MIN_REFS, a function's own variation between two
 * recordings is not estimated but taken as this (a relative change, one standard deviation):
 * every interval is widened by it all the same. On this project's 2-CPU VM, A/A pairs of
 * zstd gave 6.7-23.8% from 9-14 references (2026-11-28, a helper's build beside them), and
 * single functions of lz4 and leveldb moved 12-18% on-CPU between two recordings of one build:
 * 5% is the least of what was seen, so that a change of 15-20% can still be told.
 */
#define PG_RNULL_PRIOR 0.05

/*
 * The null's *@sigma (log scale, the upper bound above) from @s's references, and in
 * *@n how many (0 and 0 when @s was not applied or has too few). 0 or -ENOMEM.
 */
int pg_rnull_sigma(const struct pg_rspeed *s, double *sigma, size_t *n);

/* Widen @f's interval and raise its p by the null of scale @sigma (> 0) at level @alpha;
 * f->noise gets the null's spread as a relative change. */
void pg_rnull_widen(struct pg_fcmp *f, double sigma, double alpha);

/* The same without f->noise: an uncertainty of scale @sigma (log) that is no function's own,
 * the machine's speed between the recordings (diff/rspeed.h, pg_rspeed_se()). */
void pg_rnull_widen_by(struct pg_fcmp *f, double sigma, double alpha);

/*
 * The second part of the null: a factor on each function's own interval. Between two
 * recordings, a function's repetitions in one are not independent draws of its time in the
 * other: a recording holds one state of the files it writes, its threads' timing, the page
 * cache and the machine's neighbours, and a function that varies much within a recording
 * moves more between two. So after the widening above, each judged function's z (its change
 * over its interval's half-width towards zero, in standard errors: pg_rnull_z()) spreads
 * wider than a standard normal's over the functions of an A/A comparison. The factor lambda
 * is that spread, 1.4826 times the median |z| (robust while fewer than half changed), raised
 * to its upper 95% bound as sigma is, and at least 1; the interval half-widths of every
 * judged function whose code did not change are multiplied by it and its p raised to at
 * least 2 * P(Z > |z| / lambda) (pg_rnull_inflate()). Efron's empirical null, on the z scale;
 * the functions whose code changed are a class of their own, which keeps its test's null
 * (diff/compare.c, inflate_all(), says which functions are its sample).
 *
 * With fewer than PG_RNULL_MIN_REFS functions it is not estimated but taken as
 * PG_RNULL_INFLATE_PRIOR: the largest of five real programs' estimates from all their A/A
 * pairs of two recordings together (lz4 1.28; leveldb, jq, jq-interp and zstd 0.61-0.86;
 * docs/statistics.md, 2026-11-28).
 */
#define PG_RNULL_INFLATE_PRIOR 1.3
/*
 * A class of its own: the functions whose code did not change but whose time is mostly the
 * kernel's (diff/kshare.h: reading and writing files, waking and waiting for threads). Between
 * two recordings the kernel's state moves them more than their code: over the five programs'
 * A/A pairs above, their |z| had a tail twice as heavy (12.5% beyond 1.96, 5.1% beyond 3;
 * their code's: 2.9% and 0.6%), so a median, which sees the bulk, does not see it. Their
 * factor is the larger of lambda and this one: the 99th percentile of their pooled |z| over
 * the normal's (2.576), for the program where it was largest (zstd, 162 of them: 2.22; lz4
 * 1.72, leveldb 0.86, jq 0.78), so that their tail is their code's. Two recordings of one
 * build then let zstd's worker reading a file at +126% pass (z 6.2, 2.8 once widened).
 */
#define PG_RNULL_KERNEL_PRIOR 2.2

/* @f's change in standard errors of its interval (the half-width towards zero, at level
 * @alpha), or NAN when it has no finite change or interval. */
double pg_rnull_z(const struct pg_fcmp *f, double alpha);

/*
 * The factor from the judged functions' @z (n of them, NAN ones skipped): at least 1, or 0
 * with fewer than PG_RNULL_MIN_REFS finite ones (the caller takes the prior); in *@used how
 * many it came from. 0 or -ENOMEM.
 */
int pg_rnull_inflation(const double *z, size_t n, double *lambda, size_t *used);

/* Multiply @f's interval half-widths (log scale) by @lambda (>= 1) and raise its p to the
 * null's, 2 * P(Z > |@z| / lambda), @z its pg_rnull_z(). */
void pg_rnull_inflate(struct pg_fcmp *f, double z, double lambda);

#endif
