// SPDX-License-Identifier: MIT
/*
 * formats/gbench.c - Google Benchmark's JSON output, and the "gbench" table of run files. See
 * gbench.h and docs/run-format.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/jsonw.h"
#include "../core/log.h"
#include "../core/sort.h"
#include "gbench.h"

/* One "iteration" entry of the output, before the runs of one benchmark are pooled. */
struct entry {
	const char *name;	/* borrowed from the tree, or its alias */
	char *alias;		/* NAME#2, ...: a later benchmark of the same NAME (owned) */
	struct json_object *o;
	size_t index;		/* its place in the output: runs keep their order */
	int64_t instance;	/* family_index and per_family_instance_index; -1 without them */
};

/* The members of an entry that are Google Benchmark's own; the other numbers are counters. */
static bool own_key(const char *k)
{
	static const char *const keys[] = {
		"name", "family_index", "per_family_instance_index", "run_name", "run_type",
		"repetitions", "repetition_index", "threads", "iterations", "real_time",
		"cpu_time", "time_unit", "error_occurred", "error_message", "skipped",
		"skip_message", "aggregate_name", "aggregate_unit", "label", "big_o", "rms",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return strcmp(a->name, b->name) ?: (a->index > b->index) - (a->index < b->index);
}

/* ns per unit of Google Benchmark's "time_unit"; 0 for one it does not have */
static double unit_ns(const char *u)
{
	return !strcmp(u, "ns") ? 1 : !strcmp(u, "us") ? 1e3 : !strcmp(u, "ms") ? 1e6 :
	       !strcmp(u, "s") ? 1e9 : 0;
}

/* An entry's state and message */
static int entry_state(const struct pg_jr *jr, struct json_object *o, const char *where,
		       struct pg_gb_value *v)
{
	struct json_object *b;
	const char *msg = NULL;
	int err;

	err = pg_jr_member(jr, o, where, "error_occurred", json_type_boolean, PG_JR_OPTIONAL, &b);
	if (!err && b && json_object_get_boolean(b)) {
		v->state = PG_GB_ERROR;
		err = pg_jr_get_str(jr, o, where, "error_message", PG_JR_OPTIONAL, &msg);
	}
	if (!err && v->state == PG_GB_OK)
		err = pg_jr_member(jr, o, where, "skipped", json_type_boolean, PG_JR_OPTIONAL, &b);
	if (!err && v->state == PG_GB_OK && b && json_object_get_boolean(b)) {
		v->state = PG_GB_SKIPPED;
		err = pg_jr_get_str(jr, o, where, "skip_message", PG_JR_OPTIONAL, &msg);
	}
	if (err || !msg || !*msg || v->message)
		return err;
	v->message = strdup(msg);
	return v->message ? 0 : pg_jr_oom(jr);
}

/* The counters of entry @o (the first run of a benchmark) into @v; values set later */
static int entry_counters(const struct pg_jr *jr, struct json_object *o, struct pg_gb_value *v)
{
	size_t n = 0;

	json_object_object_foreach(o, k, val) {
		if (!own_key(k) && (json_object_is_type(val, json_type_double) ||
				    json_object_is_type(val, json_type_int)))
			n++;
	}
	v->counters = n ? calloc(n, sizeof(*v->counters)) : NULL;
	if (n && !v->counters)
		return pg_jr_oom(jr);
	json_object_object_foreach(o, k2, val2) {
		if (own_key(k2) || !(json_object_is_type(val2, json_type_double) ||
				     json_object_is_type(val2, json_type_int)))
			continue;
		v->counters[v->ncounters].name = strdup(k2);
		if (!v->counters[v->ncounters].name)
			return pg_jr_oom(jr);
		v->ncounters++;
	}
	return 0;
}

/*
 * The value of one benchmark from its runs e[0..k) in this process: the median of each figure
 * (times, iterations, each counter over the runs that have it); @tmp has room for k doubles.
 */
static int pool_runs(const struct pg_jr *jr, const struct entry *e, size_t k, double *tmp,
		     struct pg_gb_value *v)
{
	static const char *const figs[] = { "real_time", "cpu_time", "iterations" };
	double out[3];
	char where[64];
	int err = 0, threads = 1;

	v->name = strdup(e[0].name);
	if (!v->name)
		return pg_jr_oom(jr);
	v->inproc_reps = (uint32_t)k;
	for (size_t i = 0; i < k && !err; i++) {
		snprintf(where, sizeof(where), "benchmarks[%zu]", e[i].index);
		err = entry_state(jr, e[i].o, where, v);
	}
	snprintf(where, sizeof(where), "benchmarks[%zu]", e[0].index);
	err = err ?: entry_counters(jr, e[0].o, v);
	if (!err && json_object_object_get_ex(e[0].o, "threads", NULL))
		err = pg_jr_get_int(jr, e[0].o, where, "threads", 1, 1 << 20, &threads);
	v->threads = (uint32_t)threads;
	for (size_t f = 0; f < 3 && !err; f++) {
		for (size_t i = 0; i < k && !err; i++) {
			const char *unit = NULL;
			double scale = 1;

			snprintf(where, sizeof(where), "benchmarks[%zu]", e[i].index);
			err = pg_jr_get_num(jr, e[i].o, where, figs[f],
					    v->state == PG_GB_OK ? PG_JR_REQUIRED : PG_JR_OPTIONAL,
					    &tmp[i]);
			if (!err && f < 2)
				err = pg_jr_get_str(jr, e[i].o, where, "time_unit", PG_JR_OPTIONAL,
						    &unit);
			if (!err && unit && !(scale = unit_ns(unit)))
				err = pg_jr_bad(jr, where, "unknown \"time_unit\" \"%.20s\"", unit);
			if (!err && isnan(tmp[i]))
				tmp[i] = 0;	/* an errored run's missing figure */
			tmp[i] *= scale;
		}
		if (!err)
			out[f] = pg_median(tmp, k);
	}
	for (size_t c = 0; c < v->ncounters && !err; c++) {
		size_t m = 0;

		for (size_t i = 0; i < k; i++) {
			struct json_object *x;

			if (json_object_object_get_ex(e[i].o, v->counters[c].name, &x) &&
			    !json_object_is_type(x, json_type_null))
				tmp[m++] = json_object_get_double(x);
		}
		v->counters[c].value = m ? pg_median(tmp, m) : 0;
	}
	if (err)
		return err;
	/* a rate over no time is "Infinity" or "NaN" in its output: no figure, left out */
	for (size_t c = 0, kept = 0, n = v->ncounters; c < n; c++) {
		if (isfinite(v->counters[c].value)) {
			v->counters[kept++] = v->counters[c];
			continue;
		}
		free(v->counters[c].name);
		v->ncounters--;
	}
	v->real_ns = out[0];
	v->cpu_ns = out[1];
	v->iterations = out[2] >= 1 ? (uint64_t)llround(out[2]) : v->state == PG_GB_OK;
	if (v->state == PG_GB_OK && (!isfinite(v->real_ns) || !isfinite(v->cpu_ns) ||
				     v->real_ns < 0 || v->cpu_ns < 0))
		return pg_jr_bad(jr, where, "benchmark %s: times must be finite, >= 0", v->name);
	return 0;
}

/* Which registered benchmark entry @o is a run of, into *@instance (-1: it does not say) */
static int entry_instance(const struct pg_jr *jr, struct json_object *o, const char *where,
			  int64_t *instance)
{
	int fam, inst = 0, err;

	*instance = -1;
	if (!json_object_object_get_ex(o, "family_index", NULL))
		return 0;
	err = pg_jr_get_int(jr, o, where, "family_index", 0, 1 << 30, &fam);
	if (!err && json_object_object_get_ex(o, "per_family_instance_index", NULL))
		err = pg_jr_get_int(jr, o, where, "per_family_instance_index", 0, 1 << 30, &inst);
	*instance = ((int64_t)fam << 31) | inst;
	return err;
}

/*
 * Benchmarks registered under one name (spdlog's formatter-bench registers "%l" twice) are
 * told apart by their instance: the runs of the second are named NAME#2, and so on, in the
 * order of the output. @e[0..n) is sorted by name and index, and is again after.
 */
static int name_apart(const struct pg_jr *jr, struct entry *e, size_t n)
{
	static bool said;
	bool any = false;

	for (size_t i = 0, j; i < n; i = j) {
		size_t k = 1;

		for (j = i + 1; j < n && !strcmp(e[i].name, e[j].name); j++) {
			size_t first = i;

			while (e[first].instance != e[j].instance)
				first++;	/* the first run of its instance, maybe itself */
			if (first < j) {	/* a later run of an instance seen before */
				if (e[first].alias && !(e[j].alias = strdup(e[first].alias)))
					return pg_jr_oom(jr);
				continue;
			}
			if (asprintf(&e[j].alias, "%s#%zu", e[i].name, ++k) < 0) {
				e[j].alias = NULL;
				return pg_jr_oom(jr);
			}
			any = true;
			if (!said)
				pg_warn("%s: benchmarks share a name (%s): the second of a name "
					"is judged as %s, the third as NAME#3, ...", jr->name,
					e[i].name, e[j].alias);
			said = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (e[i].alias)
			e[i].name = e[i].alias;
	if (any)
		qsort(e, n, sizeof(*e), cmp_entry);
	return 0;
}

/* The "iteration" entries of the output's "benchmarks" into *e, *n, sorted by name */
static int iteration_entries(const struct pg_jr *jr, struct json_object *root,
			     struct entry **e, size_t *n)
{
	struct json_object *arr;
	size_t len;
	int err;

	*e = NULL;
	*n = 0;
	err = pg_jr_member(jr, root, "", "benchmarks", json_type_array, PG_JR_REQUIRED, &arr);
	if (err)
		return err;
	len = json_object_array_length(arr);
	if (len > PG_GB_MAX_BENCHMARKS * 16)
		return pg_jr_bad(jr, "", "more than %d entries in \"benchmarks\"",
				 PG_GB_MAX_BENCHMARKS * 16);
	*e = calloc(len ? len : 1, sizeof(**e));
	if (!*e)
		return pg_jr_oom(jr);
	for (size_t i = 0; i < len; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		const char *type = NULL, *name = NULL;
		char where[48];

		snprintf(where, sizeof(where), "benchmarks[%zu]", i);
		err = pg_jr_want(jr, o, where, "the entry", json_type_object, PG_JR_REQUIRED);
		err = err ?: pg_jr_get_str(jr, o, where, "run_type", PG_JR_OPTIONAL, &type);
		if (!err && json_object_object_get_ex(o, "run_name", NULL))
			err = pg_jr_get_str(jr, o, where, "run_name", PG_JR_REQUIRED, &name);
		else if (!err)
			err = pg_jr_get_str(jr, o, where, "name", PG_JR_REQUIRED, &name);
		if (err)
			return err;
		if ((type && strcmp(type, "iteration")) ||
		    json_object_object_get_ex(o, "aggregate_name", NULL))
			continue;	/* mean, median, stddev, cv: we take our own */
		if (!*name)
			return pg_jr_bad(jr, where, "a benchmark without a name");
		(*e)[(*n)++] = (struct entry){ name, NULL, o, i, -1 };
		err = entry_instance(jr, o, where, &(*e)[*n - 1].instance);
		if (err)
			return err;
	}
	qsort(*e, *n, sizeof(**e), cmp_entry);
	return name_apart(jr, *e, *n);
}

int pg_gb_parse_output(const char *buf, size_t len, const char *name, struct pg_gb_value **v,
		       size_t *n)
{
	struct pg_jr jr = { .name = name, .context = "Google Benchmark output" };
	struct json_object *root = NULL;
	struct entry *e = NULL;
	double *tmp = NULL;
	size_t ne = 0, nv = 0;
	int err;

	*v = NULL;
	*n = 0;
	err = pg_jr_parse(&jr, "Google Benchmark JSON output", buf, len, &root);
	err = err ?: pg_jr_want(&jr, root, "", "the output", json_type_object, PG_JR_REQUIRED);
	err = err ?: iteration_entries(&jr, root, &e, &ne);
	if (!err && !(tmp = malloc((ne ? ne : 1) * sizeof(*tmp))))
		err = pg_jr_oom(&jr);
	if (!err && !(*v = calloc(ne ? ne : 1, sizeof(**v))))
		err = pg_jr_oom(&jr);
	for (size_t i = 0, j; !err && i < ne; i = j) {
		for (j = i + 1; j < ne && !strcmp(e[i].name, e[j].name); j++)
			;
		if (nv == PG_GB_MAX_BENCHMARKS)
			err = pg_jr_bad(&jr, "", "more than %d benchmarks", PG_GB_MAX_BENCHMARKS);
		else
			err = pool_runs(&jr, e + i, j - i, tmp, &(*v)[nv++]);
	}
	if (!err) {
		pg_gb_sort(*v, nv);
		*n = nv;
	} else {
		pg_gb_values_free(*v, nv);
		*v = NULL;
	}
	free(tmp);
	for (size_t i = 0; i < ne; i++)
		free(e[i].alias);
	free(e);
	json_object_put(root);
	return err;
}

/* ---- the run file's table ---- */

static struct json_object *new_value(const struct pg_gb_value *v)
{
	struct json_object *o = json_object_new_object(), *c = json_object_new_object();

	if (!o || !c)
		goto fail;
	for (size_t k = 0; k < v->ncounters; k++)
		if (pg_json_put_num(c, v->counters[k].name, v->counters[k].value))
			goto fail;
	if (pg_json_put_str(o, "name", v->name) ||
	    pg_json_put_str(o, "state", pg_gb_state_name(v->state)) ||
	    (v->message && pg_json_put_str(o, "message", v->message)) ||
	    pg_json_put_num(o, "real_ns", v->real_ns) ||
	    pg_json_put_num(o, "cpu_ns", v->cpu_ns) ||
	    pg_json_put_u64(o, "iterations", v->iterations) ||
	    pg_json_put_u64(o, "repetitions", v->inproc_reps) ||
	    pg_json_put_u64(o, "threads", v->threads)) {
		goto fail;
	}
	if (pg_json_put(o, "counters", c))
		goto fail_o;
	return o;
fail:
	json_object_put(c);
fail_o:
	json_object_put(o);
	return NULL;
}

int pg_gb_put_rep(struct json_object *o, const struct pg_rep *rep)
{
	struct json_object *a;

	if (!rep->nbench)
		return 0;
	a = pg_json_new_array(rep->nbench);
	for (size_t i = 0; a && i < rep->nbench; i++) {
		if (pg_json_push(a, new_value(&rep->bench[i]))) {
			json_object_put(a);
			a = NULL;
		}
	}
	return a ? pg_json_put(o, "gbench", a) : -ENOMEM;
}

static int read_counters(const struct pg_jr *rd, struct json_object *o, const char *where,
			 struct pg_gb_value *v)
{
	struct json_object *c;
	int err = pg_jr_member(rd, o, where, "counters", json_type_object, PG_JR_OPTIONAL, &c);
	size_t n = c ? (size_t)json_object_object_length(c) : 0;

	if (err || !n)
		return err;
	v->counters = calloc(n, sizeof(*v->counters));
	if (!v->counters)
		return pg_jr_oom(rd);
	json_object_object_foreach(c, k, val) {
		struct pg_gb_counter *x = &v->counters[v->ncounters];
		char what[80];

		snprintf(what, sizeof(what), "counter \"%.40s\"", k);
		err = pg_jr_want(rd, val, where, what, json_type_double, PG_JR_REQUIRED);
		if (err)
			return err;
		x->value = json_object_get_double(val);
		x->name = strdup(k);
		if (!x->name)
			return pg_jr_oom(rd);
		v->ncounters++;
	}
	return 0;
}

static int read_value(const struct pg_jr *rd, struct json_object *o, const char *where,
		      struct pg_gb_value *v)
{
	uint64_t reps = 0, threads = 0;
	int state = 0, err;

	err = pg_jr_want(rd, o, where, "the entry", json_type_object, PG_JR_REQUIRED);
	err = err ?: pg_jr_dup_str(rd, o, where, "name", PG_JR_REQUIRED, &v->name);
	err = err ?: pg_jr_get_enum(rd, o, where, "state", pg_gb_state_name, PG_GB_STATE_COUNT,
				    &state);
	err = err ?: pg_jr_dup_str(rd, o, where, "message", PG_JR_OPTIONAL, &v->message);
	err = err ?: pg_jr_get_num(rd, o, where, "real_ns", PG_JR_REQUIRED, &v->real_ns);
	err = err ?: pg_jr_get_num(rd, o, where, "cpu_ns", PG_JR_REQUIRED, &v->cpu_ns);
	err = err ?: pg_jr_get_u64(rd, o, where, "iterations", UINT64_MAX, &v->iterations);
	err = err ?: pg_jr_get_u64(rd, o, where, "repetitions", UINT32_MAX, &reps);
	err = err ?: pg_jr_opt_u64(rd, o, where, "threads", UINT32_MAX, &threads);
	err = err ?: read_counters(rd, o, where, v);
	v->state = (enum pg_gb_state)state;
	v->inproc_reps = (uint32_t)reps;
	v->threads = threads ? (uint32_t)threads : 1;
	return err;
}

int pg_gb_read_rep(const struct pg_jr *rd, struct json_object *o, const char *where,
		   struct pg_rep *rep)
{
	struct json_object *a;
	char why[160], w[80];
	size_t n;
	int err = pg_jr_member(rd, o, where, "gbench", json_type_array, PG_JR_OPTIONAL, &a);

	if (err || !a)
		return err;
	n = json_object_array_length(a);
	if (n > PG_GB_MAX_BENCHMARKS)
		return pg_jr_bad(rd, where, "more than %d benchmarks", PG_GB_MAX_BENCHMARKS);
	rep->bench = calloc(n ? n : 1, sizeof(*rep->bench));
	if (!rep->bench)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		snprintf(w, sizeof(w), "%s.gbench[%zu]", where, i);
		rep->nbench = i + 1;
		err = read_value(rd, json_object_array_get_idx(a, i), w, &rep->bench[i]);
		if (err)
			return err;
	}
	for (size_t i = 0; i < n; i++)	/* json-c keeps an object's keys in file order */
		pg_gb_sort(&rep->bench[i], 1);
	if (pg_gb_check(rep->bench, rep->nbench, why, sizeof(why)))
		return pg_jr_bad(rd, where, "\"gbench\": %s", why);
	return 0;
}
