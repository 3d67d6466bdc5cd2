/* SPDX-License-Identifier: MIT */
/*
 * history/schema.h - the history's schema and its migrations (schema.c; docs/history.md,
 * "Storage"). Internal to history/.
 */
#ifndef PG_HISTORY_SCHEMA_H
#define PG_HISTORY_SCHEMA_H

#include <stdbool.h>

#include "db.h"

/* The PostgreSQL advisory lock every writer of a history takes in its transaction */
#define PG_HSCHEMA_LOCK "7461746567726670"

/*
 * In one write transaction: check that @d is a perfgate history of a schema this perfgate
 * knows, and upgrade it to PG_HSTORE_SCHEMA if older; with @create, make an empty database
 * one. 0, or -EINVAL (another database, a newer schema), -ENOENT (empty, without @create), or
 * the database's error, after logging.
 */
int pg_hschema_prepare(struct hdb *d, bool create);

#endif
