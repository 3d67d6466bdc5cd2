// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/hash.h"
#include "flamediff.h"
#include "stats.h"

#define WHY(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); } while (0)

void pg_flame_init(struct pg_flame *f)
{
	memset(f, 0, sizeof(*f));
	f->alpha = 0.05;
}

void pg_flame_release(struct pg_flame *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->nodes[i].name);
		free(f->nodes[i].cnt);
	}
	free(f->nodes);
	free(f->hash);
	pg_flame_init(f);
}

static size_t nreps(const struct pg_flame *f)
{
	return f->nbase + f->nnew;
}

static uint64_t hash_key(size_t parent, const char *name, size_t len)
{
	return pg_fnv1a(PG_FNV1A_INIT ^ (uint64_t)parent * 0x9e3779b97f4a7c15ULL, name, len);
}

static int rehash(struct pg_flame *f)
{
	size_t cap = f->hcap ? f->hcap * 2 : 1024;
	size_t *h = malloc(cap * sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		h[i] = PG_FLAME_NONE;
	for (size_t i = 1; i < f->n; i++) {
		const struct pg_flame_node *nd = &f->nodes[i];
		size_t k = (size_t)hash_key(nd->parent, nd->name, strlen(nd->name)) & (cap - 1);

		while (h[k] != PG_FLAME_NONE)
			k = (k + 1) & (cap - 1);
		h[k] = i;
	}
	free(f->hash);
	f->hash = h;
	f->hcap = cap;
	return 0;
}

static long new_node(struct pg_flame *f, size_t parent, const char *name, size_t len)
{
	struct pg_flame_node *nd;

	if (PG_ALLOC_GROW(f->nodes, f->n + 1, f->cap))
		return -ENOMEM;
	nd = &f->nodes[f->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = strndup(name, len);
	nd->cnt = calloc(2 * (nreps(f) ? nreps(f) : 1), sizeof(*nd->cnt));
	if (!nd->name || !nd->cnt) {
		free(nd->name);
		free(nd->cnt);
		return -ENOMEM;
	}
	nd->parent = parent;
	nd->first_child = nd->next_sibling = PG_FLAME_NONE;
	nd->depth = parent == PG_FLAME_NONE ? 0 : f->nodes[parent].depth + 1;
	nd->p = nd->q = NAN;
	if (nd->depth > f->max_depth)
		f->max_depth = nd->depth;
	return (long)f->n++;
}

/* The child @name[0..len) of @parent, created if new. */
static long child(struct pg_flame *f, size_t parent, const char *name, size_t len)
{
	size_t k;
	long id;

	if ((f->n + 1) * 2 > f->hcap && rehash(f))
		return -ENOMEM;
	k = (size_t)hash_key(parent, name, len) & (f->hcap - 1);
	for (; f->hash[k] != PG_FLAME_NONE; k = (k + 1) & (f->hcap - 1)) {
		const struct pg_flame_node *nd = &f->nodes[f->hash[k]];

		if (nd->parent == parent && !strncmp(nd->name, name, len) && !nd->name[len])
			return (long)f->hash[k];
	}
	id = new_node(f, parent, name, len);
	if (id >= 0)
		f->hash[k] = (size_t)id;
	return id;
}

/* Add the stacks of repetitions [r0, r1) of @run to the tree as repetition columns
 * starting at @col. */
static int add_run(struct pg_flame *f, const struct pg_run *run, size_t r0, size_t r1,
		   size_t col)
{
	size_t nr = nreps(f);

	for (size_t r = r0; r < r1; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t i = 0; i < rep->nstacks; i++) {
			const char *s = rep->stacks[i].folded;
			uint64_t c = rep->stacks[i].count;
			size_t node = 0;

			f->nodes[0].cnt[col + r - r0] += c;
			while (*s) {
				size_t len = strcspn(s, ";");
				long id = child(f, node, s, len);

				if (id < 0)
					return (int)id;
				node = (size_t)id;
				f->nodes[node].cnt[col + r - r0] += c;
				s += len + (s[len] == ';');
			}
			f->nodes[node].cnt[nr + col + r - r0] += c;
		}
	}
	return 0;
}

static const struct pg_flame *sort_flame;

static int cmp_by_parent_name(const void *a, const void *b)
{
	const struct pg_flame_node *x = &sort_flame->nodes[*(const size_t *)a];
	const struct pg_flame_node *y = &sort_flame->nodes[*(const size_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sum the columns into totals and link children in name order. */
static int finish(struct pg_flame *f)
{
	size_t nr = nreps(f), *idx;

	for (size_t i = 0; i < f->n; i++) {
		struct pg_flame_node *nd = &f->nodes[i];

		for (size_t r = 0; r < f->nbase; r++) {
			nd->base_total += nd->cnt[r];
			nd->base_self += nd->cnt[nr + r];
		}
		for (size_t r = f->nbase; r < nr; r++) {
			nd->total += nd->cnt[r];
			nd->self += nd->cnt[nr + r];
		}
	}
	f->total = f->nodes[0].total;
	f->base_total = f->nodes[0].base_total;
	if (f->n < 2)
		return 0;
	idx = malloc((f->n - 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 1; i < f->n; i++)
		idx[i - 1] = i;
	sort_flame = f;
	qsort(idx, f->n - 1, sizeof(*idx), cmp_by_parent_name);
	sort_flame = NULL;
	for (size_t i = f->n - 1; i-- > 0;) {
		struct pg_flame_node *nd = &f->nodes[idx[i]];

		nd->next_sibling = f->nodes[nd->parent].first_child;
		f->nodes[nd->parent].first_child = idx[i];
	}
	free(idx);
	return 0;
}

static int setup(struct pg_flame *f, size_t nbase, size_t nnew)
{
	pg_flame_release(f);
	f->nbase = nbase;
	f->nnew = nnew;
	return new_node(f, PG_FLAME_NONE, "all", 3) < 0 ? -ENOMEM : 0;
}

int pg_flame_build(const struct pg_run *run, long rep, struct pg_flame *f)
{
	size_t r0 = rep < 0 ? 0 : (size_t)rep, r1 = rep < 0 ? run->nreps : (size_t)rep + 1;
	int err;

	if (rep >= 0 && (size_t)rep >= run->nreps)
		return -EINVAL;
	err = setup(f, 0, r1 - r0);
	err = err ?: add_run(f, run, r0, r1, 0);
	err = err ?: finish(f);
	if (err)
		pg_flame_release(f);
	return err;
}

/* Per-repetition shares of @nd's metric on one side; reps without samples are skipped. */
static size_t shares(const struct pg_flame *f, const struct pg_flame_node *nd, size_t col,
		     size_t n, double *out)
{
	size_t k = 0, off = f->metric == PG_FLAME_SELF ? nreps(f) : 0;

	for (size_t r = col; r < col + n; r++) {
		uint64_t all = f->nodes[0].cnt[r];

		if (all)
			out[k++] = (double)nd->cnt[off + r] / (double)all;
	}
	return k;
}

/* Samples of the coloured metric on both sides. Nodes with fewer than one per repetition are
 * not tested: they could not reach significance, and testing them would only weaken the
 * false discovery control of the others (filtering on the pooled count, which ignores the
 * sides, keeps Benjamini-Hochberg valid). */
static uint64_t metric_sum(const struct pg_flame *f, const struct pg_flame_node *nd)
{
	return f->metric == PG_FLAME_SELF ? nd->self + nd->base_self : nd->total + nd->base_total;
}

static double mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* ---- frames of traced functions: compare's verdicts ---- */

static const struct pg_comparison *sort_cmp;

static const char *fcmp_name(const struct pg_fcmp *fc)
{
	return fc->display ? fc->display : fc->name;
}

/* by display name, then by position in the comparison (its order: regressions first) */
static int cmp_fcmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(fcmp_name(&sort_cmp->f[x]), fcmp_name(&sort_cmp->f[y]));

	return c ? c : (x > y) - (x < y);
}

/* The first compared function named @name in @idx[0..n) (sorted by cmp_fcmp_index), or NULL. */
static const struct pg_fcmp *find_fcmp(const struct pg_comparison *cmp, const size_t *idx,
				       size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(fcmp_name(&cmp->f[idx[mid]]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(fcmp_name(&cmp->f[idx[lo]]), name) ? &cmp->f[idx[lo]] : NULL;
}

/* Point every node of a compared function to its result. */
static int attach_verdicts(struct pg_flame *f, const struct pg_comparison *cmp)
{
	size_t *idx = malloc((cmp->n ? cmp->n : 1) * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < cmp->n; i++)
		idx[i] = i;
	sort_cmp = cmp;
	if (cmp->n > 1)
		qsort(idx, cmp->n, sizeof(*idx), cmp_fcmp_index);
	sort_cmp = NULL;
	f->exact = true;
	f->exact_metric = cmp->opts.metric;
	for (size_t i = 1; i < f->n; i++) {
		const struct pg_fcmp *fc = find_fcmp(cmp, idx, cmp->n, f->nodes[i].name);

		/* a sampled verdict is the function's over all its paths: it does not colour one */
		if (fc && fc->origin == PG_ORIGIN_SAMPLED) {
			f->nodes[i].sampled = fc;
			continue;
		}
		f->nodes[i].exact = fc;
		f->nexact += f->nodes[i].exact && f->nodes[i].total;
	}
	free(idx);
	return 0;
}

static enum pg_flame_change verdict_change(const struct pg_fcmp *fc)
{
	if (fc->verdict == PG_VERDICT_REGRESSION)
		return PG_FLAME_GREW;
	if (fc->verdict == PG_VERDICT_IMPROVEMENT)
		return PG_FLAME_SHRANK;
	return PG_FLAME_NEUTRAL;
}

/* Colour the drawn frames of compared functions by their verdicts. */
static void colour_exact(struct pg_flame *f)
{
	double maxc = 0;

	for (size_t i = 1; i < f->n; i++) {
		struct pg_flame_node *nd = &f->nodes[i];

		if (!nd->exact || !nd->total)
			continue;
		nd->change = verdict_change(nd->exact);
		if (nd->change != PG_FLAME_NEUTRAL && isfinite(nd->exact->change))
			maxc = fmax(maxc, fabs(nd->exact->change));
	}
	for (size_t i = 1; i < f->n; i++) {
		struct pg_flame_node *nd = &f->nodes[i];

		if (!nd->exact || nd->change == PG_FLAME_NEUTRAL)
			continue;
		nd->intensity = maxc > 0 && isfinite(nd->exact->change) ?
				fabs(nd->exact->change) / maxc : 1;
		f->nexact_grew += nd->change == PG_FLAME_GREW;
		f->nexact_shrank += nd->change == PG_FLAME_SHRANK;
	}
}

static int colour(struct pg_flame *f)
{
	double *x = calloc(f->nbase + 1, sizeof(*x)), *y = calloc(f->nnew + 1, sizeof(*y));
	double *p = calloc(f->n, sizeof(*p)), maxd = 0;
	size_t *tested = calloc(f->n, sizeof(*tested)), nt = 0, nx, ny;
	int err = 0;

	if (!x || !y || !p || !tested) {
		err = -ENOMEM;
		goto cleanup;
	}
	nx = shares(f, &f->nodes[0], 0, f->nbase, x);
	ny = shares(f, &f->nodes[0], f->nbase, f->nnew, y);
	f->tested = nx >= 2 && ny >= 2;
	for (size_t i = 0; i < f->n; i++) {
		struct pg_flame_node *nd = &f->nodes[i];
		struct pg_mwu m;

		nd->only_new = nd->total && !nd->base_total;
		f->nonly_new += nd->only_new && !f->nodes[nd->parent == PG_FLAME_NONE ? 0 :
							  nd->parent].only_new;
		if (!nd->total) {	/* only in BASE: not drawn */
			if (!f->nodes[nd->parent].total)
				continue;	/* counted at the topmost gone node */
			f->gone_samples += nd->base_total;
			continue;
		}
		nx = shares(f, nd, 0, f->nbase, x);
		ny = shares(f, nd, f->nbase, f->nnew, y);
		nd->base_share = mean(x, nx);
		nd->new_share = mean(y, ny);
		nd->delta = nd->new_share - nd->base_share;
		if (!i || nd->exact || !f->tested || metric_sum(f, nd) < nreps(f) ||
		    pg_mwu_test(x, nx, y, ny, &m))
			continue;
		nd->p = m.p;
		p[nt] = m.p;
		tested[nt++] = i;
	}
	if (nt && pg_bh_adjust(p, nt, p)) {
		err = -ENOMEM;
		goto cleanup;
	}
	colour_exact(f);
	for (size_t k = 0; k < nt; k++) {
		struct pg_flame_node *nd = &f->nodes[tested[k]];

		nd->q = p[k];
		if (nd->q <= f->alpha && nd->delta != 0) {
			nd->change = nd->delta > 0 ? PG_FLAME_GREW : PG_FLAME_SHRANK;
			if (fabs(nd->delta) > maxd)
				maxd = fabs(nd->delta);
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		struct pg_flame_node *nd = &f->nodes[i];

		if (nd->change == PG_FLAME_NEUTRAL)
			continue;
		if (!nd->exact)
			nd->intensity = maxd > 0 ? fabs(nd->delta) / maxd : 0;
		f->ngrew += nd->change == PG_FLAME_GREW;
		f->nshrank += nd->change == PG_FLAME_SHRANK;
	}
cleanup:
	free(x);
	free(y);
	free(p);
	free(tested);
	return err;
}

int pg_flame_diff(const struct pg_run *base, const struct pg_run *new,
		  enum pg_flame_metric metric, double alpha, struct pg_flame *f, char *why,
		  size_t whylen)
{
	return pg_flame_diff_exact(base, new, metric, alpha, NULL, f, why, whylen);
}

int pg_flame_diff_exact(const struct pg_run *base, const struct pg_run *new,
			enum pg_flame_metric metric, double alpha, const struct pg_comparison *cmp,
			struct pg_flame *f, char *why, size_t whylen)
{
	int err = setup(f, base->nreps, new->nreps);

	f->diff = true;
	f->metric = metric;
	f->alpha = alpha;
	err = err ?: add_run(f, base, 0, base->nreps, 0);
	err = err ?: add_run(f, new, 0, new->nreps, base->nreps);
	err = err ?: finish(f);
	if (!err && (!f->total || !f->base_total)) {
		WHY("the %s run has no sampled stacks (recorded with --no-sample, or too short)",
		    !f->base_total ? "base" : "new");
		err = -EINVAL;
	}
	if (!err && cmp)
		err = attach_verdicts(f, cmp);
	err = err ?: colour(f);
	if (err) {
		pg_flame_release(f);
		f->diff = true;
	}
	return err;
}
