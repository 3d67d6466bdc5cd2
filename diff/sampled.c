// SPDX-License-Identifier: MIT
/*
 * diff/sampled.c - verdicts from the sampled CPU profile for functions that are not traced,
 * and the sampled functions that explain a traced one's change (sampled.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probeframes.h"
#include "sampled.h"
#include "speed.h"

/* One frame's samples in one repetition of one run; s points into a folded stack. */
struct fent {
	const char *s;
	size_t len;
	uint32_t rep;
	uint64_t cnt;
};

struct fents {
	struct fent *v;
	size_t n, cap;
};

static int namecmp(const char *a, size_t al, const char *b, size_t bl)
{
	int d = memcmp(a, b, al < bl ? al : bl);

	return d ?: (al > bl) - (al < bl);
}

static int cmp_fent(const void *pa, const void *pb)
{
	const struct fent *a = pa, *b = pb;
	int d = namecmp(a->s, a->len, b->s, b->len);

	return d ?: (a->rep > b->rep) - (a->rep < b->rep);
}

static int push(struct fents *e, const char *s, size_t len, uint32_t rep, uint64_t cnt)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;
		struct fent *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = (struct fent){ s, len, rep, cnt };
	return 0;
}

/* The length of the benchmark's part of folded stack @s: perfgate's probe frames cut off. */
static size_t own_len(const char *s)
{
	size_t keep;

	return pg_probe_split(s, &keep) ? keep : strlen(s);
}

/* The frames of one stack's first @len bytes into @e: the last, or each once (@inclusive). */
static int stack_frames(struct fents *e, const char *s, size_t len, uint32_t r, uint64_t cnt,
			bool inclusive)
{
	const char *end = s + len;
	size_t n0 = e->n;

	if (!inclusive) {
		const char *f = end;

		while (f > s && f[-1] != ';')
			f--;
		return push(e, f, (size_t)(end - f), r, cnt);
	}
	for (const char *f = s; f < end;) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		size_t fl = semi ? (size_t)(semi - f) : (size_t)(end - f);
		bool seen = false;

		/* a recursive function counts once a stack */
		for (size_t k = n0; k < e->n && !seen; k++)
			seen = !namecmp(e->v[k].s, e->v[k].len, f, fl);
		if (!seen && push(e, f, fl, r, cnt))
			return -ENOMEM;
		f += fl + 1;
	}
	return 0;
}

/* Every frame's samples of @run, sorted by (frame, repetition), one entry each. */
static int collect(const struct pg_run *run, bool inclusive, struct fents *e)
{
	size_t m = 0;

	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t k = 0; rep->cpu_ns && k < rep->nstacks; k++) {
			size_t len = own_len(rep->stacks[k].folded);

			if (len && stack_frames(e, rep->stacks[k].folded, len, (uint32_t)r,
						rep->stacks[k].count, inclusive))
				return -ENOMEM;
		}
	}
	if (!e->n)
		return 0;
	qsort(e->v, e->n, sizeof(*e->v), cmp_fent);
	for (size_t i = 0; i < e->n; i++) {
		if (m && !cmp_fent(&e->v[m - 1], &e->v[i]))
			e->v[m - 1].cnt += e->v[i].cnt;
		else
			e->v[m++] = e->v[i];
	}
	e->n = m;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct lookup {
	const char *s;
	size_t len;
};

static int cmp_lookup(const void *k, const void *e)
{
	const struct lookup *l = k;
	const char *s = *(const char *const *)e;

	return namecmp(l->s, l->len, s, strlen(s));
}

/* Is the frame one that samples do not judge (sampled.h)? @traced: sorted names. */
static bool excluded(const char *s, size_t len, const char **traced, size_t ntraced)
{
	struct lookup l = { s, len };

	if (!namecmp(s, len, "[unknown]", 9) || !namecmp(s, len, "[pre-exec]", 10) ||
	    !namecmp(s, len, PG_PROBE_FRAME, strlen(PG_PROBE_FRAME)))
		return true;
	for (size_t i = 0; i + 3 <= len; i++)
		if (!memcmp(s + i, "+0x", 3))
			return true;
	return bsearch(&l, traced, ntraced, sizeof(*traced), cmp_lookup) != NULL;
}

/*
 * @s := the per-repetition estimates of one frame's time from its entries g[0..ng) of @run:
 * count / kept[r] * cpu_ns, half a sample where it has none.
 */
static void fill(struct pg_sample *s, const struct pg_run *run, const struct fent *g, size_t ng,
		 const uint64_t *kept)
{
	size_t k = 0;

	s->n = 0;
	s->measured = s->compensated = s->callees = 0;
	for (size_t r = 0; r < run->nreps; r++) {
		double c;

		if (!run->reps[r].cpu_ns || !kept[r])
			continue;
		while (k < ng && g[k].rep < r)
			k++;
		c = k < ng && g[k].rep == r ? (double)g[k].cnt : 0.5;
		pg_sample_push(s, c / (double)kept[r] * (double)run->reps[r].cpu_ns,
			       pg_rep_tag(run, r));
	}
}

