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

#include "cause.h"
#include "probeframes.h"
#include "sampled.h"
#include "speed.h"

/*
 * One function's samples in one repetition of one run: s[0..len) its frame name (in a folded
 * stack or an own entry), bin what is shown as its object and obj the object alone (both ""
 * when the run names none; borrowed from struct objkeys).
 */
struct fent {
	const char *bin, *obj;
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

/* By function (object shown, then name), then repetition. */
static int cmp_fent(const void *pa, const void *pb)
{
	const struct fent *a = pa, *b = pb;
	int d = strcmp(a->bin, b->bin) ?: namecmp(a->s, a->len, b->s, b->len);

	return d ?: (a->rep > b->rep) - (a->rep < b->rep);
}

static int push_in(struct fents *e, const char *bin, const char *obj, const char *s, size_t len,
		   uint32_t rep, uint64_t cnt)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;
		struct fent *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = (struct fent){ bin, obj, s, len, rep, cnt };
	return 0;
}

/* A frame of a folded stack: in no object the stack names. */
static int push(struct fents *e, const char *s, size_t len, uint32_t rep, uint64_t cnt)
{
	return push_in(e, "", "", s, len, rep, cnt);
}

/* The length of the benchmark's part of folded stack @s: perfgate's probe frames cut off. */
static size_t own_len(const char *s)
{
	size_t keep;

	return pg_probe_split(s, &keep) ? keep : strlen(s);
}

/*
 * The functions of one stack's first @len bytes into @e: the last, or each once (@inclusive).
 * An inlined function's frame is not one: its time is the function's it was inlined into.
 */
static int stack_frames(struct fents *e, const char *s, size_t len, uint32_t r, uint64_t cnt,
			bool inclusive)
{
	const char *end = s + len;
	size_t n0 = e->n;

	if (!inclusive) {
		const char *f = end;

		for (;;) {
			while (f > s && f[-1] != ';')
				f--;
			if (f == s || !pg_frame_inlined(f, (size_t)(end - f)))
				break;
			end = f - 1;
			f = end;
		}
		return push(e, f, (size_t)(end - f), r, cnt);
	}
	for (const char *f = s; f < end;) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		size_t fl = semi ? (size_t)(semi - f) : (size_t)(end - f);
		bool seen = pg_frame_inlined(f, fl);

		/* a recursive function counts once a stack */
		for (size_t k = n0; k < e->n && !seen; k++)
			seen = !namecmp(e->v[k].s, e->v[k].len, f, fl);
		if (!seen && push(e, f, fl, r, cnt))
			return -ENOMEM;
		f += fl + 1;
	}
	return 0;
}

/*
 * What a run's own samples show as their function's object: the object's base name, and the
 * base name of the program its process ran when the object is not that program ("libc.so.6
 * (server)"). The new run's program goes by the base run's program's name when the two differ
 * (perfgate ab ./tool-old ./tool-new), as traced functions do (pg_fkeys_fill()).
 */
struct objkeys {
	const struct pg_run *run;
	const char **obj;	/* per object: its name as shown (borrowed) */
	char **pair;		/* per object x exe: what is shown, made on first use */
	size_t n;
};

static int objkeys_init(struct objkeys *k, const struct pg_run *run, const struct pg_run *base)
{
	const char *prog = run->meta.program ? pg_basename(run->meta.program) : NULL;
	const char *alias = base->meta.program ? pg_basename(base->meta.program) : NULL;

	k->run = run;
	k->n = run->nobjects;
	k->obj = calloc(k->n ? k->n : 1, sizeof(*k->obj));
	k->pair = calloc(k->n ? k->n * k->n : 1, sizeof(*k->pair));
	if (!k->obj || !k->pair)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++) {
		k->obj[i] = pg_basename(run->objects[i]);
		if (prog && alias && !strcmp(k->obj[i], prog))
			k->obj[i] = alias;
	}
	return 0;
}

static void objkeys_release(struct objkeys *k)
{
	for (size_t i = 0; k->pair && i < k->n * k->n; i++)
		free(k->pair[i]);
	free(k->pair);
	free(k->obj);
}

