// SPDX-License-Identifier: MIT
/*
 * diff/cause.c - the cause line of a function whose code did not change (cause.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/sort.h"
#include "cause.h"
#include "kshare.h"
#include "probeframes.h"
#include "verdict.h"
#include "waker.h"

size_t pg_frame_name_len(const char *name)
{
	size_t n = strlen(name);
	const char *b = n && name[n - 1] == ']' ? strrchr(name, '[') : NULL;

	if (b && b > name + 1 && b[-1] == ' ' && !memchr(b, ' ', (size_t)(name + n - b)))
		return (size_t)(b - 1 - name);
	return n;
}

/* A piece of a string. */
struct piece {
	const char *s;
	size_t len;
};

static bool piece_is(struct piece p, const char *s, size_t len)
{
	return p.len == len && !memcmp(p.s, s, len);
}

/* "obj (prog)" into its object and program; "obj" is both. */
static void bin_parts(const char *bin, struct piece *obj, struct piece *prog)
{
	const char *sp = strstr(bin, " (");
	size_t n = strlen(bin);

	if (sp && n && bin[n - 1] == ')') {
		*obj = (struct piece){ bin, (size_t)(sp - bin) };
		*prog = (struct piece){ sp + 2, (size_t)(bin + n - 1 - (sp + 2)) };
	} else {
		*obj = *prog = (struct piece){ bin, n };
	}
}

bool pg_same_process(const char *a, const char *b)
{
	struct piece ao, ap, bo, bp;

	if (!*a || !*b)
		return true;
	bin_parts(a, &ao, &ap);
	bin_parts(b, &bo, &bp);
	return piece_is(ao, bo.s, bo.len) || piece_is(ao, bp.s, bp.len) ||
	       piece_is(ap, bo.s, bo.len) || piece_is(ap, bp.s, bp.len);
}

/* The frame name of entry @f in stacks. */
static struct piece frame_of(const struct pg_fcmp *f)
{
	const char *s = f->origin == PG_ORIGIN_SAMPLED ? f->name : f->display;

	return (struct piece){ s, pg_frame_name_len(s) };
}

/* Its object alone: a sampled entry's "object (program)" without the program. */
static struct piece object_of(const struct pg_fcmp *f)
{
	struct piece obj, prog;

	bin_parts(f->binary, &obj, &prog);
	return obj;
}

/* Does an own sample of @run hold frame @fr in an object other than @obj, or one of several
 * functions of that name in its object? */
static bool own_elsewhere(const struct pg_run *run, const struct pg_run *base, struct piece fr,
			  struct piece obj)
{
	const char *prog = run->meta.program, *alias = base->meta.program;

	for (size_t r = 0; r < run->nreps; r++)
		for (size_t k = 0; k < run->reps[r].nown; k++) {
			const struct pg_own *w = &run->reps[r].own[k];
			const char *o = run->objects[w->object];

			if (pg_frame_name_len(w->frame) != fr.len || memcmp(w->frame, fr.s, fr.len))
				continue;
			if (prog && alias && !strcmp(o, prog))
				o = alias;
			o = pg_basename(o);
			if (!piece_is(obj, o, strlen(o)) || w->frame[fr.len])
				return true;
		}
	return false;
}

/* Is @f one of several functions of its name in its object (struct pg_func scope)? */
static bool scoped(const struct pg_fcmp *f)
{
	struct piece fr = frame_of(f);

	return f->scope || fr.s[fr.len];
}

bool pg_name_shared(const struct pg_comparison *c, const struct pg_fcmp *f,
		    const struct pg_run *base, const struct pg_run *new)
{
	struct piece fr = frame_of(f), obj = object_of(f);

	if (scoped(f))
		return true;
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *g = &c->f[i];
		struct piece gf, go;

		if (g == f || g->origin == PG_ORIGIN_PROGRAM || !g->name || !g->display)
			continue;
		gf = frame_of(g);
		go = object_of(g);
		if (piece_is(gf, fr.s, fr.len) && (!piece_is(go, obj.s, obj.len) || scoped(g)))
			return true;
	}
	return own_elsewhere(base, base, fr, obj) || own_elsewhere(new, base, fr, obj);
}

struct pg_fcount *pg_fcounts_find(struct pg_fcounts *t, const char *s, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].len == len && !memcmp(t->v[i].s, s, len))
			return &t->v[i];
	return NULL;
}

struct pg_fcount *pg_fcounts_get(struct pg_fcounts *t, const char *s, size_t len)
{
	struct pg_fcount *e = pg_fcounts_find(t, s, len);

