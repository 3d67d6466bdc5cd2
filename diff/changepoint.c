// SPDX-License-Identifier: MIT
/*
 * diff/changepoint.c - E-divisive means with a permutation test, in sliding windows, and the
 * merge step (method: changepoint.h and docs/history.md).
 *
 * Q-hat of a split x[a..tau) | x[tau..kappa), n = tau - a and m = kappa - tau values:
 *   2/(m+n) sum|X-Y| - 2m/((m+n)(n-1)) sum_{i<k}|Xi-Xk| - 2n/((m+n)(m-1)) sum_{j<k}|Yj-Yk|
 * (a within-sum term is 0 when its side has one value). best_split() finds the largest over
 * every tau and kappa of an interval in O(L^2) with the partial column sums of the distances.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"

/* Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double pg_t_sf(double t, double df)
{
	double tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? tail : 1 - tail;
}

double pg_t_isf(double p, double df)
{
	double lo = 0, hi = 1;

	if (p > 0.5)
		return -pg_t_isf(1 - p, df);
	while (pg_t_sf(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (pg_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void pg_cp_ttest(const double *y, size_t n1, size_t n2, double alpha, double *p, double *d,
		 double *lo, double *hi)
{
	double m1 = 0, m2 = 0, ss = 0, se, df = (double)n1 + n2 - 2, t, q;

	for (size_t i = 0; i < n1; i++)
		m1 += y[i];
	for (size_t i = n1; i < n1 + n2; i++)
		m2 += y[i];
	m1 /= n1;
	m2 /= n2;
	for (size_t i = 0; i < n1 + n2; i++)
		ss += (y[i] - (i < n1 ? m1 : m2)) * (y[i] - (i < n1 ? m1 : m2));
	*d = m2 - m1;
	se = df >= 1 ? sqrt(ss / df * (1.0 / n1 + 1.0 / n2)) : 0;
	if (!(se > 0)) {
		*p = *d == 0 ? 1 : 0;
		*lo = *hi = *d;
		return;
	}
	t = *d / se;
	*p = fmin(1, 2 * pg_t_sf(fabs(t), df));
	q = pg_t_isf(alpha / 2, df);
	*lo = *d - q * se;
	*hi = *d + q * se;
}

/* The state of one window: its distances, partial sums, the permutation and the generator. */
struct win {
	size_t L;		/* values in the window */
	const double *y;	/* its logs */
	double *D;		/* L x L distances */
	double *P;		/* L x L: P[c * L + t] = sum of D(idx[i], idx[c]), a <= i < t */
	size_t *idx;		/* the permutation within segments (identity when not testing) */
	uint64_t rng;
	/* the coefficients of Q-hat by n and m (< W each), at [n * W + m]: 2/(m+n), then those
	 * of the X and the Y within-sums (0 when that side has one value) */
	size_t W;
	double *cxy, *cxx, *cyy;
};

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void coefficients(struct win *w)
{
	size_t W = w->W;

	w->cxx = w->cxy + W * W;
	w->cyy = w->cxx + W * W;
	for (size_t i = 0; i < W * W; i++) {
		double n = (double)(i / W), m = (double)(i % W);

		w->cxy[i] = n + m > 0 ? 2 / (m + n) : 0;
		w->cxx[i] = n > 1 ? 2 * m / ((m + n) * (n - 1)) : 0;
		w->cyy[i] = m > 1 ? 2 * n / ((m + n) * (m - 1)) : 0;
	}
}

/* A split: x[a..tau) | x[tau..kappa) */
struct split {
	size_t a, tau, kappa;
};

/*
 * The largest Q-hat over the splits of [a, b) (b - a >= 2) and its split; or, as soon as one
 * reaches @enough, that one (the permutation test needs no more).
 */
static double best_split(struct win *w, size_t a, size_t b, double enough, struct split *out)
{
	size_t L = w->L;
	double best = -INFINITY, wxx = 0;

	for (size_t c = a; c < b; c++) {
		double *row = w->P + c * L;
		const double *dc = w->D + w->idx[c] * L;

		row[a] = 0;
		for (size_t t = a; t < c; t++)
			row[t + 1] = row[t] + dc[w->idx[t]];
	}
	for (size_t tau = a + 1; tau < b; tau++) {
		double sxy = 0, syy = 0;

		for (size_t kappa = tau + 1; kappa <= b; kappa++) {
			const double *row = w->P + (kappa - 1) * L;
			size_t c = (tau - a) * w->W + kappa - tau;
			double q;

			sxy += row[tau];
			syy += row[kappa - 1] - row[tau];
			q = w->cxy[c] * sxy - w->cxx[c] * wxx - w->cyy[c] * syy;
			if (q > best) {
				best = q;
				*out = (struct split){ a, tau, kappa };
				if (q >= enough)
					return q;
			}
		}
		wxx += w->P[tau * L + tau];
	}
	return best;
}

