/* SPDX-License-Identifier: MIT */
/*
 * runner/launch/launch.h - starting, waiting for and stopping the benchmark, one repetition at a
 * time (step 3 of runner/session/recorder.h).
 *
 * struct pg_launch says how every repetition is started and stopped: the command, whom it
 * runs as (runner/launch/privs.h), the C++ exception fix's library (runner/probes/excfix.h), the
 * stop signals (SIGINT, SIGTERM, SIGHUP: blocked from pg_launch_init() to pg_launch_end(), and
 * waited for between and during repetitions) and the per-repetition timeout.
 *
 * Invariants: a repetition's processes are one process group of a fresh tree whose first pid
 * is in the BPF `traced` map before it execs, so that every call of the benchmark is counted
 * and nothing of perfgate's; pg_launch_run() returns only when the whole tree has exited
 * (perfgate is the subreaper of orphans: the caller sets PR_SET_CHILD_SUBREAPER). A stop
 * signal or the timeout ends the tree: SIGTERM, then SIGKILL after PG_KILL_GRACE_MS.
 * stop_signal, once set, stays set: the recording ends (pg_launch_stopped_by()).
 *
 * Files of runner/launch/ (the benchmark's processes):
 *   launch.c/.h       one repetition: start the tree, wait for it, stop it, say what it did
 *   proctree.c/.h     the process tree of a repetition and the signals that stop a recording
 *   privs.c/.h        which user the benchmark runs as; the capabilities perfgate keeps
 *   resolve.c/.h      the files a recording needs: the command on PATH, a library by name
 *   gbench_run.c/.h   a Google Benchmark program run under record: recognised, its JSON
 *                     figures read after each repetition
 *
 * Life cycle and ownership: fill argv and timeout_ns, pg_launch_init(), pg_launch_choose_fix()
 * once the functions are known, any number of pg_launch_run(), pg_launch_end(), which
 * releases what the struct owns (preload, creds) and restores the signals. argv is borrowed.
 *
 *	struct pg_launch l = { .argv = opts->argv, .timeout_ns = opts->timeout_ms * 1000000 };
 *
 *	err = pg_launch_init(&l, opts->user);
 *	...
 *	pg_launch_choose_fix(&l, opts, run);
 *	...			// probes attached (runner/probes/probes.h)
 *	pg_launch_excfix_open(&probes, &l);
 *	err = pg_launch_run(&probes, &l, rep);
 *	err = err ?: pg_launch_verdict(opts, &l, i, rep, &probes.fix);
 *	...
 *	return pg_launch_end(&l, err);
 */
#ifndef PG_LAUNCH_H
#define PG_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/run.h"
#include "../probes/excfix.h"
#include "../probes/probes.h"
#include "../session/recorder.h"
#include "gbench_run.h"
#include "privs.h"
#include "proctree.h"

struct pg_launch {
	char **argv;		/* the program and its arguments, NULL-terminated (borrowed) */
	char **assign;		/* words before it: NAME=value (and "env") for its environment */
	size_t nassign;
	char *preload;		/* the C++ exception fix's library, NULL if off */
	bool preload_noted;	/* said that the benchmark's user cannot read it */
	struct pg_creds creds;	/* whom the benchmark runs as */
	struct pg_signals sig;	/* the stop signals, blocked while recording */
	uint64_t timeout_ns;	/* per repetition, 0 = none */
	int stop_signal;	/* the stop signal that arrived, or 0 */
	bool timed_out;		/* the last repetition ran past the timeout */
	const char *side;	/* perfgate ab: "base" or "new", which pg_launch_verdict()'s
				 * messages name with argv[0]; NULL: perfgate record */
	/*
	 * A periodic hook while a repetition runs (NULL: none): called about every tick_ms
	 * with the time since the start; returning true stops the repetition's tree as the
	 * timeout does, but sets tick_stopped instead of timed_out. The pilot's live drops
	 * and the guard of the recorded repetitions (runner/session/budget_runs.h) use it.
	 */
	bool (*tick)(void *arg, uint64_t elapsed_ns);
	void *tick_arg;
	int tick_ms;
	bool tick_stopped;	/* the last repetition was stopped by tick */
	uint64_t next_tick_ns;	/* private to pg_launch_run() */
	/*
	 * The live line: while a run of the command lasts over PG_LIVE_FIRST_NS, a line every
	 * PG_LIVE_EVERY_NS says what runs (phase: "the sampled first pass, run 2"; "" for no
	 * line) and for how long, with what is left of @expect_ns (0: unknown). quiet: none.
	 */
	char phase[96];
	uint64_t expect_ns;
	bool quiet;
	uint64_t next_live_ns;	/* private to pg_launch_run() */
	/*
	 * Google Benchmark programs: their figures into each repetition
	 * (runner/launch/gbench_run.h); gb.mode set before the first run, the rest private
	 */
	struct pg_gb_launch gb;
};

