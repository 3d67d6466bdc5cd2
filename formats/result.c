// SPDX-License-Identifier: MIT
/*
 * formats/result.c - the compare result (formats/result.h): the writer with core/jsonw.h, the
 * reader with formats/json_read.h. Fields and order: docs/compare-format.md.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "../core/atomic.h"
#include "../core/env.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "../core/version.h"
#include "json_read.h"
#include "result.h"

/* ---- writing ---- */

static struct json_object *new_side(const struct pg_run *run, size_t reps)
{
	const struct pg_meta *m = run ? &run->meta : NULL;
	struct json_object *o = json_object_new_object();

	if (!o || (m ? pg_json_put(o, "command", pg_json_new_utf8v(m->argv, m->argc)) :
		       pg_json_put_null(o, "command")) ||
	    pg_json_put_utf8(o, "host", m ? m->host : NULL) ||
	    pg_json_put_utf8(o, "commit", m ? m->git_commit : NULL) ||
	    pg_json_put_u64(o, "repetitions", reps) ||
	    pg_json_put_utf8(o, "start_time", m ? m->start_time : NULL) ||
	    pg_json_put_utf8(o, "kernel", m ? m->kernel : NULL) ||
	    pg_json_put_utf8(o, "perfgate_version", m ? m->perfgate_version : NULL)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* One side's environment: "kernel", "cpu_model" and its entries (core/run.h), when known. */
static struct json_object *new_env_side(const struct pg_run *run)
{
	const struct pg_meta *m = run ? &run->meta : NULL;
	struct json_object *o = json_object_new_object();
	int err = o ? 0 : -ENOMEM;

	if (!err && m && m->kernel)
		err = pg_json_put_utf8(o, "kernel", m->kernel);
	if (!err && m && m->cpu_model)
		err = pg_json_put_utf8(o, "cpu_model", m->cpu_model);
	for (size_t i = 0; !err && m && i < m->nenv; i++) {
		size_t k = strcspn(m->env[i], "=");
		char key[256];

		snprintf(key, sizeof(key), "%.*s", (int)k, m->env[i]);
		err = pg_json_put_utf8(o, key, m->env[i] + k + 1);
	}
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* "environment": both sides' and what differs between them (pg_env_diffs(), core/env.h) */
static struct json_object *new_environment(const struct pg_run *base, const struct pg_run *new)
{
	struct json_object *o = json_object_new_object();
	char **items = NULL;
	size_t n = 0;
	int err = o ? 0 : -ENOMEM;

	err = err ?: pg_env_diffs(base ? &base->meta : NULL, new ? &new->meta : NULL, &items, &n);
	err = err ?: pg_json_put(o, "base", new_env_side(base));
	err = err ?: pg_json_put(o, "new", new_env_side(new));
	err = err ?: pg_json_put(o, "differences", pg_json_new_utf8v(items, n));
	pg_strv_free(items, n);
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The on-/off-CPU split of the change (diff/cpusplit.h), only when known. */
static int put_split(struct json_object *o, const struct pg_fcmp *f)
{
	if (isnan(f->change_cpu) || isnan(f->change_offcpu) || isnan(f->change_runq))
		return 0;
	return pg_json_put_num(o, "change_cpu", f->change_cpu) ||
	       pg_json_put_num(o, "change_offcpu", f->change_offcpu) ||
	       pg_json_put_num(o, "change_runq", f->change_runq);
}

/* Two recordings: the share of its time that is the kernel's (diff/kshare.h), when known. */
static int put_kernel_share(struct json_object *o, const struct pg_fcmp *f)
{
	return isnan(f->kernel_share) ? 0 : pg_json_put_num(o, "kernel_share", f->kernel_share);
}

/* "waker": whom its blocked time waited on (diff/waker.h), or null. */
static int put_waker(struct json_object *o, const struct pg_fcmp *f)
{
	const struct pg_waker_move *w = &f->waker;
	struct json_object *e;

	if (!pg_woken_kind_name(w->kind))
		return pg_json_put_null(o, "waker");
	e = json_object_new_object();
	if (!e || pg_json_put_utf8(e, "kind", pg_woken_kind_name(w->kind)) ||
	    pg_json_put_utf8(e, "comm", w->comm) || pg_json_put_num(e, "base_ns", w->base_ns) ||
	    pg_json_put_num(e, "new_ns", w->new_ns)) {
		json_object_put(e);
		return -ENOMEM;
	}
	return pg_json_put(o, "waker", e);
}

static struct json_object *new_fcmp(const struct pg_fcmp *f)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_utf8(o, "binary", f->binary) ||
	    pg_json_put_utf8(o, "name", f->name) ||
	    pg_json_put_utf8(o, "display", f->display ? f->display : f->name) ||
	    pg_json_put_utf8(o, "verdict", pg_verdict_name(f->verdict)) ||
	    pg_json_put_u64(o, "n_base", f->n_base) ||
	    pg_json_put_u64(o, "n_new", f->n_new) ||
	    pg_json_put_u64(o, "pairs", f->pairs) ||
	    pg_json_put_num(o, "base_ns", f->base_ns) ||
	    pg_json_put_num(o, "new_ns", f->new_ns) ||
	    pg_json_put_num(o, "base_calls", f->base_calls) ||
	    pg_json_put_num(o, "new_calls", f->new_calls) ||
	    pg_json_put_bool(o, "calls_changed", f->calls_changed) ||
	    pg_json_put_num(o, "change", f->change) ||
	    pg_json_put_num(o, "ci_lo", f->ci_lo) ||
	    pg_json_put_num(o, "ci_hi", f->ci_hi) ||
	    pg_json_put_num(o, "p", f->p) ||
	    (f->by_cpu ? pg_json_put_utf8(o, "judged_on", "cpu") :
			 pg_json_put_null(o, "judged_on")) ||
	    pg_json_put_num(o, "q", f->q) ||
	    pg_json_put_num(o, "probe_share", f->probe_share) ||
	    pg_json_put_num(o, "calib_unc", f->calib_unc) ||
	    pg_json_put_num(o, "impact_ns", f->impact_ns) ||
	    pg_json_put_num(o, "impact", f->impact) ||
	    (f->cause ? pg_json_put_utf8(o, "cause", pg_cause_name(f->cause)) :
			pg_json_put_null(o, "cause")) ||
	    pg_json_put_utf8(o, "reason", f->reason) ||
	    pg_json_put_utf8(o, "file", f->src_file) ||
	    (f->src_file && f->src_line ? pg_json_put_int(o, "line", f->src_line) :
					  pg_json_put_null(o, "line")) ||
	    (f->scope && pg_json_put_utf8(o, "scope", f->scope)) || put_split(o, f) ||
	    put_kernel_share(o, f) ||
	    pg_json_put_utf8(o, "origin", pg_origin_name(f->origin)) ||
	    pg_json_put_u64(o, "samples", f->samples) ||
	    pg_json_put_utf8(o, "explain", f->explain) ||
	    pg_json_put_utf8(o, "cause_line", f->why) || put_waker(o, f) ||
	    pg_json_put_utf8(o, "code", pg_code_cmp_name(f->code))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int put_options(struct json_object *root, const struct pg_comparison *c)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_num(o, "alpha", c->opts.alpha) ||
	    pg_json_put_num(o, "min_effect", c->opts.min_effect) ||
	    pg_json_put_utf8(o, "metric", pg_metric_name(c->opts.metric)) ||
	    pg_json_put_bool(o, "raw", c->opts.raw) ||
	    pg_json_put_bool(o, "compensated", c->compensated) ||
	    pg_json_put_int(o, "min_reps", c->opts.min_reps) ||
	    pg_json_put_num(o, "min_impact", c->opts.min_impact)) {
		json_object_put(o);
		return -ENOMEM;
	}
	return pg_json_put(root, "options", o);
}

static int put_counts(struct json_object *root, const struct pg_comparison *c)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_u64(o, "functions", c->n) ||
	    pg_json_put_u64(o, "tested", c->ntested) ||
	    pg_json_put_u64(o, "regressions", c->nregressions) ||
	    pg_json_put_u64(o, "improvements", c->nimprovements) ||
	    pg_json_put_u64(o, "unchanged", c->nunchanged) ||
	    pg_json_put_u64(o, "inconclusive", c->ninconclusive) ||
	    pg_json_put_u64(o, "added", c->nadded) ||
	    pg_json_put_u64(o, "removed", c->nremoved) ||
	    pg_json_put_u64(o, "notable", c->nnotable) ||
	    pg_json_put_u64(o, "sampled", c->nsampled)) {
		json_object_put(o);
		return -ENOMEM;
	}
	return pg_json_put(root, "counts", o);
}

