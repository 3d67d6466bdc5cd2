/* SPDX-License-Identifier: MIT */
/*
 * runner/launch/privs.h - who the benchmark runs as, and what perfgate keeps while it traces.
 *
 * Recording needs root (or CAP_BPF and CAP_PERFMON), but the benchmark, which in CI is code
 * from a pull request, should not inherit root by accident:
 *  - `--user NAME` (or a numeric uid): the benchmark runs as that user, with its primary group
 *    and supplementary groups (as login would set them);
 *  - else under sudo (perfgate is root and SUDO_UID is set): as SUDO_UID/SUDO_GID with that
 *    user's groups;
 *  - else, root without sudo (a CI container): as root, after a one-line warning naming --user.
 * The switch happens in the forked child just before exec (setgroups, setgid, setuid): the
 * benchmark keeps perfgate's environment, working directory and stdin/stdout/stderr.
 *
 * Once the probes are attached, pg_caps_drop() reduces perfgate's effective and permitted
 * capabilities to those the repetitions still need (docs/security.md lists them). The
 * bounding set is left alone, so a benchmark that runs as root still gets root's capabilities.
 */
#ifndef PG_PRIVS_H
#define PG_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Does this process have what recording needs (root, or CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN)? Read from /proc/self/status; without it, whether the effective uid is 0.
 */
bool pg_can_record(void);

struct pg_creds {
	bool change;		/* switch to uid/gid/groups before exec */
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t *groups;		/* supplementary groups */
	char *name;		/* user name, for messages */
};

/* Decide whom the benchmark runs as (@user: --user, or NULL). 0 or -errno (logged). */
int pg_creds_choose(const char *user, struct pg_creds *c);
void pg_creds_release(struct pg_creds *c);

/* In the forked child: become c's user. Async-signal-safe. 0 or -errno. */
int pg_creds_apply(const struct pg_creds *c);

/*
 * Keep only the capabilities the repetitions need: CAP_KILL (stop a tree running as another
 * user), CAP_DAC_OVERRIDE (write the run file where root could), CAP_SETUID and CAP_SETGID
 * when @switch_user, and CAP_PERFMON, CAP_BPF and CAP_SYS_PTRACE when @sampling (a perf event
 * per repetition, the benchmark's /proc maps). 0 or -errno (logged).
 */
int pg_caps_drop(bool switch_user, bool sampling);

#endif
