// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/alloc.h"
#include "../../core/strv.h"
#include "../select/elfsyms.h"
#include "ownsamples.h"

struct pg_owntab_file {
	char *path;
	bool loaded;		/* syms holds its functions (else it could not be read) */
	struct pg_elf_syms syms;
};

/* The index of @path in the table, added when new; -ENOMEM. */
static long path_index(struct pg_owntab *t, const char *path)
{
	for (size_t i = t->npaths; i-- > 0;)
		if (!strcmp(t->paths[i], path))
			return (long)i;
	if (pg_strv_push(&t->paths, &t->npaths, path))
		return -ENOMEM;
	return (long)t->npaths - 1;
}

/* @path's functions, read on first use; NULL on ENOMEM. */
static struct pg_owntab_file *file_of(struct pg_owntab *t, const char *path)
{
	struct pg_owntab_file *f;

	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i].path, path))
			return &t->files[i];
	if (PG_ALLOC_GROW(t->files, t->nfiles + 1, t->allocfiles))
		return NULL;
	f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	t->nfiles++;
	/* an unreadable file (replaced since it was mapped) keeps its names unscoped */
	f->loaded = !pg_elf_syms_load(path, &f->syms);
	return f;
}

/* The scope of the function named @frame[0..len) at @sym in @f, or NULL when it has none. */
static const char *scope_of(const struct pg_owntab_file *f, const char *frame, size_t len,
			    uint64_t sym)
{
	size_t lo = 0, hi = f->loaded ? f->syms.n : 0;

	while (lo < hi) {	/* the first symbol at or above sym */
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms.syms[mid].addr < sym)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < f->syms.n && f->syms.syms[i].addr == sym; i++) {
		const struct pg_sym *s = &f->syms.syms[i];
		const char *n = s->display ? s->display : s->name;

		if (s->scope && strlen(n) == len && !memcmp(n, frame, len))
			return s->scope;
	}
	return NULL;
}

int pg_owntab_note(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		   size_t len, uint64_t sym, const char **name)
{
	struct pg_owntab_file *f = file_of(t, object);
	long o = path_index(t, object), e = path_index(t, exe ? exe : object);
	const char *scope;
	struct pg_own *w;
	int n;

	if (!f || o < 0 || e < 0 || PG_ALLOC_GROW(t->pend, t->npend + 1, t->allocpend))
		return -ENOMEM;
	scope = scope_of(f, frame, len, sym);
	w = &t->pend[t->npend];
	w->object = (uint32_t)o;
	w->exe = (uint32_t)e;
	w->count = 1;
	n = scope ? asprintf(&w->frame, "%.*s [%s]", (int)len, frame, scope) :
		    asprintf(&w->frame, "%.*s", (int)len, frame);
	if (n < 0)
		return -ENOMEM;
	t->npend++;
	if (name)
		*name = w->frame;
	return 0;
}

int pg_owntab_take(struct pg_owntab *t, struct pg_rep *rep)
{
	size_t n = 0;

	if (!t->npend)
		return 0;
	qsort(t->pend, t->npend, sizeof(*t->pend), pg_own_cmp);
	for (size_t i = 0; i < t->npend; i++) {
		if (n && !pg_own_cmp(&t->pend[n - 1], &t->pend[i])) {
			t->pend[n - 1].count += t->pend[i].count;
			free(t->pend[i].frame);
		} else {
			t->pend[n++] = t->pend[i];
		}
	}
	rep->own = t->pend;
	rep->nown = n;
	t->pend = NULL;
	t->npend = t->allocpend = 0;
	return 0;
}

void pg_owntab_drop(struct pg_owntab *t)
{
	for (size_t i = 0; i < t->npend; i++)
		free(t->pend[i].frame);
	t->npend = 0;
}

int pg_owntab_objects(const struct pg_owntab *t, struct pg_run *run)
{
	char **v = NULL;
	size_t n = 0;

	if (pg_strv_dup(&v, &n, t->paths, t->npaths))
		return -ENOMEM;
	pg_strv_free(run->objects, run->nobjects);
	run->objects = v;
	run->nobjects = n;
	return 0;
}

void pg_owntab_release(struct pg_owntab *t)
{
	pg_owntab_drop(t);
	free(t->pend);
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		if (t->files[i].loaded)
			pg_elf_syms_release(&t->files[i].syms);
	}
	free(t->files);
	pg_strv_free(t->paths, t->npaths);
	memset(t, 0, sizeof(*t));
}
