// SPDX-License-Identifier: MIT
#include <getopt.h>
#include <stdio.h>

#include "../core/log.h"
#include "../core/numfmt.h"
#include "../formats/runfile.h"
#include "../runner/session/meta.h"
#include "../runner/session/recorder.h"
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
	"                           (default: ~2,600 a repetition within 2% of the run, from\n"
	"                           --budget's sampled first pass; else 199; docs/sampling.md)\n"
	"      --no-sample          no sampled profile, exact tracing only\n"
	"      --no-offcpu          no context-switch hooks: no on-/off-CPU split per\n"
	"                           function, no threads (docs/measurement.md, \"Off-CPU\")\n"
	"      --offcpu-stacks      with the sampled profile, also the stacks threads blocked\n"
	"                           in, weighted by the time blocked (folded/flamegraph\n"
	"                           --offcpu); costs every system call on the machine while\n"
	"                           recording (docs/sampling.md, \"Off-CPU stacks\")\n"
	"      --gbench, --no-gbench  read (or do not) each repetition's Google Benchmark\n"
	"                           figures, judged per benchmark; on by default when CMD\n"
	"                           links Google Benchmark (docs/gbench.md)\n"
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
		PG_RECORD_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_record_args a;
	struct pg_run run;
	const char *out = NULL;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&run);
	pg_record_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h" PG_RECORD_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'h') {
			fputs(record_usage, stdout);
			ret = PG_EXIT_OK;
			goto cleanup;
		}
		switch (pg_record_args_opt(&a, c, optarg)) {
		case 0:
			continue;
		case 1:
			fputs(record_usage, stderr);
			/* fall through */
		default:
			goto cleanup;
		}
	}
	if (!out) {
		pg_err("record: -o RUN.json is required");
		goto cleanup;
	}
	if (optind >= argc) {
		pg_err("record: no command given (perfgate record -o RUN.json -- CMD [ARGS])");
		goto cleanup;
	}
	if (pg_record_args_finish(&a, "record"))
		goto cleanup;
	a.o.argv = argv + optind;
	a.o.argc = (size_t)(argc - optind);
	if (pg_record(&a.o, &run))
		goto cleanup;
	if (pg_meta_compilers(&run)) {
		pg_err("record: out of memory");
		goto cleanup;
	}
	if (pg_runfile_write(&run, out))
		goto cleanup;
	if (!a.o.quiet)
		pg_info("wrote %s: %zu repetition%s, %zu function%s", out, run.nreps,
			pg_plural(run.nreps), run.nfuncs, pg_plural(run.nfuncs));
	ret = PG_EXIT_OK;
cleanup:
	pg_record_args_release(&a);
	pg_run_release(&run);
	return ret;
}
