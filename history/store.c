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
#include "schema.h"
#include "store.h"

struct pg_hstore {
	struct hdb *db;
};

struct pg_hstore *pg_hstore_open(const char *db, bool create)
{
	struct pg_hstore *s = calloc(1, sizeof(*s));

	if (!s) {
		pg_err("history: out of memory");
		return NULL;
	}
	s->db = hdb_open(db, create);
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

/*
 * A function's total time that is its self time (a leaf's) as an alias of it: *@blob
 * (malloc'd) and 1 returned; 0 otherwise.
 */
static int alias(const struct pg_hrecord *r, const struct pg_hseries *x, uint8_t **blob,
		 size_t *len)
{
	const struct pg_hseries *self = x->metric == PG_HM_TOTAL ?
					pg_hrecord_find(r, x->object, PG_HM_SELF) : NULL;

	if (!self || self->n != x->n || memcmp(self->v, x->v, x->n * sizeof(*x->v)))
		return 0;
	*blob = malloc(2);
	if (!*blob)
		return -ENOMEM;
	(*blob)[0] = PG_HCODEC_ALIAS;
	(*blob)[1] = PG_HM_SELF;
	*len = 2;
	return 1;
}

/* A series' blob, its alias or its encoding: *@blob (malloc'd). 0 or -ENOMEM (logged). */
static int series_blob(const struct pg_hrecord *r, const struct pg_hseries *x, uint8_t **blob,
		       size_t *len)
{
	int err;

	*blob = NULL;
	err = alias(r, x, blob, len);
	if (!err)
		err = pg_hcodec_encode(x->v, x->n, x->metric == PG_HM_CALLS, blob, len);
	if (err < 0) {
		free(*blob);
		*blob = NULL;
		return nomem();
	}
	return 0;
}

/* Append @metric's blob b[0..len) to a series row's blob *@row (*@n bytes of *@cap). */
static int row_append(uint8_t **row, size_t *n, size_t *cap, int metric, const uint8_t *b,
		      size_t len)
{
	if (*n + len + 11 > *cap) {
		size_t c = 2 * (*n + len + 11);
		uint8_t *tmp = realloc(*row, c);

		if (!tmp)
			return nomem();
		*row = tmp;
		*cap = c;
	}
	(*row)[(*n)++] = (uint8_t)metric;
	*n += pg_hcodec_put_varint(*row + *n, len);
	memcpy(*row + *n, b, len);
	*n += len;
	return 0;
}

/*
 * The series of one object, r->series[*@at..) while they are the same object's, as one row's
 * blob (store.h): *@blob (malloc'd), *@len; *@at past them. 0 or -ENOMEM (logged).
 */
static int object_blob(const struct pg_hrecord *r, size_t *at, uint8_t **blob, size_t *len)
{
	uint32_t obj = r->series[*at].object;
	size_t cap = 0;
	int err = 0;

	*blob = NULL;
	*len = 0;
	for (; !err && *at < r->nseries && r->series[*at].object == obj; (*at)++) {
		const struct pg_hseries *x = &r->series[*at];
		uint8_t *one;
		size_t olen;

		err = series_blob(r, x, &one, &olen);
		err = err ?: row_append(blob, len, &cap, x->metric, one, olen);
		free(one);
	}
	if (err) {
		free(*blob);
		*blob = NULL;
	}
	return err;
}

/*
 * In the row's blob b[0..len), the blob of @metric's series: *@at and *@n (*@n = 0: none).
 * 0, or -EINVAL (corrupt).
 */
static int find_metric(const uint8_t *b, size_t len, int metric, size_t *at, size_t *n)
{
	size_t i = 0;

	*n = 0;
	while (i < len) {
		int m = b[i++];
		uint64_t l;

		if (pg_hcodec_get_varint(b, len, &i, &l) || l == 0 || l > len - i)
			return -EINVAL;
		if (m == metric) {
			*at = i;
			*n = l;
			return 0;
		}
		i += l;
	}
	return 0;
}

static int insert_series(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
			 const int64_t *ids)
{
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "INSERT INTO series VALUES(?, ?, ?)", &st);

	for (size_t i = 0; !err && i < r->nseries;) {
		uint32_t obj = r->series[i].object;
		uint8_t *blob;
		size_t len;

		err = object_blob(r, &i, &blob, &len);
		if (err)
			break;
		err = hstmt_bind_int(st, 1, session) ?: hstmt_bind_int(st, 2, ids[obj]) ?:
		      hstmt_bind_blob(st, 3, blob, len);
		err = err ?: hstmt_step(st);
		hstmt_reset(st);
		free(blob);
	}
	hstmt_free(st);
	return err < 0 ? err : 0;
}