/* "unjudged": [{binary, name, share, per_rep}], the hot functions nothing judged */
static struct json_object *new_unjudged(const struct pg_comparison *c)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < c->nunjudged; i++) {
		const struct pg_unjudged *u = &c->unjudged[i];
		struct json_object *o = json_object_new_object();

		if (!o || pg_json_put_utf8(o, "binary", u->binary) ||
		    pg_json_put_utf8(o, "name", u->name) || pg_json_put_num(o, "share", u->share) ||
		    pg_json_put_num(o, "per_rep", u->per_rep) || json_object_array_add(a, o)) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* "judged": what the verdict rests on (struct pg_comparison) */
static int put_judged(struct json_object *root, const struct pg_comparison *c)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_u64(o, "exact", c->njudged_exact) ||
	    pg_json_put_u64(o, "sampled", c->njudged_sampled) ||
	    pg_json_put_bool(o, "program", c->program_judged) ||
	    pg_json_put_num(o, "cpu_share", c->judged_share) ||
	    pg_json_put(o, "unjudged", new_unjudged(c))) {
		json_object_put(o);
		return -ENOMEM;
	}
	return pg_json_put(root, "judged", o);
}

/* "speed": the machine's speed correction of a paired comparison (diff/speed.h) */
static struct json_object *new_speed(const struct pg_comparison *c)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_bool(o, "applied", c->speed_applied) ||
	    pg_json_put_u64(o, "refs", c->speed_refs) ||
	    pg_json_put_num(o, "spread", c->speed_spread) ||
	    pg_json_put_num(o, "shift", c->speed_shift) ||
	    pg_json_put_num(o, "p", c->speed_p) ||
	    (c->speed_runs && (pg_json_put_bool(o, "between_runs", true) ||
			       pg_json_put_u64(o, "changed", c->speed_changed) ||
			       pg_json_put_str(o, "source", pg_speed_src_name(c->speed_src)) ||
			       pg_json_put_num(o, "spin", c->speed_spin) ||
			       pg_json_put_num(o, "spin_se", c->speed_spin_se) ||
			       pg_json_put_num(o, "program_spin", c->program_spin) ||
			       pg_json_put_bool(o, "spread_prior", c->speed_spread_prior) ||
			       pg_json_put_num(o, "inflation", c->speed_inflation) ||
			       pg_json_put_u64(o, "inflation_n", c->speed_inflation_n) ||
			       pg_json_put_bool(o, "inflation_prior",
						c->speed_inflation_prior) ||
			       pg_json_put_num(o, "kernel_inflation",
					       c->speed_kernel_inflation) ||
			       pg_json_put_u64(o, "kernel_n", c->speed_kernel_n)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *new_result(const struct pg_comparison *c, const struct pg_run *base,
				      const struct pg_run *new)
{
	struct json_object *root = json_object_new_object();

	if (!root || pg_json_put_utf8(root, "format", PG_RESULT_FORMAT) ||
	    pg_json_put_int(root, "version", PG_RESULT_VERSION) ||
	    pg_json_put_utf8(root, "perfgate_version", PERFGATE_VERSION) ||
	    pg_json_put_utf8(root, "overall", pg_overall_name(c->overall)) ||
	    pg_json_put_utf8(root, "overall_reason", c->overall_reason) ||
	    put_options(root, c) ||
	    pg_json_put(root, "base", new_side(base, c->base_reps)) ||
	    pg_json_put(root, "new", new_side(new, c->new_reps)) ||
	    pg_json_put(root, "environment", new_environment(base, new)) ||
	    put_counts(root, c) || put_judged(root, c) ||
	    pg_json_put(root, "warnings", pg_json_new_utf8v(c->warnings, c->nwarnings)) ||
	    pg_json_put_bool(root, "paired", c->paired) ||
	    pg_json_put_u64(root, "npairs", c->npairs) ||
	    pg_json_put(root, "speed", new_speed(c)) ||
	    pg_json_put_bool(root, "runq_out", c->runq_out) ||
	    pg_json_put(root, "wall", new_fcmp(&c->wall)) ||
	    pg_json_put(root, "functions", json_object_new_array())) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

#define PRETTY (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | \
		JSON_C_TO_STRING_NOSLASHESCAPE)
/* How json-c writes the empty "functions" array, the last member of the top level. */
#define EMPTY_FUNCTIONS "[\n  ]\n}"

/* @s as it reads at depth 2 of json-c's pretty output: four spaces more after each newline
 * (a newline in JSON text is always between tokens: strings escape theirs). */
static void put_indented(FILE *f, const char *s)
{
	for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
		fwrite(s, 1, (size_t)(nl + 1 - s), f);
		fputs("    ", f);
	}
	fputs(s, f);
}

/*
 * The text is what json-c writes for the whole tree, but the tree of one function at a time
 * is in memory: the top level is serialized with an empty "functions" array, and each
 * function's object is spliced in with the indentation of its depth.
 */
int pg_result_write(const struct pg_comparison *c, const struct pg_run *base,
		    const struct pg_run *new, const char *path)
{
	struct json_object *root = new_result(c, base, new), *fo;
	const char *s = NULL, *fs;
	size_t len = 0, head;
	struct pg_atomic a;
	FILE *f;

	if (root)
		s = json_object_to_json_string_length(root, PRETTY, &len);
	if (!s || len < strlen(EMPTY_FUNCTIONS) ||
	    strcmp(s + len - strlen(EMPTY_FUNCTIONS), EMPTY_FUNCTIONS)) {
		json_object_put(root);
		pg_err("%s: cannot build the comparison JSON: out of memory", path);
		return -ENOMEM;
	}
	f = pg_atomic_open(&a, path);
	if (!f) {
		json_object_put(root);
		return errno ? -errno : -EIO;
	}
	head = len - strlen(EMPTY_FUNCTIONS) + 1;	/* up to and with the '[' */
	fwrite(s, 1, c->n ? head : len, f);
	json_object_put(root);
	for (size_t i = 0; i < c->n; i++) {
		fo = new_fcmp(&c->f[i]);
		fs = fo ? json_object_to_json_string_ext(fo, PRETTY) : NULL;
		if (!fs) {
			json_object_put(fo);
			pg_atomic_abort(&a);
			pg_err("%s: cannot build the comparison JSON: out of memory", path);
			return -ENOMEM;
		}
		fputs(i ? ",\n    " : "\n    ", f);
		put_indented(f, fs);
		json_object_put(fo);
	}
	if (c->n)
		fputs("\n  ]\n}", f);
	/* with a final newline, as text files have */
	fputc('\n', f);
	return pg_atomic_commit(&a);
}

/* ---- reading ---- */

static const char *verdict_name(int k)
{
	return pg_verdict_name((enum pg_verdict)k);
}

/* The optional "cause" of an entry: none when null or absent, and when unknown (informational). */
static int read_cause(const struct pg_jr *jr, struct json_object *o, const char *where,
		      enum pg_cause *out)
{
	const char *s;
	int err = pg_jr_get_str(jr, o, where, "cause", PG_JR_OPTIONAL, &s);

	*out = PG_CAUSE_NONE;
	for (int k = 1; !err && s && k < PG_CAUSE_COUNT; k++)
		if (!strcmp(s, pg_cause_name((enum pg_cause)k)))
			*out = (enum pg_cause)k;
	return err;
}

/* The optional "judged_on": "cpu", or null or absent (self time, or the chosen metric). */
static int read_judged_on(const struct pg_jr *jr, struct json_object *o, const char *where,
			  bool *by_cpu)
{
	const char *s;
	int err = pg_jr_get_str(jr, o, where, "judged_on", PG_JR_OPTIONAL, &s);

	*by_cpu = !err && s && !strcmp(s, "cpu");
	return err;
}

/* "origin", "samples", "explain", "cause_line" and "code": absent in results from before
 * (exact, 0, "", "", unknown) */
static int read_origin(const struct pg_jr *jr, struct json_object *o, const char *where,
		       struct pg_fcmp *f)
{
	const char *s = NULL, *e = NULL, *code = NULL, *why = NULL;
	uint64_t n = 0;
	int err = pg_jr_get_str(jr, o, where, "origin", PG_JR_OPTIONAL, &s);

	if (!err && s && pg_origin_parse(s, &f->origin))
		return pg_jr_bad(jr, where, "\"origin\" is \"%.40s\", not exact, sampled or "
				 "program", s);
	err = err ?: pg_jr_get_str(jr, o, where, "code", PG_JR_OPTIONAL, &code);
	if (!err && code && pg_code_cmp_parse(code, &f->code))
		return pg_jr_bad(jr, where, "\"code\" is \"%.40s\", not same, changed or null",
				 code);
	err = err ?: pg_jr_opt_u64(jr, o, where, "samples", UINT64_MAX, &n);
	err = err ?: pg_jr_get_str(jr, o, where, "explain", PG_JR_OPTIONAL, &e);
	err = err ?: pg_jr_get_str(jr, o, where, "cause_line", PG_JR_OPTIONAL, &why);
	f->samples = n;
	if (!err && e)
		snprintf(f->explain, sizeof(f->explain), "%s", e);
	if (!err && why)
		snprintf(f->why, sizeof(f->why), "%s", why);
	return err;
}

/* "waker": null or absent (results from before) for none */
static int read_waker(const struct pg_jr *jr, struct json_object *o, const char *where,
		      struct pg_waker_move *w)
{
	struct json_object *e = NULL;
	const char *kind = NULL, *comm = NULL;
	int err = pg_jr_member(jr, o, where, "waker", json_type_object, PG_JR_OPTIONAL, &e);

	if (err || !e)
		return err;
	err = pg_jr_get_str(jr, e, where, "kind", PG_JR_REQUIRED, &kind);
	err = err ?: pg_jr_get_str(jr, e, where, "comm", PG_JR_REQUIRED, &comm);
	err = err ?: pg_jr_get_num(jr, e, where, "base_ns", PG_JR_REQUIRED, &w->base_ns);
	err = err ?: pg_jr_get_num(jr, e, where, "new_ns", PG_JR_REQUIRED, &w->new_ns);
	if (err)
		return err;
	if (pg_woken_kind_parse(kind, &w->kind))
		return pg_jr_bad(jr, where, "\"waker\".\"kind\" is \"%.40s\", not same, other, "
				 "kernel or irq", kind);
	snprintf(w->comm, sizeof(w->comm), "%s", comm);
	return 0;
}

/* judged.unjudged: absent in results from before (none named); at most PG_UNJUDGED_MAX */
static int read_unjudged(const struct pg_jr *jr, struct json_object *judged,
			 struct pg_comparison *c)
{
#define W "judged.unjudged"
	struct json_object *a;
	int err = pg_jr_member(jr, judged, "judged", "unjudged", json_type_array, PG_JR_OPTIONAL,
			       &a);
	size_t n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; !err && i < n && i < PG_UNJUDGED_MAX; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		const char *bin = NULL, *name = NULL;
		double share = NAN, per_rep = NAN;

		err = pg_jr_want(jr, o, W, "an entry", json_type_object, PG_JR_REQUIRED);
		err = err ?: pg_jr_get_str(jr, o, W, "binary", PG_JR_REQUIRED, &bin);
		err = err ?: pg_jr_get_str(jr, o, W, "name", PG_JR_REQUIRED, &name);
		err = err ?: pg_jr_get_num(jr, o, W, "share", PG_JR_REQUIRED, &share);
		err = err ?: pg_jr_get_num(jr, o, W, "per_rep", PG_JR_REQUIRED, &per_rep);
		if (!err && pg_comparison_add_unjudged(c, bin, name, strlen(name), share, per_rep))
			err = pg_jr_oom(jr);
	}
	return err;
#undef W
}

