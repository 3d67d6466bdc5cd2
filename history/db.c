// SPDX-License-Identifier: MIT
/*
 * history/db.c - SQLite and PostgreSQL behind one small interface (db.h).
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "../core/log.h"
#include "db.h"

#define HSTMT_MAX_PARAMS 20

struct hdb {
	sqlite3 *lite;
	PGconn *pg;
	char *name;
	unsigned nstmts;	/* PostgreSQL statement names */
};

/* rows in bulk: SQLite's INSERT, or PostgreSQL's COPY and the values of the row being set */
struct hrows {
	struct hdb *d;
	int ncols;
	struct hstmt *ins;
	struct {
		const uint8_t *p;
		size_t n;
		int64_t v;
		double d;
		enum { COL_INT, COL_BLOB, COL_DOUBLE, COL_NULL } kind;
	} col[HSTMT_MAX_PARAMS];
	char *line;
	size_t cap;
};

struct hstmt {
	struct hdb *db;
	sqlite3_stmt *lite;
	/* PostgreSQL */
	char name[24];
	int nparams;
	const char *values[HSTMT_MAX_PARAMS];
	int lengths[HSTMT_MAX_PARAMS], formats[HSTMT_MAX_PARAMS];
	char bin[HSTMT_MAX_PARAMS][8];
	PGresult *res;
	int row, nrows;
	bool run;
};

bool hdb_is_postgres(const char *db)
{
	return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

bool hdb_postgres(const struct hdb *d)
{
	return d->pg != NULL;
}

const char *hdb_name(const struct hdb *d)
{
	return d->name;
}

/* @uri without its password ("postgresql://user:secret@host" -> "postgresql://user@host") */
static char *redact(const char *uri)
{
	const char *at = strchr(uri, '@'), *scheme = strstr(uri, "://"), *colon;
	char *s;

	if (!at || !scheme)
		return strdup(uri);
	colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
	if (!colon)
		return strdup(uri);
	if (asprintf(&s, "%.*s%s", (int)(colon - uri), uri, at) < 0)
		return NULL;
	return s;
}

static struct hdb *open_sqlite(struct hdb *d, const char *path, bool create)
{
	struct stat sb;
	int rc;

	if (!create && stat(path, &sb)) {
		pg_err("history: no history database at %s", path);
		return NULL;
	}
	rc = sqlite3_open_v2(path, &d->lite,
			     SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), NULL);
	if (rc != SQLITE_OK) {
		pg_err("history: cannot open %s: %s", path,
		       d->lite ? sqlite3_errmsg(d->lite) : sqlite3_errstr(rc));
		return NULL;
	}
	sqlite3_busy_timeout(d->lite, PG_HDB_BUSY_MS);
	sqlite3_extended_result_codes(d->lite, 1);
	return d;
}

static struct hdb *open_pg(struct hdb *d, const char *uri)
{
	d->pg = PQconnectdb(uri);
	if (!d->pg || PQstatus(d->pg) != CONNECTION_OK) {
		pg_err("history: cannot connect to %s: %s", d->name,
		       d->pg ? PQerrorMessage(d->pg) : "out of memory");
		return NULL;
	}
	/* notices (CREATE ... IF NOT EXISTS) are not for the user */
	PQsetNoticeProcessor(d->pg, NULL, NULL);
	return hdb_busy_ms(d, PG_HDB_BUSY_MS) ? NULL : d;
}

struct hdb *hdb_open(const char *db, bool create)
{
	struct hdb *d = calloc(1, sizeof(*d)), *ok;

	if (!d || !(d->name = redact(db))) {
		pg_err("history: out of memory");
		free(d);
		return NULL;
	}
	ok = hdb_is_postgres(db) ? open_pg(d, db) : open_sqlite(d, db, create);
	if (!ok)
		hdb_close(d);
	return ok;
}

void hdb_close(struct hdb *d)
{
	if (!d)
		return;
	if (d->lite)
		sqlite3_close(d->lite);
	if (d->pg)
		PQfinish(d->pg);
	free(d->name);
	free(d);
}

/* what a writer that waited too long for the lock is told to do */
#define BUSY_HINT "another writer held it too long: let that one finish (serialize the " \
		  "publishing jobs), then run this again; nothing was written"

static int lite_err(struct hdb *d, const char *what)
{
	int rc = sqlite3_extended_errcode(d->lite);
	bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;

	pg_err("history: %s: %s: %s%s%s", d->name, what, sqlite3_errmsg(d->lite),
	       busy ? ": " : "", busy ? BUSY_HINT : "");
	return busy ? -EBUSY : -EIO;
}

