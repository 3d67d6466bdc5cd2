// SPDX-License-Identifier: MIT
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/capability.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "privs.h"

bool pg_can_record(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];
	bool found = false;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found = true;
	fclose(f);
	if (!found)
		return geteuid() == 0;
	/* CAP_SYS_ADMIN (21), or CAP_PERFMON (38) and CAP_BPF (39) */
	return (eff >> 21 & 1) || ((eff >> 38 & 1) && (eff >> 39 & 1));
}

/* A decimal id without sign or junk, as sudo writes SUDO_UID. */
static int parse_id(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= UINT_MAX)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* Name @c after user @name and fill its supplementary groups (c->gid set). 0 or -errno. */
static int fill_groups(struct pg_creds *c, const char *name)
{
	size_t alloc = 0;	/* c->groups is only ever grown here */
	int n = 16;

	free(c->name);
	c->name = strdup(name);
	if (!c->name)
		return -ENOMEM;
	for (;;) {
		int want = n;

		if (PG_ALLOC_GROW(c->groups, (size_t)n, alloc))
			return -ENOMEM;
		if (getgrouplist(name, c->gid, c->groups, &want) >= 0) {
			c->ngroups = (size_t)want;
			return 0;
		}
		if (want <= n || want > 65536)
			return -E2BIG;
		n = want;
	}
}

int pg_creds_choose(const char *user, struct pg_creds *c)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned int uid, gid;
	int err;

	memset(c, 0, sizeof(*c));
	if (user) {
		if (geteuid() != 0) {
			pg_err("--user %s: perfgate must run as root to start the benchmark as "
			       "another user", user);
			return -EPERM;
		}
		pw = getpwnam(user);
		if (!pw && !parse_id(user, &uid))
			pw = getpwuid(uid);
		if (!pw) {
			pg_err("--user %s: no such user", user);
			return -ENOENT;
		}
		c->uid = pw->pw_uid;
		c->gid = pw->pw_gid;
		err = fill_groups(c, pw->pw_name);
	} else if (geteuid() == 0 && sudo_uid) {
		if (parse_id(sudo_uid, &uid) || parse_id(sudo_gid, &gid)) {
			pg_err("SUDO_UID '%s' or SUDO_GID '%s' is not a user and group id "
			       "(unset them, or choose the user with --user NAME)", sudo_uid,
			       sudo_gid ? sudo_gid : "");
			return -EINVAL;
		}
		c->uid = uid;
		c->gid = gid;
		pw = getpwuid(uid);
		if (pw) {
			err = fill_groups(c, pw->pw_name);
		} else {	/* no passwd entry: the primary group only */
			char name[32];

			snprintf(name, sizeof(name), "uid %u", uid);
			c->name = strdup(name);
			c->groups = malloc(sizeof(*c->groups));
			err = c->name && c->groups ? 0 : -ENOMEM;
			if (!err) {
				c->groups[0] = gid;
				c->ngroups = 1;
			}
		}
	} else {
		if (geteuid() == 0)
			pg_warn("the benchmark runs as root: perfgate was started as root without "
				"sudo (--user NAME runs it as another user)");
		return 0;
	}
	if (err) {
		pg_err("cannot look up the groups of %s: %s", c->name ? c->name : user,
		       strerror(-err));
		pg_creds_release(c);
		return err;
	}
	c->change = true;
	return 0;
}

void pg_creds_release(struct pg_creds *c)
{
	free(c->groups);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

int pg_creds_apply(const struct pg_creds *c)
{
	if (!c->change)
		return 0;
	if (setgroups(c->ngroups, c->groups) || setgid(c->gid) || setuid(c->uid))
		return -errno;
	/* setuid from root to non-root drops every capability; make sure it did */
	if (c->uid && (setuid(0) == 0 || geteuid() == 0))
		return -EPERM;
	return 0;
}

int pg_caps_drop(bool switch_user, bool sampling)
{
	cap_value_t want[8], keep[8];
	cap_t now = cap_get_proc(), caps = cap_init();
	int n = 0, nkeep = 0, err = 0;

	want[n++] = CAP_KILL;
	want[n++] = CAP_DAC_OVERRIDE;
	if (switch_user) {
		want[n++] = CAP_SETUID;
		want[n++] = CAP_SETGID;
	}
	if (sampling) {
		want[n++] = CAP_PERFMON;
		want[n++] = CAP_BPF;
		want[n++] = CAP_SYS_PTRACE;
	}
	if (!now || !caps) {
		err = -ENOMEM;
		goto out;
	}
	/* only what we have: capset refuses to add to the permitted set */
	for (int i = 0; i < n; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (!cap_get_flag(now, want[i], CAP_PERMITTED, &v) && v == CAP_SET)
			keep[nkeep++] = want[i];
	}
	/*
	 * Sampling a benchmark that stays root: at exec root regains every capability, and a
	 * permitted set larger than before the exec makes the kernel treat it as a privilege
	 * gain: the process becomes non-dumpable and its perf events (the sampler's) are
	 * detached. So keep the permitted set whole and reduce only the effective one.
	 */
	if (sampling && !switch_user && geteuid() == 0) {
		cap_free(caps);
		caps = cap_dup(now);
		if (!caps || cap_clear_flag(caps, CAP_EFFECTIVE)) {
			err = caps ? -errno : -ENOMEM;
			goto out;
		}
	}
	if (nkeep && (cap_set_flag(caps, CAP_PERMITTED, nkeep, keep, CAP_SET) ||
		      cap_set_flag(caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET))) {
		err = -errno;
		goto out;
	}
	if (cap_set_proc(caps))
		err = -errno;
out:
	if (err)
		pg_err("cannot drop capabilities: %s", strerror(-err));
	cap_free(now);
	cap_free(caps);
	return err;
}
