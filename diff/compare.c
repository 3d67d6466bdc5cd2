// SPDX-License-Identifier: MIT
/*
 * diff/compare.c - per-function statistical comparison of two runs (method: compare.h and
 * docs/statistics.md): functions matched across the runs, the machine's speed per pair, the
 * false-discovery control and the run-level verdict and warnings. One function's test and
 * verdict are diff/verdict.c's; its per-repetition samples diff/samples.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* vasprintf */
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/numfmt.h"
#include "../core/strv.h"
#include "compare.h"
#include "cpusplit.h"
#include "gbench.h"
#include "paired.h"
#include "samples.h"
#include "speed.h"
#include "stats.h"
#include "verdict.h"

/* Repetitions per side the overall reason recommends when it asks for more. */
#define PG_RECOMMENDED_REPS 10

/* ------------------------------------------------------------------------------------------ */
/* Run-level checks: same command, warnings */

__attribute__((format(printf, 2, 3)))
static int warn(struct pg_comparison *c, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (err < 0)
		return -ENOMEM;
	err = pg_strv_push(&c->warnings, &c->nwarnings, s);
	free(s);
	return err;
}

static int warn_differs(struct pg_comparison *c, const char *what, const char *a, const char *b)
{
	if (!a || !b || !strcmp(a, b))
		return 0;
	return warn(c, "the runs come from different %s: %s and %s", what, a, b);
}

static int warn_failed(struct pg_comparison *c, const struct pg_run *run, const char *which)
{
	size_t failed = 0;

	for (size_t r = 0; r < run->nreps; r++)
		if (run->reps[r].exit_code != 0 || run->reps[r].signal != 0)
			failed++;
	if (!failed)
		return 0;
	return warn(c,
		    "%zu of %zu repetitions of the %s run failed (non-zero exit status or signal)",
		    failed, run->nreps, which);
}

/*
 * Can the runs' sets of traced functions differ because of how they were recorded, not
 * because of the code? Their -f/-x options differ (*@options), or either side's functions
 * were chosen by a budget on their own (budget_pct: record --budget, and the default
 * selection). A new run recorded with --functions-of follows the base run's functions by name
 * (it is taken to name the base run): what it lacks, its binaries lack, the code's doing.
 */
static bool selections_differ(const struct pg_meta *a, const struct pg_meta *b, bool *options)
{
	*options = !pg_strv_equal(a->filters, a->nfilters, b->filters, b->nfilters) ||
		   !pg_strv_equal(a->excludes, a->nexcludes, b->excludes, b->nexcludes);
	if (*options)
		return true;
	if (b->functions_of)
		return false;
	return a->budget_pct > 0 || b->budget_pct > 0;
}

/*
 * Did the runs trace different sets of functions (listed, called or not, by key) because of
 * how they were recorded (selections_differ())? Then a function called in one run and not
 * even listed in the other was not traced there: it is not judged (*@differ is set for
 * pg_compare()); and a caller's self time holds, on one side only, the callees traced on the
 * other, whatever the code did. (Otherwise a function on one side only is one the code added
 * or removed.) @keys sorted.
 */
static int warn_sets(struct pg_comparison *c, const struct pg_run *base, const struct pg_run *new,
		     const struct pg_fkey *keys, size_t nkeys, bool *differ)
{
	size_t only[2] = { 0, 0 };
	bool options;

	/* otherwise a function listed on one side only is the code's doing */
	if (!selections_differ(&base->meta, &new->meta, &options))
		return 0;
	for (size_t i = 0, j; i < nkeys; i = j) {
		bool listed[2] = { false, false }, called[2] = { false, false };

		for (j = i; j < nkeys && pg_fkey_same(&keys[j], &keys[i]); j++) {
			const struct pg_run *run = keys[j].side ? new : base;

			listed[keys[j].side] = true;
			for (size_t r = 0; r < run->nreps && !called[keys[j].side]; r++) {
				const struct pg_fstat *st = pg_rep_find(&run->reps[r], keys[j].id);

				called[keys[j].side] = st && st->calls;
			}
		}
		/* called on one side, not even listed on the other (listed: it did not run) */
		for (int k = 0; k < 2; k++)
			only[k] += called[k] && !listed[!k];
	}
	if (!only[0] && !only[1])
		return 0;
	*differ = true;
	return warn(c, "the runs traced different sets of functions (%zu called only in the base "
		    "run, %zu only in the new one%s): those are not judged, nor are callers whose "
		    "traced callees per call differ (a caller's self time holds the time of "
		    "callees traced on the other side only); record both with the same functions "
		    "(%s)",
		    only[0], only[1], options ? ": their -f/-x options differ" :
		    ": --budget chose them, or the code changed",
		    options ? "-f" : "record --functions-of BASE.json");
}

