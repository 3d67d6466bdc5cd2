// SPDX-License-Identifier: MIT
/*
 * formats/runfile.c - run files: struct pg_run <-> JSON with json-c. The format is described
 * field by field in docs/run-format.md; keep the two in step.
 *
 * The reader is strict about everything it knows (types, ranges, order, the invariants of
 * core/run.h) and ignores keys it does not know, so that later versions can add optional keys
 * (sampled stacks, calibration, ...) without breaking older readers. The writer refuses a run
 * the reader would refuse, so every file written can be read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../core/atomic.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "runfile.h"

#define HIST_SCHEME "log-linear"
#define EXIT_CODE_MIN (-1)	/* -1: the root process did not exit by itself */
#define EXIT_CODE_MAX 255
#define SIGNAL_MAX 127		/* WTERMSIG() is 7 bits wide */

/* ---- checks shared by the reader and the writer ---- */

static int cmp_func_ptr(const void *a, const void *b)
{
	const struct pg_func *fa = *(const struct pg_func *const *)a;
	const struct pg_func *fb = *(const struct pg_func *const *)b;
	int c = strcmp(fa->binary, fb->binary);

	return c ? c : strcmp(fa->name, fb->name);
}

/* No two functions share (binary, name): pg_run_validate() does not check this one. */
static int check_unique_funcs(const struct pg_run *run, char *why, size_t whylen)
{
	const struct pg_func **v;
	int err = 0;

	if (run->nfuncs < 2)
		return 0;
	v = malloc(run->nfuncs * sizeof(*v));
	if (!v) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < run->nfuncs; i++)
		v[i] = &run->funcs[i];
	qsort(v, run->nfuncs, sizeof(*v), cmp_func_ptr);
	for (size_t i = 1; i < run->nfuncs; i++) {
		if (!cmp_func_ptr(&v[i - 1], &v[i])) {
			snprintf(why, whylen, "functions %u and %u are both %s in %s", v[i - 1]->id,
				 v[i]->id, v[i]->name, v[i]->binary);
			err = -EINVAL;
			break;
		}
	}
	free(v);
	return err;
}

static int check_strv(char *const *v, size_t n, const char *what, char *why, size_t whylen)
{
	if (n && !v) {
		snprintf(why, whylen, "%s is missing", what);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i]) {
			snprintf(why, whylen, "%s[%zu] is missing", what, i);
			return -EINVAL;
		}
	}
	return 0;
}

/* pg_run_validate() plus what the file format adds to it. */
static int check_run(const struct pg_run *run, char *why, size_t whylen)
{
	const struct pg_meta *m = &run->meta;
	int err = pg_run_validate(run, why, whylen);

	if (!err)
		err = check_strv(m->argv, m->argc, "command", why, whylen);
	if (!err)
		err = check_strv(m->filters, m->nfilters, "options.functions", why, whylen);
	if (!err)
		err = check_strv(m->excludes, m->nexcludes, "options.exclude", why, whylen);
	if (err)
		return err;
	for (size_t i = 0; i < run->nfuncs; i++) {
		if (!*run->funcs[i].name || !*run->funcs[i].binary) {
			snprintf(why, whylen, "function %zu has an empty name or binary", i);
			return -EINVAL;
		}
	}
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t k = 0; k < run->reps[r].nstats; k++) {
			const struct pg_fstat *st = &run->reps[r].stats[k];
			unsigned __int128 lo = (unsigned __int128)st->min_ns * st->calls;
			unsigned __int128 hi = (unsigned __int128)st->max_ns * st->calls;

			/* every call lasted min_ns..max_ns (a 0 ns call is kept as min 1 ns) */
			if (st->total_ns > hi || (unsigned __int128)st->total_ns + st->calls < lo) {
				snprintf(why, whylen, "repetition %zu, function %u: \"total_ns\" %"
					 PRIu64 " is not between calls x min_ns and calls x max_ns",
					 r, st->func, st->total_ns);
				return -EINVAL;
			}
		}
	}
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		if (rep->exit_code < EXIT_CODE_MIN || rep->exit_code > EXIT_CODE_MAX ||
		    rep->signal < 0 || rep->signal > SIGNAL_MAX) {
			snprintf(why, whylen, "repetition %zu: exit code %d or signal %d is out of "
				 "range", r, rep->exit_code, rep->signal);
			return -EINVAL;
		}
	}
	return check_unique_funcs(run, why, whylen);
}

/* ---- writing ---- */

/*
 * Builders: each returns 0 or -ENOMEM and consumes @v (json-c objects are reference counted;
 * json_object_put(NULL) is a no-op). A NULL @v from a json_object_new_*() is a failure, except
 * through pg_json_put_str() of a NULL string, which writes JSON null.
 */
static int put_u64(struct json_object *obj, const char *key, uint64_t v)
{
	return pg_json_put(obj, key, json_object_new_uint64(v));
}

static int put_int(struct json_object *obj, const char *key, int64_t v)
{
	return pg_json_put(obj, key, json_object_new_int64(v));
}

/* An empty array with room for @n elements (a hint only). */
static struct json_object *new_array(size_t n)
{
	return json_object_new_array_ext(n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n);
}

static struct json_object *new_strv(char *const *v, size_t n)
{
	struct json_object *arr = new_array(n);

