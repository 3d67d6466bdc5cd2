// SPDX-License-Identifier: MIT
/*
 * history/changes_report.c - the table, the JSON and the Markdown summary of perfgate history
 * changes (changes_report.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic.h"
#include "../core/env.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "changes_report.h"

bool pg_hchange_regression(const struct pg_hchanges *h, const struct pg_hchange *c)
{
	return h->m->metric != PG_HM_CALLS && c->cp.change > 0;
}

bool pg_hchange_newest(const struct pg_hchanges *h, const struct pg_hchange *c)
{
	const char *first = h->m->sessions[c->session].commit;
	const char *newest = h->m->sessions[h->m->nsessions - 1].commit;

	return c->session + 1 == h->m->nsessions || (first && newest && !strcmp(first, newest));
}

size_t pg_hchanges_newest(const struct pg_hchanges *sets, size_t n)
{
	size_t k = 0;

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < sets[s].n; i++)
			k += pg_hchange_newest(&sets[s], &sets[s].c[i]) &&
			     pg_hchange_regression(&sets[s], &sets[s].c[i]);
	return k;
}

bool pg_hchange_alert(const struct pg_hchanges *h, const struct pg_hchange *c)
{
	if (h->fresh)
		return h->fresh[c - h->c];
	return pg_hchange_newest(h, c) && pg_hchange_regression(h, c);
}

size_t pg_hchanges_alerts(const struct pg_hchanges *sets, size_t n)
{
	size_t k = 0;

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < sets[s].n; i++)
			k += pg_hchange_alert(&sets[s], &sets[s].c[i]);
	return k;
}

/* A change point's place, for listing the newest first */
struct cp_ref {
	const struct pg_hchanges *h;
	const struct pg_hchange *c;
};

static int cmp_newest_first(const void *a, const void *b)
{
	const struct cp_ref *x = a, *y = b;

	if (x->c->session != y->c->session)
		return x->c->session < y->c->session ? 1 : -1;
	/* ties: by object key, then metric */
	return pg_hobject_cmp(&x->h->m->objects[x->c->object], &y->h->m->objects[y->c->object]) ?:
	       x->h->m->metric - y->h->m->metric;
}

/* The change points of sets[0..n) (with @alerts, those that alert), newest first: malloc'd,
 * *@k of them; NULL when out of memory. */
static struct cp_ref *newest_first(const struct pg_hchanges *sets, size_t n, bool alerts,
				   size_t *k)
{
	size_t total = 0;
	struct cp_ref *all;

	for (size_t s = 0; s < n; s++)
		total += sets[s].n;
	all = calloc(total + 1, sizeof(*all));
	*k = 0;
	for (size_t s = 0; all && s < n; s++)
		for (size_t i = 0; i < sets[s].n; i++)
			if (!alerts || pg_hchange_alert(&sets[s], &sets[s].c[i]))
				all[(*k)++] = (struct cp_ref){ &sets[s], &sets[s].c[i] };
	if (all)
		qsort(all, *k, sizeof(*all), cmp_newest_first);
	return all;
}

/* The trends of the newest PG_HPLOT_MAX change points that alert: Mermaid or sparklines. */
static int trends(const struct pg_hchanges *sets, size_t n, bool mermaid, FILE *out)
{
	size_t k;
	struct cp_ref *r = newest_first(sets, n, true, &k);
	int err = r ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < k && i < PG_HPLOT_MAX; i++) {
		if (mermaid) {
			fputc('\n', out);
			err = pg_hchange_mermaid(out, r[i].h, r[i].c);
		}
		fputs(mermaid ? "\n`" : "trend: ", out);
		err = err ?: pg_hchange_sparkline(out, r[i].h, r[i].c);
		fputs(mermaid ? "`\n" : "\n", out);
	}
	if (!err && k > PG_HPLOT_MAX)
		fprintf(out, "%s%zu more change point(s) to alert on, not plotted\n",
			mermaid ? "\n" : "", k - PG_HPLOT_MAX);
	free(r);
	return err;
}

static const char *short_commit(char *buf, size_t len, const char *commit)
{
	snprintf(buf, len, "%.12s", commit ? commit : "?");
	return buf;
}