/* The samples of each repetition of @run in its stacks; NULL on ENOMEM. */
static uint64_t *kept_samples(const struct pg_run *run)
{
	uint64_t *kept = calloc(run->nreps ? run->nreps : 1, sizeof(*kept));

	for (size_t r = 0; kept && r < run->nreps; r++)
		for (size_t k = 0; k < run->reps[r].nstacks; k++)
			kept[r] += run->reps[r].stacks[k].count;
	return kept;
}

static uint64_t group_sum(const struct fent *g, size_t n)
{
	uint64_t s = 0;

	for (size_t k = 0; k < n; k++)
		s += g[k].cnt;
	return s;
}

/* The scratch of pg_compare_sampled(). */
struct sctx {
	struct pg_comparison *out;
	const struct pg_run *run[2];
	const struct pg_compare_opts *o;
	uint64_t *kept[2];
	double wall_ns;
	struct pg_sample *s[2];
	struct pg_stats_ws *ws;
	struct pg_family *fam;
};

/* Judge one frame, whose entries are g[side][0..ng[side]). 0 or a negative errno. */
static int judge_frame(struct sctx *x, const struct fent *g[2], const size_t ng[2])
{
	uint64_t tot[2] = { group_sum(g[0], ng[0]), group_sum(g[1], ng[1]) };
	double mb = (double)tot[0] / (double)x->run[0]->nreps;
	double mn = (double)tot[1] / (double)x->run[1]->nreps;
	struct pg_fcmp *f;

	if (mb < PG_SAMPLED_MIN_SAMPLES && mn < PG_SAMPLED_MIN_SAMPLES)
		return 0;
	for (int k = 0; k < 2; k++)
		fill(x->s[k], x->run[k], g[k], ng[k], x->kept[k]);
	f = pg_comparison_add(x->out);
	if (!f)
		return -ENOMEM;
	f->origin = PG_ORIGIN_SAMPLED;
	f->samples = tot[0] + tot[1];
	f->binary = strdup("");
	f->name = strndup(g[0]->s, g[0]->len);
	f->display = strndup(g[0]->s, g[0]->len);
	if (!f->binary || !f->name || !f->display)
		return -ENOMEM;
	f->code = pg_code_cmp(pg_run_code(x->run[0], f->name), pg_run_code(x->run[1], f->name));
	x->out->nsampled++;
	x->s[0]->share = 1;	/* all of it on a CPU: the machine's speed moves it all */
	x->s[0]->speed_id = PG_SPEED_NO_ID;
	return pg_judge_alone(f, x->out->n - 1, x->s[0], x->s[1], x->o, x->wall_ns, x->ws,
			      x->fam);
}

/* The sorted names of the traced functions of either run (pointers into the keys). */
static const char **traced_names(const struct pg_fkey *keys, size_t nkeys, size_t *n)
{
	const char **v = malloc((2 * nkeys + 1) * sizeof(*v));

	if (!v)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < nkeys; i++) {
		v[(*n)++] = keys[i].name;
		v[(*n)++] = keys[i].display;
	}
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* The end of the group of entries of one frame starting at e->v[i]. */
static size_t group_end(const struct fents *e, size_t i)
{
	size_t j = i + 1;

	while (j < e->n && !namecmp(e->v[j].s, e->v[j].len, e->v[i].s, e->v[i].len))
		j++;
	return j;
}

/* Walk the frames of both sides in name order; judge those on both. */
static int judge_all(struct sctx *x, const struct fents e[2], const char **traced,
		     size_t ntraced)
{
	size_t i = 0, j = 0;
	int err = 0;

	while (!err && i < e[0].n && j < e[1].n) {
		const struct fent *a = &e[0].v[i], *b = &e[1].v[j];
		int d = namecmp(a->s, a->len, b->s, b->len);
		size_t ie = d <= 0 ? group_end(&e[0], i) : i;
		size_t je = d >= 0 ? group_end(&e[1], j) : j;

		if (!d && !excluded(a->s, a->len, traced, ntraced)) {
			const struct fent *g[2] = { a, b };
			size_t ng[2] = { ie - i, je - j };

			err = judge_frame(x, g, ng);
		}
		i = ie;
		j = je;
	}
	return err;
}

int pg_compare_sampled(struct pg_comparison *out, const struct pg_run *base,
		       const struct pg_run *new, const struct pg_compare_opts *o,
		       const struct pg_fkey *keys, size_t nkeys, double wall_ns,
		       struct pg_sample *sb, struct pg_sample *sn, struct pg_stats_ws *ws,
		       struct pg_family *fam)
{
	struct sctx x = { out, { base, new }, o, { NULL, NULL }, wall_ns, { sb, sn }, ws, fam };
	struct fents e[2] = { { 0 }, { 0 } };
	bool inclusive = o->metric == PG_METRIC_TOTAL;
	double share = sb->share;
	uint32_t id = sb->speed_id;
	const char **traced = NULL;
	size_t ntraced = 0;
	int err = -ENOMEM;

