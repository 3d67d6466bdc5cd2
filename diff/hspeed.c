// SPDX-License-Identifier: MIT
/*
 * diff/hspeed.c - the machine's speed in stored sessions, for history check (hspeed.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "hspeed.h"
#include "repvalues.h"
#include "speedlib.h"
#include "stats.h"

/* The references' deviations by session: session s's at e[off[s]..off[s + 1]), sorted by
 * value (group: the session, owner: the reference), with their running weights. */
struct table {
	size_t S;		/* sessions, the new one included */
	size_t nrefs;
	size_t *ref_of;		/* per function: its reference, or SIZE_MAX */
	size_t *off;
	struct pg_wmed_item *e;
	size_t *pos;		/* pos[ref * S + s]: its entry in session s, or SIZE_MAX */
};

static bool is_ref(const struct pg_hfunc *h, size_t min_reps)
{
	if (!h->at || h->nsessions < PG_HCHECK_MIN_SESSIONS || h->nreps < min_reps)
		return false;
	for (size_t i = 0; i < h->nsessions; i++)
		if (!(h->sessions[i] > PG_MIN_NS))
			return false;
	return pg_median(h->reps, h->nreps) > PG_MIN_NS;
}

static double mean_log(const double *v, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m += log(v[i]);
	return m / (double)n;
}

/* Each reference's deviations into t->e, counted by session into t->off (not yet sorted). */
static int collect(struct table *t, const struct pg_hfunc *f, size_t n, size_t min_reps)
{
	size_t k = 0;

	for (size_t g = 0; g < n; g++) {
		const struct pg_hfunc *h = &f[g];
		double m, w;

		t->ref_of[g] = SIZE_MAX;
		if (!is_ref(h, min_reps))
			continue;
		m = mean_log(h->sessions, h->nsessions);
		w = pg_speed_weight(exp(m) * (h->base_calls > 1 ? h->base_calls : 1));
		for (size_t i = 0; i < h->nsessions; i++)
			t->e[k++] = (struct pg_wmed_item){ .v = log(h->sessions[i]) - m, .w = w,
							   .group = (uint32_t)h->at[i],
							   .owner = (uint32_t)t->nrefs };
		t->e[k++] = (struct pg_wmed_item){ .v = log(pg_median(h->reps, h->nreps)) - m,
						   .w = w, .group = (uint32_t)(t->S - 1),
						   .owner = (uint32_t)t->nrefs };
		t->ref_of[g] = t->nrefs++;
	}
	return (int)k;
}

/* Sort the deviations by session, then by value; where each session starts, and each
 * reference's position in it. */
static void arrange(struct table *t, size_t ne)
{
	pg_wmed_sort(t->e, ne);
	for (size_t i = 0; i < t->nrefs * t->S; i++)
		t->pos[i] = SIZE_MAX;
	for (size_t s = 0, i = 0; s < t->S; s++) {
		t->off[s] = i;
		for (; i < ne && t->e[i].group == s; i++)
			t->pos[t->e[i].owner * t->S + s] = i - t->off[s];
	}
	t->off[t->S] = ne;
}

/*
 * The weighted median (diff/speedlib.h) of session @s's deviations without reference @ref's
 * (SIZE_MAX: all), in *@c. -ENOENT when fewer than PG_SPEED_MIN_REFS are left.
 */
static int wmedian(const struct table *t, size_t s, size_t ref, double *c)
{
	size_t n = t->off[s + 1] - t->off[s], skip = ref == SIZE_MAX ? n : t->pos[ref * t->S + s];

	if (skip > n)
		skip = n;
	if (n - (skip < n) < PG_SPEED_MIN_REFS)
		return -ENOENT;
	*c = pg_wmed(t->e + t->off[s], n, skip);
	return 0;
}

/* Student's prediction-interval p of @x against v[0..k) (two-sided), k >= 2. */
static double predict_p(const double *v, size_t k, double x)
{
	double m = 0, ss = 0, se;

	for (size_t i = 0; i < k; i++)
		m += v[i];
	m /= (double)k;
	for (size_t i = 0; i < k; i++)
		ss += (v[i] - m) * (v[i] - m);
	se = sqrt(ss / (double)(k - 1) * (1 + 1 / (double)k));
	if (!(se > 0))
		return x == m ? 1 : 0;
	return fmin(1, 2 * pg_t_sf(fabs(x - m) / se, (double)(k - 1)));
}

/*
 * The whole program's speed: the new session's against the baseline sessions' (those with
 * PG_SPEED_MIN_REFS references), into @s: shift, p, spread. -ENOENT: too few sessions.
 */
static int whole(const struct table *t, struct pg_hspeed *s)
{
	double *v = malloc(t->S * sizeof(*v)), c, m = 0, *d;
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < t->S; i++)
		if (!wmedian(t, i, SIZE_MAX, &c))
			v[k++] = c;
	if (k < PG_HCHECK_MIN_SESSIONS || wmedian(t, t->S - 1, SIZE_MAX, &c)) {
		free(v);
		return -ENOENT;
	}
	for (size_t i = 0; i < k; i++)
		m += v[i] / (double)k;
	s->shift = expm1(c - m);
	s->p = predict_p(v, k, c);
	d = v;
	for (size_t i = 0; i < k; i++)
		d[i] = fabs(v[i] - m);
	s->spread = expm1(pg_median(d, k));
	free(v);
	return 0;
}