int pg_hchanges_print(const struct pg_hchanges *sets, size_t n, FILE *out)
{
	size_t total = 0;
	char a[16], b[16];

	for (size_t s = 0; s < n; s++)
		total += sets[s].n;
	if (!total) {
		fprintf(out, "perfgate: no change point in %zu sessions\n",
			n ? sets[0].m->nsessions : 0);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "%-40s  %-12s  %-12s  %8s  %-19s  %-8s  %s\n", "function", "after",
		"changed at", "change", "interval", "p", "verdict");
	for (size_t s = 0; s < n; s++) {
		const struct pg_hmatrix *m = sets[s].m;

		for (size_t i = 0; i < sets[s].n; i++) {
			const struct pg_hchange *c = &sets[s].c[i];
			const struct pg_hobject *o = &m->objects[c->object];
			char name[256], iv[48];

			snprintf(name, sizeof(name), "%s%s%s", o->display,
				 strcmp(o->name, PG_HPROGRAM) ? "" : " ",
				 strcmp(o->name, PG_HPROGRAM) ? "" : pg_hmetric_name(m->metric));
			snprintf(iv, sizeof(iv), "[%+.1f%%, %+.1f%%]", c->cp.ci_lo * 100,
				 c->cp.ci_hi * 100);
			fprintf(out, "%-40s  %-12s  %-12s  %+7.1f%%  %-19s  %-8.2g  %s\n", name,
				short_commit(a, sizeof(a), m->sessions[c->session - 1].commit),
				short_commit(b, sizeof(b), m->sessions[c->session].commit),
				c->cp.change * 100, iv, c->cp.p,
				pg_hchange_regression(&sets[s], c) ? "regression" :
				c->cp.change < 0 ? "improvement" : "change");
		}
	}
	fprintf(out, "perfgate: %zu change point(s) in %zu sessions; %zu regression(s) "
		"starting at the newest session", total, sets[0].m->nsessions,
		pg_hchanges_newest(sets, n));
	if (sets[0].fresh)
		fprintf(out, "; %zu new regression(s) to alert on", pg_hchanges_alerts(sets, n));
	fputc('\n', out);
	if (trends(sets, n, false, out))
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

/* A change point's two sessions: the last before it and the first after */
struct env_pair {
	size_t index;			/* the first's, in its matrix's sessions */
	const struct pg_hsession *before, *after;
};

static int cmp_env_pair(const void *a, const void *b)
{
	const struct env_pair *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return (x->after->id > y->after->id) - (x->after->id < y->after->id);
}

/* What differs between the environments of sessions @before and @after (pg_env_diffs()). */
static int env_diffs_at(struct pg_hstore *store, int64_t before, int64_t after, char ***items,
			size_t *n)
{
	struct pg_run a, b;
	int err;

	*items = NULL;
	*n = 0;
	pg_run_init(&a);
	pg_run_init(&b);
	err = pg_hstore_session_env(store, before, &a.meta);
	err = err ?: pg_hstore_session_env(store, after, &b.meta);
	if (!err && pg_env_diffs(&a.meta, &b.meta, items, n)) {
		pg_err("history changes: out of memory");
		err = -ENOMEM;
	}
	pg_run_release(&a);
	pg_run_release(&b);
	return err;
}

/* The line of one pair, when their environments differ. 0 or -errno. */
static int print_env_pair(struct pg_hstore *store, const struct env_pair *p, FILE *out)
{
	char **items, ca[16], cb[16];
	size_t n;
	int err = env_diffs_at(store, p->before->id, p->after->id, &items, &n);

	if (!err && n) {
		fprintf(out, "perfgate: the environment changed at %s (after %s): ",
			short_commit(cb, sizeof(cb), p->after->commit),
			short_commit(ca, sizeof(ca), p->before->commit));
		for (size_t i = 0; i < n; i++) {
			/* (the text comes from the stored runs: printable ASCII on the terminal) */
			for (char *c = items[i]; *c; c++)
				if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					*c = '?';
			fprintf(out, "%s%s", i ? "; " : "", items[i]);
		}
		fputc('\n', out);
	}
	pg_strv_free(items, n);
	return err;
}

int pg_hchanges_print_env(const struct pg_hchanges *sets, size_t n, struct pg_hstore *store,
			  FILE *out)
{
	struct env_pair *v = NULL;
	size_t nv = 0, total = 0;
	int err = 0;

	for (size_t s = 0; s < n; s++)
		total += sets[s].n;
	v = calloc(total + 1, sizeof(*v));
	if (!v) {
		pg_err("history changes: out of memory");
		return -ENOMEM;
	}
	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			const struct pg_hchange *c = &sets[s].c[i];
			const struct pg_hsession *after = &sets[s].m->sessions[c->session];
			bool seen = false;

			for (size_t k = 0; k < nv && !seen; k++)
				seen = v[k].after->id == after->id;
			if (!seen && c->session)
				v[nv++] = (struct env_pair){ c->session, after - 1, after };
		}
	}
	qsort(v, nv, sizeof(*v), cmp_env_pair);
	for (size_t k = 0; k < nv && !err; k++)
		err = print_env_pair(store, &v[k], out);
	free(v);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

