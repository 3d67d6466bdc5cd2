// SPDX-License-Identifier: MIT
/* formats/merge.c - combine runs of the same benchmark (formats/merge.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comparison.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "merge.h"

static int dup_str(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

/* The newest run: latest start time; NULL is older than anything; later wins ties. */
static size_t newest(const struct pg_run *const *runs, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++) {
		const char *a = runs[best]->meta.start_time, *b = runs[i]->meta.start_time;

		if (!a || (b && strcmp(b, a) >= 0))
			best = i;
	}
	return best;
}

static int copy_meta(struct pg_meta *dst, const struct pg_meta *src, uint32_t reps)
{
	int err;

	/* scalar options come along; every string is copied below */
	*dst = *src;
	dst->perfgate_version = dst->start_time = dst->host = dst->kernel = NULL;
	dst->cpu_model = dst->git_commit = dst->cwd = dst->functions_of = dst->program = NULL;
	/* a merged run is an ordinary one: its repetitions are no longer one side's pairs */
	dst->ab_session = NULL;
	dst->ab_side = PG_AB_NONE;
	/* what one recording's budget left out is not the merged run's */
	dst->left_out = NULL;
	dst->nleft_out = 0;
	dst->argv = dst->filters = dst->excludes = dst->env = NULL;
	dst->argc = dst->nfilters = dst->nexcludes = dst->nenv = 0;
	dst->spin_workload = NULL;	/* merge_spin() */
	dst->spin = NULL;
	dst->nspin = 0;
	dst->repetitions = reps;
	err = dup_str(&dst->perfgate_version, src->perfgate_version);
	err = err ?: dup_str(&dst->start_time, src->start_time);
	err = err ?: dup_str(&dst->host, src->host);
	err = err ?: dup_str(&dst->kernel, src->kernel);
	err = err ?: dup_str(&dst->cpu_model, src->cpu_model);
	err = err ?: dup_str(&dst->git_commit, src->git_commit);
	err = err ?: dup_str(&dst->cwd, src->cwd);
	err = err ?: dup_str(&dst->program, src->program);
	err = err ?: dup_str(&dst->functions_of, src->functions_of);
	err = err ?: pg_strv_dup(&dst->argv, &dst->argc, src->argv, src->argc);
	err = err ?: pg_strv_dup(&dst->filters, &dst->nfilters, src->filters, src->nfilters);
	err = err ?: pg_strv_dup(&dst->excludes, &dst->nexcludes, src->excludes, src->nexcludes);
	err = err ?: pg_strv_dup(&dst->env, &dst->nenv, src->env, src->nenv);
	return err;
}

/*
 * The id of @f's function among @funcs[0..n), whose ids @idx holds sorted by
 * pg_func_key_cmp(), or -1.
 */
