// SPDX-License-Identifier: MIT
/*
 * runner/budget/stack_gain.c - the samples each function would resolve if traced. See stack_gain.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/alloc.h"
#include "../../core/sort.h"
#include "../../core/strv.h"
#include "stack_gain.h"

int pg_coverage_add(struct pg_coverage *c, const struct pg_rep *rep)
{
	size_t n = c->n;

	if (PG_ALLOC_GROW(c->stacks, c->n + rep->nstacks, c->alloc))
		return -ENOMEM;
	for (size_t k = 0; k < rep->nstacks; k++) {
		char *s = strdup(rep->stacks[k].folded);

		if (!s) {
			while (c->n > n)
				free(c->stacks[--c->n].folded);
			return -ENOMEM;
		}
		c->stacks[c->n++] = (struct pg_stack){ .folded = s, .count = rep->stacks[k].count };
	}
	for (size_t k = n; k < c->n; k++)
		c->samples += c->stacks[k].count;
	c->runs++;
	return 0;
}

void pg_coverage_release(struct pg_coverage *c)
{
	for (size_t k = 0; k < c->n; k++)
		free(c->stacks[k].folded);
	free(c->stacks);
	*c = (struct pg_coverage)PG_COVERAGE_INIT;
}

static int cmp_display(const void *a, const void *b, void *arg)
{
	const struct pg_run *run = arg;

	return strcmp(run->funcs[*(const uint32_t *)a].display,
		      run->funcs[*(const uint32_t *)b].display);
}

/* The first index of @order (sorted by display name) whose function is named @name or after. */
static size_t lower_bound(const struct pg_run *run, const uint32_t *order, const char *name)
{
	size_t lo = 0, hi = run->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(run->funcs[order[mid]].display, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Append the ids of stack @folded's frames to m->ids (capacity *@alloc). 0 or -ENOMEM. */
static int map_stack(struct pg_cov_map *m, size_t *n, size_t *alloc, const struct pg_run *run,
		     const uint32_t *order, const char *folded)
{
	char *stack = strdup(folded), *save = NULL;

	if (!stack)
		return -ENOMEM;
	for (char *fr = strtok_r(stack, ";", &save); fr; fr = strtok_r(NULL, ";", &save)) {
		for (size_t i = lower_bound(run, order, fr);
		     i < run->nfuncs && !strcmp(run->funcs[order[i]].display, fr); i++) {
			if (PG_ALLOC_GROW(m->ids, *n + 1, *alloc)) {
				free(stack);
				return -ENOMEM;
			}
			m->ids[(*n)++] = order[i];
		}
	}
	free(stack);
	return 0;
}

int pg_cov_map_build(struct pg_cov_map *m, const struct pg_coverage *c, const struct pg_run *run)
{
	uint32_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));
	size_t n = 0, alloc = 0;
	int err = 0;

	*m = (struct pg_cov_map){ .nfuncs = run->nfuncs };
	m->start = calloc(c->n + 1, sizeof(*m->start));
	m->count = calloc(c->n ? c->n : 1, sizeof(*m->count));
	if (!order || !m->start || !m->count) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (uint32_t i = 0; i < run->nfuncs; i++)
		order[i] = i;
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_display, (void *)run);
	for (size_t k = 0; k < c->n; k++) {
		m->start[k] = n;
		m->count[k] = c->stacks[k].count;
		err = map_stack(m, &n, &alloc, run, order, c->stacks[k].folded);
		if (err)
			goto cleanup;
	}
	m->start[c->n] = n;
	m->nstacks = c->n;
cleanup:
	free(order);
	if (err)
		pg_cov_map_release(m);
	return err;
}

void pg_cov_map_release(struct pg_cov_map *m)
{
	free(m->ids);
	free(m->start);
	free(m->count);
	*m = (struct pg_cov_map){ 0 };
}

/* The occurrences of each function in a map's stacks: stack k and its innermost position. */
struct occ {
	size_t *first;		/* function f's entries are at[first[f] .. first[f + 1]) */
	size_t *stack, *pos;
};

static void occ_release(struct occ *o)
{
	free(o->first);
	free(o->stack);
	free(o->pos);
}