static struct json_object *change_json(const struct pg_hchanges *h, const struct pg_hchange *c)
{
	const struct pg_hmatrix *m = h->m;
	const struct pg_hobject *o = &m->objects[c->object];
	const struct pg_hsession *before = &m->sessions[c->session - 1];
	const struct pg_hsession *after = &m->sessions[c->session];
	struct json_object *j = json_object_new_object();

	if (!j || pg_json_put_utf8(j, "binary", o->binary) ||
	    pg_json_put_utf8(j, "name", o->name) ||
	    pg_json_put_utf8(j, "scope", o->scope[0] ? o->scope : NULL) ||
	    pg_json_put_utf8(j, "display", o->display) ||
	    pg_json_put_str(j, "metric", pg_hmetric_name(m->metric)) ||
	    pg_json_put_utf8(j, "commit", after->commit) ||
	    pg_json_put_utf8(j, "time", after->time) ||
	    pg_json_put_utf8(j, "previous_commit", before->commit) ||
	    pg_json_put_u64(j, "session", c->session) ||
	    pg_json_put_num(j, "before", c->cp.before) ||
	    pg_json_put_num(j, "after", c->cp.after) ||
	    pg_json_put_num(j, "change", c->cp.change) ||
	    pg_json_put_num(j, "ci_lo", c->cp.ci_lo) || pg_json_put_num(j, "ci_hi", c->cp.ci_hi) ||
	    pg_json_put_num(j, "p", c->cp.p) || pg_json_put_num(j, "perm_p", c->cp.perm_p) ||
	    pg_json_put_u64(j, "sessions_before", c->cp.n_before) ||
	    pg_json_put_u64(j, "sessions_after", c->cp.n_after) ||
	    pg_json_put_bool(j, "regression", pg_hchange_regression(h, c)) ||
	    pg_json_put_bool(j, "newest", pg_hchange_newest(h, c)) ||
	    pg_json_put_bool(j, "alert", pg_hchange_alert(h, c))) {
		json_object_put(j);
		return NULL;
	}
	return j;
}

static struct json_object *changes_json(const struct pg_hchanges *sets, size_t n,
					const struct pg_cp_opts *o)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array(), *opt;
	size_t regs = pg_hchanges_newest(sets, n);

	opt = json_object_new_object();
	if (!opt || pg_json_put_u64(opt, "window", o->window) ||
	    pg_json_put_num(opt, "max_p", o->max_p) ||
	    pg_json_put_u64(opt, "max_permutations", o->max_perms) ||
	    pg_json_put_num(opt, "min_magnitude", o->min_magnitude)) {
		json_object_put(opt);
		opt = NULL;
	}
	if (!root || !arr || !opt || pg_json_put(root, "options", opt) ||
	    pg_json_put_str(root, "format", "perfgate-history-changes") ||
	    pg_json_put_int(root, "version", 1) ||
	    pg_json_put_u64(root, "sessions", n ? sets[0].m->nsessions : 0) ||
	    pg_json_put_utf8(root, "newest_commit",
			     n && sets[0].m->nsessions ?
			     sets[0].m->sessions[sets[0].m->nsessions - 1].commit : NULL) ||
	    pg_json_put_u64(root, "newest_regressions", regs) ||
	    pg_json_put_u64(root, "alerts", pg_hchanges_alerts(sets, n))) {
		if (!root || !arr)
			json_object_put(opt);
		json_object_put(arr);
		json_object_put(root);
		return NULL;
	}
	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			if (pg_json_push(arr, change_json(&sets[s], &sets[s].c[i]))) {
				json_object_put(arr);
				json_object_put(root);
				return NULL;
			}
		}
	}
	if (pg_json_put(root, "changes", arr)) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