/*
 * Function @g's correction, @h its series and @ref its own reference (SIZE_MAX: none): the
 * speed of each of its sessions without @ref, times beta, into s->corr[g] and s->corr_new[g];
 * NAN in a baseline session with too few other references (hcheck.c leaves it out). None when
 * the new session has too few, fewer than PG_HCHECK_MIN_SESSIONS + 1 baseline sessions have
 * enough, or beta is 0.
 */
static int correct(const struct table *t, const struct pg_hfunc *h, size_t ref, size_t g,
		   struct pg_hspeed *s)
{
	size_t k = h->nsessions, used = 0;
	double *c = malloc((k + 1) * sizeof(*c)), m = 0, mc = 0, sxy = 0, sxx = 0, beta;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i <= k; i++) {
		if (wmedian(t, i < k ? h->at[i] : t->S - 1, ref, &c[i]))
			c[i] = NAN;
		used += i < k && !isnan(c[i]);
	}
	if (isnan(c[k]) || used <= PG_HCHECK_MIN_SESSIONS) {
		free(c);	/* as measured */
		return 0;
	}
	for (size_t i = 0; i < k; i++) {
		if (!isnan(c[i])) {
			m += log(h->sessions[i]) / (double)used;
			mc += c[i] / (double)used;
		}
	}
	for (size_t i = 0; i < k; i++) {
		if (!isnan(c[i])) {
			sxy += (log(h->sessions[i]) - m) * (c[i] - mc);
			sxx += (c[i] - mc) * (c[i] - mc);
		}
	}
	beta = pg_speed_beta(sxy, sxx, 1, 0);
	if (!(beta > 0)) {
		free(c);
		return 0;
	}
	for (size_t i = 0; i <= k; i++)
		c[i] *= beta;
	s->beta[g] = beta;
	/* the new session's speed as far from the baseline's as it is, beta's error counts */
	s->lever[g] = (c[k] / beta - mc) * (c[k] / beta - mc) / sxx;
	s->corr_new[g] = c[k];
	s->corr[g] = c;
	return 0;
}

static int table_alloc(struct table *t, const struct pg_hfunc *f, size_t n, size_t nsessions)
{
	size_t ne = 0;

	t->S = nsessions + 1;
	for (size_t g = 0; g < n; g++)
		ne += f[g].at ? f[g].nsessions + 1 : 0;
	t->ref_of = malloc((n + 1) * sizeof(*t->ref_of));
	t->off = malloc((t->S + 1) * sizeof(*t->off));
	t->e = malloc((ne + 1) * sizeof(*t->e));
	t->pos = malloc((n * t->S + t->S + 1) * sizeof(*t->pos));
	return t->ref_of && t->off && t->e && t->pos ? 0 : -ENOMEM;
}

static void table_free(struct table *t)
{
	free(t->ref_of);
	free(t->off);
	free(t->e);
	free(t->pos);
}

int pg_hspeed_estimate(const struct pg_hfunc *refs, size_t nrefs, const struct pg_hfunc *f,
		       size_t n, size_t nsessions, size_t min_reps, struct pg_hspeed *s)
{
	struct table t = { 0 };
	int err;

	memset(s, 0, sizeof(*s));
	s->p = s->shift = s->spread = NAN;
	s->beta = calloc(n + 1, sizeof(*s->beta));
	s->corr = calloc(n + 1, sizeof(*s->corr));
	s->corr_new = calloc(n + 1, sizeof(*s->corr_new));
	s->lever = calloc(n + 1, sizeof(*s->lever));
	err = s->beta && s->corr && s->corr_new && s->lever ? 0 : -ENOMEM;
	err = err ?: table_alloc(&t, refs, nrefs, nsessions);
	if (!err) {
		arrange(&t, (size_t)collect(&t, refs, nrefs, min_reps));
		s->nrefs = t.nrefs;
		err = t.nrefs >= PG_HSPEED_MIN_REFS ? whole(&t, s) : -ENOENT;
	}
	/* applied however far the new session's speed moved: the program's times are not
	 * corrected, and a build slower everywhere shows there */
	if (!err) {
		s->applied = true;
		for (size_t g = 0; !err && g < n; g++) {
			const struct pg_hfunc *r = f[g].speed;
			size_t ref = r ? t.ref_of[r - refs] : SIZE_MAX;

			/* a function whose on-CPU time is no reference is not corrected */
			if (f[g].at && ref != SIZE_MAX && f[g].nsessions > PG_HCHECK_MIN_SESSIONS)
				err = correct(&t, &f[g], ref, g, s);
		}
	}
	if (err == -ENOENT)
		err = 0;
	table_free(&t);
	return err;
}

void pg_hspeed_release(struct pg_hspeed *s, size_t n)
{
	for (size_t g = 0; s->corr && g < n; g++)
		free(s->corr[g]);
	free(s->corr);
	free(s->beta);
	free(s->corr_new);
	free(s->lever);
	memset(s, 0, sizeof(*s));
}
