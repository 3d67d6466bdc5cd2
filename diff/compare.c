// SPDX-License-Identifier: MIT
/*
 * diff/compare.c - per-function statistical comparison of two runs (method: compare.h and
 * docs/statistics.md): functions matched across the runs, the machine's speed per pair, the
 * false-discovery control and the run-level warnings. One function's test and verdict are
 * diff/verdict.c's; its per-repetition samples diff/repvalues.c's; the counts, the order of
 * the entries and the overall verdict diff/overall.c's.
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

#include "../core/gbench.h"
#include "../core/numfmt.h"
#include "../core/strv.h"
#include "calibunc.h"
#include "compare.h"
#include "cause.h"
#include "cpusplit.h"
#include "kshare.h"
#include "gbench.h"
#include "inlined.h"
#include "overall.h"
#include "paired.h"
#include "program.h"
#include "sampled.h"
#include "repvalues.h"
#include "rnull.h"
#include "rspeed.h"
#include "speed.h"
#include "stats.h"
#include "verdict.h"

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
			pg_sample_push(sb, (double)base->reps[r].wall_ns, pg_rep_tag(base, r));
	for (size_t r = 0; r < new->nreps; r++)
		if (new->reps[r].wall_ns)
			pg_sample_push(sn, (double)new->reps[r].wall_ns, pg_rep_tag(new, r));
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
			const struct pg_calib *calib, enum pg_metric metric, bool no_runq)
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
	err = pg_cpusplit(f, base, ids, nb, new, ids + nb, nn, calib, metric, no_runq);
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
	double share = sb->share, tail = pg_tail_index(sb, sn);
	int err;

	pg_sample_gather(sb, base, keys, nb, calib, PG_METRIC_CPU, leaf);
	pg_sample_gather(sn, new, keys + nb, nn, calib, PG_METRIC_CPU, leaf);
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
 * The function of keys[i..) as a reference of the machine's speed: its group's end into *@j,
 * its samples into @sb and @sn and its time a repetition into *@time_ns. True when it is
 * one: tested by the comparison (called in both runs, at least @min_n times on each side, not
 * probe-bound, the same traced callees when the sets differ) and not blocked for
 * PG_SPEED_MIN_CPU of its time.
 */
