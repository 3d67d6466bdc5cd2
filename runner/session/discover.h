/* SPDX-License-Identifier: MIT */
/*
 * runner/session/discover.h - the sampled first pass: what the benchmark's processes really run,
 * found by running it, before anything is chosen (step 1 of runner/session/recorder.h).
 *
 * The command runs unrecorded, sampled at PG_DISCOVER_HZ with no probe, until it has
 * PG_DISCOVER_WANT samples (at most PG_DISCOVER_RUNS runs, and after the first while it has run
 * under PG_DISCOVER_NS in all). The sampler follows the process tree through fork and exec, so
 * a wrapper script, `env`, `sh -c` or a test runner in front of the program changes nothing:
 * the pass yields the objects the processes mapped with the samples each holds as its own
 * (runner/select/objects.h), and the folded stacks (runner/budget/stack_gain.h) that weigh each
 * function. Selection (runner/select/select.h) takes its candidates, and resolves library names,
 * from it.
 *
 * Life cycle and ownership: zero-initialise (PG_DISCOVERY_INIT), pg_discover(),
 * pg_discovery_release(). The struct owns its coverage and objects.
 */
#ifndef PG_DISCOVER_H
#define PG_DISCOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/run.h"
#include "../budget/choose.h"
#include "../budget/stack_gain.h"
#include "../launch/launch.h"
#include "../select/objects.h"
#include "recorder.h"

#define PG_DISCOVER_HZ PG_FIRST_PASS_HZ
#define PG_DISCOVER_WANT 6000
#define PG_DISCOVER_RUNS 50
#define PG_DISCOVER_NS 5000000000ULL
/* fewer samples than this cannot tell where the time goes: the program's own functions are
 * the candidates then (a benchmark of a few ms, run 50 times) */
#define PG_DISCOVER_MIN_SAMPLES 50

struct pg_discovery {
	struct pg_coverage cov;	/* the runs' on-CPU stacks */
	struct pg_objects objs;	/* what the sampled processes mapped */
	uint64_t wall_ns;	/* the fastest complete run (the benchmark's own time), or 0 */
	uint64_t samples;	/* taken over all runs */
	uint64_t unsure;	/* of them with unknown frames or cut short */
	int runs;
	bool done;		/* the pass ran with a working sampler */
};

#define PG_DISCOVERY_INIT { .cov = PG_COVERAGE_INIT, .objs = PG_OBJECTS_INIT }

/* Is @path an ELF file (by its magic)? */
bool pg_is_elf(const char *path);

/*
 * Whether a recording as @o asks needs the pass before choosing: a budget (which weighs by
 * it; not with --no-sample), a command that is not an ELF executable (a script, `env`), a
 * -f/-x that names a library by its name (a path names its file), or --functions-of.
 */
bool pg_discovery_needed(const struct pg_record_opts *o, const char *argv0);

/*
 * Run the pass for l->argv (before the probes are attached and capabilities dropped). When
 * sampling cannot work here, d->done stays false and a warning says so; 0. Else 0 or -errno
 * (logged): -ETIME or -ECHILD when a run failed without --allow-failure, -EINTR after a stop
 * signal.
 */
int pg_discover(const struct pg_record_opts *o, struct pg_launch *l, struct pg_discovery *d);

void pg_discovery_release(struct pg_discovery *d);

/*
 * The program the processes ran: @named (the executable the command names, canonical, may be
 * NULL) when a sampled process ran it, else the program of the processes that took the most
 * samples; NULL when the pass did not run or saw none.
 */
const struct pg_object *pg_discovery_program(const struct pg_discovery *d, const char *named);

/*
 * Say what the pass found when it is not what @argv0 names: the program a wrapper ran.
 * @side: "" or "the new side: ".
 */
void pg_discovery_explain(const struct pg_discovery *d, const char *argv0, const char *side,
			  bool quiet);

/*
 * Did the unrecorded run @what (the sampled first pass, the --budget pilot) fail, without
 * --allow-failure? One message (naming perfgate ab's side, l->side, and its program) and
 * -ETIME (--timeout ended it) or -ECHILD; else 0.
 */
int pg_unrecorded_run_failed(const struct pg_record_opts *o, const struct pg_launch *l,
			     const char *what, const struct pg_rep *rep, bool timed_out);

#endif
