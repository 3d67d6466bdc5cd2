// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_schema.c - the history's schema and migrations (history/schema.c)
 * on SQLite files: a new history made at the current version; versions 1 and 2 (made here by
 * their SQL, a series row per metric) upgraded to 3 when opened, every series the same and
 * each object's row the metrics' blobs in order; versions 1 and 3 upgraded to 4, the point
 * table filled from the stored series (the same medians and intervals an add writes) and the
 * generation set; a failed upgrade rolled back; databases that are not a history, or of a
 * newer schema, refused and left alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "fixtures_history.h"
#include "../../history/codec.h"
#include "../../history/seriesrow.h"

/* Schema version 1, as its migration made it, and the sessions and objects of this test */
static const char v1_sql[] =
	"CREATE TABLE perfgate_history(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO perfgate_history VALUES('format', 'perfgate-history');"
	"CREATE TABLE schema_version(version INTEGER NOT NULL);"
	"INSERT INTO schema_version VALUES(1);"
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
	" vals BLOB NOT NULL, PRIMARY KEY(session_id, metric_id)) WITHOUT ROWID;"
	"INSERT INTO session VALUES(1, 'c1', 'main', '2026-11-20T00:00:00Z', 'ci-1', 'prog', 5,"
	" '2026-11-20T00:01:00Z'), (2, 'c2', 'main', '2026-11-21T00:00:00Z', 'ci-1', 'prog', 5,"
	" '2026-11-21T00:01:00Z');"
	"INSERT INTO object VALUES(1, 'prog', 'f', '', 'f'), (2, 'prog', 'g', '', 'g');";

/* What version 2 added */
static const char v2_sql[] =
	"CREATE TABLE changes_cache(branch TEXT NOT NULL, metric_id INTEGER NOT NULL,"
	" data BLOB NOT NULL, PRIMARY KEY(branch, metric_id));"
	"INSERT INTO changes_cache VALUES('*', 1, x'43ff');"
	"UPDATE schema_version SET version = 2;";

/* one old row: session, object, metric and its values (a total's: an alias of self) */
struct old_row {
	int64_t session, object;
	int metric;
	double v[5];
};

/* in no particular order; object 2 (g) only in session 2, with calls only */
static const struct old_row rows[] = {
	{ 2, 1, PG_HM_CALLS, { 10, 10, 10, 11, 10 } },
	{ 1, 1, PG_HM_TOTAL, { 0 } },
	{ 2, 2, PG_HM_CALLS, { 3, 3, 3, 3, 3 } },
	{ 1, 1, PG_HM_SELF, { 1000, 1010, 990, 1005, 1001 } },
	{ 2, 1, PG_HM_SELF, { 1200, 1210, 1190, 1205, 1201 } },
	{ 1, 1, PG_HM_CALLS, { 10, 10, 10, 10, 10 } },
	{ 2, 1, PG_HM_TOTAL, { 2400, 2420, 2380, 2410, 2402 } },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* row @r's blob: *@b (malloc'd) */
static void old_blob(const struct old_row *r, uint8_t **b, size_t *len)
{
	if (r->metric == PG_HM_TOTAL && !r->v[0]) {
		*b = malloc(2);
		assert_non_null(*b);
		(*b)[0] = PG_HCODEC_ALIAS;
		(*b)[1] = PG_HM_SELF;
		*len = 2;
		return;
	}
	assert_int_equal(pg_hcodec_encode(r->v, 5, r->metric == PG_HM_CALLS, b, len), 0);
}

/* a version-1 (or with @v2, 2) history at @path, with rows[] and a summary a session */
static void make_old(const char *path, bool v2)
{
	static const int64_t ids[] = { 1 };
	struct hdb *d = hdb_open(path, true);
	struct hstmt *st;

	assert_non_null(d);
	assert_int_equal(hdb_exec(d, v1_sql), 0);
	assert_int_equal(hstmt_prepare(d, "INSERT INTO series VALUES(?, ?, ?, ?)", &st), 0);
	for (size_t i = 0; i < NROWS; i++) {
		uint8_t *b;
		size_t len;

		old_blob(&rows[i], &b, &len);
		assert_int_equal(hstmt_bind_int(st, 1, rows[i].session), 0);
		assert_int_equal(hstmt_bind_int(st, 2, rows[i].object), 0);
		assert_int_equal(hstmt_bind_int(st, 3, rows[i].metric), 0);
		assert_int_equal(hstmt_bind_blob(st, 4, b, len), 0);
		assert_int_equal(hstmt_step(st), 0);
		hstmt_reset(st);
		free(b);
	}
	hstmt_free(st);
	assert_int_equal(hstmt_prepare(d, "INSERT INTO summary VALUES(?, 1, ?, ?)", &st), 0);
	for (int64_t s = 1; s <= 2; s++) {
		double med = s == 1 ? 1001 : 1201;
		uint8_t *ob, *vb;
		size_t olen, vlen;

		assert_int_equal(pg_hcodec_summary_encode(ids, &med, 1, &ob, &olen, &vb, &vlen), 0);
		assert_int_equal(hstmt_bind_int(st, 1, s), 0);
		assert_int_equal(hstmt_bind_blob(st, 2, ob, olen), 0);
		assert_int_equal(hstmt_bind_blob(st, 3, vb, vlen), 0);
		assert_int_equal(hstmt_step(st), 0);
		hstmt_reset(st);
		free(ob);
		free(vb);
	}
	hstmt_free(st);
	if (v2)
		assert_int_equal(hdb_exec(d, v2_sql), 0);
	hdb_close(d);
}