static long find_func(const struct pg_func *funcs, size_t n, const uint32_t *idx,
		      const struct pg_func *f)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = pg_func_key_cmp(&funcs[idx[mid]], f);

		if (!c)
			return (long)idx[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Map run @r's function ids to @out's, adding the functions @out lacks. Functions are matched
 * by (basename(binary), name); @out holds each key once, so @r must too.
 */
static int map_funcs(struct pg_run *out, const struct pg_run *r, const char *name,
		     uint32_t *map, bool *differs)
{
	size_t before = out->nfuncs, seen = 0;
	uint32_t *ridx = pg_run_ids_by_key(r), *idx = pg_run_ids_by_key(out);
	int err = ridx && idx ? 0 : -ENOMEM;

	for (size_t i = 1; i < r->nfuncs && !err; i++) {
		const struct pg_func *f = &r->funcs[ridx[i]];

		if (!pg_func_key_cmp(&r->funcs[ridx[i - 1]], f)) {
			pg_err("%s: two functions are both %s in a binary named %s: cannot tell "
			       "them apart when merging", name, f->display, pg_basename(f->binary));
			err = -EINVAL;
		}
	}
	/* @out grows below, but the functions added are @r's, which need no search */
	for (size_t i = 0; i < r->nfuncs && !err; i++) {
		const struct pg_func *f = &r->funcs[i];
		long id = find_func(out->funcs, before, idx, f);

		if (id >= 0) {
			map[i] = (uint32_t)id;
			seen++;
			continue;
		}
		err = pg_run_add_func(out, f->binary, f->name, f->display, f->addr, f->offset,
				      f->site, f->endbr, &map[i]);
		err = err ?: pg_func_set_src(&out->funcs[map[i]], f->src_file, f->src_line);
		/* display already ends in " [scope]" */
		if (!err && f->scope && !(out->funcs[map[i]].scope = strdup(f->scope)))
			err = -ENOMEM;
	}
	free(ridx);
	free(idx);
	if (err)
		return err;
	/* after the first run: a function was missing from this one, or only this one has it */
	if (before && (seen != before || out->nfuncs != before))
		*differs = true;
	return 0;
}

struct remap {
	uint32_t id;
	const struct pg_fstat *s;
};

static int cmp_remap(const void *a, const void *b)
{
	const struct remap *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Copy @src[0..n) into *dst, *ndst (empty before; counting what is owned so far). */
static int copy_stacks(struct pg_stack **dst, size_t *ndst, const struct pg_stack *src, size_t n)
{
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (dup_str(&(*dst)[i].folded, src[i].folded))
			return -ENOMEM;
		(*dst)[i].count = src[i].count;
		*ndst = i + 1;
	}
	return 0;
}

static int copy_rep(struct pg_run *out, const struct pg_rep *src, const uint32_t *map,
		    struct remap *tmp)
{
	struct pg_rep *rep = pg_run_add_rep(out);

	if (!rep)
		return -ENOMEM;
	rep->wall_ns = src->wall_ns;
	rep->cpu_ns = src->cpu_ns;
	rep->exit_code = src->exit_code;
	rep->signal = src->signal;
	rep->samples = src->samples;
	rep->samples_lost = src->samples_lost;
	rep->samples_truncated = src->samples_truncated;
	if (copy_stacks(&rep->stacks, &rep->nstacks, src->stacks, src->nstacks) ||
	    copy_stacks(&rep->offcpu, &rep->noffcpu, src->offcpu, src->noffcpu) ||
	    pg_gb_values_dup(&rep->bench, &rep->nbench, src->bench, src->nbench))
		return -ENOMEM;
	if (src->nwoken) {
		rep->woken = calloc(src->nwoken, sizeof(*rep->woken));
		if (!rep->woken)
			return -ENOMEM;
		for (size_t i = 0; i < src->nwoken; i++) {
			rep->woken[i] = src->woken[i];
			rep->woken[i].comm = NULL;
			rep->nwoken = i + 1;
			if (dup_str(&rep->woken[i].comm, src->woken[i].comm))
				return -ENOMEM;
		}
	}
	if (src->nthreads) {
		rep->threads = calloc(src->nthreads, sizeof(*rep->threads));
		if (!rep->threads)
			return -ENOMEM;
		for (size_t i = 0; i < src->nthreads; i++) {
			rep->threads[i] = src->threads[i];
			rep->threads[i].comm = NULL;
			rep->nthreads = i + 1;
			if (dup_str(&rep->threads[i].comm, src->threads[i].comm))
				return -ENOMEM;
		}
	}
	/* renumbered ids may change the order: sort before appending */
	for (size_t i = 0; i < src->nstats; i++) {
		tmp[i].id = map[src->stats[i].func];
		tmp[i].s = &src->stats[i];
	}
	qsort(tmp, src->nstats, sizeof(*tmp), cmp_remap);
	for (size_t i = 0; i < src->nstats; i++) {
		struct pg_fstat *s = pg_rep_add_stat(rep, tmp[i].id);

		if (!s)
			return -ENOMEM;
		*s = *tmp[i].s;		/* every count; the histogram is copied next */
		s->func = tmp[i].id;
		pg_hist_init(&s->hist);
		if (pg_hist_merge(&s->hist, &tmp[i].s->hist))
			return -ENOMEM;
	}
	return 0;
}

/* The index of @path in out->objects, added when new; -ENOMEM. */
static long object_index(struct pg_run *out, const char *path)
{
	for (size_t i = 0; i < out->nobjects; i++)
		if (!strcmp(out->objects[i], path))
			return (long)i;
	return pg_strv_push(&out->objects, &out->nobjects, path) ?: (long)out->nobjects - 1;
}

/* Own or inclusive samples v[0..n) of a repetition of @run into *@dst, *@ndst, their objects
 * into out->objects. */
static int copy_owns(struct pg_run *out, const struct pg_run *run, const struct pg_own *v,
		     size_t n, struct pg_own **dst, size_t *ndst)
{
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long o = object_index(out, run->objects[v[i].object]);
		long e = o < 0 ? o : object_index(out, run->objects[v[i].exe]);
		struct pg_own *w = &(*dst)[i];

		if (e < 0 || dup_str(&w->frame, v[i].frame))
			return -ENOMEM;
		w->object = (uint32_t)o;
		w->exe = (uint32_t)e;
		w->count = v[i].count;
		*ndst = i + 1;
	}
	qsort(*dst, *ndst, sizeof(**dst), pg_own_cmp);
	return 0;
}

