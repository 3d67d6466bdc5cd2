// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "../../core/strbuf.h"
#include "../../core/strv.h"
#include "../../core/version.h"
#include "../launch/resolve.h"
#include "meta.h"

/* the compilers a run names at most (a program of many CUs built alike has one or two) */
#define META_MAX_PRODUCERS 8

/* The value of the first line of @path that starts with @key and a ':' or '=', or NULL. */
static char *file_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[8192], *model = NULL;
	size_t klen = strlen(key);

	if (!f)
		return NULL;
	while (!model && fgets(line, sizeof(line), f)) {
		char *colon = line + strcspn(line, ":=");

		if (strncmp(line, key, klen) || !*colon ||
		    strspn(line + klen, " \t") != (size_t)(colon - line - klen))
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

/* "os", "cpu_flags" and the CI image variables that are set (struct pg_meta env). */
static int collect_env(struct pg_meta *m)
{
	static const char *const ci[] = { "ImageOS", "ImageVersion", "CI_JOB_IMAGE",
					  "CI_RUNNER_DESCRIPTION" };
	char *os = file_value("/etc/os-release", "PRETTY_NAME");
	char *flags = file_value("/proc/cpuinfo", "flags"), key[64];
	int err = 0;

	if (os && os[0] == '"' && strlen(os) >= 2 && os[strlen(os) - 1] == '"') {
		os[strlen(os) - 1] = '\0';
		memmove(os, os + 1, strlen(os));
	}
	if (os && *os)
		err = pg_env_set(m, "os", os);
	if (!err && flags && *flags)
		err = pg_env_set(m, "cpu_flags", flags);
	for (size_t i = 0; i < sizeof(ci) / sizeof(ci[0]) && !err; i++) {
		const char *v = getenv(ci[i]);

		snprintf(key, sizeof(key), "ci.%s", ci[i]);
		if (v && *v)
			err = pg_env_set(m, key, v);
	}
	free(os);
	free(flags);
	return err;
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
	m->cpu_model = file_value("/proc/cpuinfo", "model name");
	m->cwd = getcwd(NULL, 0);
	m->git_commit = git_commit(NULL);
	if (!m->perfgate_version || !m->start_time)
		return -ENOMEM;
	return collect_env(m);
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

/* Add the distinct DW_AT_producer strings of @path's compilation units to @out ("; "-joined). */
static void add_producers(const char *path, struct pg_strbuf *out, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && *n < META_MAX_PRODUCERS &&
	       !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die die;
		Dwarf_Attribute attr;
		const char *p;

		if (dwarf_offdie(dw, off + hsize, &die) &&
		    dwarf_attr(&die, DW_AT_producer, &attr) && (p = dwarf_formstring(&attr)) &&
		    *p && !strstr(out->s, p)) {
			pg_strbuf_addf(out, "%s%s", *n ? "; " : "", p);
			(*n)++;
		}
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
}

int pg_meta_compilers(struct pg_run *run)
{
	struct pg_strbuf b = PG_STRBUF_INIT;
	size_t n = 0;
	int err = 0;

	if (run->meta.program)
		add_producers(run->meta.program, &b, &n);
	for (size_t i = 0; i < run->nfuncs; i++) {
		bool seen = run->meta.program && !strcmp(run->funcs[i].binary, run->meta.program);

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(run->funcs[j].binary, run->funcs[i].binary);
		if (!seen)
			add_producers(run->funcs[i].binary, &b, &n);
	}
	if (b.err)
		err = -ENOMEM;
	else if (n)
		err = pg_env_set(&run->meta, PG_ENV_COMPILERS, b.s);
	pg_strbuf_release(&b);
	return err;
}