static int warnings(struct pg_comparison *c, const struct pg_run *base, const struct pg_run *new)
{
	const struct pg_meta *a = &base->meta, *b = &new->meta;
	int err = 0;

	err = err ?: warn_differs(c, "hosts", a->host, b->host);
	err = err ?: warn_differs(c, "kernels", a->kernel, b->kernel);
	err = err ?: warn_differs(c, "CPU models", a->cpu_model, b->cpu_model);
	err = err ?: warn_differs(c, "perfgate versions", a->perfgate_version,
				  b->perfgate_version);
	err = err ?: warn_failed(c, base, "base");
	err = err ?: warn_failed(c, new, "new");
	return err;
}

/* ------------------------------------------------------------------------------------------ */

static int verdict_rank(enum pg_verdict v)
{
	switch (v) {
	case PG_VERDICT_REGRESSION:
		return 0;
	case PG_VERDICT_IMPROVEMENT:
		return 1;
	case PG_VERDICT_NOTABLE:
		return 2;
	case PG_VERDICT_INCONCLUSIVE:
		return 3;
	case PG_VERDICT_ADDED:
		return 4;
	case PG_VERDICT_REMOVED:
		return 5;
	case PG_VERDICT_UNCHANGED:
		return 6;
	}
	return 7;
}

static int cmp_fcmp(const void *pa, const void *pb)
{
	const struct pg_fcmp *a = pa, *b = pb;
	int d = verdict_rank(a->verdict) - verdict_rank(b->verdict);

	if (d)
		return d;
	/* the largest regression first, the largest improvement first */
	if (a->verdict == PG_VERDICT_REGRESSION && a->change != b->change)
		return a->change > b->change ? -1 : 1;
	if (a->verdict == PG_VERDICT_IMPROVEMENT && a->change != b->change)
		return a->change < b->change ? -1 : 1;
	/* the largest share of the run first (unknown last), then the largest change */
	if (a->verdict == PG_VERDICT_NOTABLE) {
		double x = isnan(a->impact) ? -1 : fabs(a->impact);
		double y = isnan(b->impact) ? -1 : fabs(b->impact);

		if (x != y)
			return x > y ? -1 : 1;
		if (fabs(a->change) != fabs(b->change))
			return fabs(a->change) > fabs(b->change) ? -1 : 1;
	}
	d = strcmp(a->binary, b->binary);
	return d ?: strcmp(a->name, b->name) ?: strcmp(a->scope ? a->scope : "",
						       b->scope ? b->scope : "");
}

/* Repetitions per side needed before any test can reach alpha (and opts.min_reps). */
static size_t reps_needed(const struct pg_compare_opts *o)
{
	size_t n = o->min_reps > 1 ? o->min_reps : 1;

	while (n < 1000 && pg_mwu_min_p(n, n) > o->alpha)
		n++;
	return n;
}

