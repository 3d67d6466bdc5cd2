// SPDX-License-Identifier: MIT
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/runfile.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../runner/record.h"
#include "../runner/sampler.h"
#include "cli.h"

static const char record_usage[] =
	"usage: perfgate record -o RUN.json [options] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD N times, each a fresh process tree, and record every call of the selected\n"
	"functions exactly (eBPF uprobes on entry and return, aggregated in the kernel).\n"
	"\n"
	"  -o, --output FILE        run file to write (atomically; nothing on failure)\n"
	"  -r, --repetitions N      how many times to run CMD (default 10)\n"
	"  -f, --function [BIN:]GLOB  trace functions matching GLOB (name or demangled name);\n"
	"                           BIN is a path or a shared library name (libfoo.so.1),\n"
	"                           default the command's executable; repeatable\n"
	"  -x, --exclude [BIN:]GLOB do not trace these; without BIN, in every binary\n"
	"      --all-functions      trace every function of the executable (C runtime helpers\n"
	"                           aside), whatever it costs: no budget (as -f '*')\n"
	"      --max-funcs N        cap on the selection made without -f or --functions-of\n"
	"                           (default 2000)\n"
	"      --functions-of RUN.json  trace the functions RUN.json traced (by name, in\n"
	"                           today's binaries): a --budget baseline's choice\n"
	"      --allow-failure      keep recording when CMD exits non-zero or runs too long\n"
	"      --timeout SECONDS    end a repetition that runs longer (SIGTERM, then SIGKILL)\n"
	"      --user NAME          run CMD as this user (default: SUDO_UID under sudo;\n"
	"                           root without sudo runs it as root, with a warning)\n"
	"      --single-attach      one link per probe instead of uprobe_multi (old kernels)\n"
	"      --no-exception-fix   do not preload libperfgate-preload.so, which lets C++\n"
	"                           exceptions unwind through traced functions; it is on\n"
	"                           when a traced binary is C++ (docs/recording.md)\n"
	"      --exception-fix      preload it even when no traced binary is C++ (exceptions\n"
	"                           that pass through traced C code)\n"
	"      --budget PCT         trace only what fits: a sampled run, then a traced pilot\n"
	"                           run, choose the functions whose probes cost at most PCT%\n"
	"                           of CMD's own time (default 5 without -f, --functions-of\n"
	"                           or --all-functions; docs/measurement.md, \"Budget\")\n"
	"  -F, --frequency HZ       sampled CPU profile: cpu-clock samples per second\n"
	"                           (default: ~300 a repetition within 2% of the run, from\n"
	"                           --budget's sampled first pass; else 199; docs/sampling.md)\n"
	"      --no-sample          no sampled profile, exact tracing only\n"
	"      --no-offcpu          no context-switch hooks: no on-/off-CPU split per\n"
	"                           function, no threads (docs/measurement.md, \"Off-CPU\")\n"
	"  -q, --quiet              no progress lines\n"
	"\n"
	"Without -f, perfgate chooses among the executable's functions those whose probes fit\n"
	"in --budget (5%) of CMD's own time, and says what it chose and why; -f '*' or\n"
	"--all-functions trace them all.\n"
	"Needs root, or CAP_BPF and CAP_PERFMON. SIGINT, SIGTERM or SIGHUP end the benchmark's\n"
	"processes, detach the probes and write no run file (exit 2). docs/security.md.\n";