/* "judged" and counts.sampled: absent in results from before (none, share unknown) */
static int read_judged(const struct pg_jr *jr, struct json_object *root,
		       struct json_object *counts, struct pg_comparison *c)
{
	struct json_object *o;
	uint64_t n = 0;
	int err = pg_jr_opt_u64(jr, counts, "counts", "sampled", SIZE_MAX, &n);

	c->nsampled = (size_t)n;
	err = err ?: pg_jr_member(jr, root, "", "judged", json_type_object, PG_JR_OPTIONAL, &o);
	if (err || !o)
		return err;
	err = pg_jr_opt_u64(jr, o, "judged", "exact", SIZE_MAX, &n);
	c->njudged_exact = (size_t)n;
	err = err ?: pg_jr_opt_u64(jr, o, "judged", "sampled", SIZE_MAX, &n);
	c->njudged_sampled = (size_t)n;
	err = err ?: pg_jr_get_num(jr, o, "judged", "cpu_share", PG_JR_OPTIONAL,
				   &c->judged_share);
	if (!err) {
		struct json_object *v;

		err = pg_jr_member(jr, o, "judged", "program", json_type_boolean, PG_JR_OPTIONAL,
				   &v);
		c->program_judged = !err && v && json_object_get_boolean(v);
	}
	return err ?: read_unjudged(jr, o, c);
}