/*
 * The best candidate over the segments that the sorted change points cps[0..k) make (or the
 * first to reach @enough).
 */
static double best_candidate(struct win *w, const size_t *cps, size_t k, double enough,
			     struct split *sp)
{
	double best = -INFINITY;

	for (size_t s = 0; s <= k; s++) {
		size_t a = s ? cps[s - 1] : 0, b = s < k ? cps[s] : w->L;
		struct split t = { a, a + 1, b };
		double q;

		if (b - a < 2)
			continue;
		q = best_split(w, a, b, enough, &t);
		if (q > best) {
			best = q;
			*sp = t;
			if (q >= enough)
				break;
		}
	}
	return best;
}

static void shuffle_segments(struct win *w, const size_t *cps, size_t k)
{
	for (size_t s = 0; s <= k; s++) {
		size_t a = s ? cps[s - 1] : 0, b = s < k ? cps[s] : w->L;

		for (size_t i = b; i > a + 1; i--) {
			size_t j = a + next_rand(&w->rng) % (i - a), tmp = w->idx[i - 1];

			w->idx[i - 1] = w->idx[j];
			w->idx[j] = tmp;
		}
	}
}

/* Permutation p-value of a candidate of Q-hat @q given the change points cps[0..k). */
static double perm_p(struct win *w, const size_t *cps, size_t k, double q,
		     const struct pg_cp_opts *o)
{
	double enough = q * (1 - 1e-12);
	uint32_t reached = 0, i;
	struct split sp;

	for (i = 1; i <= o->max_perms; i++) {
		shuffle_segments(w, cps, k);
		if (best_candidate(w, cps, k, enough, &sp) >= enough && ++reached >= o->stop_after)
			break;
	}
	for (size_t j = 0; j < w->L; j++)
		w->idx[j] = j;
	if (i > o->max_perms)
		i = o->max_perms;
	return (reached + 1.0) / (i + 1.0);
}

static void insert_sorted(size_t *v, size_t *k, size_t x)
{
	size_t i = *k;

	while (i && v[i - 1] > x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = x;
	(*k)++;
}

/* E-divisive in one window: its change points (local, sorted) into cps, their count. */
static size_t detect_window(struct win *w, size_t *cps, double *qs, double *ps,
			    const struct pg_cp_opts *o)
{
	struct split sp = { 0, 0, 0 };
	size_t k = 0, tau;

	for (size_t i = 0; i < w->L; i++) {
		w->idx[i] = i;
		for (size_t j = 0; j < w->L; j++)
			w->D[i * w->L + j] = fabs(w->y[i] - w->y[j]);
	}
	while (k + 1 < w->L) {
		double q = best_candidate(w, cps, k, INFINITY, &sp), p;
		size_t at;

		if (!isfinite(q) || q <= 0)
			break;
		tau = sp.tau;
		p = perm_p(w, cps, k, q, o);
		if (p > o->max_p)
			break;
		insert_sorted(cps, &k, tau);
		for (at = 0; cps[at] != tau; at++)
			;
		memmove(qs + at + 1, qs + at, (k - 1 - at) * sizeof(*qs));
		memmove(ps + at + 1, ps + at, (k - 1 - at) * sizeof(*ps));
		qs[at] = q;
		ps[at] = p;
	}
	return k;
}

/* Judge change point i of cps[0..k) on its neighbouring segments of the logs y[0..n). */
static void judge(struct pg_cp *cps, size_t k, size_t i, const double *y, size_t n)
{
	size_t a = i ? cps[i - 1].index : 0, b = i + 1 < k ? cps[i + 1].index : n;
	struct pg_cp *c = &cps[i];
	double d, lo, hi, m1 = 0, m2 = 0;

	c->n_before = c->index - a;
	c->n_after = b - c->index;
	pg_cp_ttest(y + a, c->n_before, c->n_after, 0.05, &c->p, &d, &lo, &hi);
	for (size_t j = a; j < c->index; j++)
		m1 += y[j];
	for (size_t j = c->index; j < b; j++)
		m2 += y[j];
	c->before = exp(m1 / c->n_before);
	c->after = exp(m2 / c->n_after);
	c->change = expm1(d);
	c->ci_lo = expm1(lo);
	c->ci_hi = expm1(hi);
}

/* The merge step: drop the weakest change point until all pass (changepoint.h). */
static size_t merge(struct pg_cp *cps, size_t k, const double *y, size_t n,
		    const struct pg_cp_opts *o)
{
	for (;;) {
		size_t weak = k;

		for (size_t i = 0; i < k; i++)
			judge(cps, k, i, y, n);
		for (size_t i = 0; i < k; i++)
			if (cps[i].p > o->max_p && (weak == k || cps[i].p > cps[weak].p))
				weak = i;
		if (weak == k)
			for (size_t i = 0; i < k; i++)
				if (fabs(cps[i].change) < o->min_magnitude &&
				    (weak == k || fabs(cps[i].change) < fabs(cps[weak].change)))
					weak = i;
		if (weak == k)
			return k;
		memmove(cps + weak, cps + weak + 1, (k - weak - 1) * sizeof(*cps));
		k--;
	}
}

static int check_input(const double *x, size_t n, const struct pg_cp_opts *o)
{
	if (o->window < 4 || !(o->max_p > 0 && o->max_p < 1) || !o->max_perms ||
	    !o->stop_after || !(o->min_magnitude >= 0))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || x[i] <= 0)
			return -EINVAL;
	return 0;
}

