/* SPDX-License-Identifier: MIT */
/*
 * reporters/github.h - what `perfgate compare` writes for CI besides its reports: the Markdown
 * summary (reporters/markdown.h) to the --markdown file and, under GitHub Actions
 * (GITHUB_ACTIONS=true), appended to the job summary ($GITHUB_STEP_SUMMARY), and the largest
 * regressions as ::error workflow commands on stdout, where the runner reads them, with their
 * source lines relative to $GITHUB_WORKSPACE.
 *
 * struct pg_ci_out collects the names of the files published with the result (--artifact,
 * --flamegraph) while the options are parsed; the environment is read by pg_ci_out_init.
 * The struct owns its copies of the names.
 *
 *	struct pg_ci_out ci;
 *
 *	pg_ci_out_init(&ci);
 *	if (pg_ci_out_artifact(&ci, "flame.svg"))	// -ENOMEM, logged
 *		goto out;
 *	... compare ...
 *	if (pg_ci_out_write(&ci, &cmp, &base, &new, junit, json, markdown))
 *		goto out;
 *	... the table on stdout ...
 *	if (pg_ci_out_annotate(&ci, &cmp))		// nothing outside GitHub Actions
 *		goto out;
 * out:
 *	pg_ci_out_release(&ci);
 *
 * Every function returns 0 or a negative errno after logging (core/log.h). Failing to append
 * to the job summary is only a warning: the gate itself worked.
 */
#ifndef PG_GITHUB_H
#define PG_GITHUB_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/run.h"
#include "../diff/compare.h"

struct pg_ci_out {
	bool github;		/* GITHUB_ACTIONS=true */
	char **artifacts;	/* core/strv.h vector: names the summary lists */
	size_t nartifacts;
};

/* Empty, with ->github from the environment. */
void pg_ci_out_init(struct pg_ci_out *ci);
void pg_ci_out_release(struct pg_ci_out *ci);

/* Name a file published with the result (listed after the JUnit and JSON files). */
int pg_ci_out_artifact(struct pg_ci_out *ci, const char *name);

/*
 * The Markdown summary into @markdown (atomically; a failure is an error) and, under GitHub
 * Actions, appended to the job summary. The artifacts named are @junit and @json (either may
 * be NULL) and the pg_ci_out_artifact ones. Nothing at all without @markdown outside GitHub.
 */
int pg_ci_out_write(const struct pg_ci_out *ci, const struct pg_comparison *cmp,
		    const struct pg_run *base, const struct pg_run *new, const char *junit,
		    const char *json, const char *markdown);

/* Under GitHub Actions: the workflow commands for the largest regressions (at most
 * PG_GH_MAX_ANNOTATIONS) and an inconclusive result, on stdout (flushed). */
int pg_ci_out_annotate(const struct pg_ci_out *ci, const struct pg_comparison *cmp);

#endif
