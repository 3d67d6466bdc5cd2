// SPDX-License-Identifier: MIT
/*
 * perfgate folded / perfgate flamegraph: the sampled profile of a run (docs/sampling.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../baseline/runfile.h"
#include "../core/atomic.h"
#include "../core/folded.h"
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
	struct pg_run run;
	int ret = parse_args(argc, argv, flamegraph_usage, &a);

	if (ret >= 0)
		return ret;
	if (!a.out) {
		pg_err("flamegraph: -o OUT.svg is required");
		return PG_EXIT_ERROR;
	}
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	if (!load(&a, &run) && !pg_flamegraph_write_run(&run, a.rep, a.title, a.out))
		ret = PG_EXIT_OK;
	pg_run_release(&run);
	return ret;
}
