/* SPDX-License-Identifier: MIT */
/*
 * runner/session/session.h - the steps of runner/session/recorder.h's life cycle that perfgate
 * record (recorder.c) and perfgate ab (ab.c) share: one recording session with one BPF object, one
 * selection, one calibration, and any number of repetitions run through it.
 *
 *   pg_recording_begin()	step 1 and 2 for the command of @o: choose the functions into
 *				@run, its metadata, the BPF object loaded and attached,
 *				calibrated, --budget's sampled pass and pilot (run->funcs is final
 *				after it)
 *   (ab: the new side's functions, and the probes attached again for both: ab.c)
 *   pg_recording_arm()		compensated histograms, the sampler, subreaper, capabilities
 *				dropped, the guard: ready for repetitions
 *   pg_recording_once()	step 3 once: one repetition of l.argv read into a struct pg_rep
 *   pg_recording_end()		step 4 and what is said at the end
 *
 * Invariants: between begin and end the stop signals are blocked (runner/launch/launch.h), and
 * r->launch.stop_signal, once set, ends the session with -EINTR. The BPF maps are sized for
 * the function table given to the last attach (@probed below): every repetition's statistics
 * are read for its ids 0 .. probed->nfuncs - 1.
 *
 * Life cycle and ownership: zero the struct; pg_recording_begin(); pg_recording_arm();
 * pg_recording_once() any number of times; pg_recording_end() always (also after a failed
 * begin), which releases everything the struct owns and returns the session's result. The
 * struct borrows the options and runs.
 *
 *	struct pg_recording r = { 0 };
 *
 *	err = pg_recording_begin(&r, o, run);
 *	err = err ?: pg_recording_arm(&r, o, run, run);
 *	for (uint32_t i = 0; !err && i < o->repetitions; i++) {
 *		struct pg_rep *rep = pg_run_add_rep(run);
 *
 *		err = rep ? pg_recording_once(&r, run, i, rep, rep) : -ENOMEM;
 *		...
 *	}
 *	return pg_recording_end(&r, o, run, err);
 */
#ifndef PG_RECORDING_H
#define PG_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "../../bpf/perfgate.h"
#include "../../core/run.h"
#include "../launch/launch.h"
#include "../probes/probes.h"
#include "budget_runs.h"
#include "discover.h"
#include "recorder.h"

struct pg_recording {
	struct pg_probes probes;
	struct pg_launch launch;	/* launch.argv: the command the next repetition runs */
	__u64 counters[PG_CNT_MAX];	/* the BPF event counters of every repetition */
	uint64_t sampled_wall;	/* --budget's sampled first pass, when complete; else 0 */
	uint32_t hz;		/* -F, or chosen from the sampled first pass; 0: no profile */
	struct pg_budget_watch guard;
	struct pg_discovery disc;	/* the sampled first pass, when it ran */
	int ncpu;
	bool begun;		/* pg_recording_begin() initialised the launch */
	bool armed;		/* pg_recording_arm() succeeded */
};

/* pg_recording_once(): the guard stopped the repetition (runner/session/budget_runs.h) */
#define PG_GUARD_STOPPED 1

/*
 * Step 1: choose the functions of @argv0 (the program of o->argv) as @o says into @run's
 * function table (initialised, empty), from what the sampled first pass @disc found (NULL:
 * none ran), and say what their sites cost. 0 or -errno (logged).
 */
int pg_recording_select(const struct pg_record_opts *o, const char *argv0,
			const struct pg_discovery *disc, struct pg_run *run);

/*
 * The sampled first pass for @l's command into @d when @o needs one (pg_discovery_needed());
 * says what it found (@side: "" or "the new side: "). 0 or -errno (logged).
 */
int pg_recording_discover(const struct pg_record_opts *o, struct pg_launch *l,
			  struct pg_discovery *d, const char *side);

/*
 * After the first repetition, read into @stats for the functions of @probed: a recording in
 * which no traced function was called, or which traces a file that the processes did not map
 * while they mapped another of its name, cannot judge anything. -ENOENT (logged), else 0.
 */
int pg_recording_check_first(const struct pg_recording *r, const struct pg_run *probed,
			     const struct pg_rep *stats, const char *side);

/*
 * Steps 1 and 2 for o->argv: choose @run's functions (initialised, empty) and fill its
 * metadata, load and attach the probes, calibrate them into run->calib, and run --budget's
 * passes. 0 or -errno (logged); pg_recording_end() is due either way.
 */
int pg_recording_begin(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run);

/*
 * Ready for repetitions, with the probes attached to @probed's functions (@run itself, or
 * the table ab attached): histograms compensated (run->hist_compensated), the sampler opened
 * (run->meta.sample_hz), the capabilities dropped, the guard set for @probed. 0 or -errno.
 */
int pg_recording_arm(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     const struct pg_run *probed);

/*
 * One repetition of r->launch.argv, number @i (0-based, for the guard's messages): clear the
 * maps, run it into @rep (wall time, exit status, sampled stacks), read the maps for @probed's
 * functions into @stats (@rep itself, or a scratch repetition to split: ab.c). 0,
 * PG_GUARD_STOPPED when the guard stopped it, or -errno (-EINTR after a stop signal; logged).
 * Judging the exit status is the caller's (pg_launch_verdict()).
 */
int pg_recording_once(struct pg_recording *r, const struct pg_run *probed, uint32_t i,
		      struct pg_rep *rep, struct pg_rep *stats);

/*
 * The code digests (runner/profile/codesum.h) of @run's traced functions and of the frames its side
 * @side's samples so far fell in (pg_sampler_set_side()), the latter replacing @run->codes;
 * @cs keeps the files read, for the next call. 0 or -ENOMEM (logged).
 */
struct pg_codesums;
int pg_recording_codes(struct pg_recording *r, struct pg_codesums *cs, struct pg_run *run,
		       int side);

/*
 * Step 4 of a session that ended with @err: what the counters say; when @err is 0, the
 * budget's check, the sampled frames' sources and the code digests of side 0 into @run;
 * detach everything and restore the signals. Returns the session's result (-EINTR when a stop
 * signal came meanwhile).
 */
int pg_recording_end(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     int err);

#endif
