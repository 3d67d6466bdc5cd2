// SPDX-License-Identifier: MIT
/*
 * history/store.c - sessions into the history database and back out (store.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/log.h"
#include "codec.h"
#include "db.h"
#include "point.h"
#include "schema.h"
#include "seriesrow.h"
#include "store.h"

struct pg_hstore {
	struct hdb *db;
};

struct pg_hstore *pg_hstore_open(const char *db, bool create)
{
	return pg_hstore_open_wait(db, create, PG_HSTORE_WAIT_MS);
}

struct pg_hstore *pg_hstore_open_wait(const char *db, bool create, int wait_ms)
{
	struct pg_hstore *s = calloc(1, sizeof(*s));

	if (!s) {
		pg_err("history: out of memory");
		return NULL;
	}
	s->db = hdb_open(db, create);
	if (s->db && hdb_busy_ms(s->db, wait_ms)) {
		hdb_close(s->db);
		s->db = NULL;
	}
	if (!s->db || pg_hschema_prepare(s->db, create)) {
		pg_hstore_close(s);
		return NULL;
	}
	return s;
}

void pg_hstore_close(struct pg_hstore *s)
{
	if (!s)
		return;
	hdb_close(s->db);
	free(s);
}

static int corrupt(struct pg_hstore *s, const char *what)
{
	pg_err("history: %s is corrupt: %s", hdb_name(s->db), what);
	return -EINVAL;
}

static int nomem(void)
{
	pg_err("history: out of memory");
	return -ENOMEM;
}

void pg_hobjects_free(struct pg_hobject *v, int64_t *ids, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].binary);
		free(v[i].name);
		free(v[i].scope);
		free(v[i].display);
	}
	free(v);
	free(ids);
}

/* objects with their ids, to sort together */
struct obj_id {
	struct pg_hobject o;
	int64_t id;
};

static int cmp_obj_id(const void *a, const void *b)
{
	return pg_hobject_cmp(&((const struct obj_id *)a)->o, &((const struct obj_id *)b)->o);
}

int pg_hstore_objects(struct pg_hstore *s, struct pg_hobject **v, int64_t **ids, size_t *n)
{
	struct obj_id *all = NULL, *tmp;
	size_t cap = 0, k = 0;
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "SELECT id, binary_file, name, scope, display FROM object",
				&st);

	*v = NULL;
	*ids = NULL;
	*n = 0;
	while (!err && (err = hstmt_step(st)) == 1) {
		const char *f[4] = { hstmt_text(st, 1), hstmt_text(st, 2), hstmt_text(st, 3),
				     hstmt_text(st, 4) };

		err = 0;
		if (k == cap) {
			cap = cap ? 2 * cap : 256;
			tmp = realloc(all, cap * sizeof(*all));
			if (!tmp) {
				err = nomem();
				break;
			}
			all = tmp;
		}
		if (!f[0] || !f[1] || !f[2] || !f[3]) {
			err = corrupt(s, "an object without a name");
			break;
		}
		all[k].id = hstmt_int(st, 0);
		all[k].o.binary = strdup(f[0]);
		all[k].o.name = strdup(f[1]);
		all[k].o.scope = strdup(f[2]);
		all[k].o.display = strdup(f[3]);
		k++;
		if (!all[k - 1].o.binary || !all[k - 1].o.name || !all[k - 1].o.scope ||
		    !all[k - 1].o.display)
			err = nomem();
	}
	hstmt_free(st);
	if (!err && k) {
		qsort(all, k, sizeof(*all), cmp_obj_id);
		*v = malloc(k * sizeof(**v));
		*ids = malloc(k * sizeof(**ids));
		if (!*v || !*ids)
			err = nomem();
		for (size_t i = 0; !err && i < k; i++) {
			(*v)[i] = all[i].o;
			(*ids)[i] = all[i].id;
		}
		if (!err) {
			*n = k;
			free(all);
			return 0;
		}
	}
	for (size_t i = 0; i < k; i++) {
		free(all[i].o.binary);
		free(all[i].o.name);
		free(all[i].o.scope);
		free(all[i].o.display);
	}
	free(all);
	free(*v);
	free(*ids);
	*v = NULL;
	*ids = NULL;
	return err;
}

