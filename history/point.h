/* SPDX-License-Identifier: MIT */
/*
 * history/point.h - a row of the point table (docs/history.md, "Storage" and "Reading the
 * history with SQL"): one session and object, each metric's median over the repetitions and
 * the 95% interval of that median as plain columns, for SQL and Grafana to read beside the
 * encoded series. Written by every add (history/store.c) and, for the sessions stored before
 * the table existed, by schema version 4's migration from their series rows (schema.c).
 * Internal to history/.
 *
 * A metric's columns: its median (the series' median, as the session's summary) and, as
 * perfgate history plot draws it, the distribution-free 95% interval of the median from the
 * order statistics (diff/hcheck.h's pg_median_interval(): the range min..max with fewer than 6
 * repetitions, NULL with fewer than 2); calls is one column, the mean calls a repetition (the
 * summary history changes reads). A metric the object has no values of is NULL.
 */
#ifndef PG_HISTORY_POINT_H
#define PG_HISTORY_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "record.h"

/* The table and its columns, for hdb_rows_begin() */
#define PG_HPOINT_TABLE							\
	"point(session_id, object_id, self, self_lo, self_hi, total, total_lo, total_hi, "	\
	"cpu, cpu_lo, cpu_hi, calls, wall, wall_lo, wall_hi, program_cpu, program_cpu_lo, "	\
	"program_cpu_hi)"
#define PG_HPOINT_COLUMNS 18

/* One row's values: v[metric] = { median, lo, hi }, NAN where absent */
struct pg_hpoint {
	double v[PG_HM_MAX + 1][3];
};

/* Every value NAN (a row with no metric yet). */
void pg_hpoint_init(struct pg_hpoint *p);

/*
 * @metric's columns from its values v[0..n) (n > 0) of a session of @reps repetitions.
 * 0 or -ENOMEM.
 */
int pg_hpoint_set(struct pg_hpoint *p, int metric, const double *v, size_t n, uint32_t reps);

/* Write the row (@session, @object, @p) with @w, begun on PG_HPOINT_TABLE. */
int pg_hpoint_put(struct hrows *w, int64_t session, int64_t object, const struct pg_hpoint *p);

#endif
