// SPDX-License-Identifier: MIT
/* perfgate vote: a code-review vote from a compare result (reporters/vote.h, docs/ci.md). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "../reporters/vote.h"
#include "cli.h"

static const char vote_usage[] =
	"usage: perfgate vote RESULT.json --system gerrit|github [options]\n"
	"\n"
	"Turn the result of 'perfgate compare --json RESULT.json' into a review vote:\n"
	"-1 on a regression, +1 when the comparison is conclusive and clean, 0 when it is\n"
	"inconclusive or the runs come from different hosts or commands.\n"
	"\n"
	"  --system gerrit     a Gerrit ReviewInput: {\"labels\": {LABEL: -1|0|1}, \"message\",\n"
	"                      \"tag\"} for 'ssh HOST gerrit review --json' or the REST API\n"
	"  --system github     a GitHub check run: name, head_sha, status, conclusion\n"
	"                      (failure|success|neutral), output.title, output.summary,\n"
	"                      output.annotations (file:line of regressions, notable,\n"
	"                      inconclusive and improved functions; at most 50)\n"
	"  --repo-root DIR     annotation paths are made relative to DIR (default: the git\n"
	"                      work tree of the current directory, else $GITHUB_WORKSPACE\n"
	"                      or $CI_PROJECT_DIR, else the current directory)\n"
	"  --label NAME        Gerrit label, or check run name (default Performance)\n"
	"  -o, --output FILE   write the payload to FILE (atomically) instead of stdout\n"
	"  --missing-ok        a missing RESULT.json (compare failed) gives a 0 vote\n"
	"                      instead of an error\n"
	"\n"
	"Exit status: 0 payload written (whatever the vote), 2 bad input. docs/ci.md shows\n"
	"how to post the payloads.\n";

int do_vote(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "system", required_argument, NULL, 's' },
		{ "label", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "missing-ok", no_argument, NULL, 'm' },
		{ "repo-root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *label = "Performance", *output = NULL, *system = NULL, *root_opt = NULL;
	enum pg_vote_system sys = PG_VOTE_GERRIT;
	struct pg_vote_result res;
	bool missing_ok = false, have = false;
	char *payload = NULL, *root = NULL;
	int c, err, ret = PG_EXIT_ERROR;

	pg_vote_result_init(&res);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			system = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'm':
			missing_ok = true;
			break;
		case 'r':
			root_opt = optarg;
			break;
		case 'h':
			fputs(vote_usage, stdout);
			return PG_EXIT_OK;
		default:
			fputs(vote_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		pg_err("vote: expected one compare result, RESULT.json (perfgate vote --help)");
		return PG_EXIT_ERROR;
	}
	if (!system) {
		pg_err("vote: --system gerrit or --system github is required");
		return PG_EXIT_ERROR;
	}
	if (pg_vote_system_parse(system, &sys)) {
		pg_err("vote: unknown --system '%s': expected gerrit or github", system);
		return PG_EXIT_ERROR;
	}
	if (!*label || strpbrk(label, "\n\r")) {
		pg_err("vote: invalid --label '%s'", label);
		return PG_EXIT_ERROR;
	}
	err = pg_vote_read(argv[optind], missing_ok, &res);
	if (err && !(err == -ENOENT && missing_ok))
		goto out;
	have = !err;
	if (!have)
		pg_warn("%s does not exist: voting 0 (no result)", argv[optind]);
	if (have && sys == PG_VOTE_GITHUB)
		root = pg_repo_root(root_opt);
	payload = pg_vote_payload(have ? &res : NULL, sys, label, root);
	if (!payload) {
		pg_err("vote: out of memory");
		goto out;
	}
	if (output) {
		if (pg_atomic_write(output, payload, strlen(payload)))
			goto out;
	} else if (fputs(payload, stdout) == EOF || fflush(stdout)) {
		pg_err("vote: cannot write the payload: %m");
		goto out;
	}
	ret = PG_EXIT_OK;
out:
	free(root);
	free(payload);
	pg_vote_result_release(&res);
	return ret;
}