/* The ids of @r's objects into ids[]: known ones looked up, new ones inserted. */
static int object_ids(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *ids)
{
	struct pg_hobject *known;
	int64_t *kid;
	size_t nk, j = 0;
	struct hstmt *ins = NULL;
	int err = pg_hstore_objects(s, &known, &kid, &nk);

	err = err ?: hstmt_prepare(s->db, "INSERT INTO object(binary_file, name, scope, display) "
				   "VALUES(?, ?, ?, ?) RETURNING id", &ins);
	/* both sorted by key: one merge */
	for (size_t i = 0; !err && i < r->nobjects; i++) {
		const struct pg_hobject *o = &r->objects[i];

		while (j < nk && pg_hobject_cmp(&known[j], o) < 0)
			j++;
		if (j < nk && !pg_hobject_cmp(&known[j], o)) {
			ids[i] = kid[j];
			continue;
		}
		err = hstmt_bind_text(ins, 1, o->binary) ?: hstmt_bind_text(ins, 2, o->name) ?:
		      hstmt_bind_text(ins, 3, o->scope) ?: hstmt_bind_text(ins, 4, o->display);
		err = err ?: hstmt_step(ins);
		if (err == 1) {
			ids[i] = hstmt_int(ins, 0);
			err = 0;
		} else if (!err) {
			err = corrupt(s, "an object could not be added");
		}
		hstmt_reset(ins);
	}
	hstmt_free(ins);
	pg_hobjects_free(known, kid, nk);
	return err;
}

static int insert_session(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *id)
{
	char added[32];
	time_t now = time(NULL);
	struct tm tm;
	struct hstmt *st;
	int err;

	gmtime_r(&now, &tm);
	strftime(added, sizeof(added), "%Y-%m-%dT%H:%M:%SZ", &tm);
	err = hstmt_prepare(s->db, "INSERT INTO session(commit_id, branch, time, host, command, "
			    "reps, added) VALUES(?, ?, ?, ?, ?, ?, ?) RETURNING id", &st);
	err = err ?: hstmt_bind_text(st, 1, r->commit) ?:
	      hstmt_bind_text(st, 2, r->branch ? r->branch : "") ?:
	      hstmt_bind_text(st, 3, r->time) ?: hstmt_bind_text(st, 4, r->host) ?:
	      hstmt_bind_text(st, 5, r->command) ?: hstmt_bind_int(st, 6, r->reps) ?:
	      hstmt_bind_text(st, 7, added);
	err = err ?: hstmt_step(st);
	if (err == 1) {
		*id = hstmt_int(st, 0);
		err = 0;
	} else if (!err) {
		err = corrupt(s, "the session could not be added");
	}
	hstmt_free(st);
	return err;
}

/* The session's environment, a row an entry. */
static int insert_env(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session)
{
	struct hstmt *st;
	int err;

	if (!r->nenv)
		return 0;
	err = hstmt_prepare(s->db, "INSERT INTO session_env(session_id, key, value) "
			    "VALUES(?, ?, ?)", &st);
	for (size_t i = 0; !err && i < r->nenv; i++) {
		size_t k = strcspn(r->env[i], "=");
		char *key = strndup(r->env[i], k);

		err = key ? 0 : nomem();
		err = err ?: hstmt_bind_int(st, 1, session) ?: hstmt_bind_text(st, 2, key) ?:
		      hstmt_bind_text(st, 3, r->env[i] + k + 1);
		err = err ?: hstmt_step(st);
		err = err < 0 ? err : 0;
		hstmt_reset(st);
		free(key);
	}
	hstmt_free(st);
	return err;
}

/*
 * The session's series rows, an object's series in one blob each (seriesrow.h), with the
 * database's writer of rows in bulk: PostgreSQL's COPY, SQLite's INSERT.
 */
static int insert_series(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
			 const int64_t *ids)
{
	struct hrows *w;
	int err = hdb_rows_begin(s->db, PG_HROW_TABLE, PG_HROW_COLUMNS, &w);

	for (size_t i = 0; !err && i < r->nseries;) {
		uint32_t obj = r->series[i].object;
		uint8_t *blob;
		size_t len;

		err = pg_hrow_encode(r, &i, &blob, &len) ? nomem() : 0;
		err = err ?: pg_hrow_put(w, session, ids[obj], blob, len);
		free(blob);
	}
	return hrows_end(w, err != 0) ?: err;
}

/* The session's points: each object's medians and intervals as plain columns (point.h). */
static int insert_points(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
			 const int64_t *ids)
{
	struct pg_hpoint p;
	struct hrows *w;
	int err = hdb_rows_begin(s->db, PG_HPOINT_TABLE, PG_HPOINT_COLUMNS, &w);

	for (size_t i = 0; !err && i < r->nseries;) {
		uint32_t obj = r->series[i].object;

		pg_hpoint_init(&p);
		for (; !err && i < r->nseries && r->series[i].object == obj; i++) {
			const struct pg_hseries *x = &r->series[i];

			err = pg_hpoint_set(&p, x->metric, x->v, x->n, r->reps) ? nomem() : 0;
		}
		err = err ?: pg_hpoint_put(w, session, ids[obj], &p);
	}
	return hrows_end(w, err != 0) ?: err;
}

/* objects' ids and values of one metric, to sort by id */
struct id_val {
	int64_t id;
	double v;
};

