/* SPDX-License-Identifier: MIT */
/*
 * diff/repvalues.h - what pg_compare() tests, taken out of the two runs: functions matched
 * across the runs by key, and one side's per-repetition sample of one function (its mean time
 * per call of the chosen metric, compensated for probe overhead). Pure computation: no I/O, no
 * logging. diff/compare.c tests the samples and decides the verdicts (method: compare.h and
 * docs/statistics.md).
 *
 * Invariants:
 *  - A struct pg_fkey names one function of one run (side 0 the base run, 1 the new; id its
 *    pg_func.id) by (basename of its binary, name, scope). Its strings point into the run:
 *    keys live no longer than the runs they were filled from. Sorted (pg_fkeys_fill()), the
 *    keys of one function are adjacent (pg_fkey_same()), those of the base side first.
 *  - A struct pg_sample holds at most the capacity given to pg_sample_init() values, one per
 *    repetition in which the function was called: raw[i], log[i] and pair[i] are of the same
 *    repetition, log[i] = log(max(raw[i], PG_MIN_NS)). measured, compensated, callees and
 *    sub are sums over those repetitions, shortest a minimum and floored a count over them
 *    (pg_sample_gather() sets them; pg_sample_push() leaves them).
 *
 * Life cycle and ownership: a pg_sample owns its three arrays. pg_sample_init() allocates
 * them for @cap values (the number of repetitions of the run it is gathered from);
 * pg_sample_release() frees them, also after a failed pg_sample_init() and on a zeroed sample.
 * pg_sample_gather() and pg_sample_push() (after setting n to 0) refill a sample without
 * allocating. The keys' array is the caller's, base->nfuncs + new->nfuncs long.
 *
 *	struct pg_sample sb = { 0 };
 *	bool leaf;
 *
 *	if (pg_sample_init(&sb, base->nreps))
 *		goto fail;			// -ENOMEM
 *	pg_fkeys_fill(keys, base, new);
 *	for (i = 0; i < nkeys; i = j) {
 *		j = pg_fkeys_group(keys, nkeys, i, base, new, &nb, &leaf);
 *		pg_sample_gather(&sb, base, keys + i, nb, &calib, metric, leaf);
 *		... sb.log[0..sb.n) to the tests ...
 *	}
 *	pg_sample_release(&sb);
 */
#ifndef PG_DIFF_REPVALUES_H
#define PG_DIFF_REPVALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* Per-call times below this are taken as this before the logarithm (log 0 = -inf). */
#define PG_MIN_NS 0.5

/*
 * For a leaf function (no traced call inside it, on either side) the per-repetition value is
 * the mean time of its calls but the slowest PG_LEAF_TRIM of them (whose durations are
 * estimated from the histogram and taken out of the exact sum):
 * a profiling sample, timer tick or preemption landing in one call of a short function would
 * otherwise move the whole repetition (measured: a 10% slowdown of a 40 us function read as
 * +4.5% to +11.3% with sampling on, +10.0% to +12.3% with this).
 */
#define PG_LEAF_TRIM 0.05

struct pg_rspeed;

/* One function of one run, as functions are matched across the runs. */
struct pg_fkey {
	const char *binary;	/* basename */
	const char *name;
	const char *scope;	/* "" when the name is unique in its binary */
	const char *display;
	const char *src_file;	/* may be NULL */
	uint32_t src_line;
	int side;		/* 0 base, 1 new */
	uint32_t id;
	uint64_t code;		/* struct pg_func.code */
};

/*
 * The keys of every function of @base and @new into keys[0..base->nfuncs + new->nfuncs),
 * sorted by (binary, name, scope, side, id).
 */
void pg_fkeys_fill(struct pg_fkey *keys, const struct pg_run *base, const struct pg_run *new);

/* Are @a and @b the same function (of either run)? */
bool pg_fkey_same(const struct pg_fkey *a, const struct pg_fkey *b);

/* Does no call of the functions keys[0..nk) of @run, in any repetition, contain a traced call? */
bool pg_fkeys_leaf(const struct pg_run *run, const struct pg_fkey *keys, size_t nk);

/*
 * The keys of the function that starts at keys[i] of the sorted keys[0..nkeys): returns the end
 * of its group; *@nb of them are @base's (they come first), the rest @new's; *@leaf when no
 * call of it on either side contains a traced call (pg_fkeys_leaf()).
 */
size_t pg_fkeys_group(const struct pg_fkey *keys, size_t nkeys, size_t i,
		      const struct pg_run *base, const struct pg_run *new, size_t *nb, bool *leaf);

struct pg_speed;

