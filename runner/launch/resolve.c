// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "../../core/run.h"
#include "resolve.h"

static bool is_exec_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The executable @argv0 names, silently: NULL when there is none (*why says why). */
static char *find_command(const char *argv0, const char **why)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	*why = "command not found";
	if (!*argv0) {
		*why = "empty command";
		return NULL;
	}
	if (strchr(argv0, '/')) {
		if (!is_exec_file(argv0)) {
			*why = access(argv0, F_OK) ? "no such file" : "not an executable file";
			return NULL;
		}
		return realpath(argv0, NULL);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int len = (int)(end - path);

		snprintf(buf, sizeof(buf), "%.*s/%s", len ? len : 1, len ? path : ".", argv0);
		if (is_exec_file(buf))
			return realpath(buf, NULL);
		path = *end ? end + 1 : end;
	}
	return NULL;
}

char *pg_find_command(const char *argv0)
{
	const char *why;

	return find_command(argv0, &why);
}

char *pg_resolve_command(const char *argv0)
{
	const char *why;
	char *exe = find_command(argv0, &why);

	if (exe)
		return exe;
	if (!*argv0)
		pg_err("%s", why);
	else if (strchr(argv0, '/'))
		pg_err("%s: %s", argv0, why);
	else
		pg_err("command not found: %s (searched $PATH)", argv0);
	return NULL;
}

/* NAME=value, with NAME a shell variable name */
static bool is_assignment(const char *w)
{
	const char *c = w;

	if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')))
		return false;
	while (*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
	       (*c >= '0' && *c <= '9'))
		c++;
	return *c == '=';
}

size_t pg_command_env(char *const *argv, size_t *nassign)
{
	size_t i = 0, first;

	*nassign = 0;
	while (argv[i] && is_assignment(argv[i]))
		i++;
	first = i;
	if (argv[i] && !strcmp(argv[i], "env")) {
		size_t k = i + 1;

		while (argv[k] && is_assignment(argv[k]))
			k++;
		/* env with options, or with no program, is a program like any other */
		if (argv[k] && argv[k][0] != '-') {
			*nassign = first + (k - i - 1);
			return k;
		}
	}
	*nassign = first;
	return first;
}

void pg_command_putenv(char *const *assign, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(assign[i], '='))
			putenv(assign[i]);
}

const char *pg_command_program(char *const *argv)
{
	size_t nassign, prog = pg_command_env(argv, &nassign);

	return argv[prog] ? argv[prog] : "";
}

/* the benchmark command's own NAME=value words: what the loader is asked with */
static char *const *cmd_assign;
static size_t cmd_nassign;

void pg_resolve_env(char *const *assign, size_t n)
{
	cmd_assign = assign;
	cmd_nassign = n;
}

/* @name's value as the benchmark sees it: its command's assignment, else perfgate's own. */
static const char *env_of(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = cmd_nassign; i-- > 0;)
		if (!strncmp(cmd_assign[i], name, len) && cmd_assign[i][len] == '=')
			return cmd_assign[i] + len + 1;
	return getenv(name);
}

char *pg_capture(char *const argv[])
{
	int fds[2], status, devnull;
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	pid_t pid;
	ssize_t r;

	if (!out || pipe2(fds, O_CLOEXEC)) {
		free(out);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(out);
		return NULL;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDWR);
		dup2(fds[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		pg_command_putenv(cmd_assign, cmd_nassign);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((r = read(fds[0], out + len, cap - len - 1)) > 0 ||
	       (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		len += (size_t)r;
		if (cap - len < 2 && PG_ALLOC_GROW(out, cap * 2, cap))
			break;
	}
	close(fds[0]);
	out[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		free(out);
		return NULL;
	}
	return out;
}

/* "libfoo.so.1" matches spec "libfoo.so.1", "libfoo.so" and "libfoo" */
static bool soname_matches(const char *name, const char *spec)
{
	size_t n = strlen(spec);

	return !strncmp(name, spec, n) && (name[n] == '\0' || name[n] == '.');
}

static char *from_loader(const char *spec, const char *exe, const char *interp)
{
	char *argv[] = { (char *)interp, "--list", (char *)exe, NULL };
	char *out, *line, *save = NULL, *found = NULL;

	if (!interp || access(interp, X_OK))
		return NULL;
	out = pg_capture(argv);
	if (!out)
		return NULL;
	/* lines look like "\tlibfoo.so.1 => /usr/lib/libfoo.so.1 (0x00007f...)" */
	for (line = strtok_r(out, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[PATH_MAX], path[PATH_MAX];

		if (sscanf(line, " %4095s => %4095s", name, path) != 2 || path[0] != '/')
			continue;
		if (soname_matches(name, spec) || soname_matches(pg_basename(path), spec)) {
			found = realpath(path, NULL);
		} else {
			/* the file's own name: "libfoo.so.1.2.3" behind the link libfoo.so.1 */
			char *real = realpath(path, NULL);

			if (real && !strcmp(pg_basename(real), spec))
				found = real;
			else
				free(real);
		}
	}
	free(out);
	return found;
}

static char *from_dirs(const char *spec)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	const char *llp = env_of("LD_LIBRARY_PATH");
	char buf[PATH_MAX];

	while (llp && *llp) {
		const char *end = strchrnul(llp, ':');

		if (end > llp) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - llp), llp, spec);
			if (!access(buf, R_OK))
				return realpath(buf, NULL);
		}
		llp = *end ? end + 1 : end;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/%s", dirs[i], spec);
		if (!access(buf, R_OK))
			return realpath(buf, NULL);
	}
	return NULL;
}

char *pg_find_binary(const char *spec, const char *exe, const char *interp)
{
	char *path;

	if (strchr(spec, '/'))
		return realpath(spec, NULL);
	if (exe && !strcmp(spec, pg_basename(exe)))
		return strdup(exe);
	path = from_loader(spec, exe, interp);
	return path ?: from_dirs(spec);
}

char *pg_resolve_binary(const char *spec, const char *exe, const char *interp)
{
	char *path = pg_find_binary(spec, exe, interp);

	if (!path && strchr(spec, '/'))
		pg_err("%s: %s", spec, strerror(errno));
	else if (!path)
		pg_err("library %s not found: not among %s's libraries (%s --list) nor in "
		       "$LD_LIBRARY_PATH or the system library directories; give its path",
		       spec, exe ? pg_basename(exe) : "the command", interp ? interp : "ld.so");
	return path;
}
