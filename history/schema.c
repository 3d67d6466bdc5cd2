// SPDX-License-Identifier: MIT
/*
 * history/schema.c - the history's schema, its migrations, and the checks that a database is
 * a history this perfgate can read (schema.h).
 *
 * Migration N takes a database from schema version N - 1 to N; version 0 is an empty
 * database. Each is written once per engine (the same tables and columns; only the type names
 * differ) and runs inside the transaction that opens the database, which also records the new
 * version: an interrupted upgrade leaves the old schema. A migration's step in C (version 3's
 * packing of the series rows) comes before the table.
 *
 * The series table, tens of thousands of rows a session, has no foreign keys: its rows are
 * written only by an add, in its transaction, with the ids it has just read or made, and
 * PostgreSQL's foreign-key triggers cost a lookup per row and key (half of an add's time).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "db.h"
#include "point.h"
#include "schema.h"
#include "seriesrow.h"
#include "store.h"

#define MARKER "perfgate-history"

struct migration {
	const char *sqlite, *postgres;
	int (*after)(struct hdb *d);	/* a step in C after the SQL, or NULL */
};

/* One session's rows of series_v2 (@sel: object, metric and blob, by object) as rows of series. */
static int pack_session(struct hdb *d, struct hstmt *sel, int64_t session, uint8_t **row,
			size_t *cap)
{
	struct hrows *w = NULL;
	int64_t obj = -1;
	size_t n = 0;
	/* the first step runs the query (PostgreSQL fetches every row) before the copy begins */
	int more = hstmt_bind_int(sel, 1, session) ?: hstmt_step(sel);
	int err = more < 0 ? more : hdb_rows_begin(d, PG_HROW_TABLE, PG_HROW_COLUMNS, &w);

	for (; !err && more == 1; more = hstmt_step(sel)) {
		int64_t o = hstmt_int(sel, 0), m = hstmt_int(sel, 1);
		size_t len;
		const uint8_t *b = hstmt_blob(sel, 2, &len);

		/* the row of the object before this one is whole */
		if (n && o != obj) {
			err = pg_hrow_put(w, session, obj, *row, n);
			n = 0;
		}
		if (!err && (m < 1 || m > 255 || !len)) {
			pg_err("history: %s is corrupt: a series cannot be read", hdb_name(d));
			err = -EINVAL;
		}
		obj = o;
		if (!err && pg_hrow_append(row, &n, cap, (int)m, b, len)) {
			pg_err("history: out of memory");
			err = -ENOMEM;
		}
	}
	err = err ?: (more < 0 ? more : 0);
	if (!err && n)
		err = pg_hrow_put(w, session, obj, *row, n);
	err = hrows_end(w, err != 0) ?: err;
	hstmt_reset(sel);
	return err;
}

/*
 * Schema version 3's step after its SQL: every row of series_v2 (a session, object and
 * metric each) into series (a session and object each, seriesrow.h), then series_v2 dropped.
 * Session by session (each a few MB at most).
 */
static int pack_series(struct hdb *d)
{
	struct hstmt *sess = NULL, *sel = NULL;
	uint8_t *row = NULL;
	size_t cap = 0;
	int err = hstmt_prepare(d, "SELECT DISTINCT session_id FROM series_v2 ORDER BY 1", &sess);

	err = err ?: hstmt_prepare(d, "SELECT object_id, metric_id, vals FROM series_v2 WHERE "
				   "session_id = ? ORDER BY object_id, metric_id", &sel);
	/* PostgreSQL has fetched the sessions at the first step: its copies may come between */
	while (!err && (err = hstmt_step(sess)) == 1)
		err = pack_session(d, sel, hstmt_int(sess, 0), &row, &cap);
	hstmt_free(sess);
	hstmt_free(sel);
	free(row);
	if (err < 0)
		return err;
	return hdb_exec(d, "DROP TABLE series_v2");
}

/* One session's point rows from its series rows (@sel: object and blob, by object). */
static int fill_session(struct hdb *d, struct hstmt *sel, int64_t session, uint32_t reps)
{
	struct hrows *w = NULL;
	struct pg_hpoint p;
	int more = hstmt_bind_int(sel, 1, session) ?: hstmt_step(sel);
	int err = more < 0 ? more : hdb_rows_begin(d, PG_HPOINT_TABLE, PG_HPOINT_COLUMNS, &w);

	for (; !err && more == 1; more = hstmt_step(sel)) {
		size_t len, n;
		const uint8_t *b = hstmt_blob(sel, 1, &len);
		double *v;

		pg_hpoint_init(&p);
		for (int m = PG_HM_SELF; !err && m <= PG_HM_MAX; m++) {
			err = pg_hrow_decode(b, len, m, &v, &n);
			err = err ?: (n ? pg_hpoint_set(&p, m, v, n, reps) : 0);
			free(v);
		}
		if (err == -EINVAL)
			pg_err("history: %s is corrupt: a series cannot be read", hdb_name(d));
		else if (err)
			pg_err("history: out of memory");
		err = err ?: pg_hpoint_put(w, session, hstmt_int(sel, 0), &p);
	}
	err = err ?: (more < 0 ? more : 0);
	err = hrows_end(w, err != 0) ?: err;
	hstmt_reset(sel);
	return err;
}