static const char *overall_name(int k)
{
	return pg_overall_name((enum pg_overall)k);
}

static int read_side(const struct pg_jr *jr, struct json_object *root, const char *key,
		     struct pg_run *run, size_t *reps)
{
	struct pg_meta *m = &run->meta;
	struct json_object *o;
	uint64_t n = 0;
	int err;

	err = pg_jr_member(jr, root, "", key, json_type_object, PG_JR_REQUIRED, &o);
	err = err ?: pg_jr_dup_strv(jr, o, key, "command", PG_JR_OPTIONAL, &m->argv, &m->argc);
	err = err ?: pg_jr_dup_str(jr, o, key, "host", PG_JR_OPTIONAL, &m->host);
	err = err ?: pg_jr_dup_str(jr, o, key, "commit", PG_JR_OPTIONAL, &m->git_commit);
	err = err ?: pg_jr_dup_str(jr, o, key, "start_time", PG_JR_OPTIONAL, &m->start_time);
	err = err ?: pg_jr_dup_str(jr, o, key, "kernel", PG_JR_OPTIONAL, &m->kernel);
	err = err ?: pg_jr_dup_str(jr, o, key, "perfgate_version", PG_JR_OPTIONAL,
				   &m->perfgate_version);
	err = err ?: pg_jr_get_u64(jr, o, key, "repetitions", SIZE_MAX, &n);
	*reps = (size_t)n;
	return err;
}

