/* SPDX-License-Identifier: MIT */
/*
 * history/seriesrow.h - a row of the series table (docs/history.md, "Storage"): one session
 * and object, every metric's per-repetition values in one blob. The blob is, for each metric
 * the object has values of, in increasing metric order: the metric's id (one byte), the length
 * of its series' blob (a varint) and that blob (history/codec.h). A leaf's total time, equal to
 * its self time, is the two-byte alias of it. Internal to history/.
 *
 * The blob functions log nothing and return 0, -EINVAL (a blob not of this layout: a corrupt
 * database) or -ENOMEM; pg_hrow_put() logs as db.h does.
 */
#ifndef PG_HISTORY_SERIESROW_H
#define PG_HISTORY_SERIESROW_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "record.h"

/* The table and its columns, for hdb_rows_begin() */
#define PG_HROW_TABLE "series(session_id, object_id, vals)"
#define PG_HROW_COLUMNS 3

/*
 * The series of one object, r->series[*@at..) while they are the same object's, as a row's
 * blob: *@blob (malloc'd; NULL on failure) and *@len; *@at past them. 0 or -ENOMEM.
 */
int pg_hrow_encode(const struct pg_hrecord *r, size_t *at, uint8_t **blob, size_t *len);

/*
 * Append @metric's series blob b[0..len) to the row's blob *@row, *@n bytes of *@cap (grown
 * with realloc; *@row NULL and *@cap 0 to start). 0 or -ENOMEM (*@row is left as it was).
 */
int pg_hrow_append(uint8_t **row, size_t *n, size_t *cap, int metric, const uint8_t *b,
		   size_t len);

/*
 * The values of @metric's series in the row's blob b[0..len), an alias followed to the series
 * it names: *@v (malloc'd) and *@n; *@v NULL and *@n 0 when the row has none.
 */
int pg_hrow_decode(const uint8_t *b, size_t len, int metric, double **v, size_t *n);

/* Write the row (@session, @object, b[0..len)) with @w, begun on PG_HROW_TABLE. */
int pg_hrow_put(struct hrows *w, int64_t session, int64_t object, const uint8_t *b, size_t len);

#endif
