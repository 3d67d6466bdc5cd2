// SPDX-License-Identifier: MIT
/*
 * reporters/compare_json.c - the JSON result of `perfgate compare` (reporters/compare_out.h),
 * format "perfgate-compare" version 1, described field by field in docs/compare-format.md.
 *
 * Stable: every key is always present, in a fixed order. Numbers that are NAN or infinite are
 * written as null (JSON has neither). Strings are valid UTF-8 (invalid bytes become U+FFFD).
 * Doubles are written in their shortest form that reads back to the same value.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "../core/version.h"
#include "compare_out.h"
#include "fmt.h"


/* Building the tree: a failed allocation sets *err and makes every later step a no-op. */
struct jb {
	int err;
};

static json_object *jb_check(struct jb *b, json_object *o)
{
	if (!o && !b->err)
		b->err = -ENOMEM;
	return o;
}

static void jb_add(struct jb *b, json_object *obj, const char *key, json_object *val)
{
	if (b->err || !obj) {
		json_object_put(val);
		return;
	}
	if (json_object_object_add(obj, key, val)) {	/* a NULL val is JSON null */
		json_object_put(val);
		b->err = -ENOMEM;
	}
}

static void jb_append(struct jb *b, json_object *arr, json_object *val)
{
	if (b->err || !arr) {
		json_object_put(val);
		return;
	}
	if (json_object_array_add(arr, val)) {
		json_object_put(val);
		b->err = -ENOMEM;
	}
}

/* A string, or null for NULL. */
static json_object *jb_str(struct jb *b, const char *s)
{
	json_object *o;
	char *u;

	if (!s || b->err)
		return NULL;
	u = pg_fmt_utf8(s, false);
	if (!u) {
		b->err = -ENOMEM;
		return NULL;
	}
	o = jb_check(b, json_object_new_string(u));
	free(u);
	return o;
}

/* A number in its shortest round-trip form, or null for NAN and infinities. */
static json_object *jb_num(struct jb *b, double v)
{
	char buf[40];

	if (!isfinite(v) || b->err)
		return NULL;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return jb_check(b, json_object_new_double_s(v, buf));
}

static json_object *jb_int(struct jb *b, int64_t v)
{
	return b->err ? NULL : jb_check(b, json_object_new_int64(v));
}

static json_object *jb_bool(struct jb *b, bool v)
{
	return b->err ? NULL : jb_check(b, json_object_new_boolean(v));
}

static json_object *jb_obj(struct jb *b)
{
	return b->err ? NULL : jb_check(b, json_object_new_object());
}

static json_object *jb_arr(struct jb *b)
{
	return b->err ? NULL : jb_check(b, json_object_new_array());
}

static json_object *side_json(struct jb *b, const struct pg_run *run, size_t reps)
{
	const struct pg_meta *m = run ? &run->meta : NULL;
	json_object *o = jb_obj(b), *argv = NULL;

	if (m) {
		argv = jb_arr(b);
		for (size_t i = 0; i < m->argc; i++)
			jb_append(b, argv, jb_str(b, m->argv[i] ? m->argv[i] : ""));
	}
	jb_add(b, o, "command", argv);
	jb_add(b, o, "host", jb_str(b, m ? m->host : NULL));
	jb_add(b, o, "commit", jb_str(b, m ? m->git_commit : NULL));
	jb_add(b, o, "repetitions", jb_int(b, reps));
	jb_add(b, o, "start_time", jb_str(b, m ? m->start_time : NULL));
	jb_add(b, o, "kernel", jb_str(b, m ? m->kernel : NULL));
	jb_add(b, o, "perfgate_version", jb_str(b, m ? m->perfgate_version : NULL));
	return o;
}

