// SPDX-License-Identifier: MIT
/*
 * formats/runfile_read.c - reading run files (formats/runfile.h) through the bounded JSON
 * toolkit (formats/json_read.h): every value's type and range is checked where it is read, and
 * a message names the file and the JSON path of what is wrong.
 *
 * The reader is strict about everything it knows (types, ranges, order, the invariants of
 * core/run.h) and ignores keys it does not know, so that later versions can add optional keys
 * (sampled stacks, calibration, ...) without breaking older readers.
 */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../core/log.h"
#include "json_read.h"
#include "gbench.h"
#include "runfile.h"
#include "runfile_stats.h"
#include "runfile_spin.h"
#include "runfile_woken.h"

/* Optional "meta.ab": {"session": id, "side": "base"|"new"} (perfgate ab). */
static int read_ab(const struct pg_jr *rd, struct json_object *ab, struct pg_meta *m)
{
	const char *side;
	int err;

	err = pg_jr_want(rd, ab, "meta", "\"ab\"", json_type_object, false);
	err = err ?: pg_jr_dup_str(rd, ab, "meta.ab", "session", false, &m->ab_session);
	err = err ?: pg_jr_get_str(rd, ab, "meta.ab", "side", false, &side);
	if (err)
		return err;
	if (!*m->ab_session)
		return pg_jr_bad(rd, "meta.ab", "\"session\" is empty");
	if (pg_ab_side_parse(side, &m->ab_side))
		return pg_jr_bad(rd, "meta.ab", "\"side\" must be \"base\" or \"new\"");
	return 0;
}

/* meta.budget_left_out: the functions record --budget left out (struct pg_budget_out). */
static int read_left_out(const struct pg_jr *rd, struct json_object *arr, struct pg_meta *m)
{
	const char *w = "meta.budget_left_out";
	size_t n = json_object_array_length(arr);
	int err = 0;

	m->left_out = calloc(n ? n : 1, sizeof(*m->left_out));
	if (!m->left_out)
		return pg_jr_oom(rd);
	for (size_t i = 0; !err && i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		struct pg_budget_out *o = &m->left_out[i];
		const char *site = NULL;

		m->nleft_out++;
		err = pg_jr_want(rd, e, w, "an entry", json_type_object, 0);
		err = err ?: pg_jr_dup_str(rd, e, w, "name", false, &o->name);
		err = err ?: pg_jr_dup_str(rd, e, w, "binary", false, &o->binary);
		err = err ?: pg_jr_get_str(rd, e, w, "site", false, &site);
		if (!err && pg_site_parse(site, &o->site))
			err = pg_jr_bad(rd, w, "entry %zu: unknown \"site\" %s", i, site);
		err = err ?: pg_jr_get_num(rd, e, w, "share", 0, &o->share);
		err = err ?: pg_jr_get_num(rd, e, w, "calls", 0, &o->calls);
		err = err ?: pg_jr_get_num(rd, e, w, "call_ns", 0, &o->call_ns);
		err = err ?: pg_jr_get_num(rd, e, w, "cost_pct", 0, &o->cost_pct);
		err = err ?: pg_jr_get_num(rd, e, w, "ref_call_ns", 0, &o->ref_call_ns);
		err = err ?: pg_jr_get_num(rd, e, w, "ref_cost_pct", 0, &o->ref_cost_pct);
		err = err ?: pg_jr_get_num(rd, e, w, "samples", 0, &o->samples);
		err = err ?: pg_jr_get_bool(rd, e, w, "judged", &o->judged);
		if (!err && !(o->share > 0 && o->share <= 1 && o->calls >= 0 && o->call_ns >= 0 &&
			      o->cost_pct >= 0 && o->ref_call_ns >= 0 && o->ref_cost_pct >= 0 &&
			      o->samples >= 0))
			err = pg_jr_bad(rd, w, "entry %zu: \"share\" must be in (0, 1] and the "
					"costs numbers >= 0", i);
	}
	return err;
}

/* Optional "meta.environment": {KEY: "VALUE"...} (struct pg_meta env). */
static int read_env(const struct pg_jr *rd, struct json_object *env, struct pg_meta *m)
{
	int err = pg_jr_want(rd, env, "meta", "\"environment\"", json_type_object, false);

	if (err)
		return err;
	json_object_object_foreach(env, key, val) {
		if (!*key || strchr(key, '=') || strlen(key) >= 256)
			return pg_jr_bad(rd, "meta.environment",
					 "a key is empty, too long or has '='");
		if (!json_object_is_type(val, json_type_string))
			return pg_jr_bad(rd, "meta.environment", "\"%s\" must be a string", key);
		if (pg_env_set(m, key, json_object_get_string(val)))
			return -ENOMEM;
	}
	return 0;
}

