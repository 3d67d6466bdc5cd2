// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../core/strv.h"
#include "../../core/version.h"
#include "../launch/resolve.h"
#include "meta.h"

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *model = NULL;

	if (!f)
		return NULL;
	while (!model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		model = strdup(colon);
	}
	fclose(f);
	return model;
}

/* HEAD of the repository holding directory @dir (NULL: the working directory), or NULL */
static char *git_commit(const char *dir)
{
	static const char *const gits[] = { "/usr/bin/git", "/usr/local/bin/git", "/bin/git" };
	char *out = NULL;

	for (size_t i = 0; i < sizeof(gits) / sizeof(gits[0]) && !out; i++) {
		char *in_dir[] = { (char *)gits[i], "-C", (char *)dir, "rev-parse", "--verify",
				   "-q", "HEAD", NULL };
		char *here[] = { (char *)gits[i], "rev-parse", "--verify", "-q", "HEAD", NULL };
		char **args = dir ? in_dir : here;

		if (access(gits[i], X_OK))
			continue;
		out = pg_capture(args);
	}
	if (!out)
		return NULL;
	out[strcspn(out, "\n")] = '\0';
	for (char *p = out; *p; p++) {
		if (!isxdigit((unsigned char)*p)) {
			free(out);
			return NULL;
		}
	}
	if (strlen(out) < 40) {
		free(out);
		return NULL;
	}
	return out;
}

int pg_meta_collect(struct pg_meta *m)
{
	struct utsname u;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->perfgate_version = strdup(PERFGATE_VERSION);
	m->start_time = strdup(when);
	if (!uname(&u)) {
		m->host = strdup(u.nodename);
		m->kernel = strdup(u.release);
	}
	m->cpu_model = cpu_model();
	m->cwd = getcwd(NULL, 0);
	m->git_commit = git_commit(NULL);
	if (!m->perfgate_version || !m->start_time)
		return -ENOMEM;
	return 0;
}

int pg_meta_record_opts(struct pg_meta *m, const struct pg_record_opts *o)
{
	const struct pg_meta *src = o->functions_of ? &o->functions_of->meta : NULL;
	int err;

	m->repetitions = o->repetitions;
	if (src) {
		m->budget_pct = src->budget_pct;
		m->functions_of = strdup(o->functions_of_path);
		if (!m->functions_of)
			return -ENOMEM;
	} else {
		m->budget_pct = o->budget_pct;
	}
	err = pg_strv_dup(&m->argv, &m->argc, o->argv, o->argc);
	err = err ?: pg_strv_dup(&m->filters, &m->nfilters, src ? src->filters : o->filters,
				 src ? src->nfilters : o->nfilters);
	return err ?: pg_strv_dup(&m->excludes, &m->nexcludes, src ? src->excludes : o->excludes,
				  src ? src->nexcludes : o->nexcludes);
}

int pg_meta_git_commit_of(struct pg_meta *m, const char *argv0)
{
	char *exe = pg_resolve_command(argv0), *slash, *commit;

	if (!exe)
		return 0;
	slash = strrchr(exe, '/');
	if (slash && slash != exe)
		*slash = '\0';
	commit = git_commit(exe);
	free(exe);
	if (commit) {
		free(m->git_commit);
		m->git_commit = commit;
	}
	return 0;
}
