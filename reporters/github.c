// SPDX-License-Identifier: MIT
/*
 * reporters/github.c - the CI outputs of `perfgate compare`: Markdown summary file, GitHub job
 * summary and annotations (see github.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "github.h"
#include "markdown.h"

void pg_ci_out_init(struct pg_ci_out *ci)
{
	const char *v = getenv("GITHUB_ACTIONS");

	memset(ci, 0, sizeof(*ci));
	ci->github = v && !strcmp(v, "true");
}

void pg_ci_out_release(struct pg_ci_out *ci)
{
	pg_strv_free(ci->artifacts, ci->nartifacts);
	memset(ci, 0, sizeof(*ci));
}

int pg_ci_out_artifact(struct pg_ci_out *ci, const char *name)
{
	if (pg_strv_push(&ci->artifacts, &ci->nartifacts, name)) {
		pg_err("out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Append @text to GitHub's job summary file in one write (the runner reads it afterwards). */
static void append_step_summary(const char *text)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	if (!path || !*path) {
		pg_warn("GITHUB_STEP_SUMMARY is not set: no job summary");
		return;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		pg_warn("cannot append the job summary to %s: %m", path);
		return;
	}
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		pg_warn("cannot append the job summary to %s: %s", path,
			n < 0 ? strerror(errno) : "short write");
	close(fd);
}

int pg_ci_out_write(const struct pg_ci_out *ci, const struct pg_comparison *cmp,
		    const struct pg_run *base, const struct pg_run *new, const char *junit,
		    const char *json, const char *markdown)
{
	struct pg_md_opts mo = { 0 };
	const char **names;
	char *text;
	int err = 0;

	if (!markdown && !ci->github)
		return 0;
	names = calloc(ci->nartifacts + 2, sizeof(*names));
	if (!names) {
		pg_err("out of memory");
		return -ENOMEM;
	}
	if (junit)
		names[mo.nartifacts++] = junit;
	if (json)
		names[mo.nartifacts++] = json;
	for (size_t i = 0; i < ci->nartifacts; i++)
		names[mo.nartifacts++] = ci->artifacts[i];
	mo.artifacts = names;
	text = pg_compare_markdown(cmp, base, new, &mo);
	free(names);
	if (!text) {
		pg_err("cannot build the Markdown summary: out of memory");
		return -ENOMEM;
	}
	if (markdown)
		err = pg_atomic_write(markdown, text, strlen(text));
	if (!err && ci->github)
		append_step_summary(text);
	free(text);
	return err;
}

int pg_ci_out_annotate(const struct pg_ci_out *ci, const struct pg_comparison *cmp)
{
	char *text;

	if (!ci->github)
		return 0;
	text = pg_compare_gh_annotations(cmp, PG_GH_MAX_ANNOTATIONS, getenv("GITHUB_WORKSPACE"));
	if (!text) {
		pg_err("cannot build the GitHub annotations: out of memory");
		return -ENOMEM;
	}
	fputs(text, stdout);
	free(text);
	if (fflush(stdout)) {
		pg_err("cannot write the GitHub annotations: %m");
		return -EIO;
	}
	return 0;
}
