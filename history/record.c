// SPDX-License-Identifier: MIT
/*
 * history/record.c - a session from a run: its series, as compare tests them (record.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comparison.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../diff/repvalues.h"
#include "../diff/stats.h"
#include "record.h"

const char *pg_hmetric_name(int m)
{
	static const char *const names[] = {
		[PG_HM_SELF] = "self", [PG_HM_TOTAL] = "total", [PG_HM_CPU] = "cpu",
		[PG_HM_CALLS] = "calls", [PG_HM_WALL] = "wall", [PG_HM_PCPU] = "program-cpu",
	};

	return m >= PG_HM_SELF && m <= PG_HM_MAX ? names[m] : NULL;
}

void pg_hrecord_init(struct pg_hrecord *r)
{
	memset(r, 0, sizeof(*r));
}

void pg_hrecord_release(struct pg_hrecord *r)
{
	free(r->commit);
	free(r->branch);
	free(r->time);
	free(r->host);
	free(r->command);
	for (size_t i = 0; i < r->nobjects; i++) {
		free(r->objects[i].binary);
		free(r->objects[i].name);
		free(r->objects[i].scope);
		free(r->objects[i].display);
	}
	free(r->objects);
	pg_strv_free(r->env, r->nenv);
	for (size_t i = 0; i < r->nseries; i++)
		free(r->series[i].v);
	free(r->series);
	pg_hrecord_init(r);
}

const struct pg_hseries *pg_hrecord_find(const struct pg_hrecord *r, uint32_t obj, int metric)
{
	size_t lo = 0, hi = r->nseries;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct pg_hseries *s = &r->series[mid];

		if (s->object == obj && s->metric == metric)
			return s;
		if (s->object < obj || (s->object == obj && s->metric < metric))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Append a series of @n values copied from @v (n > 0). 0 or -ENOMEM. */
static int add_series(struct pg_hrecord *r, uint32_t obj, int metric, const double *v, size_t n,
		      size_t reps)
{
	struct pg_hseries *s = &r->series[r->nseries];
	double sum = 0;

	s->v = malloc(n * sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	memcpy(s->v, v, n * sizeof(*v));
	s->object = obj;
	s->metric = metric;
	s->n = n;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->summary = metric == PG_HM_CALLS ? sum / (double)reps : pg_median(v, n);
	if (isnan(s->summary)) {
		free(s->v);
		return -ENOMEM;
	}
	r->nseries++;
	return 0;
}

static int add_object(struct pg_hrecord *r, const char *binary, const char *name,
		      const char *scope, const char *display)
{
	struct pg_hobject *o = &r->objects[r->nobjects];

	o->binary = strdup(binary);
	o->name = strdup(name);
	o->scope = strdup(scope ? scope : "");
	o->display = strdup(display);
	r->nobjects++;
	return o->binary && o->name && o->scope && o->display ? 0 : -ENOMEM;
}

/* The series of one function (keys[0..nk) of @run) as object @obj. */
static int function_series(struct pg_hrecord *r, const struct pg_run *run,
			   const struct pg_fkey *keys, size_t nk, bool leaf,
			   const struct pg_calib *calib, struct pg_sample *s, double *calls)
{
	static const struct {
		int hm;
		enum pg_metric m;
	} metrics[] = { { PG_HM_SELF, PG_METRIC_SELF }, { PG_HM_TOTAL, PG_METRIC_TOTAL },
			{ PG_HM_CPU, PG_METRIC_CPU } };
	uint32_t obj = (uint32_t)(r->nobjects - 1);
	size_t n = 0;
	int err;

	for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
		if (metrics[k].hm == PG_HM_CPU && !run->meta.offcpu)
			continue;
		pg_sample_gather(s, run, keys, nk, calib, metrics[k].m, leaf);
		if (s->n && (err = add_series(r, obj, metrics[k].hm, s->raw, s->n, run->nreps)))
			return err;
	}
	for (size_t rep = 0; rep < run->nreps; rep++) {
		uint64_t c = 0;

		for (size_t i = 0; i < nk; i++) {
			const struct pg_fstat *st = pg_rep_find(&run->reps[rep], keys[i].id);

			c += st ? st->calls : 0;
		}
		if (c)
			calls[n++] = (double)c;
	}
	return n ? add_series(r, obj, PG_HM_CALLS, calls, n, run->nreps) : 0;
}

/* The whole program's object and series (the last object: "[" sorts after letters). */
static int program_series(struct pg_hrecord *r, const struct pg_run *run, double *v)
{
	const char *prog = run->meta.argc ? pg_basename(run->meta.argv[0]) : "";
	uint32_t obj = (uint32_t)r->nobjects;
	size_t n = 0;
	int err = add_object(r, prog, PG_HPROGRAM, "", PG_HPROGRAM);

	for (size_t i = 0; !err && i < run->nreps; i++)
		if (run->reps[i].wall_ns)
			v[n++] = (double)run->reps[i].wall_ns;
	if (!err && n)
		err = add_series(r, obj, PG_HM_WALL, v, n, run->nreps);
	n = 0;
	for (size_t i = 0; !err && run->meta.offcpu && i < run->nreps; i++) {
		double cpu = 0;

		for (size_t t = 0; t < run->reps[i].nthreads; t++)
			cpu += (double)run->reps[i].threads[t].cpu_ns;
		if (cpu > 0)
			v[n++] = cpu;
	}
	if (!err && n)
		err = add_series(r, obj, PG_HM_PCPU, v, n, run->nreps);
	return err;
}