/* One side of "environment" into @m: kernel and CPU model where the side had none, entries. */
static int read_env_side(const struct pg_jr *jr, struct json_object *env, const char *key,
			 struct pg_meta *m)
{
	struct json_object *o;
	int err = pg_jr_member(jr, env, "environment", key, json_type_object, PG_JR_OPTIONAL, &o);

	if (err || !o)
		return err;
	json_object_object_foreach(o, name, val) {
		const char *s;

		err = pg_jr_to_str(jr, val, "environment", name, PG_JR_REQUIRED, &s);
		if (err)
			return err;
		if (!*name || strchr(name, '='))
			return pg_jr_bad(jr, "environment", "\"%.40s\" is not a key", name);
		if (!strcmp(name, "kernel") || !strcmp(name, "cpu_model")) {
			char **dst = !strcmp(name, "kernel") ? &m->kernel : &m->cpu_model;

			if (!*dst && !(*dst = strdup(s)))
				return pg_jr_oom(jr);
		} else if (pg_env_set(m, name, s)) {
			return pg_jr_oom(jr);
		}
	}
	return 0;
}

/* Optional "environment" (absent in results from before): both sides' into their metadata. */
static int read_environment(const struct pg_jr *jr, struct json_object *root,
			    struct pg_run *base, struct pg_run *new)
{
	struct json_object *o, *d;
	char **items = NULL;
	size_t n = 0;
	int err = pg_jr_member(jr, root, "", "environment", json_type_object, PG_JR_OPTIONAL, &o);

	if (err || !o)
		return err;
	err = read_env_side(jr, o, "base", &base->meta);
	err = err ?: read_env_side(jr, o, "new", &new->meta);
	/* the differences follow from the sides: checked, not kept */
	err = err ?: pg_jr_member(jr, o, "environment", "differences", json_type_array,
				  PG_JR_OPTIONAL, &d);
	if (!err && d)
		err = pg_jr_strv(jr, d, "environment", "differences", &items, &n);
	pg_strv_free(items, n);
	return err;
}

static int get_count(const struct pg_jr *jr, struct json_object *o, const char *where,
		     const char *key, size_t *out)
{
	uint64_t n = 0;
	int err = pg_jr_get_u64(jr, o, where, key, SIZE_MAX, &n);

	*out = (size_t)n;
	return err;
}

/* One function entry (or "wall") @o at @where into @f (initialised). */
static int read_fcmp(const struct pg_jr *jr, struct json_object *o, const char *where,
		     struct pg_fcmp *f)
{
	const char *reason;
	struct json_object *line;
	uint64_t l = 0;
	int verdict = 0, err;

