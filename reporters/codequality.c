// SPDX-License-Identifier: MIT
/*
 * reporters/codequality.c - the GitLab Code Quality report of `perfgate compare`
 * (reporters/compare_out.h): a JSON array of findings, each
 *
 *	{ "description": "...", "check_name": "perfgate-regression", "fingerprint": "<32 hex>",
 *	  "severity": "major", "location": { "path": "src/x.c", "lines": { "begin": 42 } } }
 *
 * one per regressed function (severity major) and per notable one (minor), in the order of
 * the comparison, at the declaration of the function relative to the repository root. GitLab
 * shows them in the merge request's diff and lists the new ones in its widget, telling new
 * from old by the fingerprint: it depends on the check, the file and the function, never on
 * the numbers or the line, so that a slowdown that stays is the same finding on every push.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic.h"
#include "../core/hash.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "compare_out.h"
#include "fmt.h"

/* a second FNV-1a offset basis: the fingerprint is two independent 64-bit hashes */
#define FP_INIT2 (PG_FNV1A_INIT ^ 0x9e3779b97f4a7c15ull)

static uint64_t fp_hash(uint64_t h, const char *check, const char *path, const struct pg_fcmp *f)
{
	const char *parts[] = { check, path, f->binary, f->name, f->scope };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *s = parts[i] ? parts[i] : "";

		h = pg_fnv1a(h, s, strlen(s) + 1);	/* the NUL separates the parts */
	}
	return h;
}

/*
 * "perfgate: NAME regressed: +25.0% per call (self time, 1.20 us -> 1.50 us), 95% interval
 * [+20.0%, +30.0%], q=0.001", then what explains the change, if anything does.
 */
static char *description(const struct pg_comparison *c, const struct pg_fcmp *f)
{
	char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], a[PG_FMT_LEN], b[PG_FMT_LEN];
	const char *name = f->display && *f->display ? f->display : f->name;
	bool exact = f->origin == PG_ORIGIN_EXACT;
	char *s = NULL;

	if (asprintf(&s, "perfgate: %s %s: %s %s (%s time%s, %s -> %s), %g%% interval %s, "
		     "q=%.2g%s%s%s%s%s", name ? name : "?",
		     f->verdict == PG_VERDICT_REGRESSION ? "regressed" : "notable",
		     pg_fmt_pct(ch, sizeof(ch), f->change),
		     exact ? "per call" : "a repetition",
		     f->origin == PG_ORIGIN_PROGRAM ? "the whole program's" :
		     pg_metric_name(c->opts.metric), exact ? "" : ", sampled",
		     pg_fmt_ns(a, sizeof(a), f->base_ns), pg_fmt_ns(b, sizeof(b), f->new_ns),
		     (1 - c->opts.alpha) * 100, pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi),
		     f->q, f->verdict == PG_VERDICT_NOTABLE ?
		     "; under the minimum impact, it does not fail" : "",
		     f->why[0] ? "; cause: " : "", f->why,
		     f->explain[0] ? "; " : "", f->explain) < 0)
		return NULL;
	return s;
}

/* One finding of @f at @path into @arr. 0 or -ENOMEM. */
static int put_finding(struct json_object *arr, const struct pg_comparison *c,
		       const struct pg_fcmp *f, const char *path)
{
	bool reg = f->verdict == PG_VERDICT_REGRESSION;
	const char *check = reg ? "perfgate-regression" : "perfgate-notable";
	struct json_object *o = json_object_new_object(), *loc = NULL, *lines = NULL;
	char fp[33], *desc = description(c, f);
	int err = o && desc ? 0 : -ENOMEM;

	snprintf(fp, sizeof(fp), "%016" PRIx64 "%016" PRIx64,
		 fp_hash(PG_FNV1A_INIT, check, path, f), fp_hash(FP_INIT2, check, path, f));
	err = err ?: pg_json_put_utf8(o, "description", desc);
	err = err ?: pg_json_put_str(o, "check_name", check);
	err = err ?: pg_json_put_str(o, "fingerprint", fp);
	err = err ?: pg_json_put_str(o, "severity", reg ? "major" : "minor");
	if (!err) {
		loc = json_object_new_object();
		lines = json_object_new_object();
		err = loc && lines ? 0 : -ENOMEM;
		err = err ?: pg_json_put_int(lines, "begin", f->src_line);
		err = err ?: pg_json_put_utf8(loc, "path", path);
		if (!err) {
			err = pg_json_put(loc, "lines", lines);	/* consumes lines */
			lines = NULL;
		}
		if (!err) {
			err = pg_json_put(o, "location", loc);	/* consumes loc */
			loc = NULL;
		}
	}
	json_object_put(lines);
	json_object_put(loc);
	free(desc);
	if (err) {
		json_object_put(o);
		return err;
	}
	return pg_json_push(arr, o);	/* consumes o */
}

int pg_compare_codequality(const struct pg_comparison *c, const char *root, char **out)
{
	struct json_object *arr = json_object_new_array();
	const char *text;
	int err = arr ? 0 : -ENOMEM;

	/* regressions first, then the notable ones; each pass in the comparison's order */
	for (int pass = 0; pass < 2 && !err; pass++) {
		enum pg_verdict want = pass ? PG_VERDICT_NOTABLE : PG_VERDICT_REGRESSION;

		for (size_t i = 0; i < c->n && !err; i++) {
			const struct pg_fcmp *f = &c->f[i];
			const char *path;

			if (f->verdict != want || !f->src_file || !f->src_line)
				continue;
			path = pg_fmt_relative(f->src_file, root);
			/* outside the repository: nothing in a merge request to point at */
			if (path[0] == '/' || !*path)
				continue;
			while (path[0] == '.' && path[1] == '/')
				path += 2;
			err = put_finding(arr, c, f, path);
		}
	}
	if (!err) {
		text = json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
		*out = text ? malloc(strlen(text) + 2) : NULL;
		if (*out)
			sprintf(*out, "%s\n", text);
		else
			err = -ENOMEM;
	}
	json_object_put(arr);
	return err;
}

int pg_compare_write_codequality(const struct pg_comparison *c, const char *root,
				 const char *path)
{
	char *text = NULL;
	int err = pg_compare_codequality(c, root, &text);

	if (err) {
		pg_err("cannot write the Code Quality report %s: out of memory", path);
		return err;
	}
	err = pg_atomic_write(path, text, strlen(text));
	free(text);
	return err;
}