static bool reference(const struct pg_run *base, const struct pg_run *new,
		      const struct pg_fkey *keys, size_t nkeys, size_t i, size_t *j,
		      const struct pg_calib *calib, const struct pg_compare_opts *o,
		      bool sets_differ, size_t min_n, struct pg_sample *sb, struct pg_sample *sn,
		      double *time_ns)
{
	size_t nb, nn;
	struct pg_fcmp f;
	bool leaf;

	*j = pg_fkeys_group(keys, nkeys, i, base, new, &nb, &leaf);
	nn = *j - i - nb;
	if (!nb || !nn || pg_sample_unblocked(base, keys + i, nb, o->metric) < PG_SPEED_MIN_CPU)
		return false;
	pg_sample_gather(sb, base, keys + i, nb, calib, o->metric, leaf);
	pg_sample_gather(sn, new, keys + i + nb, nn, calib, o->metric, leaf);
	pg_fcmp_init(&f);
	if (!sb->n || !sn->n || sb->n < min_n || sn->n < min_n ||
	    pg_probe_bound(&f, sb, sn, calib->valid) ||
	    (sets_differ && pg_callees_differ(&f, sb, sb->calls, sn, sn->calls)))
		return false;
	*time_ns = time_per_rep(sb, sb->calls, base->nreps) +
		   time_per_rep(sn, sn->calls, new->nreps);
	return true;
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
		double time_ns;
		ssize_t k;

		if (!reference(base, new, keys, nkeys, i, &j, calib, o, sets_differ, 1, sb, sn,
			       &time_ns))
			continue;
		k = pg_pair_diffs(sb->log, sb->pair, sb->n, sn->log, sn->pair, sn->n, d, dp);
		if (k < 0) {
			err = (int)k;
			goto out;
		}
		if ((size_t)k < PG_SPEED_MIN_PAIRS || 2 * (size_t)k < out->npairs)
			continue;
		err = pg_speed_add(sp, d, dp, (size_t)k, time_ns, (uint32_t)i);
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

/* The functions of keys[0..nkeys) (sorted: each one's keys are together) */
static size_t count_funcs(const struct pg_fkey *keys, size_t nkeys)
{
	size_t n = 0;

	for (size_t i = 0, j; i < nkeys; i = j, n++)
		for (j = i + 1; j < nkeys && pg_fkey_same(&keys[j], &keys[i]); j++)
			;
	return n;
}

/*
 * The reference spins' part of the machine's speed between two recordings (diff/rspeed.h)
 * after the references': the speed when the references could not tell it, a check of theirs
 * when they could, and an unknown speed's uncertainty when neither. 0 or a negative errno.
 */
static int spin_speed(struct pg_rspeed *rs, struct pg_comparison *out, const struct pg_run *base,
		      const struct pg_run *new, const struct pg_compare_opts *o)
{
	double c, se, z = pg_norm_isf(o->alpha / 2);
	int err = pg_rspeed_spin(&base->meta, &new->meta, o->metric == PG_METRIC_CPU, &c, &se);

	if (err && err != -ENODATA)
		return err;
	out->speed_spin = err ? NAN : expm1(c);
	out->speed_spin_se = err ? NAN : expm1(se);
	if (rs->applied) {
		out->speed_src = PG_SRC_REFS;
		if (err || fabs(c - rs->shift) <= z * se + PG_RSPEED_SPIN_AGREE)
			return 0;
		return warn(out, "the reference spin and the reference functions disagree on the "
			    "machine's speed: %+.1f%% and %+.1f%% (a change of the whole program, "
			    "or functions that follow the machine otherwise than the spin)",
			    100 * expm1(c), 100 * expm1(rs->shift));
	}
	out->speed_src = err ? PG_SRC_UNKNOWN : PG_SRC_SPIN;
	pg_rspeed_fallback(rs, err ? 0 : c, pg_rspeed_spin_error(err ? PG_RSPEED_UNKNOWN : se));
	out->speed_shift = err ? NAN : expm1(c);
	return 0;
}

/*
 * The machine's speed between two recordings compared unpaired into @rs (diff/rspeed.h), and
 * the comparison's speed_ fields. Reference functions as machine_speed() takes them, with the
 * least repetitions a test needs on each side. 0 or a negative errno.
 */
static int run_speed(struct pg_rspeed *rs, struct pg_comparison *out, const struct pg_run *base,
		     const struct pg_run *new, const struct pg_fkey *keys, size_t nkeys,
		     const struct pg_calib *calib, const struct pg_compare_opts *o,
		     bool sets_differ, struct pg_sample *sb, struct pg_sample *sn,
		     struct pg_stats_ws *ws)
{
	size_t n = count_funcs(keys, nkeys), nnull;
	/* every function a reference at most: one allocation of the copies of their logs */
	int err = pg_rspeed_reserve(rs, n, n * (base->nreps + new->nreps));

	for (size_t i = 0, j; !err && i < nkeys; i = j) {
		double time_ns;

		if (!reference(base, new, keys, nkeys, i, &j, calib, o, sets_differ, o->min_reps,
			       sb, sn, &time_ns))
			continue;
		err = pg_rspeed_add(rs, (uint32_t)i, sb->log, sb->pair, sb->n, sn->log, sn->pair,
				    sn->n, time_ns);
	}
	err = err ?: pg_rspeed_finish(rs, o->alpha, o->min_effect, ws);
	err = err ?: pg_rnull_sigma(rs, &rs->null_sigma, &nnull);
	/* too few to estimate it: taken as PG_RNULL_PRIOR, never as none */
	out->speed_spread_prior = !err && !(rs->null_sigma > 0);
	if (out->speed_spread_prior)
		rs->null_sigma = log1p(PG_RNULL_PRIOR);
	out->speed_runs = true;
	out->speed_refs = rs->nrefs;
	out->speed_changed = rs->nchanged;
	out->speed_applied = rs->applied;
	out->speed_shift = rs->applied ? expm1(rs->shift) : NAN;
	out->speed_spread = rs->null_sigma > 0 ? expm1(rs->null_sigma) : NAN;
	out->speed_p = NAN;
	return err ?: spin_speed(rs, out, base, new, o);
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

/* The state of one comparison, shared by its steps. */
struct cmp {
	const struct pg_run *base, *new;
	struct pg_comparison *out;
	struct pg_compare_opts look;	/* the options this look tests at */
	struct pg_sample sb, sn;
	struct pg_stats_ws ws;		/* shared by the functions' tests */
	struct pg_fkey *keys;
	size_t nkeys;
	struct pg_family fam;		/* the Benjamini-Hochberg family */
	struct pg_calib calib;
	struct pg_calibunc unc;		/* the calibration's uncertainty in the intervals */
	struct pg_speed speed;
	struct pg_rspeed rspeed;
	bool sets_differ;
	double wall_ns;
	size_t ncommon;			/* exact functions called in both runs */
};

/* Step 1: the options; out->opts the caller's, x->look this look's. 0 or -EINVAL. */
static int check_options(struct cmp *x, const struct pg_compare_opts *opts)
{
	const struct pg_compare_opts def = PG_COMPARE_OPTS_DEFAULT;
	struct pg_comparison *out = x->out;
	const struct pg_compare_opts *o = &out->opts;

	out->opts = opts ? *opts : def;
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->min_effect >= 0) ||
	    !isfinite(o->min_effect) || !(o->min_impact >= 0) || !isfinite(o->min_impact) ||
	    o->look > o->looks || (o->looks && !o->look)) {
		snprintf(out->error, sizeof(out->error), "invalid options: alpha must be in "
			 "(0, 1), min_effect and min_impact >= 0, look in 1..looks");
		return -EINVAL;
	}
	/* a sequential look tests at its share of alpha (diff/paired.h) */
	x->look = *o;
	x->look.alpha = pg_look_alpha(o);
	return 0;
}

