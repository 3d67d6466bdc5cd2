/* SPDX-License-Identifier: MIT */
/*
 * runner/budget.h - record --budget PCT: trace only the functions whose probes fit in PCT% of
 * the benchmark's own time (docs/recording.md), chosen by running the benchmark before the
 * recorded repetitions (part of step 2 of runner/record.h):
 *   a. pg_budget_sample(), before the probes are attached: one run sampled at 999 Hz with no
 *      probe; only the selected functions seen on its stacks go on to the pilot (all of them
 *      when the profile is too thin to tell). Its wall time bounds the pilot.
 *   b. pg_budget_pilot(), once the probes are attached and calibrated: one unrecorded run
 *      with every function left; pg_budget_choose() drops the costliest until the estimated
 *      cost fits, and the probes are attached again with the rest.
 *
 * The decisions are pure and reachable without BPF: pg_budget_choose() (which functions stay,
 * given a pilot repetition and the calibration) and pg_budget_mark_sampled() (which functions
 * a profile saw). Neither logs; the pilot and sampling drivers log what they decided.
 *
 * Invariant: a function whose pilot cost is unknown (no call returned, e.g. main in a stopped
 * pilot) costs 0 and always stays. keep[] arrays have run->nfuncs entries, indexed by id.
 *
 * Ownership: everything here borrows; pg_budget_choose() fills caller-owned keep[] and choice.
 *
 *	bool *keep = calloc(run->nfuncs, sizeof(*keep));
 *	struct pg_budget_choice c;
 *	int ndrop = pg_budget_choose(run, &pilot, 5.0, sampled_wall_ns, false, keep, &c);
 *
 *	if (ndrop > 0)
 *		printf("without %s%s: ~%.1f%%\n", c.dropped.s, pg_names_more(&c.dropped),
 *		       100 * c.after / c.own);
 *	if (ndrop > 0)
 *		pg_run_retain_funcs(run, keep);
 */
#ifndef PG_BUDGET_H
#define PG_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/run.h"
#include "launch.h"
#include "probes.h"
#include "record.h"

/*
 * Function names for a message, "a, b, c": each cut to 60 characters, the first ~170
 * characters' worth in s, and how many were added in n (all of them, also those left out).
 */
struct pg_names {
	char s[256];
	size_t len;
	int n;
};

/* Add @name (zero-initialise the struct first). */
void pg_names_add(struct pg_names *l, const char *name);

/* ", ..." when pg_names_add() left names out, else "". */
const char *pg_names_more(const struct pg_names *l);

/* What pg_budget_choose() decided, and the figures its messages give (ns). */
struct pg_budget_choice {
	double own;		/* the benchmark's own time (at least 1% of the pilot's wall) */
	double allowed;		/* budget_pct of own */
	double before;		/* the probes' estimated cost in the pilot */
	double after;		/* the same without the dropped functions */
	struct pg_names dropped;	/* the dropped functions, costliest first */
	struct pg_names unreached;	/* with @cut: the functions none of whose calls returned */
};

/*
 * Decide from @pilot (one repetition of @run with every function, run->calib valid) which
 * functions to keep so that the probes' estimated cost (pg_fstat_probe_cost()) stays under
 * @budget_pct of the benchmark's own time. The own time is @sampled_wall_ns (the sampled
 * first pass's wall time, 0 if none) when the pilot ran to its end, else the pilot's wall
 * time less the estimated cost (at least 1% of it). The costliest go first. Sets keep[]
 * (run->nfuncs entries) and *choice; @cut says that the pilot was stopped early. Returns how
 * many functions are dropped, or -ENOMEM. Logs nothing.
 */
int pg_budget_choose(const struct pg_run *run, const struct pg_rep *pilot, double budget_pct,
		     uint64_t sampled_wall_ns, bool cut, bool *keep,
		     struct pg_budget_choice *choice);

/*
 * Set seen[id] for every function of @run whose display name is a frame of one of @rep's
 * folded stacks. 0 or -ENOMEM.
 */
int pg_budget_mark_sampled(const struct pg_run *run, const struct pg_rep *rep, bool *seen);

/*
 * Step a: the sampled first pass (when opts.sample_hz; said when not). Keeps in @run only the
 * functions it saw, when it saw enough; *wall_ns: its wall time when it completed, else 0.
 * Before the probes are attached and capabilities dropped. 0 or -errno (logged): -ETIME or
 * -ECHILD when the run failed without --allow-failure.
 */
int pg_budget_sample(const struct pg_record_opts *o, struct pg_launch *l, struct pg_run *run,
		     uint64_t *wall_ns);

/*
 * Step b: the pilot with the attached, calibrated probes @p, stopped when it runs 10 times as
 * long as the sampled pass (@sampled_wall_ns, 0: unbounded) and 1 s longer. When functions
 * must go, @run keeps the rest and @p is attached again (the exception fix opened again).
 * Nothing when the calibration failed (a warning). 0 or -errno (logged).
 */
int pg_budget_pilot(const struct pg_record_opts *o, struct pg_probes *p, struct pg_launch *l,
		    struct pg_run *run, int ncpu, uint64_t sampled_wall_ns);

#endif
