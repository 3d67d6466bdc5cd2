// SPDX-License-Identifier: MIT
/*
 * formats/runfile_write.c - writing run files (formats/runfile.h) with json-c and the writer
 * helpers of core/jsonw.h. The writer refuses a run the reader would refuse
 * (pg_runfile_check()), so that every file written can be read back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../core/atomic.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "../core/strbuf.h"
#include "gbench.h"
#include "runfile.h"
#include "runfile_stats.h"
#include "runfile_spin.h"
#include "runfile_woken.h"

/* "ab": {"session": id, "side": "base"|"new"}, perfgate ab's pairing of two files */
static struct json_object *new_ab(const struct pg_meta *m)
{
	struct json_object *ab = json_object_new_object();

	if (!ab || pg_json_put_str(ab, "session", m->ab_session) ||
	    pg_json_put_str(ab, "side", pg_ab_side_name(m->ab_side))) {
		json_object_put(ab);
		return NULL;
	}
	return ab;
}

/* The functions record --budget left out (struct pg_budget_out), or NULL. */
static struct json_object *new_left_out(const struct pg_meta *m)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < m->nleft_out; i++) {
		const struct pg_budget_out *o = &m->left_out[i];
		struct json_object *e = json_object_new_object();

		if (!e || pg_json_put_str(e, "name", o->name) ||
		    pg_json_put_str(e, "binary", o->binary) ||
		    pg_json_put_str(e, "site", pg_site_name(o->site)) ||
		    pg_json_put_num(e, "share", o->share) ||
		    pg_json_put_num(e, "calls", o->calls) ||
		    pg_json_put_num(e, "call_ns", o->call_ns) ||
		    pg_json_put_num(e, "cost_pct", o->cost_pct) ||
		    pg_json_put_num(e, "ref_call_ns", o->ref_call_ns) ||
		    pg_json_put_num(e, "ref_cost_pct", o->ref_cost_pct) ||
		    pg_json_put_num(e, "samples", o->samples) ||
		    pg_json_put_bool(e, "judged", o->judged)) {
			json_object_put(e);
			e = NULL;
		}
		if (pg_json_push(arr, e)) {	/* takes e, or frees it */
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* "environment": {KEY: VALUE...} in the order of m->env (sorted by key) */
static struct json_object *new_env(const struct pg_meta *m)
{
	struct json_object *env = json_object_new_object();
	char key[256];

	for (size_t i = 0; env && i < m->nenv; i++) {
		size_t k = strcspn(m->env[i], "=");

		snprintf(key, sizeof(key), "%.*s", (int)k, m->env[i]);
		if (pg_json_put_utf8(env, key, m->env[i] + k + 1)) {
			json_object_put(env);
			return NULL;
		}
	}
	return env;
}

/*
 * Builders: each returns 0 or -ENOMEM and consumes @v (json-c objects are reference counted;
 * json_object_put(NULL) is a no-op). A NULL @v from a json_object_new_*() is a failure, except
 * through pg_json_put_str() of a NULL string, which writes JSON null.
 */
static struct json_object *new_meta(const struct pg_meta *m)
{
	struct json_object *meta = json_object_new_object();
	struct json_object *opts = json_object_new_object();

	if (!meta || !opts ||
	    pg_json_put_u64(opts, "repetitions", m->repetitions) ||
	    pg_json_put(opts, "functions", pg_json_new_strv(m->filters, m->nfilters)) ||
	    pg_json_put(opts, "exclude", pg_json_new_strv(m->excludes, m->nexcludes)) ||
	    pg_json_put_str(meta, "perfgate_version", m->perfgate_version) ||
	    pg_json_put(meta, "command", pg_json_new_strv(m->argv, m->argc)) ||
	    pg_json_put_str(meta, "start_time", m->start_time) ||
	    pg_json_put_str(meta, "host", m->host) ||
	    pg_json_put_str(meta, "kernel", m->kernel) ||
	    pg_json_put_str(meta, "cpu_model", m->cpu_model) ||
	    pg_json_put_str(meta, "git_commit", m->git_commit) ||
	    pg_json_put_str(meta, "cwd", m->cwd)) {
		json_object_put(meta);
		json_object_put(opts);
		return NULL;
	}
	if ((m->program && pg_json_put_str(meta, "program", m->program)) ||
	    (m->sample_hz && pg_json_put_u64(opts, "sample_hz", m->sample_hz)) ||
	    (m->budget_pct > 0 &&
	     pg_json_put(opts, "budget_pct", json_object_new_double(m->budget_pct))) ||
	    (m->functions_of && pg_json_put_str(opts, "functions_of", m->functions_of)) ||
	    (m->offcpu && pg_json_put(opts, "offcpu", json_object_new_boolean(true)))) {
		json_object_put(meta);
		json_object_put(opts);
		return NULL;
	}
	if (pg_json_put(meta, "options", opts) ||
	    (m->ab_session && pg_json_put(meta, "ab", new_ab(m))) ||
	    (m->nleft_out && pg_json_put(meta, "budget_left_out", new_left_out(m))) ||
	    (m->nenv && pg_json_put(meta, "environment", new_env(m))) ||
	    (m->nspin && pg_json_put(meta, "reference_spin", pg_runfile_new_spin(m)))) {
		json_object_put(meta);
		return NULL;
	}
	return meta;
}

static struct json_object *new_hist_scheme(bool compensated)
{
	struct json_object *h = json_object_new_object();

	if (!h || pg_json_put_str(h, "scheme", PG_RUNFILE_HIST_SCHEME) ||
	    pg_json_put_int(h, "sub_bucket_bits", PG_HIST_SUB_BITS) ||
	    pg_json_put_int(h, "max_exponent", PG_HIST_MAX_EXP) ||
	    pg_json_put_str(h, "durations", compensated ? "compensated" : "raw")) {
		json_object_put(h);
		return NULL;
	}
	return h;
}

static struct json_object *new_func(const struct pg_func *f)
{
	struct json_object *o = json_object_new_object();
	char addr[32], code[32];

	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
	snprintf(code, sizeof(code), "0x%016" PRIx64, f->code);
	if (!o || pg_json_put_u64(o, "id", f->id) ||
	    pg_json_put_str(o, "name", f->name) ||
	    pg_json_put_str(o, "display", f->display) ||
	    pg_json_put_str(o, "binary", f->binary) ||
	    pg_json_put_str(o, "address", addr) ||
	    pg_json_put_u64(o, "offset", f->offset) ||
	    pg_json_put_str(o, "site", pg_site_name(f->site)) ||
	    pg_json_put(o, "endbr", json_object_new_boolean(f->endbr)) ||
	    (f->src_file && f->src_line &&
	     (pg_json_put_str(o, "file", f->src_file) ||
	      pg_json_put_u64(o, "line", f->src_line))) ||
	    (f->scope && pg_json_put_str(o, "scope", f->scope)) ||
	    (f->code && pg_json_put_str(o, "code", code))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *new_calib(const struct pg_calib *c)
{
	struct json_object *o = json_object_new_object();
	bool spread = pg_calib_spread_known(c);

	for (int k = 0; o && k < PG_SITE_COUNT; k++) {
		struct json_object *site = json_object_new_object();

		if (!site || pg_json_put(site, "in_ns", json_object_new_double(c->in_ns[k])) ||
		    pg_json_put(site, "out_ns", json_object_new_double(c->out_ns[k])) ||
		    (c->measured &&
		     pg_json_put(site, "measured_ns", json_object_new_double(c->measured_ns[k]))) ||
		    (spread &&
		     pg_json_put(site, "spread_ns", json_object_new_double(c->spread_ns[k]))) ||
		    pg_json_put(o, pg_site_name((enum pg_site)k), site)) {
			json_object_put(site);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

/* [[folded, count], ...] of @v[0..n), or NULL on ENOMEM. */
static struct json_object *new_stacks(const struct pg_stack *v, size_t n)
{
	struct json_object *stacks = pg_json_new_array(n);

	for (size_t i = 0; stacks && i < n; i++) {
		struct json_object *pair = json_object_new_array_ext(2);

		if (pg_json_push(pair, json_object_new_string(v[i].folded)) ||
		    pg_json_push(pair, json_object_new_uint64(v[i].count)) ||
		    pg_json_push(stacks, pair)) {
			json_object_put(pair);
			json_object_put(stacks);
			return NULL;
		}
	}
	return stacks;
}

/* [[object, exe, frame, count], ...] of a repetition's own or inclusive samples v[0..n), or
 * NULL on ENOMEM. */
static struct json_object *new_owns(const struct pg_own *v, size_t n)
{
	struct json_object *a = pg_json_new_array(n);

	for (size_t i = 0; a && i < n; i++) {
		const struct pg_own *w = &v[i];
		struct json_object *e = json_object_new_array_ext(4);

		if (pg_json_push(e, json_object_new_uint64(w->object)) ||
		    pg_json_push(e, json_object_new_uint64(w->exe)) ||
		    pg_json_push(e, json_object_new_string(w->frame)) ||
		    pg_json_push(e, json_object_new_uint64(w->count)) || pg_json_push(a, e)) {
			json_object_put(e);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* The optional sampled profile of a repetition: "samples", "samples_lost",
 * "samples_truncated" and "stacks": [[folded, count], ...]; nothing when there is none.
 * Then the off-CPU stacks, "offcpu_stacks": [[folded, ns], ...], and who woke their threads
 * ("offcpu_wakers": runfile_woken.h), when there are any. */
static int put_profile(struct json_object *o, const struct pg_rep *rep)
{
	struct json_object *stacks;

	if (rep->noffcpu && pg_json_put(o, "offcpu_stacks", new_stacks(rep->offcpu,
									 rep->noffcpu)))
		return -ENOMEM;
	if (pg_runfile_put_woken(o, rep))
		return -ENOMEM;
	if (rep->nown && pg_json_put(o, "own_samples", new_owns(rep->own, rep->nown)))
		return -ENOMEM;
	if (rep->nincl && pg_json_put(o, "incl_samples", new_owns(rep->incl, rep->nincl)))
		return -ENOMEM;
	if (!rep->samples && !rep->nstacks)
		return 0;
	stacks = new_stacks(rep->stacks, rep->nstacks);
	if (!stacks || pg_json_put_u64(o, "samples", rep->samples) ||
	    pg_json_put_u64(o, "samples_lost", rep->samples_lost) ||
	    pg_json_put_u64(o, "samples_truncated", rep->samples_truncated)) {
		json_object_put(stacks);
		return -ENOMEM;
	}
	return pg_json_put(o, "stacks", stacks);
}

/* The optional threads of a repetition: "threads": [[tid, comm, cpu_ns, runq_ns,
 * blocked_ns], ...]; nothing when there are none. */
static int put_threads(struct json_object *o, const struct pg_rep *rep)
{
	struct json_object *a;

	if (!rep->nthreads)
		return 0;
	a = pg_json_new_array(rep->nthreads);
	for (size_t i = 0; a && i < rep->nthreads; i++) {
		const struct pg_thread *t = &rep->threads[i];
		struct json_object *e = json_object_new_array_ext(5);

		if (pg_json_push(e, json_object_new_uint64(t->tid)) ||
		    pg_json_push(e, json_object_new_string(t->comm)) ||
		    pg_json_push(e, json_object_new_uint64(t->cpu_ns)) ||
		    pg_json_push(e, json_object_new_uint64(t->runq_ns)) ||
		    pg_json_push(e, json_object_new_uint64(t->blocked_ns)) ||
		    pg_json_push(a, e)) {
			json_object_put(e);
			json_object_put(a);
			return -ENOMEM;
		}
	}
	return pg_json_put(o, "threads", a);
}

/* Optional top level "frame_sources": [[frame, file, line], ...]. */
static struct json_object *new_sources(const struct pg_run *run)
{
	struct json_object *a = pg_json_new_array(run->nsources);

	for (size_t i = 0; a && i < run->nsources; i++) {
		struct json_object *t = json_object_new_array_ext(3);

		if (pg_json_push(t, json_object_new_string(run->sources[i].frame)) ||
		    pg_json_push(t, json_object_new_string(run->sources[i].file)) ||
		    pg_json_push(t, json_object_new_uint64(run->sources[i].line)) ||
		    pg_json_push(a, t)) {
			json_object_put(t);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* Optional top level "frame_code": [[frame, digest], ...]. */
static struct json_object *new_codes(const struct pg_run *run)
{
	struct json_object *a = pg_json_new_array(run->ncodes);

	for (size_t i = 0; a && i < run->ncodes; i++) {
		struct json_object *t = json_object_new_array_ext(2);
		char code[32];

		snprintf(code, sizeof(code), "0x%016" PRIx64, run->codes[i].digest);
		if (pg_json_push(t, json_object_new_string(run->codes[i].frame)) ||
		    pg_json_push(t, json_object_new_string(code)) || pg_json_push(a, t)) {
			json_object_put(t);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* A repetition, its statistics as one string of rows in columns @cols; its pair with @ab. */
static struct json_object *new_rep(const struct pg_rep *rep, const struct pg_statcols *cols,
				   bool ab)
{
	struct json_object *o = json_object_new_object();
	struct pg_strbuf rows = PG_STRBUF_INIT;

	if (!o || pg_stats_encode(rep, cols, &rows) ||
	    (ab && (pg_json_put_u64(o, "pair", rep->pair) ||
		    pg_json_put_u64(o, "seq", rep->seq))) ||
	    pg_json_put_u64(o, "wall_ns", rep->wall_ns) ||
	    (rep->cpu_ns && pg_json_put_u64(o, "cpu_ns", rep->cpu_ns)) ||
	    pg_json_put_int(o, "exit_code", rep->exit_code) ||
	    pg_json_put_int(o, "signal", rep->signal) ||
	    pg_json_put(o, "stats", json_object_new_string_len(rows.s, (int)rows.len)) ||
	    put_profile(o, rep) || put_threads(o, rep) ||
	    pg_gb_put_rep(o, rep)) {	/* Google Benchmark's own figures, formats/gbench.h */
		pg_strbuf_release(&rows);
		json_object_put(o);
		return NULL;
	}
	pg_strbuf_release(&rows);
	return o;
}

/* "stat_columns": the names of @cols. */
static struct json_object *new_statcols(const struct pg_statcols *cols)
{
	struct json_object *a = pg_json_new_array(cols->n);

	for (size_t i = 0; a && i < cols->n; i++) {
		if (pg_json_push(a, json_object_new_string(pg_statcol_name(cols->col[i])))) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/*
 * The file is written piece by piece: json-c serializes each function and each repetition
 * (all values and escaping are json-c's), and only the top-level skeleton is written here. So
 * the JSON tree of one repetition is in memory at a time, not that of the whole run.
 */
struct writer {
	FILE *f;
	long long bytes;	/* written so far */
	long long max;		/* pg_runfile_max_bytes() */
	int err;		/* first error: -ENOMEM, -EFBIG or a write error */
};

static void emit_raw(struct writer *w, const char *s, size_t len)
{
	if (w->err)
		return;
	w->bytes += (long long)len;
	if (w->bytes > w->max)
		w->err = -EFBIG;
	else if (fwrite(s, 1, len, w->f) != len)
		w->err = errno ? -errno : -EIO;
}

static void emit_str(struct writer *w, const char *s)
{
	emit_raw(w, s, strlen(s));
}

/* Serialize @v (NULL: allocation failure) and drop it. */
static void emit_obj(struct writer *w, struct json_object *v)
{
	const char *text;
	size_t len;

	if (!v && !w->err)
		w->err = -ENOMEM;
	if (!v || w->err) {
		json_object_put(v);
		return;
	}
	text = json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (text)
		emit_raw(w, text, len);
	else
		w->err = -ENOMEM;
	json_object_put(v);
}

static void emit_run(struct writer *w, const struct pg_run *run)
{
	struct pg_statcols cols;
	char head[64];

	pg_statcols_for_run(run, &cols);
	snprintf(head, sizeof(head), "{\"format\":\"%s\",\"version\":%d,\"meta\":",
		 PG_RUNFILE_FORMAT, PG_RUNFILE_VERSION);
	emit_str(w, head);
	emit_obj(w, new_meta(&run->meta));
	emit_str(w, ",\"histogram\":");
	emit_obj(w, new_hist_scheme(run->hist_compensated));
	if (run->calib.valid) {
		emit_str(w, ",\"calibration\":");
		emit_obj(w, new_calib(&run->calib));
	}
	if (run->nsources) {
		emit_str(w, ",\"frame_sources\":");
		emit_obj(w, new_sources(run));
	}
	if (run->ncodes) {
		emit_str(w, ",\"frame_code\":");
		emit_obj(w, new_codes(run));
	}
	if (run->nobjects) {
		struct json_object *a = pg_json_new_array(run->nobjects);

		for (size_t i = 0; a && i < run->nobjects; i++)
			if (pg_json_push(a, json_object_new_string(run->objects[i]))) {
				json_object_put(a);
				a = NULL;
			}
		emit_str(w, ",\"sampled_objects\":");
		emit_obj(w, a);
	}
	emit_str(w, ",\"functions\":[");
	for (size_t i = 0; i < run->nfuncs && !w->err; i++) {
		if (i)
			emit_str(w, ",");
		emit_obj(w, new_func(&run->funcs[i]));
	}
	emit_str(w, "],\"stat_columns\":");
	emit_obj(w, new_statcols(&cols));
	emit_str(w, ",\"repetitions\":[");
	for (size_t r = 0; r < run->nreps && !w->err; r++) {
		if (r)
			emit_str(w, ",");
		emit_obj(w, new_rep(&run->reps[r], &cols, run->meta.ab_session != NULL));
	}
	emit_str(w, "]}\n");
}

int pg_runfile_write(const struct pg_run *run, const char *path)
{
	struct pg_atomic a;
	const long long limit = pg_runfile_max_bytes();
	/* a recording is not thrown away for the reading limit: up to 1 GiB, with a warning */
	struct writer w = { .max = limit > PG_RUNFILE_WRITE_MAX ? limit : PG_RUNFILE_WRITE_MAX };
	char why[256];
	int err;

	err = pg_runfile_check(run, why, sizeof(why));
	if (err) {
		pg_err("%s: not writing an invalid run: %s", path, why);
		return err;
	}
	errno = 0;
	w.f = pg_atomic_open(&a, path);
	if (!w.f)
		return errno ? -errno : -EIO;
	emit_run(&w, run);
	if (!w.err && w.bytes > limit)
		pg_warn("%s is %lld MiB, over the limit of %lld MiB for reading run files: set "
			"%s=%lld to read it", path, w.bytes >> 20, limit >> 20,
			PG_RUNFILE_MAX_MB_ENV, (w.bytes >> 20) + 1);
	if (!w.err)
		return pg_atomic_commit(&a);
	if (w.err == -EFBIG)
		pg_err("cannot write %s: the run file would be larger than the limit of %lld MiB "
		       "(raise it with %s)", path, w.max >> 20, PG_RUNFILE_MAX_MB_ENV);
	else
		pg_err("cannot write %s: %s", path, strerror(-w.err));
	pg_atomic_abort(&a);
	return w.err;
}
