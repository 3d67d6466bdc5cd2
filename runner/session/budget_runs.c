// SPDX-License-Identifier: MIT
/*
 * runner/session/budget_runs.c - record --budget: the sampled first pass, the pilot, and the choice
 * of the functions that fit. See budget_runs.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../core/clock.h"
#include "../../core/log.h"
#include "../../core/numfmt.h"
#include "../../core/sort.h"
#include "../../diff/sampled.h"
#include "../budget/cover_summary.h"
#include "../budget/stack_gain.h"
#include "../probes/maps.h"
#include "../profile/sampler.h"
#include "budget_runs.h"
#include "discover.h"

/*
 * --budget: the sampled first pass (runner/session/discover.h), and how much longer than it the
 * pilot may run
 */
#define PILOT_SAMPLE_HZ PG_DISCOVER_HZ
#define PILOT_MIN_SAMPLES PG_DISCOVER_MIN_SAMPLES
#define PILOT_MAX_FACTOR 10
#define PILOT_MIN_NS 1000000000ULL	/* but never before it ran this much longer */
/* the pilot's live drops: how often the counts are read; without the sampled run's wall time,
 * the global rule waits this long (a program's start is not its rate) */
#define LIVE_TICK_MS 15
#define PILOT_MAX_RESTARTS 50
#define LIVE_MIN_NS 100000000ULL
/* the guard: past GUARD_FACTOR times the untraced run and GUARD_MIN_NS more, or past
 * GUARD_BLIND_NS when its length is unknown (then on a terminal only), a line a second */
#define GUARD_FACTOR 5
#define GUARD_MIN_NS 2000000000ULL
#define GUARD_BLIND_NS 10000000000ULL
#define GUARD_TICK_MS 100
#define GUARD_LINE_NS 1000000000ULL
#define GUARD_PROBE_SHARE 0.5	/* of the time past the untraced run's, to stop and narrow */

/*
 * What each function's probes would cost in a whole run, from the pilot: its counts in @pilot,
 * or, for one the pilot detached while it ran (@w), its counts until then scaled from the
 * benchmark's own time they covered to @own_ns. Into @cost and @calls (run->nfuncs each).
 */
static void pilot_costs(const struct pg_run *run, const struct pg_rep *pilot,
			const struct pg_budget_watch *w, double own_ns, double *cost, double *calls)
{
	for (uint32_t i = 0; i < run->nfuncs; i++) {
		const struct pg_fstat *s = pg_rep_find(pilot, i);

		if (w->drop[i] && w->own_at_drop[i] > 0) {
			double scale = own_ns / w->own_at_drop[i];

			cost[i] = w->cost[i] * scale;
			calls[i] = (double)w->calls[i] * scale;
		} else if (s) {
			cost[i] = pg_budget_call_cost(&run->calib, &run->funcs[i], s);
			calls[i] = (double)s->calls;
		}
	}
}

/*
 * What the kept functions cover of the first pass's CPU time, in one block (cover_summary.h),
 * and the functions left out that held a large share of it, kept in run->meta (struct
 * pg_budget_out) for pg_budget_say_left_out().
 */
static int say_covered(const struct pg_record_opts *o, struct pg_run *run,
		       const struct pg_coverage *cov, const struct pg_rep *pilot,
		       const struct pg_budget_watch *w, const struct pg_budget_choice *choice,
		       const bool *keep, size_t nkept)
{
	size_t n = run->nfuncs ? run->nfuncs : 1;
	double *share = calloc(n, sizeof(*share)), *cost = calloc(n, sizeof(*cost));
	double *calls = calloc(n, sizeof(*calls));
	struct pg_covered c = { 0 };
	struct pg_cov_map map;
	int err = share && cost && calls ? pg_cov_map_build(&map, cov, run) : -ENOMEM;

	if (!err) {
		err = pg_covered_count(&map, keep, &c);
		pg_cov_map_release(&map);
	}
	if (!err && !o->quiet)
		pg_covered_say(&c, run, keep, nkept);
	for (uint32_t i = 0; !err && c.samples && i < run->nfuncs; i++)
		share[i] = (double)c.leaf[i] / (double)c.samples;
	if (!err) {
		pilot_costs(run, pilot, w, choice->own, cost, calls);
		err = pg_budget_left_out(run, keep, share, cost, calls, choice->own,
					 &run->meta.left_out, &run->meta.nleft_out);
	}
	if (err)
		pg_err("--budget: what the functions left out would cost: %s", strerror(-err));
	pg_covered_release(&c);
	free(share);
	free(cost);
	free(calls);
	return err;
}

