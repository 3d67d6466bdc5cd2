/* SPDX-License-Identifier: MIT */
/*
 * diff/program.h - the whole program judged like a function: the process tree's CPU time and
 * wall time a repetition (struct pg_rep cpu_ns, wall_ns), paired in a perfgate ab session,
 * rank-tested otherwise, in the comparison's false-discovery family; and what explains a
 * change of its CPU time. Pure computation: no I/O, no logging. docs/statistics.md, "The
 * whole program", says why and how it meets the machine's speed correction.
 *
 * Used by diff/compare.c only:
 *
 *	pg_compare_program(out, base, new, o, sets_differ, wall_ns, &sb, &sn, &ws, &fam);
 *	... Benjamini-Hochberg, verdicts ...
 *	pg_program_explain(out, inside);
 */
#ifndef PG_DIFF_PROGRAM_H
#define PG_DIFF_PROGRAM_H

#include <stdbool.h>

#include "../core/comparison.h"
#include "../core/run.h"
#include "repvalues.h"
#include "stats.h"
#include "verdict.h"

/*
 * What explains the program's change (pg_explain_program()): a function whose change of time
 * a repetition is under this share of the program's CPU time a repetition (0.1%) is left out.
 */
#define PG_EXPLAIN_MIN_SHARE 0.001

/*
 * Append the whole program's entries to out->f (source PG_ORIGIN_PROGRAM): its CPU time a
 * repetition, when both runs measured it, and its wall time; tested into @fam, never corrected
 * for the machine's speed. Not tested (PG_CAUSE_ONE_SIDE) when @sets_differ: the two runs'
 * probes then cost differently, whatever the code did. @sb and @sn are scratch samples (of
 * the runs' repetitions' capacity); their speed is left as it was. 0 or a negative errno.
 */
int pg_compare_program(struct pg_comparison *out, const struct pg_run *base,
		       const struct pg_run *new, const struct pg_compare_opts *o, bool sets_differ,
		       double wall_ns, struct pg_sample *sb, struct pg_sample *sn,
		       struct pg_stats_ws *ws, struct pg_family *fam);

/*
 * The median CPU time of a repetition of @run, ns; NAN when a repetition lacks it (files from
 * before perfgate measured it).
 */
double pg_program_cpu_ns(const struct pg_run *run);

/*
 * The explanation (explain) of the whole program's CPU time when its change counts: the exact
 * and sampled functions whose changes count, largest first, as shares of the program's CPU
 * time, and the rest unexplained. Sampled functions with inside[i] set (under a traced
 * function whose change counts, and whose self time holds theirs) are left out of the sum;
 * @inside may be NULL.
 */
void pg_program_explain(struct pg_comparison *c, const bool *inside);

/*
 * After the verdicts, unpaired: the wall time's regression or improvement is inconclusive
 * (PG_CAUSE_DRIFT), since two recordings made apart differ by the machine's load between
 * them, which CPU time does not count; perfgate ab's pairs judge it. Nothing when paired.
 */
void pg_program_settle(struct pg_comparison *c);

#endif