	if (e)
		return e;
	if (PG_ALLOC_GROW(t->v, t->n + 1, t->cap))
		return NULL;
	e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	e->s = s;
	e->len = len;
	e->cnt[0] = calloc(t->nreps[0] ? t->nreps[0] : 1, sizeof(double));
	e->cnt[1] = calloc(t->nreps[1] ? t->nreps[1] : 1, sizeof(double));
	if (!e->cnt[0] || !e->cnt[1]) {
		free(e->cnt[0]);
		free(e->cnt[1]);
		return NULL;
	}
	t->n++;
	return e;
}

/* Side @side's weights (struct pg_fcounts w) from @run. 0 or -ENOMEM. */
static int weights(struct pg_fcounts *t, int side, const struct pg_run *run)
{
	t->nreps[side] = run->nreps;
	t->w[side] = calloc(run->nreps ? run->nreps : 1, sizeof(double));
	if (!t->w[side])
		return -ENOMEM;
	for (size_t r = 0; r < run->nreps; r++) {
		uint64_t kept = 0;

		for (size_t k = 0; k < run->reps[r].nstacks; k++)
			kept += run->reps[r].stacks[k].count;
		if (!kept || !run->reps[r].cpu_ns)
			continue;
		t->w[side][r] = (double)run->reps[r].cpu_ns / (double)kept;
		t->nw[side]++;
	}
	return 0;
}

int pg_fcounts_init(struct pg_fcounts *t, const struct pg_run *base, const struct pg_run *new)
{
	memset(t, 0, sizeof(*t));
	if (weights(t, 0, base) || weights(t, 1, new)) {
		pg_fcounts_release(t);
		return -ENOMEM;
	}
	return 0;
}

double pg_fcounts_time(const struct pg_fcounts *t, const struct pg_fcount *e, int side)
{
	double sum = 0;

	for (size_t r = 0; r < t->nreps[side]; r++)
		sum += e->cnt[side][r] * t->w[side][r];
	return t->nw[side] ? sum / (double)t->nw[side] : NAN;
}

void pg_fcounts_release(struct pg_fcounts *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].cnt[0]);
		free(t->v[i].cnt[1]);
	}
	free(t->v);
	free(t->w[0]);
	free(t->w[1]);
	memset(t, 0, sizeof(*t));
}

const char *pg_stack_find_frame(const char *s, const char *fr, size_t frlen)
{
	size_t keep, len = pg_probe_split(s, &keep) ? keep : strlen(s);
	const char *end = s + len;

	for (const char *f = s; f < end;) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		size_t fl = semi ? (size_t)(semi - f) : (size_t)(end - f);

		if (fl == frlen && !memcmp(f, fr, fl))
			return f;
		f += fl + 1;
	}
	return NULL;
}

/* The first frame @fr of stack @s, in the part of it that is not perfgate's, or NULL. */
static const char *stack_find(const char *s, struct piece fr)
{
	return pg_stack_find_frame(s, fr.s, fr.len);
}

/* The frame of stack @s before the one that starts at @p (@p > @s, after a ';'). */
static struct piece frame_before(const char *s, const char *p)
{
	const char *b = p - 1;

	while (b > s && b[-1] != ';')
		b--;
	return (struct piece){ b, (size_t)(p - 1 - b) };
}

/*
 * The caller of frame @fr in stack @s (its first, outermost, frame of that name): the nearest
 * frame before it that is not inlined. Nothing (len 0) when the stack does not hold it or it
 * is the root.
 */
static struct piece stack_caller(const char *s, struct piece fr)
{
	for (const char *p = stack_find(s, fr); p && p > s;) {
		struct piece x = frame_before(s, p);

		if (!pg_frame_inlined(x.s, x.len))
			return x;
		p = x.s;
	}
	return (struct piece){ NULL, 0 };
}

/* The samples of frame @fr in @run (side @side), by its caller. 0 or -ENOMEM. */
static int gather_callers(struct pg_fcounts *t, const struct pg_run *run, int side,
			  struct piece fr)
{
	for (size_t r = 0; r < run->nreps; r++)
		for (size_t k = 0; k < run->reps[r].nstacks; k++) {
			const struct pg_stack *st = &run->reps[r].stacks[k];
			struct piece p = stack_caller(st->folded, fr);
			struct pg_fcount *e;

			if (!p.len)
				continue;
			e = pg_fcounts_get(t, p.s, p.len);
			if (!e)
				return -ENOMEM;
			e->cnt[side][r] += (double)st->count;
			e->tot[side] += st->count;
		}
	return 0;
}

/* Whether caller @p's own code changed: the entry of its name in @f's process, else its
 * frame's digests. */