/* One row of COPY's text format: session, object and the blob as bytea's hex form. */
static int copy_row(struct pg_hstore *s, int64_t session, int64_t object, const uint8_t *blob,
		    size_t len, char **line, size_t *cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t k;

	if (*cap < 2 * len + 96) {
		char *tmp = realloc(*line, 2 * len + 96);

		if (!tmp)
			return nomem();
		*line = tmp;
		*cap = 2 * len + 96;
	}
	/* bytea's hex form, its backslash doubled for COPY's text format */
	k = (size_t)snprintf(*line, *cap, "%lld\t%lld\t\\\\x", (long long)session,
			     (long long)object);
	for (size_t b = 0; b < len; b++) {
		(*line)[k++] = hex[blob[b] >> 4];
		(*line)[k++] = hex[blob[b] & 15];
	}
	(*line)[k++] = '\n';
	return hdb_copy_row(s->db, *line, k);
}

/* The same with PostgreSQL's COPY: one round trip, not one a row. */
static int copy_series(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
		       const int64_t *ids)
{
	char *line = NULL;
	size_t cap = 0;
	int err = hdb_copy_begin(s->db, "COPY series(session_id, object_id, vals) FROM STDIN");

	if (err)
		return err;
	for (size_t i = 0; !err && i < r->nseries;) {
		uint32_t obj = r->series[i].object;
		uint8_t *blob;
		size_t len;

		err = object_blob(r, &i, &blob, &len);
		if (err)
			break;
		err = copy_row(s, session, ids[obj], blob, len, &line, &cap);
		free(blob);
	}
	free(line);
	return hdb_copy_end(s->db, err != 0) ?: err;
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

static int insert_summaries(struct pg_hstore *s, const struct pg_hrecord *r, int64_t session,
			    const int64_t *ids)
{
	struct id_val *iv = malloc((r->nseries + 1) * sizeof(*iv));
	int64_t *sid = malloc((r->nseries + 1) * sizeof(*sid));
	double *sv = malloc((r->nseries + 1) * sizeof(*sv));
	struct hstmt *st = NULL;
	int err = !iv || !sid || !sv ? nomem() : 0;

	err = err ?: hstmt_prepare(s->db, "INSERT INTO summary VALUES(?, ?, ?, ?)", &st);
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
		err = err ?: hstmt_bind_int(st, 1, session) ?: hstmt_bind_int(st, 2, m) ?:
		      hstmt_bind_blob(st, 3, ob, olen) ?: hstmt_bind_blob(st, 4, vb, vlen);
		err = err ?: hstmt_step(st);
		err = err < 0 ? err : 0;
		hstmt_reset(st);
		free(ob);
		free(vb);
	}
	hstmt_free(st);
	free(iv);
	free(sid);
	free(sv);
	return err;
}

int pg_hstore_add(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *id)
{
	int64_t *ids = malloc((r->nobjects + 1) * sizeof(*ids)), session = 0;
	int err = ids ? hdb_begin(s->db, true) : nomem();

	if (!err && hdb_postgres(s->db))
		err = hdb_exec(s->db, "SELECT pg_advisory_xact_lock(" PG_HSCHEMA_LOCK ")");
	err = err ?: insert_session(s, r, &session);
	err = err ?: object_ids(s, r, ids);
	err = err ?: (hdb_postgres(s->db) ? copy_series : insert_series)(s, r, session, ids);
	err = err ?: insert_summaries(s, r, session, ids);
	err = err ?: hdb_commit(s->db);
	if (err)
		hdb_rollback(s->db);
	else if (id)
		*id = session;
	free(ids);
	return err;
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
		size_t len, at = 0, l = 0;
		const uint8_t *b = hstmt_blob(st, 0, &len);

		err = find_metric(b, len, metric, &at, &l);
		/* an alias: the series it names (which is no alias) */
		if (!err && l == 2 && b[at] == PG_HCODEC_ALIAS && b[at + 1] != metric) {
			err = pg_hmetric_name(b[at + 1]) ? find_metric(b, len, b[at + 1], &at, &l) :
							   -EINVAL;
			err = err ?: (l == 2 && b[at] == PG_HCODEC_ALIAS ? -EINVAL : 0);
		}
		err = err ?: (l ? pg_hcodec_decode(b + at, l, v, n) : 0);
		if (err == -EINVAL)
			err = corrupt(s, "a series cannot be read");
		else if (err < 0)
			err = nomem();
		else
			err = 0;
	}
	hstmt_free(st);
	return err < 0 ? err : 0;
}

