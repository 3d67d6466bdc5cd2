// SPDX-License-Identifier: MIT
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../baseline/runfile.h"
#include "../core/log.h"
#include "../diff/compare.h"
#include "../reporters/compare_out.h"
#include "cli.h"

static const char compare_usage[] =
	"usage: perfgate compare BASE.json NEW.json [options]\n"
	"\n"
	"Compare two runs per function: Mann-Whitney U over per-repetition means, Benjamini-\n"
	"Hochberg false discovery control, Hodges-Lehmann change with a confidence interval.\n"
	"A function regressed when it is significant and its whole interval is above the\n"
	"minimum effect. See docs/statistics.md.\n"
	"\n"
	"  --alpha A           false discovery rate, and 1 - confidence (default 0.05)\n"
	"  --min-effect PCT    smallest slowdown that counts, in percent (default 5)\n"
	"  --metric self|total per-call self time (default) or inclusive time\n"
	"  --min-reps N        fewer repetitions on a side: inconclusive (default 5)\n"
	"  --junit FILE        write a JUnit XML report\n"
	"  --json FILE         write the full result as JSON (docs/compare-format.md)\n"
	"  --all               list unchanged functions too\n"
	"  --strict            exit 2 when the result is inconclusive\n"
	"\n"
	"Exit status: 0 no regression, 1 regression, 2 error (or inconclusive with --strict).\n";

int do_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-effect", required_argument, NULL, 'm' },
		{ "metric", required_argument, NULL, 'M' },
		{ "min-reps", required_argument, NULL, 'n' },
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "all", no_argument, NULL, 'A' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_compare_opts opts = PG_COMPARE_OPTS_DEFAULT;
	const char *junit = NULL, *json = NULL;
	struct pg_run base, new;
	struct pg_comparison cmp;
	int c, all = 0, strict = 0, ret = PG_EXIT_ERROR;
	double pct;

	pg_run_init(&base);
	pg_run_init(&new);
	pg_comparison_init(&cmp);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (pg_parse_double("--alpha", optarg, 1e-9, 0.5, &opts.alpha))
				goto cleanup;
			break;
		case 'm': {
			char buf[64];
			size_t len = strlen(optarg);

			snprintf(buf, sizeof(buf), "%s", optarg);
			if (len && len < sizeof(buf) && buf[len - 1] == '%')
				buf[len - 1] = '\0';
			if (pg_parse_double("--min-effect", buf, 0, 1000, &pct))
				goto cleanup;
			opts.min_effect = pct / 100.0;
			break;
		}
		case 'M':
			if (!strcmp(optarg, "self")) {
				opts.metric = PG_METRIC_SELF;
			} else if (!strcmp(optarg, "total")) {
				opts.metric = PG_METRIC_TOTAL;
			} else {
				pg_err("invalid --metric '%s': expected self or total", optarg);
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
		case 'J':
			json = optarg;
			break;
		case 'A':
			all = 1;
			break;
		case 's':
			strict = 1;
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
	if (pg_compare(&base, &new, &opts, &cmp)) {
		pg_err("%s", cmp.error[0] ? cmp.error : "the comparison failed");
		goto cleanup;
	}
	for (size_t i = 0; i < cmp.nwarnings; i++)
		pg_warn("%s", cmp.warnings[i]);
	if (junit && pg_compare_write_junit(&cmp, &base, &new, junit))
		goto cleanup;
	if (json && pg_compare_write_json(&cmp, &base, &new, json))
		goto cleanup;
	if (pg_compare_write_text(&cmp, &base, &new, all, stdout) || fflush(stdout)) {
		pg_err("cannot write the comparison");
		goto cleanup;
	}
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
cleanup:
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
	return ret;
}
