/* SPDX-License-Identifier: MIT */
/*
 * runner/session/budget_runs.h - record --budget PCT (5 by default without -f, --functions-of or
 * --all-functions): trace only the functions whose probes fit in PCT% of the benchmark's own
 * time (docs/measurement.md, "Budget"), chosen by running the benchmark before the recorded
 * repetitions (part of step 2 of runner/session/recorder.h), and kept to it while they run (step
 * 3):
 *   a. pg_budget_sample(), after the sampled first pass (runner/session/discover.h: runs at 1999 Hz
 *      with no probe); only the selected functions seen on its stacks go on to the pilot (all
 *      of them when the profile is too thin to tell). Its wall time is the benchmark's own
 *      time.
 *   b. pg_budget_pilot(), once the probes are attached and calibrated: an unrecorded run
 *      with every function left, whose counts are read from the kernel every 15 ms; when
 *      pg_budget_live_drop() says some run over their share, it is stopped, they are
 *      detached (pg_probes_relink()) and it starts again, so that it sees every phase. Then
 *      pg_budget_choose() keeps those that resolve the most time for their cost (by step a's
 *      stacks) until the estimated cost fits, and the probes are attached again with the rest.
 *   c. the guard (struct pg_budget_watch, pg_budget_guard_arm()): a recorded repetition that
 *      runs far longer than the sampled pass shows a live line and, under a budget, is
 *      stopped; pg_budget_narrow() drops the costliest and the repetitions start again.
 *      pg_budget_check() compares the repetitions' probe cost with the budget at the end.
 *
 * The decisions are pure and link without BPF, in runner/budget/choose.h: pg_budget_choose() (which
 * functions stay, given a pilot repetition and the calibration), pg_budget_live_drop() (which
 * to detach while the pilot runs) and pg_budget_mark_sampled() (which functions a profile
 * saw). None logs; the drivers here log what they decided.
 *
 * Invariant: a function whose pilot cost is unknown (no call returned, e.g. main in a stopped
 * pilot) costs 0 and always stays. keep[] arrays have run->nfuncs entries, indexed by id.
 *
 * Ownership: everything here borrows; pg_budget_choose() fills caller-owned keep[] and choice.
 *
 *	bool *keep = calloc(run->nfuncs, sizeof(*keep));
 *	struct pg_budget_choice c;
 *	int ndrop = pg_budget_choose(run, &pilot, 5.0, sampled_wall_ns, false, NULL, &cov, 0,
 *				     keep, &c);
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

#include "../../bpf/perfgate.h"
#include "../../core/run.h"
#include "../budget/choose.h"
#include "../budget/stack_gain.h"
#include "../launch/launch.h"
#include "../probes/probes.h"
#include "recorder.h"

/*
 * Watching the probes' cost while the benchmark runs (struct pg_launch's tick): the pilot's
 * live drops and the guard of the recorded repetitions. Arrays have run->nfuncs entries at
 * pg_budget_watch_init() (the run may lose functions later, never gain). Owns its arrays;
 * borrows the rest. Zero-initialised, pg_budget_watch_release() is safe.
 */
struct pg_budget_watch {
	const struct pg_record_opts *o;
	struct pg_probes *p;
	const struct pg_run *run;
	int ncpu;
	struct pg_bpf_fstat *v;	/* ncpu entries: a lookup's buffer */
	double *cost;		/* per function: its probes' estimated cost so far */
	uint64_t *calls;	/* its calls so far */
	double *own_at_drop;	/* the benchmark's own time when it was detached (ns) */
	bool *live, *drop;
	double limit_ns;	/* budget x sampled_wall_ns, 0: unknown */
	uint64_t sampled_wall_ns;
	struct pg_names dropped;	/* the pilot: detached while it ran */
	size_t ndropped;
	/* the guard */
	uint32_t rep;
	uint64_t guard_ns;	/* past it a repetition shows a live line; 0: never */
	bool narrow;		/* and is stopped (--budget, with the sampled run's length) */
	uint64_t last_ns, last_calls, last_line_ns;
};

/* 0 or -ENOMEM (logged). */
int pg_budget_watch_init(struct pg_budget_watch *w, const struct pg_record_opts *o,
			 struct pg_probes *p, const struct pg_run *run, int ncpu,
			 uint64_t sampled_wall_ns);
void pg_budget_watch_release(struct pg_budget_watch *w);

/*
 * The guard for recorded repetition @rep (0-based): sets @l's tick. A repetition running past
 * GUARD_FACTOR (5) times the untraced run and 2 s more shows a line a second (unless quiet:
 * elapsed time, probe hits per second, the costliest functions so far) and, with w->narrow,
 * when the probes' cost so far accounts for at least half the time past the untraced run's,
 * is stopped (l->tick_stopped): then pg_budget_narrow(). Clear l->tick after the repetition.
 */
void pg_budget_guard_arm(struct pg_budget_watch *w, struct pg_launch *l, uint32_t rep);

/*
 * After the guard stopped the last repetition of @run: drop at least the costliest function,
 * and as many as its counts so far say the budget needs; forget every repetition (the
 * selection changed) and attach the probes again with the rest. 0 or -errno (logged).
 */
int pg_budget_narrow(const struct pg_record_opts *o, struct pg_probes *p, struct pg_run *run,
		     uint64_t sampled_wall_ns);

/*
 * After the repetitions: their measured probe cost a repetition against the budget (own time:
 * @sampled_wall_ns, else the median wall time less the probes); a warning naming the costliest
 * when over twice the budget, else one info line. Nothing without --budget.
 */
void pg_budget_check(const struct pg_record_opts *o, const struct pg_run *run,
		     uint64_t sampled_wall_ns);


/*
 * Step a, after the sampled first pass @d (runner/session/discover.h): keeps in @run only the
 * functions it saw, when it saw enough (else @d's stacks are released); *wall_ns: its fastest
 * complete run, else 0. *@hz: the repetitions' sampling rate; when opts.auto_hz and the pass
 * completed, chosen from its fastest run by pg_budget_sample_hz() (said in a line), else left
 * as it is. 0 or -ENOMEM.
 */
struct pg_discovery;
int pg_budget_sample(const struct pg_record_opts *o, struct pg_discovery *d, struct pg_run *run,
		     uint64_t *wall_ns, uint32_t *hz);

/*
 * Step b: the pilot with the attached, calibrated probes @p, started again (at most 50 times)
 * whenever functions are detached; each run is stopped when it runs 10 times as long as the
 * sampled pass (@sampled_wall_ns, 0: unbounded) and 1 s longer. When functions
 * must go (pg_budget_choose() with @cov, step a's stacks), @run keeps the rest and @p is
 * attached again (the exception fix opened again). Nothing when the calibration failed (a
 * warning). 0 or -errno (logged).
 */
int pg_budget_pilot(const struct pg_record_opts *o, struct pg_probes *p, struct pg_launch *l,
		    struct pg_run *run, int ncpu, uint64_t sampled_wall_ns,
		    const struct pg_coverage *cov);

/*
 * After the pilot: the functions it left out that held a large share of the time
 * (run->meta.left_out), with the samples each would get a repetition at the repetitions'
 * sampling rate @hz (from the first pass @cov's rate of them) and whether that is enough for a
 * sampled verdict; a line each unless quiet (pg_budget_out_say()).
 */
void pg_budget_say_left_out(const struct pg_record_opts *o, struct pg_run *run,
			    const struct pg_coverage *cov, uint32_t hz);

#endif