/* The blob of series row (@session, @object) as the migration should make it. */
static void want_row(int64_t session, int64_t object, uint8_t **row, size_t *n)
{
	size_t cap = 0;

	*row = NULL;
	*n = 0;
	for (int m = PG_HM_SELF; m <= PG_HM_MAX; m++) {
		for (size_t i = 0; i < NROWS; i++) {
			uint8_t *b;
			size_t len;

			if (rows[i].session != session || rows[i].object != object ||
			    rows[i].metric != m)
				continue;
			old_blob(&rows[i], &b, &len);
			assert_int_equal(pg_hrow_append(row, n, &cap, m, b, len), 0);
			free(b);
		}
	}
}

static void assert_row(const char *path, int64_t session, int64_t object)
{
	struct hdb *d = hdb_open(path, false);
	struct hstmt *st;
	const void *b;
	uint8_t *want;
	size_t len, n;

	assert_non_null(d);
	assert_int_equal(hstmt_prepare(d, "SELECT vals FROM series WHERE session_id = ? AND "
				       "object_id = ?", &st), 0);
	assert_int_equal(hstmt_bind_int(st, 1, session), 0);
	assert_int_equal(hstmt_bind_int(st, 2, object), 0);
	assert_int_equal(hstmt_step(st), 1);
	b = hstmt_blob(st, 0, &len);
	want_row(session, object, &want, &n);
	assert_int_equal(len, n);
	assert_memory_equal(b, want, n);
	free(want);
	hstmt_free(st);
	hdb_close(d);
}

static int64_t tables(const char *path, const char *name)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		 "name = '%s'", name);
	return pg_fx_hint(path, sql);
}

/* Every old row's values read back from the migrated store. */
static void assert_migrated(const char *path)
{
	struct pg_hstore *s = pg_hstore_open(path, false);
	struct pg_hsession *ses;
	size_t n;

	assert_non_null(s);
	assert_int_equal(pg_fx_hint(path, "SELECT version FROM schema_version"), PG_HSTORE_SCHEMA);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM schema_version"), 1);
	assert_int_equal(tables(path, "series_v2"), 0);
	assert_int_equal(tables(path, "changes_cache"), 1);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM pragma_table_info('series')"), 3);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM pragma_table_info('series') WHERE"
				    " name IN ('session_id', 'object_id', 'vals')"), 3);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM series"), 3);
	assert_row(path, 1, 1);
	assert_row(path, 2, 1);
	assert_row(path, 2, 2);
	for (size_t i = 0; i < NROWS; i++) {
		const struct old_row *r = &rows[i];
		/* an alias reads as the series it names */
		const double *want = r->v[0] ? r->v : rows[3].v;
		double *v;

		assert_int_equal(pg_hstore_series(s, r->session, r->object, r->metric, &v, &n), 0);
		assert_int_equal(n, 5);
		for (size_t k = 0; k < 5; k++)
			assert_true(fabs(v[k] / want[k] - 1) <= 0.000245);
		free(v);
	}
	assert_int_equal(pg_hstore_sessions(s, "main", &ses, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ses[1].commit, "c2");
	pg_hsessions_free(ses, n);
	pg_hstore_close(s);
	/* the points from the series: f's medians (the values come back within 0.025%), an
	 * interval of 5 repetitions their range, calls the mean a repetition; g has calls only */
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM point"), 3);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM trend WHERE commit_id = 'c2'"
				    " AND name = 'f' AND abs(self / 1201.0 - 1) < 0.0003 AND"
				    " abs(self_lo / 1190.0 - 1) < 0.0003 AND"
				    " abs(self_hi / 1210.0 - 1) < 0.0003 AND"
				    " abs(total / 2402.0 - 1) < 0.0003 AND calls = 10.2 AND"
				    " cpu IS NULL AND wall IS NULL"), 1);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM trend WHERE commit_id = 'c1' AND "
				    "name = 'f' AND total = self AND calls = 10"), 1);
	assert_int_equal(pg_fx_hint(path, "SELECT count(*) FROM trend WHERE name = 'g' AND "
				    "calls = 3 AND self IS NULL AND self_lo IS NULL"), 1);
	assert_int_equal(pg_fx_hint(path, "SELECT CAST(value AS INTEGER) FROM perfgate_history "
				    "WHERE key = 'generation'"), 2);
}