static int read_meta(const struct pg_jr *rd, struct json_object *root, struct pg_meta *m)
{
	struct json_object *meta, *opts, *v;
	uint64_t reps;
	int err;

	err = pg_jr_member(rd, root, "", "meta", json_type_object, false, &meta);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "perfgate_version", true,
				   &m->perfgate_version);
	err = err ?: pg_jr_dup_strv(rd, meta, "meta", "command", PG_JR_REQUIRED, &m->argv,
				    &m->argc);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "start_time", true, &m->start_time);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "host", true, &m->host);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "kernel", true, &m->kernel);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "cpu_model", true, &m->cpu_model);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "git_commit", true, &m->git_commit);
	err = err ?: pg_jr_dup_str(rd, meta, "meta", "cwd", true, &m->cwd);
	if (!err && json_object_object_get_ex(meta, "program", &v))
		err = pg_jr_dup_str(rd, meta, "meta", "program", true, &m->program);
	err = err ?: pg_jr_member(rd, meta, "meta", "options", json_type_object, false, &opts);
	err = err ?: pg_jr_get_u64(rd, opts, "meta.options", "repetitions", UINT32_MAX, &reps);
	err = err ?: pg_jr_dup_strv(rd, opts, "meta.options", "functions", PG_JR_REQUIRED,
				    &m->filters, &m->nfilters);
	err = err ?: pg_jr_dup_strv(rd, opts, "meta.options", "exclude", PG_JR_REQUIRED,
				    &m->excludes, &m->nexcludes);
	if (!err && json_object_object_get_ex(opts, "sample_hz", &v)) {
		uint64_t hz;

		err = pg_jr_to_u64(rd, v, "meta.options", "\"sample_hz\"", UINT32_MAX, &hz);
		m->sample_hz = (uint32_t)hz;
	}
	if (!err && json_object_object_get_ex(opts, "budget_pct", &v)) {
		enum json_type t = json_object_get_type(v);

		m->budget_pct = json_object_get_double(v);
		if ((t != json_type_double && t != json_type_int) ||
		    !(m->budget_pct > 0 && m->budget_pct <= 1000))
			err = pg_jr_bad(rd, "meta.options",
					"\"budget_pct\" must be a number in (0, 1000]");
	}
	if (!err && json_object_object_get_ex(opts, "functions_of", &v))
		err = pg_jr_dup_str(rd, opts, "meta.options", "functions_of", false,
				    &m->functions_of);
	if (!err && json_object_object_get_ex(opts, "offcpu", &v))
		err = pg_jr_get_bool(rd, opts, "meta.options", "offcpu", &m->offcpu);
	if (!err && json_object_object_get_ex(meta, "ab", &v))
		err = read_ab(rd, v, m);
	if (!err && json_object_object_get_ex(meta, "budget_left_out", &v))
		err = pg_jr_want(rd, v, "meta", "\"budget_left_out\"", json_type_array, 0) ?:
		      read_left_out(rd, v, m);
	if (!err && json_object_object_get_ex(meta, "environment", &v))
		err = read_env(rd, v, m);
	if (!err && json_object_object_get_ex(meta, "reference_spin", &v))
		err = pg_runfile_read_spin(rd, v, m);
	if (!err && !m->argc)
		err = pg_jr_bad(rd, "meta", "\"command\" is empty");
	if (!err)
		m->repetitions = (uint32_t)reps;
	return err;
}

/*
 * The histogram scheme must be the one this perfgate was built with. "durations": "raw" or
 * "compensated" (struct pg_run.hist_compensated), required from @version 2 on; version-1
 * histograms are raw.
 */