static int occ_build(struct occ *o, const struct pg_cov_map *m)
{
	size_t n = m->nstacks ? m->start[m->nstacks] : 0, *fill = NULL, *last = NULL;
	uint32_t nf = m->nfuncs;
	int err = -ENOMEM;

	o->first = calloc(nf + 1, sizeof(*o->first));
	o->stack = calloc(n ? n : 1, sizeof(*o->stack));
	o->pos = calloc(n ? n : 1, sizeof(*o->pos));
	fill = calloc(nf ? nf : 1, sizeof(*fill));
	last = calloc(nf ? nf : 1, sizeof(*last));	/* stack k + 1 that last counted f */
	if (!o->first || !o->stack || !o->pos || !fill || !last)
		goto cleanup;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t f = 0; f < nf; f++)
			last[f] = 0;
		for (size_t k = 0; k < m->nstacks; k++) {
			/* from the leaf up, so that the first seen is the innermost */
			for (size_t j = m->start[k + 1]; j > m->start[k]; j--) {
				uint32_t f = m->ids[j - 1];

				if (last[f] == k + 1)
					continue;
				last[f] = k + 1;
				if (!pass) {
					o->first[f + 1]++;
					continue;
				}
				o->stack[fill[f]] = k;
				o->pos[fill[f]++] = j - 1;
			}
		}
		if (!pass) {
			for (uint32_t f = 0; f < nf; f++)
				o->first[f + 1] += o->first[f];
			for (uint32_t f = 0; f < nf; f++)
				fill[f] = o->first[f];
		}
	}
	err = 0;
cleanup:
	free(fill);
	free(last);
	if (err)
		occ_release(o);
	return err;
}

/* The choice's state: who owns each stack's samples, and how much each function owns. */
struct owners {
	size_t *at;		/* per stack: the owner's position in ids, SIZE_MAX: no one */
	double *own;		/* per function, and own[nfuncs] for no one: samples */
	double *moved;		/* scratch, nfuncs + 1 */
	uint32_t *touched;	/* scratch, nfuncs + 1 */
};

static uint32_t owner_of(const struct pg_cov_map *m, const struct owners *w, size_t k)
{
	return w->at[k] == SIZE_MAX ? m->nfuncs : m->ids[w->at[k]];
}

/* Does occurrence e (of some function in stack k) lie below that stack's owner? */
static bool below_owner(const struct occ *o, const struct owners *w, size_t e)
{
	size_t k = o->stack[e];

	return w->at[k] == SIZE_MAX || o->pos[e] > w->at[k];
}

static double worth(double samples, double ns_per, double extra)
{
	return sqrt(samples * ns_per + extra);
}

/*
 * How much function f would add to the sum of sqrt(own time) of the kept functions: it takes
 * the samples in which it lies below their owner, from each of those owners (or from no one).
 */
static double gain(const struct pg_cov_map *m, const struct occ *o, struct owners *w, uint32_t f,
		   const double *extra, double ns_per, double *own)
{
	double taken = 0, g = 0;
	size_t nt = 0;

	for (size_t e = o->first[f]; e < o->first[f + 1]; e++) {
		size_t k = o->stack[e];
		uint32_t who;

		if (!below_owner(o, w, e))
			continue;
		who = owner_of(m, w, k);
		if (!w->moved[who])
			w->touched[nt++] = who;
		w->moved[who] += (double)m->count[k];
		taken += (double)m->count[k];
	}
	for (size_t t = 0; t < nt; t++) {
		uint32_t who = w->touched[t];

		/* samples no kept function owns are worth nothing yet */
		if (who < m->nfuncs)
			g += worth(w->own[who] - w->moved[who], ns_per, extra[who]) -
			     worth(w->own[who], ns_per, extra[who]);
		w->moved[who] = 0;
	}
	*own = taken * ns_per + extra[f];
	return g + worth(taken, ns_per, extra[f]);
}

static void take(const struct pg_cov_map *m, const struct occ *o, struct owners *w, uint32_t f)
{
	for (size_t e = o->first[f]; e < o->first[f + 1]; e++) {
		size_t k = o->stack[e];

		if (!below_owner(o, w, e))
			continue;
		w->own[owner_of(m, w, k)] -= (double)m->count[k];
		w->own[f] += (double)m->count[k];
		w->at[k] = o->pos[e];
	}
}

