// SPDX-License-Identifier: MIT
/*
 * runner/select/objects.c - the ELF objects the benchmark's processes mapped (objects.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "../../core/run.h"
#include "objects.h"

void pg_objects_release(struct pg_objects *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].build_id);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const struct pg_object *pg_objects_find(const struct pg_objects *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].path, path))
			return &s->v[i];
	return NULL;
}

static struct pg_object *get(struct pg_objects *s, const char *path)
{
	struct pg_object *o = (struct pg_object *)pg_objects_find(s, path);

	if (o)
		return o;
	if (PG_ALLOC_GROW(s->v, s->n + 1, s->alloc))
		return NULL;
	o = &s->v[s->n];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return NULL;
	s->n++;
	return o;
}

struct pg_object *pg_objects_note(struct pg_objects *s, const char *path, const char *build_id,
				  bool exe, uint32_t rep)
{
	struct pg_object *o = get(s, path);

	if (!o)
		return NULL;
	if (build_id && !o->build_id && !(o->build_id = strdup(build_id)))
		return NULL;
	o->exe |= exe;
	if (rep && o->last_rep != rep) {
		o->reps++;
		o->last_rep = rep;
	}
	return o;
}

int pg_objects_count_self(struct pg_objects *s, const char *path, uint64_t n)
{
	struct pg_object *o = get(s, path);

	if (!o)
		return -ENOMEM;
	o->self += n;
	s->samples_user += n;
	return 0;
}

int pg_objects_count_ran(struct pg_objects *s, const char *path, uint64_t n)
{
	struct pg_object *o = get(s, path);

	if (!o)
		return -ENOMEM;
	o->ran += n;
	o->exe = true;
	return 0;
}

int pg_objects_copy(struct pg_objects *to, const struct pg_objects *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct pg_object *f = &from->v[i];
		struct pg_object *o = pg_objects_note(to, f->path, f->build_id, f->exe, 0);

		if (!o) {
			pg_objects_release(to);
			return -ENOMEM;
		}
		o->self = f->self;
		o->ran = f->ran;
		o->reps = f->reps;
		o->last_rep = f->last_rep;
		o->sides = f->sides;
	}
	to->samples_user = from->samples_user;
	return 0;
}

bool pg_object_name_matches(const char *base, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(base, name, n) && (!base[n] || base[n] == '.');
}

const struct pg_object *pg_objects_by_name(const struct pg_objects *s, const char *name)
{
	const struct pg_object *best = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct pg_object *o = &s->v[i];

		if (pg_object_name_matches(pg_basename(o->path), name) &&
		    (!best || o->self > best->self))
			best = o;
	}
	return best;
}

bool pg_object_is_system(const char *path)
{
	static const char *const dirs[] = {
		"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/", "/bin/",
		"/sbin/", "/usr/bin/", "/usr/sbin/",
	};

	if (path[0] != '/')
		return true;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

size_t pg_objects_candidates(const struct pg_objects *s, bool *take)
{
	double all = (double)s->samples_user;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct pg_object *o = &s->v[i];
		double share = all > 0 ? (double)o->self / all : 0;

		take[i] = o->self && share >= (pg_object_is_system(o->path) ?
					       PG_SYSTEM_MIN_SHARE : PG_PROJECT_MIN_SHARE);
		n += take[i];
	}
	return n;
}
