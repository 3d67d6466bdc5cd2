/* SPDX-License-Identifier: MIT */
/*
 * diff/compare.h - per-function statistical comparison of two runs. Pure computation: no I/O
 * and no logging; errors come back as a return code plus a message in the result.
 *
 * Method (docs/statistics.md says why):
 *  - Functions are matched by (basename of binary, symbol name), so a baseline recorded from
 *    build/a/prog matches a new run from build/b/prog.
 *  - The unit of replication is the repetition. For each function and each repetition in which
 *    it was called, the per-repetition statistic is the mean per-call time of the chosen metric
 *    (self time by default, so that a slower leaf does not also flag its callers; or inclusive
 *    time): self_ns / calls or total_ns / calls, compensated for probe overhead
 *    (pg_fstat_comp_self/total in core/run.h) with one joint calibration for both sides, the
 *    mean of the two runs' (raw on both sides with opts.raw or when a run has none; each side's
 *    scale of nop5 probe cost, pg_calib_scale(), comes from its own probe times). A function
 *    whose measured time is more than PG_MAX_PROBE_SHARE probe overhead, or less than
 *    PG_MIN_NS_PER_CALLEE per traced call inside it, is INCONCLUSIVE.
 *  - The two sides' per-repetition values are compared with a two-sided Mann-Whitney U test
 *    (pg_mwu_test). p-values of all functions tested are adjusted with Benjamini-Hochberg.
 *  - The effect is the Hodges-Lehmann estimate of the shift of log(value), reported as a
 *    relative change exp(shift) - 1, with its distribution-free 1 - alpha interval.
 *  - verdict:
 *      REGRESSION   q <= alpha and ci_lo > +min_effect
 *      IMPROVEMENT  q <= alpha and ci_hi < -min_effect
 *      UNCHANGED    otherwise, when the interval lies within [-min_effect, +min_effect]
 *                   or the test is not significant and the interval is finite and its
 *                   upper end is below +min_effect (a regression of min_effect is ruled out)
 *      INCONCLUSIVE otherwise: too few repetitions on a side (fewer than opts.min_reps, or too
 *                   few for the test to reach alpha at all), or an interval too wide to rule
 *                   a regression of min_effect in or out. reason says which.
 *      ADDED / REMOVED  called only in the new / only in the base run.
 *  - Call counts are exact (uprobes see every call): base_calls and new_calls are the mean
 *    calls per repetition; calls_changed is set when the sides' per-repetition counts differ.
 *    A change of calls alone is reported, never a regression.
 *
 * Ownership: struct pg_comparison owns its array and strings; pg_comparison_release() frees
 * them. It keeps no pointer into the runs it was computed from.
 */
#ifndef PG_COMPARE_H
#define PG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/run.h"

enum pg_metric {
	PG_METRIC_SELF = 0,	/* self time per call (default) */
	PG_METRIC_TOTAL,	/* inclusive time per call */
};

enum pg_verdict {
	PG_VERDICT_UNCHANGED = 0,
	PG_VERDICT_REGRESSION,
	PG_VERDICT_IMPROVEMENT,
	PG_VERDICT_INCONCLUSIVE,
	PG_VERDICT_ADDED,
	PG_VERDICT_REMOVED,
};

enum pg_overall {
	PG_OVERALL_PASS = 0,		/* no regression, and the data could decide */
	PG_OVERALL_REGRESSION,		/* at least one function regressed */
	PG_OVERALL_INCONCLUSIVE,	/* no regression found, but the data cannot decide */
};

const char *pg_verdict_name(enum pg_verdict v);	/* "unchanged", "regression", ... */
const char *pg_overall_name(enum pg_overall v);	/* "pass", "regression", "inconclusive" */
const char *pg_metric_name(enum pg_metric m);	/* "self", "total" */

struct pg_compare_opts {
	double alpha;		/* false discovery rate and 1 - confidence level; default 0.05 */
	double min_effect;	/* smallest relative change that counts, 0.05 = 5%; default */
	enum pg_metric metric;	/* default PG_METRIC_SELF */
	uint32_t min_reps;	/* fewer repetitions with calls on a side: inconclusive; default 5 */
	bool raw;		/* compare raw times, not times compensated for probe overhead */
};

