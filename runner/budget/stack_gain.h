/* SPDX-License-Identifier: MIT */
/*
 * runner/budget/stack_gain.h - what the sampled first pass of record --budget says each function is
 * worth tracing: the samples that would be its own if it were traced beside a given set.
 *
 * A traced function's measured self time is its time less that of its traced callees, so what
 * tracing it shows depends on what else is traced: a wrapper above a traced worker shows
 * almost nothing, and the same wrapper with the worker left out shows the worker's time. A
 * sample's time goes to the innermost traced function on its stack: the samples a function
 * gets that way are the time it would resolve. pg_cov_choose() adds functions one at a time
 * by what they resolve per unit of probe cost, each taking its samples from the function that
 * owned them until then (docs/measurement.md, "How the budget chooses").
 *
 * Invariant: a struct pg_coverage holds copies of the folded stacks of the runs added, as
 * they came (one entry per stack and run, count >= 1); a struct pg_cov_map holds the same
 * stacks as function ids of one struct pg_run, root first, frames that name no function left
 * out, and is valid for that run until its functions change (pg_run_retain_funcs()
 * renumbers them: map again).
 *
 * Life cycle: zero-initialise (or PG_COVERAGE_INIT), pg_coverage_add() each sampled run,
 * pg_cov_map_build() against the run whose functions are to be chosen, pg_cov_choose(),
 * pg_cov_map_release() and pg_coverage_release().
 *
 * Ownership: a coverage owns its copies of the stacks; a map owns its arrays; both borrow
 * nothing after the call that built them.
 *
 *	struct pg_coverage cov = PG_COVERAGE_INIT;
 *	struct pg_cov_map map = { 0 };
 *
 *	pg_coverage_add(&cov, &sampled_rep);		// for each sampled run
 *	pg_cov_map_build(&map, &cov, run);
 *	pg_cov_choose(&map, cost, blocked, ns_per_sample, allowed, 0, keep, &total);
 *	pg_cov_map_release(&map);
 *	pg_coverage_release(&cov);
 */
#ifndef PG_COVERAGE_H
#define PG_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"

struct pg_coverage {
	struct pg_stack *stacks;
	size_t n, alloc;
	uint64_t samples;	/* the sum of the counts */
	int runs;		/* how many runs were added */
};

#define PG_COVERAGE_INIT { 0 }

/*
 * Every frame name of @c's stacks, sorted, each once, into the string vector *@frames, *@n
 * (core/strv.h; the caller frees it with pg_strv_free()). 0 or -ENOMEM (nothing allocated).
 */
int pg_coverage_frames(const struct pg_coverage *c, char ***frames, size_t *n);

/*
 * The same of the functions that hold at least @min_share of @c's samples as their own user
 * time: the innermost user frame of stacks sampled in user mode (not a syscall wrapper whose
 * samples are the kernel's work, such as execve, wait4 or mprotect; not exit, seen once as a
 * leaf and owning, traced, all the freeing below it).
 */
int pg_coverage_leaves(const struct pg_coverage *c, double min_share, char ***frames, size_t *n);

/* Is @name among @frames (pg_coverage_frames(), pg_coverage_leaves())? */
bool pg_frames_have(char *const *frames, size_t n, const char *name);

/* Copy @rep's on-CPU stacks into @c (and count the run). 0 or -ENOMEM (@c as it was). */
int pg_coverage_add(struct pg_coverage *c, const struct pg_rep *rep);

void pg_coverage_release(struct pg_coverage *c);

struct pg_cov_map {
	uint32_t *ids;		/* every stack's function ids, root first, one after another */
	size_t *start;		/* stack k's ids are ids[start[k] .. start[k + 1]) */
	uint64_t *count;	/* stack k's samples */
	size_t nstacks;
	uint32_t nfuncs;	/* of the run it was built for */
};

/*
 * @c's stacks as ids of @run's functions: a frame names every function whose display name it
 * is (several when names are shared; a frame that names none is left out). 0 or -ENOMEM.
 */
int pg_cov_map_build(struct pg_cov_map *m, const struct pg_coverage *c, const struct pg_run *run);

void pg_cov_map_release(struct pg_cov_map *m);

/* A function holding this share of the samples as its own is taken before the others. */
#define PG_COV_KERNEL_SHARE 0.05

/*
 * Choose the functions to trace within @allowed ns of probe cost a run. First the kernels: the
 * functions that hold PG_COV_KERNEL_SHARE of the samples or more as their own among all that
 * may be kept (and at least @min_own), most first, each that still fits. Then the greedy
 * choice that adds, one at a time, the function that most increases the sum over the kept functions
 * of sqrt(own time) per ns of its cost (cost[id], ns a run), among those that still fit. A
 * function's own time is the CPU time of the samples whose innermost kept frame it is
 * (@ns_per: a sample's ns a run) plus extra[id] (its time blocked, ns a run), so adding a
 * function takes the samples in which it lies below their owner from that owner (samples no
 * kept function owns count for nothing: covering them is all gain). The square
 * root makes splitting a large own time worth more than moving it whole: a wrapper whose
 * callee is kept is worth little, and a function of a few percent inside a large caller is
 * worth its probes. A function that would own less than @min_own ns a run (or nothing) is not
 * added, whatever its cost: harness, set-up and argument parsing hold almost none of the time.
 * With @min_own > 0, the kept functions that own less than it once the choice is complete
 * (their samples taken by callees added after them) are then dropped, least first, so that
 * the order of near-equal choices does not change what is kept.
 *
 * keep[id] on entry: whether function id may be kept; on return: whether it is. A function
 * with cost[id] <= 0 (unknown) that may be kept is. *@total: the kept functions' cost.
 * 0 or -ENOMEM (keep[] then undefined).
 */
int pg_cov_choose(const struct pg_cov_map *m, const double *cost, const double *extra,
		  double ns_per, double allowed, double min_own, bool *keep, double *total);

#endif
