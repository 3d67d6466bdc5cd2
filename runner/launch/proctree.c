// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "proctree.h"

static void wait_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

int pg_signals_block(struct pg_signals *s)
{
	sigset_t set;

	wait_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &s->old)) {
		pg_err("cannot block signals: %s", strerror(errno));
		return -errno;
	}
	s->blocked = true;
	return 0;
}

void pg_signals_restore(struct pg_signals *s)
{
	struct timespec zero = { 0 };
	sigset_t chld;

	if (!s->blocked)
		return;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	s->blocked = false;
}

void pg_signals_child(const struct pg_signals *s)
{
	if (s->blocked)
		sigprocmask(SIG_SETMASK, &s->old, NULL);
}

int pg_signals_wait(int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	sigset_t set;
	int sig;

	wait_set(&set);
	do
		sig = sigtimedwait(&set, NULL, &ts);
	while (sig < 0 && errno == EINTR && timeout_ms == 0);
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? sig : 0;
}

/* Parent pid of @pid from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	int ppid = -1, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything, so look after the last ')' */
	close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

struct proc {
	pid_t pid, ppid;
	bool ours;
};

void pg_tree_signal(pid_t pgid, int sig)
{
	struct proc *procs = NULL;
	size_t n = 0, cap = 0;
	bool grew = true;
	struct dirent *e;
	DIR *d;

	if (pgid > 0)
		kill(-pgid, sig);
	d = opendir("/proc");
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		pid_t ppid;

		if (*end || pid <= 0)
			continue;
		ppid = parent_of((pid_t)pid);
		if (ppid <= 0)
			continue;
		if (PG_ALLOC_GROW(procs, n + 1, cap))
			break;
		procs[n++] = (struct proc){ (pid_t)pid, ppid, ppid == getpid() };
	}
	closedir(d);
	/* descendants of descendants, until nothing is added */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (procs[i].ours)
				continue;
			for (size_t k = 0; k < n; k++) {
				if (procs[k].ours && procs[k].pid == procs[i].ppid) {
					procs[i].ours = grew = true;
					break;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (procs[i].ours)
			kill(procs[i].pid, sig);
	free(procs);
}

static bool tty_given;

bool pg_tty_give(pid_t pgid)
{
	tty_given = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
		    !tcsetpgrp(STDIN_FILENO, pgid);
	return tty_given;
}

void pg_tty_take_back(void)
{
	sigset_t ttou, old;

	if (!tty_given)
		return;
	/* perfgate is in the background now: tcsetpgrp would stop it with SIGTTOU */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (tcsetpgrp(STDIN_FILENO, getpgrp()))
		pg_debug("cannot take the terminal back: %s", strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	tty_given = false;
}

pid_t pg_fork_gated(int *go, int *back)
{
	int g[2], b[2];
	pid_t pid;

	if (pipe2(g, O_CLOEXEC))
		goto fail;
	if (pipe2(b, O_CLOEXEC)) {
		close(g[0]);
		close(g[1]);
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(g[0]);
		close(g[1]);
		close(b[0]);
		close(b[1]);
		errno = err;
		goto fail;
	}
	close(pid ? g[0] : g[1]);
	close(pid ? b[1] : b[0]);
	*go = pid ? g[1] : g[0];
	*back = pid ? b[0] : b[1];
	return pid;
fail:
	pg_err("cannot start a process: %s", strerror(errno));
	return -errno;
}