/* Schema version 4's step after its SQL: the point rows of every stored session. */
static int fill_points(struct hdb *d)
{
	struct hstmt *sess = NULL, *sel = NULL;
	int err = hstmt_prepare(d, "SELECT id, reps FROM session ORDER BY id", &sess);

	err = err ?: hstmt_prepare(d, "SELECT object_id, vals FROM series WHERE session_id = ? "
				   "ORDER BY object_id", &sel);
	while (!err && (err = hstmt_step(sess)) == 1)
		err = fill_session(d, sel, hstmt_int(sess, 0), (uint32_t)hstmt_int(sess, 1));
	hstmt_free(sess);
	hstmt_free(sel);
	return err < 0 ? err : 0;
}

/* The point table's value columns, and the view that names their session and object */
#define POINT_VALUES(T)								\
	"self " T ", self_lo " T ", self_hi " T ", total " T ", total_lo " T ", total_hi " T \
	", cpu " T ", cpu_lo " T ", cpu_hi " T ", calls " T ", wall " T ", wall_lo " T	\
	", wall_hi " T ", program_cpu " T ", program_cpu_lo " T ", program_cpu_hi " T
#define TREND_VIEW							\
	"CREATE VIEW trend AS SELECT s.id AS session_id, s.commit_id, s.branch, s.time,"	\
	" s.host, o.id AS object_id, o.binary_file, o.name, o.scope, o.display, "	\
	POINT_VALUES("") " FROM point p JOIN session s ON s.id = p.session_id"		\
	" JOIN object o ON o.id = p.object_id;"
#define GENERATION							\
	"INSERT INTO perfgate_history SELECT 'generation', CAST(count(*) AS TEXT) FROM session;"

