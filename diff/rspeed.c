// SPDX-License-Identifier: MIT
/*
 * diff/rspeed.c - the machine's speed between two recordings (method: rspeed.h).
 *
 * Every median here is a weighted median with at most one value left out (diff/speedlib.h).
 * The shift's is asked once per function: a binary search over the kept references' sorted
 * shifts. A repetition's speed is asked once per reference and repetition: pg_rspeed_finish()
 * goes through the repetitions one at a time, sorts each one's values once, and adds each
 * reference's term of its slope to two sums; only the sums stay, with the speed of each
 * repetition for the functions that are no reference. Comparisons of thousands of functions
 * stay near linear in time, and hold one repetition's values at a time.
 */
#include "rspeed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/run.h"
#include "../core/sort.h"

/* Room for @n values in the block of logs and tags (one allocation: freed whole when
 * finished, where a comparison's next large array fits). 0 or -ENOMEM. */
static int room(struct pg_rspeed *s, size_t n)
{
	size_t cap = s->alogs + s->alogs / 2;
	double *b;

	if (n <= s->alogs)
		return 0;
	cap = cap > n ? cap : n < 64 ? 64 : n;
	if (cap > SIZE_MAX / (sizeof(double) + sizeof(uint32_t)))
		return -ENOMEM;
	b = malloc(cap * (sizeof(double) + sizeof(uint32_t)));
	if (!b)
		return -ENOMEM;
	if (s->nlogs) {
		memcpy(b, s->logs, s->nlogs * sizeof(*s->logs));
		memcpy(b + cap, s->tags, s->nlogs * sizeof(*s->tags));
	}
	free(s->logs);
	s->logs = b;
	s->tags = (uint32_t *)(b + cap);
	s->alogs = cap;
	return 0;
}

int pg_rspeed_reserve(struct pg_rspeed *s, size_t nrefs, size_t nvalues)
{
	struct pg_rspeed_ref *r;

	if (nrefs > s->alloc) {
		r = realloc(s->ref, nrefs * sizeof(*r));
		if (!r)
			return -ENOMEM;
		s->ref = r;
		s->alloc = nrefs;
	}
	return room(s, nvalues);
}

/* Copy @n logs and tags of run @side to @r's place in the block, in the order of the tags;
 * tags 0, 1, 2... are not copied (and their part of the block is never touched). 0, or
 * -EINVAL for a tag twice. */
static int copy_run(struct pg_rspeed *s, struct pg_rspeed_ref *r, const double *l,
		    const uint32_t *t, size_t n, int side)
{
	double *cl = s->logs + r->from[side];
	uint32_t *ct = s->tags + r->from[side];
	size_t i = 0;

	for (; i < n && t[i] == i; i++)
		;
	r->dense[side] = i == n;
	if (r->dense[side]) {
		memcpy(cl, l, n * sizeof(*l));
		s->ntags[side] = n > s->ntags[side] ? (uint32_t)n : s->ntags[side];
		return 0;
	}
	for (i = 0; i < n; i++) {	/* insertion: in order already, as a rule */
		size_t j = i;

		for (; j && ct[j - 1] > t[i]; j--) {
			cl[j] = cl[j - 1];
			ct[j] = ct[j - 1];
		}
		if (j && ct[j - 1] == t[i])
			return -EINVAL;
		cl[j] = l[i];
		ct[j] = t[i];
		s->ntags[side] = t[i] + 1 > s->ntags[side] ? t[i] + 1 : s->ntags[side];
	}
	return 0;
}

int pg_rspeed_add(struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		  size_t nb, const double *ln, const uint32_t *tn, size_t nn, double time_ns)
{
	struct pg_rspeed_ref *r;
	int err;

	if (id == UINT32_MAX || (s->nrefs && id <= s->ref[s->nrefs - 1].id))
		return -EINVAL;
	if (PG_ALLOC_GROW(s->ref, s->nrefs + 1, s->alloc) || room(s, s->nlogs + nb + nn))
		return -ENOMEM;
	r = &s->ref[s->nrefs];
	memset(r, 0, sizeof(*r));
	r->from[0] = s->nlogs;
	r->from[1] = s->nlogs + nb;
	err = copy_run(s, r, lb, tb, nb, 0) ?: copy_run(s, r, ln, tn, nn, 1);
	if (err)
		return err;
	r->n[0] = nb;
	r->n[1] = nn;
	r->id = id;
	r->w = pg_speed_weight(time_ns);
	s->nlogs += nb + nn;
	s->nrefs++;
	return 0;
}