	err = pg_jr_want(jr, o, where, "the entry", json_type_object, PG_JR_REQUIRED);
	/* null in a "wall" entry that was not measured */
	err = err ?: pg_jr_dup_str(jr, o, where, "binary", PG_JR_OPTIONAL, &f->binary);
	err = err ?: pg_jr_dup_str(jr, o, where, "name", PG_JR_OPTIONAL, &f->name);
	err = err ?: pg_jr_dup_str(jr, o, where, "display", PG_JR_OPTIONAL, &f->display);
	err = err ?: pg_jr_get_enum(jr, o, where, "verdict", verdict_name,
				    PG_VERDICT_COUNT, &verdict);
	f->verdict = (enum pg_verdict)verdict;
	err = err ?: get_count(jr, o, where, "n_base", &f->n_base);
	err = err ?: get_count(jr, o, where, "n_new", &f->n_new);
	if (!err) {
		uint64_t pairs = 0;	/* absent before paired comparisons: 0 */

		err = pg_jr_opt_u64(jr, o, where, "pairs", SIZE_MAX, &pairs);
		f->pairs = (size_t)pairs;
	}
	err = err ?: pg_jr_get_num(jr, o, where, "base_ns", PG_JR_OPTIONAL, &f->base_ns);
	err = err ?: pg_jr_get_num(jr, o, where, "new_ns", PG_JR_OPTIONAL, &f->new_ns);
	err = err ?: pg_jr_get_num(jr, o, where, "base_calls", PG_JR_OPTIONAL, &f->base_calls);
	err = err ?: pg_jr_get_num(jr, o, where, "new_calls", PG_JR_OPTIONAL, &f->new_calls);
	err = err ?: pg_jr_get_bool(jr, o, where, "calls_changed", &f->calls_changed);
	err = err ?: pg_jr_get_num(jr, o, where, "change", PG_JR_OPTIONAL, &f->change);
	err = err ?: pg_jr_get_num(jr, o, where, "ci_lo", PG_JR_OPTIONAL, &f->ci_lo);
	err = err ?: pg_jr_get_num(jr, o, where, "ci_hi", PG_JR_OPTIONAL, &f->ci_hi);
	err = err ?: pg_jr_get_num(jr, o, where, "p", PG_JR_OPTIONAL, &f->p);
	err = err ?: pg_jr_get_num(jr, o, where, "q", PG_JR_OPTIONAL, &f->q);
	err = err ?: pg_jr_get_num(jr, o, where, "probe_share", PG_JR_OPTIONAL, &f->probe_share);
	err = err ?: pg_jr_get_num(jr, o, where, "calib_unc", PG_JR_OPTIONAL, &f->calib_unc);
	if (!err && isnan(f->calib_unc))	/* null: unbounded; absent (older files): none */
		f->calib_unc = json_object_object_get_ex(o, "calib_unc", NULL) ? INFINITY : 0;
	err = err ?: pg_jr_get_num(jr, o, where, "impact_ns", PG_JR_OPTIONAL, &f->impact_ns);
	err = err ?: pg_jr_get_num(jr, o, where, "impact", PG_JR_OPTIONAL, &f->impact);
	err = err ?: pg_jr_get_num(jr, o, where, "change_cpu", PG_JR_OPTIONAL, &f->change_cpu);
	err = err ?: pg_jr_get_num(jr, o, where, "change_offcpu", PG_JR_OPTIONAL,
				   &f->change_offcpu);
	err = err ?: pg_jr_get_num(jr, o, where, "change_runq", PG_JR_OPTIONAL, &f->change_runq);
	err = err ?: pg_jr_get_num(jr, o, where, "kernel_share", PG_JR_OPTIONAL,
				   &f->kernel_share);
	err = err ?: read_cause(jr, o, where, &f->cause);
	err = err ?: read_judged_on(jr, o, where, &f->by_cpu);
	err = err ?: read_origin(jr, o, where, f);
	err = err ?: read_waker(jr, o, where, &f->waker);
	err = err ?: pg_jr_get_str(jr, o, where, "reason", PG_JR_OPTIONAL, &reason);
	err = err ?: pg_jr_dup_str(jr, o, where, "file", PG_JR_OPTIONAL, &f->src_file);
	err = err ?: pg_jr_dup_str(jr, o, where, "scope", PG_JR_OPTIONAL, &f->scope);
	err = err ?: pg_jr_member(jr, o, where, "line", json_type_int, PG_JR_OPTIONAL, &line);
	if (!err && line)
		err = pg_jr_to_u64(jr, line, where, "\"line\"", UINT32_MAX, &l);
	if (err)
		return err;
	/* null interval ends of an estimated change are unbounded */
	if (!isnan(f->change) && isnan(f->ci_lo))
		f->ci_lo = -INFINITY;
	if (!isnan(f->change) && isnan(f->ci_hi))
		f->ci_hi = INFINITY;
	if (reason)
		snprintf(f->reason, sizeof(f->reason), "%s", reason);
	f->src_line = f->src_file ? (uint32_t)l : 0;
	return 0;
}