static const struct migration migrations[PG_HSTORE_SCHEMA] = {
	{
		"CREATE TABLE perfgate_history(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO perfgate_history VALUES('format', '" MARKER "');"
		"CREATE TABLE schema_version(version INTEGER NOT NULL);"
		"INSERT INTO schema_version VALUES(0);"
		"CREATE TABLE metric(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
		" unit TEXT NOT NULL);"
		"INSERT INTO metric VALUES(1, 'self', 'ns'), (2, 'total', 'ns'), (3, 'cpu', 'ns'),"
		" (4, 'calls', 'calls'), (5, 'wall', 'ns'), (6, 'program-cpu', 'ns');"
		"CREATE TABLE session(id INTEGER PRIMARY KEY, commit_id TEXT, branch TEXT NOT NULL,"
		" time TEXT NOT NULL, host TEXT NOT NULL, command TEXT NOT NULL,"
		" reps INTEGER NOT NULL, added TEXT NOT NULL);"
		"CREATE INDEX session_order ON session(branch, time, id);"
		"CREATE TABLE object(id INTEGER PRIMARY KEY, binary_file TEXT NOT NULL,"
		" name TEXT NOT NULL, scope TEXT NOT NULL, display TEXT NOT NULL,"
		" UNIQUE(binary_file, name, scope));"
		"CREATE TABLE series(session_id INTEGER NOT NULL, object_id INTEGER NOT NULL,"
		" metric_id INTEGER NOT NULL, vals BLOB NOT NULL,"
		" PRIMARY KEY(session_id, object_id, metric_id)) WITHOUT ROWID;"
		"CREATE TABLE summary(session_id INTEGER NOT NULL REFERENCES session(id),"
		" metric_id INTEGER NOT NULL REFERENCES metric(id), objects BLOB NOT NULL,"
		" vals BLOB NOT NULL, PRIMARY KEY(session_id, metric_id)) WITHOUT ROWID;",

		"CREATE TABLE perfgate_history(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO perfgate_history VALUES('format', '" MARKER "');"
		"CREATE TABLE schema_version(version BIGINT NOT NULL);"
		"INSERT INTO schema_version VALUES(0);"
		"CREATE TABLE metric(id BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
		" unit TEXT NOT NULL);"
		"INSERT INTO metric VALUES(1, 'self', 'ns'), (2, 'total', 'ns'), (3, 'cpu', 'ns'),"
		" (4, 'calls', 'calls'), (5, 'wall', 'ns'), (6, 'program-cpu', 'ns');"
		"CREATE TABLE session(id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
		" commit_id TEXT, branch TEXT NOT NULL, time TEXT NOT NULL, host TEXT NOT NULL,"
		" command TEXT NOT NULL, reps BIGINT NOT NULL, added TEXT NOT NULL);"
		"CREATE INDEX session_order ON session(branch, time, id);"
		"CREATE TABLE object(id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
		" binary_file TEXT NOT NULL, name TEXT NOT NULL, scope TEXT NOT NULL,"
		" display TEXT NOT NULL, UNIQUE(binary_file, name, scope));"
		"CREATE TABLE series(session_id BIGINT NOT NULL, object_id BIGINT NOT NULL,"
		" metric_id BIGINT NOT NULL, vals BYTEA NOT NULL,"
		" PRIMARY KEY(session_id, object_id, metric_id));"
		"CREATE TABLE summary(session_id BIGINT NOT NULL REFERENCES session(id),"
		" metric_id BIGINT NOT NULL REFERENCES metric(id), objects BYTEA NOT NULL,"
		" vals BYTEA NOT NULL, PRIMARY KEY(session_id, metric_id));",
		NULL,
	},
	/* 2: the change points' cache of history changes (one row per branch and metric) */
	{
		"CREATE TABLE changes_cache(branch TEXT NOT NULL, metric_id INTEGER NOT NULL,"
		" data BLOB NOT NULL, PRIMARY KEY(branch, metric_id));",

		"CREATE TABLE changes_cache(branch TEXT NOT NULL, metric_id BIGINT NOT NULL,"
		" data BYTEA NOT NULL, PRIMARY KEY(branch, metric_id));",
		NULL,
	},
	/*
	 * 3: one series row a session and object, every metric's blob in it (seriesrow.h), not
	 * one a metric: PostgreSQL spent a row header and a primary-key entry on each of four rows
	 * a function and session, 3.2 times the bytes SQLite needs for the same history
	 */
	{
		"ALTER TABLE series RENAME TO series_v2;"
		"CREATE TABLE series(session_id INTEGER NOT NULL, object_id INTEGER NOT NULL,"
		" vals BLOB NOT NULL, PRIMARY KEY(session_id, object_id)) WITHOUT ROWID;",

		"ALTER TABLE series RENAME TO series_v2;"
		"ALTER INDEX series_pkey RENAME TO series_v2_pkey;"
		"CREATE TABLE series(session_id BIGINT NOT NULL, object_id BIGINT NOT NULL,"
		" vals BYTEA NOT NULL, PRIMARY KEY(session_id, object_id));",
		pack_series,
	},
	/*
	 * 4: each session's per-object medians and their intervals as plain columns (point.h),
	 * and the view of them with their session and object, for SQL and Grafana; and the
	 * generation, one more at every write, by which a publisher detects another's write
	 */
	{
		"CREATE TABLE point(session_id INTEGER NOT NULL, object_id INTEGER NOT NULL, "
		POINT_VALUES("REAL") ", PRIMARY KEY(session_id, object_id)) WITHOUT ROWID;"
		TREND_VIEW GENERATION,

		"CREATE TABLE point(session_id BIGINT NOT NULL, object_id BIGINT NOT NULL, "
		POINT_VALUES("DOUBLE PRECISION") ", PRIMARY KEY(session_id, object_id));"
		TREND_VIEW GENERATION,
		fill_points,
	},
	/*
	 * 5: the regression change points history changes --alert-new has alerted on (by the
	 * first session of their new level), so that each alerts once (history/alerted.c)
	 */
	{
		"CREATE TABLE changes_alerted(branch TEXT NOT NULL, metric_id INTEGER NOT NULL,"
		" object_id INTEGER NOT NULL, session_id INTEGER NOT NULL,"
		" PRIMARY KEY(branch, metric_id, object_id, session_id));",

		"CREATE TABLE changes_alerted(branch TEXT NOT NULL, metric_id BIGINT NOT NULL,"
		" object_id BIGINT NOT NULL, session_id BIGINT NOT NULL,"
		" PRIMARY KEY(branch, metric_id, object_id, session_id));",
		NULL,
	},
	/*
	 * 6: the environment each session was recorded in (kernel, CPU model, the run file's
	 * meta.environment entries with the shared libraries' versions), so that history changes
	 * can say what else changed at a change point; sessions stored before have none
	 */
	{
		"CREATE TABLE session_env(session_id INTEGER NOT NULL, key TEXT NOT NULL,"
		" value TEXT NOT NULL, PRIMARY KEY(session_id, key)) WITHOUT ROWID;",

		"CREATE TABLE session_env(session_id BIGINT NOT NULL, key TEXT NOT NULL,"
		" value TEXT NOT NULL, PRIMARY KEY(session_id, key));",
		NULL,
	},
};