static int cmp_id_val(const void *a, const void *b)
{
	int64_t x = ((const struct id_val *)a)->id, y = ((const struct id_val *)b)->id;

	return x < y ? -1 : x > y;
}

/* The session's summaries: one row a metric, every object's summary of it (codec.h). */
static int insert_summaries(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
			    const int64_t *ids)
{
	struct id_val *iv = malloc((r->nseries + 1) * sizeof(*iv));
	int64_t *sid = malloc((r->nseries + 1) * sizeof(*sid));
	double *sv = malloc((r->nseries + 1) * sizeof(*sv));
	struct hrows *w = NULL;
	int err = !iv || !sid || !sv ? nomem() : 0;

	err = err ?: hdb_rows_begin(s->db, "summary(session_id, metric_id, objects, vals)", 4, &w);
	for (int m = PG_HM_SELF; !err && m <= PG_HM_MAX; m++) {
		uint8_t *ob = NULL, *vb = NULL;
		size_t k = 0, olen, vlen;

		for (size_t i = 0; i < r->nseries; i++)
			if (r->series[i].metric == m)
				iv[k++] = (struct id_val){ ids[r->series[i].object],
							   r->series[i].summary };
		if (!k)
			continue;
		qsort(iv, k, sizeof(*iv), cmp_id_val);
		for (size_t i = 0; i < k; i++) {
			sid[i] = iv[i].id;
			sv[i] = iv[i].v;
		}
		err = pg_hcodec_summary_encode(sid, sv, k, &ob, &olen, &vb, &vlen) ? nomem() : 0;
		err = err ?: hrows_int(w, 1, session) ?: hrows_int(w, 2, m) ?:
		      hrows_blob(w, 3, ob, olen) ?: hrows_blob(w, 4, vb, vlen);
		err = err ?: hrows_put(w);
		free(ob);
		free(vb);
	}
	err = hrows_end(w, err != 0) ?: err;
	free(iv);
	free(sid);
	free(sv);
	return err;
}

int pg_hstore_generation(struct pg_hstore *s, int64_t *gen)
{
	struct hstmt *st;
	const char *t;
	char *end;
	int err = hstmt_prepare(s->db, "SELECT value FROM perfgate_history WHERE key = "
				"'generation'", &st);

	err = err ?: hstmt_step(st);
	if (err == 1) {
		t = hstmt_text(st, 0);
		*gen = t ? strtoll(t, &end, 10) : -1;
		err = t && !*end && *gen >= 0 ? 0 : corrupt(s, "its generation is not a number");
	} else if (!err) {
		err = corrupt(s, "it has no generation");
	}
	hstmt_free(st);
	return err;
}

int pg_hstore_write_begin(struct pg_hstore *s, int64_t expect)
{
	int64_t gen = -1;
	char sql[96];
	int err = hdb_begin(s->db, true);

	if (!err && hdb_postgres(s->db))
		err = hdb_exec(s->db, "SELECT pg_advisory_xact_lock(" PG_HSCHEMA_LOCK ")");
	err = err ?: pg_hstore_generation(s, &gen);
	if (!err && expect >= 0 && gen != expect) {
		pg_err("history: %s is at generation %lld, not %lld: another publisher wrote to it "
		       "since; restore the history again and repeat this step on it",
		       hdb_name(s->db), (long long)gen, (long long)expect);
		err = -ESTALE;
	}
	snprintf(sql, sizeof(sql), "UPDATE perfgate_history SET value = '%lld' WHERE key = "
		 "'generation'", (long long)gen + 1);
	err = err ?: hdb_exec(s->db, sql);
	if (err)
		hdb_rollback(s->db);
	return err;
}

int pg_hstore_add(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *id)
{
	return pg_hstore_add_expect(s, r, -1, id);
}

int pg_hstore_add_expect(struct pg_hstore *s, const struct pg_hrecord *r, int64_t expect,
			 int64_t *id)
{
	int64_t *ids = malloc((r->nobjects + 1) * sizeof(*ids)), session = 0;
	int err = ids ? pg_hstore_write_begin(s, expect) : nomem();

	if (err) {
		free(ids);
		return err;
	}
	err = insert_session(s, r, &session);
	err = err ?: object_ids(s, r, ids);
	err = err ?: insert_series(s, r, session, ids);
	err = err ?: insert_points(s, r, session, ids);
	err = err ?: insert_env(s, r, session);
	err = err ?: insert_summaries(s, r, session, ids);
	err = err ?: hdb_commit(s->db);
	if (err)
		hdb_rollback(s->db);
	else if (id)
		*id = session;
	free(ids);
	return err;
}