/* The overall verdict; @o: the options the tests used (alpha of this look). */
static void overall(struct pg_comparison *c, const struct pg_compare_opts *o, size_t ncommon)
{
	size_t need = reps_needed(o), rec = need > PG_RECOMMENDED_REPS ? need : PG_RECOMMENDED_REPS;
	char *r = c->overall_reason;
	size_t rs = sizeof(c->overall_reason);
	double min_p;

	r[0] = 0;
	if (c->nregressions) {
		c->overall = PG_OVERALL_REGRESSION;
		return;
	}
	if (c->ntested) {
		c->overall = PG_OVERALL_PASS;
		return;
	}
	c->overall = PG_OVERALL_INCONCLUSIVE;
	if (c->paired) {
		pg_paired_overall_reason(c, o, ncommon);
		return;
	}
	min_p = pg_mwu_min_p(c->base_reps, c->new_reps);
	if (min_p > o->alpha) {
		snprintf(r, rs,
			 "too few repetitions (%zu and %zu): the smallest possible p-value is %.2g > alpha %g",
			 c->base_reps, c->new_reps, min_p, o->alpha);
	} else if (c->base_reps < o->min_reps || c->new_reps < o->min_reps) {
		snprintf(r, rs, "too few repetitions (%zu and %zu; at least %u per side needed)",
			 c->base_reps, c->new_reps, o->min_reps);
	} else {
		if (!ncommon)
			snprintf(r, rs, "no function was called in both runs: nothing to compare");
		else
			snprintf(r, rs,
				 "no function was called in at least %zu repetitions of both runs",
				 need);
		return;
	}
	if (rec > need)
		pg_append(r, rs, "; use at least %zu repetitions per side, %zu recommended", need,
			  rec);
	else
		pg_append(r, rs, "; use at least %zu repetitions per side", need);
}

/*
 * The whole-process wall time per repetition into out->wall: tested alone (its raw p is its
 * q), never counted, with the options @o. Uses the samples @sb and @sn and the workspace @ws.
 * Returns the wall time a function's impact is a share of: the base run's median, else the
 * new run's; NAN when neither has one.
 */
static int compare_wall(struct pg_comparison *out, const struct pg_compare_opts *o,
			const struct pg_run *base, const struct pg_run *new, struct pg_sample *sb,
			struct pg_sample *sn, struct pg_stats_ws *ws, double *wall_ns)
{
	struct pg_fcmp *w = &out->wall;
	int err;

	w->binary = strdup("[wall]");
	w->name = strdup("[wall]");
	w->display = strdup("[wall]");
	if (!w->binary || !w->name || !w->display)
		return -ENOMEM;
	sb->n = sn->n = 0;
	for (size_t r = 0; r < base->nreps; r++)
		if (base->reps[r].wall_ns)
			pg_sample_push(sb, (double)base->reps[r].wall_ns, base->reps[r].pair);
	for (size_t r = 0; r < new->nreps; r++)
		if (new->reps[r].wall_ns)
			pg_sample_push(sn, (double)new->reps[r].wall_ns, new->reps[r].pair);
	err = pg_analyse(w, sb, sn, o, false, ws);
	if (err < 0)
		return err;
	if (err == 1) {
		w->q = w->p;
		pg_decide(w, o, NAN);
	} else if (!sb->n || !sn->n) {
		snprintf(w->reason, sizeof(w->reason), "no wall time recorded in the %s run",
			 !sb->n ? "base" : "new");
	}
	*wall_ns = !isnan(w->base_ns) ? w->base_ns : w->new_ns;
	return 0;
}

/*
 * The on-/off-CPU split of @f's change (diff/cpusplit.h), from the functions keys[0..nb) of
 * @base and keys[nb..nb + nn) of @new. 0 or -ENOMEM.
 */