static int read_hist_scheme(const struct pg_jr *rd, struct json_object *root, int64_t version,
			    bool *comp)
{
	struct json_object *h, *v;
	const char *scheme, *dur = "raw";
	uint64_t bits, maxexp;
	int err;

	err = pg_jr_member(rd, root, "", "histogram", json_type_object, false, &h);
	err = err ?: pg_jr_get_str(rd, h, "histogram", "scheme", false, &scheme);
	err = err ?: pg_jr_get_u64(rd, h, "histogram", "sub_bucket_bits", 64, &bits);
	err = err ?: pg_jr_get_u64(rd, h, "histogram", "max_exponent", 64, &maxexp);
	if (err)
		return err;
	if (strcmp(scheme, PG_RUNFILE_HIST_SCHEME) || bits != PG_HIST_SUB_BITS ||
	    maxexp != PG_HIST_MAX_EXP)
		return pg_jr_bad(rd, "histogram", "unsupported histogram scheme %s/%" PRIu64 "/%"
				 PRIu64 " (this perfgate reads %s with sub_bucket_bits %d, "
				 "max_exponent %d)", scheme, bits, maxexp, PG_RUNFILE_HIST_SCHEME,
				 PG_HIST_SUB_BITS, PG_HIST_MAX_EXP);
	if ((version >= 2 || json_object_object_get_ex(h, "durations", &v)) &&
	    pg_jr_get_str(rd, h, "histogram", "durations", false, &dur))
		return -EINVAL;
	if (strcmp(dur, "raw") && strcmp(dur, "compensated"))
		return pg_jr_bad(rd, "histogram", "\"durations\" must be \"raw\" or "
				 "\"compensated\"");
	*comp = !strcmp(dur, "compensated");
	if (*comp && version < 2)
		return pg_jr_bad(rd, "histogram", "compensated durations in a version %" PRId64 " "
				 "file (they need version 2)", version);
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

static int read_func(const struct pg_jr *rd, struct json_object *o, size_t i,
		     struct pg_run *run)
{
	const char *name, *display, *binary, *addr_s, *site_s, *file = NULL, *scope = NULL;
	const char *code_s = NULL;
	struct json_object *endbr, *v;
	uint64_t id, addr, offset, line = 0, code = 0;
	enum pg_site site;
	char where[48];
	int err;

	snprintf(where, sizeof(where), "functions[%zu]", i);
	err = pg_jr_want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: pg_jr_get_u64(rd, o, where, "id", UINT32_MAX, &id);
	err = err ?: pg_jr_get_str(rd, o, where, "name", false, &name);
	err = err ?: pg_jr_get_str(rd, o, where, "display", false, &display);
	err = err ?: pg_jr_get_str(rd, o, where, "binary", false, &binary);
	err = err ?: pg_jr_get_str(rd, o, where, "address", false, &addr_s);
	err = err ?: pg_jr_get_u64(rd, o, where, "offset", UINT64_MAX, &offset);
	err = err ?: pg_jr_get_str(rd, o, where, "site", false, &site_s);
	err = err ?: pg_jr_member(rd, o, where, "endbr", json_type_boolean, false, &endbr);
	/* optional: the declaration's source position (older files do not have it) */
	if (!err && json_object_object_get_ex(o, "file", &v))
		err = pg_jr_to_str(rd, v, where, "\"file\"", true, &file);
	if (!err && json_object_object_get_ex(o, "line", &v) && v)
		err = pg_jr_to_u64(rd, v, where, "\"line\"", UINT32_MAX, &line);
	/* optional: what tells functions of one name apart (older files do not have it) */
	if (!err && json_object_object_get_ex(o, "scope", &v))
		err = pg_jr_to_str(rd, v, where, "\"scope\"", false, &scope);
	/* optional: the digest of its machine code (older files do not have it) */
	if (!err && json_object_object_get_ex(o, "code", &v))
		err = pg_jr_to_str(rd, v, where, "\"code\"", false, &code_s);
	if (err)
		return err;
	if (scope && !*scope)
		return pg_jr_bad(rd, where, "\"scope\" is empty");
	if (code_s && (parse_addr(code_s, &code) || !code))
		return pg_jr_bad(rd, where, "\"code\" must be a nonzero hexadecimal string like "
				 "\"0x5ca1ab1e00c0ffee\"");
	if (id != i)
		return pg_jr_bad(rd, where, "\"id\" is %" PRIu64 ", not %zu (ids number the "
				 "functions in order from 0)", id, i);
	if (!*name || !*binary)
		return pg_jr_bad(rd, where, "\"%s\" is empty", *name ? "binary" : "name");
	if (parse_addr(addr_s, &addr))
		return pg_jr_bad(rd, where, "\"address\" must be a hexadecimal string like "
				 "\"0x1139\", not \"%.40s\"", addr_s);
	/* a site kind from a later version is only a hint about probe cost: keep reading */
	if (pg_site_parse(site_s, &site))
		site = PG_SITE_UNKNOWN;
	err = pg_run_add_func(run, binary, name, display, addr, offset, site,
			      json_object_get_boolean(endbr), NULL);
	if (!err && file && line)
		err = pg_func_set_src(&run->funcs[run->nfuncs - 1], file, (uint32_t)line);
	/* the display name already ends in " [scope]": set the field alone */
	if (!err && scope && !(run->funcs[run->nfuncs - 1].scope = strdup(scope)))
		err = -ENOMEM;
	if (!err)
		run->funcs[run->nfuncs - 1].code = code;
	return err ? pg_jr_oom(rd) : 0;
}

static int read_hist(const struct pg_jr *rd, struct json_object *o, const char *where,
		     struct pg_hist *h)
{
	struct json_object *arr;
	uint64_t total = 0;
	size_t n;
	int err = pg_jr_member(rd, o, where, "hist", json_type_array, false, &arr);

	if (err)
		return err;
	n = json_object_array_length(arr);
	if (n <= PG_HIST_NBUCKETS && pg_hist_reserve(h, n))
		return pg_jr_oom(rd);
	for (size_t k = 0; k < n; k++) {
		struct json_object *pair = json_object_array_get_idx(arr, k);
		uint64_t idx, count;
		char what[48];

		snprintf(what, sizeof(what), "\"hist\"[%zu]", k);
		if (json_object_get_type(pair) != json_type_array ||
		    json_object_array_length(pair) != 2)
			return pg_jr_bad(rd, where, "%s must be a [bucket, count] pair", what);
		snprintf(what, sizeof(what), "\"hist\"[%zu] bucket", k);
		err = pg_jr_to_u64(rd, json_object_array_get_idx(pair, 0), where, what,
				   PG_HIST_NBUCKETS - 1, &idx);
		if (err)
			return err;
		snprintf(what, sizeof(what), "\"hist\"[%zu] count", k);
		err = pg_jr_to_u64(rd, json_object_array_get_idx(pair, 1), where, what, UINT64_MAX,
				   &count);
		if (err)
			return err;
		if (!count)
			return pg_jr_bad(rd, where, "\"hist\"[%zu] count is 0 (only non-empty "
					 "buckets are listed)", k);
		if (h->n && idx <= h->idx[h->n - 1])
			return pg_jr_bad(rd, where, "\"hist\" buckets must be strictly increasing "
					 "(%" PRIu64 " after %u)", idx, h->idx[h->n - 1]);
		if (total + count < total)
			return pg_jr_bad(rd, where, "\"hist\" counts overflow");
		total += count;
		if (pg_hist_add(h, (uint32_t)idx, count))
			return pg_jr_oom(rd);
	}
	return 0;
}

/* Optional per-site counts {"nop5": n, ...} (absent: zeros; unknown site names: an error). */
static int read_site_counts(const struct pg_jr *rd, struct json_object *o, const char *where,
			    const char *key, uint64_t out[PG_SITE_COUNT])
{
	struct json_object *v;
	char what[64];
	int err;

	memset(out, 0, PG_SITE_COUNT * sizeof(*out));
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	snprintf(what, sizeof(what), "\"%s\"", key);
	err = pg_jr_want(rd, v, where, what, json_type_object, false);
	if (err)
		return err;
	json_object_object_foreach(v, site, n) {
		enum pg_site k;

		if (pg_site_parse(site, &k))
			return pg_jr_bad(rd, where, "%s has an unknown site kind \"%.40s\"", what,
					 site);
		snprintf(what, sizeof(what), "\"%s.%s\"", key, site);
		err = pg_jr_to_u64(rd, n, where, what, UINT64_MAX, &out[k]);
		if (err)
			return err;
	}
	return 0;
}

/* A number of the calibration of site @name, 0 <= x < 1e7, into *@dst. */
static int calib_num(const struct pg_jr *rd, struct json_object *v, const char *name,
		     const char *key, double *dst)
{
	enum json_type t = json_object_get_type(v);

	if (t != json_type_double && t != json_type_int)
		return pg_jr_bad(rd, "calibration", "%s.%s must be a number", name, key);
	*dst = json_object_get_double(v);
	if (!(*dst >= 0 && *dst < 1e7))
		return pg_jr_bad(rd, "calibration", "%s.%s is out of range (%g)", name, key, *dst);
	return 0;
}

/*
 * Optional "calibration": {"nop5": {"in_ns": x, "out_ns": y, "measured_ns": z, "spread_ns":
 * s}, ...} with every site kind; "measured_ns" and "spread_ns" are optional (older files:
 * spread unknown, 0), each then on no site.
 */
static int read_calib(const struct pg_jr *rd, struct json_object *root, struct pg_calib *c)
{
	struct json_object *o, *site, *v;
	int nmeasured = 0, nspread = 0;

	memset(c, 0, sizeof(*c));
	if (!json_object_object_get_ex(root, "calibration", &o))
		return 0;
	if (pg_jr_want(rd, o, "", "\"calibration\"", json_type_object, false))
		return -EINVAL;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		const char *name = pg_site_name((enum pg_site)k);
		double *dst[2] = { &c->in_ns[k], &c->out_ns[k] };
		const char *keys[2] = { "in_ns", "out_ns" };

		if (pg_jr_member(rd, o, "calibration", name, json_type_object, false, &site))
			return -EINVAL;
		for (int j = 0; j < 2; j++) {
			if (!json_object_object_get_ex(site, keys[j], &v))
				return pg_jr_bad(rd, "calibration", "%s.%s is missing", name,
						 keys[j]);
			if (calib_num(rd, v, name, keys[j], dst[j]))
				return -EINVAL;
		}
		if (json_object_object_get_ex(site, "measured_ns", &v)) {
			if (calib_num(rd, v, name, "measured_ns", &c->measured_ns[k]))
				return -EINVAL;
			nmeasured++;
		}
		if (json_object_object_get_ex(site, "spread_ns", &v)) {
			if (calib_num(rd, v, name, "spread_ns", &c->spread_ns[k]))
				return -EINVAL;
			nspread++;
		}
	}
	if (nspread && nspread != PG_SITE_COUNT)
		return pg_jr_bad(rd, "calibration", "\"spread_ns\" is given for some site kinds "
				 "only");
	if (nmeasured && nmeasured != PG_SITE_COUNT)
		return pg_jr_bad(rd, "calibration", "\"measured_ns\" is given for some site kinds "
				 "only");
	c->measured = nmeasured == PG_SITE_COUNT;
	c->valid = true;
	return 0;
}

