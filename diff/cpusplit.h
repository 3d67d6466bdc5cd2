/* SPDX-License-Identifier: MIT */
/*
 * diff/cpusplit.h - how much of a function's change was on-CPU and how much off-CPU,
 * for runs recorded with off-CPU time (pg_meta.offcpu on both sides).
 *
 * Per side, the median over repetitions of the per-call on-CPU time of the metric (self or
 * total; the compensated time less the measured off-CPU time), of its off-CPU time and of
 * the part of that spent runnable. The changes of those medians, each over f->base_ns, are
 * f->change_cpu, f->change_offcpu and f->change_runq: change_cpu + change_offcpu is close to
 * f->change (the same medians, not the Hodges-Lehmann estimate), and 0 <= |change_runq| is
 * part of change_offcpu when both move the same way. Pure computation (diff/).
 *
 *	err = pg_cpusplit(f, base, bids, nb, new, nids, nn, &calib, opts->metric, false);
 *	...
 *	pg_cpusplit_words(f, buf, sizeof(buf));	// "all of it off-CPU, blocked"
 */
#ifndef PG_DIFF_CPUSPLIT_H
#define PG_DIFF_CPUSPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/comparison.h"
#include "../core/run.h"

/*
 * The words of a change's split (pg_cpusplit_words()): a part is "all of it" when the other is
 * at most this share of the two together (|x| <= 0.1 (|x| + |y|)), and of the off-CPU part
 * only the kind (blocked, waiting for a CPU) that is not that small is named.
 */
#define PG_SPLIT_MINOR 0.1

/*
 * Set f->change_cpu, change_offcpu, change_runq and blocked_share from the functions
 * @bids[0..nb) of @base and @nids[0..nn) of @new (their calls and times add up per
 * repetition), compensated with @calib, for @metric (self or total). Leaves them NAN when
 * either run lacks off-CPU time, either side has no repetition with calls, f->base_ns is not
 * above 0, or @metric is PG_METRIC_CPU (all of that change is on-CPU). With @no_runq the waits
 * for a CPU were left out of the time judged (pg_sample.no_runq): change_offcpu is then the
 * blocked time's change and change_runq 0. blocked_share: of the per-call time of both
 * sides together, the part blocked (off-CPU, not runnable). 0 or -ENOMEM.
 */
int pg_cpusplit(struct pg_fcmp *f, const struct pg_run *base, const uint32_t *bids, size_t nb,
		const struct pg_run *new, const uint32_t *nids, size_t nn,
		const struct pg_calib *calib, enum pg_metric metric, bool no_runq);

/*
 * The split of @f's change in words, into @buf (always terminated; "" when unknown):
 * "all of it off-CPU, blocked", "all of it on-CPU", "+11% on-CPU, +1% off-CPU". A part is
 * "all of it" when the other is under a tenth of the two; the off-CPU part is "blocked",
 * "waiting for a CPU" or both, by the same rule. Returns @buf.
 */
const char *pg_cpusplit_words(const struct pg_fcmp *f, char *buf, size_t size);

/*
 * PG_METRIC_CPU, one repetition of @st: on-CPU self time, the self time less the time the
 * thread was switched out inside it (*raw), and that compensated like self time (*comp, at
 * least 0; the probes run on the CPU). repvalues.c applies no leaf trim to it: what the trim
 * keeps out, an interrupted or preempted call's extra time, is off-CPU already.
 */
void pg_cpusplit_cpu_time(const struct pg_calib *calib, const struct pg_func *f,
			  const struct pg_fstat *st, double *raw, double *comp);

/* A change that counts (regression, improvement, notable) gets its split's words after its
 * reason, "; all of it off-CPU, blocked", where they fit. */
void pg_cpusplit_reason(struct pg_fcmp *f);

#endif
