// SPDX-License-Identifier: MIT
/*
 * cli/profile.c - what perfgate folded (cmd_folded.c), perfgate flamegraph
 * (cmd_flamegraph.c) and perfgate pprof (cmd_pprof.c) share: their options, RUN.json [--rep N]
 * [-o FILE] [--keep-probe-frames] [--offcpu] (and flamegraph's --title), and the checks of the
 * run they read (see cli.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../formats/folded.h"
#include "../formats/runfile.h"
#include "../core/log.h"
#include "../core/numfmt.h"
#include "../diff/probeframes.h"
#include "cli.h"

int pg_profile_args_parse(int argc, char **argv, const char *usage,
			  const struct option *longopts, bool two_runs, struct pg_profile_args *a)
{
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
		case 'k':
			a->keep_probes = true;
			break;
		case 'c':
			a->offcpu = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return PG_EXIT_OK;
		default:
			fputs(usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (argc - optind != 1 && (!two_runs || argc - optind != 2)) {
		pg_err("%s: expected %s", argv[0], two_runs ? "one run file, or two (BASE NEW)" :
		       "one run file");
		fputs(usage, stderr);
		return PG_EXIT_ERROR;
	}
	if (argc - optind == 2)
		a->base = argv[optind++];
	a->run = argv[optind];
	return -1;
}

int pg_profile_fold_probes(struct pg_run *run, const char *what)
{
	if (!pg_run_fold_probes(run))
		return 0;
	pg_err("%s: cannot fold perfgate's probe frames: out of memory or a count overflow", what);
	return -1;
}

int pg_profile_load(const struct pg_profile_args *a, const char *path, struct pg_run *run)
{
	size_t n = 0;

	if (pg_runfile_read(path, run))
		return -1;
	if (a->rep >= 0 && (size_t)a->rep >= run->nreps) {
		pg_err("%s has %zu repetition%s: there is no repetition %ld", path, run->nreps,
		       pg_plural(run->nreps), a->rep + 1);
		return -1;
	}
	if (a->offcpu) {
		if (!pg_run_noffcpu(run)) {
			pg_err("%s has no off-CPU stacks (%s)", path, run->meta.sample_hz ?
			       "record with --offcpu-stacks to take them; or no thread ever "
			       "blocked" : "recorded with --no-sample: off-CPU stacks come "
			       "with the sampled profile");
			return -1;
		}
		if (pg_run_offcpu_as_stacks(run)) {
			pg_err("%s: the off-CPU time of a repetition overflows 64 bits", path);
			return -1;
		}
	}
	for (size_t r = 0; r < run->nreps; r++)
		n += run->reps[r].nstacks;
	if (!n) {
		pg_err("%s has no sampled stacks (%s)", path, run->meta.sample_hz ?
		       "the benchmark was too short to be sampled: raise -F or its run time" :
		       "it was recorded with --no-sample or by an older perfgate");
		return -1;
	}
	return a->keep_probes ? 0 : pg_profile_fold_probes(run, path);
}

int pg_profile_args_load(const struct pg_profile_args *a, struct pg_run *run)
{
	return pg_profile_load(a, a->run, run);
}

int pg_profile_args_stacks(const struct pg_profile_args *a, struct pg_run *run,
			   struct pg_stack **v, size_t *n)
{
	if (pg_profile_args_load(a, run))
		return -1;
	if (pg_stacks_merge(run, a->rep, v, n)) {
		pg_err("%s: cannot merge the stacks: out of memory or a count overflow", a->run);
		return -1;
	}
	return 0;
}