/* A statistic of a version-1 or -2 file: an object with named keys. */
static int read_fstat(const struct pg_jr *rd, struct json_object *o, size_t r, size_t i,
		      struct pg_run *run, struct pg_rep *rep)
{
	struct pg_fstat st = { 0 }, *s;
	uint64_t id = 0;
	char where[80], why[256];
	int err;

	snprintf(where, sizeof(where), "repetitions[%zu].functions[%zu]", r, i);
	err = pg_jr_want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: pg_jr_get_u64(rd, o, where, "id", UINT32_MAX, &id);
	err = err ?: pg_jr_get_u64(rd, o, where, "calls", UINT64_MAX, &st.calls);
	err = err ?: pg_jr_get_u64(rd, o, where, "total_ns", UINT64_MAX, &st.total_ns);
	err = err ?: pg_jr_get_u64(rd, o, where, "self_ns", UINT64_MAX, &st.self_ns);
	err = err ?: pg_jr_get_u64(rd, o, where, "min_ns", UINT64_MAX, &st.min_ns);
	err = err ?: pg_jr_get_u64(rd, o, where, "max_ns", UINT64_MAX, &st.max_ns);
	err = err ?: read_site_counts(rd, o, where, "desc", st.desc);
	err = err ?: read_site_counts(rd, o, where, "kids", st.kids);
	err = err ?: pg_jr_opt_u64(rd, o, where, "probe_ns", UINT64_MAX, &st.probe_ns);
	err = err ?: pg_jr_opt_u64(rd, o, where, "desc_probe_ns", UINT64_MAX, &st.desc_probe_ns);
	err = err ?: pg_jr_opt_u64(rd, o, where, "kids_probe_ns", UINT64_MAX, &st.kids_probe_ns);
	st.func = (uint32_t)id;
	err = err ?: read_hist(rd, o, where, &st.hist);
	if (!err && pg_runfile_check_stat(rep, run->nfuncs, &st, why, sizeof(why)))
		err = pg_jr_bad(rd, where, "%s", why);
	s = err ? NULL : pg_rep_add_stat(rep, st.func);
	if (!s) {
		pg_hist_release(&st.hist);
		return err ?: pg_jr_oom(rd);
	}
	*s = st;	/* the histogram's arrays move into the repetition */
	return 0;
}