int pg_hstore_session_env(struct pg_hstore *s, int64_t id, struct pg_meta *m)
{
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "SELECT key, value FROM session_env WHERE session_id = ? "
				"ORDER BY key", &st);

	err = err ?: hstmt_bind_int(st, 1, id);
	while (!err && (err = hstmt_step(st)) == 1) {
		const char *key = hstmt_text(st, 0), *value = hstmt_text(st, 1);
		char **field = NULL;

		err = 0;
		if (!key || !value || !*key || strchr(key, '=')) {
			err = corrupt(s, "an environment entry without key or value");
			break;
		}
		if (!strcmp(key, "kernel"))
			field = &m->kernel;
		else if (!strcmp(key, "cpu_model"))
			field = &m->cpu_model;
		if (field) {
			free(*field);
			*field = strdup(value);
			err = *field ? 0 : nomem();
		} else if (pg_env_set(m, key, value)) {
			err = nomem();
		}
	}
	hstmt_free(st);
	return err < 0 ? err : 0;
}

void pg_hsessions_free(struct pg_hsession *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].commit);
		free(v[i].branch);
		free(v[i].time);
		free(v[i].host);
		free(v[i].command);
	}
	free(v);
}

static char *dup_col(struct hstmt *st, int col, bool *oom)
{
	const char *t = hstmt_text(st, col);
	char *d = t ? strdup(t) : NULL;

	if (t && !d)
		*oom = true;
	return d;
}

int pg_hstore_sessions(struct pg_hstore *s, const char *branch, struct pg_hsession **v,
		       size_t *n)
{
	const char *all = "SELECT id, commit_id, branch, time, host, command, reps FROM session "
			  "ORDER BY time, id";
	const char *one = "SELECT id, commit_id, branch, time, host, command, reps FROM session "
			  "WHERE branch = ? ORDER BY time, id";
	struct pg_hsession *tmp;
	size_t cap = 0;
	struct hstmt *st;
	bool oom = false;
	int err = hstmt_prepare(s->db, branch ? one : all, &st);

	*v = NULL;
	*n = 0;
	if (!err && branch)
		err = hstmt_bind_text(st, 1, branch);
	while (!err && (err = hstmt_step(st)) == 1) {
		struct pg_hsession *x;

		err = 0;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			tmp = realloc(*v, cap * sizeof(**v));
			if (!tmp) {
				oom = true;
				break;
			}
			*v = tmp;
		}
		x = &(*v)[(*n)++];
		x->id = hstmt_int(st, 0);
		x->commit = dup_col(st, 1, &oom);
		x->branch = dup_col(st, 2, &oom);
		x->time = dup_col(st, 3, &oom);
		x->host = dup_col(st, 4, &oom);
		x->command = dup_col(st, 5, &oom);
		x->reps = (uint32_t)hstmt_int(st, 6);
		if (oom)
			break;
		if (!x->branch || !x->time || !x->host || !x->command)
			err = corrupt(s, "a session without time, host or command");
	}
	hstmt_free(st);
	if (oom)
		err = nomem();
	if (err) {
		pg_hsessions_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return err;
}

int pg_hstore_summaries(struct pg_hstore *s, int metric, pg_hsummary_fn fn, void *ctx)
{
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "SELECT session_id, objects, vals FROM summary "
				"WHERE metric_id = ?", &st);

	err = err ?: hstmt_bind_int(st, 1, metric);
	while (!err && (err = hstmt_step(st)) == 1) {
		size_t olen, vlen, n;
		const uint8_t *ob = hstmt_blob(st, 1, &olen), *vb = hstmt_blob(st, 2, &vlen);
		int64_t *ids;
		double *v;

		err = pg_hcodec_summary_decode(ob, olen, vb, vlen, &ids, &v, &n);
		if (err == -EINVAL)
			err = corrupt(s, "a session's summary cannot be read");
		else if (err)
			err = nomem();
		err = err ?: fn(ctx, hstmt_int(st, 0), ids, v, n);
		free(ids);
		free(v);
	}
	hstmt_free(st);
	return err;
}

int pg_hstore_series(struct pg_hstore *s, int64_t session, int64_t object, int metric,
		     double **v, size_t *n)
{
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "SELECT vals FROM series WHERE session_id = ? AND "
				"object_id = ?", &st);

	*v = NULL;
	*n = 0;
	err = err ?: hstmt_bind_int(st, 1, session) ?: hstmt_bind_int(st, 2, object);
	err = err ?: hstmt_step(st);
	if (err == 1) {
		size_t len;
		const uint8_t *b = hstmt_blob(st, 0, &len);

		err = pg_hrow_decode(b, len, metric, v, n);
		if (err == -EINVAL)
			err = corrupt(s, "a series cannot be read");
		else if (err)
			err = nomem();
	}
	hstmt_free(st);
	return err < 0 ? err : 0;
}

struct hdb *pg_hstore_db(struct pg_hstore *s)
{
	return s->db;
}
