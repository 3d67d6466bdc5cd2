// SPDX-License-Identifier: MIT
/*
 * perfgate flamegraph: an interactive SVG flame graph of a run's sampled profile
 * (reporters/flamegraph.h, docs/sampling.md).
 */
#include <stdio.h>

#include "../core/log.h"
#include "../reporters/flamegraph.h"
#include "cli.h"

static const char flamegraph_usage[] =
	"usage: perfgate flamegraph RUN.json -o OUT.svg [--rep N] [--title TEXT]\n"
	"                           [--keep-probe-frames]\n"
	"\n"
	"Write an interactive SVG flame graph of the run's sampled profile: hover for details,\n"
	"click to zoom, Ctrl-F (or Search) to highlight frames. Works offline in a browser.\n"
	"\n"
	"  -o, --output F  the SVG file to write (atomically)\n"
	"  --rep N         only repetition N (1 = the first); default all\n"
	"  --title TEXT    the heading (default: the benchmark command)\n"
	PG_PROFILE_KEEP_PROBES_HELP;

int do_flamegraph(int argc, char **argv)
{
	struct pg_profile_args a;
	struct pg_run run;
	int ret = pg_profile_args_parse(argc, argv, flamegraph_usage, &a);

	if (ret >= 0)
		return ret;
	if (!a.out) {
		pg_err("flamegraph: -o OUT.svg is required");
		return PG_EXIT_ERROR;
	}
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	if (!pg_profile_args_load(&a, &run) &&
	    !pg_flamegraph_write_run(&run, a.rep, a.title, a.out))
		ret = PG_EXIT_OK;
	pg_run_release(&run);
	return ret;
}