/* Step 2: the buffers, the pairing, the run-level warnings, the joint calibration. */
static int prepare(struct cmp *x)
{
	const struct pg_run *base = x->base, *new = x->new;
	struct pg_comparison *out = x->out;
	char cmd_a[100], cmd_b[100];
	int err;

	out->base_reps = base->nreps;
	out->new_reps = new->nreps;
	x->nkeys = base->nfuncs + new->nfuncs;
	x->keys = malloc((x->nkeys ? x->nkeys : 1) * sizeof(*x->keys));
	if (!x->keys || pg_sample_init(&x->sb, base->nreps) || pg_sample_init(&x->sn, new->nreps))
		return -ENOMEM;
	err = pairing(out, base, new, &x->sb, &x->sn);
	if (err)
		return err;
	/* two recordings made apart: a function's waits for a CPU are the machine's other load */
	out->runq_out = !out->paired && x->look.metric != PG_METRIC_CPU && base->meta.offcpu &&
			new->meta.offcpu;
	x->sb.no_runq = x->sn.no_runq = out->runq_out;
	/* compared all the same, as Google Benchmark's compare.py compares two binaries */
	out->commands_differ = !x->look.commands_differ_ok &&
			       !pg_meta_same_benchmark(&base->meta, &new->meta);
	if (out->commands_differ) {
		pg_meta_command_words(cmd_a, sizeof(cmd_a), &base->meta);
		pg_meta_command_words(cmd_b, sizeof(cmd_b), &new->meta);
		err = warn(out, "the runs are of different commands: '%s' and '%s'", cmd_a, cmd_b);
	}
	err = err ?: warnings(out, base, new);
	if (!err && x->look.metric == PG_METRIC_CPU && (!base->meta.offcpu || !new->meta.offcpu))
		err = warn(out, "--metric cpu: the %s run has no off-CPU time (recorded with "
			   "--no-offcpu or by an older perfgate): its on-CPU time is taken as its "
			   "self time", !base->meta.offcpu ? "base" : "new");
	if (err)
		return err;
	pg_joint_calib(base, new, &x->look, &x->calib);
	out->compensated = x->calib.valid;
	pg_calibunc_init(&x->unc, &base->calib, &new->calib, x->calib.valid);
	if (pg_calibunc_unknown(&x->unc))
		err = warn(out, "%s", pg_calibunc_unknown(&x->unc));
	err = err ?: compare_wall(out, &x->look, base, new, &x->sb, &x->sn, &x->ws, &x->wall_ns);
	if (err)
		return err;
	pg_fkeys_fill(x->keys, base, new);
	err = warn_sets(out, base, new, x->keys, x->nkeys, &x->sets_differ);
	if (err || x->look.no_speed)
		return err;
	if (!out->paired) {
		/* inclusive times nest: a caller's holds its callees' change, no witness of the
		 * machine apart from them */
		if (x->look.metric == PG_METRIC_TOTAL)
			return 0;
		err = run_speed(&x->rspeed, out, base, new, x->keys, x->nkeys, &x->calib,
				&x->look, x->sets_differ, &x->sb, &x->sn, &x->ws);
		x->sb.rspeed = &x->rspeed;
		return err;
	}
	err = machine_speed(&x->speed, out, base, new, x->keys, x->nkeys, &x->calib, &x->look,
			    x->sets_differ, &x->sb, &x->sn);
	x->sb.speed = &x->speed;
	return err;
}

