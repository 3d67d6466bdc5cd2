/* SPDX-License-Identifier: MIT */
/*
 * history/store.h - the history database: sessions and their series, in SQLite (a file) or
 * PostgreSQL (postgresql:// or postgres://). One schema (docs/history.md, "Storage"), made
 * and upgraded by numbered migrations recorded in its schema_version table; a database
 * without perfgate's marker table, or whose schema is newer than this perfgate knows, is
 * refused.
 *
 * Writes are one transaction each: an add or prune that fails or is interrupted leaves the
 * database as it was. Writers take the database's write lock first (SQLite: BEGIN IMMEDIATE;
 * PostgreSQL: a transaction-level advisory lock), waiting up to PG_HSTORE_WAIT_MS (or the
 * open's @wait_ms) for another writer, so that concurrent adds all land, one after the other;
 * a lock held longer is -EBUSY. Every write adds one to the database's generation (a number
 * in its marker table): a publisher that read generation N before its own write can ask for
 * the write to fail (-ESTALE) when another one wrote in between.
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
/* How long a writer waits for another one's lock by default, ms (history/db.h's) */
#define PG_HSTORE_WAIT_MS 60000
/* The schema version this perfgate writes (the last migration) */
#define PG_HSTORE_SCHEMA 6

struct pg_hstore;

/*
 * Open @db: with @create, a missing SQLite file or an empty database is made a history;
 * without, it is an error. Checks and, where older, upgrades the schema. NULL after logging.
 */
struct pg_hstore *pg_hstore_open(const char *db, bool create);
/* The same, waiting up to @wait_ms (not PG_HSTORE_WAIT_MS) for another writer's lock. */
struct pg_hstore *pg_hstore_open_wait(const char *db, bool create, int wait_ms);
void pg_hstore_close(struct pg_hstore *s);	/* NULL is fine */

/* Store session @r in one transaction; its id into *@id (may be NULL). */
int pg_hstore_add(struct pg_hstore *s, const struct pg_hrecord *r, int64_t *id);
/* The same, with @expect >= 0 only when the database's generation is @expect (else -ESTALE,
 * logged with what to do, and nothing stored). */
int pg_hstore_add_expect(struct pg_hstore *s, const struct pg_hrecord *r, int64_t expect,
			 int64_t *id);

/* The database's generation: how many writes it has had (adds and prunes). */
int pg_hstore_generation(struct pg_hstore *s, int64_t *gen);

/*
 * For history/'s writers: begin the write transaction, take the writers' lock, check the
 * generation against @expect (-1: any) and count this write. On failure nothing is left open
 * (rolled back); on success the caller commits or rolls back.
 */
int pg_hstore_write_begin(struct pg_hstore *s, int64_t expect);

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

/*
 * Add session @id's environment (history/record.h) to @m: its kernel and CPU model, and its
 * entries into m->env (core/run.h). A session stored before schema 6 has none. 0 or -errno.
 */
int pg_hstore_session_env(struct pg_hstore *s, int64_t id, struct pg_meta *m);

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

/*
 * Prune: remove sessions, each branch's alone (every branch alike: no default branch is
 * spared). A session goes when it is not one of its branch's newest @keep (0: any) and older
 * than @before (an ISO 8601 UTC time; NULL: any); with neither limit, nothing goes. Sessions
 * are ordered as pg_hstore_sessions() orders them.
 */
struct pg_hprune {
	size_t keep;
	const char *before;
	const char *branch;	/* only this branch's sessions (NULL: every branch) */
	bool dry_run;		/* decide and count, remove nothing */
};

/* What a prune removed (or would, dry): the sessions, and objects no session holds any more */
struct pg_hpruned {
	struct pg_hsession *removed;	/* oldest first */
	size_t nremoved;
	size_t kept;			/* sessions left, of the branches pruned */
	int64_t series_rows, objects;
};

/*
 * In one transaction (the generation checked against @expect as an add does): every row of
 * the removed sessions, in every table (session, series, point, summary), the objects no
 * session holds any more, and the change points' cache (the next history changes scans from
 * scratch). 0 or a negative errno, logged; @out is filled only on success.
 */
int pg_hstore_prune(struct pg_hstore *s, const struct pg_hprune *p, int64_t expect,
		    struct pg_hpruned *out);
void pg_hpruned_release(struct pg_hpruned *p);

/* The store's database, for history/'s own files (db.h; the change points' cache, cpcache.c) */
struct hdb;
struct hdb *pg_hstore_db(struct pg_hstore *s);

#endif
