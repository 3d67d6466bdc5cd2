/* SPDX-License-Identifier: MIT */
/*
 * runner/session/recorder.h - run a command N times under exact uprobe tracing (perfgate record).
 *
 * The only module that touches bpf/. Life of a recording, each step in its own file, driven by
 * pg_record() (recorder.c):
 *   1. select functions: [BINARY:]GLOB filters over the symbols of the executable and the
 *      named shared libraries (runner/select/select.h; runner/select/elfsyms.h,
 *      runner/launch/resolve.h);
 *   2. load the BPF object, size its maps, attach one uprobe_multi link per binary for entries
 *      and one for returns (raw BPF_LINK_CREATE: Debian's libbpf 1.1 has no API for it,
 *      runner/probes/uprobe_multi.h), or one link per probe where the kernel lacks uprobe_multi
 *      (runner/probes/probes.h); calibrate what a probe costs (runner/probes/calibrate.h); with
 *      --budget, run the benchmark unrecorded first and keep only the functions that fit
 *      (runner/session/budget_runs.h);
 *   3. for each repetition: clear the maps, start the command as a fresh process tree whose
 *      first pid is registered before exec, wait for the whole tree (perfgate is its child
 *      subreaper), then read and clear the per-CPU maps into one struct pg_rep
 *      (runner/launch/launch.h, runner/probes/maps.h);
 *   4. detach everything.
 * The steps are runner/session/session.h, which perfgate ab (runner/session/ab.h) drives too: one
 * session, one selection made on the base command, one calibration, two commands. Its BPF object
 * has one function table: the base's functions, then those of the new command's that are in other
 * files (a build in another directory), whose map slots are read back into the new run's ids.
 * When there are such functions, the object is loaded once more with both sides' probes after
 * the base's selection is final (as --budget's pilot attaches again after choosing), before the
 * first pair; the calibration of the first load stays (the same programs on the same machine).
 *
 * runner/ is one directory per subsystem; the header named with each lists its files' jobs:
 *   session/  the drivers that run the benchmark: record (here), ab, the sampled first pass,
 *             --budget's runs, a run's metadata, the reference spin (spin.h)
 *   select/   which functions are candidates: filters over the ELF symbol tables of the
 *             objects the processes ran (runner/select/select.h)
 *   budget/   which candidates survive --budget: pure decisions, no BPF
 *             (runner/budget/choose.h)
 *   probes/   the BPF side: the object, where a probe is attached, the maps read, what a probe
 *             costs, the C++ exception fix (runner/probes/probes.h)
 *   launch/   the benchmark's processes: started, waited for, stopped, as which user, from
 *             which files (runner/launch/launch.h)
 *   profile/  sampled stacks: taken, unwound, a sample's address made a frame name, machine
 *             code digested (runner/profile/sampler.h)
 * select/ and budget/ include nothing of BPF, libbpf or a skeleton (tests/check-layers.sh): the
 * choice of functions is made on ELF files, stacks and counts alone.
 *
 * Files of runner/session/:
 *   recorder.c/.h     perfgate record: its options and pg_record(), the session's steps
 *   session.h         the steps record and ab share (begin, arm, once, end; in recorder.c)
 *   ab.c/.h           perfgate ab: two commands in one interleaved session
 *   discover.c/.h     the sampled first pass: what the processes run, before anything is chosen
 *   budget_runs.c/.h  --budget's runs: the first pass's verdict, the pilot, the guard; their
 *                     decisions are runner/budget/'s
 *   meta.c/.h         a run's metadata: the machine, the working directory, the options
 *   libs.c/.h         the shared libraries the processes loaded: build-ids, Debian packages
 */
#ifndef PG_RECORD_H
#define PG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"

#define PG_DEFAULT_REPETITIONS 10
#define PG_DEFAULT_MAX_FUNCS 2000
/* --budget without -f, --functions-of or --all-functions (docs/measurement.md) */
#define PG_DEFAULT_BUDGET_PCT 5.0

struct pg_record_opts {
	char **argv;		/* the command, NULL-terminated */
	size_t argc;
	uint32_t repetitions;
	char **filters;		/* -f [BINARY:]GLOB */
	size_t nfilters;
	char **excludes;	/* -x [BINARY:]GLOB */
	size_t nexcludes;
	uint32_t max_funcs;	/* cap on the default selection (no -f) */
	bool single_attach;	/* one link per probe even where uprobe_multi exists */
	bool allow_failure;	/* keep going when the command exits non-zero */
	bool quiet;		/* no progress lines */
	double budget_pct;	/* --budget: keep the estimated probe cost under this % of the
				 * benchmark's own time, choosing functions after a pilot run;
				 * 0 = trace everything selected */
	bool default_budget;	/* budget_pct is the default, not --budget (said so) */
	uint32_t sample_hz;	/* -F: cpu-clock samples per second, 0 = no profile */
	bool auto_hz;		/* no -F: sample_hz is the default, chosen again from --budget's
				 * sampled first pass when there is one
				 * (runner/session/budget_runs.h) */
	uint64_t timeout_ms;	/* --timeout: stop a repetition running longer, 0 = none */
	const char *user;	/* --user: run the benchmark as this user (runner/launch/privs.h) */
	bool no_exception_fix;	/* --no-exception-fix: no preload library, no published return
				 * addresses (runner/probes/excfix.h) */
	bool exception_fix;	/* --exception-fix: the fix even when no traced binary is C++ */
	bool no_offcpu;		/* --no-offcpu: no context-switch hooks (no off-CPU time per
				 * function, threads or off-CPU stacks) */
	bool offcpu_stacks;	/* --offcpu-stacks: with the sampler, also off-CPU stacks (a
				 * sys_exit hook: every system call on the machine pays for it
				 * while the recording runs, docs/sampling.md) */
	/*
	 * --functions-of FILE: trace the functions of this run (borrowed), no -f/-x/--budget.
	 * Each is found by its symbol name in the binary of the same base name (the executable,
	 * or a library as -f BIN: finds it); one missing from the binaries is warned about.
	 */
	const struct pg_run *functions_of;
	const char *functions_of_path;	/* FILE, as given: recorded in the run's meta */
	bool functions_of_base;	/* perfgate ab's new side: functions_of is the base side's run,
				 * not an option the user gave (what the messages call it) */
	int gbench;		/* enum pg_gb_mode (runner/launch/gbench_run.h): --gbench,
				 * --no-gbench */
};

/*
 * Record into @run (initialised). 0, or a negative errno after logging why: -EINTR when
 * SIGINT, SIGTERM or SIGHUP stopped the recording (the benchmark's tree was stopped and the
 * probes detached), -ETIME when a repetition ran past opts.timeout_ms, -ECHILD when the
 * benchmark failed (both unless opts.allow_failure).
 */
int pg_record(const struct pg_record_opts *opts, struct pg_run *run);

#endif
