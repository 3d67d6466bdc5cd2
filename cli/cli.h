/* SPDX-License-Identifier: MIT */
/*
 * cli/cli.h - perfgate's subcommands (bpftool style: each parses its own options).
 * Each returns the process exit code: 0 pass, 1 regression found, 2 perfgate could not do its
 * job (messages on stderr).
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"
#include "../reporters/flamegraph.h"
#include "../reporters/github.h"
#include "../runner/session/recorder.h"

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
int do_ab(int argc, char **argv);
int do_history(int argc, char **argv);

/* perfgate history plot (cli/history_plot.c), prune and last (cli/history_prune.c) */
int pg_history_plot(int argc, char **argv);
int pg_history_prune(int argc, char **argv);
int pg_history_last(int argc, char **argv);
/* --wait SECONDS as ms, --expect-generation N (history add and prune): 0 or -EINVAL, logged */
int pg_history_parse_wait(const char *arg, int *ms);
int pg_history_parse_generation(const char *arg, int64_t *gen);
/* "2026-11-21T10:22:22Z", "...T10:22:22.5+01:00" or without a zone (UTC) as UTC to the
 * second, "2026-11-21T10:22:22Z", into out[0..len): 0 or -EINVAL, logged */
int pg_history_time(const char *s, char *out, size_t len);

/*
 * The options the history commands share (cli/cmd_history.c): --db and --branch (all), and
 * --metric self|total|cpu and --min-effect PCT (changes and plot; check takes compare's).
 * A command hands each option to pg_history_args_opt(): 0 taken, 1 not one of these, -1
 * invalid (logged).
 */
enum { PG_HOPT_DB = 0x400, PG_HOPT_BRANCH, PG_HOPT_FIRST_FREE };
#define PG_HISTORY_LONGOPTS \
	{ "db", required_argument, NULL, PG_HOPT_DB }, \
	{ "branch", required_argument, NULL, PG_HOPT_BRANCH }
struct pg_history_args {
	const char *db;		/* default PG_HSTORE_DEFAULT */
	const char *branch;	/* NULL: all */
	int metric;		/* enum pg_hmetric, default self */
	double min_effect;	/* relative, default 0.05 */
};
void pg_history_args_init(struct pg_history_args *h);
int pg_history_args_opt(struct pg_history_args *h, int c, const char *arg);

/*
 * The options perfgate folded, flamegraph and pprof share (cli/profile.c): RUN.json (or, where
 * two runs are allowed, BASE.json NEW.json), --rep N, -o/--output FILE, --keep-probe-frames,
 * --offcpu; flamegraph also --title TEXT. Each command's table is PG_PROFILE_LONGOPTS and its
 * own, ending with { "help" } and the zero entry.
 */
#define PG_PROFILE_LONGOPTS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "rep", required_argument, NULL, 'r' }, \
	{ "keep-probe-frames", no_argument, NULL, 'k' }, \
	{ "offcpu", no_argument, NULL, 'c' }
struct pg_profile_args {
	const char *run, *out, *title;
	const char *base;	/* BASE.json of two runs (then run is NEW.json), or NULL */
	long rep;		/* 0-based; -1: all */
	bool keep_probes;	/* leave perfgate's own frames unfolded (diff/probeframes.h) */
	bool offcpu;		/* the off-CPU stacks (counts in ns), not the sampled ones */
};
/* Parse them with the command's table @longopts (@two_runs: BASE NEW is allowed too); -1 to
 * go on, or the exit code (after --help, or a logged error). */
int pg_profile_args_parse(int argc, char **argv, const char *usage,
			  const struct option *longopts, bool two_runs, struct pg_profile_args *a);
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

/*
 * The recording options perfgate record and perfgate ab share (cli/record_args.c): -r, -f, -x,
 * --max-funcs, --all-functions, --budget, --functions-of, --allow-failure, --single-attach,
 * -F, --no-sample, --timeout, --user, --no-exception-fix, --exception-fix, --no-offcpu,
 * --offcpu-stacks, --gbench, --no-gbench, -q.
 * A command puts PG_RECORD_SHORTOPTS into its getopt string and PG_RECORD_LONGOPTS into its
 * table, hands each option to pg_record_args_opt(), then calls pg_record_args_finish() once.
 * Owns the filter vectors and --functions-of's run; pg_record_args_release() frees them.
 */
