// SPDX-License-Identifier: MIT
/*
 * runner/budget/choose.c - the budget's pure decisions (choose.h): which functions stay, which the
 * pilot detaches, the repetitions' sampling rate. No BPF: the unit tests link this alone.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/sort.h"
#include "../profile/sampler.h"
#include "choose.h"

/* The order in which pg_budget_choose() drops: probe share, then cost, both descending, then
 * the function's index (no tie left to qsort()). */
struct drop_key {
	double share;	/* estimated probe cost over the function's measured time, at most 1 */
	double cost;
	double blocked;	/* its own time blocked (off-CPU, not waiting for a CPU) in the pilot */
};

static int cmp_drop_first(const void *a, const void *b, void *arg)
{
	const struct drop_key *k = arg;
	const struct drop_key *x = &k[*(const uint32_t *)a], *y = &k[*(const uint32_t *)b];

	if (x->share != y->share)
		return (x->share < y->share) - (x->share > y->share);
	if (x->cost != y->cost)
		return (x->cost < y->cost) - (x->cost > y->cost);
	return (x > y) - (x < y);
}

void pg_names_add(struct pg_names *l, const char *name)
{
	const char *paren = strchr(name, '(');
	int n = (int)strlen(name);

	/* a long C++ name loses its parameters whole, then its end: never half a parameter */
	if (n > PG_NAME_MAX && paren && paren - name <= PG_NAME_MAX - 5)
		n = (int)(paren - name);
	if (l->len < sizeof(l->s) - 80)
		l->len += (size_t)snprintf(l->s + l->len, sizeof(l->s) - l->len, "%s%.*s%s",
					   l->n ? "; " : "", n > PG_NAME_MAX ? PG_NAME_MAX - 3 : n,
					   name, n > PG_NAME_MAX ? "..." : n < (int)strlen(name) ?
					   "(...)" : "");
	l->n++;
}

const char *pg_names_more(const struct pg_names *l)
{
	return l->len >= sizeof(l->s) - 80 ? "; ..." : "";
}

double pg_budget_call_cost(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s)
{
	static const double floor_ns[PG_SITE_COUNT] = {
		[PG_SITE_UNKNOWN] = 500, [PG_SITE_NOP5] = 500, [PG_SITE_EMULATED] = 750,
		[PG_SITE_SSTEP] = 4000,
	};
	double cost = pg_fstat_probe_cost(c, f, s);
	double floor = (double)s->calls * floor_ns[f->site < PG_SITE_COUNT ? f->site : 0];

	return cost > floor ? cost : floor;
}

/* Indices (uint32_t) into the double array @arg, largest first, ties by index. */
static int cmp_share_desc(const void *a, const void *b, void *arg)
{
	const double *share = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (share[x] != share[y])
		return (share[x] < share[y]) - (share[x] > share[y]);
	return (x > y) - (x < y);
}

/* @o for function @f, from its probes' cost @cost over @calls in a run of @own_ns. */
static int left_out_fill(const struct pg_func *f, double share, double cost, double calls,
			 double own_ns, struct pg_budget_out *o)
{
	o->name = strdup(f->display);
	o->binary = strdup(f->binary ? f->binary : "");
	if (!o->name || !o->binary)
		return -ENOMEM;
	o->site = f->site;
	o->share = share;
	o->calls = calls;
	o->call_ns = cost / calls;
	o->cost_pct = 100 * cost / own_ns;
	o->ref_call_ns = pg_site_ref_call_ns(f->site);
	o->ref_cost_pct = o->cost_pct * o->ref_call_ns / o->call_ns;
	return 0;
}

int pg_budget_left_out(const struct pg_run *run, const bool *keep, const double *share,
		       const double *cost, const double *calls, double own_ns,
		       struct pg_budget_out **out, size_t *n)
{
	uint32_t *idx = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*idx));
	size_t m = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < run->nfuncs; i++)
		if (!keep[i] && share[i] >= PG_BUDGET_OUT_SHARE && calls[i] > 0 && cost[i] > 0)
			idx[m++] = i;
	if (m && own_ns > 0) {
		qsort_r(idx, m, sizeof(*idx), cmp_share_desc, (void *)share);
		*out = calloc(m, sizeof(**out));
		err = *out ? 0 : -ENOMEM;
		for (size_t k = 0; !err && k < m; k++)
			err = left_out_fill(&run->funcs[idx[k]], share[idx[k]], cost[idx[k]],
					    calls[idx[k]], own_ns, &(*out)[k]);
		*n = m;
	}
	if (err) {	/* every entry was zeroed: releasing one not filled is safe */
		for (size_t k = 0; *out && k < m; k++)
			pg_budget_out_release(&(*out)[k]);
		free(*out);
		*out = NULL;
		*n = 0;
	}
	free(idx);
	return err;
}

