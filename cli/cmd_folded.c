// SPDX-License-Identifier: MIT
/*
 * perfgate folded: the sampled stacks of a run as folded text, or with --offcpu its off-CPU
 * stacks, weighted in nanoseconds (docs/sampling.md).
 */
#include <stdio.h>

#include "../core/atomic.h"
#include "../formats/folded.h"
#include "../core/log.h"
#include "cli.h"

static const char folded_usage[] =
	"usage: perfgate folded RUN.json [--rep N] [-o FILE] [--offcpu] [--keep-probe-frames]\n"
	"\n"
	"Print the sampled stacks of a run as folded text, one stack a line, root first:\n"
	"'main;parse;lex 123'. flamegraph.pl, inferno and speedscope read it.\n"
	"\n"
	"  --rep N         only repetition N (1 = the first); default all, added up\n"
	"  -o, --output F  write to F (atomically) instead of stdout\n"
	PG_PROFILE_OFFCPU_HELP
	PG_PROFILE_KEEP_PROBES_HELP;

int do_folded(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_PROFILE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_profile_args a;
	struct pg_stack *v = NULL;
	struct pg_atomic at;
	struct pg_run run;
	size_t n = 0;
	int ret = pg_profile_args_parse(argc, argv, folded_usage, longopts, false, &a);
	FILE *f = stdout;

	if (ret >= 0)
		return ret;
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	if (pg_profile_args_stacks(&a, &run, &v, &n))
		goto cleanup;
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
