/* SPDX-License-Identifier: MIT */
/*
 * diff/hcheck.h - a new session against stored sessions (perfgate history check), where the
 * session is the unit of replication. Pure computation: no I/O, no logging.
 *
 * Method (docs/history.md, "history check"): each baseline session is summarised by its
 * median over repetitions of the per-call metric (what compare tests per repetition); the new
 * session by the same median of its repetitions. Under no change the new session's median is
 * one more draw from the distribution the baseline sessions' medians come from, which holds
 * the machine's drift between sessions as well as the noise between repetitions. On logs,
 * with k baseline sessions of mean m and standard deviation s:
 *     t = (log new - m) / (s * sqrt(1 + 1/k)),  k - 1 degrees of freedom
 * (Student's prediction interval for one more observation; the logs first corrected for the
 * machine's speed in each session where hspeed.h can, with k - 2 degrees of freedom then): a
 * two-sided p, and the change exp(log new - m) - 1 with its 1 - alpha interval from the same
 * t. p-values go through Benjamini-Hochberg; the verdict is compare's (diff/verdict.h,
 * pg_decide(): significant, the interval beyond min_effect, the impact beyond min_impact).
 * Fewer than PG_HCHECK_MIN_SESSIONS baseline sessions, or a new session with fewer than
 * opts.min_reps repetitions: inconclusive.
 */
#ifndef PG_HCHECK_H
#define PG_HCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"

#define PG_HCHECK_MIN_SESSIONS 3
/*
 * A function's calls per repetition changed (f->calls_changed) when the new session's differ
 * from the stored sessions' by more than this share of theirs (0.1%): their mean is of medians,
 * so equal counts may differ in the last digits, where compare's two means are exact.
 */
#define PG_HCHECK_CALLS_CHANGED 1e-3

/* One function (or the wall time) as history check sees it; the caller owns everything. */
struct pg_hfunc {
	const char *binary, *name, *scope, *display;	/* scope "" or NULL: none */
	const double *sessions;	/* the baseline sessions' medians, ns (> 0) */
	size_t nsessions;	/* 0: the function is new */
	const double *reps;	/* the new session's per-repetition values, ns */
	size_t nreps;		/* 0: the function was not called in the new session */
	double base_calls;	/* mean calls per repetition over the baseline sessions */
	double new_calls;	/* in the new session */
	const size_t *at;	/* the session of each baseline value (increasing, below the
				 * history's sessions), or NULL: not corrected for the machine's
				 * speed (hspeed.h) */
	const struct pg_hfunc *speed;	/* the same function's on-CPU time among the
					 * references of the machine's speed, or NULL */
};

/*
 * What history check judges; the caller owns everything. The machine's speed is estimated from
 * refs[0..nrefs) (the functions' on-CPU times; f itself when that is what is judged) and
 * corrected in each f[i] with at[] and a speed member pointing into refs. The program's times
 * (@wall, @cpu: its wall and CPU time a repetition; NULL or nsessions 0: none) are judged as
 * measured: a build slower everywhere moves every function with the speed, and the program
 * then.
 */
struct pg_hinput {
	const struct pg_hfunc *f;
	size_t n;
	const struct pg_hfunc *refs;
	size_t nrefs;
	const struct pg_hfunc *wall, *cpu;
	size_t nsessions;	/* the history's sessions (at[] below it) */
	size_t new_reps;	/* the new session's repetitions */
};

/*
 * Judge @in into @out (initialised; filled as pg_compare() fills it, sorted the same way;
 * base_reps is the number of baseline sessions, n_base of a function its sessions; the
 * program's CPU time an entry of PG_ORIGIN_PROGRAM, in the false-discovery family, its wall
 * time out->wall, informational). 0, -EINVAL (bad options) or -ENOMEM, with out->error set.
 */
int pg_history_compare(const struct pg_hinput *in, const struct pg_compare_opts *opts,
		       struct pg_comparison *out);

/*
 * The distribution-free 1 - @alpha interval of the median of v[0..n) from its order
 * statistics (binomial with p = 1/2) into *@lo and *@hi; when n is too small for that level
 * (n < 6 at 0.05), the range min..max (confidence 1 - 2^(1-n)); NAN and NAN for n < 2.
 * 0 or -ENOMEM.
 */
int pg_median_interval(const double *v, size_t n, double alpha, double *lo, double *hi);

/*
 * The alpha of the interval of a session's median that perfgate history plot draws and the
 * point table stores (history/point.h): a 95% interval.
 */
#define PG_MEDIAN_INTERVAL_ALPHA 0.05

#endif
