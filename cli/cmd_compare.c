// SPDX-License-Identifier: MIT
/*
 * perfgate compare: the options, then the comparison (diff/compare.h) and its writers
 * (reporters/compare_out.h, flamegraph.h, github.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/runfile.h"
#include "../core/atomic.h"
#include "../core/log.h"
#include "../diff/compare.h"
#include "../diff/flamediff.h"
#include "../diff/paired.h"
#include "../diff/probes.h"
#include "../reporters/compare_out.h"
#include "../reporters/flamegraph.h"
#include "../reporters/github.h"
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
	"                      (default 0.1; 0: every significant slowdown fails)\n"
	"  --metric self|total|cpu  per-call self time (default), inclusive time, or\n"
	"                      on-CPU self time (runs recorded with off-CPU time)\n"
	"  --min-reps N        fewer repetitions on a side: inconclusive (default 5)\n"
	"  --raw               compare raw times, not times compensated for probe overhead\n"
	"  --junit FILE        write a JUnit XML report\n"
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
	"                      (repeatable; the --junit, --json and --flamegraph files are\n"
	"                      named anyway)\n"
	"  --all               list unchanged and inconclusive functions too\n"
	"  --strict            exit 2 when the result is inconclusive or the runs are of\n"
	"                      different commands (compared with a warning otherwise)\n"
	"\n"
	"Under GitHub Actions (GITHUB_ACTIONS=true) the summary is also appended to\n"
	"$GITHUB_STEP_SUMMARY and the largest regressions are printed as ::error annotations.\n"
	"\n"
	"Exit status: 0 no regression, 1 regression, 2 error (or inconclusive or different\n"
	"commands with --strict; different commands with no function called in both).\n";

/* A percentage in [0, @max], "5" or "5%". */
static int parse_pct(const char *opt, const char *arg, double max, double *out)
{
	char buf[64];
	size_t len = strlen(arg);

	snprintf(buf, sizeof(buf), "%s", arg);
	if (len && len < sizeof(buf) && buf[len - 1] == '%')
		buf[len - 1] = '\0';
	return pg_parse_double(opt, buf, 0, max, out);
}