/* What object @o of a process running @exe is shown as; NULL on ENOMEM. */
static const char *objkeys_bin(struct objkeys *k, uint32_t o, uint32_t exe)
{
	char **p = &k->pair[(size_t)o * k->n + exe];

	if (!*p && (o == exe || !strcmp(k->obj[o], k->obj[exe])))
		*p = strdup(k->obj[o]);
	else if (!*p && asprintf(p, "%s (%s)", k->obj[o], k->obj[exe]) < 0)
		*p = NULL;
	return *p;
}

/* Every function's samples of @run, sorted by (function, repetition), one entry each: from its
 * own samples (its inclusive ones when @inclusive) by @keys, else (NULL) from its stacks. */
static int collect(const struct pg_run *run, bool inclusive, struct objkeys *keys,
		   struct fents *e)
{
	size_t m = 0;

	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];
		const struct pg_own *v = inclusive ? rep->incl : rep->own;
		size_t nv = inclusive ? rep->nincl : rep->nown;

		for (size_t k = 0; keys && rep->cpu_ns && k < nv; k++) {
			const struct pg_own *w = &v[k];
			const char *bin = objkeys_bin(keys, w->object, w->exe);

			if (!bin || push_in(e, bin, keys->obj[w->object], w->frame,
					    strlen(w->frame), (uint32_t)r, w->count))
				return -ENOMEM;
		}
		for (size_t k = 0; !keys && rep->cpu_ns && k < rep->nstacks; k++) {
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

/* A traced function of either run: its object's base name, and a name of it. */
struct traced {
	const char *bin, *name;
};

static int cmp_traced(const void *a, const void *b)
{
	const struct traced *x = a, *y = b;

	return strcmp(x->name, y->name) ?: strcmp(x->bin, y->bin);
}

struct lookup {
	const char *s;
	size_t len;
};

static int cmp_lookup(const void *k, const void *e)
{
	const struct lookup *l = k;
	const char *s = ((const struct traced *)e)->name;

	return namecmp(l->s, l->len, s, strlen(s));
}

/* Is @e's function traced in @obj (any object when @obj is "")? @traced: sorted. */
static bool is_traced(const struct fent *e, const struct traced *traced, size_t ntraced)
{
	struct lookup l = { e->s, e->len };
	const struct traced *t = bsearch(&l, traced, ntraced, sizeof(*traced), cmp_lookup);

	if (!t || !*e->obj)
		return t != NULL;
	while (t > traced && !cmp_lookup(&l, t - 1))
		t--;
	for (; t < traced + ntraced && !cmp_lookup(&l, t); t++)
		if (!strcmp(t->bin, e->obj))
			return true;
	return false;
}

/* Is the function one that samples do not judge (sampled.h)? */
static bool excluded(const struct fent *e, const struct traced *traced, size_t ntraced)
{
	const char *s = e->s;
	size_t len = e->len;

	if (!namecmp(s, len, "[unknown]", 9) || !namecmp(s, len, "[pre-exec]", 10) ||
	    !namecmp(s, len, PG_PROBE_FRAME, strlen(PG_PROBE_FRAME)))
		return true;
	for (size_t i = 0; i + 3 <= len; i++)
		if (!memcmp(s + i, "+0x", 3))
			return true;
	return is_traced(e, traced, ntraced);
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
	s->measured = s->compensated = s->calls = s->callees = 0;
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

/*
 * A frame too rare to judge, of @tot samples on each side: named in the comparison when it
 * holds PG_SAMPLED_SHOW_SHARE of a side's samples.
 */
static int unjudged(struct sctx *x, const struct fent *g, const uint64_t tot[2])
{
	double share = 0, per_rep = 0;

	for (int k = 0; k < 2; k++) {
		uint64_t all = 0;

		for (size_t r = 0; r < x->run[k]->nreps; r++)
			all += x->run[k]->reps[r].cpu_ns ? x->kept[k][r] : 0;
		if (all && (double)tot[k] / (double)all > share)
			share = (double)tot[k] / (double)all;
		if ((double)tot[k] / (double)x->run[k]->nreps > per_rep)
			per_rep = (double)tot[k] / (double)x->run[k]->nreps;
	}
	if (share < PG_SAMPLED_SHOW_SHARE)
		return 0;
	return pg_comparison_add_unjudged(x->out, g->bin, g->s, g->len, share, per_rep);
}

/* Judge one frame, whose entries are g[side][0..ng[side]). 0 or a negative errno. */
static int judge_frame(struct sctx *x, const struct fent *g[2], const size_t ng[2])
{
	uint64_t tot[2] = { group_sum(g[0], ng[0]), group_sum(g[1], ng[1]) };
	double mb = (double)tot[0] / (double)x->run[0]->nreps;
	double mn = (double)tot[1] / (double)x->run[1]->nreps;
	struct pg_fcmp *f;

	if (mb < PG_SAMPLED_MIN_SAMPLES && mn < PG_SAMPLED_MIN_SAMPLES)
		return unjudged(x, g[0], tot);
	for (int k = 0; k < 2; k++)
		fill(x->s[k], x->run[k], g[k], ng[k], x->kept[k]);
	f = pg_comparison_add(x->out);
	if (!f)
		return -ENOMEM;
	f->origin = PG_ORIGIN_SAMPLED;
	f->samples = tot[0] + tot[1];
	f->binary = strdup(g[0]->bin);
	f->name = strndup(g[0]->s, g[0]->len);
	f->display = strndup(g[0]->s, g[0]->len);
	if (!f->binary || !f->name || !f->display)
		return -ENOMEM;
	f->code = pg_code_cmp(pg_run_code(x->run[0], f->name), pg_run_code(x->run[1], f->name));
	x->out->nsampled++;
	x->s[0]->share = 1;	/* all of it on a CPU: the machine's speed moves it all */
	x->s[0]->speed_id = PG_SPEED_NO_ID;
	return pg_judge_alone(f, x->out->n - 1, x->s[0], x->s[1], x->o, x->wall_ns, 0, x->ws,
			      x->fam);
}

/* The traced functions of either run by each of their names (pointing into the keys), sorted. */
static struct traced *traced_names(const struct pg_fkey *keys, size_t nkeys, size_t *n)
{
	struct traced *v = malloc((2 * nkeys + 1) * sizeof(*v));

	if (!v)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < nkeys; i++) {
		v[(*n)++] = (struct traced){ keys[i].binary, keys[i].name };
		v[(*n)++] = (struct traced){ keys[i].binary, keys[i].display };
	}
	qsort(v, *n, sizeof(*v), cmp_traced);
	return v;
}

/* The same function (object shown, name)? */
static int cmp_func(const struct fent *a, const struct fent *b)
{
	return strcmp(a->bin, b->bin) ?: namecmp(a->s, a->len, b->s, b->len);
}

/* The end of the group of entries of one function starting at e->v[i]. */
static size_t group_end(const struct fents *e, size_t i)
{
	size_t j = i + 1;

	while (j < e->n && !cmp_func(&e->v[j], &e->v[i]))
		j++;
	return j;
}

/* Walk the functions of both sides in order; judge those on both. */
static int judge_all(struct sctx *x, const struct fents e[2], const struct traced *traced,
		     size_t ntraced)
{
	size_t i = 0, j = 0;
	int err = 0;

	while (!err && i < e[0].n && j < e[1].n) {
		const struct fent *a = &e[0].v[i], *b = &e[1].v[j];
		int d = cmp_func(a, b);
		size_t ie = d <= 0 ? group_end(&e[0], i) : i;
		size_t je = d >= 0 ? group_end(&e[1], j) : j;

		if (!d && !excluded(a, traced, ntraced) && !excluded(b, traced, ntraced)) {
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
	struct objkeys ok[2] = { { 0 }, { 0 } };
	bool inclusive = o->metric == PG_METRIC_TOTAL;
	/*
	 * own (or inclusive) samples on both sides: by the function whose code holds them (or
	 * whose frame their stacks hold), in its object
	 */
	bool own = inclusive ? pg_run_has_incl(base) && pg_run_has_incl(new) :
			       base->nobjects && new->nobjects;
	double share = sb->share;
	uint32_t id = sb->speed_id;
	struct traced *traced = NULL;
	size_t ntraced = 0;
	int err = -ENOMEM;

	if (!base->nreps || !new->nreps)
		return 0;
	x.kept[0] = kept_samples(base);
	x.kept[1] = kept_samples(new);
	traced = traced_names(keys, nkeys, &ntraced);
	if (!x.kept[0] || !x.kept[1] || !traced)
		goto out;
	if (own && (objkeys_init(&ok[0], base, base) || objkeys_init(&ok[1], new, base)))
		goto out;
	err = collect(base, inclusive, own ? &ok[0] : NULL, &e[0]);
	err = err ?: collect(new, inclusive, own ? &ok[1] : NULL, &e[1]);
	err = err ?: judge_all(&x, e, traced, ntraced);
out:
	sb->share = share;
	sb->speed_id = id;
	free(x.kept[0]);
	free(x.kept[1]);
	free(traced);
	free(e[0].v);
	free(e[1].v);
	objkeys_release(&ok[0]);
	objkeys_release(&ok[1]);
	return err;
}

/* ---- what explains a traced function's change ---- */

struct named {
	const char *name;
	size_t i;
};

static int cmp_named(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;

	return strcmp(a->name, b->name) ?: (a->i > b->i) - (a->i < b->i);
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

/* The entries nm[*lo..*lo + n) named @l; returns n (0: none). */
static size_t named_range(const struct named *nm, size_t nn, const struct lookup *l, size_t *lo)
{
	const struct named *hit = bsearch(l, nm, nn, sizeof(*nm), cmp_named_key);
	size_t a, b;

	if (!hit)
		return 0;
	a = (size_t)(hit - nm);
	b = a + 1;
	while (a > 0 && !cmp_named_key(l, &nm[a - 1]))
		a--;
	while (b < nn && !cmp_named_key(l, &nm[b]))
		b++;
	*lo = a;
	return b - a;
}

/*
 * Of the traced entries nm[lo..lo + n), the one that can run in the process of sampled entry
 * @s (diff/cause.h, pg_same_process()): SIZE_MAX when none, or more than one, can.
 */
static size_t traced_of(const struct pg_comparison *c, const struct named *nm, size_t lo,
			size_t n, size_t s)
{
	size_t t = SIZE_MAX;

	for (size_t k = lo; k < lo + n; k++) {
		size_t i = nm[k].i;

		if (c->f[i].origin != PG_ORIGIN_EXACT ||
		    !pg_same_process(c->f[i].binary, c->f[s].binary))
			continue;
		if (t != SIZE_MAX)
			return SIZE_MAX;
		t = i;
	}
	return t;
}

static int push_under(struct under **u, size_t *nu, size_t *cap, size_t t, size_t s)
{
	if (*nu == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct under *v = realloc(*u, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*u = v;
		*cap = nc;
	}
	(*u)[(*nu)++] = (struct under){ t, s };
	return 0;
}

/*
 * The pairs of one stack: each sampled frame under its nearest traced ancestor, matched by
 * (object, name): of the traced functions of the ancestor's name, the one in the sampled
 * function's object or its process's program (a client's and a server's event_loop share a
 * name; a server's lookup is under the server's only).
 */
static int stack_under(const struct pg_comparison *c, const char *s, const struct named *nm,
		       size_t nn, bool *inside, struct under **u, size_t *nu, size_t *cap)
{
	size_t len = own_len(s), tlo = 0, tn = 0;
	const char *end = s + len;

	for (const char *f = s; f < end;) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		struct lookup l = { f, semi ? (size_t)(semi - f) : (size_t)(end - f) };
		size_t lo = 0, n = named_range(nm, nn, &l, &lo);
		bool traced = false;

		f += l.len + 1;
		for (size_t k = lo; k < lo + n; k++) {
			size_t i = nm[k].i, t;

			traced |= c->f[i].origin == PG_ORIGIN_EXACT;
			if (c->f[i].origin != PG_ORIGIN_SAMPLED || !tn)
				continue;
			t = traced_of(c, nm, tlo, tn, i);
			if (t == SIZE_MAX || !pg_change_counts(&c->f[t]))
				continue;
			/* its change is in the traced function's, which explains the program's */
			inside[i] = true;
			if (!pg_change_counts(&c->f[i]) ||
			    (c->f[t].change > 0) != (c->f[i].change > 0))
				continue;
			if (push_under(u, nu, cap, t, i))
				return -ENOMEM;
		}
		if (traced) {
			tlo = lo;
			tn = n;
		}
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