static enum pg_code_cmp caller_code(const struct pg_comparison *c, const struct pg_fcmp *f,
				    struct piece p, const struct pg_run *base,
				    const struct pg_run *new)
{
	char *name;
	enum pg_code_cmp code;

	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *g = &c->f[i];
		struct piece gf;

		if (g->origin == PG_ORIGIN_PROGRAM || !g->name || g->code == PG_CODE_UNKNOWN)
			continue;
		gf = frame_of(g);
		if (piece_is(gf, p.s, p.len) && pg_same_process(g->binary, f->binary))
			return g->code;
	}
	name = strndup(p.s, p.len);
	if (!name)
		return PG_CODE_UNKNOWN;
	code = pg_code_cmp(pg_run_code(base, name), pg_run_code(new, name));
	free(name);
	return code;
}

/*
 * The caller clause of @f appended to @buf (nothing when no caller holds PG_CAUSE_CALLER_SHARE
 * of its move); *changed: that caller's code changed. 0 or -ENOMEM.
 */
static int caller_words(const struct pg_comparison *c, const struct pg_fcmp *f,
			const struct pg_run *base, const struct pg_run *new, char *buf,
			size_t size, bool *changed)
{
	struct pg_fcounts t;
	double sign = f->change > 0 ? 1 : -1, all = 0, best_d = 0, mb = NAN, mn = NAN;
	size_t best = SIZE_MAX;
	int err;

	*changed = false;
	err = pg_fcounts_init(&t, base, new);
	if (err)
		return err;
	err = gather_callers(&t, new, 1, frame_of(f)) ?: gather_callers(&t, base, 0, frame_of(f));
	for (size_t i = 0; !err && i < t.n; i++) {
		double b = pg_fcounts_time(&t, &t.v[i], 0);
		double n = pg_fcounts_time(&t, &t.v[i], 1);
		double d = sign * (n - b);

		if (isnan(d))
			continue;
		all += d;
		/* ties: the caller first seen in the new run's stacks */
		if (d > best_d) {
			best = i;
			best_d = d;
			mb = b;
			mn = n;
		}
	}
	if (!err && best != SIZE_MAX && all > 0 && best_d >= PG_CAUSE_CALLER_SHARE * all) {
		struct piece p = { t.v[best].s, t.v[best].len };
		enum pg_code_cmp code = caller_code(c, f, p, base, new);
		const char *cw = code == PG_CODE_CHANGED ? " (changed)" :
				 code == PG_CODE_SAME ? " (unchanged)" : "";
		const char *sep = buf[0] ? "; " : "";

		*changed = code == PG_CODE_CHANGED;
		if (mb > 0)
			pg_append(buf, size, "%scalled from %.*s%s: its time under %.*s %+.0f%%",
				  sep, (int)p.len, p.s, cw, (int)p.len, p.s, 100 * (mn / mb - 1));
		else
			pg_append(buf, size, "%scalled from %.*s%s: only in the new build", sep,
				  (int)p.len, p.s, cw);
		if (*changed && f->origin == PG_ORIGIN_SAMPLED)
			pg_append(buf, size, ", the same code run %s often or on %s data there",
				  sign > 0 ? "more" : "less", sign > 0 ? "more" : "less");
	}
	pg_fcounts_release(&t);
	return err;
}

static int cmp_piece(const void *pa, const void *pb)
{
	const struct piece *a = pa, *b = pb;
	int d = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	return d ?: (a->len > b->len) - (a->len < b->len);
}

/* A frame the ancestor search looked up, and whether its code changed. */
struct seen {
	struct piece fr;
	bool changed;
};

/*
 * What the ancestor search keeps for @f: the frames it looked up (sorted by cmp_piece()), and
 * @f's samples by its nearest changed ancestor (anc; the stacks that have none under "", the
 * empty frame) and by the piece of the stack from that ancestor to the frame it called on the
 * way (via).
 */
struct ancestors {
	const struct pg_comparison *c;
	const struct pg_fcmp *f;
	const struct pg_run *base, *new;
	struct seen *seen;
	size_t nseen, cap;
	struct pg_fcounts anc, via;
};

/* Did frame @x's code change (caller_code(), looked up once a frame)? */
static bool frame_changed(struct ancestors *a, struct piece x)
{
	size_t lo = 0, hi = a->nseen;
	bool changed;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = cmp_piece(&a->seen[mid].fr, &x);

		if (!d)
			return a->seen[mid].changed;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	changed = caller_code(a->c, a->f, x, a->base, a->new) == PG_CODE_CHANGED;
	if (a->nseen == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct seen *v = realloc(a->seen, cap * sizeof(*v));

		if (!v)		/* not remembered: looked up again next time */
			return changed;
		a->seen = v;
		a->cap = cap;
	}
	memmove(&a->seen[lo + 1], &a->seen[lo], (a->nseen - lo) * sizeof(*a->seen));
	a->seen[lo] = (struct seen){ x, changed };
	a->nseen++;
	return changed;
}