static int split_change(struct pg_fcmp *f, const struct pg_run *base, const struct pg_run *new,
			const struct pg_fkey *keys, size_t nb, size_t nn,
			const struct pg_calib *calib, enum pg_metric metric)
{
	uint32_t *ids;
	int err;

	if (!base->meta.offcpu || !new->meta.offcpu || !nb || !nn)
		return 0;
	ids = malloc((nb + nn) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (size_t k = 0; k < nb + nn; k++)
		ids[k] = keys[k].id;
	err = pg_cpusplit(f, base, ids, nb, new, ids + nb, nn, calib, metric);
	free(ids);
	return err;
}

/*
 * pg_analyse_cpu() for @f, whose self time samples are @sb and @sn: its on-CPU time's samples
 * gathered into the same buffers (the speed kept, all of it not blocked), and judged on when
 * they are steadier. 0 or a negative errno.
 */
static int on_cpu_instead(struct pg_fcmp *f, const struct pg_run *base, const struct pg_run *new,
			  const struct pg_fkey *keys, size_t nb, size_t nn,
			  const struct pg_calib *calib, bool leaf, const struct pg_compare_opts *o,
			  struct pg_stats_ws *ws, struct pg_sample *sb, struct pg_sample *sn)
{
	double cb, cn, share = sb->share, tail = pg_tail_index(sb, sn);
	int err;

	pg_sample_gather(sb, &cb, base, keys, nb, calib, PG_METRIC_CPU, leaf);
	pg_sample_gather(sn, &cn, new, keys + nb, nn, calib, PG_METRIC_CPU, leaf);
	sb->share = 1;
	err = pg_analyse_cpu(f, tail, sb, sn, o, calib->valid, ws);
	sb->share = share;
	return err;
}

/* A function's time a repetition from its sample: mean per-call metric x calls a repetition. */
static double time_per_rep(const struct pg_sample *s, double calls, size_t nreps)
{
	double sum = 0;

	for (size_t t = 0; t < s->n; t++)
		sum += s->raw[t];
	return s->n && nreps ? sum / (double)s->n * calls / (double)nreps : 0;
}

/*
 * The machine's speed per pair of a paired comparison into @sp (diff/speed.h), and the
 * comparison's speed_ fields. Reference functions: not probe-bound, with the same traced
 * callees on both sides when the sets differ, called on both sides of at least half the pairs,
 * and not blocked for PG_SPEED_MIN_CPU of their time. 0 or a negative errno.
 */
static int machine_speed(struct pg_speed *sp, struct pg_comparison *out, const struct pg_run *base,
			 const struct pg_run *new, const struct pg_fkey *keys, size_t nkeys,
			 const struct pg_calib *calib, const struct pg_compare_opts *o,
			 bool sets_differ, struct pg_sample *sb, struct pg_sample *sn)
{
	size_t cap = base->nreps < new->nreps ? base->nreps : new->nreps, maxp = 0;
	double *d = malloc((cap ? cap : 1) * sizeof(*d));
	uint32_t *dp = malloc((cap ? cap : 1) * sizeof(*dp));
	int err = -ENOMEM;

	for (size_t r = 0; r < base->nreps; r++)
		maxp = base->reps[r].pair > maxp ? base->reps[r].pair : maxp;
	if (!d || !dp || pg_speed_init(sp, maxp + 1))
		goto out;
	for (size_t i = 0, j; i < nkeys; i = j) {
		size_t nb, nn;
		struct pg_fcmp f;
		double cb, cn;
		ssize_t k;
		bool leaf;

		j = pg_fkeys_group(keys, nkeys, i, base, new, &nb, &leaf);
		nn = j - i - nb;
		if (!nb || !nn ||
		    pg_sample_unblocked(base, keys + i, nb, o->metric) < PG_SPEED_MIN_CPU)
			continue;
		pg_sample_gather(sb, &cb, base, keys + i, nb, calib, o->metric, leaf);
		pg_sample_gather(sn, &cn, new, keys + i + nb, nn, calib, o->metric, leaf);
		pg_fcmp_init(&f);
		if (!sb->n || !sn->n || pg_probe_bound(&f, sb, sn, calib->valid) ||
		    (sets_differ && pg_callees_differ(&f, sb, cb, sn, cn)))
			continue;
		k = pg_pair_diffs(sb->log, sb->pair, sb->n, sn->log, sn->pair, sn->n, d, dp);
		if (k < 0) {
			err = (int)k;
			goto out;
		}
		if ((size_t)k < PG_SPEED_MIN_PAIRS || 2 * (size_t)k < out->npairs)
			continue;
		err = pg_speed_add(sp, d, dp, (size_t)k, time_per_rep(sb, cb, base->nreps) +
				   time_per_rep(sn, cn, new->nreps), (uint32_t)i);
		if (err)
			goto out;
	}
	err = pg_speed_finish(sp, o->alpha, o->min_effect);
	out->speed_refs = sp->nrefs;
	out->speed_applied = sp->applied;
	out->speed_spread = expm1(sp->spread);
	out->speed_shift = expm1(sp->shift);
	out->speed_p = sp->p;
out:
	free(d);
	free(dp);
	return err;
}

/*
 * Runs that are the two sides of one perfgate ab session are compared pair by pair
 * (diff/paired.h): out->paired, out->npairs, and @sb and @sn marked paired. A warning when the
 * files were given the other way round.
 */
static int pairing(struct pg_comparison *out, const struct pg_run *base, const struct pg_run *new,
		   struct pg_sample *sb, struct pg_sample *sn)
{
	bool swapped;

	out->paired = pg_runs_paired(base, new, &swapped);
	if (!out->paired)
		return 0;
	out->npairs = pg_runs_npairs(base, new);
	sb->paired = sn->paired = true;
	if (!swapped)
		return 0;
	return warn(out, "the base run is the new side of its perfgate ab session and the new run "
		    "its base side: compared as given, so a slower new side is an improvement");
}

/* pg_compare() and pg_compare_look() (@prev: the previous look, or NULL). */
static int compare_runs(const struct pg_run *base, const struct pg_run *new,
			const struct pg_compare_opts *opts, const struct pg_comparison *prev,
			struct pg_comparison *out)
{
	const struct pg_compare_opts def = PG_COMPARE_OPTS_DEFAULT;
	struct pg_compare_opts look;	/* the options this look tests at */
	struct pg_sample sb = { 0 }, sn = { 0 };
	struct pg_stats_ws ws = PG_STATS_WS_INIT;	/* shared by the functions' tests */
	struct pg_fkey *keys = NULL;
	size_t nkeys, ntested = 0, ncommon = 0, *tested = NULL;
	double *p = NULL;
	char cmd_a[100], cmd_b[100];
	struct pg_calib calib;
	struct pg_speed speed = { 0 };
	bool sets_differ = false;
	double wall_ns;
	int err;

	pg_comparison_release(out);
	out->opts = opts ? *opts : def;
	opts = &out->opts;
	if (!(opts->alpha > 0 && opts->alpha < 1) || !(opts->min_effect >= 0) ||
	    !isfinite(opts->min_effect) || !(opts->min_impact >= 0) ||
	    !isfinite(opts->min_impact) || opts->look > opts->looks ||
	    (opts->looks && !opts->look)) {
		snprintf(out->error, sizeof(out->error), "invalid options: alpha must be in "
			 "(0, 1), min_effect and min_impact >= 0, look in 1..looks");
		return -EINVAL;
	}
	/* a sequential look tests at its share of alpha (diff/paired.h) */
	look = *opts;
	look.alpha = pg_look_alpha(opts);
	opts = &look;
	out->base_reps = base->nreps;
	out->new_reps = new->nreps;

	err = -ENOMEM;
	nkeys = base->nfuncs + new->nfuncs;
	keys = malloc((nkeys ? nkeys : 1) * sizeof(*keys));
	tested = malloc((nkeys ? nkeys : 1) * sizeof(*tested));
	p = malloc((nkeys ? nkeys : 1) * sizeof(*p));
	out->f = calloc(nkeys ? nkeys : 1, sizeof(*out->f));
	if (!keys || !tested || !p || !out->f)
		goto fail;
	if (pg_sample_init(&sb, base->nreps) || pg_sample_init(&sn, new->nreps))
		goto fail;
	err = pairing(out, base, new, &sb, &sn);
	if (err)
		goto fail;
	/* compared all the same, as Google Benchmark's compare.py compares two binaries */
	out->commands_differ = !pg_meta_same_benchmark(&base->meta, &new->meta);
	if (out->commands_differ) {
		pg_meta_command_words(cmd_a, sizeof(cmd_a), &base->meta);
		pg_meta_command_words(cmd_b, sizeof(cmd_b), &new->meta);
		err = warn(out, "the runs are of different commands: '%s' and '%s'", cmd_a, cmd_b);
		if (err)
			goto fail;
	}
	err = warnings(out, base, new);
	if (!err && opts->metric == PG_METRIC_CPU && (!base->meta.offcpu || !new->meta.offcpu))
		err = warn(out, "--metric cpu: the %s run has no off-CPU time (recorded with "
			   "--no-offcpu or by an older perfgate): its on-CPU time is taken as its "
			   "self time", !base->meta.offcpu ? "base" : "new");
	if (err)
		goto fail;
	pg_joint_calib(base, new, opts, &calib);
	out->compensated = calib.valid;
	err = compare_wall(out, opts, base, new, &sb, &sn, &ws, &wall_ns);
	if (err)
		goto fail;

	pg_fkeys_fill(keys, base, new);
	err = warn_sets(out, base, new, keys, nkeys, &sets_differ);
	if (err)
		goto fail;
	if (out->paired && !opts->no_speed) {
		err = machine_speed(&speed, out, base, new, keys, nkeys, &calib, opts, sets_differ,
				    &sb, &sn);
		if (err)
			goto fail;
		sb.speed = &speed;
	}

	for (size_t i = 0, j; i < nkeys; i = j) {
		size_t nb, nn;
		double cb, cn;
		bool leaf;
		struct pg_fcmp *f;

		j = pg_fkeys_group(keys, nkeys, i, base, new, &nb, &leaf);
		nn = j - i - nb;
		pg_sample_gather(&sb, &cb, base, keys + i, nb, &calib, opts->metric, leaf);
		pg_sample_gather(&sn, &cn, new, keys + i + nb, nn, &calib, opts->metric, leaf);
		if (!sb.n && !sn.n)
			continue;	/* called in neither run */
		if (sb.speed)	/* the part of the machine's speed it may follow */
			sb.share = pg_sample_unblocked(base, keys + i, nb, opts->metric);
		sb.speed_id = (uint32_t)i;	/* machine_speed()'s id, if a reference */

		f = &out->f[out->n];
		pg_fcmp_init(f);
		f->binary = strdup(keys[i].binary);
		f->name = strdup(keys[i].name);
		/* the new run's display name: keys of the new side come last in the group */
		f->display = strdup(keys[j - 1].display);
		f->scope = *keys[i].scope ? strdup(keys[i].scope) : NULL;
		out->n++;
		if (!f->binary || !f->name || !f->display || (*keys[i].scope && !f->scope)) {
			err = -ENOMEM;
			goto fail;
		}
		/* the source position: the new run's (last) that is known */
		for (size_t k = j; k-- > i;) {
			if (!keys[k].src_file || !keys[k].src_line)
				continue;
			f->src_file = strdup(keys[k].src_file);
			if (!f->src_file) {
				err = -ENOMEM;
				goto fail;
			}
			f->src_line = keys[k].src_line;
			break;
		}
		f->base_calls = base->nreps ? cb / (double)base->nreps : 0;
		f->new_calls = new->nreps ? cn / (double)new->nreps : 0;
		f->calls_changed = f->base_calls != f->new_calls;
		err = pg_analyse(f, &sb, &sn, opts, calib.valid, &ws);
		if (err < 0)
			goto fail;
		/* compensated total time does not depend on which callees were traced */
		if (err == 1 && sets_differ && (opts->metric != PG_METRIC_TOTAL || opts->raw) &&
		    pg_callees_differ(f, &sb, cb, &sn, cn))
			err = 0;
		if (err == 1 && opts->metric == PG_METRIC_SELF &&
		    pg_sample_blocked_both(base, keys + i, nb, new, keys + i + nb, nn) >=
		    PG_SPLIT_BLOCKED) {
			err = on_cpu_instead(f, base, new, keys + i, nb, nn, &calib, leaf, opts,
					     &ws, &sb, &sn);
			if (err < 0)
				goto fail;
			err = 1;
		}
		if (err == 1) {
			tested[ntested] = out->n - 1;
			p[ntested++] = f->p;
		}
		pg_impact(f, wall_ns);
		err = split_change(f, base, new, keys + i, nb, nn, &calib, opts->metric);
		if (err)
			goto fail;
		if (sb.n && sn.n) {
			ncommon++;
		} else if (sets_differ && (!nb || !nn)) {
			/* not even listed on the other side: not traced there, not judged */
			f->cause = PG_CAUSE_ONE_SIDE;
			snprintf(f->reason, sizeof(f->reason), "traced only in the %s run (the runs "
				 "chose different functions): not judged", !nn ? "base" : "new");
		} else if (!sb.n) {
			f->verdict = PG_VERDICT_ADDED;
			snprintf(f->reason, sizeof(f->reason), "called only in the new run");
		} else {
			f->verdict = PG_VERDICT_REMOVED;
			snprintf(f->reason, sizeof(f->reason), "called only in the base run");
		}
	}

	/* Google Benchmark's benchmarks, in the same family (diff/gbench.h) */
	err = pg_gb_compare(base, new, opts, &ws, out, &tested, &p, &ntested, &ncommon);
	if (err)
		goto fail;

	err = pg_bh_adjust(p, ntested, p);
	if (err)
		goto fail;
	out->ntested = ntested;
	for (size_t t = 0; t < ntested; t++) {
		struct pg_fcmp *f = &out->f[tested[t]];

		f->q = p[t];
		pg_decide(f, opts, wall_ns);
		pg_cpusplit_reason(f);
	}
	for (size_t i = 0; i < out->n; i++)
		pg_calls_words(&out->f[i]);
	/* a sequential look: what an earlier look decided stays decided */
	err = pg_keep_decided(out, prev);
	if (err)
		goto fail;
	for (size_t i = 0; i < out->n; i++) {
		struct pg_fcmp *f = &out->f[i];

		switch (f->verdict) {
		case PG_VERDICT_REGRESSION:
			out->nregressions++;
			break;
		case PG_VERDICT_IMPROVEMENT:
			out->nimprovements++;
			break;
		case PG_VERDICT_UNCHANGED:
			out->nunchanged++;
			break;
		case PG_VERDICT_INCONCLUSIVE:
			out->ninconclusive++;
			break;
		case PG_VERDICT_ADDED:
			out->nadded++;
			break;
		case PG_VERDICT_REMOVED:
			out->nremoved++;
			break;
		case PG_VERDICT_NOTABLE:
			out->nnotable++;
			break;
		}
	}
	qsort(out->f, out->n, sizeof(*out->f), cmp_fcmp);
	err = pg_gb_finish(base, new, out);	/* Google Benchmark's benchmarks first */
	if (err)
		goto fail;

	overall(out, opts, ncommon);
	err = 0;
	goto out;

fail:
	pg_comparison_release(out);
	snprintf(out->error, sizeof(out->error), "%s", strerror(-err));
out:
	pg_speed_release(&speed);
	pg_sample_release(&sb);
	pg_sample_release(&sn);
	pg_stats_ws_release(&ws);
	free(keys);
	free(tested);
	free(p);
	return err;
}

int pg_compare(const struct pg_run *base, const struct pg_run *new,
	       const struct pg_compare_opts *opts, struct pg_comparison *out)
{
	return compare_runs(base, new, opts, NULL, out);
}

int pg_compare_look(const struct pg_run *base, const struct pg_run *new,
		    const struct pg_compare_opts *opts, const struct pg_comparison *prev,
		    struct pg_comparison *out)
{
	return compare_runs(base, new, opts, prev, out);
}