int do_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-effect", required_argument, NULL, 'm' },
		{ "min-impact", required_argument, NULL, 'I' },
		{ "metric", required_argument, NULL, 'M' },
		{ "min-reps", required_argument, NULL, 'n' },
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "markdown", required_argument, NULL, 'D' },
		{ "artifact", required_argument, NULL, 'F' },
		{ "all", no_argument, NULL, 'A' },
		{ "strict", no_argument, NULL, 's' },
		{ "raw", no_argument, NULL, 'R' },
		{ "flamegraph", required_argument, NULL, 'G' },
		{ "flame-color", required_argument, NULL, 'C' },
		{ "keep-probe-frames", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_compare_opts opts = PG_COMPARE_OPTS_DEFAULT;
	const char *junit = NULL, *json = NULL, *markdown = NULL, *flame = NULL;
	enum pg_flame_metric flame_metric = PG_FLAME_SELF;
	struct pg_ci_out ci;
	struct pg_run base, new;
	struct pg_comparison cmp;
	int c, all = 0, strict = 0, keep_probes = 0, ret = PG_EXIT_ERROR;
	bool min_effect_given = false;
	double pct;

	pg_run_init(&base);
	pg_run_init(&new);
	pg_comparison_init(&cmp);
	pg_ci_out_init(&ci);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (pg_parse_double("--alpha", optarg, 1e-9, 0.5, &opts.alpha))
				goto cleanup;
			break;
		case 'm':
			if (parse_pct("--min-effect", optarg, 1000, &pct))
				goto cleanup;
			opts.min_effect = pct / 100.0;
			min_effect_given = true;
			break;
		case 'I':
			if (parse_pct("--min-impact", optarg, 100, &pct))
				goto cleanup;
			opts.min_impact = pct / 100.0;
			break;
		case 'M':
			if (!strcmp(optarg, "self")) {
				opts.metric = PG_METRIC_SELF;
			} else if (!strcmp(optarg, "total")) {
				opts.metric = PG_METRIC_TOTAL;
			} else if (!strcmp(optarg, "cpu")) {
				opts.metric = PG_METRIC_CPU;
			} else {
				pg_err("invalid --metric '%s': expected self, total or cpu",
				       optarg);
				goto cleanup;
			}
			break;
		case 'n':
			if (pg_parse_u32("--min-reps", optarg, 2, 1000000, &opts.min_reps))
				goto cleanup;
			break;
		case 'j':
			junit = optarg;
			break;
		case 'G':
			flame = optarg;
			/* the summary names it with the other artifacts */
			if (pg_ci_out_artifact(&ci, optarg))
				goto cleanup;
			break;
		case 'C':
			if (!strcmp(optarg, "self")) {
				flame_metric = PG_FLAME_SELF;
			} else if (!strcmp(optarg, "inclusive")) {
				flame_metric = PG_FLAME_INCLUSIVE;
			} else {
				pg_err("invalid --flame-color '%s': expected self or inclusive", optarg);
				goto cleanup;
			}
			break;
		case 'K':
			keep_probes = 1;
			break;
		case 'J':
			json = optarg;
			break;
		case 'D':
			markdown = optarg;
			break;
		case 'F':
			if (pg_ci_out_artifact(&ci, optarg))
				goto cleanup;
			break;
		case 'A':
			all = 1;
			break;
		case 's':
			strict = 1;
			break;
		case 'R':
			opts.raw = true;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			ret = PG_EXIT_OK;
			goto cleanup;
		default:
			fputs(compare_usage, stderr);
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
	if (!min_effect_given && pg_runs_paired(&base, &new, NULL))
		opts.min_effect = PG_MIN_EFFECT_PAIRED;
	if (pg_compare(&base, &new, &opts, &cmp)) {
		pg_err("%s", cmp.error[0] ? cmp.error : "the comparison failed");
		goto cleanup;
	}
	for (size_t i = 0; i < cmp.nwarnings; i++)
		pg_warn("%s", cmp.warnings[i]);
	if (junit && pg_compare_write_junit(&cmp, &base, &new, junit))
		goto cleanup;
	if (json && pg_result_write(&cmp, &base, &new, json))
		goto cleanup;
	if (flame && !keep_probes && (pg_profile_fold_probes(&base, "--flamegraph") ||
				      pg_profile_fold_probes(&new, "--flamegraph")))
		goto cleanup;
	if (flame && pg_flamegraph_write_diff(&base, &new, &cmp, flame_metric, opts.alpha,
					       flame))
		goto cleanup;
	if (pg_ci_out_write(&ci, &cmp, &base, &new, junit, json, markdown))
		goto cleanup;
	if (pg_compare_write_text(&cmp, &base, &new, all, stdout) || fflush(stdout)) {
		pg_err("cannot write the comparison");
		goto cleanup;
	}
	if (pg_ci_out_annotate(&ci, &cmp))
		goto cleanup;
	switch (cmp.overall) {
	case PG_OVERALL_REGRESSION:
		ret = PG_EXIT_REGRESSION;
		break;
	case PG_OVERALL_INCONCLUSIVE:
		ret = strict ? PG_EXIT_ERROR : PG_EXIT_OK;
		break;
	default:
		ret = PG_EXIT_OK;
	}
	/* runs of different commands are compared (warned above), but judged only when asked */
	if (cmp.commands_differ && (strict || !pg_comparison_matched(&cmp))) {
		pg_err("compare: the runs are of different commands%s",
		       strict ? " (--strict)" : " and no function was called in both");
		ret = PG_EXIT_ERROR;
	}
cleanup:
	pg_ci_out_release(&ci);
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
	return ret;
}
