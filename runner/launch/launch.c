// SPDX-License-Identifier: MIT
/*
 * runner/launch/launch.c - starting the benchmark as a traced process tree, waiting for it,
 * stopping it, and what is said about each repetition. See launch.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../core/clock.h"
#include "../../core/log.h"
#include "../profile/sampler.h"
#include "launch.h"
#include "resolve.h"

/* CPU time (user + system) of the children reaped so far, ns. */
static uint64_t children_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

int pg_launch_init(struct pg_launch *l, const char *user)
{
	int err = pg_creds_choose(user, &l->creds);

	return err ?: pg_signals_block(&l->sig);
}

/*
 * Does any traced binary use C++ exceptions (runner/probes/excfix.h)? Unreadable ones count as
 * yes.
 */
static bool traces_cxx(const struct pg_run *run)
{
	const char *last = NULL;

	for (size_t i = 0; i < run->nfuncs; i++) {
		const char *bin = run->funcs[i].binary;

		if (last && !strcmp(last, bin))
			continue;
		last = bin;
		if (pg_excfix_binary_wants(bin)) {
			pg_debug("%s may unwind C++ exceptions: the exception fix is on", bin);
			return true;
		}
	}
	pg_debug("no traced binary is C++: the exception fix is off");
	return false;
}

void pg_launch_choose_fix(struct pg_launch *l, const struct pg_record_opts *o,
			  const struct pg_run *run)
{
	l->preload = o->no_exception_fix ? NULL : pg_excfix_find();
	if (l->preload && !o->exception_fix && !traces_cxx(run)) {
		free(l->preload);	/* nothing to fix: spare every call its cost */
		l->preload = NULL;
	}
}

int pg_launch_stopped_by(int sig)
{
	pg_err("stopped by SIG%s: the benchmark's processes were ended and the probes detached; "
	       "no run file written", sigabbrev_np(sig));
	return -EINTR;
}

/*
 * Call l->tick when it is due. Stop the tree of process group @pgid when a stop signal came,
 * l->tick asked, or the repetition started at @t0 ran past the timeout: SIGTERM (and SIGCONT, for
 * stopped processes), then SIGKILL once PG_KILL_GRACE_MS have passed, again at every step for what
 * was forked meanwhile. Returns how long the next wait may take, in ms.
 */
void pg_launch_phase(struct pg_launch *l, uint64_t expect_ns, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->phase, sizeof(l->phase), fmt, ap);
	va_end(ap);
	l->expect_ns = expect_ns;
}

const char *pg_eta(char *buf, size_t n, uint64_t left_ns)
{
	if (left_ns < 1000000000ULL)
		snprintf(buf, n, "%s", "");
	else if (left_ns < 120000000000ULL)
		snprintf(buf, n, "~%.0f s left", (double)left_ns / 1e9);
	else
		snprintf(buf, n, "~%.0f min left", (double)left_ns / 60e9);
	return buf;
}

/* The live line of a run that has lasted @elapsed_ns. */
static void live_line(const struct pg_launch *l, uint64_t elapsed_ns)
{
	char eta[32];

	if (l->expect_ns && elapsed_ns + 1000000000ULL <= l->expect_ns)
		pg_info("%s: running for %.0f s, %s", l->phase, (double)elapsed_ns / 1e9,
			pg_eta(eta, sizeof(eta), l->expect_ns - elapsed_ns));
	else if (l->expect_ns && elapsed_ns <= l->expect_ns)
		pg_info("%s: running for %.0f s, nearly done", l->phase, (double)elapsed_ns / 1e9);
	else if (l->expect_ns)
		pg_info("%s: running for %.0f s (longer than the %.1f s expected)", l->phase,
			(double)elapsed_ns / 1e9, (double)l->expect_ns / 1e9);
	else
		pg_info("%s: running for %.0f s", l->phase, (double)elapsed_ns / 1e9);
}