/* A new entry of out->f for the exact function of keys[i..j). 0 or -ENOMEM. */
static int exact_entry(struct cmp *x, size_t i, size_t j, struct pg_fcmp **fp)
{
	const struct pg_fkey *keys = x->keys;
	struct pg_fcmp *f = pg_comparison_add(x->out);

	*fp = f;
	if (!f)
		return -ENOMEM;
	f->binary = strdup(keys[i].binary);
	f->name = strdup(keys[i].name);
	/* the new run's display name: keys of the new side come last in the group */
	f->display = strdup(keys[j - 1].display);
	f->scope = *keys[i].scope ? strdup(keys[i].scope) : NULL;
	if (!f->binary || !f->name || !f->display || (*keys[i].scope && !f->scope))
		return -ENOMEM;
	/* one key a side at most: the base's first */
	if (j - i == 2)
		f->code = pg_code_cmp(keys[i].code, keys[i + 1].code);
	/* the source position: the new run's (last) that is known */
	for (size_t k = j; k-- > i;) {
		if (!keys[k].src_file || !keys[k].src_line)
			continue;
		f->src_file = strdup(keys[k].src_file);
		if (!f->src_file)
			return -ENOMEM;
		f->src_line = keys[k].src_line;
		break;
	}
	return 0;
}

/* Called in one run only: added, removed, or not traced in the other (not judged). */
static void one_side(struct pg_fcmp *f, bool sets_differ, size_t nb, size_t nn, bool in_base)
{
	if (sets_differ && (!nb || !nn)) {
		/* not even listed on the other side: not traced there, not judged */
		f->cause = PG_CAUSE_ONE_SIDE;
		snprintf(f->reason, sizeof(f->reason), "traced only in the %s run (the runs "
			 "chose different functions): not judged", !nn ? "base" : "new");
	} else if (!in_base) {
		f->verdict = PG_VERDICT_ADDED;
		snprintf(f->reason, sizeof(f->reason), "called only in the new run");
	} else {
		f->verdict = PG_VERDICT_REMOVED;
		snprintf(f->reason, sizeof(f->reason), "called only in the base run");
	}
}

/* Step 3: judge the exact function of keys[i..j) (test it, into the family); @nb and @leaf
 * as pg_fkeys_group() gave them. */
static int judge_exact(struct cmp *x, size_t i, size_t j, size_t nb, bool leaf)
{
	const struct pg_compare_opts *o = &x->look;
	const struct pg_fkey *keys = x->keys;
	struct pg_sample *sb = &x->sb, *sn = &x->sn;
	size_t nn = j - i - nb;
	struct pg_fcmp *f;
	int err;

	pg_sample_gather(sb, x->base, keys + i, nb, &x->calib, o->metric, leaf);
	pg_sample_gather(sn, x->new, keys + i + nb, nn, &x->calib, o->metric, leaf);
	if (!sb->n && !sn->n)
		return 0;	/* called in neither run */
	if (sb->speed || sb->rspeed)	/* the part of the machine's speed it may follow */
		sb->share = pg_sample_unblocked(x->base, keys + i, nb, o->metric);
	sb->speed_id = (uint32_t)i;	/* machine_speed()'s id, if a reference */
	err = exact_entry(x, i, j, &f);
	if (err)
		return err;
	f->base_calls = x->base->nreps ? sb->calls / (double)x->base->nreps : 0;
	f->new_calls = x->new->nreps ? sn->calls / (double)x->new->nreps : 0;
	f->calls_changed = f->base_calls != f->new_calls;
	err = pg_analyse(f, sb, sn, o, x->calib.valid, &x->ws);
	if (err < 0)
		return err;
	/* compensated total time does not depend on which callees were traced */
	if (err == 1 && x->sets_differ && (o->metric != PG_METRIC_TOTAL || o->raw) &&
	    pg_callees_differ(f, sb, sb->calls, sn, sn->calls))
		err = 0;
	/* tested or not, its interval is shown; before on_cpu_instead() gathers other samples */
	pg_calibunc_widen(f, &x->unc, sb, sn);
	if (err == 1 && o->metric == PG_METRIC_SELF &&
	    pg_sample_blocked_both(x->base, keys + i, nb, x->new, keys + i + nb, nn) >=
	    PG_SPLIT_BLOCKED) {
		err = on_cpu_instead(f, x->base, x->new, keys + i, nb, nn, &x->calib, leaf, o,
				     &x->ws, sb, sn);
		if (err < 0)
			return err;
		if (f->by_cpu)	/* its interval is of the on-CPU time now */
			pg_calibunc_widen(f, &x->unc, sb, sn);
		err = 1;
	}
	if (err == 1 && pg_family_add(&x->fam, x->out->n - 1, f->p))
		return -ENOMEM;
	pg_impact(f, x->wall_ns);
	err = split_change(f, x->base, x->new, keys + i, nb, nn, &x->calib, o->metric,
			   x->sb.no_runq);
	if (err)
		return err;
	if (sb->n && sn->n)
		x->ncommon++;
	else
		one_side(f, x->sets_differ, nb, nn, sb->n > 0);
	return 0;
}

