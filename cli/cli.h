/* SPDX-License-Identifier: MIT */
/*
 * cli/cli.h - perfgate's subcommands (bpftool style: each parses its own options).
 * Each returns the process exit code: 0 pass, 1 regression found, 2 perfgate could not do its
 * job (messages on stderr).
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#define PG_EXIT_OK 0
#define PG_EXIT_REGRESSION 1
#define PG_EXIT_ERROR 2

int do_record(int argc, char **argv);
int do_report(int argc, char **argv);
int do_compare(int argc, char **argv);
int do_vote(int argc, char **argv);
int do_merge(int argc, char **argv);
int do_folded(int argc, char **argv);
int do_flamegraph(int argc, char **argv);
int do_pprof(int argc, char **argv);

/*
 * The options perfgate folded, flamegraph and pprof share (cli/profile.c): RUN.json (or, where
 * two runs are allowed, BASE.json NEW.json), --rep N, -o/--output FILE, --title TEXT,
 * --keep-probe-frames, --offcpu.
 */
struct pg_profile_args {
	const char *run, *out, *title;
	const char *base;	/* BASE.json of two runs (then run is NEW.json), or NULL */
	long rep;		/* 0-based; -1: all */
	bool keep_probes;	/* leave perfgate's own frames unfolded (diff/probes.h) */
	bool offcpu;		/* the off-CPU stacks (counts in ns), not the sampled ones */
};
/* Parse them (@two_runs: BASE NEW is allowed too); -1 to go on, or the exit code (after
 * --help, or a logged error). */
int pg_profile_args_parse(int argc, char **argv, const char *usage, bool two_runs,
			  struct pg_profile_args *a);
/* Read a->run into @run and check it has repetition a->rep and sampled stacks (with
 * a->offcpu: off-CPU stacks, which then become the run's stacks, pg_run_offcpu_as_stacks());
 * fold perfgate's own frames (unless a->keep_probes). 0, or -1 after logging. */
struct pg_run;
int pg_profile_args_load(const struct pg_profile_args *a, struct pg_run *run);
/* The same for the run file @path (a->base, say). */
int pg_profile_load(const struct pg_profile_args *a, const char *path, struct pg_run *run);
/* Fold @run's probe frames (pg_run_fold_probes()); on failure say so, naming @what: -1. */
int pg_profile_fold_probes(struct pg_run *run, const char *what);
/* Load as above, then the stacks of repetition a->rep (or all, added up): *v (free with
 * pg_stacks_free()) and *n. 0, or -1 after logging. */
struct pg_stack;
int pg_profile_args_stacks(const struct pg_profile_args *a, struct pg_run *run,
			   struct pg_stack **v, size_t *n);
/* The --keep-probe-frames line of their usage texts */
#define PG_PROFILE_OFFCPU_HELP \
	"  --offcpu        the off-CPU stacks: where threads blocked, weighted by the\n" \
	"                  nanoseconds they were blocked (docs/sampling.md)\n"
#define PG_PROFILE_KEEP_PROBES_HELP \
	"  --keep-probe-frames  show the kernel frames of perfgate's probes, not one\n" \
	"                  '[perfgate probes]' frame (docs/sampling.md)\n"

/* Strict number parsing for options: 0, or -EINVAL after logging "invalid OPT 'TEXT': ...". */
int pg_parse_double(const char *opt, const char *text, double lo, double hi, double *out);
int pg_parse_u32(const char *opt, const char *text, unsigned int lo, unsigned int hi,
		 unsigned int *out);

#endif
