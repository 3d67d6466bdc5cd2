/* SPDX-License-Identifier: MIT */
/*
 * runner/budget/choose.h - the decisions of record --budget (runner/session/budget_runs.h), pure:
 * no BPF, no logging, so that they link and are tested alone. They read a run's function table, a
 * pilot repetition, the calibration and the sampled first pass's stacks
 * (runner/budget/stack_gain.h).
 *
 * Files of runner/budget/ (which selected functions stay traced; linked without libbpf, they
 * include nothing of BPF: tests/check-layers.sh):
 *   choose.c/.h         the choice for a pilot repetition, the live drops while the pilot
 *                       runs, which functions a profile saw, the repetitions' sampling rate
 *   stack_gain.c/.h     the sampled stacks as function ids: the samples each function would
 *                       own if traced beside the others, and the greedy choice by gain per cost
 *   cover_summary.c/.h  what a choice covers of the first pass's CPU time, said in one block
 * The runs that feed them (the sampled pass, the pilot, the guard) are
 * runner/session/budget_runs.c; the candidates come from runner/select/.
 *
 * Invariant: a function whose pilot cost is unknown (no call returned, e.g. main in a stopped
 * pilot) costs 0 and always stays. keep[] arrays have run->nfuncs entries, indexed by id.
 *
 * Ownership: everything here borrows; pg_budget_choose() fills caller-owned keep[] and choice.
 */
#ifndef PG_CHOOSE_H
#define PG_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"
#include "stack_gain.h"

/* the sampled first pass's rate (runner/session/discover.h): what one of its samples is worth */
#define PG_FIRST_PASS_HZ 1999

/*
 * Function names for a message, "a; b; c" (C++ parameter lists hold ", "): a name over
 * PG_NAME_MAX characters loses its parameter list whole ("ns::f(...)"), then, if still too
 * long, its end ("..."), never half a parameter; the first ~170 characters' worth in s, and
 * how many were added in n (all of them, also those left out).
 */
#define PG_NAME_MAX 60
struct pg_names {
	char s[256];
	size_t len;
	int n;
};

/* Add @name (zero-initialise the struct first). */
void pg_names_add(struct pg_names *l, const char *name);

/* ", ..." when pg_names_add() left names out, else "". */
const char *pg_names_more(const struct pg_names *l);

/*
 * What @s's calls cost in probes, for the budget's choices: the calibrated cost
 * (pg_fstat_probe_cost()), but at least a floor a call by site kind, about two thirds of what
 * an entry and a return probe cost on an idle machine (../shared/MEASURED.md: 0.7 us on a
 * 5-byte nop, 1.1 us emulated; single-stepped, 6-8 us as calibrated on kernel 6.18). A
 * calibration the machine disturbed can read 0 for a kind: a function called 250,000 times
 * would then fit any budget, and be chosen in one recording and not the next.
 */
double pg_budget_call_cost(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s);

/* What pg_budget_choose() decided, and the figures its messages give (ns). */
struct pg_budget_choice {
	double own;		/* the benchmark's own time (at least 1% of the pilot's wall) */
	double allowed;		/* budget_pct of own */
	double before;		/* the probes' estimated cost in the pilot */
	double after;		/* the same without the dropped functions */
	struct pg_names dropped;	/* the dropped functions, in the order they went */
	struct pg_names unreached;	/* with @cut: the functions none of whose calls returned */
};

/*
 * Decide from @pilot (one repetition of @run with every function, run->calib valid) which functions
 * to keep so that the probes' estimated cost (pg_fstat_probe_cost()) stays under @budget_pct of the
 * benchmark's own time; those with gone[id] set (NULL: none; detached during the pilot, their
 * counts partial) are dropped whatever their cost. The own time is @sampled_wall_ns (the sampled
 * first pass's wall time, 0 if none) when the pilot ran to its end, else the pilot's wall time less
 * the estimated cost (at least 1% of it).
 *
 * When the estimated cost is over the budget, and with @cov, the sampled first pass's stacks
 * (NULL or empty: none), pg_cov_choose() keeps what fits: functions are added one at a time,
 * each time the one that most increases the sum of sqrt(own time) of those kept per
 * nanosecond of its probes' cost. A function's own time is the CPU time of the samples whose
 * innermost kept frame it is (runner/budget/stack_gain.h), plus its own time blocked in the pilot;
 * so a wrapper over a kept callee owns almost nothing and is not added, and a function of a few
 * percent inside a large caller is. The dropped are named costliest first. Without @cov,
 * first to go are the functions whose measured time is most probe cost (the estimate over
 * the pilot's total_ns, at most 1): a function that is mostly probe cannot be judged
 * (diff/compare.h, PG_MAX_PROBE_SHARE); among equal shares the costliest.
 *
 * With @min_share > 0 (the default selection: PG_BUDGET_MIN_OWN) and @cov, the choice by the
 * stacks is made even when everything fits, and a function that would own less than that
 * share of the sampled CPU time is dropped whatever its cost: it holds almost none of the
 * time (harness, set-up, argument parsing), and its measured self time would be mostly probe.
 *
 * Sets keep[] (run->nfuncs entries) and *choice; @cut says that the pilot was stopped early.
 * Returns how many functions are dropped, or -ENOMEM. Logs nothing.
 */