/*
 * What pg_budget_choose() decided from the pilot, as pg_budget_pilot() says it. With @cut (the
 * pilot was stopped), also names the functions none of whose calls returned (calls count when
 * they return, so main and its like are among them).
 */
static void budget_report(const struct pg_record_opts *o, const struct pg_run *run,
			  const struct pg_rep *pilot, uint64_t sampled_wall_ns, bool cut,
			  bool block, const struct pg_budget_choice *c)
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
	if (!o->quiet && c->dropped.n && block)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the "
			"benchmark's own time; without the %d function%s left out it would be "
			"~%.1f%%",
			o->budget_pct, 100 * c->before / c->own, c->dropped.n,
			c->dropped.n == 1 ? "" : "s", c->after > 0 ? 100 * c->after / c->own : 0.0);
	else if (!o->quiet && c->dropped.n)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the "
			"benchmark's own time; without %s%s it would be ~%.1f%%", o->budget_pct,
			100 * c->before / c->own, c->dropped.s, pg_names_more(&c->dropped),
			c->after > 0 ? 100 * c->after / c->own : 0.0);
	else if (!o->quiet)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the "
			"benchmark's own time: every function stays", o->budget_pct,
			100 * c->before / c->own);
}

/* The probes' cost so far of @w's live functions, read from the kernel; returns the total. */
static double watch_read(struct pg_budget_watch *w, uint64_t *calls)
{
	int fd = pg_probes_map_fd(w->p, PG_MAP_FSTATS);
	double total = 0;

	*calls = 0;
	for (uint32_t i = 0; i < w->run->nfuncs; i++) {
		struct pg_fstat s = { 0 };

		if (w->live[i]) {
			pg_maps_read_fstat(fd, i, w->ncpu, w->v, &s);
			w->cost[i] = pg_budget_call_cost(&w->run->calib, &w->run->funcs[i], &s);
			w->calls[i] = s.calls;
		}
		total += w->cost[i];
		*calls += w->calls[i];
	}
	return total;
}