/* The statistics of a version-3 repetition: one string of rows (formats/runfile_stats.h). */
static int read_stats(const struct pg_jr *rd, struct json_object *o, size_t r,
		      const struct pg_statcols *cols, struct pg_run *run, struct pg_rep *rep)
{
	struct json_object *v;
	char where[48], why[256];
	int err;

	snprintf(where, sizeof(where), "repetitions[%zu]", r);
	err = pg_jr_member(rd, o, where, "stats", json_type_string, PG_JR_REQUIRED, &v);
	if (err)
		return err;
	err = pg_stats_decode(json_object_get_string(v), (size_t)json_object_get_string_len(v),
			      cols, run->nfuncs, rep, why, sizeof(why));
	if (err == -ENOMEM)
		return pg_jr_oom(rd);
	if (err)
		return pg_jr_bad(rd, where, "\"stats\" %s", why);
	return 0;
}

/*
 * The array @key of [folded, count] pairs in @o into *v, *n (absent: nothing), sorted, unique,
 * each count >= 1, their sum in *sum (which must not overflow).
 */
static int read_stacks(const struct pg_jr *rd, struct json_object *o, const char *where,
		       const char *key, struct pg_stack **v, size_t *nv, uint64_t *sum)
{
	struct json_object *stacks;
	char what[64];
	size_t n;
	int err;

	*sum = 0;
	if (!json_object_object_get_ex(o, key, &stacks))
		return 0;
	snprintf(what, sizeof(what), "\"%s\"", key);
	if (pg_jr_want(rd, stacks, where, what, json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(stacks);
	*v = calloc(n ? n : 1, sizeof(**v));
	if (!*v)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pair = json_object_array_get_idx(stacks, i);
		const char *folded;
		uint64_t count;

		snprintf(what, sizeof(what), "\"%s\"[%zu]", key, i);
		if (pg_jr_want(rd, pair, where, what, json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(pair) != 2)
			return pg_jr_bad(rd, where, "%s must be a [stack, count] pair", what);
		err = pg_jr_to_str(rd, json_object_array_get_idx(pair, 0), where, what, false,
				   &folded);
		err = err ?: pg_jr_to_u64(rd, json_object_array_get_idx(pair, 1), where, what,
					  UINT64_MAX, &count);
		if (err)
			return err;
		if (!pg_folded_valid(folded))
			return pg_jr_bad(rd, where, "%s is not a folded stack (frames separated "
					 "by ';', none empty, no control characters)", what);
		if (i && strcmp((*v)[i - 1].folded, folded) >= 0)
			return pg_jr_bad(rd, where, "%s: stacks must be sorted and unique", what);
		if (!count || count > UINT64_MAX - *sum)
			return pg_jr_bad(rd, where, "%s: the count must be at least 1", what);
		*sum += count;
		(*v)[i].folded = strdup(folded);
		if (!(*v)[i].folded)
			return pg_jr_oom(rd);
		(*v)[i].count = count;
		*nv = i + 1;
	}
	return 0;
}

/*
 * The optional "own_samples" or "incl_samples" (@key) of a repetition: [[object, exe, frame,
 * count], ...] into *@v, *@n. Their order, indices and counts are checked with the whole run
 * (pg_run_validate()).
 */
static int read_owns(const struct pg_jr *rd, struct json_object *o, const char *where,
		     const char *key, struct pg_own **v, size_t *n)
{
	struct json_object *a;
	char name[24];
	size_t len;

	if (!json_object_object_get_ex(o, key, &a))
		return 0;
	snprintf(name, sizeof(name), "\"%s\"", key);
	if (pg_jr_want(rd, a, where, name, json_type_array, false))
		return -EINVAL;
	len = json_object_array_length(a);
	*v = calloc(len ? len : 1, sizeof(**v));
	if (!*v)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		struct pg_own *w = &(*v)[i];
		uint64_t obj = 0, exe = 0;
		const char *frame = NULL;
		char what[48];
		int err;

		snprintf(what, sizeof(what), "\"%s\"[%zu]", key, i);
		if (pg_jr_want(rd, e, where, what, json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(e) != 4)
			return pg_jr_bad(rd, where, "%s must be [object, exe, frame, count]", what);
		err = pg_jr_to_u64(rd, json_object_array_get_idx(e, 0), where, what, UINT32_MAX,
				   &obj);
		err = err ?: pg_jr_to_u64(rd, json_object_array_get_idx(e, 1), where, what,
					  UINT32_MAX, &exe);
		err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(e, 2), where, what, false,
					  &frame);
		err = err ?: pg_jr_to_u64(rd, json_object_array_get_idx(e, 3), where, what,
					  UINT64_MAX, &w->count);
		if (err)
			return err;
		w->object = (uint32_t)obj;
		w->exe = (uint32_t)exe;
		w->frame = strdup(frame);
		*n = i + 1;
		if (!w->frame)
			return pg_jr_oom(rd);
	}
	return 0;
}

/* The optional sampled profile of a repetition and its off-CPU stacks (see put_profile()). */
static int read_profile(const struct pg_jr *rd, struct json_object *o, const char *where,
			struct pg_rep *rep)
{
	uint64_t sum = 0;
	int err;

	err = pg_jr_opt_u64(rd, o, where, "samples", UINT64_MAX, &rep->samples);
	err = err ?: pg_jr_opt_u64(rd, o, where, "samples_lost", UINT64_MAX, &rep->samples_lost);
	err = err ?: pg_jr_opt_u64(rd, o, where, "samples_truncated", UINT64_MAX,
				   &rep->samples_truncated);
	if (err)
		return err;
	if (rep->samples_lost > rep->samples)
		return pg_jr_bad(rd, where, "\"samples_lost\" is larger than \"samples\"");
	err = read_stacks(rd, o, where, "offcpu_stacks", &rep->offcpu, &rep->noffcpu, &sum);
	err = err ?: pg_runfile_read_woken(rd, o, where, rep);
	err = err ?: read_stacks(rd, o, where, "stacks", &rep->stacks, &rep->nstacks, &sum);
	err = err ?: read_owns(rd, o, where, "own_samples", &rep->own, &rep->nown);
	err = err ?: read_owns(rd, o, where, "incl_samples", &rep->incl, &rep->nincl);
	if (err)
		return err;
	if (sum > rep->samples - rep->samples_lost)
		return pg_jr_bad(rd, where, "\"stacks\" hold %" PRIu64 " samples, more than the "
				 "%" PRIu64 " kept", sum, rep->samples - rep->samples_lost);
	return 0;
}

/* The optional threads of a repetition (see put_threads()), sorted by tid, unique. */
static int read_threads(const struct pg_jr *rd, struct json_object *o, const char *where,
			struct pg_rep *rep)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, "threads", &a))
		return 0;
	if (pg_jr_want(rd, a, where, "\"threads\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(a);
	rep->threads = calloc(n ? n : 1, sizeof(*rep->threads));
	if (!rep->threads)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		struct pg_thread *t = &rep->threads[i];
		const char *comm;
		uint64_t v[4];
		char what[48];
		int err;

		snprintf(what, sizeof(what), "\"threads\"[%zu]", i);
		if (pg_jr_want(rd, e, where, what, json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(e) != 5)
			return pg_jr_bad(rd, where, "%s must be [tid, comm, cpu_ns, runq_ns, "
					 "blocked_ns]", what);
		err = pg_jr_to_u64(rd, json_object_array_get_idx(e, 0), where, what, UINT32_MAX,
				   &v[0]);
		err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(e, 1), where, what, false,
					  &comm);
		for (int k = 1; k < 4 && !err; k++)
			err = pg_jr_to_u64(rd, json_object_array_get_idx(e, (size_t)k + 1), where,
					   what, UINT64_MAX, &v[k]);
		if (err)
			return err;
		if (i && rep->threads[i - 1].tid >= v[0])
			return pg_jr_bad(rd, where, "%s: threads must be sorted by tid and unique",
					 what);
		t->comm = strdup(comm);
		if (!t->comm)
			return pg_jr_oom(rd);
		t->tid = (uint32_t)v[0];
		t->cpu_ns = v[1];
		t->runq_ns = v[2];
		t->blocked_ns = v[3];
		rep->nthreads = i + 1;
	}
	return 0;
}

