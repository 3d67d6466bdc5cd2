// SPDX-License-Identifier: MIT
/*
 * runner/budget.c - record --budget: the sampled first pass, the pilot, and the choice of the
 * functions that fit. See budget.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../core/log.h"
#include "budget.h"
#include "maps.h"
#include "sampler.h"
#include "perfgate.skel.h"

/* --budget: the sampled first pass, and how much longer than it the pilot may run */
#define PILOT_SAMPLE_HZ 999
#define PILOT_MIN_SAMPLES 50
#define PILOT_MAX_FACTOR 10
#define PILOT_MIN_NS 1000000000ULL	/* but never before it ran this much longer */

static int cmp_cost_desc(const void *a, const void *b, void *arg)
{
	const double *cost = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (cost[x] < cost[y]) - (cost[x] > cost[y]);
}

void pg_names_add(struct pg_names *l, const char *name)
{
	if (l->len < sizeof(l->s) - 80)
		l->len += (size_t)snprintf(l->s + l->len, sizeof(l->s) - l->len, "%s%.60s",
					   l->n ? ", " : "", name);
	l->n++;
}

const char *pg_names_more(const struct pg_names *l)
{
	return l->len >= sizeof(l->s) - 80 ? ", ..." : "";
}

/* The functions of @run none of whose calls returned in @pilot. */
static void unreached(const struct pg_run *run, const struct pg_rep *pilot,
		      struct pg_names *gone)
{
	for (uint32_t i = 0; i < run->nfuncs; i++)
		if (!pg_rep_find(pilot, i))
			pg_names_add(gone, run->funcs[i].display);
}

int pg_budget_choose(const struct pg_run *run, const struct pg_rep *pilot, double budget_pct,
		     uint64_t sampled_wall_ns, bool cut, bool *keep, struct pg_budget_choice *c)
{
	double *cost = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*cost)), total = 0;
	uint32_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));

	memset(c, 0, sizeof(*c));
	if (!cost || !order) {
		free(cost);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pilot->nstats; i++) {
		const struct pg_fstat *s = &pilot->stats[i];

		cost[s->func] = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s);
		total += cost[s->func];
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
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_cost_desc, cost);
	for (size_t k = 0; k < run->nfuncs && total > c->allowed && cost[order[k]] > 0; k++) {
		keep[order[k]] = false;
		total -= cost[order[k]];
		pg_names_add(&c->dropped, run->funcs[order[k]].display);
	}
	c->after = total;
	free(cost);
	free(order);
	return c->dropped.n;
}

/*
 * What pg_budget_choose() decided from the pilot, as pg_budget_pilot() says it. With @cut (the
 * pilot was stopped), also names the functions none of whose calls returned (calls count when
 * they return, so main and its like are among them).
 */
static void budget_report(const struct pg_record_opts *o, const struct pg_run *run,
			  const struct pg_rep *pilot, uint64_t sampled_wall_ns, bool cut,
			  const struct pg_budget_choice *c)
{
	if (cut && !o->quiet)
		pg_info("--budget: the pilot ran past %.1f s (%dx the sampled run's %.2f s, or 1 s "
			"more) and was stopped: the choice is made from the part that ran",
			(double)pilot->wall_ns / 1e9, PILOT_MAX_FACTOR,
			(double)sampled_wall_ns / 1e9);
	if (c->unreached.n)
		pg_warn("--budget: the pilot was stopped before a call of %d of the %zu functions "
			"it traced had returned (%s%s; those still running then, such as main, are "
			"among them): their cost is unknown, and they stay traced", c->unreached.n,
			run->nfuncs, c->unreached.s, pg_names_more(&c->unreached));
	if (!o->quiet && c->dropped.n)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the benchmark's "
			"own time; without %s%s it would be ~%.1f%%", o->budget_pct,
			100 * c->before / c->own, c->dropped.s, pg_names_more(&c->dropped),
			c->after > 0 ? 100 * c->after / c->own : 0.0);
	else if (!o->quiet)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the benchmark's "
			"own time: every function stays", o->budget_pct, 100 * c->before / c->own);
}

/*
 * Did --budget's unrecorded run @what (the sampled first pass, the pilot) fail, without
 * --allow-failure? One message and -ETIME (the user's --timeout ended it) or -ECHILD; else 0.
 */