static int pg_fail(struct hdb *d, const char *what)
{
	char msg[512];
	size_t len;

	/* the first line: what went wrong (the rest quotes the statement) */
	snprintf(msg, sizeof(msg), "%s", PQerrorMessage(d->pg));
	msg[strcspn(msg, "\n")] = '\0';
	len = strlen(msg);
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		msg[--len] = '\0';
	pg_err("history: %s: %s: %s", d->name, what, msg);
	return -EIO;
}

int hdb_exec(struct hdb *d, const char *sql)
{
	PGresult *res;
	const char *state;
	bool busy;
	int ok;

	if (d->lite)
		return sqlite3_exec(d->lite, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
		       lite_err(d, "cannot run a statement");
	res = PQexec(d->pg, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	/* lock_not_available: the writers' lock was held past lock_timeout */
	state = ok ? NULL : PQresultErrorField(res, PG_DIAG_SQLSTATE);
	busy = state && !strcmp(state, "55P03");
	PQclear(res);
	if (busy) {
		pg_err("history: %s: the writers' lock: %s", d->name, BUSY_HINT);
		return -EBUSY;
	}
	return ok ? 0 : pg_fail(d, "cannot run a statement");
}

int hdb_busy_ms(struct hdb *d, int ms)
{
	char sql[64];

	if (d->lite) {
		sqlite3_busy_timeout(d->lite, ms);
		return 0;
	}
	snprintf(sql, sizeof(sql), "SET lock_timeout = %d", ms);
	return hdb_exec(d, sql);
}

int hdb_begin(struct hdb *d, bool write)
{
	if (d->lite)
		return hdb_exec(d, write ? "BEGIN IMMEDIATE" : "BEGIN");
	return hdb_exec(d, "BEGIN");
}

int hdb_commit(struct hdb *d)
{
	return hdb_exec(d, "COMMIT");
}

void hdb_rollback(struct hdb *d)
{
	if (d->lite) {
		if (!sqlite3_get_autocommit(d->lite))
			sqlite3_exec(d->lite, "ROLLBACK", NULL, NULL, NULL);
		return;
	}
	PQclear(PQexec(d->pg, "ROLLBACK"));
}

/* @sql with '?' numbered $1, $2... (no '?' appears in perfgate's SQL otherwise) */
static char *number_params(const char *sql, int *n)
{
	char *out = malloc(strlen(sql) * 4 + 1), *o = out;

	*n = 0;
	if (!out)
		return NULL;
	for (; *sql; sql++) {
		if (*sql == '?')
			o += sprintf(o, "$%d", ++*n);
		else
			*o++ = *sql;
	}
	*o = '\0';
	return out;
}

int hstmt_prepare(struct hdb *d, const char *sql, struct hstmt **out)
{
	struct hstmt *st = calloc(1, sizeof(*st));
	PGresult *res;
	char *pgsql;
	int ok;

	*out = NULL;
	if (!st) {
		pg_err("history: out of memory");
		return -ENOMEM;
	}
	st->db = d;
	if (d->lite) {
		if (sqlite3_prepare_v2(d->lite, sql, -1, &st->lite, NULL) != SQLITE_OK) {
			free(st);
			return lite_err(d, "cannot prepare a statement");
		}
		*out = st;
		return 0;
	}
	pgsql = number_params(sql, &st->nparams);
	if (!pgsql || st->nparams > HSTMT_MAX_PARAMS) {
		free(pgsql);
		free(st);
		pg_err("history: out of memory");
		return -ENOMEM;
	}
	snprintf(st->name, sizeof(st->name), "pg%u", d->nstmts++);
	res = PQprepare(d->pg, st->name, pgsql, st->nparams, NULL);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	free(pgsql);
	if (!ok) {
		free(st);
		return pg_fail(d, "cannot prepare a statement");
	}
	*out = st;
	return 0;
}

void hstmt_free(struct hstmt *st)
{
	if (!st)
		return;
	if (st->lite)
		sqlite3_finalize(st->lite);
	PQclear(st->res);
	free(st);
}

static int lite_bind(struct hstmt *st, int rc)
{
	return rc == SQLITE_OK ? 0 : lite_err(st->db, "cannot bind a parameter");
}

static void pg_bind(struct hstmt *st, int i, const void *p, int len, int fmt)
{
	st->values[i - 1] = p;
	st->lengths[i - 1] = len;
	st->formats[i - 1] = fmt;
}

int hstmt_bind_int(struct hstmt *st, int i, int64_t v)
{
	uint64_t be = htobe64((uint64_t)v);

	if (st->lite)
		return lite_bind(st, sqlite3_bind_int64(st->lite, i, v));
	/* int8 in binary: the parameter's type is inferred as bigint */
	memcpy(st->bin[i - 1], &be, 8);
	pg_bind(st, i, st->bin[i - 1], 8, 1);
	return 0;
}

int hstmt_bind_double(struct hstmt *st, int i, double v)
{
	uint64_t u;

	if (st->lite)
		return lite_bind(st, sqlite3_bind_double(st->lite, i, v));
	memcpy(&u, &v, 8);
	u = htobe64(u);
	memcpy(st->bin[i - 1], &u, 8);
	pg_bind(st, i, st->bin[i - 1], 8, 1);
	return 0;
}

int hstmt_bind_text(struct hstmt *st, int i, const char *s)
{
	if (st->lite)
		return lite_bind(st, s ? sqlite3_bind_text(st->lite, i, s, -1, SQLITE_TRANSIENT) :
				     sqlite3_bind_null(st->lite, i));
	pg_bind(st, i, s, 0, 0);
	return 0;
}

int hstmt_bind_blob(struct hstmt *st, int i, const void *p, size_t n)
{
	if (st->lite)
		return lite_bind(st, sqlite3_bind_blob64(st->lite, i, p, n, SQLITE_TRANSIENT));
	pg_bind(st, i, p, (int)n, 1);
	return 0;
}

int hstmt_step(struct hstmt *st)
{
	ExecStatusType status;
	int rc;

	if (st->lite) {
		rc = sqlite3_step(st->lite);
		if (rc == SQLITE_ROW)
			return 1;
		if (rc == SQLITE_DONE)
			return 0;
		return lite_err(st->db, "statement failed");
	}
	if (!st->run) {
		st->res = PQexecPrepared(st->db->pg, st->name, st->nparams, st->values,
					 st->lengths, st->formats, 1);
		status = PQresultStatus(st->res);
		if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
			return pg_fail(st->db, "statement failed");
		st->run = true;
		st->nrows = PQntuples(st->res);
		st->row = -1;
	}
	return ++st->row < st->nrows;
}

void hstmt_reset(struct hstmt *st)
{
	if (st->lite) {
		sqlite3_reset(st->lite);
		return;
	}
	PQclear(st->res);
	st->res = NULL;
	st->run = false;
}

int64_t hstmt_int(struct hstmt *st, int col)
{
	uint64_t be;

	if (st->lite)
		return sqlite3_column_int64(st->lite, col);
	if (PQgetisnull(st->res, st->row, col) || PQgetlength(st->res, st->row, col) != 8)
		return 0;
	memcpy(&be, PQgetvalue(st->res, st->row, col), 8);
	return (int64_t)be64toh(be);
}

double hstmt_double(struct hstmt *st, int col)
{
	uint64_t be;
	double v;

	if (st->lite)
		return sqlite3_column_double(st->lite, col);
	if (PQgetisnull(st->res, st->row, col) || PQgetlength(st->res, st->row, col) != 8)
		return 0;
	memcpy(&be, PQgetvalue(st->res, st->row, col), 8);
	be = be64toh(be);
	memcpy(&v, &be, 8);
	return v;
}

const char *hstmt_text(struct hstmt *st, int col)
{
	if (st->lite)
		return (const char *)sqlite3_column_text(st->lite, col);
	return PQgetisnull(st->res, st->row, col) ? NULL : PQgetvalue(st->res, st->row, col);
}

const void *hstmt_blob(struct hstmt *st, int col, size_t *len)
{
	if (st->lite) {
		const void *p = sqlite3_column_blob(st->lite, col);

		*len = (size_t)sqlite3_column_bytes(st->lite, col);
		return p;
	}
	*len = (size_t)PQgetlength(st->res, st->row, col);
	return PQgetvalue(st->res, st->row, col);
}

/* PostgreSQL's COPY FROM STDIN, text format */
static int copy_begin(struct hdb *d, const char *sql)
{
	PGresult *res = PQexec(d->pg, sql);
	int ok = PQresultStatus(res) == PGRES_COPY_IN;

	PQclear(res);
	return ok ? 0 : pg_fail(d, "cannot copy rows in");
}

static int copy_row(struct hdb *d, const char *line, size_t len)
{
	return PQputCopyData(d->pg, line, (int)len) == 1 ? 0 : pg_fail(d, "cannot copy a row");
}

static int copy_end(struct hdb *d, bool abort)
{
	PGresult *res;
	int ok;

	if (PQputCopyEnd(d->pg, abort ? "abandoned" : NULL) != 1)
		return abort ? -EIO : pg_fail(d, "cannot end the copy");
	res = PQgetResult(d->pg);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	while ((res = PQgetResult(d->pg)))
		PQclear(res);
	if (abort)
		return -EIO;
	return ok ? 0 : pg_fail(d, "the copy failed");
}

/* "INSERT INTO @table VALUES(?, ?...)" with @ncols parameters */
static char *insert_sql(const char *table, int ncols)
{
	size_t len = strlen(table) + 32 + 3 * (size_t)ncols, k;
	char *sql = malloc(len);

	if (!sql)
		return NULL;
	k = (size_t)snprintf(sql, len, "INSERT INTO %s VALUES(", table);
	for (int i = 0; i < ncols; i++)
		k += (size_t)snprintf(sql + k, len - k, "%s?", i ? ", " : "");
	snprintf(sql + k, len - k, ")");
	return sql;
}

int hdb_rows_begin(struct hdb *d, const char *table, int ncols, struct hrows **out)
{
	struct hrows *w = calloc(1, sizeof(*w));
	char *sql = NULL;
	int err;

	*out = NULL;
	if (w && d->lite)
		sql = insert_sql(table, ncols);
	else if (w && asprintf(&sql, "COPY %s FROM STDIN", table) < 0)
		sql = NULL;
	if (!w || !sql || ncols < 1 || ncols > HSTMT_MAX_PARAMS) {
		free(w);
		free(sql);
		pg_err("history: out of memory");
		return -ENOMEM;
	}
	w->d = d;
	w->ncols = ncols;
	err = d->lite ? hstmt_prepare(d, sql, &w->ins) : copy_begin(d, sql);
	free(sql);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int hrows_int(struct hrows *w, int col, int64_t v)
{
	if (w->ins)
		return hstmt_bind_int(w->ins, col, v);
	w->col[col - 1].v = v;
	w->col[col - 1].kind = COL_INT;
	return 0;
}

int hrows_double(struct hrows *w, int col, double v)
{
	if (w->ins)
		return isnan(v) ? lite_bind(w->ins, sqlite3_bind_null(w->ins->lite, col)) :
		       hstmt_bind_double(w->ins, col, v);
	w->col[col - 1].d = v;
	w->col[col - 1].kind = isnan(v) ? COL_NULL : COL_DOUBLE;
	return 0;
}

int hrows_blob(struct hrows *w, int col, const void *p, size_t n)
{
	if (w->ins)
		return hstmt_bind_blob(w->ins, col, p, n);
	w->col[col - 1].p = p;
	w->col[col - 1].n = n;
	w->col[col - 1].kind = COL_BLOB;
	return 0;
}

/* The row's values as a line of COPY's text format: tab-separated, blobs in bytea's hex form. */
static int copy_line(struct hrows *w)
{
	static const char hex[] = "0123456789abcdef";
	size_t need = 2, k = 0;

	for (int i = 0; i < w->ncols; i++)
		need += w->col[i].kind == COL_BLOB ? 2 * w->col[i].n + 4 : 32;
	if (need > w->cap) {
		char *tmp = realloc(w->line, need);

		if (!tmp) {
			pg_err("history: out of memory");
			return -ENOMEM;
		}
		w->line = tmp;
		w->cap = need;
	}
	for (int i = 0; i < w->ncols; i++) {
		const uint8_t *p = w->col[i].p;

		if (i)
			w->line[k++] = '\t';
		if (w->col[i].kind == COL_INT) {
			k += (size_t)snprintf(w->line + k, w->cap - k, "%lld",
					      (long long)w->col[i].v);
			continue;
		}
		if (w->col[i].kind == COL_DOUBLE) {
			k += (size_t)snprintf(w->line + k, w->cap - k, "%.17g", w->col[i].d);
			continue;
		}
		if (w->col[i].kind == COL_NULL) {
			memcpy(w->line + k, "\\N", 2);
			k += 2;
			continue;
		}
		/* bytea's hex form, its backslash doubled for COPY's text format */
		memcpy(w->line + k, "\\\\x", 3);
		k += 3;
		for (size_t b = 0; b < w->col[i].n; b++) {
			w->line[k++] = hex[p[b] >> 4];
			w->line[k++] = hex[p[b] & 15];
		}
	}
	w->line[k++] = '\n';
	return copy_row(w->d, w->line, k);
}

int hrows_put(struct hrows *w)
{
	int err;

	if (!w->ins)
		return copy_line(w);
	err = hstmt_step(w->ins);
	hstmt_reset(w->ins);
	return err < 0 ? err : 0;
}

int hrows_end(struct hrows *w, bool abort)
{
	int err = 0;

	if (!w)
		return 0;
	if (w->ins)
		hstmt_free(w->ins);
	else
		err = copy_end(w->d, abort);
	free(w->line);
	free(w);
	return abort ? 0 : err;
}