int pg_hobject_cmp(const void *pa, const void *pb)
{
	const struct pg_hobject *a = pa, *b = pb;

	return strcmp(a->binary, b->binary) ?: strcmp(a->name, b->name) ?:
	       strcmp(a->scope, b->scope);
}

static int cmp_series(const void *pa, const void *pb)
{
	const struct pg_hseries *a = pa, *b = pb;

	if (a->object != b->object)
		return a->object < b->object ? -1 : 1;
	return a->metric - b->metric;
}

/* Sort the objects (the program's among them) and renumber the series after them. */
static int sort_objects(struct pg_hrecord *r)
{
	uint32_t *newid = malloc(r->nobjects * sizeof(*newid));
	struct pg_hobject *sorted = malloc(r->nobjects * sizeof(*sorted));

	if (!newid || !sorted) {
		free(newid);
		free(sorted);
		return -ENOMEM;
	}
	memcpy(sorted, r->objects, r->nobjects * sizeof(*sorted));
	qsort(sorted, r->nobjects, sizeof(*sorted), pg_hobject_cmp);
	/* keys are unique: each object's new place by its key */
	for (size_t i = 0; i < r->nobjects; i++) {
		struct pg_hobject key = r->objects[i];
		struct pg_hobject *at = bsearch(&key, sorted, r->nobjects, sizeof(*sorted),
						pg_hobject_cmp);

		newid[i] = (uint32_t)(at - sorted);
	}
	for (size_t i = 0; i < r->nseries; i++)
		r->series[i].object = newid[r->series[i].object];
	qsort(r->series, r->nseries, sizeof(*r->series), cmp_series);
	free(r->objects);
	r->objects = sorted;
	free(newid);
	return 0;
}

/* r->env: @m's environment, its kernel and CPU model among the entries. 0 or -ENOMEM. */
static int set_env(struct pg_hrecord *r, const struct pg_meta *m)
{
	struct pg_meta e = { 0 };
	int err = pg_strv_dup(&e.env, &e.nenv, m->env, m->nenv);

	if (!err && m->kernel)
		err = pg_env_set(&e, "kernel", m->kernel);
	if (!err && m->cpu_model)
		err = pg_env_set(&e, "cpu_model", m->cpu_model);
	r->env = e.env;
	r->nenv = e.nenv;
	return err;
}

static int set_meta(struct pg_hrecord *r, const struct pg_run *run, const char *commit,
		    const char *branch, const char *time)
{
	char cmd[4096];

	if (!time && !run->meta.start_time) {
		pg_err("history: the run has no start time; give one with --time");
		return -EINVAL;
	}
	commit = commit ? commit : run->meta.git_commit;
	pg_meta_command_words(cmd, sizeof(cmd), &run->meta);
	r->commit = commit ? strdup(commit) : NULL;
	r->branch = branch ? strdup(branch) : NULL;
	r->time = strdup(time ? time : run->meta.start_time);
	r->host = strdup(run->meta.host ? run->meta.host : "");
	r->command = strdup(cmd);
	r->reps = (uint32_t)run->nreps;
	if ((commit && !r->commit) || (branch && !r->branch) || !r->time || !r->host ||
	    !r->command)
		return -ENOMEM;
	return set_env(r, &run->meta);
}

int pg_hrecord_from_run(struct pg_hrecord *r, const struct pg_run *run, const char *commit,
			const char *branch, const char *time)
{
	const struct pg_compare_opts opts = PG_COMPARE_OPTS_DEFAULT;
	struct pg_run none;
	struct pg_fkey *keys = malloc((run->nfuncs + 1) * sizeof(*keys));
	double *vals = malloc((run->nreps + 1) * sizeof(*vals));
	struct pg_sample s = { 0 };
	struct pg_calib calib;
	int err = set_meta(r, run, commit, branch, time);

	pg_run_init(&none);
	r->objects = calloc(run->nfuncs + 1, sizeof(*r->objects));
	r->series = calloc(4 * run->nfuncs + 2, sizeof(*r->series));
	if (!err && (!keys || !vals || !r->objects || !r->series ||
		     pg_sample_init(&s, run->nreps + 1)))
		err = -ENOMEM;
	pg_joint_calib(run, run, &opts, &calib);
	if (!err)
		pg_fkeys_fill(keys, run, &none);
	for (size_t i = 0, j; !err && i < run->nfuncs; i = j) {
		size_t nb;
		bool leaf;

		j = pg_fkeys_group(keys, run->nfuncs, i, run, &none, &nb, &leaf);
		err = add_object(r, keys[i].binary, keys[i].name, keys[i].scope,
				 keys[i].display);
		err = err ?: function_series(r, run, keys + i, j - i, leaf, &calib, &s, vals);
	}
	err = err ?: program_series(r, run, vals);
	err = err ?: sort_objects(r);
	if (err == -ENOMEM)
		pg_err("history: out of memory");
	if (err)
		pg_hrecord_release(r);
	pg_sample_release(&s);
	free(keys);
	free(vals);
	return err;
}
