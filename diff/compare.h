/* SPDX-License-Identifier: MIT */
/*
 * diff/compare.h - per-function statistical comparison of two runs. Pure computation: no I/O
 * and no logging; errors come back as a return code plus a message in the result.
 *
 * Method (docs/statistics.md says why):
 *  - Functions are matched by (basename of binary, symbol name), so a baseline recorded from
 *    build/a/prog matches a new run from build/b/prog (diff/repvalues.h: the keys and the
 *    per-repetition samples).
 *  - The unit of replication is the repetition. For each function and each repetition in which
 *    it was called, the per-repetition statistic is the mean per-call time of the chosen metric
 *    (self time by default, so that a slower leaf does not also flag its callers; or inclusive
 *    time): self_ns / calls or total_ns / calls, compensated for probe overhead
 *    (pg_fstat_comp_self/total in core/run.h) with one joint calibration for both sides, the
 *    mean of the two runs' (raw on both sides with opts.raw or when a run has none; each side's
 *    scale of nop5 probe cost, pg_calib_scale(), comes from its own probe times); for a leaf,
 *    without the slowest PG_LEAF_TRIM of its calls (diff/repvalues.h). A function whose
 *    measured time is more than PG_MAX_PROBE_SHARE probe overhead, or less than
 *    PG_MIN_NS_PER_CALLEE per traced call inside it, is INCONCLUSIVE.
 *  - The two sides' per-repetition values are compared with a two-sided Mann-Whitney U test
 *    (pg_mwu_test). p-values of all functions tested are adjusted with Benjamini-Hochberg.
 *  - Self time of a function blocked (off-CPU, not waiting for a CPU) for PG_SPLIT_BLOCKED of
 *    its time or more, over both runs together: when its on-CPU time's differences are less
 *    heavy-tailed (pg_tail_index(), which no swap of sides moves), it is judged on its on-CPU
 *    time instead (f->by_cpu; docs/statistics.md, "Blocked time").
 *  - The effect is the Hodges-Lehmann estimate of the shift of log(value), reported as a
 *    relative change exp(shift) - 1, with its distribution-free 1 - alpha interval.
 *  - Paired: when the runs are the two sides of one perfgate ab session (pg_runs_paired(),
 *    diff/paired.h; out->paired, out->npairs), the repetitions pair by pg_rep.pair and each
 *    function is judged on d = log(new value) - log(base value) over the pairs in which it was
 *    called on both sides (f->pairs): Wilcoxon signed-rank test (pg_wsr_test) and the
 *    Hodges-Lehmann estimate of the Walsh averages with its interval
 *    (pg_hodges_lehmann_paired); min_reps counts pairs. The wall line is paired too. Files
 *    given the other way round are paired all the same, with a warning.
 *  - impact: the change of the function's time per repetition, impact_ns = change * base_ns *
 *    new_calls (the chosen metric, compensated as above), and impact = impact_ns over the
 *    median wall time of a base repetition (of a new one when the base run has none).
 *  - verdict:
 *      REGRESSION   q <= alpha and ci_lo > +min_effect, and impact >= opts.min_impact
 *      IMPROVEMENT  q <= alpha and ci_hi < -min_effect, and -impact >= opts.min_impact
 *      NOTABLE      either of the two above but for the impact: |impact| < opts.min_impact
 *                   (a change that does not matter to the whole run: reported, never a
 *                   failure). With opts.min_impact 0, or no wall time, there is none.
 *      UNCHANGED    otherwise, when the interval lies within [-min_effect, +min_effect]
 *                   or the test is not significant and the interval is finite and its
 *                   upper end is below +min_effect (a regression of min_effect is ruled out)
 *      INCONCLUSIVE otherwise: too few repetitions on a side (fewer than opts.min_reps, or too
 *                   few for the test to reach alpha at all), or an interval too wide to rule
 *                   a regression of min_effect in or out. reason says which.
 *      ADDED / REMOVED  called only in the new / only in the base run; but when the runs'
 *                   selections of functions differ (-f/-x options, or a budget chose them:
 *                   warn_sets() in compare.c) a function called in one run and not even
 *                   listed in the other was not traced there: INCONCLUSIVE, cause
 *                   PG_CAUSE_ONE_SIDE, not judged.
 *    An INCONCLUSIVE function's cause says why, in kinds a report can count.
 *  - Call counts are exact (uprobes see every call): base_calls and new_calls are the mean
 *    calls per repetition; calls_changed is set when the sides' per-repetition counts differ.
 *    A change of calls alone is reported, never a regression.
 *  - Beyond the traced functions (origin PG_ORIGIN_EXACT): the untraced functions of the
 *    sampled profile (diff/sampled.h, PG_ORIGIN_SAMPLED) and the whole program's CPU time and
 *    wall time (diff/program.h, PG_ORIGIN_PROGRAM, last in f[]) are judged with the same tests
 *    and rules, in the same Benjamini-Hochberg family; their explain says what explains a
 *    change that counts.
 *  - overall: REGRESSION when any entry regressed; else PASS only with evidence (the program's
 *    CPU time judged, or judged functions holding PG_MIN_JUDGED_SHARE of the CPU time), else
 *    INCONCLUSIVE with overall_reason (docs/statistics.md, "No pass without evidence").
 *
 * The result's data types (struct pg_comparison, struct pg_fcmp, verdicts, options) are the
 * data model in core/comparison.h, so that formats/result.c reads and writes them without
 * depending on the statistics. pg_compare() keeps no pointer into the runs it compared.
 */
