// SPDX-License-Identifier: MIT
/* perfgate merge: combine run files of the same benchmark (formats/merge.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../formats/merge.h"
#include "../formats/runfile.h"
#include "../core/log.h"
#include "../core/numfmt.h"
#include "cli.h"

static const char merge_usage[] =
	"usage: perfgate merge A.json B.json... -o OUT.json\n"
	"\n"
	"Combine run files of the same benchmark (CI shards, several days) into one baseline:\n"
	"repetitions are concatenated, functions matched by binary name and symbol, metadata\n"
	"taken from the newest run. Runs of different commands or -f/-x options are refused.\n"
	"See docs/ci.md.\n"
	"\n"
	"  -o, --output FILE   the merged run file (written atomically)\n"
	"\n"
	"Exit status: 0 written, 2 error.\n";

int do_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	struct pg_run *runs = NULL, out;
	const struct pg_run **rp = NULL;
	size_t n = 0;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&out);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return PG_EXIT_OK;
		default:
			fputs(merge_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (!output) {
		pg_err("merge: -o OUT.json is required");
		return PG_EXIT_ERROR;
	}
	if (optind >= argc) {
		pg_err("merge: expected one or more run files");
		return PG_EXIT_ERROR;
	}
	runs = calloc((size_t)(argc - optind), sizeof(*runs));
	rp = calloc((size_t)(argc - optind), sizeof(*rp));
	if (!runs || !rp) {
		pg_err("merge: out of memory");
		goto out;
	}
	for (; n < (size_t)(argc - optind); n++) {
		pg_run_init(&runs[n]);
		rp[n] = &runs[n];
		if (pg_runfile_read(argv[optind + n], &runs[n])) {
			n++;
			goto out;
		}
	}
	if (pg_run_merge(rp, (const char *const *)argv + optind, n, &out) ||
	    pg_runfile_write(&out, output))
		goto out;
	pg_info("merged %zu run%s (%zu repetition%s, %zu function%s) into %s", n, pg_plural(n),
		out.nreps, pg_plural(out.nreps), out.nfuncs, pg_plural(out.nfuncs), output);
	ret = PG_EXIT_OK;
out:
	for (size_t i = 0; i < n; i++)
		pg_run_release(&runs[i]);
	free(runs);
	free(rp);
	pg_run_release(&out);
	return ret;
}