/* Step 3c: Google Benchmark's benchmarks, in the same family (diff/gbench.h). */
static int judge_benchmarks(struct cmp *x)
{
	size_t *tested = NULL, ntested = 0, ncommon = 0;
	double *p = NULL;
	int err = pg_gb_compare(x->base, x->new, &x->look, &x->ws, x->out, &tested, &p, &ntested,
				&ncommon);

	for (size_t t = 0; !err && t < ntested; t++)
		err = pg_family_add(&x->fam, tested[t], p[t]);
	x->ncommon += ncommon;
	free(tested);
	free(p);
	return err;
}

/*
 * Step 3d: two recordings, each judged function's interval widened by the factor their
 * spread on the z scale gives (diff/rnull.h, pg_rnull_inflation()), or by the prior with too
 * few of them; the whole program's too, which is one more thing that moves between two
 * recordings, though not one of the sample that tells by how much. The functions whose
 * machine code changed are a class of their own (Efron's separate-class null): too few,
 * and not null, to tell their own spread, they keep their test's. Those whose time is mostly
 * the kernel's (diff/kshare.h) are another, widened by at least PG_RNULL_KERNEL_PRIOR.
 * 0 or -ENOMEM.
 */
static int inflate_all(struct cmp *x)
{
	struct pg_comparison *out = x->out;
	size_t n = x->fam.n, used, nsame = 0;
	double *z = calloc(n ? 2 * n : 1, sizeof(*z)), *sample = z + n, lambda;
	int err;

	if (!z)
		return -ENOMEM;
	for (size_t t = 0; t < n; t++) {
		const struct pg_fcmp *f = &out->f[x->fam.idx[t]];

		z[t] = pg_rnull_z(f, x->look.alpha);
		sample[t] = f->origin != PG_ORIGIN_PROGRAM && !pg_gb_is_bench(f) ? z[t] : NAN;
		nsame += isfinite(sample[t]) && f->code == PG_CODE_SAME;
	}
	/* the sample of the null: the functions whose machine code is the same in both builds
	 * when there are enough of them (a function whose code changed is no draw of the
	 * null), else all */
	for (size_t t = 0; t < n && nsame >= PG_RNULL_MIN_REFS; t++)
		if (out->f[x->fam.idx[t]].code != PG_CODE_SAME)
			sample[t] = NAN;
	err = pg_rnull_inflation(sample, n, &lambda, &used);
	if (!err) {
		out->speed_inflation_prior = !(lambda > 0);
		out->speed_inflation = lambda > 0 ? lambda : PG_RNULL_INFLATE_PRIOR;
		out->speed_inflation_n = used;
		for (size_t t = 0; t < n; t++) {
			struct pg_fcmp *f = &out->f[x->fam.idx[t]];
			double by = out->speed_inflation;

			if (pg_gb_is_bench(f) || f->code == PG_CODE_CHANGED) {
				x->fam.p[t] = f->p;
				continue;
			}
			if (pg_kshare_kernel(f)) {	/* the kernel's class (rnull.h) */
				by = fmax(by, PG_RNULL_KERNEL_PRIOR);
				out->speed_kernel_inflation = by;
				out->speed_kernel_n++;
			}
			pg_rnull_inflate(f, z[t], by);
			x->fam.p[t] = f->p;
		}
	}
	free(z);
	return err;
}