/* Repetition @r; @cols: the columns of a version-3 file's rows, NULL in older versions. */
static int read_rep(const struct pg_jr *rd, struct json_object *o, size_t r,
		    const struct pg_statcols *cols, struct pg_run *run)
{
	struct json_object *stats = NULL;
	struct pg_rep *rep;
	uint64_t wall = 0, cpu = 0, pair = 0, seq = 0;
	int exit_code = 0, sig = 0;
	char where[48];
	size_t n;
	int err;

	snprintf(where, sizeof(where), "repetitions[%zu]", r);
	err = pg_jr_want(rd, o, where, "the entry", json_type_object, false);
	err = err ?: pg_jr_get_u64(rd, o, where, "wall_ns", UINT64_MAX, &wall);
	/* the process tree's CPU time (absent in files from before: 0, not measured) */
	err = err ?: pg_jr_opt_u64(rd, o, where, "cpu_ns", UINT64_MAX, &cpu);
	err = err ?: pg_jr_get_int(rd, o, where, "exit_code", PG_RUNFILE_EXIT_CODE_MIN,
				   PG_RUNFILE_EXIT_CODE_MAX, &exit_code);
	err = err ?: pg_jr_get_int(rd, o, where, "signal", 0, PG_RUNFILE_SIGNAL_MAX, &sig);
	/* perfgate ab: the pair and the running position (absent: 0) */
	err = err ?: pg_jr_opt_u64(rd, o, where, "pair", UINT32_MAX, &pair);
	err = err ?: pg_jr_opt_u64(rd, o, where, "seq", UINT32_MAX, &seq);
	if (!err && !cols)
		err = pg_jr_member(rd, o, where, "functions", json_type_array, false, &stats);
	if (err)
		return err;
	rep = pg_run_add_rep(run);
	if (!rep)
		return pg_jr_oom(rd);
	rep->wall_ns = wall;
	rep->cpu_ns = cpu;
	rep->exit_code = exit_code;
	rep->signal = sig;
	rep->pair = (uint32_t)pair;
	rep->seq = (uint32_t)seq;
	if (cols) {
		err = read_stats(rd, o, r, cols, run, rep);
	} else {
		n = json_object_array_length(stats);
		for (size_t i = 0; i < n && !err; i++)
			err = read_fstat(rd, json_object_array_get_idx(stats, i), r, i, run, rep);
	}
	err = err ?: read_profile(rd, o, where, rep);
	err = err ?: read_threads(rd, o, where, rep);
	return err ?: pg_gb_read_rep(rd, o, where, rep);	/* formats/gbench.h */
}