enum {
	PG_ROPT_MAX_FUNCS = 0x100, PG_ROPT_ALL_FUNCTIONS, PG_ROPT_BUDGET, PG_ROPT_FUNCTIONS_OF,
	PG_ROPT_ALLOW_FAILURE, PG_ROPT_SINGLE_ATTACH, PG_ROPT_NO_SAMPLE, PG_ROPT_TIMEOUT,
	PG_ROPT_USER, PG_ROPT_NO_EXCEPTION_FIX, PG_ROPT_EXCEPTION_FIX, PG_ROPT_NO_OFFCPU,
	PG_ROPT_OFFCPU_STACKS, PG_ROPT_GBENCH, PG_ROPT_NO_GBENCH,
};
#define PG_RECORD_SHORTOPTS "r:f:x:F:q"
#define PG_RECORD_LONGOPTS \
	{ "repetitions", required_argument, NULL, 'r' }, \
	{ "function", required_argument, NULL, 'f' }, \
	{ "exclude", required_argument, NULL, 'x' }, \
	{ "max-funcs", required_argument, NULL, PG_ROPT_MAX_FUNCS }, \
	{ "all-functions", no_argument, NULL, PG_ROPT_ALL_FUNCTIONS }, \
	{ "allow-failure", no_argument, NULL, PG_ROPT_ALLOW_FAILURE }, \
	{ "budget", required_argument, NULL, PG_ROPT_BUDGET }, \
	{ "functions-of", required_argument, NULL, PG_ROPT_FUNCTIONS_OF }, \
	{ "single-attach", no_argument, NULL, PG_ROPT_SINGLE_ATTACH }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "frequency", required_argument, NULL, 'F' }, \
	{ "no-sample", no_argument, NULL, PG_ROPT_NO_SAMPLE }, \
	{ "timeout", required_argument, NULL, PG_ROPT_TIMEOUT }, \
	{ "user", required_argument, NULL, PG_ROPT_USER }, \
	{ "no-exception-fix", no_argument, NULL, PG_ROPT_NO_EXCEPTION_FIX }, \
	{ "exception-fix", no_argument, NULL, PG_ROPT_EXCEPTION_FIX }, \
	{ "no-offcpu", no_argument, NULL, PG_ROPT_NO_OFFCPU }, \
	{ "offcpu-stacks", no_argument, NULL, PG_ROPT_OFFCPU_STACKS }, \
	{ "gbench", no_argument, NULL, PG_ROPT_GBENCH }, \
	{ "no-gbench", no_argument, NULL, PG_ROPT_NO_GBENCH }

struct pg_record_args {
	struct pg_record_opts o;
	struct pg_run of;		/* --functions-of's run, once read */
	const char *of_path;
	bool no_sample, max_funcs_set, all_functions;
};
void pg_record_args_init(struct pg_record_args *a);
/* Option @c with @arg: 0 taken, 1 not a recording option, -1 invalid (logged). */
int pg_record_args_opt(struct pg_record_args *a, int c, const char *arg);
/* The defaults and the checks of the options together; --functions-of's run read. 0 or -1
 * (logged, naming @cmd). */
int pg_record_args_finish(struct pg_record_args *a, const char *cmd);
void pg_record_args_release(struct pg_record_args *a);

/*
 * The comparison options and outputs perfgate compare and perfgate ab share
 * (cli/compare_args.c): --alpha, --min-effect, --min-impact, --metric, --min-reps, --raw,
 * --no-speed-correction, --junit, --codequality, --repo-root, --json, --markdown, --artifact,
 * --flamegraph, --flame-color, --keep-probe-frames, --all, --strict; used as the recording
 * options above. Owns the CI outputs' state.
 */