#define PG_BUDGET_MIN_OWN 0.01
int pg_budget_choose(const struct pg_run *run, const struct pg_rep *pilot, double budget_pct,
		     uint64_t sampled_wall_ns, bool cut, const bool *gone,
		     const struct pg_coverage *cov, double min_share, bool *keep,
		     struct pg_budget_choice *choice);

/*
 * The functions of @run left out (!keep[id]) although each held at least PG_BUDGET_OUT_SHARE
 * of the sampled CPU time (@share[id], a fraction), with what their probes would cost in a
 * whole run (@cost[id] ns over @calls[id] calls, as the budget counts them: pg_budget_call_cost())
 * against the benchmark's own time @own_ns, here and at the reference cost of their site kind
 * (pg_site_ref_call_ns()). A function without calls is not among them. *@out (malloc'd, the
 * caller's: pg_budget_out_release() each, then free) in the order of their share, largest
 * first, ties by id; *@n how many. 0 or -ENOMEM (then *@out NULL, *@n 0).
 */
int pg_budget_left_out(const struct pg_run *run, const bool *keep, const double *share,
		       const double *cost, const double *calls, double own_ns,
		       struct pg_budget_out **out, size_t *n);

/*
 * The pilot's live rule, applied every few ms while it runs (pure; logs nothing). @cost[i]:
 * the estimated cost so far of function i's probes; @live[i]: still traced; @limit_ns: budget x
 * the sampled run's wall time (0: unknown); @own_ns: the benchmark's own time so far (the
 * elapsed time less the probes' cost). Sets drop[i] for the live functions to detach now:
 *   - every one whose cost so far exceeds @limit_ns: pg_budget_choose() would drop it anyway;
 *   - when the live functions' cost exceeds both @own_ns (the pilot runs over twice as long
 *     as the benchmark alone) and @limit_ns, the costliest until it is under @own_ns / 2.
 * Returns how many (n entries each).
 */
size_t pg_budget_live_drop(size_t n, const double *cost, const bool *live, double limit_ns,
			   double own_ns, bool *drop);


/*
 * Set seen[id] for every function of @run whose display name is a frame of one of the stacks
 * @cov holds (the sampled first pass's). 0 or -ENOMEM.
 */
int pg_budget_mark_sampled(const struct pg_run *run, const struct pg_coverage *cov, bool *seen);

/*
 * The sampling rate of the repetitions when the user gave no -F, chosen for power and cost:
 * about PG_AUTO_SAMPLES samples a repetition of @wall_ns that keeps @cpus CPUs busy (samples
 * per second of wall time per Hz: 1 for a single-threaded CPU loop), enough for a function
 * holding a tenth of the CPU time to show a 10% slowdown in 19 of 20 sessions of 20 ab pairs;
 * but never more than
 * the samples that cost PG_AUTO_BUDGET_PCT % of the run at PG_SAMPLE_COST_NS each, after the
 * sampler's fixed PG_SAMPLE_FIXED_NS a repetition, or PG_AUTO_MIN_BUDGET_PCT % of it when
 * that is more (a short run keeps a few samples); odd (no lock-step with periodic work) and
 * within [PG_AUTO_MIN_HZ, PG_AUTO_MAX_HZ]. *@per_rep (may be NULL): the samples a repetition
 * then gets. Pure; @wall_ns 0 gives PG_DEFAULT_SAMPLE_HZ. docs/sampling.md, "Choosing -F".
 */
#define PG_AUTO_SAMPLES 2600
#define PG_AUTO_BUDGET_PCT 2.0
#define PG_AUTO_MIN_BUDGET_PCT 1.0
#define PG_SAMPLE_COST_NS 15000.0	/* one sample, to the benchmark, on a nested VM */
#define PG_SAMPLE_FIXED_NS 500000.0	/* a repetition's exec notification and maps reading */
#define PG_AUTO_MIN_HZ 49
#define PG_AUTO_MAX_HZ 4999
uint32_t pg_budget_sample_hz(uint64_t wall_ns, double cpus, uint64_t *per_rep);

#endif