int pg_budget_watch_init(struct pg_budget_watch *w, const struct pg_record_opts *o,
			 struct pg_probes *p, const struct pg_run *run, int ncpu,
			 uint64_t sampled_wall_ns)
{
	size_t n = run->nfuncs ? run->nfuncs : 1;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->p = p;
	w->run = run;
	w->ncpu = ncpu;
	w->sampled_wall_ns = sampled_wall_ns;
	w->limit_ns = o->budget_pct / 100 * (double)sampled_wall_ns;
	w->v = calloc((size_t)ncpu, sizeof(*w->v));
	w->cost = calloc(n, sizeof(*w->cost));
	w->calls = calloc(n, sizeof(*w->calls));
	w->own_at_drop = calloc(n, sizeof(*w->own_at_drop));
	w->live = calloc(n, sizeof(*w->live));
	w->drop = calloc(n, sizeof(*w->drop));
	if (!w->v || !w->cost || !w->calls || !w->own_at_drop || !w->live || !w->drop) {
		pg_budget_watch_release(w);
		pg_err("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < run->nfuncs; i++)
		w->live[i] = true;
	if (sampled_wall_ns) {
		w->guard_ns = GUARD_FACTOR * sampled_wall_ns;
		if (w->guard_ns < sampled_wall_ns + GUARD_MIN_NS)
			w->guard_ns = sampled_wall_ns + GUARD_MIN_NS;
	} else {
		w->guard_ns = isatty(STDERR_FILENO) ? GUARD_BLIND_NS : 0;
	}
	w->narrow = o->budget_pct > 0 && sampled_wall_ns;
	return 0;
}

void pg_budget_watch_release(struct pg_budget_watch *w)
{
	free(w->v);
	free(w->cost);
	free(w->calls);
	free(w->own_at_drop);
	free(w->live);
	free(w->drop);
	memset(w, 0, sizeof(*w));
}

/* The pilot's periodic hook (struct pg_launch.tick): drop what runs over its share. */
static bool pilot_tick(void *arg, uint64_t elapsed_ns)
{
	struct pg_budget_watch *w = arg;
	uint64_t calls;
	double total = watch_read(w, &calls), own = (double)elapsed_ns - total;
	struct pg_names now = { 0 };
	size_t ndrop;

	if (own < 0.01 * (double)elapsed_ns)
		own = 0.01 * (double)elapsed_ns;
	if (!w->limit_ns && elapsed_ns < LIVE_MIN_NS)
		return false;
	ndrop = pg_budget_live_drop(w->run->nfuncs, w->cost, w->live, w->limit_ns, own, w->drop);
	if (!ndrop)
		return false;
	for (size_t i = 0; i < w->run->nfuncs; i++) {
		if (!w->drop[i])
			continue;
		w->live[i] = false;
		w->own_at_drop[i] = own;
		w->ndropped++;
		pg_names_add(&w->dropped, w->run->funcs[i].display);
		pg_names_add(&now, w->run->funcs[i].display);
	}
	pg_debug("the pilot at %.3f s: probes ~%.1f ms so far; detaching %zu: %s%s",
		 (double)elapsed_ns / 1e9, total / 1e6, ndrop, now.s, pg_names_more(&now));
	return true;	/* stopped, detached, and started again: pg_budget_pilot() */
}

/* The @k costliest functions of @w so far, as names. */
static void costliest(const struct pg_budget_watch *w, int k, struct pg_names *l)
{
	bool *taken = calloc(w->run->nfuncs ? w->run->nfuncs : 1, sizeof(*taken));

	if (!taken)
		return;
	for (int j = 0; j < k; j++) {
		size_t best = SIZE_MAX;
		char name[96];

		for (size_t i = 0; i < w->run->nfuncs; i++)
			if (!taken[i] && w->cost[i] > 0 && (best == SIZE_MAX ||
							    w->cost[i] > w->cost[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		taken[best] = true;
		snprintf(name, sizeof(name), "%.60s (%.2f s)", w->run->funcs[best].display,
			 w->cost[best] / 1e9);
		pg_names_add(l, name);
	}
	free(taken);
}

/* A recorded repetition's periodic hook: the live line, and the stop when narrowing helps. */
static bool guard_tick(void *arg, uint64_t elapsed_ns)
{
	struct pg_budget_watch *w = arg;
	uint64_t now = pg_now_ns(), calls;
	struct pg_names top = { 0 };
	double total, rate;

	if (!w->guard_ns || elapsed_ns < w->guard_ns)
		return false;
	total = watch_read(w, &calls);
	rate = w->last_ns && now > w->last_ns ?
	       (double)(calls - w->last_calls) / ((double)(now - w->last_ns) / 1e9) :
	       (double)calls / ((double)elapsed_ns / 1e9);
	w->last_ns = now;
	w->last_calls = calls;
	if (!w->o->quiet && (!w->last_line_ns || now - w->last_line_ns >= GUARD_LINE_NS)) {
		costliest(w, 3, &top);
		if (!top.n)
			pg_names_add(&top, "none");
		if (w->sampled_wall_ns)
			pg_info("repetition %u: running for %.1f s (%.0fx the untraced run's "
				"%.2f s), %.3g probe hits/s, probes ~%.1f s so far; costliest: %s",
				w->rep + 1, (double)elapsed_ns / 1e9,
				(double)elapsed_ns / (double)w->sampled_wall_ns,
				(double)w->sampled_wall_ns / 1e9, rate, total / 1e9, top.s);
		else
			pg_info("repetition %u: running for %.1f s, %.3g probe hits/s, probes "
				"~%.1f s so far; costliest: %s", w->rep + 1,
				(double)elapsed_ns / 1e9, rate, total / 1e9, top.s);
		w->last_line_ns = now;
	}
	/* stop only when the probes account for most of the time lost: dropping helps then */
	return w->narrow && total > GUARD_PROBE_SHARE * (double)(elapsed_ns - w->sampled_wall_ns);
}

void pg_budget_guard_arm(struct pg_budget_watch *w, struct pg_launch *l, uint32_t rep)
{
	w->rep = rep;
	w->last_ns = w->last_line_ns = w->last_calls = 0;
	memset(w->cost, 0, w->run->nfuncs * sizeof(*w->cost));
	memset(w->calls, 0, w->run->nfuncs * sizeof(*w->calls));
	for (size_t i = 0; i < w->run->nfuncs; i++)
		w->live[i] = true;
	l->tick = w->guard_ns ? guard_tick : NULL;
	l->tick_arg = w;
	l->tick_ms = GUARD_TICK_MS;
}

/* The costliest function of @rep by its probes, or UINT32_MAX when none cost anything. */
static uint32_t costliest_of(const struct pg_run *run, const struct pg_rep *rep)
{
	uint32_t best = UINT32_MAX;
	double max = 0;

	for (size_t k = 0; k < rep->nstats; k++) {
		const struct pg_fstat *s = &rep->stats[k];
		double c = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s);

		if (c > max) {
			max = c;
			best = s->func;
		}
	}
	return best;
}

int pg_budget_narrow(const struct pg_record_opts *o, struct pg_probes *p, struct pg_run *run,
		     uint64_t sampled_wall_ns)
{
	const struct pg_rep *part = &run->reps[run->nreps - 1];
	bool *keep = calloc(run->nfuncs, sizeof(*keep)), *gone = calloc(run->nfuncs, sizeof(*gone));
	uint32_t top = costliest_of(run, part);
	struct pg_budget_choice c;
	size_t before = run->nfuncs;
	int err = keep && gone ? 0 : -ENOMEM;

	if (!err && top != UINT32_MAX)
		gone[top] = true;	/* at least the costliest goes */
	if (!err)
		err = pg_budget_choose(run, part, o->budget_pct, sampled_wall_ns, false, gone,
				       NULL, 0, keep, &c);
	if (err <= 0) {
		free(keep);
		free(gone);
		if (!err)
			pg_err("repetition %zu ran far longer than the untraced run, and no traced "
			       "function's probes account for it", run->nreps);
		return err ? err : -ETIME;
	}
	pg_warn("repetition %zu ran %.1f s, %.0fx the untraced run: it was stopped, and %d "
		"functions whose probes cost most are no longer traced (%s%s); the repetitions "
		"start again", run->nreps, (double)part->wall_ns / 1e9,
		(double)part->wall_ns / (double)sampled_wall_ns, c.dropped.n, c.dropped.s,
		pg_names_more(&c.dropped));
	for (size_t k = 0; k < run->nreps; k++)
		pg_rep_release(&run->reps[k]);
	run->nreps = 0;
	err = pg_run_retain_funcs(run, keep);
	err = err ?: pg_probes_relink(p, run, NULL);
	if (!err && !o->quiet)
		pg_info("--budget: tracing %zu of %zu functions", run->nfuncs, before);
	free(keep);
	free(gone);
	return err;
}

void pg_budget_check(const struct pg_record_opts *o, const struct pg_run *run,
		     uint64_t sampled_wall_ns)
{
	struct pg_budget_watch w = { .run = run };
	struct pg_names top = { 0 };
	double cost = 0, own, allowed;
	double *walls, wall;

	if (o->budget_pct <= 0 || !run->nreps || !run->calib.valid)
		return;
	w.cost = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*w.cost));
	walls = calloc(run->nreps, sizeof(*walls));
	if (!w.cost || !walls)
		goto out;
	for (size_t r = 0; r < run->nreps; r++) {
		walls[r] = (double)run->reps[r].wall_ns;
		for (size_t k = 0; k < run->reps[r].nstats; k++) {
			const struct pg_fstat *s = &run->reps[r].stats[k];
			double c = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s) /
				   (double)run->nreps;

			w.cost[s->func] += c;
			cost += c;
		}
	}
	if (sampled_wall_ns) {
		own = (double)sampled_wall_ns;
	} else {
		wall = pg_median(walls, run->nreps);
		own = wall - cost;
		if (own < 0.01 * wall)
			own = 0.01 * wall;
	}
	allowed = o->budget_pct / 100 * own;
	if (cost > 2 * allowed) {
		costliest(&w, 3, &top);
		pg_warn("--budget %g%%: the probes cost ~%.1f%% of the benchmark's own time in the "
			"repetitions (%.3f s of %.3f s a repetition), over twice the budget; the "
			"costliest a repetition: %s (exclude them with -x, or record with "
			"--functions-of a run whose selection fits)", o->budget_pct,
			100 * cost / own, cost / 1e9, own / 1e9, top.s);
	} else if (!o->quiet) {
		pg_info("--budget %g%%: the probes cost ~%.1f%% of the benchmark's own time in the "
			"repetitions", o->budget_pct, 100 * cost / own);
	}
out:
	free(w.cost);
	free(walls);
}

/* Whether a function kept (@keep[id]) returned from a call in @pilot. */
static bool kept_called(const struct pg_run *run, const struct pg_rep *pilot, const bool *keep)
{
	for (uint32_t i = 0; i < run->nfuncs; i++) {
		const struct pg_fstat *s = keep[i] ? pg_rep_find(pilot, i) : NULL;

		if (s && s->calls)
			return true;
	}
	return false;
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
		    struct pg_run *run, int ncpu, uint64_t sampled_wall_ns,
		    const struct pg_coverage *cov)
{
	struct pg_rep pilot = { .exit_code = -1 };
	__u64 counters[PG_CNT_MAX] = { 0 };
	uint64_t user_timeout = l->timeout_ns, bound = PILOT_MAX_FACTOR * sampled_wall_ns;
	bool *keep = NULL, cut, timed_out;
	struct pg_budget_choice choice;
	struct pg_budget_watch w;
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
	err = pg_budget_watch_init(&w, o, p, run, ncpu, sampled_wall_ns);
	if (err)
		return err;
	/*
	 * The pilot runs until a function runs over its share (pilot_tick()), which is then
	 * detached, and again from the start: detaching while the benchmark runs would wait
	 * for its calls in flight (pg_probes_relink()). The last attempt runs to its end.
	 */
	for (int attempt = 0;; attempt++) {
		l->tick = attempt < PILOT_MAX_RESTARTS ? pilot_tick : NULL;
		l->tick_arg = &w;
		l->tick_ms = LIVE_TICK_MS;
		pg_rep_release(&pilot);
		pilot = (struct pg_rep){ .exit_code = -1 };
		pg_launch_phase(l, sampled_wall_ns, "the --budget pilot, run %d (%zu function%s "
				"traced)", attempt + 1, run->nfuncs - w.ndropped,
				pg_plural(run->nfuncs - w.ndropped));
		err = pg_maps_reset(p, run->nfuncs, ncpu);
		err = err ?: pg_launch_run(p, l, &pilot);
		l->tick = NULL;
		if (err || !l->tick_stopped)
			break;
		err = pg_probes_relink(p, run, w.live);
		if (err)
			break;
	}
	if (!err && w.ndropped && !o->quiet)
		pg_info("--budget: the pilot detached %zu function%s whose probes ran over their "
			"share as soon as they did, and started again (%s%s)", w.ndropped,
			pg_plural(w.ndropped), w.dropped.s, pg_names_more(&w.dropped));
	cut = bound && l->timed_out;
	timed_out = !bound && l->timed_out;	/* the user's --timeout */
	l->timeout_ns = user_timeout;
	l->timed_out = false;
	err = err ?: pg_maps_read(p, run->nfuncs, ncpu, &pilot, counters);
	if (!err && !cut)	/* stopped by us, the pilot did not fail */
		err = pg_unrecorded_run_failed(o, l, "--budget pilot run", &pilot, timed_out);
	if (err)
		goto out;
	keep = calloc(run->nfuncs, sizeof(*keep));
	if (!keep) {
		err = -ENOMEM;
		goto out;
	}
	/* those detached while it ran were counted only until then: they go */
	for (size_t i = 0; i < run->nfuncs; i++)
		w.drop[i] = !w.live[i];
	ndrop = pg_budget_choose(run, &pilot, o->budget_pct, sampled_wall_ns, cut, w.drop, cov,
				 o->default_budget ? PG_BUDGET_MIN_OWN : 0, keep, &choice);
	for (size_t i = 0; i < run->nfuncs; i++)	/* what they cost until detached */
		if (w.drop[i])
			choice.before += w.cost[i];
	if (ndrop >= 0)
		budget_report(o, run, &pilot, sampled_wall_ns, cut, cov && cov->samples, &choice);
	if (ndrop > 0 && !cut && !kept_called(run, &pilot, keep)) {
		pg_err("--budget %g%%: the probes of every function the pilot run called would "
		       "cost more than that share of the benchmark's own time: nothing would be "
		       "left to measure; give the benchmark more work a run, raise --budget, or "
		       "trace functions that do more a call (-f)", o->budget_pct);
		err = -E2BIG;
		goto out;
	}
	if (ndrop >= 0 && cov && cov->samples)
		err = say_covered(o, run, cov, &pilot, &w, &choice, keep,
				  run->nfuncs - (size_t)ndrop);
	if (err || ndrop <= 0) {
		err = err ?: ndrop;
		goto out;
	}
	pg_probes_release(p);
	err = pg_run_retain_funcs(run, keep);
	err = err ?: pg_probes_attach(p, run, o->single_attach, l->preload);
	if (!err)
		pg_launch_excfix_open(p, l);
out:
	pg_budget_watch_release(&w);
	pg_rep_release(&pilot);
	free(keep);
	return err;
}


void pg_budget_say_left_out(const struct pg_record_opts *o, struct pg_run *run,
			    const struct pg_coverage *cov, uint32_t hz)
{
	double per_run = cov->runs ? (double)cov->samples / cov->runs : 0;
	char line[512];

	for (size_t k = 0; k < run->meta.nleft_out; k++) {
		struct pg_budget_out *lo = &run->meta.left_out[k];

		lo->samples = lo->share * per_run * hz / PG_FIRST_PASS_HZ;
		lo->judged = lo->samples >= PG_SAMPLED_MIN_SAMPLES;
		if (o->quiet)
			continue;
		pg_budget_out_say(lo, o->budget_pct, line, sizeof(line));
		pg_info("%s", line);
	}
}

/*
 * The repetitions' rate when there was no -F: from the sampled pass's fastest run, @wall_ns,
 * and how many CPUs it kept busy: its @samples in @runs at PILOT_SAMPLE_HZ over that fastest
 * run (CPU time, unlike wall time, hardly grows when other work shares the machine).
 */
static void choose_hz(const struct pg_record_opts *o, uint64_t wall_ns, uint64_t samples,
		      int runs, uint32_t *hz)
{
	double cpus = runs && wall_ns ?
		(double)samples / runs / ((double)wall_ns / 1e9 * PILOT_SAMPLE_HZ) : 0;
	uint64_t per_rep;

	if (!o->auto_hz || !wall_ns)
		return;
	*hz = pg_budget_sample_hz(wall_ns, cpus, &per_rep);
	if (!o->quiet)
		pg_info("--budget: sampling at %u Hz: ~%llu samples a repetition of %.3f s "
			"(no -F: docs/sampling.md)", *hz, (unsigned long long)per_rep,
			(double)wall_ns / 1e9);
}

/*
 * --budget after the sampled first pass (runner/session/discover.h): only the selected functions
 * seen on its stacks (by name) go on to the pilot. A function that never showed up holds little of
 * the time, and the pilot need not pay for its probes. All of them go on when the pass did not
 * run (sampling does not work here), when it took fewer than PILOT_MIN_SAMPLES samples, when
 * more than a tenth of them have unknown frames or were cut short, or when none of the
 * functions showed up; then @d's stacks are released (too thin to weigh the functions by).
 */
int pg_budget_sample(const struct pg_record_opts *o, struct pg_discovery *d, struct pg_run *run,
		     uint64_t *wall_ns, uint32_t *hz)
{
	bool *seen = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*seen));
	size_t before = run->nfuncs, nseen = 0;
	int err;

	if (!seen)
		return -ENOMEM;
	if (!d->done && !o->sample_hz && !o->quiet)
		pg_info("--budget: no sampled first pass (--no-sample): the pilot traces all %zu "
			"selected functions", before);
	if (!d->done)
		goto out_ok;
	*wall_ns = d->wall_ns;
	choose_hz(o, d->wall_ns, d->samples, d->runs, hz);
	err = pg_budget_mark_sampled(run, &d->cov, seen);
	if (err)
		goto out;
	for (size_t i = 0; i < run->nfuncs; i++)
		nseen += seen[i];
	if (d->samples < PILOT_MIN_SAMPLES || !nseen || 10 * d->unsure > d->samples) {
		if (!o->quiet)
			pg_info("--budget: the sampled first pass took %llu samples (%llu with "
				"unknown frames or cut short) and saw %zu of the selected "
				"functions: too few to choose from, the pilot traces all %zu",
				(unsigned long long)d->samples, (unsigned long long)d->unsure,
				nseen, before);
		pg_coverage_release(&d->cov);
		goto out_ok;
	}
	err = pg_run_retain_funcs(run, seen);
	if (!err && !o->quiet)
		pg_info("--budget: a sampled first pass (%llu samples in %d run%s) saw %zu of the "
			"%zu selected functions on its stacks; the pilot traces those, the others "
			"hold little of the time", (unsigned long long)d->samples, d->runs,
			d->runs == 1 ? "" : "s", nseen, before);
	goto out;
out_ok:
	err = 0;
out:
	free(seen);
	return err;
}
