// SPDX-License-Identifier: MIT
/* core/env.c - library entries of a run's environment and two environments' differences. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "strbuf.h"
#include "strv.h"

/* the CPU flags a difference names at most, added and removed together */
#define ENV_MAX_FLAGS 6
/* the hex digits of a build-id a difference shows */
#define ENV_BUILD_ID_SHOWN 12

/* @s, or "-" when it is unknown or cannot be a field (empty, or with a space) */
static const char *field(const char *s)
{
	return s && *s && !strchr(s, ' ') ? s : "-";
}

char *pg_env_lib_value(const char *package, const char *version, const char *build_id,
		       const char *path)
{
	char *s;

	if (asprintf(&s, "%s %s %s %s", field(package), field(version), field(build_id),
		     path) < 0)
		return NULL;
	return s;
}

void pg_env_lib_release(struct pg_env_lib *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

int pg_env_lib_parse(const char *value, struct pg_env_lib *l)
{
	const char **fields[] = { &l->package, &l->version, &l->build_id };
	char *p;

	memset(l, 0, sizeof(*l));
	l->buf = strdup(value);
	if (!l->buf)
		return -ENOMEM;
	p = l->buf;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *sp = strchr(p, ' ');

		if (!sp || sp == p) {
			pg_env_lib_release(l);
			return -EINVAL;
		}
		*sp = '\0';
		*fields[i] = strcmp(p, "-") ? p : NULL;
		p = sp + 1;
	}
	if (!*p) {
		pg_env_lib_release(l);
		return -EINVAL;
	}
	l->path = p;
	return 0;
}

/* The CPU flags of one side that the other lacks, " +a +b" or " -a", at most @max of them. */
static void flags_only(struct pg_strbuf *b, const char *mine, const char *theirs, char sign,
		       size_t *shown, size_t max, size_t *skipped)
{
	for (const char *p = mine; *p;) {
		size_t n = strcspn(p, " ");
		bool found = false;

		for (const char *q = theirs; *q && !found;) {
			size_t m = strcspn(q, " ");

			found = m == n && !strncmp(p, q, n);
			q += m + strspn(q + m, " ");
		}
		if (n && !found && *shown < max) {
			pg_strbuf_addf(b, " %c%.*s", sign, (int)n, p);
			(*shown)++;
		} else if (n && !found) {
			(*skipped)++;
		}
		p += n + strspn(p + n, " ");
	}
}

/* Push "NAME A -> B" when both are known and differ. 0 or -ENOMEM. */
static int item(char ***v, size_t *n, const char *name, const char *a, const char *b)
{
	char *s;
	int err;

	if (!a || !b || !strcmp(a, b))
		return 0;
	if (asprintf(&s, "%s %s -> %s", name, a, b) < 0)
		return -ENOMEM;
	err = pg_strv_push(v, n, s);
	free(s);
	return err;
}

static int flags_item(char ***v, size_t *n, const char *fa, const char *fb)
{
	struct pg_strbuf b = PG_STRBUF_INIT;
	size_t shown = 0, skipped = 0;
	int err;

	if (!fa || !fb || !strcmp(fa, fb))
		return 0;
	pg_strbuf_add(&b, "CPU flags");
	flags_only(&b, fb, fa, '+', &shown, ENV_MAX_FLAGS, &skipped);
	flags_only(&b, fa, fb, '-', &shown, ENV_MAX_FLAGS, &skipped);
	if (skipped)
		pg_strbuf_addf(&b, " (%zu more)", skipped);
	err = b.err ? -ENOMEM : pg_strv_push(v, n, b.s);
	pg_strbuf_release(&b);
	return err;
}

/* The item of library @soname, whose entries are @va and @vb (either may be NULL). */
static int lib_item(char ***v, size_t *n, const char *soname, const char *va, const char *vb)
{
	struct pg_env_lib a, b;
	char ba[ENV_BUILD_ID_SHOWN + 1], bb[ENV_BUILD_ID_SHOWN + 1], name[300];
	int err = 0;

	if (!va || !vb || pg_env_lib_parse(va, &a))
		return 0;
	if (pg_env_lib_parse(vb, &b)) {
		pg_env_lib_release(&a);
		return 0;
	}
	if (a.version && b.version && strcmp(a.version, b.version)) {
		err = item(v, n, soname, a.version, b.version);
	} else if (a.build_id && b.build_id && strcmp(a.build_id, b.build_id)) {
		snprintf(ba, sizeof(ba), "%s", a.build_id);
		snprintf(bb, sizeof(bb), "%s", b.build_id);
		snprintf(name, sizeof(name), "%s build-id", soname);
		/* differing past the digits shown: show them whole */
		err = item(v, n, name, strcmp(ba, bb) ? ba : a.build_id,
			   strcmp(ba, bb) ? bb : b.build_id);
	}
	pg_env_lib_release(&a);
	pg_env_lib_release(&b);
	return err;
}

int pg_env_diffs(const struct pg_meta *base, const struct pg_meta *new, char ***items, size_t *n)
{
	size_t plen = strlen(PG_ENV_LIB_PREFIX);
	char **v = NULL;
	size_t nv = 0;
	int err = 0;

	if (base && new) {
		err = item(&v, &nv, "kernel", base->kernel, new->kernel);
		err = err ?: item(&v, &nv, "CPU", base->cpu_model, new->cpu_model);
		err = err ?: flags_item(&v, &nv, pg_env_get(base, "cpu_flags"),
					pg_env_get(new, "cpu_flags"));
	}
	/* the other entries, then the libraries: two passes over @new's sorted keys */
	for (int libs = 0; base && new && libs < 2; libs++) {
		for (size_t i = 0; i < new->nenv && !err; i++) {
			const char *kv = new->env[i];
			size_t k = strcspn(kv, "=");
			char key[256];

			if (k >= sizeof(key) || (!strncmp(kv, PG_ENV_LIB_PREFIX, plen)) != libs)
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)k, kv);
			if (libs)
				err = lib_item(&v, &nv, key + plen, pg_env_get(base, key),
					       kv + k + 1);
			else if (strcmp(key, "cpu_flags"))
				err = item(&v, &nv, key, pg_env_get(base, key), kv + k + 1);
		}
	}
	if (err) {
		pg_strv_free(v, nv);
		return -ENOMEM;
	}
	*items = v;
	*n = nv;
	return 0;
}