	for (size_t i = 0; arr && i < n; i++) {
		if (pg_json_push(arr, json_object_new_string(v[i]))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static struct json_object *new_meta(const struct pg_meta *m)
{
	struct json_object *meta = json_object_new_object();
	struct json_object *opts = json_object_new_object();

	if (!meta || !opts ||
	    put_u64(opts, "repetitions", m->repetitions) ||
	    pg_json_put(opts, "functions", new_strv(m->filters, m->nfilters)) ||
	    pg_json_put(opts, "exclude", new_strv(m->excludes, m->nexcludes)) ||
	    pg_json_put_str(meta, "perfgate_version", m->perfgate_version) ||
	    pg_json_put(meta, "command", new_strv(m->argv, m->argc)) ||
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
	if ((m->sample_hz && put_u64(opts, "sample_hz", m->sample_hz)) ||
	    (m->budget_pct > 0 &&
	     pg_json_put(opts, "budget_pct", json_object_new_double(m->budget_pct))) ||
	    (m->functions_of && pg_json_put_str(opts, "functions_of", m->functions_of))) {
		json_object_put(meta);
		json_object_put(opts);
		return NULL;
	}
	if (pg_json_put(meta, "options", opts)) {
		json_object_put(meta);
		return NULL;
	}
	return meta;
}

static struct json_object *new_hist_scheme(bool compensated)
{
	struct json_object *h = json_object_new_object();

	if (!h || pg_json_put_str(h, "scheme", HIST_SCHEME) ||
	    put_int(h, "sub_bucket_bits", PG_HIST_SUB_BITS) ||
	    put_int(h, "max_exponent", PG_HIST_MAX_EXP) ||
	    (compensated && pg_json_put_str(h, "durations", "compensated"))) {
		json_object_put(h);
		return NULL;
	}
	return h;
}

static struct json_object *new_func(const struct pg_func *f)
{
	struct json_object *o = json_object_new_object();
	char addr[32];

	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
	if (!o || put_u64(o, "id", f->id) ||
	    pg_json_put_str(o, "name", f->name) ||
	    pg_json_put_str(o, "display", f->display) ||
	    pg_json_put_str(o, "binary", f->binary) ||
	    pg_json_put_str(o, "address", addr) ||
	    put_u64(o, "offset", f->offset) ||
	    pg_json_put_str(o, "site", pg_site_name(f->site)) ||
	    pg_json_put(o, "endbr", json_object_new_boolean(f->endbr)) ||
	    (f->src_file && f->src_line &&
	     (pg_json_put_str(o, "file", f->src_file) || put_u64(o, "line", f->src_line)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *new_hist(const struct pg_hist *h)
{
	struct json_object *arr = new_array(h->n);

	for (size_t i = 0; arr && i < h->n; i++) {
		struct json_object *pair = new_array(2);

		if (!pair || pg_json_push(pair, json_object_new_int64(h->idx[i])) ||
		    pg_json_push(pair, json_object_new_uint64(h->count[i]))) {
			json_object_put(pair);
			json_object_put(arr);
			return NULL;
		}
		if (pg_json_push(arr, pair)) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* Per-site counts as an object {"nop5": n, ...}, zeros left out. */
static struct json_object *new_site_counts(const uint64_t v[PG_SITE_COUNT])
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; o && k < PG_SITE_COUNT; k++) {
		if (v[k] && put_u64(o, pg_site_name((enum pg_site)k), v[k])) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

static struct json_object *new_calib(const struct pg_calib *c)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; o && k < PG_SITE_COUNT; k++) {
		struct json_object *site = json_object_new_object();

		if (!site || pg_json_put(site, "in_ns", json_object_new_double(c->in_ns[k])) ||
		    pg_json_put(site, "out_ns", json_object_new_double(c->out_ns[k])) ||
		    (c->measured &&
		     pg_json_put(site, "measured_ns", json_object_new_double(c->measured_ns[k]))) ||
		    pg_json_put(o, pg_site_name((enum pg_site)k), site)) {
			json_object_put(site);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

static struct json_object *new_fstat(const struct pg_fstat *s)
{
	struct json_object *o = json_object_new_object();

	if (!o || put_u64(o, "id", s->func) ||
	    put_u64(o, "calls", s->calls) ||
	    put_u64(o, "total_ns", s->total_ns) ||
	    put_u64(o, "self_ns", s->self_ns) ||
	    put_u64(o, "min_ns", s->min_ns) ||
	    put_u64(o, "max_ns", s->max_ns) ||
	    pg_json_put(o, "desc", new_site_counts(s->desc)) ||
	    pg_json_put(o, "kids", new_site_counts(s->kids)) ||
	    (s->probe_ns && put_u64(o, "probe_ns", s->probe_ns)) ||
	    (s->desc_probe_ns && put_u64(o, "desc_probe_ns", s->desc_probe_ns)) ||
	    (s->kids_probe_ns && put_u64(o, "kids_probe_ns", s->kids_probe_ns)) ||
	    pg_json_put(o, "hist", new_hist(&s->hist))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The optional sampled profile of a repetition: "samples", "samples_lost",
 * "samples_truncated" and "stacks": [[folded, count], ...]; nothing when there is none. */
static int put_profile(struct json_object *o, const struct pg_rep *rep)
{
	struct json_object *stacks;

	if (!rep->samples && !rep->nstacks)
		return 0;
	stacks = new_array(rep->nstacks);
	for (size_t i = 0; stacks && i < rep->nstacks; i++) {
		struct json_object *pair = json_object_new_array_ext(2);

		if (pg_json_push(pair, json_object_new_string(rep->stacks[i].folded)) ||
		    pg_json_push(pair, json_object_new_uint64(rep->stacks[i].count)) ||
		    pg_json_push(stacks, pair)) {
			json_object_put(pair);
			json_object_put(stacks);
			return -ENOMEM;
		}
	}
	if (!stacks || put_u64(o, "samples", rep->samples) ||
	    put_u64(o, "samples_lost", rep->samples_lost) ||
	    put_u64(o, "samples_truncated", rep->samples_truncated)) {
		json_object_put(stacks);
		return -ENOMEM;
	}
	return pg_json_put(o, "stacks", stacks);
}

/* Optional top level "frame_sources": [[frame, file, line], ...]. */
static struct json_object *new_sources(const struct pg_run *run)
{
	struct json_object *a = new_array(run->nsources);

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

static struct json_object *new_rep(const struct pg_rep *rep)
{
	struct json_object *o = json_object_new_object();
	struct json_object *stats = new_array(rep->nstats);

	for (size_t i = 0; stats && i < rep->nstats; i++) {
		if (pg_json_push(stats, new_fstat(&rep->stats[i]))) {
			json_object_put(stats);
			stats = NULL;
		}
	}
	if (!o || !stats || put_u64(o, "wall_ns", rep->wall_ns) ||
	    put_int(o, "exit_code", rep->exit_code) ||
	    put_int(o, "signal", rep->signal)) {
		json_object_put(o);
		json_object_put(stats);
		return NULL;
	}
	if (pg_json_put(o, "functions", stats) || put_profile(o, rep)) {
		json_object_put(o);
		return NULL;
	}
	return o;
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
	char head[64];

	snprintf(head, sizeof(head), "{\"format\":\"%s\",\"version\":%d,\"meta\":",
		 PG_RUNFILE_FORMAT, run->hist_compensated ? 2 : 1);
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
	emit_str(w, ",\"functions\":[");
	for (size_t i = 0; i < run->nfuncs && !w->err; i++) {
		if (i)
			emit_str(w, ",");
		emit_obj(w, new_func(&run->funcs[i]));
	}
	emit_str(w, "],\"repetitions\":[");
	for (size_t r = 0; r < run->nreps && !w->err; r++) {
		if (r)
			emit_str(w, ",");
		emit_obj(w, new_rep(&run->reps[r]));
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

	err = check_run(run, why, sizeof(why));
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

/* ---- reading ---- */

struct reader {
	const char *path;
};

/* Log "PATH: WHERE: what is wrong" and return -EINVAL. @where is a JSON path, may be "". */
static int bad(const struct reader *rd, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct reader *rd, const char *where, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (*where)
		pg_err("%s: %s: %s", rd->path, where, msg);
	else
		pg_err("%s: %s", rd->path, msg);
	return -EINVAL;
}

static int oom(const struct reader *rd)
{
	pg_err("%s: out of memory", rd->path);
	return -ENOMEM;
}

static const char *type_name(enum json_type t)
{
	switch (t) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a fractional number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "unknown";
}

/* Value @v (named @what inside @where) must be of type @t (or null, if @nullable). */
static int want(const struct reader *rd, struct json_object *v, const char *where,
		const char *what, enum json_type t, bool nullable)
{
	enum json_type vt = json_object_get_type(v);

	if (vt == t || (nullable && vt == json_type_null))
		return 0;
	return bad(rd, where, "%s must be %s%s, not %s", what, type_name(t),
		   nullable ? " or null" : "", type_name(vt));
}

/* Member @key of object @obj, of type @t (or null, if @nullable). */
static int member(const struct reader *rd, struct json_object *obj, const char *where,
		  const char *key, enum json_type t, bool nullable, struct json_object **out)
{
	char what[64];

	if (!json_object_object_get_ex(obj, key, out))
		return bad(rd, where, "\"%s\" is missing", key);
	snprintf(what, sizeof(what), "\"%s\"", key);
	return want(rd, *out, where, what, t, nullable);
}

/* An integer in [0, @max]. json-c reads integers beyond 2^64 - 1 as 2^64 - 1. */
static int to_u64(const struct reader *rd, struct json_object *v, const char *where,
		  const char *what, uint64_t max, uint64_t *out)
{
	int err = want(rd, v, where, what, json_type_int, false);

	if (err)
		return err;
	if (json_object_get_int64(v) < 0)
		return bad(rd, where, "%s must not be negative (it is %" PRId64 ")", what,
			   json_object_get_int64(v));
	*out = json_object_get_uint64(v);
	if (*out > max)
		return bad(rd, where, "%s is out of range (%" PRIu64 " > %" PRIu64 ")", what,
			   *out, max);
	return 0;
}

static int get_u64(const struct reader *rd, struct json_object *obj, const char *where,
		   const char *key, uint64_t max, uint64_t *out)
{
	struct json_object *v;
	char what[64];
	int err = member(rd, obj, where, key, json_type_int, false, &v);

	if (err)
		return err;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return to_u64(rd, v, where, what, max, out);
}

/* An integer in [@lo, @hi] (both within int range). */
static int get_int(const struct reader *rd, struct json_object *obj, const char *where,
		   const char *key, int lo, int hi, int *out)
{
	struct json_object *v;
	int64_t x;
	int err = member(rd, obj, where, key, json_type_int, false, &v);

	if (err)
		return err;
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return bad(rd, where, "\"%s\" is out of range (%" PRId64 " is not in %d..%d)", key,
			   x, lo, hi);
	*out = (int)x;
	return 0;
}

/* A string without NUL characters (C strings cannot hold them); NULL for JSON null. */
static int to_str(const struct reader *rd, struct json_object *v, const char *where,
		  const char *what, bool nullable, const char **out)
{
	int err = want(rd, v, where, what, json_type_string, nullable);

	if (err)
		return err;
	*out = NULL;
	if (!v)
		return 0;
	*out = json_object_get_string(v);
	if (strlen(*out) != (size_t)json_object_get_string_len(v))
		return bad(rd, where, "%s contains a NUL character", what);
	return 0;
}

static int get_str(const struct reader *rd, struct json_object *obj, const char *where,
		   const char *key, bool nullable, const char **out)
{
	struct json_object *v;
	char what[64];
	int err = member(rd, obj, where, key, json_type_string, nullable, &v);

	if (err)
		return err;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return to_str(rd, v, where, what, nullable, out);
}

/* A string, or null if @nullable; *out is a copy (NULL for null). */
static int dup_str(const struct reader *rd, struct json_object *obj, const char *where,
		   const char *key, bool nullable, char **out)
{
	const char *s;
	int err = get_str(rd, obj, where, key, nullable, &s);

	if (err || !s)
		return err;
	*out = strdup(s);
	return *out ? 0 : oom(rd);
}

/* An array of strings into a new vector; *n counts the entries filled so far. */
static int dup_strv(const struct reader *rd, struct json_object *obj, const char *where,
		    const char *key, char ***v, size_t *n)
{
	struct json_object *arr;
	size_t len;
	int err = member(rd, obj, where, key, json_type_array, false, &arr);

	if (err)
		return err;
	len = json_object_array_length(arr);
	*v = calloc(len ? len : 1, sizeof(**v));
	if (!*v)
		return oom(rd);
	for (size_t i = 0; i < len; i++) {
		char what[80];
		const char *s;

		snprintf(what, sizeof(what), "\"%s\"[%zu]", key, i);
		err = to_str(rd, json_object_array_get_idx(arr, i), where, what, false, &s);
		if (err)
			return err;
		(*v)[i] = strdup(s);
		if (!(*v)[i])
			return oom(rd);
		*n = i + 1;
	}
	return 0;
}

static int read_meta(const struct reader *rd, struct json_object *root, struct pg_meta *m)
{
	struct json_object *meta, *opts, *v;
	uint64_t reps;
	int err;

	err = member(rd, root, "", "meta", json_type_object, false, &meta);
	err = err ?: dup_str(rd, meta, "meta", "perfgate_version", true, &m->perfgate_version);
	err = err ?: dup_strv(rd, meta, "meta", "command", &m->argv, &m->argc);
	err = err ?: dup_str(rd, meta, "meta", "start_time", true, &m->start_time);
	err = err ?: dup_str(rd, meta, "meta", "host", true, &m->host);
	err = err ?: dup_str(rd, meta, "meta", "kernel", true, &m->kernel);
	err = err ?: dup_str(rd, meta, "meta", "cpu_model", true, &m->cpu_model);
	err = err ?: dup_str(rd, meta, "meta", "git_commit", true, &m->git_commit);
	err = err ?: dup_str(rd, meta, "meta", "cwd", true, &m->cwd);
	err = err ?: member(rd, meta, "meta", "options", json_type_object, false, &opts);
	err = err ?: get_u64(rd, opts, "meta.options", "repetitions", UINT32_MAX, &reps);
	err = err ?: dup_strv(rd, opts, "meta.options", "functions", &m->filters, &m->nfilters);
	err = err ?: dup_strv(rd, opts, "meta.options", "exclude", &m->excludes, &m->nexcludes);
	if (!err && json_object_object_get_ex(opts, "sample_hz", &v)) {
		uint64_t hz;

		err = to_u64(rd, v, "meta.options", "\"sample_hz\"", UINT32_MAX, &hz);
		m->sample_hz = (uint32_t)hz;
	}
	if (!err && json_object_object_get_ex(opts, "budget_pct", &v)) {
		enum json_type t = json_object_get_type(v);

		m->budget_pct = json_object_get_double(v);
		if ((t != json_type_double && t != json_type_int) ||
		    !(m->budget_pct > 0 && m->budget_pct <= 1000))
			err = bad(rd, "meta.options",
				  "\"budget_pct\" must be a number in (0, 1000]");
	}
	if (!err && json_object_object_get_ex(opts, "functions_of", &v))
		err = dup_str(rd, opts, "meta.options", "functions_of", false, &m->functions_of);
	if (!err && !m->argc)
		err = bad(rd, "meta", "\"command\" is empty");
	if (!err)
		m->repetitions = (uint32_t)reps;
	return err;
}

/*
 * The histogram scheme must be the one this perfgate was built with. "durations": "raw" or
 * "compensated" (struct pg_run.hist_compensated), required from @version 2 on; version-1
 * histograms are raw.
 */
static int read_hist_scheme(const struct reader *rd, struct json_object *root, int64_t version,
			    bool *comp)
{
	struct json_object *h, *v;
	const char *scheme, *dur = "raw";
	uint64_t bits, maxexp;
	int err;

	err = member(rd, root, "", "histogram", json_type_object, false, &h);
	err = err ?: get_str(rd, h, "histogram", "scheme", false, &scheme);
	err = err ?: get_u64(rd, h, "histogram", "sub_bucket_bits", 64, &bits);
	err = err ?: get_u64(rd, h, "histogram", "max_exponent", 64, &maxexp);
	if (err)
		return err;
	if (strcmp(scheme, HIST_SCHEME) || bits != PG_HIST_SUB_BITS || maxexp != PG_HIST_MAX_EXP)
		return bad(rd, "histogram", "unsupported histogram scheme %s/%" PRIu64 "/%" PRIu64
			   " (this perfgate reads %s with sub_bucket_bits %d, max_exponent %d)",
			   scheme, bits, maxexp, HIST_SCHEME, PG_HIST_SUB_BITS, PG_HIST_MAX_EXP);
	if ((version >= 2 || json_object_object_get_ex(h, "durations", &v)) &&
	    get_str(rd, h, "histogram", "durations", false, &dur))
		return -EINVAL;
	if (strcmp(dur, "raw") && strcmp(dur, "compensated"))
		return bad(rd, "histogram", "\"durations\" must be \"raw\" or \"compensated\"");
	*comp = !strcmp(dur, "compensated");
	if (*comp && version < 2)
		return bad(rd, "histogram", "compensated durations in a version %" PRId64 " file "
			   "(they need version 2)", version);
	return 0;
}

/* "0x" and 1 to 16 hex digits. */
static int parse_addr(const char *s, uint64_t *out)
{
	size_t n;

	if (s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	n = strspn(s + 2, "0123456789abcdefABCDEF");
	if (!n || n > 16 || s[2 + n])
		return -EINVAL;
	*out = strtoull(s + 2, NULL, 16);
	return 0;
}

static int read_func(const struct reader *rd, struct json_object *o, size_t i,
		     struct pg_run *run)
{
	const char *name, *display, *binary, *addr_s, *site_s, *file = NULL;
	struct json_object *endbr, *v;
	uint64_t id, addr, offset, line = 0;
	enum pg_site site;
	char where[48];
	int err;

	snprintf(where, sizeof(where), "functions[%zu]", i);
	err = want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: get_u64(rd, o, where, "id", UINT32_MAX, &id);
	err = err ?: get_str(rd, o, where, "name", false, &name);
	err = err ?: get_str(rd, o, where, "display", false, &display);
	err = err ?: get_str(rd, o, where, "binary", false, &binary);
	err = err ?: get_str(rd, o, where, "address", false, &addr_s);
	err = err ?: get_u64(rd, o, where, "offset", UINT64_MAX, &offset);
	err = err ?: get_str(rd, o, where, "site", false, &site_s);
	err = err ?: member(rd, o, where, "endbr", json_type_boolean, false, &endbr);
	/* optional: the declaration's source position (older files do not have it) */
	if (!err && json_object_object_get_ex(o, "file", &v))
		err = to_str(rd, v, where, "\"file\"", true, &file);
	if (!err && json_object_object_get_ex(o, "line", &v) && v)
		err = to_u64(rd, v, where, "\"line\"", UINT32_MAX, &line);
	if (err)
		return err;
	if (id != i)
		return bad(rd, where, "\"id\" is %" PRIu64 ", not %zu (ids number the functions "
			   "in order from 0)", id, i);
	if (!*name || !*binary)
		return bad(rd, where, "\"%s\" is empty", *name ? "binary" : "name");
	if (parse_addr(addr_s, &addr))
		return bad(rd, where, "\"address\" must be a hexadecimal string like \"0x1139\", "
			   "not \"%.40s\"", addr_s);
	/* a site kind from a later version is only a hint about probe cost: keep reading */
	if (pg_site_parse(site_s, &site))
		site = PG_SITE_UNKNOWN;
	err = pg_run_add_func(run, binary, name, display, addr, offset, site,
			      json_object_get_boolean(endbr), NULL);
	if (!err && file && line)
		err = pg_func_set_src(&run->funcs[run->nfuncs - 1], file, (uint32_t)line);
	return err ? oom(rd) : 0;
}

static int read_hist(const struct reader *rd, struct json_object *o, const char *where,
		     struct pg_hist *h)
{
	struct json_object *arr;
	uint64_t total = 0;
	size_t n;
	int err = member(rd, o, where, "hist", json_type_array, false, &arr);

	if (err)
		return err;
	n = json_object_array_length(arr);
	for (size_t k = 0; k < n; k++) {
		struct json_object *pair = json_object_array_get_idx(arr, k);
		uint64_t idx, count;
		char what[48];

		snprintf(what, sizeof(what), "\"hist\"[%zu]", k);
		if (json_object_get_type(pair) != json_type_array ||
		    json_object_array_length(pair) != 2)
			return bad(rd, where, "%s must be a [bucket, count] pair", what);
		snprintf(what, sizeof(what), "\"hist\"[%zu] bucket", k);
		err = to_u64(rd, json_object_array_get_idx(pair, 0), where, what,
			     PG_HIST_NBUCKETS - 1, &idx);
		if (err)
			return err;
		snprintf(what, sizeof(what), "\"hist\"[%zu] count", k);
		err = to_u64(rd, json_object_array_get_idx(pair, 1), where, what, UINT64_MAX,
			     &count);
		if (err)
			return err;
		if (!count)
			return bad(rd, where, "\"hist\"[%zu] count is 0 (only non-empty buckets "
				   "are listed)", k);
		if (h->n && idx <= h->idx[h->n - 1])
			return bad(rd, where, "\"hist\" buckets must be strictly increasing "
				   "(%" PRIu64 " after %u)", idx, h->idx[h->n - 1]);
		if (total + count < total)
			return bad(rd, where, "\"hist\" counts overflow");
		total += count;
		if (pg_hist_add(h, (uint32_t)idx, count))
			return oom(rd);
	}
	return 0;
}

/* Optional per-site counts {"nop5": n, ...} (absent: zeros; unknown site names: an error). */
static int read_site_counts(const struct reader *rd, struct json_object *o, const char *where,
			    const char *key, uint64_t out[PG_SITE_COUNT])
{
	struct json_object *v;
	char what[64];
	int err;

	memset(out, 0, PG_SITE_COUNT * sizeof(*out));
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	snprintf(what, sizeof(what), "\"%s\"", key);
	err = want(rd, v, where, what, json_type_object, false);
	if (err)
		return err;
	json_object_object_foreach(v, site, n) {
		enum pg_site k;

		if (pg_site_parse(site, &k))
			return bad(rd, where, "%s has an unknown site kind \"%.40s\"", what, site);
		snprintf(what, sizeof(what), "\"%s.%s\"", key, site);
		err = to_u64(rd, n, where, what, UINT64_MAX, &out[k]);
		if (err)
			return err;
	}
	return 0;
}

/* A number of the calibration of site @name, 0 <= x < 1e7, into *@dst. */
static int calib_num(const struct reader *rd, struct json_object *v, const char *name,
		     const char *key, double *dst)
{
	enum json_type t = json_object_get_type(v);

	if (t != json_type_double && t != json_type_int)
		return bad(rd, "calibration", "%s.%s must be a number", name, key);
	*dst = json_object_get_double(v);
	if (!(*dst >= 0 && *dst < 1e7))
		return bad(rd, "calibration", "%s.%s is out of range (%g)", name, key, *dst);
	return 0;
}

/*
 * Optional "calibration": {"nop5": {"in_ns": x, "out_ns": y, "measured_ns": z}, ...} with
 * every site kind; "measured_ns" is optional (older files), but then on no site.
 */
static int read_calib(const struct reader *rd, struct json_object *root, struct pg_calib *c)
{
	struct json_object *o, *site, *v;
	int nmeasured = 0;

	memset(c, 0, sizeof(*c));
	if (!json_object_object_get_ex(root, "calibration", &o))
		return 0;
	if (want(rd, o, "", "\"calibration\"", json_type_object, false))
		return -EINVAL;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		const char *name = pg_site_name((enum pg_site)k);
		double *dst[2] = { &c->in_ns[k], &c->out_ns[k] };
		const char *keys[2] = { "in_ns", "out_ns" };

		if (member(rd, o, "calibration", name, json_type_object, false, &site))
			return -EINVAL;
		for (int j = 0; j < 2; j++) {
			if (!json_object_object_get_ex(site, keys[j], &v))
				return bad(rd, "calibration", "%s.%s is missing", name, keys[j]);
			if (calib_num(rd, v, name, keys[j], dst[j]))
				return -EINVAL;
		}
		if (json_object_object_get_ex(site, "measured_ns", &v)) {
			if (calib_num(rd, v, name, "measured_ns", &c->measured_ns[k]))
				return -EINVAL;
			nmeasured++;
		}
	}
	if (nmeasured && nmeasured != PG_SITE_COUNT)
		return bad(rd, "calibration", "\"measured_ns\" is given for some site kinds only");
	c->measured = nmeasured == PG_SITE_COUNT;
	c->valid = true;
	return 0;
}

/* An optional counter (of a stat or a repetition's profile); 0 when absent. */
static int opt_u64(const struct reader *rd, struct json_object *o, const char *where,
		   const char *key, uint64_t *out)
{
	struct json_object *v;
	char what[64];

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return to_u64(rd, v, where, what, UINT64_MAX, out);
}

static int read_fstat(const struct reader *rd, struct json_object *o, size_t r, size_t i,
		      struct pg_run *run, struct pg_rep *rep)
{
	uint64_t id, calls, total, self, min, max;
	bool any_desc = false;
	struct pg_fstat *s;
	char where[80];
	int err;

	snprintf(where, sizeof(where), "repetitions[%zu].functions[%zu]", r, i);
	err = want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: get_u64(rd, o, where, "id", UINT32_MAX, &id);
	err = err ?: get_u64(rd, o, where, "calls", UINT64_MAX, &calls);
	err = err ?: get_u64(rd, o, where, "total_ns", UINT64_MAX, &total);
	err = err ?: get_u64(rd, o, where, "self_ns", UINT64_MAX, &self);
	err = err ?: get_u64(rd, o, where, "min_ns", UINT64_MAX, &min);
	err = err ?: get_u64(rd, o, where, "max_ns", UINT64_MAX, &max);
	if (err)
		return err;
	if (id >= run->nfuncs)
		return bad(rd, where, "\"id\" %" PRIu64 " is not a function of this run (it has "
			   "%zu)", id, run->nfuncs);
	if (rep->nstats && id == rep->stats[rep->nstats - 1].func)
		return bad(rd, where, "function %" PRIu64 " appears twice", id);
	if (rep->nstats && id < rep->stats[rep->nstats - 1].func)
		return bad(rd, where, "functions must be sorted by id (%" PRIu64 " after %u)", id,
			   rep->stats[rep->nstats - 1].func);
	if (!calls)
		return bad(rd, where, "\"calls\" is 0 (functions that were not called are left "
			   "out)");
	if (self > total)
		return bad(rd, where, "\"self_ns\" %" PRIu64 " is larger than \"total_ns\" %"
			   PRIu64, self, total);
	if (min > max)
		return bad(rd, where, "\"min_ns\" %" PRIu64 " is larger than \"max_ns\" %" PRIu64,
			   min, max);
	s = pg_rep_add_stat(rep, (uint32_t)id);
	if (!s)
		return oom(rd);
	s->calls = calls;
	s->total_ns = total;
	s->self_ns = self;
	s->min_ns = min;
	s->max_ns = max;
	err = read_site_counts(rd, o, where, "desc", s->desc);
	err = err ?: read_site_counts(rd, o, where, "kids", s->kids);
	for (int k = 0; !err && k < PG_SITE_COUNT; k++) {
		if (s->kids[k] > s->desc[k])
			err = bad(rd, where, "\"kids\" counts more %s calls than \"desc\"",
				  pg_site_name((enum pg_site)k));
		any_desc |= s->desc[k] != 0;
	}
	err = err ?: opt_u64(rd, o, where, "probe_ns", &s->probe_ns);
	err = err ?: opt_u64(rd, o, where, "desc_probe_ns", &s->desc_probe_ns);
	err = err ?: opt_u64(rd, o, where, "kids_probe_ns", &s->kids_probe_ns);
	if (!err && s->kids_probe_ns > s->desc_probe_ns)
		err = bad(rd, where, "\"kids_probe_ns\" is larger than \"desc_probe_ns\"");
	if (!err && s->desc_probe_ns && !any_desc)
		err = bad(rd, where, "\"desc_probe_ns\" without traced calls in \"desc\"");
	err = err ?: read_hist(rd, o, where, &s->hist);
	if (!err && pg_hist_total(&s->hist) != calls)
		err = bad(rd, where, "\"hist\" holds %" PRIu64 " calls, \"calls\" is %" PRIu64,
			  pg_hist_total(&s->hist), calls);
	return err;
}

/* The optional sampled profile of a repetition (see put_profile()). */
static int read_profile(const struct reader *rd, struct json_object *o, const char *where,
			struct pg_rep *rep)
{
	struct json_object *stacks;
	uint64_t sum = 0;
	size_t n;
	int err;

	err = opt_u64(rd, o, where, "samples", &rep->samples);
	err = err ?: opt_u64(rd, o, where, "samples_lost", &rep->samples_lost);
	err = err ?: opt_u64(rd, o, where, "samples_truncated", &rep->samples_truncated);
	if (err)
		return err;
	if (rep->samples_lost > rep->samples)
		return bad(rd, where, "\"samples_lost\" is larger than \"samples\"");
	if (!json_object_object_get_ex(o, "stacks", &stacks))
		return 0;
	if (want(rd, stacks, where, "\"stacks\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(stacks);
	rep->stacks = calloc(n ? n : 1, sizeof(*rep->stacks));
	if (!rep->stacks)
		return oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pair = json_object_array_get_idx(stacks, i);
		const char *folded;
		char what[64];
		uint64_t count;

		snprintf(what, sizeof(what), "\"stacks\"[%zu]", i);
		if (want(rd, pair, where, what, json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(pair) != 2)
			return bad(rd, where, "%s must be a [stack, count] pair", what);
		err = to_str(rd, json_object_array_get_idx(pair, 0), where, what, false, &folded);
		err = err ?: to_u64(rd, json_object_array_get_idx(pair, 1), where, what,
				    UINT64_MAX, &count);
		if (err)
			return err;
		if (!pg_folded_valid(folded))
			return bad(rd, where, "%s is not a folded stack (frames separated by ';', "
				   "none empty, no control characters)", what);
		if (i && strcmp(rep->stacks[i - 1].folded, folded) >= 0)
			return bad(rd, where, "%s: stacks must be sorted and unique", what);
		if (!count || count > UINT64_MAX - sum)
			return bad(rd, where, "%s: the count must be at least 1", what);
		sum += count;
		rep->stacks[i].folded = strdup(folded);
		if (!rep->stacks[i].folded)
			return oom(rd);
		rep->stacks[i].count = count;
		rep->nstacks = i + 1;
	}
	if (sum > rep->samples - rep->samples_lost)
		return bad(rd, where, "\"stacks\" hold %" PRIu64 " samples, more than the %" PRIu64
			   " kept", sum, rep->samples - rep->samples_lost);
	return 0;
}

static int read_rep(const struct reader *rd, struct json_object *o, size_t r,
		    struct pg_run *run)
{
	struct json_object *stats;
	struct pg_rep *rep;
	uint64_t wall = 0;
	int exit_code = 0, sig = 0;
	char where[48];
	size_t n;
	int err;

	snprintf(where, sizeof(where), "repetitions[%zu]", r);
	err = want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: get_u64(rd, o, where, "wall_ns", UINT64_MAX, &wall);
	err = err ?: get_int(rd, o, where, "exit_code", EXIT_CODE_MIN, EXIT_CODE_MAX, &exit_code);
	err = err ?: get_int(rd, o, where, "signal", 0, SIGNAL_MAX, &sig);
	err = err ?: member(rd, o, where, "functions", json_type_array, false, &stats);
	if (err)
		return err;
	rep = pg_run_add_rep(run);
	if (!rep)
		return oom(rd);
	rep->wall_ns = wall;
	rep->exit_code = exit_code;
	rep->signal = sig;
	n = json_object_array_length(stats);
	for (size_t i = 0; i < n; i++) {
		err = read_fstat(rd, json_object_array_get_idx(stats, i), r, i, run, rep);
		if (err)
			return err;
	}
	return read_profile(rd, o, where, rep);
}

/* Optional "frame_sources": [[frame, file, line], ...], sorted by frame, unique. */
static int read_sources(const struct reader *rd, struct json_object *root, struct pg_run *run)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(root, "frame_sources", &a))
		return 0;
	if (want(rd, a, "", "\"frame_sources\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(a);
	run->sources = calloc(n ? n : 1, sizeof(*run->sources));
	if (!run->sources)
		return oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		struct pg_source *src = &run->sources[i];
		const char *frame, *file;
		char where[48];
		uint64_t line;
		int err;

		snprintf(where, sizeof(where), "frame_sources[%zu]", i);
		if (want(rd, t, where, "the entry", json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(t) != 3)
			return bad(rd, where, "must be a [frame, file, line] triple");
		err = to_str(rd, json_object_array_get_idx(t, 0), where, "the frame", false, &frame);
		err = err ?: to_str(rd, json_object_array_get_idx(t, 1), where, "the file", false,
				    &file);
		err = err ?: to_u64(rd, json_object_array_get_idx(t, 2), where, "the line",
				    UINT32_MAX, &line);
		if (err)
			return err;
		if (!pg_folded_valid(frame) || strchr(frame, ';'))
			return bad(rd, where, "the frame is not a frame name");
		if (i && strcmp(run->sources[i - 1].frame, frame) >= 0)
			return bad(rd, where, "frames must be sorted and unique");
		src->frame = strdup(frame);
		src->file = strdup(file);
		src->line = (uint32_t)line;
		run->nsources = i + 1;
		if (!src->frame || !src->file)
			return oom(rd);
	}
	return 0;
}

static int read_root(const struct reader *rd, struct json_object *root, struct pg_run *run)
{
	struct json_object *v, *funcs, *reps;
	int64_t version;
	size_t n;
	int err;

	if (json_object_get_type(root) != json_type_object)
		return bad(rd, "", "not a perfgate run file (the top level is %s, not an object)",
			   type_name(json_object_get_type(root)));
	if (!json_object_object_get_ex(root, "format", &v) ||
	    json_object_get_type(v) != json_type_string ||
	    strcmp(json_object_get_string(v), PG_RUNFILE_FORMAT))
		return bad(rd, "", "not a perfgate run file (\"format\" is not \"%s\")",
			   PG_RUNFILE_FORMAT);
	err = member(rd, root, "", "version", json_type_int, false, &v);
	if (err)
		return err;
	version = json_object_get_int64(v);
	if (version < PG_RUNFILE_MIN_VERSION || version > PG_RUNFILE_VERSION)
		return bad(rd, "", "run file version %" PRId64 " is not supported (this perfgate "
			   "reads versions %d to %d%s)", version, PG_RUNFILE_MIN_VERSION,
			   PG_RUNFILE_VERSION, version > PG_RUNFILE_VERSION ?
			   "; the file is from a newer perfgate" : "");
	err = read_meta(rd, root, &run->meta);
	err = err ?: read_hist_scheme(rd, root, version, &run->hist_compensated);
	err = err ?: read_calib(rd, root, &run->calib);
	if (!err && run->hist_compensated && !run->calib.measured)
		return bad(rd, "histogram", "the durations are compensated, but the calibration "
			   "they were compensated with is %s", run->calib.valid ?
			   "without \"measured_ns\"" : "missing");
	err = err ?: member(rd, root, "", "functions", json_type_array, false, &funcs);
	err = err ?: member(rd, root, "", "repetitions", json_type_array, false, &reps);
	if (err)
		return err;
	n = json_object_array_length(funcs);
	for (size_t i = 0; i < n && !err; i++)
		err = read_func(rd, json_object_array_get_idx(funcs, i), i, run);
	n = json_object_array_length(reps);
	for (size_t r = 0; r < n && !err; r++)
		err = read_rep(rd, json_object_array_get_idx(reps, r), r, run);
	return err ?: read_sources(rd, root, run);
}

long long pg_runfile_max_bytes(void)
{
	static bool warned;
	const char *env = getenv(PG_RUNFILE_MAX_MB_ENV);
	unsigned long long mb;
	char *end;

	if (!env || !*env)
		return (long long)PG_RUNFILE_DEFAULT_MAX_MB << 20;
	errno = 0;
	mb = strtoull(env, &end, 10);
	if (errno || *end || *env == '-' || mb < 1 || mb > 65536) {
		if (!warned)
			pg_warn("%s='%s' is not a size in MiB from 1 to 65536: using %d",
				PG_RUNFILE_MAX_MB_ENV, env, PG_RUNFILE_DEFAULT_MAX_MB);
		warned = true;
		return (long long)PG_RUNFILE_DEFAULT_MAX_MB << 20;
	}
	return (long long)mb << 20;
}

/* The whole file into a NUL-terminated buffer, at most pg_runfile_max_bytes(). */
static int slurp(const char *path, char **out, size_t *outlen)
{
	const size_t max = (size_t)pg_runfile_max_bytes();
	size_t len = 0, cap;
	struct stat st;
	char *buf = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pg_err("cannot read %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		pg_err("cannot read %s: %s", path, strerror(-err));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		pg_err("cannot read %s: it is a directory", path);
		err = -EISDIR;
		goto out;
	}
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
		goto too_big;
	/* room for the file, a NUL and one more byte to see the end of the file */
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 64 * 1024;
	for (;;) {
		ssize_t got;

		if (len + 1 >= cap) {
			char *nb;

			if (len > max)
				goto too_big;
			cap = cap > max / 2 ? max + 2 : cap * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				pg_err("cannot read %s: out of memory", path);
				goto out;
			}
			buf = nb;
		} else if (!buf) {
			buf = malloc(cap);
			if (!buf) {
				err = -ENOMEM;
				pg_err("cannot read %s: out of memory", path);
				goto out;
			}
		}
		got = read(fd, buf + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			pg_err("cannot read %s: %s", path, strerror(-err));
			goto out;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	if (len > max)
		goto too_big;
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	goto out;
too_big:
	pg_err("cannot read %s: larger than the limit of %zu MiB for run files (raise it with "
	       "%s)", path, max >> 20, PG_RUNFILE_MAX_MB_ENV);
	err = -EFBIG;
out:
	free(buf);
	close(fd);
	return err;
}

/* Line and column (from 1, in bytes) of offset @off of @buf. */
static void position(const char *buf, size_t off, unsigned long *line, unsigned long *col)
{
	const char *nl;

	*line = 1;
	*col = off + 1;
	for (const char *p = buf; (nl = memchr(p, '\n', (size_t)(buf + off - p))); p = nl + 1) {
		(*line)++;
		*col = (size_t)(buf + off - nl);
	}
}

static int parse(const char *path, const char *buf, size_t len, struct json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	unsigned long line, col;
	const char *nul = memchr(buf, '\0', len), *what;
	size_t end;

	*out = NULL;
	if (len == strspn(buf, " \t\r\n")) {
		pg_err("%s: not a perfgate run file (it is empty)", path);
		return -EINVAL;
	}
	if (nul) {
		position(buf, (size_t)(nul - buf), &line, &col);
		pg_err("%s: invalid JSON at line %lu, column %lu: NUL byte", path, line, col);
		return -EINVAL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		pg_err("cannot read %s: out of memory", path);
		return -ENOMEM;
	}
	/* trailing data is checked below, with a clearer message than json-c's */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	*out = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* a top-level number may go on: end it with the NUL terminator */
		*out = json_tokener_parse_ex(tok, buf + len, 1);
		jerr = json_tokener_get_error(tok);
		end = len;
		if (jerr != json_tokener_success) {
			position(buf, len, &line, &col);
			pg_err("%s: invalid JSON: unexpected end of file at line %lu, column %lu "
			       "(is the file truncated?)", path, line, col);
			json_tokener_free(tok);
			return -EINVAL;
		}
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_success) {
		/* json-c stops after the value: anything but white space may follow */
		end += strspn(buf + end, " \t\r\n");
		if (end == len)
			return 0;
		json_object_put(*out);
		*out = NULL;
		what = "unexpected data after the end of the top-level value";
	} else {
		what = json_tokener_error_desc(jerr);
	}
	position(buf, end, &line, &col);
	pg_err("%s: invalid JSON at line %lu, column %lu: %s", path, line, col, what);
	return -EINVAL;
}

int pg_runfile_parse(const char *buf, size_t len, const char *name, struct pg_run *run)
{
	struct reader rd = { .path = name };
	struct json_object *root = NULL;
	char why[256];
	int err;

	pg_run_release(run);
	err = parse(name, buf, len, &root);
	if (!err)
		err = read_root(&rd, root, run);
	json_object_put(root);
	if (!err) {
		err = check_run(run, why, sizeof(why));
		if (err)
			pg_err("%s: %s", name, why);
	}
	if (err)
		pg_run_release(run);
	return err;
}

int pg_runfile_read(const char *path, struct pg_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	pg_run_release(run);
	err = slurp(path, &buf, &len);
	if (!err)
		err = pg_runfile_parse(buf, len, path, run);
	free(buf);
	return err;
}
