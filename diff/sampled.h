/* SPDX-License-Identifier: MIT */
/*
 * diff/sampled.h - verdicts from the sampled CPU profile for the functions that are not
 * traced. Pure computation: no I/O, no logging. docs/statistics.md, "Sampled verdicts".
 *
 * A function's value in a repetition is an estimate of its time there: its samples (self
 * samples: stacks that end in it; with PG_METRIC_TOTAL, stacks that hold it, once each) over
 * the repetition's samples, times the repetition's CPU time (pg_rep.cpu_ns). A repetition
 * in which it has no sample counts half a sample (less than one, more than none: the
 * logarithm needs a value). These values are tested as exact ones are (paired in an ab
 * session, with the machine's speed correction, else Mann-Whitney), with the same minimum
 * effect and impact, in the same false-discovery family.
 *
 * Which: functions by name (docs/sampling.md, "Frame names"), the same in two builds of one
 * program. With PG_METRIC_SELF and own samples on both sides (pg_rep.own) a function is the
 * symbol whose machine code holds the samples, inlined code included, in its object and its
 * process's program: binary is "object" or "object (program)" for a shared object, the new
 * run's program named as the base run's (as pg_fkeys_fill() pairs them). With
 * PG_METRIC_TOTAL and inclusive samples on both sides (pg_rep.incl) likewise, by the function
 * symbols the stacks' user frames lie in (kernel frames are their callers' time). Otherwise
 * (run files of before) a frame of the stacks, inlined frames (" [i]") left out, binary "".
 * A function is judged when it holds on average PG_SAMPLED_MIN_SAMPLES samples
 * a repetition on either side and has samples on both; not when a traced function of either
 * run has that name in that object (its exact verdict decides), nor perfgate's probe frame,
 * "[unknown]", "[pre-exec]" or an unnamed address ("module+0x..."). Entries: source
 * PG_ORIGIN_SAMPLED, name and display the frame, samples its samples over both runs. A
 * function on both sides that is too rare to be judged but holds PG_SAMPLED_SHOW_SHARE of a
 * side's samples is named in out->unjudged instead.
 *
 * Used by diff/compare.c only:
 *
 *	pg_compare_sampled(out, base, new, o, keys, nkeys, wall_ns, &sb, &sn, &ws, &fam);
 *	... Benjamini-Hochberg, verdicts ...
 *	pg_sampled_explain(out, new, inside);
 */
#ifndef PG_DIFF_SAMPLED_H
#define PG_DIFF_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"
#include "repvalues.h"
#include "stats.h"
#include "verdict.h"

/* Mean samples a repetition a frame needs on one side at least to be judged. */
#define PG_SAMPLED_MIN_SAMPLES 10

/*
 * A function too rare to be judged (above) that holds at least this share of a side's samples
 * is named in the comparison's unjudged functions (struct pg_unjudged): time the report
 * would otherwise pass over in silence, untraced and unjudged. 1%: a function below it moves
 * the whole program by under 1% even when its time doubles, which the program's own verdict
 * (5% between two recordings, 2% in perfgate ab) cannot tell either; at most PG_UNJUDGED_MAX
 * are named, as the budget names the 5 left-out functions with the most samples.
 */
#define PG_SAMPLED_SHOW_SHARE 0.01

/*
 * Append the sampled functions of @base and @new to out->f and test them into @fam (nothing
 * when either run has no CPU time or no sampled profile). keys[0..nkeys): the traced
 * functions of both runs (pg_fkeys_fill()). @sb, @sn: scratch samples, their speed kept.
 * 0 or a negative errno.
 */
int pg_compare_sampled(struct pg_comparison *out, const struct pg_run *base,
		       const struct pg_run *new, const struct pg_compare_opts *o,
		       const struct pg_fkey *keys, size_t nkeys, double wall_ns,
		       struct pg_sample *sb, struct pg_sample *sn, struct pg_stats_ws *ws,
		       struct pg_family *fam);

/*
 * Once verdicts are decided: the explain of every traced function whose change counts names
 * the sampled functions under it (its nearest traced ancestor in @new's stacks, of that name
 * the one in the sampled function's object or program: pg_same_process()) whose change
 * counts the same way; inside[i] (c->n entries, set false first) marks the sampled entries
 * under a traced function whose change counts (the program's explanation names that one). 0 or
 * -ENOMEM.
 */
int pg_sampled_explain(struct pg_comparison *c, const struct pg_run *new, bool *inside);

#endif
