/* SPDX-License-Identifier: MIT */
/*
 * runner/launch/gbench_run.h - Google Benchmark programs under perfgate record and ab
 * (docs/gbench.md): recognising one, getting its own JSON figures out of every repetition, and
 * keeping its console output out of perfgate's.
 *
 * Recognition (pg_gb_detect()): the executable of the command (found on PATH, after `env`
 * and its VAR=value words) links benchmark::RunSpecifiedBenchmarks, statically (a symbol of
 * that name) or through libbenchmark (DT_NEEDED). record and ab --gbench force it, --no-gbench
 * turns it off.
 *
 * How the figures come out: through Google Benchmark's environment variables, which it reads
 * as the defaults of its flags (BENCHMARK_OUT, BENCHMARK_OUT_FORMAT; Debian 12's 1.7.1 does):
 * BENCHMARK_OUT names an anonymous file (a memfd, /dev/fd/N) perfgate reads after each
 * repetition. Nothing is added to argv, which the program may not hand to Google Benchmark at
 * all (a program that takes its own arguments). The user's own --benchmark_* arguments win over
 * the environment as ever; when the command line (its arguments, its own NAME=value words, or
 * perfgate's environment) names its own --benchmark_out / BENCHMARK_OUT, that file is read
 * instead.
 *
 * The benchmark's standard output (its console table) goes to /dev/null and its standard error
 * into an anonymous file, shown when the repetition fails; with -v both go to perfgate's
 * standard error.
 *
 * Life cycle and ownership (one per struct pg_launch, runner/launch/launch.h): zeroed with the mode
 * set; pg_gb_launch_before() before each fork (it recognises a command once per argv),
 * pg_gb_launch_child() in the child before exec, pg_gb_launch_after() once the tree exited,
 * pg_gb_launch_release() at the end.
 */
#ifndef PG_RUNNER_GBENCH_H
#define PG_RUNNER_GBENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/run.h"

enum pg_gb_mode {
	PG_GB_AUTO = 0,		/* recognise the program */
	PG_GB_FORCE,		/* --gbench */
	PG_GB_OFF,		/* --no-gbench */
};

/* A repetition that ran this long and this many benchmarks is warned about (sizing) */
#define PG_GB_LONG_REP_NS (5ULL * 1000000000ULL)
#define PG_GB_LONG_REP_BENCHMARKS 5

/* One command as recognised (perfgate ab runs two) */
struct pg_gb_cmd {
	char **argv;		/* borrowed; compared by pointer; NULL: a free slot */
	bool on;		/* its repetitions are read */
	char *user_out;		/* the user's own output file, or NULL: ours */
};

struct pg_gb_launch {
	enum pg_gb_mode mode;
	struct pg_gb_cmd cmds[2];
	struct pg_gb_cmd *cur;	/* the command of the repetition under way, or NULL */
	bool ready;		/* the descriptors below are set */
	int out_fd;		/* our output file (memfd), or -1 */
	int err_fd;		/* the benchmark's standard error (memfd), or -1 */
	bool warned_none;	/* said that a repetition wrote no output */
	bool warned_long;	/* said that repetitions run long */
	bool said_median;	/* said that in-process repetitions are pooled */
};

/*
 * Does the ELF file @path link benchmark::RunSpecifiedBenchmarks (statically or through
 * libbenchmark)? 1 yes, 0 no, -errno when it cannot be read.
 */
int pg_gb_detect(const char *path);
/*
 * The executable a command runs: argv[0] found on PATH, or with `env` the command after its
 * options and VAR=value words (malloc'd, NULL when not found).
 */
char *pg_gb_command_exe(char *const *argv);

/*
 * Ready to run @argv once: recognise it (once per argv), an empty output file. @assign[0..n):
 * the command's own NAME=value words (runner/launch/resolve.h), which the program gets over
 * perfgate's environment: a BENCHMARK_OUT there is the user's output too. 0 or -errno.
 */
int pg_gb_launch_before(struct pg_gb_launch *g, char **argv, char *const *assign, size_t n);
/*
 * In the forked child: the environment @envp with Google Benchmark's output variables set
 * (a new array, or @envp when off or out of memory), standard output and error redirected.
 */
char **pg_gb_launch_child(const struct pg_gb_launch *g, char **envp);
/*
 * After the repetition @rep exited: its figures into rep->bench; what went to its standard
 * error shown when it failed. A repetition without readable figures keeps none (warned once).
 * @stopped: perfgate stopped it (timeout, the budget's pilot): nothing read, nothing said.
 * 0 or -ENOMEM.
 */
int pg_gb_launch_after(struct pg_gb_launch *g, struct pg_rep *rep, bool stopped);
void pg_gb_launch_release(struct pg_gb_launch *g);

#endif