/* Reference @r's logs of run @side, and the tag of its @k-th (until finished) */
static const double *logs(const struct pg_rspeed *s, const struct pg_rspeed_ref *r, int side)
{
	return s->logs + r->from[side];
}

static uint32_t tag(const struct pg_rspeed *s, const struct pg_rspeed_ref *r, int side, size_t k)
{
	return r->dense[side] ? (uint32_t)k : s->tags[r->from[side] + k];
}

/* Free the block of logs (no longer needed once every slope is learnt). */
static void free_logs(struct pg_rspeed *s)
{
	free(s->logs);
	s->logs = NULL;
	s->tags = NULL;
	s->nlogs = s->alogs = 0;
}

void pg_rspeed_release(struct pg_rspeed *s)
{
	free_logs(s);
	free(s->ref);
	free(s->shifts);
	free(s->at);
	free(s->speed[0]);
	free(s->speed[1]);
	memset(s, 0, sizeof(*s));
}

static double mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / (double)n : 0;
}

/* s->shifts and s->at: the references' shifts (those not changed, or all when @all). 0 or
 * -ENOMEM. */
static int build_shifts(struct pg_rspeed *s, bool all)
{
	size_t n = 0, cap = s->nrefs ? s->nrefs : 1;
	struct pg_wmed_item *it = s->shifts ? s->shifts : malloc(cap * sizeof(*it));
	size_t *at = s->at ? s->at : malloc(cap * sizeof(*at));

	s->shifts = it;
	s->at = at;
	if (!it || !at)
		return -ENOMEM;
	for (size_t r = 0; r < s->nrefs; r++)
		if (all || !s->ref[r].changed)
			it[n++] = (struct pg_wmed_item){ .v = s->ref[r].d, .w = s->ref[r].w,
							 .owner = (uint32_t)r };
	pg_wmed_sort(it, n);
	s->nshifts = n;
	for (size_t r = 0; r < s->nrefs; r++)
		at[r] = n;
	for (size_t i = 0; i < n; i++)
		at[it[i].owner] = i;
	return 0;
}

/* The weighted median of the shifts without reference @self's (any other: none left out) */
static double shift_of(const struct pg_rspeed *s, size_t self)
{
	return pg_wmed(s->shifts, s->nshifts, self < s->nrefs ? s->at[self] : s->nshifts);
}

/* Reference @r's term of its slope from the repetition whose values, its own at position
 * @k, are @it[0..n) */
static void add_term(struct pg_rspeed *s, const struct pg_wmed_item *it, size_t n, size_t k)
{
	double u = pg_wmed(it, n, k);
	struct pg_rspeed_ref *r = &s->ref[it[k].owner];

	if (isnan(u))
		return;
	r->xy += it[k].v * u;
	r->xx += u * u;
}

/*
 * Run @side's repetitions one at a time: the kept references' distances from their run's mean
 * log in it, sorted; its speed into s->speed[side][tag], and each reference's term of its
 * slope on the speed without its own value. Each reference's values are in the order of their
 * tags: a cursor each takes them tag by tag. 0 or -ENOMEM.
 */
static int learn(struct pg_rspeed *s, int side)
{
	size_t nt = s->ntags[side], cap = s->nrefs ? s->nrefs : 1;
	size_t *next = calloc(cap, sizeof(*next));
	double *m = malloc(cap * sizeof(*m));
	struct pg_wmed_item *it = malloc(cap * sizeof(*it));
	int err = -ENOMEM;

	s->speed[side] = malloc((nt ? nt : 1) * sizeof(*s->speed[side]));
	if (!next || !m || !it || !s->speed[side])
		goto out;
	for (size_t r = 0; r < s->nrefs; r++)
		m[r] = mean(logs(s, &s->ref[r], side), s->ref[r].n[side]);
	for (uint32_t t = 0; t < nt; t++) {
		size_t n = 0;

		for (size_t r = 0; r < s->nrefs; r++) {
			const struct pg_rspeed_ref *f = &s->ref[r];
			size_t k = next[r];

			if (f->changed || k == f->n[side] || tag(s, f, side, k) != t)
				continue;
			it[n++] = (struct pg_wmed_item){ .v = logs(s, f, side)[k] - m[r], .w = f->w,
							 .owner = (uint32_t)r };
			next[r]++;
		}
		pg_wmed_sort(it, n);
		s->speed[side][t] = pg_wmed(it, n, n);
		for (size_t k = 0; k < n; k++)
			add_term(s, it, n, k);
	}
	err = 0;
out:
	free(next);
	free(m);
	free(it);
	return err;
}

