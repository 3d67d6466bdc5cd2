/* SPDX-License-Identifier: MIT */
/*
 * reporters/markdown.h - what `perfgate compare` says to people in CI: a Markdown summary the
 * size of a pull-request comment (also appended to GitHub's job summary), and GitHub Actions
 * workflow commands (::error annotations) for the top regressions.
 *
 * Pure formatting: both build a malloc'd string from a comparison (the caller owns it and
 * writes it where it wants; reporters/github.c writes files atomically). NULL on allocation
 * failure, nothing logged.
 */
#ifndef PG_MARKDOWN_H
#define PG_MARKDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/run.h"
#include "../diff/compare.h"

#define PG_MD_TOP_DEFAULT 10	/* table rows before "and N more" */
#define PG_GH_MAX_ANNOTATIONS 10	/* GitHub shows 10 error annotations per step */

struct pg_md_opts {
	size_t top;			/* regression + improvement rows shown (0: the default) */
	size_t nartifacts;
	const char *const *artifacts;	/* names of the files published with the result (JUnit,
					 * JSON, flame graphs...), listed at the end; may be NULL */
};

/*
 * The summary, GitHub-flavoured Markdown:
 *  - a verdict heading: pass / regression in N functions / inconclusive with its reason;
 *  - one line of context: commits, repetitions, metric, alpha, minimum effect, command;
 *  - a table of regressions then improvements, largest change first, at most opts->top rows
 *    ("... and N more"): function (with file:line when known), binary, base and new latency,
 *    change with its interval, calls per repetition (with their change);
 *  - the other verdicts counted, the wall time, the warnings, the artifacts.
 * Names and free text are escaped for Markdown and tables (no HTML, no links are injected).
 * @base and @new may be NULL (no metadata shown).
 */
char *pg_compare_markdown(const struct pg_comparison *c, const struct pg_run *base,
			  const struct pg_run *new, const struct pg_md_opts *opts);

/*
 * GitHub Actions workflow commands, one a line: "::error file=F,line=L,title=T::MESSAGE" for
 * the largest regressions (at most @max; when there are more, the last line says how many more
 * there are and points at the job summary), and one "::warning title=...::REASON" when the
 * result is inconclusive. file/line are left out when unknown; an absolute file under
 * @workspace (GITHUB_WORKSPACE; may be NULL) is made relative to it, as GitHub wants. "" when
 * there is nothing to say.
 */
char *pg_compare_gh_annotations(const struct pg_comparison *c, size_t max, const char *workspace);

/* Workflow-command escaping: data (after "::") escapes %, CR, LF; a property value also ':'
 * and ','. malloc'd, NULL on allocation failure; NULL @s is "". */
char *pg_gh_escape(const char *s, bool property);

#endif