static int budget_run_failed(const struct pg_record_opts *o, const char *what,
			     const struct pg_rep *rep, bool timed_out)
{
	if (o->allow_failure)
		return 0;
	if (timed_out) {
		pg_err("the --budget %s ran past --timeout %g s: its processes were ended; no run "
		       "file written (--allow-failure goes on)", what,
		       (double)o->timeout_ms / 1000);
		return -ETIME;
	}
	if (rep->signal || rep->exit_code) {
		pg_err("the --budget %s %s %d; no run file written", what,
		       rep->signal ? "was killed by signal" : "exited with status",
		       rep->signal ? rep->signal : rep->exit_code);
		return -ECHILD;
	}
	return 0;
}

/*
 * Run one unrecorded pilot repetition, choose the functions that fit the budget, and when
 * some must go, detach and attach again with the rest. Before capabilities are dropped. With
 * @sampled_wall_ns, the wall time of the sampled first pass (no probes), the pilot is stopped
 * once it runs PILOT_MAX_FACTOR times as long, and at least PILOT_MIN_NS longer (unless the
 * user's --timeout comes first): the probes then cost PILOT_MAX_FACTOR - 1 times the work
 * done at least, and a hot function whose probes cost 100 times its work does not keep the
 * pilot going for 100 runs' time.
 */
int pg_budget_pilot(const struct pg_record_opts *o, struct pg_probes *p, struct pg_launch *l,
		    struct pg_run *run, int ncpu, uint64_t sampled_wall_ns)
{
	struct pg_rep pilot = { .exit_code = -1 };
	__u64 counters[PG_CNT_MAX] = { 0 };
	uint64_t user_timeout = l->timeout_ns, bound = PILOT_MAX_FACTOR * sampled_wall_ns;
	bool *keep = NULL, cut, timed_out;
	struct pg_budget_choice choice;
	size_t before = run->nfuncs;
	int err, ndrop;

	if (!run->calib.valid) {
		pg_warn("--budget needs the probe calibration, which failed: tracing all %zu "
			"functions left", run->nfuncs);
		return 0;
	}
	if (bound && bound < sampled_wall_ns + PILOT_MIN_NS)
		bound = sampled_wall_ns + PILOT_MIN_NS;
	if (bound && (!user_timeout || bound < user_timeout))
		l->timeout_ns = bound;
	else
		bound = 0;
	err = pg_maps_reset(p->skel, run->nfuncs, ncpu);
	err = err ?: pg_launch_run(p, l, &pilot);
	cut = bound && l->timed_out;
	timed_out = !bound && l->timed_out;	/* the user's --timeout */
	l->timeout_ns = user_timeout;
	l->timed_out = false;
	err = err ?: pg_maps_read(p->skel, run->nfuncs, ncpu, &pilot, counters);
	if (!err && !cut)	/* stopped by us, the pilot did not fail */
		err = budget_run_failed(o, "pilot run", &pilot, timed_out);
	if (err)
		goto out;
	keep = calloc(run->nfuncs, sizeof(*keep));
	if (!keep) {
		err = -ENOMEM;
		goto out;
	}
	ndrop = pg_budget_choose(run, &pilot, o->budget_pct, sampled_wall_ns, cut, keep, &choice);
	if (ndrop >= 0)
		budget_report(o, run, &pilot, sampled_wall_ns, cut, &choice);
	if (ndrop <= 0) {
		err = ndrop;
		goto out;
	}
	pg_probes_release(p);
	err = pg_run_retain_funcs(run, keep);
	err = err ?: pg_probes_attach(p, run, o->single_attach, l->preload);
	if (!err)
		pg_launch_excfix_open(p, l);
	if (!err && !o->quiet)
		pg_info("--budget: tracing %zu of %zu functions", run->nfuncs, before);
out:
	pg_rep_release(&pilot);
	free(keep);
	return err;
}

static int cmp_display(const void *a, const void *b, void *arg)
{
	const struct pg_run *run = arg;

	return strcmp(run->funcs[*(const uint32_t *)a].display,
		      run->funcs[*(const uint32_t *)b].display);
}