/* Step 4: Benjamini-Hochberg over the family, each tested entry's verdict, earlier looks'. */
static int decide_all(struct cmp *x, const struct pg_comparison *prev)
{
	struct pg_comparison *out = x->out;
	int err = pg_bh_adjust(x->fam.p, x->fam.n, x->fam.p);

	if (err)
		return err;
	out->ntested = x->fam.n;
	for (size_t t = 0; t < x->fam.n; t++) {
		struct pg_fcmp *f = &out->f[x->fam.idx[t]];

		f->q = x->fam.p[t];
		pg_decide(f, &x->look, x->wall_ns);
		pg_cpusplit_reason(f);
	}
	for (size_t i = 0; i < out->n; i++)
		pg_calls_words(&out->f[i]);
	pg_program_settle(out);
	/* a sequential look: what an earlier look decided stays decided */
	return pg_keep_decided(out, prev);
}

/* Step 5: what explains the changes that count (the whole program's, traced functions'). */
static int explain(struct cmp *x)
{
	bool *inside = calloc(x->out->n ? x->out->n : 1, sizeof(*inside));
	int err;

	if (!inside)
		return -ENOMEM;
	err = pg_sampled_explain(x->out, x->new, inside);
	err = err ?: pg_inlined_explain(x->out, x->base, x->new);
	err = err ?: pg_cause_explain(x->out, x->base, x->new);
	if (!err)
		pg_program_explain(x->out, inside);
	free(inside);
	return err;
}

/* Room in out->f for an entry per exact function and the whole program's two (its CPU and
 * wall time; the sampled functions grow it as they come). 0 or -ENOMEM. */
static int reserve(struct cmp *x)
{
	return pg_comparison_reserve(x->out, count_funcs(x->keys, x->nkeys) + 2);
}

/* pg_compare() and pg_compare_look() (@prev: the previous look, or NULL). */
static int compare_runs(const struct pg_run *base, const struct pg_run *new,
			const struct pg_compare_opts *opts, const struct pg_comparison *prev,
			struct pg_comparison *out)
{
	struct cmp x = { .base = base, .new = new, .out = out, .ws = PG_STATS_WS_INIT };
	int err;

	pg_comparison_release(out);
	err = check_options(&x, opts);
	if (err)
		return err;
	err = prepare(&x) ?: reserve(&x);
	for (size_t i = 0, j; !err && i < x.nkeys; i = j) {
		size_t nb;
		bool leaf;

		j = pg_fkeys_group(x.keys, x.nkeys, i, base, new, &nb, &leaf);
		err = judge_exact(&x, i, j, nb, leaf);
	}
	err = err ?: pg_compare_sampled(out, base, new, &x.look, x.keys, x.nkeys, x.wall_ns,
					&x.sb, &x.sn, &x.ws, &x.fam);
	err = err ?: pg_compare_program(out, base, new, &x.look, x.sets_differ, x.wall_ns,
					&x.sb, &x.sn, &x.ws, &x.fam);
	err = err ?: judge_benchmarks(&x);
	err = err ?: pg_kshare(out, base, new);
	if (!err && out->speed_runs)
		err = inflate_all(&x);
	err = err ?: decide_all(&x, prev);
	err = err ?: explain(&x);
	if (!err) {
		pg_overall_count(out, base);
		pg_overall_sort(out);
		err = pg_gb_finish(base, new, out);	/* Google Benchmark's benchmarks first */
	}
	if (!err) {
		pg_overall_decide(out, &x.look, x.ncommon);
	} else {
		pg_comparison_release(out);
		snprintf(out->error, sizeof(out->error), "%s", strerror(-err));
	}
	pg_speed_release(&x.speed);
	pg_rspeed_release(&x.rspeed);
	pg_sample_release(&x.sb);
	pg_sample_release(&x.sn);
	pg_stats_ws_release(&x.ws);
	pg_family_release(&x.fam);
	free(x.keys);
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