/* The owners of every stack's samples when @keep[] is the kept set: the innermost kept frame. */
static void owners_from(const struct pg_cov_map *m, const struct occ *o, struct owners *w,
			const bool *keep)
{
	memset(w->own, 0, (m->nfuncs + 1) * sizeof(*w->own));
	for (size_t k = 0; k < m->nstacks; k++) {
		w->at[k] = SIZE_MAX;
		w->own[m->nfuncs] += (double)m->count[k];
	}
	for (uint32_t f = 0; f < m->nfuncs; f++)
		if (keep[f])
			take(m, o, w, f);
}

/*
 * A function added early may lose its samples to a callee added after it (jq_compile_args to
 * builtins_bind, in whichever order their near-equal values put them): drop, one at a time
 * and least first, the kept functions that own less than @min_own in the end, so that the
 * choice does not depend on that order. Functions of unknown cost stay.
 */
static void prune(const struct pg_cov_map *m, const struct occ *o, struct owners *w,
		  const double *cost, const double *extra, double ns_per, double min_own,
		  bool *keep, double *total)
{
	for (;;) {
		uint32_t least = UINT32_MAX;
		double least_own = min_own;

		owners_from(m, o, w, keep);
		for (uint32_t f = 0; f < m->nfuncs; f++) {
			double own = w->own[f] * ns_per + extra[f];

			if (keep[f] && cost[f] > 0 && own < least_own) {
				least = f;
				least_own = own;
			}
		}
		if (least == UINT32_MAX)
			return;
		keep[least] = false;
		*total -= cost[least];
	}
}

/* Indices (uint32_t) into the double array @arg, largest first; equals by index. */
/*
 * The first step of the choice: every function that may be kept, by the time it holds as its
 * own among all of them (the samples whose innermost allowed frame it is, and its blocked
 * time), most first; each that fits what is left of @allowed and holds at least @min_own and
 * PG_COV_KERNEL_SHARE of the samples is kept. A kernel that holds much of the run inside a
 * cheap caller is so traced itself: moving a caller's own time whole to it adds nothing to the
 * sum of square roots. The share is high so that few functions sit near it: a function near
 * a bar is taken in one recording and not in the next.
 */
static int take_by_self(const struct pg_cov_map *m, const struct occ *o, struct owners *w,
			const double *cost, const double *extra, double ns_per, double allowed,
			double min_own, const bool *may, bool *keep, double *total)
{
	uint32_t nf = m->nfuncs, *order = malloc((nf ? nf : 1) * sizeof(*order));
	double *self = malloc((nf ? nf : 1) * sizeof(*self)), bar = 0;

	if (!order || !self) {
		free(order);
		free(self);
		return -ENOMEM;
	}
	owners_from(m, o, w, may);
	for (size_t k = 0; k < m->nstacks; k++)
		bar += (double)m->count[k];
	bar = fmax(min_own, PG_COV_KERNEL_SHARE * bar * ns_per);
	for (uint32_t f = 0; f < nf; f++) {
		self[f] = w->own[f] * ns_per + extra[f];
		order[f] = f;
	}
	pg_sort_idx32_desc(self, order, nf);
	for (uint32_t k = 0; k < nf; k++) {
		uint32_t f = order[k];

		if (!may[f] || keep[f] || self[f] <= 0 || self[f] < bar ||
		    *total + cost[f] > allowed)
			continue;
		keep[f] = true;
		*total += cost[f];
	}
	free(order);
	free(self);
	owners_from(m, o, w, keep);
	return 0;
}