/* The functions of @run none of whose calls returned in @pilot. */
static void unreached(const struct pg_run *run, const struct pg_rep *pilot,
		      struct pg_names *gone)
{
	for (uint32_t i = 0; i < run->nfuncs; i++)
		if (!pg_rep_find(pilot, i))
			pg_names_add(gone, run->funcs[i].display);
}

/* Indices (size_t) into the double array @arg, costliest first. */
/*
 * pg_budget_choose() by the sampled first pass's stacks (pg_cov_choose()); *@total: the kept
 * functions' cost. The dropped are named costliest first. 0 or -ENOMEM.
 */
static int choose_by_samples(const struct pg_run *run, const struct pg_coverage *cov,
			     const struct drop_key *key, double min_share, bool *keep,
			     double *total, struct pg_budget_choice *c)
{
	struct pg_cov_map map;
	double *cost = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*cost));
	double *blocked = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*blocked));
	size_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));
	int err = cost && blocked && order ? pg_cov_map_build(&map, cov, run) : -ENOMEM;

	if (!err) {
		for (uint32_t i = 0; i < run->nfuncs; i++) {
			cost[i] = key[i].cost;
			blocked[i] = key[i].blocked;
		}
		/* a sample's CPU time, per run */
		double ns_per = 1e9 / PG_FIRST_PASS_HZ / cov->runs;

		err = pg_cov_choose(&map, cost, blocked, ns_per, c->allowed,
				    min_share * ns_per * (double)cov->samples, keep, total);
		pg_cov_map_release(&map);
	}
	if (!err) {
		for (size_t i = 0; i < run->nfuncs; i++)
			order[i] = i;
		pg_sort_idx_desc(cost, order, run->nfuncs);
		for (size_t k = 0; k < run->nfuncs; k++)
			if (!keep[order[k]])
				pg_names_add(&c->dropped, run->funcs[order[k]].display);
	}
	free(cost);
	free(blocked);
	free(order);
	return err;
}

int pg_budget_choose(const struct pg_run *run, const struct pg_rep *pilot, double budget_pct,
		     uint64_t sampled_wall_ns, bool cut, const bool *gone,
		     const struct pg_coverage *cov, double min_share, bool *keep,
		     struct pg_budget_choice *c)
{
	struct drop_key *key = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*key));
	uint32_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));
	double total = 0;

	memset(c, 0, sizeof(*c));
	if (!key || !order) {
		free(key);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pilot->nstats; i++) {
		const struct pg_fstat *s = &pilot->stats[i];
		struct drop_key *k = &key[s->func];

		k->cost = pg_budget_call_cost(&run->calib, &run->funcs[s->func], s);
		k->share = k->cost > 0 ? k->cost / fmax(k->cost, (double)s->total_ns) : 0;
		k->blocked = fmax(0, (double)s->self_offcpu_ns - (double)s->self_runq_ns);
		total += k->cost;
	}
	/*
	 * The benchmark's own time: measured, by the sampled first pass, when the pilot ran to
	 * its end; else the pilot's wall time less the estimated probe cost, a difference that
	 * any error of the calibration swamps when the probes dominate (then it errs on dropping
	 * more).
	 */
	if (sampled_wall_ns && !cut)
		c->own = (double)sampled_wall_ns;
	else
		c->own = (double)pilot->wall_ns - total;
	if (c->own < 0.01 * (double)pilot->wall_ns)
		c->own = 0.01 * (double)pilot->wall_ns;
	c->allowed = budget_pct / 100 * c->own;
	c->before = total;
	if (cut)
		unreached(run, pilot, &c->unreached);
	for (uint32_t i = 0; i < run->nfuncs; i++) {
		keep[i] = true;
		order[i] = i;
	}
	if (cov && cov->samples && (total > c->allowed || min_share > 0)) {
		double all = total;
		size_t kept = 0;
		int err;

		for (uint32_t i = 0; i < run->nfuncs; i++)	/* detached while the pilot ran */
			keep[i] = !(gone && gone[i]);
		err = choose_by_samples(run, cov, key, min_share, keep, &total, c);
		for (uint32_t i = 0; i < run->nfuncs && !err; i++)
			kept += keep[i] && key[i].cost > 0;
		/* no function of known cost owns any of the samples (a program of a few ms, its
		 * samples all in the loader and the kernel): what fits, by cost alone */
		if (!err && !kept && all > 0) {
			memset(&c->dropped, 0, sizeof(c->dropped));
			total = all;
			for (uint32_t i = 0; i < run->nfuncs; i++)
				keep[i] = true;
		} else {
			c->after = total;
			free(key);
			free(order);
			return err ? err : c->dropped.n;
		}
	}
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_drop_first, key);
	for (size_t k = 0; k < run->nfuncs; k++) {
		uint32_t i = order[k];

		if (!(gone && gone[i]) && (total <= c->allowed || key[i].cost <= 0))
			continue;
		keep[i] = false;
		total -= key[i].cost;
		pg_names_add(&c->dropped, run->funcs[i].display);
	}
	c->after = total;
	free(key);
	free(order);
	return c->dropped.n;
}

