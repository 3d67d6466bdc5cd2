/* SPDX-License-Identifier: MIT */
/*
 * diff/changepoint.h - change points in a series of sessions: E-divisive means (Matteson and
 * James, 2014) with a permutation test, in sliding windows, then a merge step, the way Apache
 * Otava (formerly Hunter) finds them (Fleming et al., 2023). Pure computation: no I/O, no
 * logging. docs/history.md describes the method, its parameters and its measured power.
 *
 * The series is one value per session (a function's median time per call, say), oldest first,
 * every value > 0. The method works on log(value), so that a change is relative:
 *  1. Split: in each window of opts.window sessions (starting every window / 2 sessions, and
 *     after the last change point found), the split (tau, kappa) maximising the E-statistic
 *     Q-hat of x[start..tau) against x[tau..kappa) (distance |a - b|) is a candidate; it is a
 *     change point when a permutation test says so: the values are shuffled within the
 *     segments the change points found so far make, the largest Q-hat computed again, and the
 *     p-value is (1 + permuted Q-hats >= the observed) / (1 + permutations) <= opts.max_p.
 *     The test stops early (Besag and Clifford's sequential Monte Carlo p-value) once
 *     opts.stop_after permuted Q-hats reached the observed one, and once the candidate is
 *     significant whatever the permutations left would give (with the defaults, after 398
 *     permutations of which fewer than 3 reached it: p = (1 + reached) / 399); either way
 *     the decision is the one all opts.max_perms permutations would give. The recursion goes
 *     on in the window until a candidate is not significant.
 *  2. Merge: the change points of all windows, sorted, each judged on its two neighbouring
 *     segments (from the previous change point to the next) with Student's two-sample t-test
 *     of the logs (pooled variance, as Otava's TTestSignificanceTester); the weakest (largest
 *     t-test p above opts.max_p, else the smallest |change| below opts.min_magnitude) is
 *     dropped and its neighbours judged again, until every one passes.
 *
 * Deterministic: the permutations come from a generator seeded with opts.seed.
 */
#ifndef PG_CHANGEPOINT_H
#define PG_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct pg_cp_opts {
	size_t window;		/* sessions per window, >= 4 (default 50) */
	double max_p;		/* significance of a change point (default 0.01) */
	uint32_t max_perms;	/* permutations at most (default 999) */
	uint32_t stop_after;	/* stop once this many permuted Q-hats reached the observed
				 * one (default 3) */
	double min_magnitude;	/* smallest |change| kept, relative (default 0: any) */
	uint64_t seed;		/* of the permutations (default 1) */
};

#define PG_CP_OPTS_DEFAULT { 50, 0.01, 999, 3, 0.0, 1 }

/*
 * The fewest sessions in which a series is searched for change points (history changes and
 * check's baseline, history plot): with fewer, none is looked for.
 */
#define PG_CP_MIN_POINTS 4

/* One change point: the level changed between x[index - 1] and x[index]. */
struct pg_cp {
	size_t index;		/* first session of the new level, 1 <= index < n */
	double qhat;		/* E-statistic of the split in its window */
	double perm_p;		/* permutation p-value in its window */
	double p;		/* t-test p of its two neighbouring segments (two-sided) */
	double before, after;	/* geometric means of the two segments */
	double change;		/* after / before - 1 */
	double ci_lo, ci_hi;	/* 95% interval of change (the t-test's) */
	size_t n_before, n_after;	/* sessions in the two segments */
};

/*
 * The change points of x[0..n) into *@out (malloc'd, sorted by index; the caller frees it;
 * NULL when none) and *@nout. Non-finite or non-positive values are not allowed: -EINVAL.
 * 0, -EINVAL (also for bad options) or -ENOMEM.
 */
int pg_changepoints(const double *x, size_t n, const struct pg_cp_opts *opts,
		    struct pg_cp **out, size_t *nout);

/*
 * The same, resumed: x[0..n0) was analysed before and gave the weak change points (those of
 * the split step, before the merge) prev[0..nprev), sorted; x grew to n values (a session
 * added). The windows of the last 2 * opts.window of the old values and of the new ones are
 * searched again, the weak change points before them (and in their first half window) kept;
 * then the merge step over the whole
 * series. With @weak, the weak change points of x[0..n) into *@weak (malloc'd) and *@nweak,
 * for the next call. n0 = 0 (or nprev = 0, or n0 > n): from scratch, as pg_changepoints().
 */
int pg_changepoints_resume(const double *x, size_t n, const struct pg_cp_opts *opts,
			   const struct pg_cp *prev, size_t nprev, size_t n0,
			   struct pg_cp **weak, size_t *nweak, struct pg_cp **out, size_t *nout);

/*
 * Judge the split of y[0..n1) against y[n1..n1 + n2) (logs) with Student's pooled two-sample
 * t-test: two-sided p, the difference of means d = mean2 - mean1 and its 1 - @alpha interval.
 * With n1 + n2 < 3 or no spread: p = 1 when d == 0, else 0 with a zero-width interval.
 */
void pg_cp_ttest(const double *y, size_t n1, size_t n2, double alpha, double *p, double *d,
		 double *lo, double *hi);

/* Student's t distribution with @df degrees of freedom: P(T > t), and the t with P(T > t) = p
 * (0 < p < 1). */
double pg_t_sf(double t, double df);
double pg_t_isf(double p, double df);

#endif
