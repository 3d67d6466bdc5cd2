// SPDX-License-Identifier: MIT
/*
 * perfgate flamegraph: an interactive SVG flame graph of a run's sampled profile or, with
 * --offcpu, of its off-CPU time; of two runs, their differential flame graph
 * (reporters/flamegraph.h, docs/sampling.md).
 */
#include <stdio.h>

#include "../core/log.h"
#include "../reporters/flamegraph.h"
#include "cli.h"

#define FLAME_ALPHA 0.05	/* the differential graph's false discovery rate, as compare's */

static const char flamegraph_usage[] =
	"usage: perfgate flamegraph RUN.json -o OUT.svg [--rep N] [--title TEXT] [--offcpu]\n"
	"                           [--keep-probe-frames]\n"
	"       perfgate flamegraph BASE.json NEW.json -o DIFF.svg [--offcpu]\n"
	"                           [--keep-probe-frames]\n"
	"\n"
	"Write an interactive SVG flame graph of the run's sampled profile: hover for details,\n"
	"click to zoom, Ctrl-F (or Search) to highlight frames. Works offline in a browser.\n"
	"Of two runs: their differential flame graph, widths from NEW, frames red where their\n"
	"share grew, blue where it shrank, grey when not significant (perfgate compare\n"
	"--flamegraph also colours traced functions by compare's verdicts).\n"
	"\n"
	"  -o, --output F  the SVG file to write (atomically)\n"
	"  --rep N         only repetition N (1 = the first); default all\n"
	"  --title TEXT    the heading (default: the benchmark command)\n"
	PG_PROFILE_OFFCPU_HELP
	PG_PROFILE_KEEP_PROBES_HELP;

int do_flamegraph(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_PROFILE_LONGOPTS,
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_profile_args a;
	struct pg_run run, base;
	int ret = pg_profile_args_parse(argc, argv, flamegraph_usage, longopts, true, &a);

	if (ret >= 0)
		return ret;
	if (!a.out) {
		pg_err("flamegraph: -o OUT.svg is required");
		return PG_EXIT_ERROR;
	}
	if (a.base && (a.rep >= 0 || a.title)) {
		pg_err("flamegraph: --rep and --title apply to the flame graph of one run");
		return PG_EXIT_ERROR;
	}
	ret = PG_EXIT_ERROR;
	pg_run_init(&run);
	pg_run_init(&base);
	if (a.base) {
		if (!pg_profile_load(&a, a.base, &base) && !pg_profile_args_load(&a, &run) &&
		    !pg_flamegraph_write_profiles(&base, &run, PG_FLAME_SELF, FLAME_ALPHA,
						  a.offcpu, a.out))
			ret = PG_EXIT_OK;
	} else if (!pg_profile_args_load(&a, &run) &&
		   !pg_flamegraph_write_run(&run, a.rep, a.offcpu, a.title, a.out)) {
		ret = PG_EXIT_OK;
	}
	pg_run_release(&base);
	pg_run_release(&run);
	return ret;
}