int pg_cov_choose(const struct pg_cov_map *m, const double *cost, const double *extra,
		  double ns_per, double allowed, double min_own, bool *keep, double *total)
{
	uint32_t nf = m->nfuncs;
	struct occ o = { 0 };
	struct owners w = { 0 };
	bool *may = calloc(nf ? nf : 1, sizeof(*may));
	int err = may ? occ_build(&o, m) : -ENOMEM;

	if (err) {
		free(may);
		return err;
	}
	w.at = malloc((m->nstacks ? m->nstacks : 1) * sizeof(*w.at));
	w.own = calloc(nf + 1, sizeof(*w.own));
	w.moved = calloc(nf + 1, sizeof(*w.moved));
	w.touched = calloc(nf + 1, sizeof(*w.touched));
	if (!w.at || !w.own || !w.moved || !w.touched) {
		err = -ENOMEM;
		goto cleanup;
	}
	*total = 0;
	for (uint32_t f = 0; f < nf; f++) {
		may[f] = keep[f];
		keep[f] = may[f] && cost[f] <= 0;	/* cost unknown: always kept */
	}
	err = take_by_self(m, &o, &w, cost, extra, ns_per, allowed, min_own, may, keep, total);
	for (; !err;) {
		uint32_t best = UINT32_MAX;
		double best_v = 0;

		for (uint32_t f = 0; f < nf; f++) {
			double v, own;

			if (!may[f] || keep[f] || *total + cost[f] > allowed)
				continue;
			v = gain(m, &o, &w, f, extra, ns_per, &own) / cost[f];
			if (own < min_own || own <= 0)
				continue;
			if (v > best_v) {
				best = f;
				best_v = v;
			}
		}
		if (best == UINT32_MAX)
			break;
		keep[best] = true;
		*total += cost[best];
		take(m, &o, &w, best);
	}
	if (!err && min_own > 0)
		prune(m, &o, &w, cost, extra, ns_per, min_own, keep, total);
cleanup:
	free(w.at);
	free(w.own);
	free(w.moved);
	free(w.touched);
	occ_release(&o);
	free(may);
	return err;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort @frames, free the repeated ones: each once. */
static void unique_frames(char **frames, size_t *n)
{
	size_t w = 0;

	if (*n > 1)
		qsort(frames, *n, sizeof(*frames), cmp_strp);
	for (size_t r = 0; r < *n; r++) {
		if (w && !strcmp(frames[w - 1], frames[r]))
			free(frames[r]);
		else
			frames[w++] = frames[r];
	}
	*n = w;
}

int pg_coverage_frames(const struct pg_coverage *c, char ***frames, size_t *n)
{
	*frames = NULL;
	*n = 0;
	for (size_t k = 0; k < c->n; k++) {
		char *stack = strdup(c->stacks[k].folded), *save = NULL;
		int err = stack ? 0 : -ENOMEM;

		for (char *fr = err ? NULL : strtok_r(stack, ";", &save); fr && !err;
		     fr = strtok_r(NULL, ";", &save))
			err = pg_strv_push(frames, n, fr);
		free(stack);
		if (err) {
			pg_strv_free(*frames, *n);
			*frames = NULL;
			*n = 0;
			return err;
		}
	}
	unique_frames(*frames, n);
	return 0;
}

/* A leaf (borrowed from its folded stack) and the user-mode samples it holds, summed by name
 * in pg_coverage_leaves(). */
struct leaf_count {
	const char *name;
	uint64_t count;
};

static int cmp_leaf(const void *a, const void *b)
{
	return strcmp(((const struct leaf_count *)a)->name, ((const struct leaf_count *)b)->name);
}

int pg_coverage_leaves(const struct pg_coverage *c, double min_share, char ***frames, size_t *n)
{
	struct leaf_count *l = calloc(c->n ? c->n : 1, sizeof(*l));
	size_t nl = 0, w = 0;
	int err = l ? 0 : -ENOMEM;

	*frames = NULL;
	*n = 0;
	for (size_t k = 0; k < c->n && !err; k++) {
		const char *folded = c->stacks[k].folded, *leaf = strrchr(folded, ';');

		/* a leaf's own time is user time: a syscall's belongs to the kernel */
		if (strstr(folded, " [k]"))
			continue;
		leaf = leaf ? leaf + 1 : folded;	/* no kernel frame: the last one */
		if (*leaf) {
			l[nl].name = leaf;
			l[nl++].count = c->stacks[k].count;
		}
	}
	if (nl > 1)
		qsort(l, nl, sizeof(*l), cmp_leaf);
	for (size_t r = 0; r < nl; r++) {	/* summed by name */
		if (w && !strcmp(l[w - 1].name, l[r].name))
			l[w - 1].count += l[r].count;
		else
			l[w++] = l[r];
	}
	for (size_t r = 0; r < w && !err; r++)
		if ((double)l[r].count >= min_share * (double)c->samples)
			err = pg_strv_push(frames, n, l[r].name);
	free(l);
	if (err) {
		pg_strv_free(*frames, *n);
		*frames = NULL;
		*n = 0;
	}
	return err;
}

bool pg_frames_have(char *const *frames, size_t n, const char *name)
{
	return n && bsearch(&name, frames, n, sizeof(*frames), cmp_strp);
}
