/* SPDX-License-Identifier: MIT */
/*
 * history/store.h - the history database: sessions and their series, in SQLite (a file) or
 * PostgreSQL (postgresql:// or postgres://). One schema (docs/history.md, "Storage"), made
 * and upgraded by numbered migrations recorded in its schema_version table; a database
 * without perfgate's marker table, or whose schema is newer than this perfgate knows, is
 * refused.
 *
 * Writes are one transaction each: an add that fails or is interrupted leaves the database as
 * it was. Writers take the database's write lock first (SQLite: BEGIN IMMEDIATE, waiting up
 * to PG_HDB_BUSY_MS for another writer; PostgreSQL: a transaction-level advisory lock), so
 * that concurrent adds all land, one after the other.
 *
 * Every function logs one line where it fails and returns a negative errno (constructors
 * NULL). The arrays it returns are malloc'd and the caller's (free them with the _free
 * functions).
 */
#ifndef PG_HISTORY_STORE_H
#define PG_HISTORY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* The database used when none is given */
#define PG_HSTORE_DEFAULT "perfgate-history.db"
/* The schema version this perfgate writes (the last migration) */
#define PG_HSTORE_SCHEMA 3

struct pg_hstore;

/*
 * Open @db: with @create, a missing SQLite file or an empty database is made a history;
 * without, it is an error. Checks and, where older, upgrades the schema. NULL after logging.
 */
struct pg_hstore *pg_hstore_open(const char *db, bool create);
void pg_hstore_close(struct pg_hstore *s);	/* NULL is fine */

/* Store session @r in one transaction; its id into *@id (may be NULL). */
int pg_hstore_add(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *id);

struct pg_hsession {
	int64_t id;
	char *commit;		/* NULL when unknown */
	char *branch;		/* "" when none was given */
	char *time;		/* ISO 8601, UTC */
	char *host, *command;
	uint32_t reps;
};

/* The sessions of @branch (NULL: all), oldest first (by time, then as added). */
int pg_hstore_sessions(struct pg_hstore *s, const char *branch, struct pg_hsession **v,
		       size_t *n);
void pg_hsessions_free(struct pg_hsession *v, size_t n);

/* Every object ever stored: its id in *ids, sorted by (binary, name, scope) with strcmp. */
int pg_hstore_objects(struct pg_hstore *s, struct pg_hobject **v, int64_t **ids, size_t *n);
void pg_hobjects_free(struct pg_hobject *v, int64_t *ids, size_t n);

/*
 * Each stored session's summary of @metric (the median of each object's values; for calls
 * the mean per repetition): @fn(@ctx, session id, objects[0..n), values[0..n)), objects
 * sorted by id. The arrays are valid during the call. A non-zero return of @fn stops and is
 * returned.
 */
typedef int (*pg_hsummary_fn)(void *ctx, int64_t session, const int64_t *objects,
			      const double *values, size_t n);
int pg_hstore_summaries(struct pg_hstore *s, int metric, pg_hsummary_fn fn, void *ctx);

/* The values of one series into *@v (malloc'd) and *@n; *@n = 0 and *@v NULL when absent. */
int pg_hstore_series(struct pg_hstore *s, int64_t session, int64_t object, int metric,
		     double **v, size_t *n);

/* The store's database, for history/'s own files (db.h; the change points' cache, cpcache.c) */
struct hdb;
struct hdb *pg_hstore_db(struct pg_hstore *s);

#endif