int do_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "repetitions", required_argument, NULL, 'r' },
		{ "function", required_argument, NULL, 'f' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "max-funcs", required_argument, NULL, 'M' },
		{ "all-functions", no_argument, NULL, 'a' },
		{ "allow-failure", no_argument, NULL, 'A' },
		{ "budget", required_argument, NULL, 'B' },
		{ "functions-of", required_argument, NULL, 'O' },
		{ "single-attach", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "frequency", required_argument, NULL, 'F' },
		{ "no-sample", no_argument, NULL, 'N' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "user", required_argument, NULL, 'u' },
		{ "no-exception-fix", no_argument, NULL, 'E' },
		{ "exception-fix", no_argument, NULL, 'X' },
		{ "no-offcpu", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_record_opts o = {
		.repetitions = PG_DEFAULT_REPETITIONS,
		.max_funcs = PG_DEFAULT_MAX_FUNCS,
		.sample_hz = PG_DEFAULT_SAMPLE_HZ,
		.auto_hz = true,
	};
	struct pg_run run, of;
	const char *out = NULL, *of_path = NULL;
	int c, ret = PG_EXIT_ERROR;
	bool no_sample = false, max_funcs_set = false, all_functions = false;
	double timeout;

	pg_run_init(&run);
	pg_run_init(&of);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:r:f:x:F:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (pg_parse_u32("-r", optarg, 1, 100000, &o.repetitions))
				goto cleanup;
			break;
		case 'f':
			if (pg_strv_push(&o.filters, &o.nfilters, optarg)) {
				pg_err("out of memory");
				goto cleanup;
			}
			break;
		case 'x':
			if (pg_strv_push(&o.excludes, &o.nexcludes, optarg)) {
				pg_err("out of memory");
				goto cleanup;
			}
			break;
		case 'M':
			if (pg_parse_u32("--max-funcs", optarg, 1, 1000000, &o.max_funcs))
				goto cleanup;
			max_funcs_set = true;
			break;
		case 'a':
			all_functions = true;
			break;
		case 'B':
			if (pg_parse_double("--budget", optarg, 0.1, 1000, &o.budget_pct))
				goto cleanup;
			break;
		case 'O':
			of_path = optarg;
			break;
		case 'A':
			o.allow_failure = true;
			break;
		case 'S':
			o.single_attach = true;
			break;
		case 'F':
			if (pg_parse_u32("-F", optarg, 1, PG_MAX_SAMPLE_HZ, &o.sample_hz))
				goto cleanup;
			o.auto_hz = false;
			break;
		case 'N':
			no_sample = true;
			break;
		case 'T':
			if (pg_parse_double("--timeout", optarg, 0.001, 1e7, &timeout))
				goto cleanup;
			o.timeout_ms = (uint64_t)(timeout * 1000 + 0.5);
			break;
		case 'u':
			o.user = optarg;
			break;
		case 'E':
			o.no_exception_fix = true;
			break;
		case 'X':
			o.exception_fix = true;
			break;
		case 'C':
			o.no_offcpu = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			ret = PG_EXIT_OK;
			goto cleanup;
		default:
			fputs(record_usage, stderr);
			goto cleanup;
		}
	}
	if (no_sample)
		o.sample_hz = 0;
	if (!out) {
		pg_err("record: -o RUN.json is required");
		goto cleanup;
	}
	if (optind >= argc) {
		pg_err("record: no command given (perfgate record -o RUN.json -- CMD [ARGS])");
		goto cleanup;
	}
	if (of_path && (o.nfilters || o.nexcludes || o.budget_pct > 0)) {
		pg_err("record: --functions-of takes the functions from %s; it does not combine "
		       "with -f, -x or --budget", of_path);
		goto cleanup;
	}
	if (all_functions && (o.nfilters || of_path || o.budget_pct > 0)) {
		pg_err("record: --all-functions traces every function; it does not combine with "
		       "-f, --functions-of or --budget");
		goto cleanup;
	}
	/* the default selection: what fits the default budget */
	if (!o.nfilters && !of_path && !all_functions && !(o.budget_pct > 0)) {
		o.budget_pct = PG_DEFAULT_BUDGET_PCT;
		o.default_budget = true;
	}
	if (max_funcs_set && (o.nfilters || of_path))
		pg_warn("record: --max-funcs caps the selection made without -f; %s chooses the "
			"functions here, and --max-funcs is ignored",
			of_path ? "--functions-of" : "-f");
	if (of_path) {
		if (pg_runfile_read(of_path, &of))
			goto cleanup;
		o.functions_of = &of;
		o.functions_of_path = of_path;
	}
	o.argv = argv + optind;
	o.argc = (size_t)(argc - optind);
	if (pg_record(&o, &run))
		goto cleanup;
	if (pg_runfile_write(&run, out))
		goto cleanup;
	if (!o.quiet)
		pg_info("wrote %s: %zu repetitions, %zu functions", out, run.nreps, run.nfuncs);
	ret = PG_EXIT_OK;
cleanup:
	pg_strv_free(o.filters, o.nfilters);
	pg_strv_free(o.excludes, o.nexcludes);
	pg_run_release(&run);
	pg_run_release(&of);
	return ret;
}
