/* SPDX-License-Identifier: MIT */
/*
 * diff/overall.h - what a comparison says as a whole, once each of its entries has its verdict
 * and explanations: the counts of its verdicts and what it judged, the order of its entries,
 * and its overall verdict with the reason. Pure computation: no I/O, no logging. Used by
 * diff/compare.c only, as the last steps of pg_compare(), in this order:
 *
 *	pg_overall_count(c, base);		// counts, judged entries, judged_share
 *	pg_overall_sort(c);			// then pg_gb_finish() puts benchmarks first
 *	pg_overall_decide(c, &look, ncommon);	// c->overall, c->overall_reason
 *
 * The order of c->f (core/comparison.h says it for readers): the whole program's entries last;
 * before them by verdict: regressions, improvements, notable changes, inconclusive, added,
 * removed, unchanged; among the changes that count, when some compared code changed
 * (c->ncode_changed), code not PG_CODE_SAME before code the same in both builds; regressions
 * by largest change, improvements by largest fall, notable changes by largest share of the
 * run (unknown last) then largest change; every remaining tie by binary, name, scope.
 *
 * The overall verdict (docs/statistics.md, "No pass without evidence"): REGRESSION when any
 * entry regressed; when something was tested, PASS only with evidence (the program's CPU time
 * judged, or judged functions holding PG_MIN_JUDGED_SHARE of the CPU time), else INCONCLUSIVE
 * saying why; when nothing was tested, INCONCLUSIVE with the repetitions a test would need
 * (the smallest count whose Mann-Whitney p can reach alpha, and at least opts.min_reps) and
 * PG_RECOMMENDED_REPS recommended, or that no function was called in enough repetitions of
 * both runs (a paired comparison's reason is diff/paired.h's pg_paired_overall_reason()).
 */
#ifndef PG_DIFF_OVERALL_H
#define PG_DIFF_OVERALL_H

#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* Repetitions per side the overall reason recommends when it asks for more. */
#define PG_RECOMMENDED_REPS 10

/*
 * Count @c's verdicts and changed code (pg_count_verdict(): the n<verdict>, ncode_changed), its
 * judged exact and sampled functions and whether the program's CPU time was judged, and
 * judged_share: the judged functions' time a base repetition (a Google Benchmark's benchmarks
 * aside: theirs is per iteration) over the base run's CPU time, at most 1 (NAN when @base has
 * none).
 */
void pg_overall_count(struct pg_comparison *c, const struct pg_run *base);

/* Sort c->f in the order above (after pg_overall_count(): it reads c->ncode_changed). */
void pg_overall_sort(struct pg_comparison *c);

/*
 * c->overall and c->overall_reason ("" unless inconclusive) from the counts; @o: the options
 * the tests used (the alpha of this look); @ncommon: the exact functions (and benchmarks)
 * called in both runs.
 */
void pg_overall_decide(struct pg_comparison *c, const struct pg_compare_opts *o,
		       size_t ncommon);

#endif