static int stop_step(struct pg_launch *l, pid_t pgid, uint64_t t0, uint64_t *kill_at)
{
	uint64_t now = pg_now_ns();
	int wait_ms;

	if (!*kill_at && l->phase[0] && !l->quiet && now - t0 >= PG_LIVE_FIRST_NS &&
	    now >= l->next_live_ns) {
		l->next_live_ns = now + PG_LIVE_EVERY_NS;
		live_line(l, now - t0);
	}

	if (!*kill_at && l->tick && now >= l->next_tick_ns) {
		l->next_tick_ns = now + (uint64_t)l->tick_ms * 1000000ULL;
		l->tick_stopped = l->tick(l->tick_arg, now - t0);
	}
	if (!*kill_at && (l->stop_signal || l->tick_stopped ||
			  (l->timeout_ns && now - t0 >= l->timeout_ns))) {
		l->timed_out = !l->stop_signal && !l->tick_stopped;
		pg_tree_signal(pgid, SIGTERM);
		pg_tree_signal(pgid, SIGCONT);
		*kill_at = now + PG_KILL_GRACE_MS * 1000000ULL;
	}
	if (*kill_at) {
		if (now >= *kill_at)
			pg_tree_signal(pgid, SIGKILL);
		return 20;
	}
	wait_ms = 100;
	if (l->timeout_ns && t0 + l->timeout_ns - now < 100000000ULL)
		wait_ms = (int)((t0 + l->timeout_ns - now) / 1000000) + 1;
	if (l->tick && l->next_tick_ns - now < (uint64_t)wait_ms * 1000000ULL)
		wait_ms = (int)((l->next_tick_ns - now) / 1000000) + 1;
	return wait_ms;
}

int pg_launch_set_command(struct pg_launch *l, char **cmd)
{
	size_t nassign, prog = pg_command_env(cmd, &nassign);

	if (!cmd[prog]) {
		pg_err("the command '%s' sets variables but names no program to run", cmd[0]);
		return -EINVAL;
	}
	l->assign = cmd;
	l->nassign = prog;
	l->argv = cmd + prog;
	return 0;
}

/* What the forked benchmark child reports through its pipe before it execs. */
enum child_msg {
	CHILD_EXEC_FAILED,	/* and the errno */
	CHILD_CREDS_FAILED,	/* switching user failed, and the errno */
	CHILD_NO_PRELOAD,	/* a note: its user cannot read the preload library */
};

/*
 * Start the command as a fresh process group whose pid is in the traced set before it execs
 * (as the user of l->creds, with the C++ exception fix when it is on), and wait for its whole
 * process tree; stop it on a stop signal or the timeout. Fills wall time, CPU time and exit
 * status of @rep. The CPU time is what reaping added to our RUSAGE_CHILDREN: perfgate is the
 * subreaper of the tree, so every process of it, orphans included, is reaped here.
 */
