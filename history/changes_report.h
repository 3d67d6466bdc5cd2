/* SPDX-License-Identifier: MIT */
/*
 * history/changes_report.h - what perfgate history changes writes: a table on a stream, a JSON
 * file and a short Markdown summary for a CI job's summary page (docs/history.md, "history
 * changes", describes them).
 *
 * A change point is a regression when it is of a time (not a count) and the time grew. The
 * newest session's commit "starts" a change point when the change point's first session is
 * of that commit (the newest session itself, or an earlier one of the same commit: a change
 * at the newest commit is found once several sessions of it are stored).
 */
#ifndef PG_HISTORY_REPORT_H
#define PG_HISTORY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "store.h"

/* A trend plot shows at most this many of the object's sessions with values, the newest */
#define PG_HPLOT_SESSIONS 30
/* ... but from this many before the change point when it is older than that */
#define PG_HPLOT_BEFORE 5
/* The Markdown summary and the table plot at most this many change points (the newest) */
#define PG_HPLOT_MAX 5

/*
 * The change points of one metric's matrix, and with fresh (history changes --alert-new),
 * fresh[i] when c[i] is a regression no earlier scan alerted on (history/alerted.h).
 */
struct pg_hchanges {
	const struct pg_hmatrix *m;
	const struct pg_hchange *c;
	size_t n;
	const bool *fresh;
};

bool pg_hchange_regression(const struct pg_hchanges *h, const struct pg_hchange *c);

bool pg_hchange_newest(const struct pg_hchanges *h, const struct pg_hchange *c);

/*
 * Does @c alert (exit status 1, a trend plot): with h->fresh, when it is fresh; without, when
 * it is a regression that the newest session starts.
 */
bool pg_hchange_alert(const struct pg_hchanges *h, const struct pg_hchange *c);

/* How many change points of sets[0..n) are regressions that the newest session starts. */
size_t pg_hchanges_newest(const struct pg_hchanges *sets, size_t n);

/* How many change points of sets[0..n) alert. */
size_t pg_hchanges_alerts(const struct pg_hchanges *sets, size_t n);

/*
 * @c's trend on @out: a Mermaid xychart-beta block (a Markdown fenced block) of the object's
 * per-session summaries (h->m's values: the medians, as in the point table) over its last
 * PG_HPLOT_SESSIONS sessions with values, in the unit (ns, us, ms, s) that keeps them under
 * 10,000 and as plain decimals, labelled by commit (the change point's first
 * session marked), and a second line of the change point's two levels stepping there; or one
 * line without its newline: the name, a sparkline of the same values (eight levels, '|'
 * before the change point's first session) and the change. 0 or -ENOMEM.
 */
int pg_hchange_mermaid(FILE *out, const struct pg_hchanges *h, const struct pg_hchange *c);
int pg_hchange_sparkline(FILE *out, const struct pg_hchanges *h, const struct pg_hchange *c);

/* The table of sets[0..n) on @out, then the sparklines of the newest PG_HPLOT_MAX change
 * points that alert. 0 or -EIO. */
int pg_hchanges_print(const struct pg_hchanges *sets, size_t n, FILE *out);

/*
 * After the table: for each session a change point of sets[0..n) starts (in the order of the
 * sessions, each once), when its environment differs from the session's before it
 * (pg_hstore_session_env(), pg_env_diffs()), one line "perfgate: the environment changed at
 * COMMIT (after COMMIT): libc.so.6 2.36-9 -> 2.36-10; ...". Sessions stored without their
 * environment (before schema 6) differ in nothing. 0 or -errno (-EIO: @out failed).
 */
int pg_hchanges_print_env(const struct pg_hchanges *sets, size_t n, struct pg_hstore *store,
			  FILE *out);

/*
 * The table as JSON into @path (atomically), with the options @o; each change point's
 * "environment" what differs between its two sessions' environments (an array, as
 * pg_hchanges_print_env() words it). 0 or -errno, logged.
 */
int pg_hchanges_write_json(const struct pg_hchanges *sets, size_t n,
			   const struct pg_cp_opts *o, struct pg_hstore *store, const char *path);

/*
 * The Markdown summary into @path (atomically): one line with the counts, then the newest
 * @max change points (by their first session, newest first; ties by object key and metric)
 * with function, object (binary), commit, change and interval, and the verdict, those at the
 * newest commit and the fresh ones marked; then the trends (Mermaid and sparkline) of the
 * newest PG_HPLOT_MAX change points that alert. 0 or -errno, logged.
 */
int pg_hchanges_write_markdown(const struct pg_hchanges *sets, size_t n, size_t max,
			       const char *path);

#endif
