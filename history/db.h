/* SPDX-License-Identifier: MIT */
/*
 * history/db.h - the little of SQLite and PostgreSQL (libpq) the store uses, behind one
 * interface, so that history/ writes each statement once. Internal to history/.
 *
 * A database is a path (SQLite) or a postgresql:// or postgres:// URI (PostgreSQL).
 * Statements are written with '?' parameters (numbered $1, $2... for PostgreSQL here) and
 * prepared once; a statement is bound, stepped (row by row; PostgreSQL fetches the whole
 * result at the first step), then reset to be bound again. What a bind points at must stay
 * valid until the first step after it. Column values are valid until the next step or reset.
 * PostgreSQL results are fetched in binary: integer columns must be bigint, real ones double
 * precision.
 *
 * Every function that fails logs one line naming the database and what the database said,
 * and returns a negative errno (-EIO for the database's own errors, -EBUSY when it stayed
 * locked past the busy timeout).
 */
#ifndef PG_HISTORY_DB_H
#define PG_HISTORY_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long a writer waits for another one's lock (SQLite busy timeout), ms */
#define PG_HDB_BUSY_MS 60000	/* store.h's PG_HSTORE_WAIT_MS */

struct hdb;
struct hstmt;

/* Is @db a PostgreSQL URI? */
bool hdb_is_postgres(const char *db);

/*
 * Open @db; a SQLite file is created only with @create (else a missing file is an error).
 * NULL after logging.
 */
struct hdb *hdb_open(const char *db, bool create);
void hdb_close(struct hdb *d);
bool hdb_postgres(const struct hdb *d);
const char *hdb_name(const struct hdb *d);	/* for messages (a URI without its password) */

/* Wait up to @ms for another writer's lock from here on (SQLite's busy timeout, PostgreSQL's
 * lock_timeout); PG_HDB_BUSY_MS after hdb_open(). */
int hdb_busy_ms(struct hdb *d, int ms);

/* Run @sql (one or more statements, no parameters, no rows wanted). */
int hdb_exec(struct hdb *d, const char *sql);
/* BEGIN (with @write: one writer at a time from here, SQLite's BEGIN IMMEDIATE), COMMIT,
 * ROLLBACK (which logs nothing and may be called after any failure). */
int hdb_begin(struct hdb *d, bool write);
int hdb_commit(struct hdb *d);
void hdb_rollback(struct hdb *d);

/*
 * Rows in bulk into one table, the same calls on both engines. hdb_rows_begin() names the
 * table and its @ncols columns (@table: "t(a, b, c)"); each row's values are set with
 * hrows_int(), hrows_double() (NAN: SQL NULL) and hrows_blob() (columns numbered from 1; a
 * blob must stay valid until hrows_put()), then hrows_put() writes the row. hrows_end()
 * finishes, or with @abort abandons the copy (the caller rolls the transaction back), and
 * frees @w (NULL is fine): 0, or the
 * database's error (with @abort always 0). SQLite: one prepared INSERT, stepped a row at a
 * time; PostgreSQL: COPY ... FROM STDIN in text format, one round trip for all the rows,
 * and no other statement may run from begin to end (a COPY holds the connection; the rows of
 * a statement stepped before are fetched already and may be read).
 */
struct hrows;
int hdb_rows_begin(struct hdb *d, const char *table, int ncols, struct hrows **w);
int hrows_int(struct hrows *w, int col, int64_t v);
int hrows_double(struct hrows *w, int col, double v);
int hrows_blob(struct hrows *w, int col, const void *p, size_t n);
int hrows_put(struct hrows *w);
int hrows_end(struct hrows *w, bool abort);

int hstmt_prepare(struct hdb *d, const char *sql, struct hstmt **st);
void hstmt_free(struct hstmt *st);	/* NULL is fine */
/* Parameters are numbered from 1; text may be NULL (SQL NULL). */
int hstmt_bind_int(struct hstmt *st, int i, int64_t v);
int hstmt_bind_double(struct hstmt *st, int i, double v);
int hstmt_bind_text(struct hstmt *st, int i, const char *s);
int hstmt_bind_blob(struct hstmt *st, int i, const void *p, size_t n);
/* 1: a row, 0: done, or a negative errno */
int hstmt_step(struct hstmt *st);
void hstmt_reset(struct hstmt *st);
/* Columns are numbered from 0. */
int64_t hstmt_int(struct hstmt *st, int col);
double hstmt_double(struct hstmt *st, int col);
const char *hstmt_text(struct hstmt *st, int col);	/* NULL for SQL NULL */
const void *hstmt_blob(struct hstmt *st, int col, size_t *len);

#endif