static int read_head(const struct pg_jr *jr, struct json_object *root, struct pg_comparison *c)
{
	struct json_object *v, *o;
	const char *s;
	int overall = 0, err;

	err = pg_jr_want(jr, root, "", "the top level", json_type_object, PG_JR_REQUIRED);
	err = err ?: pg_jr_get_str(jr, root, "", "format", PG_JR_REQUIRED, &s);
	if (!err && strcmp(s, PG_RESULT_FORMAT))
		return pg_jr_bad(jr, "", "\"format\" is \"%.40s\", not \"%s\"", s,
				 PG_RESULT_FORMAT);
	err = err ?: pg_jr_member(jr, root, "", "version", json_type_int, PG_JR_REQUIRED, &v);
	if (!err && json_object_get_int64(v) != PG_RESULT_VERSION)
		return pg_jr_bad(jr, "", "version %lld is not supported (this perfgate reads "
				 "version %d)", (long long)json_object_get_int64(v),
				 PG_RESULT_VERSION);
	err = err ?: pg_jr_get_enum(jr, root, "", "overall", overall_name,
				    PG_OVERALL_INCONCLUSIVE + 1, &overall);
	c->overall = (enum pg_overall)overall;
	err = err ?: pg_jr_get_str(jr, root, "", "overall_reason", PG_JR_OPTIONAL, &s);
	if (!err && s)
		snprintf(c->overall_reason, sizeof(c->overall_reason), "%s", s);

	err = err ?: pg_jr_member(jr, root, "", "options", json_type_object, PG_JR_REQUIRED, &o);
	err = err ?: pg_jr_get_num(jr, o, "options", "alpha", PG_JR_OPTIONAL, &c->opts.alpha);
	err = err ?: pg_jr_get_num(jr, o, "options", "min_effect", PG_JR_OPTIONAL,
				   &c->opts.min_effect);
	err = err ?: pg_jr_get_str(jr, o, "options", "metric", PG_JR_REQUIRED, &s);
	if (!err)
		c->opts.metric = !strcmp(s, pg_metric_name(PG_METRIC_TOTAL)) ? PG_METRIC_TOTAL :
				 !strcmp(s, pg_metric_name(PG_METRIC_CPU)) ? PG_METRIC_CPU :
									     PG_METRIC_SELF;
	if (!err) {
		uint64_t n;

		err = pg_jr_get_u64(jr, o, "options", "min_reps", UINT32_MAX, &n);
		c->opts.min_reps = (uint32_t)n;
	}
	/* absent from results written before the impact rule: it was off */
	err = err ?: pg_jr_get_num(jr, o, "options", "min_impact", PG_JR_OPTIONAL,
				   &c->opts.min_impact);
	if (!err && isnan(c->opts.min_impact))
		c->opts.min_impact = 0;
	return err;
}

/* "paired" and "npairs": absent (results from before paired comparisons) is unpaired. */
static int read_pairing(const struct pg_jr *jr, struct json_object *root, struct pg_comparison *c)
{
	struct json_object *v, *b = NULL;
	uint64_t n = 0;
	int err;

	err = pg_jr_member(jr, root, "", "paired", json_type_boolean, PG_JR_OPTIONAL, &v);
	c->paired = !err && v && json_object_get_boolean(v);
	/* "runq_out": absent before the waits for a CPU were left out of two recordings */
	err = err ?: pg_jr_member(jr, root, "", "runq_out", json_type_boolean, PG_JR_OPTIONAL, &v);
	c->runq_out = !err && v && json_object_get_boolean(v);
	err = err ?: pg_jr_opt_u64(jr, root, "", "npairs", SIZE_MAX, &n);
	c->npairs = (size_t)n;
	/* "speed": absent before the machine's speed correction, which was then off */
	err = err ?: pg_jr_member(jr, root, "", "speed", json_type_object, PG_JR_OPTIONAL, &v);
	if (err || !v)
		return err;
	err = pg_jr_get_bool(jr, v, "speed", "applied", &c->speed_applied);
	err = err ?: pg_jr_opt_u64(jr, v, "speed", "refs", SIZE_MAX, &n);
	c->speed_refs = (size_t)n;
	err = err ?: pg_jr_get_num(jr, v, "speed", "spread", PG_JR_OPTIONAL, &c->speed_spread);
	err = err ?: pg_jr_get_num(jr, v, "speed", "shift", PG_JR_OPTIONAL, &c->speed_shift);
	err = err ?: pg_jr_get_num(jr, v, "speed", "p", PG_JR_OPTIONAL, &c->speed_p);
	/* "between_runs" and "changed": absent for pairs and history sessions */
	err = err ?: pg_jr_member(jr, v, "speed", "between_runs", json_type_boolean,
				  PG_JR_OPTIONAL, &b);
	c->speed_runs = !err && b && json_object_get_boolean(b);
	err = err ?: pg_jr_opt_u64(jr, v, "speed", "changed", SIZE_MAX, &n);
	c->speed_changed = (size_t)n;
	/* "source", "spin", "spin_se": absent before the reference spin */
	err = err ?: pg_jr_get_num(jr, v, "speed", "spin", PG_JR_OPTIONAL, &c->speed_spin);
	err = err ?: pg_jr_get_num(jr, v, "speed", "spin_se", PG_JR_OPTIONAL, &c->speed_spin_se);
	/* "spread_prior": absent before a few references' own noise was taken as a prior */
	err = err ?: pg_jr_member(jr, v, "speed", "spread_prior", json_type_boolean,
				  PG_JR_OPTIONAL, &b);
	c->speed_spread_prior = !err && b && json_object_get_boolean(b);
	/* "inflation", "inflation_n", "inflation_prior": absent before the z-scale null */
	err = err ?: pg_jr_get_num(jr, v, "speed", "inflation", PG_JR_OPTIONAL,
				   &c->speed_inflation);
	err = err ?: pg_jr_opt_u64(jr, v, "speed", "inflation_n", SIZE_MAX, &n);
	c->speed_inflation_n = (size_t)n;
	err = err ?: pg_jr_member(jr, v, "speed", "inflation_prior", json_type_boolean,
				  PG_JR_OPTIONAL, &b);
	c->speed_inflation_prior = !err && b && json_object_get_boolean(b);
	/* "kernel_inflation", "kernel_n": absent before the kernel's class of the null */
	err = err ?: pg_jr_get_num(jr, v, "speed", "kernel_inflation", PG_JR_OPTIONAL,
				   &c->speed_kernel_inflation);
	if (!err && isnan(c->speed_kernel_inflation))
		c->speed_kernel_inflation = 0;
	err = err ?: pg_jr_opt_u64(jr, v, "speed", "kernel_n", SIZE_MAX, &n);
	c->speed_kernel_n = (size_t)n;
	/* "program_spin": absent before the program's CPU time was corrected by the spins */
	err = err ?: pg_jr_get_num(jr, v, "speed", "program_spin", PG_JR_OPTIONAL,
				   &c->program_spin);
	err = err ?: pg_jr_member(jr, v, "speed", "source", json_type_string, PG_JR_OPTIONAL, &b);
	if (!err && b && pg_speed_src_parse(json_object_get_string(b), &c->speed_src))
		err = pg_jr_bad(jr, "speed", "unknown \"source\" %s", json_object_get_string(b));
	return err;
}