/* Did reference @r change by itself, against the others' median @c? 1, 0 or a negative errno. */
static int changed_alone(const struct pg_rspeed *s, const struct pg_rspeed_ref *r, double c,
			 double alpha, double min_effect, struct pg_stats_ws *ws)
{
	double *y;
	struct pg_mwu m;
	int err;

	if (isnan(c) || !(fabs(r->d - c) >= log1p(min_effect)))
		return 0;
	y = malloc((r->n[1] ? r->n[1] : 1) * sizeof(*y));
	if (!y)
		return -ENOMEM;
	for (size_t i = 0; i < r->n[1]; i++)
		y[i] = logs(s, r, 1)[i] - c;
	err = pg_mwu_test_ws(logs(s, r, 0), r->n[0], y, r->n[1], ws, &m);
	free(y);
	if (err)
		return err;
	return m.p <= alpha;
}

/* The shifts, the references that changed by themselves, and whether it applies (the body of
 * pg_rspeed_finish(), which frees the copies of the logs after it). */
static int finish(struct pg_rspeed *s, double alpha, double min_effect, struct pg_stats_ws *ws)
{
	double all = 0, changed = 0;
	int err;

	if (s->nrefs < PG_RSPEED_MIN_REFS)
		return 0;
	for (size_t i = 0; i < s->nrefs; i++) {
		err = pg_hl_estimate_ws(logs(s, &s->ref[i], 0), s->ref[i].n[0],
					logs(s, &s->ref[i], 1), s->ref[i].n[1], ws, &s->ref[i].d);
		if (err)
			return err;
	}
	err = build_shifts(s, true);
	for (size_t i = 0; !err && i < s->nrefs; i++) {
		err = changed_alone(s, &s->ref[i], shift_of(s, i), alpha, min_effect, ws);
		if (err < 0)
			return err;
		s->ref[i].changed = err;
		s->nchanged += (size_t)err;
		all += s->ref[i].w;
		changed += err ? s->ref[i].w : 0;
		err = 0;
	}
	if (err || 2 * changed >= all)
		return err;	/* most of the references moved by themselves: no common speed */
	if (s->nrefs - s->nchanged < PG_RSPEED_MIN_REFS)
		return 0;	/* too few unchanged ones to stand for the machine */
	err = build_shifts(s, false) ?: learn(s, 0) ?: learn(s, 1);
	if (err)
		return err;
	s->applied = true;
	s->shift = shift_of(s, SIZE_MAX);
	return 0;
}

int pg_rspeed_finish(struct pg_rspeed *s, double alpha, double min_effect,
		     struct pg_stats_ws *ws)
{
	int err;

	s->applied = false;
	s->shift = 0;
	s->nchanged = 0;
	s->fallback = false;
	s->fb_shift = s->fb_se = 0;
	err = finish(s, alpha, min_effect, ws);
	free_logs(s);
	return err;
}

/* The reference of function @id, or SIZE_MAX (the references are in the order of their ids,
 * as compare.c adds them) */