/* One session's rows of series_v2 (@sel, ordered by object) as rows of series (@ins). */
static int pack_session(struct hdb *d, struct hstmt *sel, struct hstmt *ins, int64_t session,
			uint8_t **row, size_t *cap)
{
	int64_t obj = -1;
	size_t n = 0;
	int more = 1, err = hstmt_bind_int(sel, 1, session);

	/* one more step than there are rows: the last object's row is written after them */
	while (!err && more) {
		int64_t o = -1, m = 0;
		const uint8_t *b = NULL;
		size_t len = 0;

		err = hstmt_step(sel);
		more = err == 1;
		if (err < 0)
			break;
		err = 0;
		if (more) {
			o = hstmt_int(sel, 0);
			m = hstmt_int(sel, 1);
			b = hstmt_blob(sel, 2, &len);
		}
		if (n && o != obj) {
			err = hstmt_bind_int(ins, 1, session) ?: hstmt_bind_int(ins, 2, obj) ?:
			      hstmt_bind_blob(ins, 3, *row, n);
			err = err ?: hstmt_step(ins);
			err = err < 0 ? err : 0;
			hstmt_reset(ins);
			n = 0;
		}
		if (err || !more)
			break;
		if (m < 1 || m > 255 || !len) {
			pg_err("history: %s is corrupt: a series cannot be read", hdb_name(d));
			err = -EINVAL;
			break;
		}
		obj = o;
		err = row_append(row, &n, cap, (int)m, b, len);
	}
	hstmt_reset(sel);
	return err;
}

/* schema.h; session by session (each a few MB at most) */
int pg_hstore_pack_series(struct hdb *d)
{
	struct hstmt *sess = NULL, *sel = NULL, *ins = NULL;
	uint8_t *row = NULL;
	size_t cap = 0;
	int err = hstmt_prepare(d, "SELECT DISTINCT session_id FROM series_v2 ORDER BY 1", &sess);

	err = err ?: hstmt_prepare(d, "SELECT object_id, metric_id, vals FROM series_v2 WHERE "
				   "session_id = ? ORDER BY object_id, metric_id", &sel);
	err = err ?: hstmt_prepare(d, "INSERT INTO series VALUES(?, ?, ?)", &ins);
	while (!err && (err = hstmt_step(sess)) == 1)
		err = pack_session(d, sel, ins, hstmt_int(sess, 0), &row, &cap);
	hstmt_free(sess);
	hstmt_free(sel);
	hstmt_free(ins);
	free(row);
	if (err < 0)
		return err;
	return hdb_exec(d, "DROP TABLE series_v2");
}

/* "*" stands for all sessions: no branch is named so (git refuses '*') */
#define ALL_BRANCHES "*"

int pg_hstore_cache_get(struct pg_hstore *s, const char *branch, int metric, uint8_t **blob,
			size_t *len)
{
	struct hstmt *st;
	int err = hstmt_prepare(s->db, "SELECT data FROM changes_cache WHERE branch = ? AND "
				"metric_id = ?", &st);

	*blob = NULL;
	*len = 0;
	err = err ?: hstmt_bind_text(st, 1, branch ? branch : ALL_BRANCHES) ?:
	      hstmt_bind_int(st, 2, metric);
	err = err ?: hstmt_step(st);
	if (err == 1) {
		size_t n;
		const void *b = hstmt_blob(st, 0, &n);

		*blob = malloc(n + 1);
		if (*blob) {
			memcpy(*blob, b, n);
			*len = n;
		}
		err = *blob ? 0 : nomem();
	}
	hstmt_free(st);
	return err;
}

int pg_hstore_cache_put(struct pg_hstore *s, const char *branch, int metric,
			const uint8_t *blob, size_t len)
{
	struct hstmt *st = NULL;
	int err = hdb_begin(s->db, true);

	err = err ?: hstmt_prepare(s->db, "INSERT INTO changes_cache VALUES(?, ?, ?) ON CONFLICT"
				   "(branch, metric_id) DO UPDATE SET data = excluded.data", &st);
	err = err ?: hstmt_bind_text(st, 1, branch ? branch : ALL_BRANCHES) ?:
	      hstmt_bind_int(st, 2, metric) ?: hstmt_bind_blob(st, 3, blob, len);
	err = err ?: hstmt_step(st);
	hstmt_free(st);
	err = err < 0 ? err : hdb_commit(s->db);
	if (err)
		hdb_rollback(s->db);
	return err;
}