int pg_launch_run(struct pg_probes *p, struct pg_launch *l, struct pg_rep *rep)
{
	int go, fail, status = 0, msg[2] = { 0, 0 }, sig;
	char **argv = l->argv;
	uint64_t t0, kill_at = 0, cpu0 = children_cpu_ns();
	__u8 one = 1;
	pid_t pid, w;
	char c = 'g';
	__u32 key;
	ssize_t r;

	l->timed_out = false;
	l->tick_stopped = false;
	/* Google Benchmark, runner/launch/gbench_run.h */
	fail = pg_gb_launch_before(&l->gb, argv, l->assign, l->nassign);
	if (fail)
		return fail;

	pid = pg_fork_gated(&go, &fail);
	if (pid < 0)
		return pid;
	if (!pid) {
		setpgid(0, 0);	/* a group of its own: perfgate can stop the whole tree */
		pg_signals_child(&l->sig);
		/* wait until our pid is traced; EOF means perfgate died */
		if (read(go, &c, 1) != 1)
			_exit(127);
		/* msg: enum child_msg and errno */
		msg[1] = -pg_creds_apply(&l->creds);
		if (msg[1]) {
			msg[0] = CHILD_CREDS_FAILED;
		} else {
			bool unreadable;
			char **envp = pg_excfix_child(&p->fix, &unreadable);
			int note[2] = { CHILD_NO_PRELOAD, 0 };

			if (unreadable && write(fail, note, sizeof(note)) < 0)
				_exit(127);
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* cleared by setuid: set after */
			envp = pg_gb_launch_child(&l->gb, envp);
			environ = envp;
			pg_command_putenv(l->assign, l->nassign);
			execvp(argv[0], argv);
			msg[0] = CHILD_EXEC_FAILED;
			msg[1] = errno;
		}
		if (write(fail, msg, sizeof(msg)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	key = (__u32)pid;
	if (bpf_map_update_elem(pg_probes_map_fd(p, PG_MAP_TRACED), &key, &one, BPF_ANY)) {
		int err = -errno;

		pg_err("cannot register the benchmark's pid: %s", strerror(errno));
		close(go);	/* the child reads EOF and exits */
		close(fail);
		waitpid(pid, NULL, 0);
		return err;
	}
	if (p->sampler && pg_sampler_start(p->sampler, pid)) {
		close(go);
		close(fail);
		waitpid(pid, NULL, 0);
		return -EIO;
	}
	pg_tty_give(pid);
	t0 = pg_now_ns();
	l->next_tick_ns = t0 + (uint64_t)l->tick_ms * 1000000ULL;
	l->next_live_ns = 0;
	if (write(go, &c, 1) != 1)
		pg_debug("write to the start pipe: %s", strerror(errno));
	close(go);
	while ((r = read(fail, msg, sizeof(msg))) == (ssize_t)sizeof(msg) &&
	       msg[0] == CHILD_NO_PRELOAD) {
		if (!l->preload_noted)
			pg_debug("%s cannot read %s: the benchmark runs without the C++ exception "
				 "fix", l->creds.change ? l->creds.name : "its user", p->fix.lib);
		l->preload_noted = true;
	}
	close(fail);
	/* the root, then every orphan it left behind (we are their subreaper) */
	for (;;) {
		int st;

		w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			if (w == pid)
				status = st;
			continue;
		}
		if (w < 0 && errno != EINTR)
			break;	/* ECHILD: the whole tree has exited */
		/* nothing to reap: stop the tree if asked to, then wait one bounded step */
		if (p->sampler) {	/* sampling: take samples in while the tree runs */
			pg_sampler_poll(p->sampler, stop_step(l, pid, t0, &kill_at));
			sig = pg_signals_wait(0);
		} else {
			sig = pg_signals_wait(stop_step(l, pid, t0, &kill_at));
		}
		if (sig && !l->stop_signal)
			l->stop_signal = sig;
	}
	rep->wall_ns = pg_now_ns() - t0;
	rep->cpu_ns = children_cpu_ns() - cpu0;
	pg_tty_take_back();
	if (l->stop_signal)
		return pg_launch_stopped_by(l->stop_signal);
	if (r == (ssize_t)sizeof(msg)) {
		if (msg[0] == CHILD_CREDS_FAILED)
			pg_err("cannot switch to user %s to run %s: %s", l->creds.name, argv[0],
			       strerror(msg[1]));
		else
			pg_err("cannot run %s%s%s: %s", argv[0], l->creds.change ? " as " : "",
			       l->creds.change ? l->creds.name : "", strerror(msg[1]));
		return -msg[1];
	}
	if (WIFEXITED(status)) {
		rep->exit_code = WEXITSTATUS(status);
		rep->signal = 0;
	} else if (WIFSIGNALED(status)) {
		rep->exit_code = -1;
		rep->signal = WTERMSIG(status);
	}
	/* its benchmarks' own figures, unless perfgate stopped it */
	return pg_gb_launch_after(&l->gb, rep, l->timed_out || l->tick_stopped);
}

void pg_launch_excfix_open(struct pg_probes *p, const struct pg_launch *l)
{
	if (l->preload)
		pg_excfix_open(&p->fix, l->preload, pg_probes_map_fd(p, PG_MAP_RETS));
}

/* Why a benchmark may have aborted: a C++ exception through a traced function. */
static const char *abort_hint(const struct pg_rep *rep, const struct pg_excfix *fix)
{
	if (rep->signal != SIGABRT)
		return "";
	if (fix->envp)
		return " (if a C++ exception thrown through a traced function aborted it: the "
		       "exception fix does not reach a statically linked libstdc++ or libgcc, a "
		       "static executable, or frames entered before a fork; see docs/recording.md, "
		       "and exclude such functions with -x)";
	return " (a C++ exception thrown through a traced function aborts it without the "
	       "exception fix, which is off: no traced binary is C++ (--exception-fix turns it "
	       "on), --no-exception-fix, or libperfgate-preload.so not found; perfgate -v says "
	       "which: see docs/recording.md, and exclude such functions with -x)";
}

void pg_launch_progress(const struct pg_record_opts *o, uint32_t i, const struct pg_rep *rep,
			size_t nfuncs_called, uint64_t left_ns)
{
	char eta[32];

	if (o->quiet)
		return;
	pg_eta(eta, sizeof(eta), left_ns);
	if (rep->signal)
		pg_info("repetition %u/%u: %.3f s, killed by signal %d (%s)%s%s", i + 1,
			o->repetitions, (double)rep->wall_ns / 1e9, rep->signal,
			strsignal(rep->signal), eta[0] ? "; " : "", eta);
	else
		pg_info("repetition %u/%u: %.3f s, exit %d, %zu function%s called%s%s", i + 1,
			o->repetitions, (double)rep->wall_ns / 1e9, rep->exit_code, nfuncs_called,
			nfuncs_called == 1 ? "" : "s", eta[0] ? "; " : "", eta);
}

/* perfgate ab's form of the verdict's messages: the side and its command first */
static int side_verdict(const struct pg_record_opts *o, const struct pg_launch *l, uint32_t i,
			const struct pg_rep *rep, const struct pg_excfix *fix)
{
	const char *cmd = l->argv[0], *side = l->side;
	const double t = (double)o->timeout_ms / 1000;

	if (l->timed_out && !o->allow_failure) {
		pg_err("%s side: %s ran past --timeout %g s (pair %u): its processes were ended; "
		       "no run files written (--allow-failure records it anyway)", side, cmd, t,
		       i + 1);
		return -ETIME;
	}
	if (l->timed_out)
		pg_warn("%s side: %s ran past --timeout %g s (pair %u): its processes were ended",
			side, cmd, t, i + 1);
	if ((rep->signal || rep->exit_code) && !o->allow_failure) {
		if (rep->signal)
			pg_err("%s side: %s was killed by signal %d (%s) in pair %u; no run files "
			       "written%s", side, cmd, rep->signal, strsignal(rep->signal), i + 1,
			       abort_hint(rep, fix));
		else
			pg_err("%s side: %s exited with status %d in pair %u; no run files written "
			       "(--allow-failure records it anyway)", side, cmd, rep->exit_code,
			       i + 1);
		return -ECHILD;
	}
	return 0;
}

int pg_launch_verdict(const struct pg_record_opts *o, const struct pg_launch *l, uint32_t i,
		      const struct pg_rep *rep, const struct pg_excfix *fix)
{
	if (l->side)
		return side_verdict(o, l, i, rep, fix);
	if (l->timed_out && !o->allow_failure) {
		pg_err("repetition %u ran past --timeout %g s: its processes were ended; no "
		       "run file written (--allow-failure records it anyway)", i + 1,
		       (double)o->timeout_ms / 1000);
		return -ETIME;
	}
	if (l->timed_out)
		pg_warn("repetition %u ran past --timeout %g s: its processes were ended",
			i + 1, (double)o->timeout_ms / 1000);
	if ((rep->signal || rep->exit_code) && !o->allow_failure) {
		if (rep->signal)
			pg_err("repetition %u: the benchmark was killed by signal %d (%s); "
			       "no run file written%s", i + 1, rep->signal,
			       strsignal(rep->signal), abort_hint(rep, fix));
		else
			pg_err("repetition %u: the benchmark exited with status %d; no run "
			       "file written (--allow-failure records it anyway)", i + 1,
			       rep->exit_code);
		return -ECHILD;
	}
	return 0;
}

int pg_launch_end(struct pg_launch *l, int err)
{
	/* a stop signal that came after the last repetition still means: no run file */
	if (!err && l->sig.blocked && (l->stop_signal = pg_signals_wait(0)))
		err = pg_launch_stopped_by(l->stop_signal);
	pg_signals_restore(&l->sig);
	pg_creds_release(&l->creds);
	pg_gb_launch_release(&l->gb);
	free(l->preload);
	l->preload = NULL;
	return err;
}