static size_t ref_of(const struct pg_rspeed *s, uint32_t id)
{
	size_t lo = 0, hi = s->nrefs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ref[mid].id == id)
			return mid;
		if (s->ref[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* The sums of the slope, through 0, of a function that is no kept reference: its distances
 * from its run's mean on the repetitions' speeds, both runs together. */
static void slope(const struct pg_rspeed *s, const double *const l[2], const uint32_t *const t[2],
		  const size_t n[2], double *xy, double *xx)
{
	*xy = *xx = 0;
	for (int side = 0; side < 2; side++) {
		double m = mean(l[side], n[side]);

		for (size_t i = 0; i < n[side]; i++) {
			double u;

			if (t[side][i] >= s->ntags[side])
				continue;
			u = s->speed[side][t[side][i]];
			if (isnan(u))
				continue;
			*xy += (l[side][i] - m) * u;
			*xx += u * u;
		}
	}
}

double pg_rspeed_of(const struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		    size_t nb, const double *ln, const uint32_t *tn, size_t nn, double share,
		    double *beta)
{
	const double *l[2] = { lb, ln };
	const uint32_t *t[2] = { tb, tn };
	size_t n[2] = { nb, nn }, self;
	double c, xy, xx;

	*beta = 0;
	if (s && !s->applied && s->fallback) {
		/* nothing to learn a slope from: it follows the machine as far as it runs */
		*beta = share > 1 ? 1 : share > 0 ? share : 0;
		return *beta * s->fb_shift;
	}
	if (!s || !s->applied)
		return 0;
	self = ref_of(s, id);
	c = shift_of(s, self);
	if (isnan(c))
		return 0;
	if (self < s->nrefs && !s->ref[self].changed) {
		xy = s->ref[self].xy;	/* learnt by learn() */
		xx = s->ref[self].xx;
	} else {
		slope(s, l, t, n, &xy, &xx);
	}
	/* the speeds not varying, it follows the machine as far as its time is on a CPU */
	*beta = pg_speed_beta(xy, xx, share, share);
	return *beta * c;
}

/* 1 / Phi^-1(3/4) times sqrt(pi / 2): the standard error of a normal sample's median is this
 * times its median absolute deviation over sqrt(n) */
#define MAD_TO_MEDIAN_SE (1.482602218505602 * 1.2533141373155)

/* A spin's time on a CPU (@cpu: its CPU time; else its wall less its run-queue wait) */
static double spin_ns(uint64_t wall, uint64_t cpu_ns, uint64_t runq, bool cpu)
{
	return (double)(cpu ? cpu_ns : wall - runq);
}

/* The log of how far @s's CPUs disagreed when nothing tells where its repetition ran: its
 * slowest CPU's time over its fastest's; 0 when its samples tell, or it ran on one CPU. */
static double spin_unplaced(const struct pg_spin *s, bool cpu)
{
	double lo = INFINITY, hi = 0;

	if (s->ncpu < 2 || pg_spin_samples(s))
		return 0;
	for (uint32_t c = 0; c < s->ncpu; c++) {
		const struct pg_spin_cpu *p = &s->cpus[c];
		double t = spin_ns(p->wall_ns, p->cpu_ns, p->runq_ns, cpu);

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	return log(hi / lo);
}

/* The log of the median of @m's spins into *@med and its squared standard error into *@var
 * (the unplaced CPUs' part included: rspeed.h). -ENODATA (too few) or -ENOMEM. */
static int spin_median(const struct pg_meta *m, bool cpu, double *med, double *var)
{
	size_t n = m->nspin;
	double *v, mad, d;

	if (n < PG_RSPEED_SPIN_MIN)
		return -ENODATA;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pg_spin *s = &m->spin[i];

		v[i] = log(spin_ns(s->wall_ns, s->cpu_ns, s->runq_ns, cpu));
	}
	*med = pg_median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - *med);
	mad = pg_median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = spin_unplaced(&m->spin[i], cpu);
	d = pg_median(v, n);
	free(v);
	if (isnan(*med) || isnan(mad) || isnan(d))
		return -ENOMEM;
	*var = pow(MAD_TO_MEDIAN_SE * mad, 2) / (double)n + d * d / 12;
	return 0;
}

int pg_rspeed_spin(const struct pg_meta *b, const struct pg_meta *n, bool cpu, double *shift,
		   double *se)
{
	double mb, vb, mn, vn;
	int err;

	*shift = *se = NAN;
	if (!b->spin_workload || !n->spin_workload || strcmp(b->spin_workload, n->spin_workload))
		return -ENODATA;
	err = spin_median(b, cpu, &mb, &vb) ?: spin_median(n, cpu, &mn, &vn);
	if (err)
		return err;
	*shift = mn - mb;
	*se = sqrt(vb + vn);
	if (*se < PG_RSPEED_SPIN_FLOOR)
		*se = PG_RSPEED_SPIN_FLOOR;
	return 0;
}

double pg_rspeed_spin_error(double se)
{
	return hypot(se, PG_RSPEED_SPIN_BLIND);
}

void pg_rspeed_fallback(struct pg_rspeed *s, double shift, double se)
{
	s->fallback = !s->applied;
	s->fb_shift = s->fallback ? shift : 0;
	s->fb_se = s->fallback ? se : 0;
}

bool pg_rspeed_corrects(const struct pg_rspeed *s)
{
	return s && (s->applied || s->fallback);
}

double pg_rspeed_se(const struct pg_rspeed *s, double beta)
{
	return s && !s->applied && s->fallback ? beta * s->fb_se : 0;
}
