// SPDX-License-Identifier: MIT
/*
 * runner/launch/gbench_run.c - recognising a Google Benchmark program and reading its own figures
 * from each repetition. See gbench_run.h and docs/gbench.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/log.h"
#include "../../core/run.h"
#include "../../formats/gbench.h"
#include "../../formats/runfile.h"
#include "gbench_run.h"
#include "resolve.h"

#define RUN_SPECIFIED "_ZN9benchmark22RunSpecifiedBenchmarks"
/* the most of a repetition's standard error shown when it failed */
#define ERR_TAIL 4096

/* Does symbol table or dynamic section @scn of @elf say Google Benchmark? */
static bool section_says(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		const char *name = NULL;
		GElf_Sym sym;
		GElf_Dyn dyn;

		if (sh->sh_type == SHT_DYNAMIC) {
			if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == DT_NEEDED)
				name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
			if (name && !strncmp(name, "libbenchmark", 12))
				return true;
		} else if (gelf_getsym(data, (int)i, &sym)) {
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (name && !strncmp(name, RUN_SPECIFIED, strlen(RUN_SPECIFIED)))
				return true;
		}
	}
	return false;
}

int pg_gb_detect(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		pg_debug("%s: not an ELF file: %s", path, elf_errmsg(-1));
		ret = -ENOEXEC;
	}
	while (!ret && elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						 sh.sh_type != SHT_DYNSYM &&
						 sh.sh_type != SHT_DYNAMIC))
			continue;
		ret = section_says(elf, scn, &sh);
	}
	elf_end(elf);
	close(fd);
	return ret;
}

char *pg_gb_command_exe(char *const *argv)
{
	size_t i = 0;

	if (!strcmp(pg_basename(argv[0]), "env")) {
		for (i = 1; argv[i] && (argv[i][0] == '-' || strchr(argv[i], '=')); i++)
			if (!strcmp(argv[i], "-u") || !strcmp(argv[i], "-C"))
				i++;	/* an option with its argument */
		if (!argv[i])
			return NULL;
	}
	return pg_resolve_command(argv[i]);
}

/* The value of --NAME=VALUE among @argv, or NULL */
static const char *arg_value(char *const *argv, const char *name)
{
	size_t len = strlen(name);
	const char *v = NULL;

	for (size_t i = 1; argv[i]; i++)	/* the last one wins, as in Google Benchmark */
		if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
			v = argv[i] + len + 1;
	return v;
}

/* The value of NAME in the program's environment: the command's @assign words, then ours */
static const char *env_value(char *const *assign, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = n; i-- > 0;)	/* the last one wins, as in a shell */
		if (!strncmp(assign[i], name, len) && assign[i][len] == '=')
			return assign[i] + len + 1;
	return getenv(name);
}

/* Where the user's own output goes (argv, then the program's environment), if anywhere; false
 * when it is not JSON */
static bool user_output(struct pg_gb_cmd *c, char *const *argv, char *const *assign, size_t n)
{
	const char *out = arg_value(argv, "--benchmark_out");
	const char *fmt = arg_value(argv, "--benchmark_out_format");

	if (!out && (out = env_value(assign, n, "BENCHMARK_OUT")) && !*out)
		out = NULL;
	if (!fmt)
		fmt = env_value(assign, n, "BENCHMARK_OUT_FORMAT");
	if (out && fmt && *fmt && strcmp(fmt, "json")) {
		pg_warn("%s writes its figures to %s as %s: perfgate reads them only as JSON "
			"(--benchmark_out_format=json); the benchmarks are not judged", argv[0],
			out, fmt);
		return false;
	}
	if (out) {
		c->user_out = strdup(out);
		if (!c->user_out)
			return false;
		pg_info("%s writes its Google Benchmark figures to %s: perfgate reads them there",
			argv[0], out);
	}
	return true;
}

/* Recognise @argv (with its NAME=value words @assign[0..n)) into @c */
static void recognise(const struct pg_gb_launch *g, struct pg_gb_cmd *c, char **argv,
		      char *const *assign, size_t n)
{
	char *exe;
	int yes;

	free(c->user_out);
	c->user_out = NULL;
	c->argv = argv;
	c->on = false;
	if (g->mode == PG_GB_OFF)
		return;
	exe = pg_gb_command_exe(argv);
	yes = exe ? pg_gb_detect(exe) : 0;
	if (yes < 0)
		pg_debug("%s: %s", exe, strerror(-yes));
	if (yes > 0 || g->mode == PG_GB_FORCE) {
		pg_debug("%s: %s", exe ? exe : argv[0], yes > 0 ? "links Google Benchmark: its "
			 "benchmarks are read" : "--gbench: read as a Google Benchmark program");
		c->on = user_output(c, argv, assign, n);
	}
	free(exe);
}

