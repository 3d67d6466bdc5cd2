// SPDX-License-Identifier: MIT
/*
 * perfgate - did this change make my program slower, and where?
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../core/version.h"
#include "cli.h"

static const char usage[] =
	"usage: perfgate [-v | -q] COMMAND [ARGS]\n"
	"\n"
	"  record  -o RUN.json [-r N] [-f [BINARY:]GLOB]... [-x [BINARY:]GLOB]... -- CMD [ARGS]\n"
	"          run CMD N times under exact per-function uprobe tracing, with a sampled\n"
	"          CPU profile (-F HZ, default from its length; --no-sample for none)\n"
	"  ab      -o DIR [-r N] [--max-reps M] [record and compare options] 'BASE' 'NEW'\n"
	"          record two commands interleaved in pairs, compare them pair by pair;\n"
	"          exit as compare\n"
	"  report  RUN.json [--format text|csv|json]\n"
	"          per-function latency table of one run\n"
	"  compare BASE.json NEW.json [--alpha A] [--min-effect PCT] [--junit FILE] [--json FILE]\n"
	"          per-function statistical comparison; exit 1 on a regression\n"
	"          [--markdown FILE]: pull-request summary (and GitHub annotations in Actions)\n"
	"          [--codequality FILE]: GitLab Code Quality findings at the source lines\n"
	"          [--flamegraph DIFF.svg]: differential flame graph of the sampled profiles\n"
	"  merge   A.json B.json... -o OUT.json\n"
	"          combine runs of the same benchmark (CI shards, several days) into one\n"
	"  vote    RESULT.json --system gerrit|github [--label NAME] [-o FILE]\n"
	"          code-review vote (-1/0/+1) from a 'compare --json' result\n"
	"  folded  RUN.json [--rep N] [-o FILE]\n"
	"          the sampled stacks as folded text (flamegraph.pl, inferno, speedscope)\n"
	"  flamegraph RUN.json -o OUT.svg [--rep N] [--title TEXT]\n"
	"          interactive SVG flame graph of the sampled profile\n"
	"  pprof   RUN.json -o FILE.pb.gz [--rep N]\n"
	"          the sampled profile for go tool pprof, Parca, Pyroscope, speedscope\n"
	"  history add|changes|check|plot [--db DB] ...\n"
	"          a store of runs over commits: change points, checks against the\n"
	"          sessions since the last one, trend plots (docs/history.md)\n"
	"  version print the version\n"
	"\n"
	"Exit status: 0 pass, 1 regression found, 2 perfgate could not do its job.\n"
	"'perfgate COMMAND --help' describes a command's options. Documentation: docs/.\n";

static int do_help(int argc, char **argv)
{
	fputs(usage, stdout);
	return PG_EXIT_OK;
}

static int do_version(int argc, char **argv)
{
	printf("perfgate %s\n", PERFGATE_VERSION);
	return PG_EXIT_OK;
}

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "record", do_record },
	{ "ab", do_ab },
	{ "report", do_report },
	{ "compare", do_compare },
	{ "merge", do_merge },
	{ "folded", do_folded },
	{ "flamegraph", do_flamegraph },
	{ "pprof", do_pprof },
	{ "vote", do_vote },
	{ "history", do_history },
	{ "version", do_version },
	{ "help", do_help },
	{ "--help", do_help },
	{ "-h", do_help },
	{ "--version", do_version },
};

int pg_parse_double(const char *opt, const char *text, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < lo || v > hi) {
		pg_err("invalid %s '%s': expected a number from %g to %g", opt, text, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int pg_parse_u32(const char *opt, const char *text, unsigned int lo, unsigned int hi,
		 unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi) {
		pg_err("invalid %s '%s': expected a whole number from %u to %u", opt, text, lo, hi);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--help") &&
	       strcmp(argv[i], "-h") && strcmp(argv[i], "--version"); i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			pg_log_set_level(PG_LOG_DEBUG);
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			pg_log_set_level(PG_LOG_WARN);
		} else {
			pg_err("unknown option '%s'\n%s", argv[i], usage);
			return PG_EXIT_ERROR;
		}
	}
	if (i >= argc) {
		fputs(usage, stderr);
		return PG_EXIT_ERROR;
	}
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		if (!strcmp(argv[i], cmds[k].name))
			return cmds[k].fn(argc - i, argv + i);
	pg_err("unknown command '%s' (perfgate help lists them)", argv[i]);
	return PG_EXIT_ERROR;
}
