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

/*
 * The state of one window. A split's sums of distances come from rows of partial sums over
 * the window's values in their current order (the permutation's): row c holds, at t, the sum
 * of |yp[i] - yp[c]| over a <= i < t. The splits are visited kappa by kappa, every tau of one
 * kappa at once: the per-tau sums grow by one row each, with no dependency between taus.
 */
struct win {
	size_t L;		/* values in the window */
	const double *y;	/* its logs */
	double *yp;		/* y in the permutation's order, padded with PAD zeros */
	double *P;		/* rows of R doubles: the partial sums of row c at [c * R + t] */
	size_t R;		/* W + PAD */
	double *sxy, *syy, *wxx, *q;	/* per tau: the split's three sums, and its Q-hat */
	size_t *idx;		/* the permutation within segments (identity when not testing) */
	uint64_t rng;
	/* the coefficients of Q-hat by N = n + m (<= W) and n: 2/N at cxy[N], those of the X
	 * and the Y within-sums at [N * W + n] (0 when that side has one value) */
	size_t W;
	double *cxy, *cxx, *cyy;
};

/* rows built four at a time: four independent running sums */
#define PAD 4

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

	w->cxx = w->cxy + W + 1;
	w->cyy = w->cxx + (W + 1) * W;
	for (size_t N = 0; N <= W; N++) {
		w->cxy[N] = N ? 2 / (double)N : 0;
		for (size_t i = 0; i < W; i++) {
			double n = (double)i, m = (double)N - n;

			w->cxx[N * W + i] = i < N && n > 1 ? 2 * m / ((m + n) * (n - 1)) : 0;
			w->cyy[N * W + i] = i < N && m > 1 ? 2 * n / ((m + n) * (m - 1)) : 0;
		}
	}
}

/* @w's buffers for windows of up to W values, and its coefficients: 0 or -ENOMEM. */
static int win_alloc(struct win *w, size_t W)
{
	size_t R = W + PAD, nrow = (W + PAD) * R, nq = 4 * (W + 1), nc = (W + 1) * (2 * W + 1);

	w->W = W;
	w->R = R;
	/* zeroed: the padding of yp that the spare rows read */
	w->yp = calloc(W + PAD + nrow + nq + nc, sizeof(double));
	w->idx = malloc(W * sizeof(*w->idx));
	if (!w->yp || !w->idx)
		return -ENOMEM;
	w->P = w->yp + W + PAD;
	w->sxy = w->P + nrow;
	w->syy = w->sxy + W + 1;
	w->wxx = w->syy + W + 1;
	w->q = w->wxx + W + 1;
	w->cxy = w->q + W + 1;
	coefficients(w);
	return 0;
}

/* A split: x[a..tau) | x[tau..kappa) */
struct split {
	size_t a, tau, kappa;
};

/*
 * Two doubles at a time (GCC's vector extension: SSE2 on x86-64, NEON on arm64). The sums are
 * the same, in the same order, as one at a time: the results do not depend on it.
 */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));

