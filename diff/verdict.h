/* SPDX-License-Identifier: MIT */
/*
 * diff/verdict.h - one function's comparison, inside diff/ (compare.c is the only caller):
 * its effect and test from the two samples (pg_analyse()), then, once the false-discovery
 * control has set its q, its verdict (pg_decide()). The method is compare.h's and
 * docs/statistics.md's. Pure computation: no I/O, no logging.
 *
 * Life cycle for one struct pg_fcmp (pg_fcmp_init()ed, calls filled in):
 *
 *	int t = pg_analyse(f, &sb, &sn, opts, calib_valid, &ws);	// 1: f->p is set
 *	pg_impact(f, wall_ns);
 *	... Benjamini-Hochberg over the tested p, then f->q ...
 *	pg_decide(f, opts, wall_ns);
 *	pg_calls_words(f);
 *
 * Every function here writes only into @f (its cause and reason among the rest); the samples
 * and options are borrowed.
 */
#ifndef PG_VERDICT_H
#define PG_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"
#include "repvalues.h"
#include "stats.h"

/* Append printf-formatted text to the string in @buf (@size bytes), truncating. */
__attribute__((format(printf, 3, 4)))
void pg_append(char *buf, size_t size, const char *fmt, ...);

/*
 * Is @f mostly probe effects on either side (PG_MIN_NS_PER_CALLEE, PG_MAX_PROBE_SHARE)? Then
 * its cause and reason are set and it is not tested. @compensated: the samples are compensated
 * for probe overhead (a valid calibration).
 */
bool pg_probe_bound(struct pg_fcmp *f, const struct pg_sample *b, const struct pg_sample *n,
		    bool compensated);

/*
 * Fill the medians and the effect of @f from the two samples (paired samples pair by pair,
 * diff/paired.h; else Hodges-Lehmann and Mann-Whitney), and decide whether it can be tested;
 * if so, set f->p. @ws: the unpaired tests' workspace. Returns 1 if tested, 0 if not
 * (f->reason says why), or a negative errno.
 */
int pg_analyse(struct pg_fcmp *f, const struct pg_sample *b, const struct pg_sample *n,
	       const struct pg_compare_opts *o, bool compensated, struct pg_stats_ws *ws);

/*
 * How heavy-tailed the differences of two samples are, in a way that does not depend on which
 * side any value is on: paired, the |d| of the pairs; else the distances of all the values
 * (log) from their pooled median. Their mean over their median: ~1.2 for normal noise, more
 * when a few are far out (a sync that blocked 100 ms instead of 2). NAN when nothing to say,
 * also on -ENOMEM.
 */
double pg_tail_index(const struct pg_sample *b, const struct pg_sample *n);

/* How much heavier self time's tails must be than on-CPU time's for the latter to judge */
#define PG_TAIL_MARGIN 1.25

/*
 * When the runs traced different sets of functions, a function whose traced calls per call
 * differ between the sides by more than this share of the larger (5%) is not judged
 * (pg_callees_differ(), PG_CAUSE_CALLEES): its time holds callees on one side that the other
 * timed apart.
 */
#define PG_CALLEES_DIFFER 0.05

/*
 * @f, tested (pg_analyse() returned 1) on its self time, whose self samples had the tail index
 * @tail_self: when its on-CPU samples @b and @n (PG_METRIC_CPU) have one PG_TAIL_MARGIN times
 * smaller, and can be tested, judge it on them (f->by_cpu): its medians, change, interval and
 * p become those of its on-CPU time. The choice looks only at what swapping a pair's sides (or
 * the labels) leaves alone, so under no change it says nothing of the test's outcome: one
 * test, at its level. 0 or a negative errno.
 */
int pg_analyse_cpu(struct pg_fcmp *f, double tail_self, const struct pg_sample *b,
		   const struct pg_sample *n, const struct pg_compare_opts *o, bool compensated,
		   struct pg_stats_ws *ws);

/*
 * The impact of @f: its change of time per repetition, change * base_ns * new_calls, and that
 * as a share of @wall_ns (the median repetition's wall time; NAN when unknown).
 */
void pg_impact(struct pg_fcmp *f, double wall_ns);

/*
 * The verdict of a tested function from f->q, its interval and @o (compare.h); a regression
 * or improvement whose impact is under o->min_impact of @wall_ns becomes notable.
 */
void pg_decide(struct pg_fcmp *f, const struct pg_compare_opts *o, double wall_ns);

/* Does @f's change count: a regression, an improvement or a notable change? */
bool pg_change_counts(const struct pg_fcmp *f);

/* Was @f judged: its change counts, or it is unchanged (not inconclusive, added, removed)? */
bool pg_judged(const struct pg_fcmp *f);

/* Count @f's verdict in @c (nregressions, nunchanged, ...). */
void pg_count_verdict(struct pg_comparison *c, const struct pg_fcmp *f);

/* "calls 10 -> 12 per repetition" appended to f->reason when its calls changed. */
void pg_calls_words(struct pg_fcmp *f);

/*
 * When the runs traced different sets of functions: does @f make a different number of traced
 * calls per call inside its measured time on the two sides (by more than 5%)? Then its time
 * holds, on one side, callees the other side timed apart, or the other way round, and it is
 * not judged: cause and reason set, true. @cb, @cn: its calls on each side.
 */
bool pg_callees_differ(struct pg_fcmp *f, const struct pg_sample *b, double cb,
		       const struct pg_sample *n, double cn);

/*
 * The Benjamini-Hochberg family of one comparison: the entries of its f[] that were tested
 * (by index, pointers move as f[] grows) and their p. Zeroed is empty; release frees it.
 */
struct pg_family {
	size_t n, cap;
	size_t *idx;
	double *p;
};

/* Add entry @idx with p-value @p. 0 or -ENOMEM. */
int pg_family_add(struct pg_family *fam, size_t idx, double p);
void pg_family_release(struct pg_family *fam);

/*
 * An entry of @out tested alone from the samples @b and @n (not compensated for probes: the
 * whole program, a sampled function): pg_analyse(), its impact (its change of time a
 * repetition, change * base_ns, over @wall_ns), and into @fam when tested, its interval
 * widened and p raised first by an uncertainty of scale @sigma (log; 0: none) that is in
 * neither sample (pg_rnull_widen_by()). @f is out->f[idx]. 0 or a negative errno.
 */
int pg_judge_alone(struct pg_fcmp *f, size_t idx, const struct pg_sample *b,
		   const struct pg_sample *n, const struct pg_compare_opts *o, double wall_ns,
		   double sigma, struct pg_stats_ws *ws, struct pg_family *fam);

#endif