/* One integer from @sql (no parameters) into *@v; 0 rows: *@v = -1. */
static int query_int(struct hdb *d, const char *sql, int64_t *v)
{
	struct hstmt *st;
	int err = hstmt_prepare(d, sql, &st);

	*v = -1;
	if (err)
		return err;
	err = hstmt_step(st);
	if (err == 1)
		*v = hstmt_int(st, 0);
	hstmt_free(st);
	return err < 0 ? err : 0;
}

/* Does the database hold perfgate's marker table (*@ours), or other tables (*@others)? */
static int inspect(struct hdb *d, bool *ours, bool *others)
{
	int64_t n, marker;
	int err;

	if (hdb_postgres(d)) {
		err = query_int(d, "SELECT count(*) FROM pg_tables WHERE schemaname ="
				" current_schema() AND tablename = 'perfgate_history'", &marker);
		err = err ?: query_int(d, "SELECT count(*) FROM pg_tables WHERE schemaname ="
				       " current_schema() AND tablename IN ('schema_version',"
				       " 'metric', 'session', 'object', 'series', 'summary',"
				       " 'changes_cache', 'point', 'changes_alerted',"
				       " 'session_env')", &n);
	} else {
		err = query_int(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
				" name = 'perfgate_history'", &marker);
		err = err ?: query_int(d, "SELECT count(*) FROM sqlite_master", &n);
	}
	if (err)
		return err;
	*ours = marker > 0;
	*others = n > 0;
	return 0;
}

/* The marker's value must be ours and the version one this perfgate knows. */
static int check_ours(struct hdb *d, int64_t *version)
{
	struct hstmt *st;
	bool ok = false;
	int err = hstmt_prepare(d, "SELECT value FROM perfgate_history WHERE key = 'format'", &st);

	if (err)
		return err;
	err = hstmt_step(st);
	if (err == 1) {
		const char *v = hstmt_text(st, 0);

		ok = v && !strcmp(v, MARKER);
	}
	hstmt_free(st);
	if (err < 0)
		return err;
	err = ok ? query_int(d, "SELECT max(version) FROM schema_version", version) : 0;
	if (err)
		return err;
	if (!ok || *version < 0) {
		pg_err("history: %s is not a perfgate history database (its marker table says "
		       "otherwise)", hdb_name(d));
		return -EINVAL;
	}
	if (*version > PG_HSTORE_SCHEMA) {
		pg_err("history: %s has schema version %lld, newer than this perfgate's %d: use "
		       "a newer perfgate", hdb_name(d), (long long)*version, PG_HSTORE_SCHEMA);
		return -EINVAL;
	}
	return 0;
}

static int migrate(struct hdb *d, int64_t from)
{
	char sql[96];
	int err = 0;

	for (int64_t v = from + 1; !err && v <= PG_HSTORE_SCHEMA; v++) {
		const struct migration *m = &migrations[v - 1];

		err = hdb_exec(d, hdb_postgres(d) ? m->postgres : m->sqlite);
		err = err ?: (m->after ? m->after(d) : 0);
		snprintf(sql, sizeof(sql), "UPDATE schema_version SET version = %lld",
			 (long long)v);
		err = err ?: hdb_exec(d, sql);
	}
	return err;
}

int pg_hschema_prepare(struct hdb *d, bool create)
{
	bool ours, others;
	int64_t version = 0;
	int err = hdb_begin(d, true);

	if (!err && hdb_postgres(d))
		err = hdb_exec(d, "SELECT pg_advisory_xact_lock(" PG_HSCHEMA_LOCK ")");
	err = err ?: inspect(d, &ours, &others);
	if (err)
		goto fail;
	if (ours) {
		err = check_ours(d, &version);
	} else if (others) {
		pg_err("history: %s is not a perfgate history database (it holds other tables)",
		       hdb_name(d));
		err = -EINVAL;
	} else if (!create) {
		pg_err("history: %s holds no history yet (perfgate history add makes one)",
		       hdb_name(d));
		err = -ENOENT;
	}
	if (!err && version < PG_HSTORE_SCHEMA)
		err = migrate(d, version);
	err = err ?: hdb_commit(d);
	if (!err)
		return 0;
fail:
	hdb_rollback(d);
	return err;
}