/*
 * The runs' own samples, when every run has them (else none: sampled time then comes from the
 * stacks of all of them alike), and their inclusive samples likewise, their objects' indices
 * renumbered into one table.
 */
static int merge_own(struct pg_run *out, const struct pg_run *const *runs, size_t n)
{
	bool incl = true;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!runs[i]->nobjects)
			return 0;
		incl &= pg_run_has_incl(runs[i]);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < runs[i]->nreps; r++, k++) {
			const struct pg_rep *src = &runs[i]->reps[r];
			struct pg_rep *rep = &out->reps[k];
			int err;

			err = copy_owns(out, runs[i], src->own, src->nown, &rep->own, &rep->nown);
			if (!err && incl)
				err = copy_owns(out, runs[i], src->incl, src->nincl, &rep->incl,
						&rep->nincl);
			if (err)
				return err;
		}
	return 0;
}

static int cmp_source(const void *a, const void *b)
{
	return strcmp(((const struct pg_source *)a)->frame, ((const struct pg_source *)b)->frame);
}

/* The union of the runs' sources, by frame; the first run's entry wins. */
static int merge_sources(struct pg_run *out, const struct pg_run *const *runs, size_t n)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		total += runs[i]->nsources;
	if (!total)
		return 0;
	out->sources = calloc(total, sizeof(*out->sources));
	if (!out->sources)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < runs[i]->nsources; j++) {
			const struct pg_source *s = &runs[i]->sources[j];
			bool dup = false;

			for (size_t m = 0; m < k && !dup; m++)
				dup = !strcmp(out->sources[m].frame, s->frame);
			if (dup)
				continue;
			out->nsources = k + 1;
			if (dup_str(&out->sources[k].frame, s->frame) ||
			    dup_str(&out->sources[k].file, s->file))
				return -ENOMEM;
			out->sources[k++].line = s->line;
		}
	}
	qsort(out->sources, out->nsources, sizeof(*out->sources), cmp_source);
	return 0;
}

/*
 * Count the functions (by basename of the binary and name) listed in @a only into @only[0],
 * in @b only into @only[1]. 0 or -ENOMEM.
 */
static int count_unshared(const struct pg_run *a, const struct pg_run *b, size_t only[2])
{
	uint32_t *x = pg_run_ids_by_key(a), *y = pg_run_ids_by_key(b);
	size_t i = 0, j = 0;

	only[0] = only[1] = 0;
	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	while (i < a->nfuncs || j < b->nfuncs) {
		int d = i == a->nfuncs ? 1 : j == b->nfuncs ? -1 :
			pg_func_key_cmp(&a->funcs[x[i]], &b->funcs[y[j]]);

		if (d <= 0)
			i++;
		if (d >= 0)
			j++;
		if (d)
			only[d > 0]++;
	}
	free(x);
	free(y);
	return 0;
}