#define PG_LIVE_FIRST_NS 2000000000ULL
#define PG_LIVE_EVERY_NS 2000000000ULL

/* Set l->phase (printf-style) and l->expect_ns for the runs that follow. */
void pg_launch_phase(struct pg_launch *l, uint64_t expect_ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "~12 s left" of @left_ns into @buf (n bytes), "" when under a second. */
const char *pg_eta(char *buf, size_t n, uint64_t left_ns);

/*
 * Run the command @cmd (NULL-terminated, borrowed) from now on: its leading NAME=value words
 * and `env NAME=value...` (runner/launch/resolve.h, pg_command_env()) go into the program's
 * environment, as a shell and env(1) would put them; l->argv is the rest. 0, or -EINVAL
 * (logged) when no program is left.
 */
int pg_launch_set_command(struct pg_launch *l, char **cmd);

/*
 * Choose whom the benchmark runs as (@user, NULL: the invoking user) and block the stop
 * signals: from here on SIGINT, SIGTERM and SIGHUP stop the recording cleanly. 0 or -errno
 * (logged); pg_launch_end() is due either way.
 */
int pg_launch_init(struct pg_launch *l, const char *user);

/*
 * Whether the benchmark gets the C++ exception fix: not with --no-exception-fix, nor when the
 * library is not found, nor (without --exception-fix) when no binary of @run is C++.
 */
void pg_launch_choose_fix(struct pg_launch *l, const struct pg_record_opts *o,
			  const struct pg_run *run);

/*
 * Turn the fix on for the loaded probes @p, once they are calibrated and before the
 * benchmark's first run. On failure it stays off, which the SIGABRT hint says.
 */
void pg_launch_excfix_open(struct pg_probes *p, const struct pg_launch *l);

/*
 * Run the command once as a fresh process tree traced in @p's maps (with p->sampler, if any,
 * sampling it) and wait for the whole tree; stop it on a stop signal or the timeout (then
 * l->timed_out) or when l->tick asks (then l->tick_stopped). Fills @rep's wall time and exit
 * status. 0; -EINTR after a stop signal (logged), -EIO when the sampler could not start, or -errno
 * when the command could not be started (logged).
 */
int pg_launch_run(struct pg_probes *p, struct pg_launch *l, struct pg_rep *rep);

/* Log that stop signal @sig ended the recording; -EINTR. */
int pg_launch_stopped_by(int sig);

/*
 * One progress line for repetition @i (0-based) unless opts.quiet; @nfuncs_called of the
 * run's functions were called; @left_ns: the estimated time the rest will take (0: none).
 */
void pg_launch_progress(const struct pg_record_opts *o, uint32_t i, const struct pg_rep *rep,
			size_t nfuncs_called, uint64_t left_ns);

/*
 * May the recording go on after repetition @i (0-based; with l->side, pair @i), @rep? 0; or,
 * without opts.allow_failure, -ETIME when it ran past the timeout and -ECHILD when the
 * benchmark failed (with a hint about C++ exceptions and @fix when SIGABRT killed it), logged.
 */
int pg_launch_verdict(const struct pg_record_opts *o, const struct pg_launch *l, uint32_t i,
		      const struct pg_rep *rep, const struct pg_excfix *fix);

/*
 * The end of a recording that ended with @err: a stop signal that came after the last
 * repetition still means no run file (-EINTR); restore the signals and free what @l owns.
 * Returns the recording's result.
 */
int pg_launch_end(struct pg_launch *l, int err);

#endif