int pg_changepoints(const double *x, size_t n, const struct pg_cp_opts *opts,
		    struct pg_cp **out, size_t *nout)
{
	return pg_changepoints_resume(x, n, opts, NULL, 0, 0, NULL, NULL, out, nout);
}

/*
 * Keep the weak change points prev[0..np) before @end in cps[], their count. The caller's end
 * lies half a window past where the search resumes: a change point at or just after that
 * start was found with sessions before it as context, which the resumed windows lack; the
 * merge step drops whichever of two neighbours is weaker.
 */
static size_t keep_before(struct pg_cp *cps, const struct pg_cp *prev, size_t np, size_t end)
{
	size_t k = 0;

	for (size_t i = 0; i < np && prev[i].index < end; i++)
		if (prev[i].index && (!k || prev[i].index > cps[k - 1].index))
			cps[k++] = prev[i];
	return k;
}

/* The split step over windows from @start on, adding to the k weak change points in cps[]. */
static size_t split(struct win *w, const double *y, size_t n, size_t start, struct pg_cp *cps,
		    size_t k, size_t *lc, double *qs, double *ps, const struct pg_cp_opts *o)
{
	size_t W = o->window, step = o->window / 2;

	while (start < n) {
		size_t end = start + W < n ? start + W : n, m, last = 0;

		w->L = end - start;
		w->y = y + start;
		m = detect_window(w, lc, qs, ps, o);
		for (size_t i = 0; i < m; i++) {
			size_t at = start + lc[i], j;

			last = at;
			for (j = 0; j < k && cps[j].index != at; j++)
				;
			if (j < k)
				continue;
			for (j = k; j && cps[j - 1].index > at; j--)
				cps[j] = cps[j - 1];
			cps[j] = (struct pg_cp){ .index = at, .qhat = qs[i], .perm_p = ps[i] };
			k++;
		}
		start = last > start + step ? last : start + step;
	}
	return k;
}

int pg_changepoints_resume(const double *x, size_t n, const struct pg_cp_opts *opts,
			   const struct pg_cp *prev, size_t nprev, size_t n0,
			   struct pg_cp **weak, size_t *nweak, struct pg_cp **out, size_t *nout)
{
	const struct pg_cp_opts defaults = PG_CP_OPTS_DEFAULT;
	const struct pg_cp_opts *o = opts ? opts : &defaults;
	size_t W = o->window, k = 0, start = n0 <= n && n0 > 2 * W ? n0 - 2 * W : 0;
	struct win w = { .rng = o->seed };
	struct pg_cp *cps = NULL;
	size_t *lc = NULL;
	double *y = NULL, *qs = NULL, *ps = NULL;
	int err = check_input(x, n, o);

	*out = NULL;
	*nout = 0;
	if (weak) {
		*weak = NULL;
		*nweak = 0;
	}
	if (err)
		return err;
	if (n < 2)
		return 0;
	y = malloc(n * sizeof(*y));
	w.W = W;
	w.D = malloc(W * W * sizeof(*w.D));
	w.cxy = malloc(3 * W * W * sizeof(*w.cxy));
	w.P = malloc(W * W * sizeof(*w.P));
	w.idx = malloc(W * sizeof(*w.idx));
	lc = malloc(W * sizeof(*lc));
	qs = malloc(W * sizeof(*qs));
	ps = malloc(W * sizeof(*ps));
	cps = calloc(n + 1, sizeof(*cps));
	if (!y || !w.D || !w.cxy || !w.P || !w.idx || !lc || !qs || !ps || !cps) {
		err = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		y[i] = log(x[i]);
	coefficients(&w);
	k = keep_before(cps, prev, start ? nprev : 0, start + W / 2);
	k = split(&w, y, n, start, cps, k, lc, qs, ps, o);
	if (weak && k) {
		*weak = malloc(k * sizeof(**weak));
		if (!*weak) {
			err = -ENOMEM;
			goto done;
		}
		memcpy(*weak, cps, k * sizeof(*cps));
		*nweak = k;
	}
	k = merge(cps, k, y, n, o);
	if (!k) {
		free(cps);
		cps = NULL;
	}
	*out = cps;
	*nout = k;
	cps = NULL;
done:
	free(cps);
	free(y);
	free(w.D);
	free(w.cxy);
	free(w.P);
	free(w.idx);
	free(lc);
	free(qs);
	free(ps);
	return err;
}