/*
 * In stack @s, the nearest frame above @f's (its first, outermost) that is not inlined and
 * whose code changed, and in *via the stack from it to the frame it called on the way (len 0
 * when that is @f's own frame). Nothing (len 0) when no frame above @f's changed; s NULL when
 * the stack does not hold @f.
 */
static struct piece stack_ancestor(struct ancestors *a, const char *s, struct piece *via)
{
	const char *p = stack_find(s, frame_of(a->f)), *at = p, *child = p;

	*via = (struct piece){ NULL, 0 };
	if (!p)
		return (struct piece){ NULL, 0 };
	while (p > s) {
		struct piece x = frame_before(s, p);

		p = x.s;
		if (pg_frame_inlined(x.s, x.len))
			continue;
		if (frame_changed(a, x)) {
			if (child != at)
				*via = (struct piece){ x.s, (size_t)(strchrnul(child, ';') - x.s) };
			return x;
		}
		child = x.s;
	}
	return (struct piece){ "", 0 };
}

/* Count @st's samples (repetition @r of side @side) under @e. 0 or -ENOMEM. */
static int count_in(struct pg_fcount *e, const struct pg_stack *st, int side, size_t r)
{
	if (!e)
		return -ENOMEM;
	e->cnt[side][r] += (double)st->count;
	e->tot[side] += st->count;
	return 0;
}

/* The samples of @a->f in @run (side @side), by ancestor and by path. 0 or -ENOMEM. */
static int gather_ancestors(struct ancestors *a, const struct pg_run *run, int side)
{
	int err = 0;

	for (size_t r = 0; !err && r < run->nreps; r++)
		for (size_t k = 0; !err && k < run->reps[r].nstacks; k++) {
			const struct pg_stack *st = &run->reps[r].stacks[k];
			struct piece via, x = stack_ancestor(a, st->folded, &via);

			if (!x.s)
				continue;
			err = count_in(pg_fcounts_get(&a->anc, x.s, x.len), st, side, r);
			if (!err && via.len)
				err = count_in(pg_fcounts_get(&a->via, via.s, via.len), st,
					       side, r);
		}
	return err;
}

/* The frame ancestor @x called on the way: its path's (struct ancestors via) with the most of
 * the new run's samples (ties: the first seen), its last frame. Nothing (len 0): @f itself. */
static struct piece ancestor_via(const struct ancestors *a, struct piece x)
{
	const struct pg_fcount *best = NULL;
	const char *last;

	for (size_t i = 0; i < a->via.n; i++) {
		const struct pg_fcount *v = &a->via.v[i];

		if (v->len > x.len && v->s[x.len] == ';' && !memcmp(v->s, x.s, x.len) &&
		    (!best || v->tot[1] > best->tot[1]))
			best = v;
	}
	if (!best)
		return (struct piece){ NULL, 0 };
	last = memrchr(best->s, ';', best->len) + 1;
	return (struct piece){ last, (size_t)(best->s + best->len - last) };
}

/*
 * Name in @buf the changed ancestors of largest move @f's way (@d, indices @order, sorted;
 * ties: the first seen in the new run's stacks) until they hold PG_CAUSE_CALLER_SHARE of its
 * whole move @all, at most PG_CAUSE_MAX_ANCESTORS. True when they do.
 */
static bool ancestor_names(const struct ancestors *a, const double *d, const size_t *order,
			   double all, char *buf, size_t size)
{
	double held = 0, sign = a->f->change > 0 ? 1 : -1;
	size_t named = 0;

	for (size_t k = 0; k < a->anc.n && held < PG_CAUSE_CALLER_SHARE * all; k++) {
		const struct pg_fcount *e = &a->anc.v[order[k]];
		struct piece x = { e->s, e->len }, via = ancestor_via(a, x);
		double b = pg_fcounts_time(&a->anc, e, 0), n = pg_fcounts_time(&a->anc, e, 1);

		if (!(d[order[k]] > 0) || named == PG_CAUSE_MAX_ANCESTORS)
			break;
		if (!x.len)	/* the stacks that no changed code reaches */
			continue;
		held += d[order[k]];
		pg_append(buf, size, "%s%.*s", named++ ? ", " : "reached from changed code: ",
			  (int)x.len, x.s);
		if (via.len)
			pg_append(buf, size, " (via %.*s)", (int)via.len, via.s);
		if (b > 0 && n > 0)
			pg_append(buf, size, " %+.0f%%", 100 * (n / b - 1));
		else
			pg_append(buf, size, " %s", sign > 0 ? "new" : "gone");
	}
	return named && held >= PG_CAUSE_CALLER_SHARE * all;
}

