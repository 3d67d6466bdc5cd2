/* SPDX-License-Identifier: MIT */
/*
 * diff/inlined.h - which inlined function explains a sampled function's change. Pure
 * computation: no I/O, no logging.
 *
 * A sampled function's time is the time of its machine code, inlined functions included
 * (diff/sampled.h); its stacks still name them, marked PG_INLINED_MARK (core/run.h). For a
 * sampled function whose change counts, the function inlined into it (directly: the first
 * inlined frame after it) that holds most of its samples in the new run, and that part's own
 * change, measured as the function's is (its samples' share of each repetition times the
 * repetition's CPU time, the mean over repetitions, new against base), are appended to its
 * explain: "of which mix inlined: +15.2% (93% of its samples)". Only that function's own
 * copies count: a helper inlined into several functions is never pooled over them. Stacks
 * name frames, not objects: a function whose name another object also holds
 * (pg_name_shared(), diff/cause.h) is not explained, rather than explained by the other's.
 */
#ifndef PG_DIFF_INLINED_H
#define PG_DIFF_INLINED_H

#include "../core/comparison.h"
#include "../core/run.h"

/* Explain the sampled entries of @c whose change counts, from the stacks of @base and @new.
 * 0 or -ENOMEM. */
int pg_inlined_explain(struct pg_comparison *c, const struct pg_run *base,
		       const struct pg_run *new);

#endif