enum {
	PG_COPT_ALPHA = 0x200, PG_COPT_MIN_EFFECT, PG_COPT_MIN_IMPACT, PG_COPT_METRIC,
	PG_COPT_MIN_REPS, PG_COPT_JUNIT, PG_COPT_JSON, PG_COPT_MARKDOWN, PG_COPT_ARTIFACT,
	PG_COPT_ALL, PG_COPT_STRICT, PG_COPT_RAW, PG_COPT_FLAMEGRAPH, PG_COPT_FLAME_COLOR,
	PG_COPT_KEEP_PROBES, PG_COPT_NO_SPEED, PG_COPT_CODEQUALITY, PG_COPT_REPO_ROOT,
};
#define PG_COMPARE_LONGOPTS \
	{ "alpha", required_argument, NULL, PG_COPT_ALPHA }, \
	{ "min-effect", required_argument, NULL, PG_COPT_MIN_EFFECT }, \
	{ "min-impact", required_argument, NULL, PG_COPT_MIN_IMPACT }, \
	{ "metric", required_argument, NULL, PG_COPT_METRIC }, \
	{ "min-reps", required_argument, NULL, PG_COPT_MIN_REPS }, \
	{ "junit", required_argument, NULL, PG_COPT_JUNIT }, \
	{ "codequality", required_argument, NULL, PG_COPT_CODEQUALITY }, \
	{ "repo-root", required_argument, NULL, PG_COPT_REPO_ROOT }, \
	{ "json", required_argument, NULL, PG_COPT_JSON }, \
	{ "markdown", required_argument, NULL, PG_COPT_MARKDOWN }, \
	{ "artifact", required_argument, NULL, PG_COPT_ARTIFACT }, \
	{ "all", no_argument, NULL, PG_COPT_ALL }, \
	{ "strict", no_argument, NULL, PG_COPT_STRICT }, \
	{ "raw", no_argument, NULL, PG_COPT_RAW }, \
	{ "no-speed-correction", no_argument, NULL, PG_COPT_NO_SPEED }, \
	{ "flamegraph", required_argument, NULL, PG_COPT_FLAMEGRAPH }, \
	{ "flame-color", required_argument, NULL, PG_COPT_FLAME_COLOR }, \
	{ "keep-probe-frames", no_argument, NULL, PG_COPT_KEEP_PROBES }

struct pg_compare_args {
	struct pg_compare_opts opts;
	const char *junit, *json, *markdown, *flame, *codequality;
	const char *repo_root;	/* --repo-root, or NULL: pg_repo_root()'s default */
	enum pg_flame_metric flame_metric;
	struct pg_ci_out ci;
	bool all, strict, keep_probes;
	bool min_effect_given;	/* --min-effect was given (else a paired default may apply) */
	bool min_impact_given;	/* --min-impact was given (likewise) */
};
void pg_compare_args_init(struct pg_compare_args *a);
/* As pg_record_args_opt(). */
int pg_compare_args_opt(struct pg_compare_args *a, int c, const char *arg);
/* The runs are the two sides of one perfgate ab session: the paired defaults of the minimum
 * effect and impact (diff/paired.h) where the user gave none. */
void pg_compare_args_paired(struct pg_compare_args *a);
/*
 * After the comparison @cmp of @base and @new: its warnings, the files asked for (JUnit,
 * JSON, flame graph, Markdown and GitHub outputs; @base and @new may have their probe frames
 * folded for the flame graph), the text report on stdout. Returns the exit code: 0 pass, 1
 * regression, 2 when a file could not be written, or inconclusive or different commands as
 * compare decides (docs/statistics.md).
 */
int pg_compare_args_emit(struct pg_compare_args *a, const struct pg_comparison *cmp,
			 struct pg_run *base, struct pg_run *new);
void pg_compare_args_release(struct pg_compare_args *a);

/*
 * The repository root that source paths in reports are made relative to (the JUnit file
 * attributes, Code Quality and GitHub check-run annotations): @given, else the top of the git
 * work tree of the current directory, else $GITHUB_WORKSPACE, else $CI_PROJECT_DIR (GitLab),
 * else the current directory; canonical (realpath), to match the absolute paths DWARF gives.
 * malloc'd; NULL only when out of memory or no directory can be named.
 */
char *pg_repo_root(const char *given);

/* Strict number parsing for options: 0, or -EINVAL after logging "invalid OPT 'TEXT': ...". */
int pg_parse_double(const char *opt, const char *text, double lo, double hi, double *out);
int pg_parse_u32(const char *opt, const char *text, unsigned int lo, unsigned int hi,
		 unsigned int *out);

#endif