/*
 * The ancestor clause of @f appended to @buf: the changed functions that reach it on the
 * sampled stacks, its nearest on each, that hold PG_CAUSE_CALLER_SHARE of its move (nothing
 * when they do not); *changed: they do. 0 or -ENOMEM.
 */
static int ancestor_words(const struct pg_comparison *c, const struct pg_fcmp *f,
			  const struct pg_run *base, const struct pg_run *new, char *buf,
			  size_t size, bool *changed)
{
	struct ancestors a = { .c = c, .f = f, .base = base, .new = new };
	double sign = f->change > 0 ? 1 : -1, all = 0, *d = NULL;
	size_t *order = NULL;
	char words[sizeof(((struct pg_fcmp *)0)->why)] = "";
	int err;

	*changed = false;
	err = pg_fcounts_init(&a.anc, base, new) ?: pg_fcounts_init(&a.via, base, new);
	err = err ?: gather_ancestors(&a, new, 1) ?: gather_ancestors(&a, base, 0);
	if (!err && a.anc.n) {
		d = malloc(a.anc.n * sizeof(*d));
		order = malloc(a.anc.n * sizeof(*order));
		err = d && order ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !err && i < a.anc.n; i++) {
		d[i] = sign * (pg_fcounts_time(&a.anc, &a.anc.v[i], 1) -
			       pg_fcounts_time(&a.anc, &a.anc.v[i], 0));
		order[i] = i;
		all += isnan(d[i]) ? 0 : d[i];
	}
	if (!err && a.anc.n && all > 0) {
		pg_sort_idx_desc(d, order, a.anc.n);
		*changed = ancestor_names(&a, d, order, all, words, sizeof(words));
		if (*changed)
			pg_append(buf, size, "%s%s", buf[0] ? "; " : "", words);
	}
	free(d);
	free(order);
	free(a.seen);
	pg_fcounts_release(&a.anc);
	pg_fcounts_release(&a.via);
	return err;
}

/* Is frame @x a frame of the stack's program, not inlined, not the kernel's? */
static bool own_frame(struct piece x)
{
	return !pg_frame_inlined(x.s, x.len) && !pg_frame_kernel(x.s, x.len);
}

/* What the callee search looks at: the traced frames (sorted) and the candidates. */
struct callees {
	struct piece *traced;
	size_t ntraced;
	size_t *cand;		/* sampled entries whose change counts the way @f's does */
	uint64_t *cnt;		/* per candidate, its samples under @f */
	size_t ncand;
};

/* The outermost frame under a traced entry whose code changed, @run against @other */
struct changed_walk {
	const struct pg_run *run, *other;
	char name[256];		/* its name, when found */
	bool found;
};

/* Is frame @x's code digest in @w->run other than in @w->other? Its name into @w->name. */
static bool code_differs(struct piece x, struct changed_walk *w)
{
	if (x.len >= sizeof(w->name))
		return false;
	memcpy(w->name, x.s, x.len);
	w->name[x.len] = 0;
	return pg_code_cmp(pg_run_code(w->other, w->name), pg_run_code(w->run, w->name)) ==
	       PG_CODE_CHANGED;
}

/*
 * The frame whose code holds the own time of stack @s, into *@owner, when it lies under @f's
 * frame with no traced frame between them (and is not @f's own). With @w, also the outermost
 * frame on that path whose code changed (w->found).
 */
static bool stack_owner(const struct pg_fcmp *f, const struct callees *cs, const char *s,
			struct piece *owner, struct changed_walk *w)
{
	size_t keep, len = pg_probe_split(s, &keep) ? keep : strlen(s);
	const char *end = s + len;
	struct piece fr = frame_of(f);
	bool under = false, at_f = false;

	owner->s = NULL;
	owner->len = 0;
	if (w)
		w->found = false;
	for (const char *p = s; p < end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		struct piece x = { p, semi ? (size_t)(semi - p) : (size_t)(end - p) };

		p += x.len + 1;
		if (!own_frame(x))
			continue;
		*owner = x;
		at_f = piece_is(fr, x.s, x.len);
		if (at_f) {
			under = true;
			if (w)
				w->found = false;
		} else if (bsearch(&x, cs->traced, cs->ntraced, sizeof(x), cmp_piece)) {
			under = false;
		} else if (w && under && !w->found) {
			w->found = code_differs(x, w);
		}
	}
	return under && !at_f;
}