/* "stat_columns" of a version-3 file: the names of the columns of its rows. */
static int read_statcols(const struct pg_jr *rd, struct json_object *root,
			 struct pg_statcols *cols)
{
	struct json_object *a;
	char why[128];
	size_t n;
	int err;

	cols->n = 0;
	err = pg_jr_member(rd, root, "", "stat_columns", json_type_array, PG_JR_REQUIRED, &a);
	if (err)
		return err;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		char what[48];

		snprintf(what, sizeof(what), "\"stat_columns\"[%zu]", i);
		err = pg_jr_to_str(rd, json_object_array_get_idx(a, i), "", what, PG_JR_REQUIRED,
				   &name);
		if (err)
			return err;
		if (pg_statcols_add(cols, name, why, sizeof(why)))
			return pg_jr_bad(rd, "stat_columns", "%s", why);
	}
	if (pg_statcols_check(cols, why, sizeof(why)))
		return pg_jr_bad(rd, "stat_columns", "%s", why);
	return 0;
}

/* Optional "frame_sources": [[frame, file, line], ...], sorted by frame, unique. */
static int read_sources(const struct pg_jr *rd, struct json_object *root, struct pg_run *run)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(root, "frame_sources", &a))
		return 0;
	if (pg_jr_want(rd, a, "", "\"frame_sources\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(a);
	run->sources = calloc(n ? n : 1, sizeof(*run->sources));
	if (!run->sources)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		struct pg_source *src = &run->sources[i];
		const char *frame, *file;
		char where[48];
		uint64_t line;
		int err;

		snprintf(where, sizeof(where), "frame_sources[%zu]", i);
		if (pg_jr_want(rd, t, where, "the entry", json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(t) != 3)
			return pg_jr_bad(rd, where, "must be a [frame, file, line] triple");
		err = pg_jr_to_str(rd, json_object_array_get_idx(t, 0), where, "the frame", false,
				   &frame);
		err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(t, 1), where, "the file",
					  false, &file);
		err = err ?: pg_jr_to_u64(rd, json_object_array_get_idx(t, 2), where, "the line",
					  UINT32_MAX, &line);
		if (err)
			return err;
		if (!pg_folded_valid(frame) || strchr(frame, ';'))
			return pg_jr_bad(rd, where, "the frame is not a frame name");
		if (i && strcmp(run->sources[i - 1].frame, frame) >= 0)
			return pg_jr_bad(rd, where, "frames must be sorted and unique");
		src->frame = strdup(frame);
		src->file = strdup(file);
		src->line = (uint32_t)line;
		run->nsources = i + 1;
		if (!src->frame || !src->file)
			return pg_jr_oom(rd);
	}
	return 0;
}

/* Optional "frame_code": [[frame, digest], ...], sorted by frame, unique. */
static int read_codes(const struct pg_jr *rd, struct json_object *root, struct pg_run *run)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(root, "frame_code", &a))
		return 0;
	if (pg_jr_want(rd, a, "", "\"frame_code\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(a);
	run->codes = calloc(n ? n : 1, sizeof(*run->codes));
	if (!run->codes)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		const char *frame, *code;
		char where[48];
		int err;

		snprintf(where, sizeof(where), "frame_code[%zu]", i);
		if (pg_jr_want(rd, t, where, "the entry", json_type_array, false))
			return -EINVAL;
		if (json_object_array_length(t) != 2)
			return pg_jr_bad(rd, where, "must be a [frame, digest] pair");
		err = pg_jr_to_str(rd, json_object_array_get_idx(t, 0), where, "the frame", false,
				   &frame);
		err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(t, 1), where, "the digest",
					  false, &code);
		if (err)
			return err;
		if (!pg_folded_valid(frame) || strchr(frame, ';'))
			return pg_jr_bad(rd, where, "the frame is not a frame name");
		if (i && strcmp(run->codes[i - 1].frame, frame) >= 0)
			return pg_jr_bad(rd, where, "frames must be sorted and unique");
		if (parse_addr(code, &run->codes[i].digest) || !run->codes[i].digest)
			return pg_jr_bad(rd, where,
					 "the digest must be a nonzero hexadecimal string");
		run->codes[i].frame = strdup(frame);
		run->ncodes = i + 1;
		if (!run->codes[i].frame)
			return pg_jr_oom(rd);
	}
	return 0;
}

