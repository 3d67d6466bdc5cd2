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

/* The index of @path in the table, added when new; -ENOMEM. *@hint: the last one found, tried
 * first. */
static long path_index(struct pg_owntab *t, const char *path, size_t *hint)
{
	if (*hint < t->npaths && !strcmp(t->paths[*hint], path))
		return (long)*hint;
	for (size_t i = t->npaths; i-- > 0;)
		if (!strcmp(t->paths[i], path)) {
			*hint = i;
			return (long)i;
		}
	if (pg_strv_push(&t->paths, &t->npaths, path))
		return -ENOMEM;
	*hint = t->npaths - 1;
	return (long)t->npaths - 1;
}

/* @path's functions, read on first use; NULL on ENOMEM. */
static struct pg_owntab_file *file_of(struct pg_owntab *t, const char *path)
{
	struct pg_owntab_file *f;

	if (t->hint_file < t->nfiles && !strcmp(t->files[t->hint_file].path, path))
		return &t->files[t->hint_file];
	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i].path, path)) {
			t->hint_file = i;
			return &t->files[i];
		}
	if (PG_ALLOC_GROW(t->files, t->nfiles + 1, t->allocfiles))
		return NULL;
	f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	t->hint_file = t->nfiles++;
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

/* w := the function named @frame[0..len) at @sym of @object in a process running @exe, one
 * sample. 0 or -ENOMEM. */
static int own_entry(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		     size_t len, uint64_t sym, struct pg_own *w)
{
	struct pg_owntab_file *f = file_of(t, object);
	long o = path_index(t, object, &t->hint_obj);
	long e = !exe || !strcmp(exe, object) ? o : path_index(t, exe, &t->hint_exe);
	const char *scope;
	int n;

	if (!f || o < 0 || e < 0)
		return -ENOMEM;
	scope = scope_of(f, frame, len, sym);
	w->object = (uint32_t)o;
	w->exe = (uint32_t)e;
	w->count = 1;
	n = scope ? asprintf(&w->frame, "%.*s [%s]", (int)len, frame, scope) :
		    asprintf(&w->frame, "%.*s", (int)len, frame);
	return n < 0 ? -ENOMEM : 0;
}

int pg_owntab_note(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		   size_t len, uint64_t sym, const char **name)
{
	struct pg_own *w;

	if (PG_ALLOC_GROW(t->pend, t->npend + 1, t->allocpend))
		return -ENOMEM;
	w = &t->pend[t->npend];
	if (own_entry(t, object, exe, frame, len, sym, w))
		return -ENOMEM;
	t->npend++;
	if (name)
		*name = w->frame;
	return 0;
}

int pg_owntab_frame(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		    size_t len, uint64_t sym)
{
	long o = path_index(t, object, &t->hint_obj);

	if (o < 0)
		return -ENOMEM;
	/* a function recurring in the stack is named once: its symbol tells it */
	for (size_t i = 0; i < t->nstk; i++)
		if (t->stksym[i] == sym && t->stk[i].object == (uint32_t)o)
			return 0;
	if (PG_ALLOC_GROW(t->stk, t->nstk + 1, t->allocstk) ||
	    PG_ALLOC_GROW(t->stksym, t->nstk + 1, t->allocstksym) ||
	    own_entry(t, object, exe, frame, len, sym, &t->stk[t->nstk]))
		return -ENOMEM;
	t->stksym[t->nstk++] = sym;
	return 0;
}

/* Sort v[0..n) and add up the counts of equal entries: returns the entries left. */
static size_t own_merge(struct pg_own *v, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), pg_own_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && !pg_own_cmp(&v[m - 1], &v[i])) {
			v[m - 1].count += v[i].count;
			free(v[i].frame);
		} else {
			v[m++] = v[i];
		}
	}
	return m;
}

/* Below this many entries this repetition's inclusive samples are not added up as they come. */
#define INCL_MERGE_MIN 4096

int pg_owntab_stack_end(struct pg_owntab *t)
{
	size_t n = own_merge(t->stk, t->nstk);

	t->nstk = 0;
	for (size_t i = 0; i < n; i++)
		t->stk[i].count = 1;	/* a function recurring in the stack counts once */
	if (PG_ALLOC_GROW(t->incl, t->nincl + n, t->allocincl)) {
		for (size_t i = 0; i < n; i++)
			free(t->stk[i].frame);
		return -ENOMEM;
	}
	memcpy(t->incl + t->nincl, t->stk, n * sizeof(*t->stk));
	t->nincl += n;
	/* the same functions sample after sample: added up, the table stays their number */
	if (t->nincl >= INCL_MERGE_MIN + 2 * t->mergedincl) {
		t->nincl = own_merge(t->incl, t->nincl);
		t->mergedincl = t->nincl;
	}
	return 0;
}

int pg_owntab_take(struct pg_owntab *t, struct pg_rep *rep)
{
	size_t n = own_merge(t->pend, t->npend);

	if (n) {
		rep->own = t->pend;
		rep->nown = n;
		t->pend = NULL;
		t->npend = t->allocpend = 0;
	}
	n = own_merge(t->incl, t->nincl);
	if (n) {
		rep->incl = t->incl;
		rep->nincl = n;
		t->incl = NULL;
		t->nincl = t->allocincl = 0;
	}
	pg_owntab_drop(t);
	return 0;
}

static void owns_clear(struct pg_own *v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free(v[i].frame);
	*n = 0;
}

void pg_owntab_drop(struct pg_owntab *t)
{
	owns_clear(t->pend, &t->npend);
	owns_clear(t->incl, &t->nincl);
	owns_clear(t->stk, &t->nstk);
	t->mergedincl = 0;
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
	free(t->incl);
	free(t->stk);
	free(t->stksym);
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		if (t->files[i].loaded)
			pg_elf_syms_release(&t->files[i].syms);
	}
	free(t->files);
	pg_strv_free(t->paths, t->npaths);
	memset(t, 0, sizeof(*t));
}