/*
 * The candidate whose code holds the own time of stack @s under @f's frame, no traced frame
 * between them (its last frame of the program, in @f's process), or SIZE_MAX.
 */
static size_t stack_callee(const struct pg_comparison *c, const struct pg_fcmp *f,
			   const struct callees *cs, const char *s)
{
	struct piece owner;
	bool under = stack_owner(f, cs, s, &owner, NULL);

	for (size_t k = 0; under && k < cs->ncand; k++) {
		const struct pg_fcmp *g = &c->f[cs->cand[k]];
		struct piece gf = frame_of(g);

		if (piece_is(gf, owner.s, owner.len) && pg_same_process(g->binary, f->binary))
			return k;
	}
	return SIZE_MAX;
}

static void callees_release(struct callees *cs)
{
	free(cs->traced);
	free(cs->cand);
	free(cs->cnt);
}

/* The traced frames and the candidates of @f. 0 or -ENOMEM. */
static int callees_init(struct callees *cs, const struct pg_comparison *c,
			const struct pg_fcmp *f)
{
	memset(cs, 0, sizeof(*cs));
	cs->traced = malloc((c->n ? c->n : 1) * sizeof(*cs->traced));
	cs->cand = malloc((c->n ? c->n : 1) * sizeof(*cs->cand));
	cs->cnt = calloc(c->n ? c->n : 1, sizeof(*cs->cnt));
	if (!cs->traced || !cs->cand || !cs->cnt) {
		callees_release(cs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *g = &c->f[i];

		if (g->origin == PG_ORIGIN_EXACT && g->display)
			cs->traced[cs->ntraced++] = frame_of(g);
		else if (g->origin == PG_ORIGIN_SAMPLED && g->name && pg_change_counts(g) &&
			 (g->change > 0) == (f->change > 0))
			cs->cand[cs->ncand++] = i;
	}
	qsort(cs->traced, cs->ntraced, sizeof(*cs->traced), cmp_piece);
	return 0;
}

/*
 * A traced entry's clause for the untraced callee its time holds: of the sampled functions
 * that hold the new run's samples under it (no traced frame between) and changed its way, the
 * one with the most of them: "its time holds tone_px (changed, not traced): +43.7% a
 * repetition". *changed: that callee's code changed. 0 or -ENOMEM.
 */
static int callee_words(const struct pg_comparison *c, const struct pg_fcmp *f,
			const struct pg_run *new, char *buf, size_t size, bool *changed)
{
	struct callees cs;
	size_t best = SIZE_MAX;
	const struct pg_fcmp *g;
	int err = callees_init(&cs, c, f);

	*changed = false;
	if (err)
		return err;
	for (size_t r = 0; cs.ncand && r < new->nreps; r++)
		for (size_t k = 0; k < new->reps[r].nstacks; k++) {
			size_t i = stack_callee(c, f, &cs, new->reps[r].stacks[k].folded);

			if (i != SIZE_MAX)
				cs.cnt[i] += new->reps[r].stacks[k].count;
		}
	for (size_t k = 0; k < cs.ncand; k++)	/* ties: the first in f[] */
		if (cs.cnt[k] && (best == SIZE_MAX || cs.cnt[k] > cs.cnt[best]))
			best = k;
	if (best != SIZE_MAX) {
		g = &c->f[cs.cand[best]];
		*changed = g->code == PG_CODE_CHANGED;
		pg_append(buf, size, "%sits time holds %s (%snot traced): %+.1f%% a repetition",
			  buf[0] ? "; " : "", g->display ? g->display : g->name,
			  g->code == PG_CODE_CHANGED ? "changed, " :
			  g->code == PG_CODE_SAME ? "unchanged, " : "", 100 * g->change);
	}
	callees_release(&cs);
	return 0;
}

/* A frame under a traced entry whose code changed, and its samples there on each side. */
struct under_changed {
	char name[256];
	double n[2];
};

/* Add run @run's (side @side) samples under @f of frames whose code changed to @u[0..*nu). */
static void count_changed_under(const struct pg_fcmp *f, const struct callees *cs,
				const struct pg_run *run, const struct pg_run *other, int side,
				struct under_changed *u, size_t *nu, size_t cap)
{
	struct changed_walk w = { run, other, "", false };
	struct piece owner;

	for (size_t r = 0; r < run->nreps; r++)
		for (size_t k = 0; k < run->reps[r].nstacks; k++) {
			const struct pg_stack *st = &run->reps[r].stacks[k];
			size_t i = 0;

			/* @f's self time holds the sample, under a frame whose code changed */
			if (!stack_owner(f, cs, st->folded, &owner, &w) || !w.found)
				continue;
			while (i < *nu && strcmp(u[i].name, w.name))
				i++;
			if (i == *nu && *nu == cap)
				continue;
			if (i == *nu) {
				memcpy(u[i].name, w.name, sizeof(w.name));
				u[i].n[0] = u[i].n[1] = 0;
				(*nu)++;
			}
			u[i].n[side] += (double)st->count / (double)run->nreps;
		}
}

/*
 * A traced entry's clause for changed code under it that no entry judged (too small a share
 * on its own): of the frames holding its own samples (no traced frame between) whose code
 * digests differ between the runs, the one whose samples a repetition grew most its way:
 * "its time holds leveldb::BlockBuilder::Add (changed, not traced, not judged): 1.4 -> 3.3
 * samples a repetition". *changed: one was found. 0 or -ENOMEM.
 */
static int changed_under_words(const struct pg_comparison *c, const struct pg_fcmp *f,
			       const struct pg_run *base, const struct pg_run *new, char *buf,
			       size_t size, bool *changed)
{
	struct under_changed *u = calloc(PG_CAUSE_MAX_ANCESTORS * 8, sizeof(*u));
	struct callees cs;
	size_t nu = 0, best = SIZE_MAX;
	int err = u ? callees_init(&cs, c, f) : -ENOMEM;

	*changed = false;
	if (err) {
		free(u);
		return err;
	}
	count_changed_under(f, &cs, base, new, 0, u, &nu, PG_CAUSE_MAX_ANCESTORS * 8);
	count_changed_under(f, &cs, new, base, 1, u, &nu, PG_CAUSE_MAX_ANCESTORS * 8);
	for (size_t i = 0; i < nu; i++) {	/* ties: the first found */
		double g = (u[i].n[1] - u[i].n[0]) * (f->change > 0 ? 1 : -1);

		if (g > 0 && (best == SIZE_MAX ||
			      g > (u[best].n[1] - u[best].n[0]) * (f->change > 0 ? 1 : -1)))
			best = i;
	}
	if (best != SIZE_MAX) {
		*changed = true;
		pg_append(buf, size, "%sits time holds %s (changed, not traced, not judged): "
			  "%.1f -> %.1f samples a repetition", buf[0] ? "; " : "", u[best].name,
			  u[best].n[0], u[best].n[1]);
	}
	callees_release(&cs);
	free(u);
	return 0;
}

/* The call count clause of an exact entry; true when its calls moved by PG_CAUSE_MIN_CALLS. */
static bool calls_words(const struct pg_fcmp *f, char *buf, size_t size)
{
	double rc = f->base_calls > 0 ? f->new_calls / f->base_calls - 1 : NAN;

	if (f->origin != PG_ORIGIN_EXACT || isnan(rc) || isnan(f->change))
		return false;
	if (fabs(rc) < PG_CAUSE_MIN_CALLS) {
		pg_append(buf, size, "%sas often, each call %+.0f%%", buf[0] ? "; " : "",
			  100 * f->change);
		return false;
	}
	pg_append(buf, size, "%scalled %.0f%% %s often, each call %+.0f%%", buf[0] ? "; " : "",
		  100 * fabs(rc), rc > 0 ? "more" : "less", 100 * f->change);
	return (rc > 0) == (f->change > 0);
}

/*
 * The off-CPU clause; true when the blocked part is at least half the change, its way. It
 * names the waker the off-CPU stacks say it waited on (diff/waker.h), into f->waker. 0 or
 * -ENOMEM.
 */
static int offcpu_words(struct pg_fcmp *f, const struct pg_run *base, const struct pg_run *new,
			char *buf, size_t size, bool *explains)
{
	double runq = isnan(f->change_runq) ? 0 : f->change_runq;
	double blocked = f->change_offcpu - runq;
	struct piece fr = frame_of(f);
	char on[160] = "waiting on another process or I/O";
	int named;

	*explains = false;
	if (isnan(blocked) || isnan(f->change_cpu) || isnan(f->change) ||
	    (blocked > 0) != (f->change > 0) || fabs(blocked) < 0.5 * fabs(f->change))
		return 0;
	named = pg_waker_top(base, new, fr.s, fr.len, f->change > 0 ? 1 : -1, &f->waker);
	if (named < 0)
		return named;
	if (named)
		pg_waker_words(&f->waker, on, sizeof(on));
	pg_append(buf, size, "%sits %s time is blocked (off-CPU %+.1f%%, on-CPU %+.1f%%): %s",
		  buf[0] ? "; " : "", f->change > 0 ? "extra" : "saved", 100 * f->change_offcpu,
		  100 * f->change_cpu, on);
	*explains = true;
	return 0;
}

/* The kinds of clause, in the order a cause line names those that explain */
enum { CL_CALLEE, CL_CALLER, CL_ANCESTOR, CL_CALLS, CL_OFFCPU, CL_COUNT };

/*
 * The cause line of @f: the clauses that explain its change (at most two, in the order
 * above); else the one that says most of it (its calls, its callee, its caller) and that
 * nothing explains it. 0 or -ENOMEM.
 */
static int explain_one(const struct pg_comparison *c, struct pg_fcmp *f,
		       const struct pg_run *base, const struct pg_run *new)
{
	static const int info[] = { CL_CALLS, CL_CALLEE, CL_CALLER };
	char cl[CL_COUNT][sizeof(f->why)] = { "", "", "", "", "" };
	bool ex[CL_COUNT] = { false, false, false, false, false };
	bool shared = pg_name_shared(c, f, base, new);
	size_t nex = 0;
	int err = 0;

	if (f->origin == PG_ORIGIN_EXACT)
		err = callee_words(c, f, new, cl[CL_CALLEE], sizeof(cl[0]), &ex[CL_CALLEE]);
	if (!err && f->origin == PG_ORIGIN_EXACT && !ex[CL_CALLEE]) {
		char under[sizeof(f->why)] = "";

		err = changed_under_words(c, f, base, new, under, sizeof(under), &ex[CL_CALLEE]);
		if (ex[CL_CALLEE])
			memcpy(cl[CL_CALLEE], under, sizeof(under));
	}
	if (!err && !shared)
		err = caller_words(c, f, base, new, cl[CL_CALLER], sizeof(cl[0]), &ex[CL_CALLER]);
	if (!err && !shared && !ex[CL_CALLER])
		err = ancestor_words(c, f, base, new, cl[CL_ANCESTOR], sizeof(cl[0]),
				     &ex[CL_ANCESTOR]);
	if (!err)
		err = offcpu_words(f, base, new, cl[CL_OFFCPU], sizeof(cl[0]), &ex[CL_OFFCPU]);
	if (err)
		return err;
	ex[CL_CALLS] = calls_words(f, cl[CL_CALLS], sizeof(cl[0]));
	f->why[0] = 0;
	for (int k = 0; k < CL_COUNT && nex < 2; k++)
		if (ex[k] && ++nex)
			pg_append(f->why, sizeof(f->why), "%s%s", f->why[0] ? "; " : "", cl[k]);
	for (size_t k = 0; !nex && !f->why[0] && k < sizeof(info) / sizeof(info[0]); k++)
		pg_append(f->why, sizeof(f->why), "%s", cl[info[k]]);
	if (!nex && pg_kshare_kernel(f))
		pg_append(f->why, sizeof(f->why),
			  "%sits code did not change and no changed caller or callee, call count "
			  "or wait explains it; %.0f%% of its time is the kernel's (files, "
			  "threads), which moves from run to run: a candidate for noise",
			  f->why[0] ? "; " : "", 100 * f->kernel_share);
	else if (!nex)
		pg_append(f->why, sizeof(f->why),
			  "%sits code did not change and no changed caller or callee, call count "
			  "or wait explains it: a candidate for noise", f->why[0] ? "; " : "");
	return 0;
}

/*
 * Does a sampled frame of both runs have two code digests? The changed code need not be
 * compared itself: leveldb's changed BlockBuilder methods, under the traced BuildTable, were
 * too small a share to be judged, and BuildTable was flagged with nothing to say.
 */
static bool frames_differ(const struct pg_run *base, const struct pg_run *new)
{
	size_t i = 0, j = 0;

	while (i < base->ncodes && j < new->ncodes) {
		int d = strcmp(base->codes[i].frame, new->codes[j].frame);

		if (!d && base->codes[i].digest != new->codes[j].digest)
			return true;
		i += d <= 0;
		j += d >= 0;
	}
	return false;
}

int pg_cause_explain(struct pg_comparison *c, const struct pg_run *base,
		     const struct pg_run *new)
{
	bool builds_differ = frames_differ(base, new);
	int err = 0;

	for (size_t i = 0; i < c->n; i++)
		builds_differ |= c->f[i].code == PG_CODE_CHANGED;
	for (size_t i = 0; !err && builds_differ && i < c->n; i++) {
		struct pg_fcmp *f = &c->f[i];

		if (f->origin != PG_ORIGIN_PROGRAM && f->code == PG_CODE_SAME &&
		    pg_change_counts(f) && f->name && f->display && f->binary)
			err = explain_one(c, f, base, new);
	}
	return err;
}
