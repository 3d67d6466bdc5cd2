// SPDX-License-Identifier: MIT
/*
 * perfgate pprof: the sampled stacks of a run as a gzipped pprof profile (docs/sampling.md).
 */
#include <stdio.h>

#include "../core/log.h"
#include "../formats/folded.h"	/* pg_stacks_free() */
#include "../formats/pprof.h"
#include "cli.h"

static const char pprof_usage[] =
	"usage: perfgate pprof RUN.json -o FILE.pb.gz [--rep N] [--offcpu] [--keep-probe-frames]\n"
	"\n"
	"Write the sampled stacks of a run as a gzipped pprof profile (profile.proto), with\n"
	"sample types samples/count and cpu/nanoseconds: go tool pprof, Parca, Grafana Pyroscope\n"
	"and speedscope read it. With --offcpu: the off-CPU stacks, sample type\n"
	"offcpu/nanoseconds.\n"
	"\n"
	"  -o, --output F  write to F (atomically); required\n"
	"  --rep N         only repetition N (1 = the first); default all, added up\n"
	PG_PROFILE_OFFCPU_HELP
	PG_PROFILE_KEEP_PROBES_HELP;

int do_pprof(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_PROFILE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_profile_args a;
	struct pg_stack *v = NULL;
	struct pg_run run;
	size_t n = 0;
	int ret = pg_profile_args_parse(argc, argv, pprof_usage, longopts, false, &a);

	if (ret >= 0)
		return ret;
	if (!a.out || a.title) {
		pg_err("%s: %s", argv[0], a.title ? "--title does not apply to a pprof profile" :
		       "-o FILE.pb.gz is required (the profile is binary)");
		fputs(pprof_usage, stderr);
		return PG_EXIT_ERROR;
	}
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	if (pg_profile_args_stacks(&a, &run, &v, &n))
		goto cleanup;
	if (!pg_pprof_write(a.out, &run, v, n, a.offcpu))
		ret = PG_EXIT_OK;
cleanup:
	pg_stacks_free(v, n);
	pg_run_release(&run);
	return ret;
}
