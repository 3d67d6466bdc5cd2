/* SPDX-License-Identifier: MIT */
/*
 * runner/launch/proctree.h - the benchmark's process tree and the signals that stop a recording.
 *
 * While perfgate records, SIGINT, SIGTERM and SIGHUP (the stop signals) and SIGCHLD are
 * blocked and taken synchronously (sigtimedwait): the wait loop wakes on a child's exit or a
 * stop signal, never runs a handler, and a signal that arrives during attaching or between
 * repetitions waits for the next check. The benchmark gets the signal mask perfgate started
 * with (pg_signals_child()).
 *
 * The tree of one repetition is the benchmark's process group plus every descendant of
 * perfgate, which is the child subreaper: a process that left the group (setsid, setpgid)
 * is still a descendant, because its orphans are reparented to perfgate.
 */
#ifndef PG_PROCTREE_H
#define PG_PROCTREE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Grace period between SIGTERM and SIGKILL when perfgate stops a tree. */
#define PG_KILL_GRACE_MS 1000

struct pg_signals {
	sigset_t old;		/* the mask perfgate started with */
	bool blocked;
};

/* Block the stop signals and SIGCHLD; remember the old mask. 0 or -errno (logged). */
int pg_signals_block(struct pg_signals *s);
/* Restore the old mask (pending SIGCHLDs are dropped first). Safe to call when not blocked. */
void pg_signals_restore(struct pg_signals *s);
/* In the forked child before exec: the mask perfgate started with. Async-signal-safe. */
void pg_signals_child(const struct pg_signals *s);

/*
 * Wait up to @timeout_ms (0: just look) for a child's exit or a stop signal. Returns the stop
 * signal taken, or 0 (a child may have exited, or the time ran out).
 */
int pg_signals_wait(int timeout_ms);

/* Send @sig to process group @pgid and to every descendant of this process. */
void pg_tree_signal(pid_t pgid, int sig);

/*
 * Fork a child that waits for the parent's go-ahead. In the parent: returns the child's pid,
 * with *go the write end of the go pipe (write a byte to release the child; close it unwritten
 * to cancel: the child reads EOF) and *back the read end of a pipe the child may write to
 * before it execs or exits. In the child: returns 0, with *go the read end and *back the write
 * end. Both pipes are close-on-exec. -errno (logged) on failure.
 */
pid_t pg_fork_gated(int *go, int *back);

/*
 * Hand the terminal's foreground to process group @pgid when perfgate is the foreground on
 * stdin's terminal, so that the benchmark reads it and gets ^C as it would without perfgate.
 * Returns true when it did; pg_tty_take_back() then makes perfgate the foreground again.
 */
bool pg_tty_give(pid_t pgid);
void pg_tty_take_back(void);

#endif
