// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/alloc.h"
#include "../../core/hash.h"
#include "framecode.h"

enum fc_state { FC_NONE, FC_ONE, FC_MANY };

struct pg_framecode {
	char *frame;
	struct {
		enum fc_state state;
		char *path;		/* FC_ONE: the object, and the symbol's address in it */
		uint64_t addr;
		uint64_t digest;	/* FC_ONE: its digest once taken, else 0 */
		bool failed;		/* FC_ONE: it has none (pg_codesum() said why) */
	} side[PG_FRAMECODE_SIDES];
};

/* The slot of @frame[0..len): its entry's, or the free one where it would go. */
static size_t find_slot(const struct pg_framecodes *t, const char *frame, size_t len)
{
	size_t h = (size_t)pg_fnv1a(PG_FNV1A_INIT, frame, len) & (t->cap - 1);

	while (t->slots[h]) {
		const char *f = t->v[t->slots[h] - 1].frame;

		if (!strncmp(f, frame, len) && !f[len])
			return h;
		h = (h + 1) & (t->cap - 1);
	}
	return h;
}

static int grow_slots(struct pg_framecodes *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, *old = t->slots, oldcap = t->cap;

	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		const char *f;

		if (!old[i])
			continue;
		f = t->v[old[i] - 1].frame;
		t->slots[find_slot(t, f, strlen(f))] = old[i];
	}
	free(old);
	return 0;
}

static struct pg_framecode *get(struct pg_framecodes *t, const char *frame, size_t len)
{
	struct pg_framecode *e;
	size_t h;

	if ((t->n + 1) * 2 > t->cap && grow_slots(t))
		return NULL;
	h = find_slot(t, frame, len);
	if (t->slots[h])
		return &t->v[t->slots[h] - 1];
	if (PG_ALLOC_GROW(t->v, t->n + 1, t->alloc))
		return NULL;
	e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	e->frame = strndup(frame, len);
	if (!e->frame)
		return NULL;
	t->slots[h] = ++t->n;
	return e;
}

int pg_framecodes_note(struct pg_framecodes *t, const char *frame, size_t len, int side,
		       const char *path, uint64_t addr)
{
	struct pg_framecode *e;

	if (side < 0 || side >= PG_FRAMECODE_SIDES || !len)
		return 0;
	e = get(t, frame, len);
	if (!e)
		return -ENOMEM;
	switch (e->side[side].state) {
	case FC_NONE:
		if (!path || addr == PG_NO_SYM) {
			e->side[side].state = FC_MANY;
			return 0;
		}
		e->side[side].path = strdup(path);
		if (!e->side[side].path)
			return -ENOMEM;
		e->side[side].addr = addr;
		e->side[side].state = FC_ONE;
		return 0;
	case FC_ONE:
		if (!path || addr != e->side[side].addr || strcmp(path, e->side[side].path))
			e->side[side].state = FC_MANY;
		return 0;
	case FC_MANY:
		return 0;
	}
	return 0;
}

static int cmp_code(const void *a, const void *b)
{
	return strcmp(((const struct pg_code *)a)->frame, ((const struct pg_code *)b)->frame);
}

/* The digest of @e's function on side @side, taken once; 0 when it has none. */
static int digest_of(struct pg_framecode *e, int side, struct pg_codesums *cs, uint64_t *d)
{
	int err;

	if (!e->side[side].digest && !e->side[side].failed) {
		err = pg_codesum(cs, e->side[side].path, e->side[side].addr, &e->side[side].digest);
		if (err == -ENOMEM)
			return err;
		e->side[side].failed = err != 0;
	}
	*d = e->side[side].failed ? 0 : e->side[side].digest;
	return 0;
}

int pg_framecodes_fill(struct pg_framecodes *t, int side, struct pg_codesums *cs,
		       struct pg_run *run)
{
	size_t alloc = 0;

	pg_run_codes_release(run);
	if (side < 0 || side >= PG_FRAMECODE_SIDES)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		struct pg_framecode *e = &t->v[i];
		struct pg_code *c;
		uint64_t d;

		if (e->side[side].state != FC_ONE)
			continue;
		if (digest_of(e, side, cs, &d))
			return -ENOMEM;
		if (!d)
			continue;
		if (PG_ALLOC_GROW(run->codes, run->ncodes + 1, alloc))
			return -ENOMEM;
		c = &run->codes[run->ncodes];
		c->frame = strdup(e->frame);
		if (!c->frame)
			return -ENOMEM;
		c->digest = d;
		run->ncodes++;
	}
	if (run->ncodes)
		qsort(run->codes, run->ncodes, sizeof(*run->codes), cmp_code);
	return 0;
}

void pg_framecodes_release(struct pg_framecodes *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].frame);
		for (int s = 0; s < PG_FRAMECODE_SIDES; s++)
			free(t->v[i].side[s].path);
	}
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