static json_object *fcmp_json(struct jb *b, const struct pg_fcmp *f)
{
	json_object *o = jb_obj(b);

	jb_add(b, o, "binary", jb_str(b, f->binary));
	jb_add(b, o, "name", jb_str(b, f->name));
	jb_add(b, o, "display", jb_str(b, f->display ? f->display : f->name));
	jb_add(b, o, "verdict", jb_str(b, pg_verdict_name(f->verdict)));
	jb_add(b, o, "n_base", jb_int(b, f->n_base));
	jb_add(b, o, "n_new", jb_int(b, f->n_new));
	jb_add(b, o, "base_ns", jb_num(b, f->base_ns));
	jb_add(b, o, "new_ns", jb_num(b, f->new_ns));
	jb_add(b, o, "base_calls", jb_num(b, f->base_calls));
	jb_add(b, o, "new_calls", jb_num(b, f->new_calls));
	jb_add(b, o, "calls_changed", jb_bool(b, f->calls_changed));
	jb_add(b, o, "change", jb_num(b, f->change));
	jb_add(b, o, "ci_lo", jb_num(b, f->ci_lo));
	jb_add(b, o, "ci_hi", jb_num(b, f->ci_hi));
	jb_add(b, o, "p", jb_num(b, f->p));
	jb_add(b, o, "q", jb_num(b, f->q));
	jb_add(b, o, "probe_share", jb_num(b, f->probe_share));
	jb_add(b, o, "reason", jb_str(b, f->reason));
	jb_add(b, o, "file", jb_str(b, f->src_file));
	jb_add(b, o, "line", f->src_file && f->src_line ? jb_int(b, f->src_line) : NULL);
	return o;
}

static json_object *comparison_json(struct jb *b, const struct pg_comparison *c,
				    const struct pg_run *base, const struct pg_run *new)
{
	json_object *root = jb_obj(b), *o, *a;
	size_t i;

	jb_add(b, root, "format", jb_str(b, PG_COMPARE_FORMAT));
	jb_add(b, root, "version", jb_int(b, PG_COMPARE_VERSION));
	jb_add(b, root, "perfgate_version", jb_str(b, PERFGATE_VERSION));
	jb_add(b, root, "overall", jb_str(b, pg_overall_name(c->overall)));
	jb_add(b, root, "overall_reason", jb_str(b, c->overall_reason));

	o = jb_obj(b);
	jb_add(b, o, "alpha", jb_num(b, c->opts.alpha));
	jb_add(b, o, "min_effect", jb_num(b, c->opts.min_effect));
	jb_add(b, o, "metric", jb_str(b, pg_metric_name(c->opts.metric)));
	jb_add(b, o, "raw", json_object_new_boolean(c->opts.raw));
	jb_add(b, o, "compensated", json_object_new_boolean(c->compensated));
	jb_add(b, o, "min_reps", jb_int(b, c->opts.min_reps));
	jb_add(b, root, "options", o);

	jb_add(b, root, "base", side_json(b, base, c->base_reps));
	jb_add(b, root, "new", side_json(b, new, c->new_reps));

	o = jb_obj(b);
	jb_add(b, o, "functions", jb_int(b, c->n));
	jb_add(b, o, "tested", jb_int(b, c->ntested));
	jb_add(b, o, "regressions", jb_int(b, c->nregressions));
	jb_add(b, o, "improvements", jb_int(b, c->nimprovements));
	jb_add(b, o, "unchanged", jb_int(b, c->nunchanged));
	jb_add(b, o, "inconclusive", jb_int(b, c->ninconclusive));
	jb_add(b, o, "added", jb_int(b, c->nadded));
	jb_add(b, o, "removed", jb_int(b, c->nremoved));
	jb_add(b, root, "counts", o);

	a = jb_arr(b);
	for (i = 0; i < c->nwarnings; i++)
		jb_append(b, a, jb_str(b, c->warnings[i] ? c->warnings[i] : ""));
	jb_add(b, root, "warnings", a);

	jb_add(b, root, "wall", fcmp_json(b, &c->wall));

	a = jb_arr(b);
	for (i = 0; i < c->n; i++)
		jb_append(b, a, fcmp_json(b, &c->f[i]));
	jb_add(b, root, "functions", a);
	return root;
}

int pg_compare_write_json(const struct pg_comparison *c, const struct pg_run *base,
			  const struct pg_run *new, const char *path)
{
	struct jb b = { 0 };
	json_object *root = comparison_json(&b, c, base, new);
	const char *s = NULL;
	size_t len = 0;
	char *text = NULL;
	int err;

	if (!b.err)
		s = json_object_to_json_string_length(root, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_SPACED |
						      JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	/* with a final newline, as text files have */
	if (s && (text = malloc(len + 2))) {
		memcpy(text, s, len);
		text[len++] = '\n';
		text[len] = '\0';
	}
	json_object_put(root);
	if (!text) {
		pg_err("%s: cannot build the comparison JSON: out of memory", path);
		return -ENOMEM;
	}
	err = pg_atomic_write(path, text, len);
	free(text);
	return err;
}
