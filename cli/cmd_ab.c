// SPDX-License-Identifier: MIT
/*
 * perfgate ab: the options, the interleaved session (runner/session/ab.h) block by block with a
 * look of the sequential comparison (diff/compare.h) after each, then the two run files and
 * compare's outputs (cli/compare_args.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#include "../core/log.h"
#include "../core/numfmt.h"
#include "../diff/compare.h"
#include "../formats/runfile.h"
#include "../runner/launch/resolve.h"
#include "../runner/session/ab.h"
#include "../runner/session/meta.h"
#include "cli.h"

/* the pairs a session records at most (--max-reps), when -r is not more */
#define AB_DEFAULT_MAX_REPS 20

static const char ab_usage[] =
	"usage: perfgate ab -o DIR [record options] [compare options] 'BASE CMD' 'NEW CMD'\n"
	"\n"
	"Record two commands in one interleaved session (pairs of one BASE and one NEW\n"
	"repetition, half of them NEW first, in a random order; one BPF load, one function\n"
	"selection made on BASE, one calibration), compare them pair by pair and exit as\n"
	"compare does. Each command is one argument, split into words as a shell would (no\n"
	"command substitution); the program is found on PATH or by its path, and the two may\n"
	"be different builds (functions are matched by binary base name and symbol name).\n"
	"\n"
	"  -o, --output DIR         write DIR/base.json, DIR/new.json and DIR/compare.json\n"
	"                           (DIR is created if missing; stale ones are removed first)\n"
	"  -r, --repetitions N      pairs in the first block (default 10)\n"
	"      --max-reps M         while something is undecided (a function, sampled or\n"
	"                           exact, a benchmark, the whole program), record blocks of\n"
	"                           5 more pairs up to M pairs, a sequential look after each\n"
	"                           (default 20; M = N: one look)\n"
	"      --seed N             the running order's random seed (default: a random one)\n"
	"  record options           -f, -x, --all-functions, --max-funcs, --budget,\n"
	"                           --functions-of, --allow-failure, --timeout, --user,\n"
	"                           --single-attach, --no-exception-fix, --exception-fix, -F,\n"
	"                           --no-sample, --no-offcpu, --gbench, --no-gbench,\n"
	"                           --offcpu-stacks, -q: as\n"
	"                           perfgate record --help says\n"
	"  compare options          --alpha, --min-effect, --min-impact, --metric, --min-reps,\n"
	"                           --raw, --no-speed-correction, --junit, --codequality,\n"
	"                           --repo-root, --json, --markdown, --artifact,\n"
	"                           --flamegraph, --flame-color,\n"
	"                           --keep-probe-frames, --all, --strict: as perfgate\n"
	"                           compare --help says\n"
	"\n"
	"A side that cannot start, fails or runs past --timeout stops the session with a\n"
	"message naming it (unless --allow-failure). SIGINT, SIGTERM or SIGHUP end the\n"
	"benchmark's processes and write no run file. Needs root, or CAP_BPF and CAP_PERFMON.\n"
	"\n"
	"Exit status: 0 no regression, 1 regression, 2 error (as compare).\n";

/* One command: @text split into words (wordexp(3), no command substitution). 0 or -1. */
static int split_command(const char *side, const char *text, wordexp_t *we, bool *made)
{
	int err = wordexp(text, we, WRDE_NOCMD);

	*made = !err || err == WRDE_NOSPACE;
	if (!err && we->we_wordc)
		return 0;
	switch (err) {
	case 0:
		pg_err("ab: the %s command is empty", side);
		break;
	case WRDE_BADCHAR:
		pg_err("ab: the %s command '%s' has an unquoted |, &, ;, <, >, (, ), { or }: "
		       "give one program and its arguments (a shell is sh -c '...')", side, text);
		break;
	case WRDE_CMDSUB:
		pg_err("ab: the %s command '%s' has a command substitution, which perfgate does "
		       "not run", side, text);
		break;
	case WRDE_SYNTAX:
		pg_err("ab: the %s command '%s' is not valid shell words (an unmatched quote?)",
		       side, text);
		break;
	default:
		pg_err("ab: cannot split the %s command '%s' into words", side, text);
	}
	return -1;
}

/* The program of @side's command can be run (a path, or found on PATH). 0 or -1. */
static int check_command(const char *side, char *const *argv)
{
	const char *prog = pg_command_program(argv);
	char *path = *prog ? pg_find_command(prog) : NULL;

	if (!*prog) {
		pg_err("ab: the %s command '%s' sets variables but names no program", side,
		       argv[0]);
		return -1;
	}
	if (!path) {
		pg_err("ab: the %s command's program '%s' was not found", side, prog);
		return -1;
	}
	free(path);
	return 0;
}

/* DIR exists (made if missing) and is writable; the paths of its three files. 0 or -1. */
static int prepare_dir(const char *dir, char **base, char **new, char **cmp)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		pg_err("ab: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		pg_err("ab: cannot write into %s: %s", dir, strerror(errno));
		return -1;
	}
	if (asprintf(base, "%s/base.json", dir) < 0 || asprintf(new, "%s/new.json", dir) < 0 ||
	    asprintf(cmp, "%s/compare.json", dir) < 0) {
		pg_err("out of memory");
		return -1;
	}
	return 0;
}