static inline v2d ld2(const double *p)
{
	v2d v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st2(double *p, v2d v)
{
	memcpy(p, &v, sizeof(v));
}

static inline v2d fabs2(v2d v)
{
	const v2l mask = { INT64_MAX, INT64_MAX };

	return (v2d)((v2l)v & mask);
}

/* The partial-sum rows a..b - 1 of the values yp[a..b) (and up to PAD - 1 spare rows). */
static void build_rows(struct win *w, size_t a, size_t b)
{
	const double *yp = w->yp;
	size_t R = w->R;

	for (size_t c = a; c < b; c += PAD) {
		double *r0 = w->P + c * R, *r1 = r0 + R, *r2 = r1 + R, *r3 = r2 + R;
		v2d v01 = ld2(yp + c), v23 = ld2(yp + c + 2), s01 = { 0, 0 }, s23 = { 0, 0 };

		r0[a] = r1[a] = r2[a] = r3[a] = 0;
		/* row c + 3 needs t < c + 3; the longer rows' extra sums are never read */
		for (size_t t = a; t < c + PAD - 1; t++) {
			v2d u = { yp[t], yp[t] };

			s01 += fabs2(v01 - u);
			s23 += fabs2(v23 - u);
			r0[t + 1] = s01[0];
			r1[t + 1] = s01[1];
			r2[t + 1] = s23[0];
			r3[t + 1] = s23[1];
		}
	}
}

/*
 * Q-hat of every split (tau, kappa) with a < tau < kappa into w->q[tau], the sums grown by
 * row kappa - 1: whether one of them reaches @thr.
 */
static bool q_of_kappa(struct win *w, size_t a, size_t kappa, double thr)
{
	size_t c = kappa - 1, N = kappa - a, tau = a + 1;
	const double *row = w->P + c * w->R;
	const double *ax = w->cxx + N * w->W - a, *ay = w->cyy + N * w->W - a;
	double *sxy = w->sxy, *syy = w->syy, *wxx = w->wxx, *q = w->q;
	double cxy = w->cxy[N], rc = row[c];
	v2d vc = { cxy, cxy }, vr = { rc, rc }, vt = { thr, thr };
	v2l hit = { 0, 0 };
	bool any = false;

	sxy[c] = 0;
	syy[c] = 0;
	if (c > a + 1)
		wxx[c] = wxx[c - 1] + w->P[(c - 1) * w->R + c - 1];
	for (; tau + 2 <= kappa; tau += 2) {
		v2d r = ld2(row + tau), x = ld2(sxy + tau) + r, y = ld2(syy + tau) + (vr - r);
		v2d v = vc * x - ld2(ax + tau) * ld2(wxx + tau) - ld2(ay + tau) * y;

		st2(sxy + tau, x);
		st2(syy + tau, y);
		st2(q + tau, v);
		hit |= v >= vt;
	}
	for (; tau <= c; tau++) {
		sxy[tau] += row[tau];
		syy[tau] += rc - row[tau];
		q[tau] = cxy * sxy[tau] - ax[tau] * wxx[tau] - ay[tau] * syy[tau];
		any |= q[tau] >= thr;
	}
	return any || hit[0] || hit[1];
}

/*
 * The largest Q-hat over the splits of [a, b) (b - a >= 2) and its split (of equal ones, the
 * first by tau, then kappa). With a finite @enough, the first split found that reaches it
 * (the permutation test needs no more), or a value below @enough when none does.
 */
static double best_split(struct win *w, size_t a, size_t b, double enough, struct split *out)
{
	double best = -INFINITY;
	size_t bt = 0;

	for (size_t j = a; j < b; j++)
		w->yp[j] = w->y[w->idx[j]];
	build_rows(w, a, b);
	w->wxx[a + 1] = 0;
	for (size_t kappa = a + 2; kappa <= b; kappa++) {
		if (!q_of_kappa(w, a, kappa, isfinite(enough) ? enough : best))
			continue;
		for (size_t tau = a + 1; tau < kappa; tau++) {
			double q = w->q[tau];

			if (q > best || (q == best && tau < bt)) {
				best = q;
				bt = tau;
				*out = (struct split){ a, tau, kappa };
			}
		}
		if (best >= enough)
			break;
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
		/*
		 * Decided: a stop at any later permutation gives (stop_after + 1) / (i + 2) or
		 * less, and so does going on to max_perms; the p of the permutations so far is
		 * below max_p as well
		 */
		if ((o->stop_after + 1.0) / (i + 2.0) <= o->max_p)
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

	for (size_t i = 0; i < w->L; i++)
		w->idx[i] = i;
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
	lc = malloc(W * sizeof(*lc));
	qs = malloc(W * sizeof(*qs));
	ps = malloc(W * sizeof(*ps));
	cps = calloc(n + 1, sizeof(*cps));
	if (!y || win_alloc(&w, W) || !lc || !qs || !ps || !cps) {
		err = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		y[i] = log(x[i]);
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
	free(w.yp);
	free(w.idx);
	free(lc);
	free(qs);
	free(ps);
	return err;
}