/*
 * --budget chooses the traced functions anew in each recording. Runs whose choices differ
 * cannot be pooled: a caller's self time holds a callee's time in the repetitions that did not
 * trace it and not in the others. When @budget (some run of the merge was recorded with
 * --budget), any difference between the function tables of @a and @b counts (added or removed
 * code cannot be told apart from a different choice). 0, -EINVAL (logged), -ENOMEM.
 */
static int check_budget_sets(const struct pg_run *a, const struct pg_run *b, const char *na,
			     const char *nb, bool budget)
{
	size_t only[2];
	int err;

	if (!budget)
		return 0;
	err = count_unshared(a, b, only);
	if (err || (!only[0] && !only[1]))
		return err;
	pg_err("%s and %s traced different functions (%zu only in %s, %zu only in %s; --budget "
	       "chose them in %s): refusing to merge them, as a caller's self time would hold "
	       "those callees' time in some repetitions and not in others; record every shard "
	       "with the functions of one run (record --functions-of RUN.json)", na, nb, only[0],
	       na, only[1], nb, a->meta.budget_pct > 0 && b->meta.budget_pct > 0 ? "both" :
	       "some of the runs");
	return -EINVAL;
}

static int check_mergeable(const struct pg_run *const *runs, const char *const *names, size_t n)
{
	const struct pg_meta *m0 = &runs[0]->meta;
	char a[81], b[81];
	bool budget = false;
	int err;

	for (size_t i = 0; i < n; i++)
		budget |= runs[i]->meta.budget_pct > 0;
	for (size_t i = 1; i < n; i++) {
		const struct pg_meta *m = &runs[i]->meta;

		if (!pg_meta_same_benchmark(m0, m)) {
			pg_meta_command_words(a, sizeof(a), m0);
			pg_meta_command_words(b, sizeof(b), m);
			pg_err("%s and %s are runs of different commands ('%s' and '%s'): refusing "
			       "to merge them", names[0], names[i], a, b);
			return -EINVAL;
		}
		if (!pg_strv_equal(m0->filters, m0->nfilters, m->filters, m->nfilters) ||
		    !pg_strv_equal(m0->excludes, m0->nexcludes, m->excludes, m->nexcludes)) {
			pg_err("%s and %s traced different functions (their -f/-x options differ): "
			       "refusing to merge them", names[0], names[i]);
			return -EINVAL;
		}
		err = check_budget_sets(runs[0], runs[i], names[0], names[i], budget);
		if (err)
			return err;
		if (runs[i]->hist_compensated != runs[0]->hist_compensated) {
			pg_err("%s has %s latency histograms and %s %s ones (an older perfgate, or "
			       "a recording whose calibration failed): refusing to merge them",
			       names[0],
			       runs[0]->hist_compensated ? "compensated" : "raw", names[i],
			       runs[i]->hist_compensated ? "compensated" : "raw");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The spread of the merged calibration @c (the newest run's): every repetition is compensated
 * with it, while each recording paid its own calls' cost, so a run's spread grows by how far
 * its calibrated cost lies from @c's. Unknown (0) when any run's is.
 */
static void merged_spread(const struct pg_run *const *runs, size_t n, struct pg_calib *c)
{
	for (size_t i = 0; i < n; i++) {
		if (!pg_calib_spread_known(&runs[i]->calib)) {
			memset(c->spread_ns, 0, sizeof(c->spread_ns));
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct pg_calib *r = &runs[i]->calib;

		for (int k = 0; k < PG_SITE_COUNT; k++) {
			double s = r->spread_ns[k] + fabs(r->in_ns[k] + r->out_ns[k] - c->in_ns[k] -
							  c->out_ns[k]);

			c->spread_ns[k] = s > c->spread_ns[k] ? s : c->spread_ns[k];
		}
	}
}

/* The reference spins of every run in the order of their repetitions, when all runs have them
 * of one workload; else none (a witness of part of the repetitions would not be theirs). 0 or
 * -ENOMEM. */
static int merge_spin(struct pg_meta *out, const struct pg_run *const *runs, size_t n)
{
	const char *w = runs[0]->meta.spin_workload;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!runs[i]->meta.nspin || !w || strcmp(runs[i]->meta.spin_workload, w))
			return 0;
	out->spin = malloc((out->repetitions ? out->repetitions : 1) * sizeof(*out->spin));
	if (!out->spin || dup_str(&out->spin_workload, w))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < runs[i]->meta.nspin; r++)
			out->spin[k++] = runs[i]->meta.spin[r];
	out->nspin = k;
	return 0;
}

int pg_run_merge(const struct pg_run *const *runs, const char *const *names, size_t n,
		 struct pg_run *out)
{
	size_t reps = 0, maxstats = 0, nw;
	struct remap *tmp = NULL;
	uint32_t *map = NULL;
	bool differs = false, hosts = false;
	char why[256];
	int err;

	if (!n)
		return -EINVAL;
	err = check_mergeable(runs, names, n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		reps += runs[i]->nreps;
		for (size_t r = 0; r < runs[i]->nreps; r++)
			if (runs[i]->reps[r].nstats > maxstats)
				maxstats = runs[i]->reps[r].nstats;
		hosts |= !runs[0]->meta.host != !runs[i]->meta.host ||
			 (runs[i]->meta.host && strcmp(runs[0]->meta.host, runs[i]->meta.host));
	}
	if (reps > UINT32_MAX) {
		pg_err("merging %zu repetitions: too many", reps);
		return -EINVAL;
	}
	nw = newest(runs, n);
	err = copy_meta(&out->meta, &runs[nw]->meta, (uint32_t)reps);
	out->calib = runs[nw]->calib;
	/* each repetition's histogram stays compensated by its own recording's calibration */
	out->hist_compensated = runs[0]->hist_compensated;
	/* repetitions without measured probe times are compensated the older way, all of them */
	for (size_t i = 0; i < n; i++)
		if (!runs[i]->calib.measured)
			out->calib.measured = false;
	merged_spread(runs, n, &out->calib);
	/* off-CPU time only if every repetition has it */
	for (size_t i = 0; i < n; i++)
		out->meta.offcpu &= runs[i]->meta.offcpu;
	tmp = malloc((maxstats ? maxstats : 1) * sizeof(*tmp));
	if (!tmp)
		err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		map = calloc(runs[i]->nfuncs ? runs[i]->nfuncs : 1, sizeof(*map));
		err = map ? map_funcs(out, runs[i], names[i], map, &differs) : -ENOMEM;
		for (size_t r = 0; r < runs[i]->nreps && !err; r++)
			err = copy_rep(out, &runs[i]->reps[r], map, tmp);
		free(map);
	}
	free(tmp);
	err = err ?: merge_sources(out, runs, n);
	err = err ?: merge_own(out, runs, n);
	err = err ?: merge_spin(&out->meta, runs, n);
	if (!err && pg_run_validate(out, why, sizeof(why))) {
		pg_err("the merged run is not valid: %s", why);
		err = -EINVAL;
	}
	if (err) {
		if (err == -ENOMEM)
			pg_err("merging runs: out of memory");
		pg_run_release(out);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		if (!runs[i]->meta.ab_session)
			continue;
		pg_warn("%s is the %s side of a perfgate ab session: the merged run is an "
			"ordinary run, not paired with the other side", names[i],
			pg_ab_side_name(runs[i]->meta.ab_side));
		break;
	}
	if (hosts)
		pg_warn("the runs come from different hosts: their timings are pooled; compare "
			"against runs from the same kind of machine");
	if (differs)
		pg_warn("the runs' function tables differ (the code changed between them?): a "
			"function missing from a run counts as not called in its repetitions");
	return 0;
}