/* A stale file of an earlier session: gone, so that an interrupted one leaves none. */
static int remove_stale(const char *path)
{
	if (unlink(path) && errno != ENOENT) {
		pg_err("ab: cannot remove the earlier %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int do_ab(int argc, char **argv)
{
	enum { OPT_MAX_REPS = 0x300, OPT_SEED };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-reps", required_argument, NULL, OPT_MAX_REPS },
		{ "seed", required_argument, NULL, OPT_SEED },
		PG_RECORD_LONGOPTS,
		PG_COMPARE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_record_args ra;
	struct pg_compare_args ca;
	struct pg_ab_opts o = { 0 };
	struct pg_run base, new;
	struct pg_comparison cmp;
	wordexp_t wbase, wnew;
	bool made_base = false, made_new = false;
	char *base_path = NULL, *new_path = NULL, *cmp_path = NULL, *end;
	const char *dir = NULL;
	unsigned int max_reps = 0;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&base);
	pg_run_init(&new);
	pg_comparison_init(&cmp);
	pg_record_args_init(&ra);
	pg_compare_args_init(&ca);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h" PG_RECORD_SHORTOPTS, longopts, NULL)) != -1) {
		int r;

		switch (c) {
		case 'o':
			dir = optarg;
			continue;
		case 'h':
			fputs(ab_usage, stdout);
			ret = PG_EXIT_OK;
			goto cleanup;
		case OPT_MAX_REPS:
			if (pg_parse_u32("--max-reps", optarg, 1, 100000, &max_reps))
				goto cleanup;
			continue;
		case OPT_SEED:
			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || !o.seed) {
				pg_err("invalid --seed '%s': expected a whole number from 1",
				       optarg);
				goto cleanup;
			}
			continue;
		}
		r = pg_record_args_opt(&ra, c, optarg);
		if (r == 1)
			r = pg_compare_args_opt(&ca, c, optarg);
		if (!r)
			continue;
		if (r == 1)
			fputs(ab_usage, stderr);
		goto cleanup;
	}
	if (!dir) {
		pg_err("ab: -o DIR is required");
		goto cleanup;
	}
	if (argc - optind != 2) {
		pg_err("ab: expected two commands, 'BASE CMD' and 'NEW CMD', each one argument");
		fputs(ab_usage, stderr);
		goto cleanup;
	}
	if (ca.json) {
		pg_err("ab: the result goes to DIR/compare.json; --json is compare's option");
		goto cleanup;
	}
	if (!max_reps)
		max_reps = ra.o.repetitions > AB_DEFAULT_MAX_REPS ? ra.o.repetitions :
			   AB_DEFAULT_MAX_REPS;
	if (max_reps < ra.o.repetitions) {
		pg_err("ab: --max-reps %u is fewer than the %u pairs of the first block (-r)",
		       max_reps, ra.o.repetitions);
		goto cleanup;
	}
	if (pg_record_args_finish(&ra, "ab"))
		goto cleanup;
	/* everything that can be checked before anything runs */
	if (split_command("base", argv[optind], &wbase, &made_base) ||
	    split_command("new", argv[optind + 1], &wnew, &made_new) ||
	    check_command("base", wbase.we_wordv) || check_command("new", wnew.we_wordv) ||
	    prepare_dir(dir, &base_path, &new_path, &cmp_path))
		goto cleanup;
	if (remove_stale(base_path) || remove_stale(new_path) || remove_stale(cmp_path))
		goto cleanup;
	ca.json = cmp_path;
	pg_compare_args_paired(&ca);	/* the two sides pair up: the paired defaults */
	o.rec = ra.o;
	o.rec.argv = wbase.we_wordv;
	o.rec.argc = wbase.we_wordc;
	o.new_argv = wnew.we_wordv;
	o.new_argc = wnew.we_wordc;
	o.base_name = base_path;
	if (pg_ab_session(&o, ra.o.repetitions, max_reps, &ca.opts, &base, &new, &cmp))
		goto cleanup;
	if (pg_meta_compilers(&base) || pg_meta_compilers(&new)) {
		pg_err("ab: out of memory");
		goto cleanup;
	}
	if (pg_runfile_write(&base, base_path) || pg_runfile_write(&new, new_path))
		goto cleanup;
	if (!o.rec.quiet)
		pg_info("wrote %s and %s: %zu pair%s, %zu function%s", base_path, new_path,
			base.nreps, pg_plural(base.nreps), base.nfuncs, pg_plural(base.nfuncs));
	ret = pg_compare_args_emit(&ca, &cmp, &base, &new);
cleanup:
	if (made_base)
		wordfree(&wbase);
	if (made_new)
		wordfree(&wnew);
	free(base_path);
	free(new_path);
	free(cmp_path);
	pg_compare_args_release(&ca);
	pg_record_args_release(&ra);
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
	return ret;
}