#ifndef PG_COMPARE_H
#define PG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/comparison.h"
#include "../core/run.h"

/*
 * A function whose measured time is estimated to be more than this share probe overhead is
 * not tested (INCONCLUSIVE): a small error in the subtracted cost would dominate its change.
 */
#define PG_MAX_PROBE_SHARE 0.75

/*
 * A function whose self time is blocked for at least this share (both runs together) may be
 * judged on its on-CPU time (see the top): one fsync that takes 60-117 ms instead of 2 ms in
 * two of twenty pairs hides a +25% change of the code around it from a rank test of self time.
 */
#define PG_SPLIT_BLOCKED 0.1

/*
 * A function whose measured time (self, or total with PG_METRIC_TOTAL) is less than this many
 * ns per traced call inside it is not tested (INCONCLUSIVE): around each traced call some
 * microseconds of probe work land in it, more than the calibration of back-to-back calls
 * predicts after a long-running callee, and they vary from one recording to the next (measured
 * on the project machines: 5-9 us per call to a callee running ~650 us, calibrated ~1.1 us).
 */
#define PG_MIN_NS_PER_CALLEE 50000.0

/*
 * Compare @base with @new. Returns 0 and fills @out (which must be initialised), or a negative
 * errno with out->error set: -EINVAL for invalid options, -ENOMEM. Runs of different commands
 * (not pg_meta_same_benchmark()) are compared all the same, function by function, as Google
 * Benchmark's compare.py compares two binaries: out->commands_differ is set and the first
 * warning names both commands (the caller decides whether that is an error: perfgate compare
 * exits 2 with --strict or when no function was called in both). Different hosts, kernels or
 * perfgate versions only add warnings.
 */
int pg_compare(const struct pg_run *base, const struct pg_run *new,
	       const struct pg_compare_opts *opts, struct pg_comparison *out);

/*
 * One look of a sequential comparison (perfgate ab --max-reps): pg_compare() at opts->look of
 * opts->looks, testing at the alpha that look may spend (pg_look_alpha(), diff/paired.h: the
 * Benjamini-Hochberg level and 1 - the intervals' confidence), where a function decided at an
 * earlier look (@prev, the previous look's result, or NULL at the first) keeps that verdict,
 * its numbers and its pairs. out->opts keeps the caller's alpha. pg_compare() with looks set
 * is the same with no @prev. Same returns as pg_compare(); -EINVAL also for look not in
 * 1..looks (when looks is not 0).
 *
 *	for (o.look = 1; o.look <= o.looks; o.look++) {
 *		record one more block of pairs;
 *		pg_compare_look(&base, &new, &o, o.look > 1 ? &prev : NULL, &cur);
 *		if (!pg_comparison_undecided(&cur))
 *			break;
 *		swap prev and cur;
 *	}
 */
int pg_compare_look(const struct pg_run *base, const struct pg_run *new,
		    const struct pg_compare_opts *opts, const struct pg_comparison *prev,
		    struct pg_comparison *out);

/*
 * Could more pairs decide something @c left undecided: an entry (exact, sampled, the whole
 * program) slower but not (surely) significant yet, or an exact function or the program's CPU
 * time inconclusive for too few repetitions or an interval too wide, or a sampled function
 * whose interval is too wide while its estimate is slower beyond the minimum effect and moves
 * the run by ten times the impact rule's bar (0.5% at ab's 0.05%)? (Not for the probe
 * share, the callee time, differing callees or one side only: more pairs change none.)
 */
bool pg_comparison_undecided(const struct pg_comparison *c);

#endif