int pg_gb_launch_before(struct pg_gb_launch *g, char **argv, char *const *assign, size_t n)
{
	struct pg_gb_cmd *c = &g->cmds[0];

	if (c->argv != argv && (c->argv || g->cmds[1].argv == argv))
		c = &g->cmds[1];	/* its slot, or the second for a second command */
	if (c->argv != argv)
		recognise(g, c, argv, assign, n);
	g->cur = c;
	if (!c->on)
		return 0;
	if (!g->ready) {	/* the first Google Benchmark repetition */
		g->out_fd = memfd_create("perfgate-gbench-out", MFD_CLOEXEC);
		g->err_fd = memfd_create("perfgate-gbench-stderr", MFD_CLOEXEC);
		g->ready = true;
		if (g->out_fd < 0 || g->err_fd < 0) {
			pg_err("cannot create the files for Google Benchmark's output: %s",
			       strerror(errno));
			return -errno;
		}
	}
	if (ftruncate(g->out_fd, 0) || ftruncate(g->err_fd, 0)) {
		pg_err("cannot empty the file for Google Benchmark's output: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* @envp without NAME=... entries of Google Benchmark's output, plus ours */
char **pg_gb_launch_child(const struct pg_gb_launch *g, char **envp)
{
	static char out[48], fmt[] = "BENCHMARK_OUT_FORMAT=json";
	const struct pg_gb_cmd *c = g->cur;
	size_t n = 0, k = 0;
	char **e;
	int null;

	if (!c || !c->on)
		return envp;
	if (pg_log_get_level() >= PG_LOG_DEBUG) {
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* -v: its tables, on our stderr */
	} else {
		null = open("/dev/null", O_WRONLY);
		if (null >= 0 && null != STDOUT_FILENO) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
		dup2(g->err_fd, STDERR_FILENO);
	}
	if (c->user_out || fcntl(g->out_fd, F_SETFD, 0))
		return envp;
	while (envp[n])
		n++;
	e = malloc((n + 3) * sizeof(*e));
	if (!e)
		return envp;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "BENCHMARK_OUT=", 14) &&
		    strncmp(envp[i], "BENCHMARK_OUT_FORMAT=", 21))
			e[k++] = envp[i];
	snprintf(out, sizeof(out), "BENCHMARK_OUT=/dev/fd/%d", g->out_fd);
	e[k++] = out;
	e[k++] = fmt;
	e[k] = NULL;
	return e;
}

/* The whole of file descriptor @fd, up to @max bytes, NUL-terminated, into *buf, *len */
static int read_fd(int fd, size_t max, char **buf, size_t *len)
{
	struct stat st;
	ssize_t r;

	*buf = NULL;
	*len = 0;
	if (fstat(fd, &st))
		return -errno;
	if ((size_t)st.st_size > max)
		return -EFBIG;
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf)
		return -ENOMEM;
	r = pread(fd, *buf, (size_t)st.st_size, 0);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
		return -errno;
	}
	(*buf)[r] = '\0';
	*len = (size_t)r;
	return 0;
}

/* A failed repetition: the end of what it wrote to its standard error */
static void show_stderr(const struct pg_gb_launch *g)
{
	char *buf;
	size_t len;

	if (pg_log_get_level() >= PG_LOG_DEBUG || read_fd(g->err_fd, SIZE_MAX / 2, &buf, &len))
		return;
	if (len) {
		const char *s = len > ERR_TAIL ? buf + len - ERR_TAIL : buf;

		pg_warn("the benchmark's standard error%s:", len > ERR_TAIL ? ", its end" : "");
		fputs(s, stderr);
		if (buf[len - 1] != '\n')
			fputc('\n', stderr);
	}
	free(buf);
}

/* Sizing: a repetition that runs many benchmarks for long */
static void warn_long(struct pg_gb_launch *g, const struct pg_rep *rep)
{
	if (g->warned_long || rep->wall_ns < PG_GB_LONG_REP_NS ||
	    rep->nbench < PG_GB_LONG_REP_BENCHMARKS)
		return;
	g->warned_long = true;
	pg_warn("a repetition ran %zu benchmarks for %.1f s, and every repetition runs them all: "
		"choose the ones to judge with --benchmark_filter (or BENCHMARK_FILTER) and "
		"shorten each with --benchmark_min_time (or BENCHMARK_MIN_TIME); see "
		"docs/gbench.md", rep->nbench, (double)rep->wall_ns / 1e9);
}

int pg_gb_launch_after(struct pg_gb_launch *g, struct pg_rep *rep, bool stopped)
{
	const struct pg_gb_cmd *c = g->cur;
	const char *name = c && c->user_out ? c->user_out : "the benchmark's output";
	size_t max = (size_t)pg_runfile_max_bytes(), len = 0;
	char *buf = NULL;
	int err;

	if (!c || !c->on || stopped)
		return 0;
	if (rep->exit_code || rep->signal)
		show_stderr(g);
	if (c->user_out)
		err = pg_jr_slurp(c->user_out, max, "for Google Benchmark output", &buf, &len);
	else
		err = read_fd(g->out_fd, max, &buf, &len);
	if (!err && !len)
		err = -ENODATA;
	if (!err)
		err = pg_gb_parse_output(buf, len, name, &rep->bench, &rep->nbench);
	free(buf);
	if (err == -ENOMEM)
		return err;
	if (err && !g->warned_none && !rep->exit_code && !rep->signal) {
		g->warned_none = true;
		pg_warn("%s: no Google Benchmark figures from this repetition (%s): its "
			"benchmarks are not judged where they are missing", c->argv[0],
			err == -ENODATA ? "it wrote none" : strerror(-err));
	}
	warn_long(g, rep);
	for (size_t i = 0; i < rep->nbench && !g->said_median; i++) {
		if (rep->bench[i].inproc_reps < 2)
			continue;
		g->said_median = true;
		pg_info("%s runs each benchmark %u times in a process (--benchmark_repetitions): "
			"perfgate keeps the median of each figure, one value per process",
			c->argv[0], rep->bench[i].inproc_reps);
	}
	return 0;
}

void pg_gb_launch_release(struct pg_gb_launch *g)
{
	if (g->ready && g->out_fd >= 0)
		close(g->out_fd);
	if (g->ready && g->err_fd >= 0)
		close(g->err_fd);
	for (int i = 0; i < 2; i++) {
		free(g->cmds[i].user_out);
		g->cmds[i] = (struct pg_gb_cmd){ 0 };
	}
	g->cur = NULL;
	g->ready = false;
}