/* Each change point's "environment": what differs between its two sessions. 0 or -errno. */
static int put_env_diffs(const struct pg_hchanges *sets, size_t n, struct pg_hstore *store,
			 struct json_object *root, const char *path)
{
	struct json_object *arr = json_object_object_get(root, "changes");
	size_t k = 0;
	int err = 0;

	for (size_t s = 0; s < n && !err; s++) {
		for (size_t i = 0; i < sets[s].n && !err; i++, k++) {
			const struct pg_hchange *c = &sets[s].c[i];
			const struct pg_hsession *after = &sets[s].m->sessions[c->session];
			char **items;
			size_t ni;

			err = env_diffs_at(store, after[-1].id, after->id, &items, &ni);
			if (!err && pg_json_put(json_object_array_get_idx(arr, k), "environment",
						pg_json_new_utf8v(items, ni))) {
				pg_err("%s: out of memory", path);
				err = -ENOMEM;
			}
			pg_strv_free(items, ni);
		}
	}
	return err;
}

int pg_hchanges_write_json(const struct pg_hchanges *sets, size_t n,
			   const struct pg_cp_opts *o, struct pg_hstore *store, const char *path)
{
	struct json_object *root = changes_json(sets, n, o);
	const char *text;
	int err;

	if (!root) {
		pg_err("%s: out of memory", path);
		return -ENOMEM;
	}
	err = put_env_diffs(sets, n, store, root, path);
	if (err) {
		json_object_put(root);
		return err;
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	err = text ? pg_atomic_write(path, text, strlen(text)) : -ENOMEM;
	if (err == -ENOMEM)
		pg_err("%s: out of memory", path);
	json_object_put(root);
	return err;
}

static void markdown_row(FILE *out, const struct cp_ref *r)
{
	const struct pg_hmatrix *m = r->h->m;
	const struct pg_hobject *o = &m->objects[r->c->object];
	const char *commit = m->sessions[r->c->session].commit;
	bool program = !strcmp(o->name, PG_HPROGRAM);

	fprintf(out, "| `%s`%s%s | %s | %.12s | %+.1f%% [%+.1f%%, %+.1f%%] | %s%s%s |\n",
		o->display, program ? " " : "", program ? pg_hmetric_name(m->metric) : "",
		o->binary, commit ? commit : "?", r->c->cp.change * 100, r->c->cp.ci_lo * 100,
		r->c->cp.ci_hi * 100, pg_hchange_regression(r->h, r->c) ? "regression" :
		r->c->cp.change < 0 ? "improvement" : "change",
		pg_hchange_newest(r->h, r->c) ? ", **at the newest commit**" : "",
		r->h->fresh && pg_hchange_alert(r->h, r->c) ? ", **new**" : "");
}

int pg_hchanges_write_markdown(const struct pg_hchanges *sets, size_t n, size_t max,
			       const char *path)
{
	size_t total = 0;
	struct cp_ref *all = newest_first(sets, n, false, &total);
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	out = all ? open_memstream(&text, &len) : NULL;
	if (!out) {
		free(all);
		pg_err("%s: out of memory", path);
		return -ENOMEM;
	}
	fprintf(out, "### perfgate history: %zu change point(s) in %zu sessions, %zu "
		"regression(s) at the newest commit", total, n ? sets[0].m->nsessions : 0,
		pg_hchanges_newest(sets, n));
	if (n && sets[0].fresh)
		fprintf(out, ", %zu new", pg_hchanges_alerts(sets, n));
	fputs("\n\n", out);
	if (total)
		fprintf(out, "| function | object | changed at | change [95%% interval] | |\n"
			"| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < total && i < max; i++)
		markdown_row(out, &all[i]);
	if (total > max)
		fprintf(out, "\n%zu older change point(s) not listed (history changes --json has "
			"them all).\n", total - max);
	free(all);
	err = trends(sets, n, true, out);
	if (fclose(out) || err) {
		free(text);
		pg_err("%s: out of memory", path);
		return -ENOMEM;
	}
	err = pg_atomic_write(path, text, len);
	free(text);
	return err;
}