/* One side's per-repetition values of one function (or of the wall time). */
struct pg_sample {
	double *raw;	/* per-repetition metric, ns */
	double *log;	/* log(max(raw, PG_MIN_NS)) */
	size_t n;
	double measured;	/* sum of the metric as measured, over the repetitions */
	double compensated;	/* the same, compensated for probe overhead */
	double calls;		/* its calls, over the repetitions */
	double callees;		/* traced calls inside the measured time: direct children for
				 * self time, every descendant for total time */
	/* the calibrated probe cost compensation took out of it, ns, by site kind: its own calls'
	 * in and its callees' (diff/calibunc.h); without the probe time measured at every call */
	double sub[PG_SITE_COUNT];
	/* the shortest call of its functions (inclusive, as measured), ns, by their own site
	 * kind; 0: none. A call's window holds its own probes' in: the calibrated in cannot
	 * exceed it (diff/calibunc.h) */
	double shortest[PG_SITE_COUNT];
	/* repetitions whose compensated value came out at most PG_MIN_NS a call while the
	 * measured one did not: compensation took more than the time (diff/calibunc.h) */
	size_t floored;
	uint32_t *pair;		/* the pair index (pg_rep.pair) of each repetition */
	bool paired;		/* compare pair by pair (diff/paired.h) */
	/* self and total time less the waits for a CPU (pg_fstat.self_runq_ns, runq_ns): set
	 * for two recordings made apart, where those waits are the machine's other load */
	bool no_runq;
	/* paired only: the machine's speed per pair (diff/speed.h; NULL: none), this
	 * function's time not blocked over its time, the share of it the speed moves, and its
	 * id in pg_speed_add() when it is one of the speed's references (else PG_SPEED_NO_ID) */
	const struct pg_speed *speed;
	double share;
	uint32_t speed_id;
	/* unpaired only: the machine's speed between the two runs (diff/rspeed.h; NULL: none),
	 * with share and speed_id as above */
	const struct pg_rspeed *rspeed;
};

/* Allocate @s for @cap values (n = 0). 0 or -ENOMEM (then pg_sample_release() it all the same). */
int pg_sample_init(struct pg_sample *s, size_t cap);

/* Free the arrays of @s (not @s itself). */
void pg_sample_release(struct pg_sample *s);

/* Append value @v (ns) of the repetition of pair index @pair; s->n stays under the capacity. */
void pg_sample_push(struct pg_sample *s, double v, uint32_t pair);

/* What pg_sample.pair holds for repetition @r of @run: its pair in a perfgate ab session, its
 * index otherwise (diff/rspeed.h lines the repetitions of two functions up by it). */
static inline uint32_t pg_rep_tag(const struct pg_run *run, size_t r)
{
	return run->meta.ab_session ? run->reps[r].pair : (uint32_t)r;
}

/*
 * @s := the per-repetition sample of the functions keys[0..nk) of @run (normally one function;
 * several when one run holds functions whose binaries share a basename: their calls and times
 * add up), of @metric, compensated with @calib; with @leaf, the slowest PG_LEAF_TRIM of the
 * calls of each repetition left out (PG_METRIC_CPU excepted); s->calls the number of calls
 * over all repetitions. A repetition without calls has no value.
 */
void pg_sample_gather(struct pg_sample *s, const struct pg_run *run, const struct pg_fkey *keys,
		      size_t nk, const struct pg_calib *calib, enum pg_metric metric, bool leaf);

/*
 * The share of self time blocked (off-CPU, not waiting for a CPU) of a function over both
 * runs' repetitions together: base's keys kb[0..nb), new's kn[0..nn). The same whichever
 * side a repetition is on, so under no change it says nothing of the test (what lets it choose
 * a test: docs/statistics.md, "Blocked time"). 0 when either run has no off-CPU time.
 */
double pg_sample_blocked_both(const struct pg_run *base, const struct pg_fkey *kb, size_t nb,
			      const struct pg_run *new, const struct pg_fkey *kn, size_t nn);

/*
 * Of the time of @metric of the functions keys[0..nk) of @run, summed over its repetitions,
 * the share not blocked: on a CPU or waiting for one (diff/speed.h). 1 when @run has no
 * off-CPU time, for PG_METRIC_CPU, and when the functions have no time.
 */
double pg_sample_unblocked(const struct pg_run *run, const struct pg_fkey *keys, size_t nk,
			   enum pg_metric metric);

/*
 * The calibration both sides are compensated with: the mean of the two runs' calibrations,
 * so that a difference between two calibrations cannot pass for a change of the benchmark;
 * none (raw times on both sides) with opts->raw or when either run lacks one. The measured
 * probe times are used only when both runs have them, so that both sides are compensated
 * the same way.
 */
void pg_joint_calib(const struct pg_run *base, const struct pg_run *new,
		    const struct pg_compare_opts *opts, struct pg_calib *out);

#endif