static int read_root(const struct pg_jr *jr, struct json_object *root, struct pg_comparison *c,
		     struct pg_run *base, struct pg_run *new)
{
	struct json_object *o;
	size_t n;
	int err;

	err = read_head(jr, root, c);
	err = err ?: read_side(jr, root, "base", base, &c->base_reps);
	err = err ?: read_side(jr, root, "new", new, &c->new_reps);
	err = err ?: read_environment(jr, root, base, new);

	err = err ?: pg_jr_member(jr, root, "", "counts", json_type_object, PG_JR_REQUIRED, &o);
	err = err ?: get_count(jr, o, "counts", "tested", &c->ntested);
	err = err ?: get_count(jr, o, "counts", "regressions", &c->nregressions);
	err = err ?: get_count(jr, o, "counts", "improvements", &c->nimprovements);
	err = err ?: get_count(jr, o, "counts", "unchanged", &c->nunchanged);
	err = err ?: get_count(jr, o, "counts", "inconclusive", &c->ninconclusive);
	err = err ?: get_count(jr, o, "counts", "added", &c->nadded);
	err = err ?: get_count(jr, o, "counts", "removed", &c->nremoved);
	if (!err) {
		uint64_t notable = 0;

		err = pg_jr_opt_u64(jr, o, "counts", "notable", SIZE_MAX, &notable);
		c->nnotable = (size_t)notable;
	}
	err = err ?: read_judged(jr, root, o, c);

	err = err ?: pg_jr_dup_strv(jr, root, "", "warnings", PG_JR_REQUIRED, &c->warnings,
				    &c->nwarnings);
	err = err ?: read_pairing(jr, root, c);
	err = err ?: pg_jr_member(jr, root, "", "wall", json_type_object, PG_JR_REQUIRED, &o);
	err = err ?: read_fcmp(jr, o, "wall", &c->wall);
	err = err ?: pg_jr_member(jr, root, "", "functions", json_type_array, PG_JR_REQUIRED, &o);
	if (err)
		return err;
	n = json_object_array_length(o);
	c->f = calloc(n ? n : 1, sizeof(*c->f));
	if (!c->f)
		return pg_jr_oom(jr);
	for (size_t i = 0; i < n; i++) {
		char where[48];

		snprintf(where, sizeof(where), "functions[%zu]", i);
		pg_fcmp_init(&c->f[i]);
		c->n = i + 1;
		err = read_fcmp(jr, json_object_array_get_idx(o, i), where, &c->f[i]);
		if (err)
			return err;
		if (!c->f[i].binary || !c->f[i].name)
			return pg_jr_bad(jr, where, "no binary or name");
		c->ncode_changed += c->f[i].code == PG_CODE_CHANGED;
	}
	if (c->nregressions && c->overall == PG_OVERALL_PASS)
		return pg_jr_bad(jr, "", "\"overall\" is \"pass\" but there are regressions");
	return 0;
}

int pg_result_parse(const char *buf, size_t len, const char *name, struct pg_comparison *c,
		    struct pg_run *base, struct pg_run *new)
{
	struct pg_jr jr = { .name = name, .context = "not a usable perfgate compare result" };
	const struct pg_jr syntax = { .name = name };
	struct json_object *root = NULL;
	int err;

	pg_comparison_release(c);
	pg_run_release(base);
	pg_run_release(new);
	err = pg_jr_parse(&syntax, "perfgate compare result", buf, len, &root);
	err = err ?: read_root(&jr, root, c, base, new);
	json_object_put(root);
	if (err) {
		pg_comparison_release(c);
		pg_run_release(base);
		pg_run_release(new);
	}
	return err;
}

int pg_result_read(const char *path, bool quiet_enoent, struct pg_comparison *c,
		   struct pg_run *base, struct pg_run *new)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (stat(path, &st)) {
		err = -errno;
		if (err != -ENOENT || !quiet_enoent)
			pg_err("cannot read %s: %s", path, strerror(-err));
		return err;
	}
	err = pg_jr_slurp(path, PG_RESULT_MAX_BYTES, "for compare results", &buf, &len);
	err = err ?: pg_result_parse(buf, len, path, c, base, new);
	free(buf);
	return err;
}