	if (!base->nreps || !new->nreps)
		return 0;
	x.kept[0] = kept_samples(base);
	x.kept[1] = kept_samples(new);
	traced = traced_names(keys, nkeys, &ntraced);
	if (!x.kept[0] || !x.kept[1] || !traced)
		goto out;
	err = collect(base, inclusive, &e[0]);
	err = err ?: collect(new, inclusive, &e[1]);
	err = err ?: judge_all(&x, e, traced, ntraced);
out:
	sb->share = share;
	sb->speed_id = id;
	free(x.kept[0]);
	free(x.kept[1]);
	free(traced);
	free(e[0].v);
	free(e[1].v);
	return err;
}

/* ---- what explains a traced function's change ---- */

struct named {
	const char *name;
	size_t i;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

static int cmp_named_key(const void *k, const void *e)
{
	const struct lookup *l = k;
	const char *s = ((const struct named *)e)->name;

	return namecmp(l->s, l->len, s, strlen(s));
}

/* (traced entry, sampled entry under it) */
struct under {
	size_t t, s;
};

static int cmp_under(const void *pa, const void *pb)
{
	const struct under *a = pa, *b = pb;

	return a->t != b->t ? (a->t > b->t) - (a->t < b->t) : (a->s > b->s) - (a->s < b->s);
}

/* The pairs of one stack: each sampled frame under its nearest traced ancestor. */
static int stack_under(const struct pg_comparison *c, const char *s, const struct named *nm,
		       size_t nn, bool *inside, struct under **u, size_t *nu, size_t *cap)
{
	size_t len = own_len(s), t = SIZE_MAX;
	const char *end = s + len;

	for (const char *f = s; f < end;) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		struct lookup l = { f, semi ? (size_t)(semi - f) : (size_t)(end - f) };
		const struct named *hit = bsearch(&l, nm, nn, sizeof(*nm), cmp_named_key);

		f += l.len + 1;
		if (!hit)
			continue;
		if (c->f[hit->i].origin == PG_ORIGIN_EXACT) {
			t = hit->i;
			continue;
		}
		if (t == SIZE_MAX || !pg_change_counts(&c->f[t]))
			continue;
		/* its change is in the traced function's, which explains the program's */
		inside[hit->i] = true;
		if (!pg_change_counts(&c->f[hit->i]) ||
		    (c->f[t].change > 0) != (c->f[hit->i].change > 0))
			continue;
		if (*nu == *cap) {
			size_t nc = *cap ? 2 * *cap : 64;
			struct under *v = realloc(*u, nc * sizeof(*v));

			if (!v)
				return -ENOMEM;
			*u = v;
			*cap = nc;
		}
		(*u)[(*nu)++] = (struct under){ t, hit->i };
	}
	return 0;
}

/* "sampled under it: a +12.0%, b +3.1%" into each traced function's explain. */
static void explain_words(struct pg_comparison *c, struct under *u, size_t nu)
{
	if (!nu)
		return;
	qsort(u, nu, sizeof(*u), cmp_under);
	for (size_t k = 0; k < nu; k++) {
		struct pg_fcmp *t = &c->f[u[k].t];
		const struct pg_fcmp *s = &c->f[u[k].s];

		if (k && u[k].t == u[k - 1].t && u[k].s == u[k - 1].s)
			continue;
		if (!k || u[k].t != u[k - 1].t)
			snprintf(t->explain, sizeof(t->explain), "sampled under it:");
		else
			pg_append(t->explain, sizeof(t->explain), ",");
		pg_append(t->explain, sizeof(t->explain), " %s %+.1f%%", s->display,
			  100 * s->change);
	}
}

int pg_sampled_explain(struct pg_comparison *c, const struct pg_run *new, bool *inside)
{
	struct named *nm;
	struct under *u = NULL;
	size_t nn = 0, nu = 0, cap = 0;
	int err = 0;

	memset(inside, 0, c->n * sizeof(*inside));
	if (!c->nsampled)
		return 0;
	nm = malloc((c->n ? c->n : 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin != PG_ORIGIN_PROGRAM && c->f[i].display)
			nm[nn++] = (struct named){ c->f[i].display, i };
	qsort(nm, nn, sizeof(*nm), cmp_named);
	for (size_t r = 0; !err && r < new->nreps; r++)
		for (size_t k = 0; !err && k < new->reps[r].nstacks; k++)
			err = stack_under(c, new->reps[r].stacks[k].folded, nm, nn, inside, &u, &nu,
					  &cap);
	if (!err)
		explain_words(c, u, nu);
	free(nm);
	free(u);
	return err;
}