static int read_root(const struct pg_jr *rd, struct json_object *root, struct pg_run *run)
{
	struct json_object *v, *funcs, *reps;
	struct pg_statcols cols;
	int64_t version;
	size_t n;
	int err;

	if (json_object_get_type(root) != json_type_object)
		return pg_jr_bad(rd, "", "not a perfgate run file (the top level is %s, not an "
				 "object)", pg_jr_type_name(json_object_get_type(root)));
	if (!json_object_object_get_ex(root, "format", &v) ||
	    json_object_get_type(v) != json_type_string ||
	    strcmp(json_object_get_string(v), PG_RUNFILE_FORMAT))
		return pg_jr_bad(rd, "", "not a perfgate run file (\"format\" is not \"%s\")",
				 PG_RUNFILE_FORMAT);
	err = pg_jr_member(rd, root, "", "version", json_type_int, false, &v);
	if (err)
		return err;
	version = json_object_get_int64(v);
	if (version < PG_RUNFILE_MIN_VERSION || version > PG_RUNFILE_VERSION)
		return pg_jr_bad(rd, "", "run file version %" PRId64 " is not supported (this "
				 "perfgate reads versions %d to %d%s)", version,
				 PG_RUNFILE_MIN_VERSION, PG_RUNFILE_VERSION,
				 version > PG_RUNFILE_VERSION ?
				 "; the file is from a newer perfgate" : "");
	err = read_meta(rd, root, &run->meta);
	err = err ?: read_hist_scheme(rd, root, version, &run->hist_compensated);
	err = err ?: read_calib(rd, root, &run->calib);
	if (!err && run->hist_compensated && !run->calib.measured)
		return pg_jr_bad(rd, "histogram", "the durations are compensated, but the "
				 "calibration they were compensated with is %s", run->calib.valid ?
				 "without \"measured_ns\"" : "missing");
	err = err ?: pg_jr_member(rd, root, "", "functions", json_type_array, false, &funcs);
	err = err ?: pg_jr_member(rd, root, "", "repetitions", json_type_array, false, &reps);
	if (err)
		return err;
	n = json_object_array_length(funcs);
	for (size_t i = 0; i < n && !err; i++) {
		err = read_func(rd, json_object_array_get_idx(funcs, i), i, run);
		/* dropped as the repetitions are: their small pieces hold the histograms next */
		json_object_array_put_idx(funcs, i, NULL);
	}
	if (!err && version >= 3)
		err = read_statcols(rd, root, &cols);
	n = json_object_array_length(reps);
	for (size_t r = 0; r < n && !err; r++) {
		err = read_rep(rd, json_object_array_get_idx(reps, r), r,
			       version >= 3 ? &cols : NULL, run);
		/* what is read is dropped from the tree: the run grows as the tree shrinks */
		json_object_array_put_idx(reps, r, NULL);
	}
	err = err ?: read_sources(rd, root, run) ?: read_codes(rd, root, run);
	if (!err && json_object_object_get_ex(root, "sampled_objects", &v))
		err = pg_jr_strv(rd, v, "", "\"sampled_objects\"", &run->objects, &run->nobjects);
	return err;
}

/* The run in the parsed file @root (which it takes and puts), checked as a whole. */
static int read_tree(const struct pg_jr *rd, struct json_object *root, struct pg_run *run)
{
	char why[256];
	int err = read_root(rd, root, run);

	json_object_put(root);
	/*
	 * The tree was freed in small pieces among the run's own allocations, and malloc keeps
	 * the pages: give the free ones back, or the next file (compare reads two) is read on
	 * top of them (about 4 MB of 200 for two files of 10,000 functions x 30 repetitions).
	 */
	malloc_trim(0);
	if (!err) {
		err = pg_runfile_check(run, why, sizeof(why));
		if (err)
			pg_err("%s: %s", rd->name, why);
	}
	if (err)
		pg_run_release(run);
	return err;
}

int pg_runfile_parse(const char *buf, size_t len, const char *name, struct pg_run *run)
{
	struct pg_jr rd = { .name = name };
	struct json_object *root = NULL;
	int err;

	pg_run_release(run);
	err = pg_jr_parse(&rd, "perfgate run file", buf, len, &root);
	return err ?: read_tree(&rd, root, run);
}

int pg_runfile_read(const char *path, struct pg_run *run)
{
	struct pg_jr rd = { .name = path };
	struct json_object *root = NULL;
	char *buf = NULL;
	size_t len = 0;
	int err;

	pg_run_release(run);
	err = pg_jr_slurp(path, (size_t)pg_runfile_max_bytes(),
			  "for run files (raise it with " PG_RUNFILE_MAX_MB_ENV ")", &buf, &len);
	err = err ?: pg_jr_parse(&rd, "perfgate run file", buf, len, &root);
	/* the text is not needed once parsed: the run is built in its place */
	free(buf);
	return err ?: read_tree(&rd, root, run);
}
