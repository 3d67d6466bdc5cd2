// SPDX-License-Identifier: MIT
/*
 * perfgate folded / perfgate flamegraph: the sampled profile of a run (docs/sampling.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/runfile.h"
#include "../core/atomic.h"
#include "../formats/folded.h"
#include "../core/log.h"
#include "../diff/flamediff.h"
#include "../reporters/flamegraph.h"
#include "cli.h"

static const char folded_usage[] =
	"usage: perfgate folded RUN.json [--rep N] [-o FILE]\n"
	"\n"
	"Print the sampled stacks of a run as folded text, one stack a line, root first:\n"
	"'main;parse;lex 123'. flamegraph.pl, inferno and speedscope read it.\n"
	"\n"
	"  --rep N         only repetition N (1 = the first); default all, added up\n"
	"  -o, --output F  write to F (atomically) instead of stdout\n";

static const char flamegraph_usage[] =
	"usage: perfgate flamegraph RUN.json -o OUT.svg [--rep N] [--title TEXT]\n"
	"\n"
	"Write an interactive SVG flame graph of the run's sampled profile: hover for details,\n"
	"click to zoom, Ctrl-F (or Search) to highlight frames. Works offline in a browser.\n"
	"\n"
	"  -o, --output F  the SVG file to write (atomically)\n"
	"  --rep N         only repetition N (1 = the first); default all\n"
	"  --title TEXT    the heading (default: the benchmark command)\n";

struct profile_args {
	const char *run, *out, *title;
	long rep;		/* -1: all */
};

/* Parse the shared options; returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, const char *usage, struct profile_args *a)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rep", required_argument, NULL, 'r' },
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int rep;
	int c;

	memset(a, 0, sizeof(*a));
	a->rep = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'r':
			if (pg_parse_u32("--rep", optarg, 1, 1000000000, &rep))
				return PG_EXIT_ERROR;
			a->rep = (long)rep - 1;
			break;
		case 't':
			a->title = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return PG_EXIT_OK;
		default:
			fputs(usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		pg_err("%s: expected one run file", argv[0]);
		fputs(usage, stderr);
		return PG_EXIT_ERROR;
	}
	a->run = argv[optind];
	return -1;
}

/* Read the run and check it has what was asked for. */
static int load(const struct profile_args *a, struct pg_run *run)
{
	size_t n = 0;

	if (pg_runfile_read(a->run, run))
		return -1;
	if (a->rep >= 0 && (size_t)a->rep >= run->nreps) {
		pg_err("%s has %zu repetitions: there is no repetition %ld", a->run, run->nreps,
		       a->rep + 1);
		return -1;
	}
	for (size_t r = 0; r < run->nreps; r++)
		n += run->reps[r].nstacks;
	if (!n) {
		pg_err("%s has no sampled stacks (%s)", a->run, run->meta.sample_hz ?
		       "the benchmark was too short to be sampled: raise -F or its run time" :
		       "it was recorded with --no-sample or by an older perfgate");
		return -1;
	}
	return 0;
}

int do_folded(int argc, char **argv)
{
	struct profile_args a;
	struct pg_stack *v = NULL;
	struct pg_atomic at;
	struct pg_run run;
	size_t n = 0;
	int ret = parse_args(argc, argv, folded_usage, &a);
	FILE *f = stdout;

	if (ret >= 0)
		return ret;
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	if (load(&a, &run))
		goto cleanup;
	if (pg_stacks_merge(&run, a.rep, &v, &n)) {
		pg_err("%s: cannot merge the stacks: out of memory or a count overflow", a.run);
		goto cleanup;
	}
	if (a.out) {
		f = pg_atomic_open(&at, a.out);
		if (!f)
			goto cleanup;
	}
	if (pg_folded_write(f, v, n) || fflush(f)) {
		pg_err("cannot write the folded stacks");
		if (a.out)
			pg_atomic_abort(&at);
		goto cleanup;
	}
	if (a.out && pg_atomic_commit(&at))
		goto cleanup;
	ret = PG_EXIT_OK;
cleanup:
	pg_stacks_free(v, n);
	pg_run_release(&run);
	return ret;
}

int do_flamegraph(int argc, char **argv)
{
	struct profile_args a;
	struct pg_flame fl;
	struct pg_run run;
	char title[256];
	int ret = parse_args(argc, argv, flamegraph_usage, &a);

	if (ret >= 0)
		return ret;
	if (!a.out) {
		pg_err("flamegraph: -o OUT.svg is required");
		return PG_EXIT_ERROR;
	}
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	pg_flame_init(&fl);
	if (load(&a, &run))
		goto cleanup;
	if (pg_flame_build(&run, a.rep, &fl)) {
		pg_err("cannot build the flame graph: out of memory");
		goto cleanup;
	}
	if (!a.title) {
		snprintf(title, sizeof(title), "%s", run.meta.argc ? run.meta.argv[0] : "perfgate");
		for (size_t i = 1; i < run.meta.argc && strlen(title) < 200; i++)
			snprintf(title + strlen(title), sizeof(title) - strlen(title), " %s",
				 run.meta.argv[i]);
		a.title = title;
	}
	if (pg_flamegraph_write(&fl, &run, a.title, a.out))
		goto cleanup;
	ret = PG_EXIT_OK;
cleanup:
	pg_flame_release(&fl);
	pg_run_release(&run);
	return ret;
}

int pg_cli_diff_flamegraph(const struct pg_run *base, const struct pg_run *new, int metric,
			   double alpha, const char *path)
{
	struct pg_flame fl;
	char why[256] = "", title[256];
	int err;

	pg_flame_init(&fl);
	err = pg_flame_diff(base, new, (enum pg_flame_metric)metric, alpha, &fl, why,
			    sizeof(why));
	if (err) {
		pg_err("--flamegraph %s: %s", path, err == -EINVAL && why[0] ? why :
		       "out of memory");
		return err;
	}
	if (base->meta.git_commit && new->meta.git_commit &&
	    strcmp(base->meta.git_commit, new->meta.git_commit))
		snprintf(title, sizeof(title), "perfgate: BASE %.12s -> NEW %.12s",
			 base->meta.git_commit, new->meta.git_commit);
	else
		snprintf(title, sizeof(title), "perfgate: differential flame graph (BASE -> NEW)");
	err = pg_flamegraph_write(&fl, new, title, path);
	pg_flame_release(&fl);
	return err;
}