static void test_v1(void **state)
{
	static const char *const names[] = { "f", "h" };
	static const double t[] = { 900, 50 };
	struct pg_fx_hdb h;
	struct pg_hstore *s;

	pg_fx_hdb_make(&h);
	make_old(h.path, false);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), NROWS);
	assert_migrated(h.path);
	/* opened again: nothing left to do, the same rows */
	assert_migrated(h.path);
	/* and a new session lands beside the old ones, reusing f */
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	pg_fx_hadd(s, "main", "c3", "2026-11-22T00:00:00Z", names, t, 2, 5, 0, 1);
	pg_hstore_close(s);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM object"), 4);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series WHERE session_id = 3"), 3);
	pg_fx_hdb_remove(&h);
}

static void test_v2(void **state)
{
	struct pg_fx_hdb h;

	pg_fx_hdb_make(&h);
	make_old(h.path, true);
	assert_migrated(h.path);
	/* version 2's cache kept as it was */
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM changes_cache WHERE "
				    "branch = '*' AND metric_id = 1 AND data = x'43ff'"), 1);
	pg_fx_hdb_remove(&h);
}

/* A version-1 row the migration cannot read: the open fails, the database stays version 1. */
static void test_v1_corrupt(void **state)
{
	struct pg_fx_hdb h;

	pg_fx_hdb_make(&h);
	make_old(h.path, false);
	pg_fx_hsql(h.path, "INSERT INTO series VALUES(1, 2, 0, x'00')");
	assert_null(pg_hstore_open(h.path, false));
	assert_int_equal(pg_fx_hint(h.path, "SELECT version FROM schema_version"), 1);
	assert_int_equal(tables(h.path, "series_v2"), 0);
	assert_int_equal(tables(h.path, "changes_cache"), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM pragma_table_info('series')"), 4);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), NROWS + 1);
	pg_fx_hdb_remove(&h);
}

static void test_new(void **state)
{
	struct pg_fx_hdb h;
	struct pg_hstore *s;

	pg_fx_hdb_make(&h);
	/* no file: made only with create */
	assert_null(pg_hstore_open(h.path, false));
	assert_int_equal(access(h.path, F_OK), -1);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	pg_hstore_close(s);
	assert_int_equal(pg_fx_hint(h.path, "SELECT version FROM schema_version"),
			 PG_HSTORE_SCHEMA);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM sqlite_master WHERE type = "
				    "'table'"), 11);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM sqlite_master WHERE type = "
				    "'view' AND name = 'trend'"), 1);
	assert_int_equal(pg_fx_hint(h.path, "SELECT CAST(value AS INTEGER) FROM perfgate_history "
				    "WHERE key = 'generation'"), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM metric"), PG_HM_MAX);
	assert_int_equal(pg_fx_hint(h.path, "SELECT id FROM metric WHERE name = 'calls'"),
			 PG_HM_CALLS);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM pragma_table_info('series')"), 3);
	pg_fx_hdb_remove(&h);
}

/* Two values within the 0.025% the encoded series keep, or both NULL */
#define CLOSE(C) "(p." C " IS NULL AND k." C " IS NULL OR abs(p." C " / k." C " - 1) < 0.0003)"

/*
 * Version 3 (sessions added, then the point table, the view and the generation taken away):
 * the migration writes the rows the adds wrote, within the 0.025% the encoded series keep,
 * and each session's calls exactly.
 */
