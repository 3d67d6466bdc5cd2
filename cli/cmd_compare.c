// SPDX-License-Identifier: MIT
/*
 * perfgate compare: the options, then the comparison (diff/compare.h) and its writers
 * (cli/compare_args.c: reporters/compare_out.h, flamegraph.h, github.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/runfile.h"
#include "../core/log.h"
#include "../diff/compare.h"
#include "../diff/paired.h"
#include "cli.h"

static const char compare_usage[] =
	"usage: perfgate compare BASE.json NEW.json [options]\n"
	"\n"
	"Compare two runs per function: Mann-Whitney U over per-repetition means, Benjamini-\n"
	"Hochberg false discovery control, Hodges-Lehmann change with a confidence interval.\n"
	"A function regressed when it is significant, its whole interval is above the\n"
	"minimum effect, and its change costs the run at least the minimum impact; a change\n"
	"that costs less is reported as notable and does not fail. See docs/statistics.md.\n"
	"\n"
	"  --alpha A           false discovery rate, and 1 - confidence (default 0.05)\n"
	"  --min-effect PCT    smallest slowdown that counts, in percent (default 5; 2 for\n"
	"                      the two sides of one perfgate ab session, compared pair\n"
	"                      by pair with a Wilcoxon signed-rank test)\n"
	"  --min-impact PCT    smallest change of a function's time per repetition that\n"
	"                      fails, in percent of the median repetition's wall time\n"
	"                      (default 0.1; 0.05 for the two sides of one perfgate ab\n"
	"                      session; 0: every significant slowdown fails)\n"
	"  --metric self|total|cpu  per-call self time (default), inclusive time, or\n"
	"                      on-CPU self time (runs recorded with off-CPU time)\n"
	"  --min-reps N        fewer repetitions on a side: inconclusive (default 5)\n"
	"  --raw               compare raw times, not times compensated for probe overhead\n"
	"  --no-speed-correction  do not correct the functions for the machine's speed: in\n"
	"                      each pair of a perfgate ab session, or between two recordings\n"
	"                      (docs/statistics.md)\n"
	"  --junit FILE        write a JUnit XML report (test cases carry file and line)\n"
	"  --codequality FILE  write a GitLab Code Quality report: a finding at the source\n"
	"                      line of each regressed (major) and notable (minor) function\n"
	"  --repo-root DIR     the source paths of those two reports relative to DIR\n"
	"                      (default: the git work tree of the current directory, else\n"
	"                      $GITHUB_WORKSPACE or $CI_PROJECT_DIR, else the current one)\n"
	"  --json FILE         write the full result as JSON (docs/compare-format.md)\n"
	"  --flamegraph FILE   write a differential flame graph (SVG) of the sampled profiles:\n"
	"                      widths from NEW; traced functions red = regression, blue =\n"
	"                      improvement (the verdicts above); other frames red = share of\n"
	"                      samples grew, blue = shrank\n"
	"  --flame-color self|inclusive  colour by the change of self (default) or\n"
	"                      inclusive share (docs/sampling.md)\n"
	"  --keep-probe-frames the flame graph shows the kernel frames of perfgate's probes,\n"
	"                      not one '[perfgate probes]' frame\n"
	"  --markdown FILE     write a pull-request summary in Markdown (docs/ci.md)\n"
	"  --artifact NAME     name a file published with the result in the summary\n"
	"                      (repeatable; the --junit, --json, --codequality and\n"
	"                      --flamegraph files are named anyway)\n"
	"  --all               list unchanged and inconclusive functions too\n"
	"  --strict            exit 2 when the result is inconclusive or the runs are of\n"
	"                      different commands (compared with a warning otherwise)\n"
	"\n"
	"Under GitHub Actions (GITHUB_ACTIONS=true) the summary is also appended to\n"
	"$GITHUB_STEP_SUMMARY and the largest regressions are printed as ::error annotations.\n"
	"\n"
	"Exit status: 0 no regression, 1 regression, 2 error (or inconclusive or different\n"
	"commands with --strict; different commands with no function called in both).\n";

int do_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_COMPARE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_compare_args a;
	struct pg_run base, new;
	struct pg_comparison cmp;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&base);
	pg_run_init(&new);
	pg_comparison_init(&cmp);
	pg_compare_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(compare_usage, stdout);
			ret = PG_EXIT_OK;
			goto cleanup;
		}
		switch (pg_compare_args_opt(&a, c, optarg)) {
		case 0:
			continue;
		case 1:
			fputs(compare_usage, stderr);
			/* fall through */
		default:
			goto cleanup;
		}
	}
	if (argc - optind != 2) {
		pg_err("compare: expected two run files, BASE.json and NEW.json");
		fputs(compare_usage, stderr);
		goto cleanup;
	}
	if (pg_runfile_read(argv[optind], &base) || pg_runfile_read(argv[optind + 1], &new))
		goto cleanup;
	/* the sides of one interleaved session: drift cancels, a smaller effect is within reach */
	if (pg_runs_paired(&base, &new, NULL))
		pg_compare_args_paired(&a);
	if (pg_compare(&base, &new, &a.opts, &cmp)) {
		pg_err("%s", cmp.error[0] ? cmp.error : "the comparison failed");
		goto cleanup;
	}
	ret = pg_compare_args_emit(&a, &cmp, &base, &new);
cleanup:
	pg_compare_args_release(&a);
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
	return ret;
}
