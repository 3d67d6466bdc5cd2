/* SPDX-License-Identifier: MIT */
/*
 * history/alerted.h - which regression change points history changes --alert-new has already
 * alerted on (the changes_alerted table, one row per branch, metric, object and first session
 * of the new level), so that a publishing job alerts on each change point once: in the scan
 * that first finds it, even when that is one or two sessions after its commit, and never again.
 *
 * A change point is known when a row of the same branch (NULL: all sessions), metric and
 * object names a session within PG_HALERT_SHIFT sessions of its first one: a change point's
 * place can move by a session or two as sessions are added after it. Rows of pruned sessions
 * are removed by prune (history/prune.c).
 */
#ifndef PG_HISTORY_ALERTED_H
#define PG_HISTORY_ALERTED_H

#include <stdbool.h>

#include "changes_report.h"
#include "store.h"

/*
 * How far, in sessions of the matrix, a change point's first session may be from one already
 * alerted on and still be the same change point (docs/history.md, "Alerting once")
 */
#define PG_HALERT_SHIFT 3

/*
 * For each change point of sets[0..n) that is a regression (pg_hchange_regression()) and not
 * known for @branch: fresh[s][i] = true, and a row recorded for it, in one write transaction.
 * fresh[s] has sets[s].n entries (the caller's, set to false first). *@nfresh: how many.
 * On PostgreSQL the transaction holds the writers' lock (schema.h), so that two scans at
 * once do not both alert on one change point. 0 or -errno, logged; on failure nothing is
 * recorded.
 */
int pg_halerted_mark(struct pg_hstore *st, const char *branch, const struct pg_hchanges *sets,
		     size_t n, bool **fresh, size_t *nfresh);

#endif