static void test_v3(void **state)
{
	static const char *const names[] = { "f", "h", "k" };
	static const double t[] = { 900, 50, NAN };
	struct pg_fx_hdb h;
	struct pg_hstore *s;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	for (int i = 0; i < 3; i++) {
		char time[32];

		snprintf(time, sizeof(time), "2026-11-2%dT00:00:00Z", i);
		pg_fx_hadd(s, "main", "c", time, names, t, 3, 2 + 3 * i, 0.02, 11 + i);
	}
	pg_hstore_close(s);
	/* f and h, and the program, in three sessions: k is never called */
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM point"), 9);
	pg_fx_hsql(h.path, "CREATE TABLE kept AS SELECT * FROM point;"
		   "DROP VIEW trend; DROP TABLE point; DELETE FROM perfgate_history "
		   "WHERE key = 'generation'; DROP TABLE changes_alerted; DROP TABLE session_env;"
		   "UPDATE schema_version SET version = 3");
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	pg_hstore_close(s);
	assert_int_equal(pg_fx_hint(h.path, "SELECT version FROM schema_version"),
			 PG_HSTORE_SCHEMA);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM changes_alerted"), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM point p JOIN kept k USING"
				    "(session_id, object_id) WHERE " CLOSE("self") " AND "
				    CLOSE("self_lo") " AND " CLOSE("self_hi") " AND " CLOSE("total")
				    " AND " CLOSE("total_lo") " AND " CLOSE("total_hi") " AND "
				    CLOSE("cpu") " AND " CLOSE("wall") " AND " CLOSE("wall_lo")
				    " AND " CLOSE("wall_hi") " AND " CLOSE("calls")), 9);
	/* with 2 repetitions the interval is the range; with 5 and 8 as well (fewer than 6) or
	 * the order statistics: within the range either way */
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM trend WHERE name = 'f' AND"
				    " self_lo <= self AND self <= self_hi AND self_lo < self_hi"),
			 3);
	assert_int_equal(pg_fx_hint(h.path, "SELECT CAST(value AS INTEGER) FROM perfgate_history "
				    "WHERE key = 'generation'"), 3);
	pg_fx_hdb_remove(&h);
}

/*
 * Version 5 (sessions added, then the environments' table taken away): the migration makes
 * the table, the old sessions have no environment, and a new session stores its own.
 */
static void test_v5(void **state)
{
	static const char *const names[] = { "f" };
	static const double t[] = { 900 };
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	struct pg_run *run;
	struct pg_hrecord rec;
	struct pg_run back;
	int64_t old, id;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	old = pg_fx_hadd(s, "main", "c1", "2026-11-20T00:00:00Z", names, t, 1, 3, 0.02, 11);
	pg_hstore_close(s);
	pg_fx_hsql(h.path, "DROP TABLE session_env; UPDATE schema_version SET version = 5");
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	assert_int_equal(pg_fx_hint(h.path, "SELECT version FROM schema_version"),
			 PG_HSTORE_SCHEMA);
	assert_int_equal(tables(h.path, "session_env"), 1);
	pg_run_init(&back);
	assert_int_equal(pg_hstore_session_env(s, old, &back.meta), 0);
	assert_int_equal(back.meta.nenv, 0);
	assert_null(back.meta.kernel);

	run = pg_fx_hrun("c2", "2026-11-21T00:00:00Z", names, t, 1, 3, 0.02, 12);
	free(run->meta.kernel);
	run->meta.kernel = strdup("6.1.0");
	assert_int_equal(pg_env_set(&run->meta, "lib.libc.so.6", "libc6 2.36-9 aa /lib/libc.so.6"),
			 0);
	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, "main", NULL), 0);
	assert_int_equal(pg_hstore_add(s, &rec, &id), 0);
	pg_hrecord_release(&rec);
	pg_run_free(run);
	assert_int_equal(pg_hstore_session_env(s, id, &back.meta), 0);
	assert_string_equal(back.meta.kernel, "6.1.0");
	assert_int_equal(back.meta.nenv, 1);
	assert_string_equal(pg_env_get(&back.meta, "lib.libc.so.6"),
			    "libc6 2.36-9 aa /lib/libc.so.6");
	pg_run_release(&back);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

static void test_refused(void **state)
{
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	FILE *f;

	pg_fx_hdb_make(&h);
	/* an empty database without create */
	pg_fx_hsql(h.path, "VACUUM");
	assert_null(pg_hstore_open(h.path, false));
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM sqlite_master"), 0);
	/* another program's tables, even with create: untouched */
	pg_fx_hsql(h.path, "CREATE TABLE session(x INTEGER)");
	assert_null(pg_hstore_open(h.path, true));
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM sqlite_master"), 1);
	unlink(h.path);
	/* a newer schema, or another marker */
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	pg_hstore_close(s);
	pg_fx_hsql(h.path, "UPDATE schema_version SET version = schema_version.version + 1");
	assert_null(pg_hstore_open(h.path, true));
	assert_int_equal(pg_fx_hint(h.path, "SELECT version FROM schema_version"),
			 PG_HSTORE_SCHEMA + 1);
	pg_fx_hsql(h.path, "UPDATE schema_version SET version = schema_version.version - 1;"
		   "UPDATE perfgate_history SET value = 'other'");
	assert_null(pg_hstore_open(h.path, false));
	unlink(h.path);
	/* not a database */
	f = fopen(h.path, "w");
	assert_non_null(f);
	fputs("not a database, but long enough to look at its header: 0123456789abcdef\n", f);
	fclose(f);
	assert_null(pg_hstore_open(h.path, true));
	pg_fx_hdb_remove(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v3),
		cmocka_unit_test(test_v5),
		cmocka_unit_test(test_v1_corrupt),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
