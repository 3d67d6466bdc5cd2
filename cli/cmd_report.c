// SPDX-License-Identifier: MIT
#include <getopt.h>
#include <stdio.h>

#include "../formats/runfile.h"
#include "../core/log.h"
#include "../reporters/report.h"
#include "cli.h"

static const char report_usage[] =
	"usage: perfgate report RUN.json [--format text|csv|json]\n"
	"\n"
	"Per-function table of one run, sorted by total time: calls, total and self time summed\n"
	"over all repetitions; mean, p50, p90 and p99 latency per call.\n";

int do_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum pg_report_format fmt = PG_REPORT_TEXT;
	struct pg_run run;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&run);
	optind = 1;
	while ((c = getopt_long(argc, argv, "F:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (pg_report_format_parse(optarg, &fmt)) {
				pg_err("invalid --format '%s': expected text, csv or json", optarg);
				return PG_EXIT_ERROR;
			}
			break;
		case 'h':
			fputs(report_usage, stdout);
			return PG_EXIT_OK;
		default:
			fputs(report_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		pg_err("report: expected one run file");
		fputs(report_usage, stderr);
		return PG_EXIT_ERROR;
	}
	if (pg_runfile_read(argv[optind], &run))
		goto cleanup;
	if (pg_report_write(&run, fmt, stdout) || fflush(stdout)) {
		pg_err("cannot write the report");
		goto cleanup;
	}
	ret = PG_EXIT_OK;
cleanup:
	pg_run_release(&run);
	return ret;
}
