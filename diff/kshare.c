// SPDX-License-Identifier: MIT
/*
 * diff/kshare.c - how much of a function's judged time is the kernel's (kshare.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "kshare.h"
#include "probeframes.h"

/* A frame name, not terminated: a piece of a folded stack or of an entry's name. */
struct fname {
	const char *s;
	size_t len;
	size_t idx;		/* the entry of the comparison it names */
};

/* The entries that own samples, by frame name: exact ones (traced) and sampled ones. */
struct owners {
	struct fname *traced, *sampled;
	size_t ntraced, nsampled;
	uint64_t *own, *kern;	/* per entry of the comparison: its samples, kernel ones */
	size_t *stamp;		/* per entry: the last stack counted (with --metric total) */
};

/* Ties broken by the entry's index, so that every libc orders them alike. */
static int cmp_fname(const void *pa, const void *pb)
{
	const struct fname *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int d = memcmp(a->s, b->s, n);

	if (d)
		return d;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The first of the names equal to @s[0..len) in @v[0..n) (sorted), or NULL. */
static const struct fname *find(const struct fname *v, size_t n, const char *s, size_t len)
{
	struct fname key = { s, len, 0 };
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the lower bound: key's idx 0 sorts first among equal names */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_fname(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].len == len && !memcmp(v[lo].s, s, len) ? &v[lo] : NULL;
}

/* Count @n samples, kernel ones when @kern, to every entry named @s[0..len) in @v; with
 * o->stamp, once a stack (@stack) an entry. */
static void count(struct owners *o, const struct fname *v, size_t nv, const char *s,
		  size_t len, uint64_t n, bool kern, size_t stack)
{
	for (const struct fname *e = find(v, nv, s, len);
	     e && e < v + nv && e->len == len && !memcmp(e->s, s, len); e++) {
		if (o->stamp) {
			if (o->stamp[e->idx] == stack)
				continue;
			o->stamp[e->idx] = stack;
		}
		o->own[e->idx] += n;
		o->kern[e->idx] += kern ? n : 0;
	}
}

/* The frames of a folded stack, one after the other: for (frame_first(); frame_next();) */
struct walk {
	const char *p, *end;
	const char *s;		/* the frame */
	size_t len;
};

static bool frame_next(struct walk *w)
{
	const char *semi;

	if (w->p >= w->end)
		return false;
	semi = memchr(w->p, ';', (size_t)(w->end - w->p));
	w->s = w->p;
	w->len = semi ? (size_t)(semi - w->p) : (size_t)(w->end - w->p);
	w->p += w->len + 1;
	return true;
}

/*
 * One stack @s of @n samples: to its innermost traced frame (with o->stamp, to every traced
 * frame on it, once) and to its innermost frame of the program; kernel samples when its last
 * frame, perfgate's probes left out, is the kernel's. @stack numbers it for o->stamp.
 */
static void count_stack(struct owners *o, const char *s, uint64_t n, size_t stack)
{
	size_t keep, len = pg_probe_split(s, &keep) ? keep : strlen(s);
	struct walk w = { s, s + len, NULL, 0 }, tr = { 0 }, own = { 0 };
	bool kern = false;

	while (frame_next(&w)) {
		kern = pg_frame_kernel(w.s, w.len);
		if (kern || pg_frame_inlined(w.s, w.len))
			continue;
		own = w;
		if (find(o->traced, o->ntraced, w.s, w.len))
			tr = w;
	}
	if (o->stamp) {		/* --metric total: every traced frame on the stack */
		for (w.p = s; frame_next(&w);)
			count(o, o->traced, o->ntraced, w.s, w.len, n, kern, stack);
	} else if (tr.s) {
		count(o, o->traced, o->ntraced, tr.s, tr.len, n, kern, stack);
	}
	if (own.s)
		count(o, o->sampled, o->nsampled, own.s, own.len, n, kern, stack);
}

static void owners_release(struct owners *o)
{
	free(o->traced);
	free(o->sampled);
	free(o->own);
	free(o->kern);
	free(o->stamp);
}

/* The owners of @c's samples. 0 or -ENOMEM. */
static int owners_init(struct owners *o, const struct pg_comparison *c)
{
	size_t n = c->n ? c->n : 1;

	memset(o, 0, sizeof(*o));
	o->traced = malloc(n * sizeof(*o->traced));
	o->sampled = malloc(n * sizeof(*o->sampled));
	o->own = calloc(n, sizeof(*o->own));
	o->kern = calloc(n, sizeof(*o->kern));
	if (c->opts.metric == PG_METRIC_TOTAL)
		o->stamp = malloc(n * sizeof(*o->stamp));
	if (!o->traced || !o->sampled || !o->own || !o->kern ||
	    (c->opts.metric == PG_METRIC_TOTAL && !o->stamp)) {
		owners_release(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];
		const char *name = f->origin == PG_ORIGIN_SAMPLED ? f->name : f->display;
		struct fname e = { name, name ? pg_frame_name_len(name) : 0, i };

		if (o->stamp)
			o->stamp[i] = SIZE_MAX;
		if (!name || !e.len)
			continue;
		if (f->origin == PG_ORIGIN_EXACT)
			o->traced[o->ntraced++] = e;
		else if (f->origin == PG_ORIGIN_SAMPLED)
			o->sampled[o->nsampled++] = e;
	}
	qsort(o->traced, o->ntraced, sizeof(*o->traced), cmp_fname);
	qsort(o->sampled, o->nsampled, sizeof(*o->sampled), cmp_fname);
	return 0;
}

/* @f's kernel share from its samples @own, @kern of them the kernel's (kshare.h). */
static double share_of(const struct pg_fcmp *f, enum pg_metric metric, uint64_t own,
		       uint64_t kern)
{
	bool on_cpu = f->by_cpu || metric == PG_METRIC_CPU || f->origin == PG_ORIGIN_SAMPLED;
	double blocked = on_cpu || !(f->blocked_share > 0) ? 0 : fmin(f->blocked_share, 1);

	if (own < PG_KSHARE_MIN_SAMPLES)
		return blocked >= PG_KSHARE_CLASS ? blocked : NAN;
	return blocked + (1 - blocked) * (double)kern / (double)own;
}

int pg_kshare(struct pg_comparison *c, const struct pg_run *base, const struct pg_run *new)
{
	const struct pg_run *runs[2] = { base, new };
	struct owners o;
	size_t stack = 0;
	int err = owners_init(&o, c);

	if (err)
		return err;
	for (int side = 0; side < 2; side++)
		for (size_t r = 0; r < runs[side]->nreps; r++) {
			const struct pg_rep *rep = &runs[side]->reps[r];

			for (size_t i = 0; i < rep->nstacks; i++)
				count_stack(&o, rep->stacks[i].folded, rep->stacks[i].count,
					    stack++);
		}
	for (size_t i = 0; i < c->n; i++) {
		struct pg_fcmp *f = &c->f[i];

		if (f->origin == PG_ORIGIN_EXACT || f->origin == PG_ORIGIN_SAMPLED)
			f->kernel_share = share_of(f, c->opts.metric, o.own[i], o.kern[i]);
	}
	owners_release(&o);
	return 0;
}

bool pg_kshare_kernel(const struct pg_fcmp *f)
{
	return f->kernel_share >= PG_KSHARE_CLASS;
}