int pg_budget_mark_sampled(const struct pg_run *run, const struct pg_rep *rep, bool *seen)
{
	uint32_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < run->nfuncs; i++)
		order[i] = i;
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_display, (void *)run);
	for (size_t k = 0; k < rep->nstacks; k++) {
		char *stack = strdup(rep->stacks[k].folded), *save = NULL;

		if (!stack) {
			free(order);
			return -ENOMEM;
		}
		for (char *fr = strtok_r(stack, ";", &save); fr; fr = strtok_r(NULL, ";", &save)) {
			size_t lo = 0, hi = run->nfuncs;

			while (lo < hi) {	/* the first function named fr or after it */
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(run->funcs[order[mid]].display, fr) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < run->nfuncs && !strcmp(run->funcs[order[lo]].display, fr); lo++)
				seen[order[lo]] = true;
		}
		free(stack);
	}
	free(order);
	return 0;
}

/* Samples of @rep that cannot speak for every function: unknown frames, or cut short. */
static uint64_t unsure_samples(const struct pg_rep *rep)
{
	uint64_t n = rep->samples_truncated;

	for (size_t k = 0; k < rep->nstacks; k++)
		if (strstr(rep->stacks[k].folded, "[unknown]"))
			n += rep->stacks[k].count;
	return n;
}

/*
 * --budget's sampled first pass: the benchmark runs once more, unrecorded, sampled at
 * PILOT_SAMPLE_HZ with no probe attached, and only the selected functions seen on its stacks
 * (by name) go on to the pilot. A function that never showed up holds little of the time, and
 * the pilot need not pay for its probes. All of them go on when sampling is off (--no-sample)
 * or does not work here, when the run took fewer than PILOT_MIN_SAMPLES samples, when more
 * than a tenth of them have unknown frames or were cut short, or when none of the functions
 * showed up. *@wall_ns: the run's wall time when it completed (it bounds the pilot), else 0.
 * Before the probes are attached and capabilities dropped.
 */
int pg_budget_sample(const struct pg_record_opts *o, struct pg_launch *l, struct pg_run *run,
		     uint64_t *wall_ns)
{
	struct pg_probes sp = { 0 };
	struct pg_rep rep = { .exit_code = -1 };
	bool *seen = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*seen)), timed_out;
	size_t before = run->nfuncs, nseen = 0;
	uint64_t unsure;
	int err;

	if (!seen)
		return -ENOMEM;
	if (!o->sample_hz) {
		if (!o->quiet)
			pg_info("--budget: no sampled first pass (--no-sample): the pilot traces "
				"all %zu selected functions", before);
		goto out_ok;
	}
	err = pg_probes_open_bare(&sp);
	if (err)
		goto out;
	sp.sampler = pg_sampler_open(PILOT_SAMPLE_HZ, bpf_map__fd(sp.skel->maps.traced));
	err = sp.sampler ? pg_launch_run(&sp, l, &rep) : -EIO;
	if (err == -EIO) {	/* the sampler could not load or start */
		pg_warn("--budget: no sampled first pass (sampling does not work here): the pilot "
			"traces all %zu selected functions", before);
		goto out_ok;
	}
	err = err ?: pg_sampler_stop(sp.sampler, &rep);
	timed_out = l->timed_out;
	l->timed_out = false;
	err = err ?: budget_run_failed(o, "sampled first pass", &rep, timed_out);
	if (!err && !timed_out && !rep.signal && !rep.exit_code)
		*wall_ns = rep.wall_ns;
	err = err ?: pg_budget_mark_sampled(run, &rep, seen);
	if (err)
		goto out;
	for (size_t i = 0; i < run->nfuncs; i++)
		nseen += seen[i];
	unsure = unsure_samples(&rep);
	if (rep.samples < PILOT_MIN_SAMPLES || !nseen || 10 * unsure > rep.samples) {
		if (!o->quiet)
			pg_info("--budget: the sampled first pass took %llu samples (%llu with "
				"unknown frames or cut short) and saw %zu of the selected "
				"functions: too few to choose from, the pilot traces all %zu",
				(unsigned long long)rep.samples, (unsigned long long)unsure, nseen,
				before);
		goto out;
	}
	err = pg_run_retain_funcs(run, seen);
	if (!err && !o->quiet)
		pg_info("--budget: a sampled first pass (%llu samples) saw %zu of the %zu "
			"selected functions on its stacks; the pilot traces those, the others hold "
			"little of the time", (unsigned long long)rep.samples, nseen, before);
	goto out;
out_ok:
	err = 0;
out:
	pg_rep_release(&rep);
	pg_probes_release(&sp);
	free(seen);
	return err;
}