/*
 * A function whose measured time is estimated to be more than this share probe overhead is
 * not tested (INCONCLUSIVE): a small error in the subtracted cost would dominate its change.
 */
#define PG_MAX_PROBE_SHARE 0.75

/*
 * For a leaf function (no traced call inside it, on either side) the per-repetition value is
 * the mean time of its calls but the slowest PG_LEAF_TRIM of them (whose durations are
 * estimated from the histogram and taken out of the exact sum):
 * a profiling sample, timer tick or preemption landing in one call of a short function would
 * otherwise move the whole repetition (measured: a 10% slowdown of a 40 us function read as
 * +4.5% to +11.3% with sampling on, +10.0% to +12.3% with this).
 */
#define PG_LEAF_TRIM 0.05

/*
 * A function whose measured time (self, or total with PG_METRIC_TOTAL) is less than this many
 * ns per traced call inside it is not tested (INCONCLUSIVE): around each traced call some
 * microseconds of probe work land in it, more than the calibration of back-to-back calls
 * predicts after a long-running callee, and they vary from one recording to the next (measured
 * on the project machines: 5-9 us per call to a callee running ~650 us, calibrated ~1.1 us).
 */
#define PG_MIN_NS_PER_CALLEE 50000.0

#define PG_COMPARE_OPTS_DEFAULT { 0.05, 0.05, PG_METRIC_SELF, 5, false }

struct pg_fcmp {
	char *binary;		/* basename of the ELF file */
	char *name;		/* symbol name */
	char *display;		/* demangled name (or name) */
	char *src_file;		/* declaration file (DWARF) of the new run's function, else the
				 * base run's; NULL if unknown */
	uint32_t src_line;	/* its line; 0 if unknown */
	size_t n_base, n_new;	/* repetitions in which the function was called */
	double base_ns;		/* median over repetitions of the per-call metric; NAN if absent */
	double new_ns;
	double base_calls;	/* mean completed calls per repetition (0 if absent) */
	double new_calls;
	bool calls_changed;	/* the per-repetition call counts differ between the sides */
	double change;		/* relative change, +0.10 = 10% slower; NAN if not estimated */
	double ci_lo, ci_hi;	/* 1 - alpha interval of change; may be -INFINITY / +INFINITY */
	double p;		/* Mann-Whitney p; NAN if not tested */
	double q;		/* Benjamini-Hochberg adjusted p; NAN if not tested */
	double probe_share;	/* share of the measured time estimated to be probe overhead,
				 * the larger of the two sides; NAN when not compensated */
	enum pg_verdict verdict;
	char reason[160];	/* a short human explanation of the verdict; "" when obvious */
};

struct pg_comparison {
	struct pg_compare_opts opts;
	size_t base_reps, new_reps;	/* repetitions in each run */
	size_t ntested;			/* functions in the Benjamini-Hochberg family */
	size_t nregressions, nimprovements, nunchanged, ninconclusive, nadded, nremoved;
	bool compensated;		/* both sides compensated with the joint calibration */
	enum pg_overall overall;
	char overall_reason[256];	/* why inconclusive, or "" */
	struct pg_fcmp wall;		/* whole-process wall time per repetition (informational:
					 * never counted as a regression); binary = name = "[wall]" */
	size_t n;
	struct pg_fcmp *f;		/* sorted: regressions (largest change first), improvements,
					 * inconclusive, added, removed, unchanged */
	size_t nwarnings;
	char **warnings;		/* e.g. "the runs come from different hosts: a and b" */
	char error[256];		/* set when pg_compare() fails */
};

void pg_comparison_init(struct pg_comparison *c);
void pg_comparison_release(struct pg_comparison *c);

/*
 * Compare @base with @new. Returns 0 and fills @out (which must be initialised), or a negative
 * errno with out->error set: -EINVAL when the runs are not comparable (different commands:
 * argv differs), -ENOMEM. Different hosts, kernels or perfgate versions only add warnings.
 */
int pg_compare(const struct pg_run *base, const struct pg_run *new,
	       const struct pg_compare_opts *opts, struct pg_comparison *out);

#endif