size_t pg_budget_live_drop(size_t n, const double *cost, const bool *live, double limit_ns,
			   double own_ns, bool *drop)
{
	double sum = 0;
	size_t ndrop = 0, nleft = 0, *order;

	for (size_t i = 0; i < n; i++) {
		drop[i] = live[i] && limit_ns > 0 && cost[i] > limit_ns;
		ndrop += drop[i];
		if (live[i] && !drop[i]) {
			sum += cost[i];
			nleft++;
		}
	}
	if (sum <= own_ns || sum <= limit_ns || !nleft)
		return ndrop;
	order = malloc(nleft * sizeof(*order));
	if (!order)	/* the rule is a bound, not a need: the next poll tries again */
		return ndrop;
	nleft = 0;
	for (size_t i = 0; i < n; i++)
		if (live[i] && !drop[i])
			order[nleft++] = i;
	pg_sort_idx_desc(cost, order, nleft);
	for (size_t k = 0; k < nleft && sum > own_ns / 2 && cost[order[k]] > 0; k++) {
		drop[order[k]] = true;
		sum -= cost[order[k]];
		ndrop++;
	}
	free(order);
	return ndrop;
}

/* seen[id] for every function of @run that a frame of @cov's stacks names. 0 or -ENOMEM. */
int pg_budget_mark_sampled(const struct pg_run *run, const struct pg_coverage *cov, bool *seen)
{
	struct pg_cov_map map;
	int err = pg_cov_map_build(&map, cov, run);

	if (err)
		return err;
	for (size_t k = 0; k < map.start[map.nstacks]; k++)
		seen[map.ids[k]] = true;
	pg_cov_map_release(&map);
	return 0;
}

uint32_t pg_budget_sample_hz(uint64_t wall_ns, double cpus, uint64_t *per_rep)
{
	double wall_s = (double)wall_ns / 1e9, hz, cap, least;

	if (!wall_ns) {
		if (per_rep)
			*per_rep = 0;
		return PG_DEFAULT_SAMPLE_HZ;
	}
	if (!(cpus > 0.01))	/* unknown, or asleep: no less than a CPU's worth of samples */
		cpus = cpus > 0 ? 0.01 : 1;
	hz = PG_AUTO_SAMPLES / (cpus * wall_s);
	/* the samples the budget leaves after the fixed cost, a second of wall time per CPU */
	cap = (PG_AUTO_BUDGET_PCT / 100 * wall_ns - PG_SAMPLE_FIXED_NS) / PG_SAMPLE_COST_NS;
	least = PG_AUTO_MIN_BUDGET_PCT / 100 * wall_ns / PG_SAMPLE_COST_NS;
	cap = (cap > least ? cap : least) / (wall_s * cpus);
	if (hz > cap)
		hz = cap;
	if (hz > PG_AUTO_MAX_HZ)
		hz = PG_AUTO_MAX_HZ;
	if (hz < PG_AUTO_MIN_HZ)
		hz = PG_AUTO_MIN_HZ;
	hz = (double)(((uint32_t)hz - 1) | 1);	/* the odd rate at or below; bounds are odd */
	if (per_rep)
		*per_rep = (uint64_t)(hz * cpus * wall_s + 0.5);
	return (uint32_t)hz;
}
