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

/* The change points of one metric's matrix. */
struct pg_hchanges {
	const struct pg_hmatrix *m;
	const struct pg_hchange *c;
	size_t n;
};

bool pg_hchange_regression(const struct pg_hchanges *h, const struct pg_hchange *c);

bool pg_hchange_newest(const struct pg_hchanges *h, const struct pg_hchange *c);

/* How many change points of sets[0..n) are regressions that the newest session starts. */
size_t pg_hchanges_newest(const struct pg_hchanges *sets, size_t n);

/* The table of sets[0..n) on @out. 0 or -EIO. */
int pg_hchanges_print(const struct pg_hchanges *sets, size_t n, FILE *out);

/* The same as JSON into @path (atomically), with the options @o. 0 or -errno, logged. */
int pg_hchanges_write_json(const struct pg_hchanges *sets, size_t n,
			   const struct pg_cp_opts *o, const char *path);

/*
 * The Markdown summary into @path (atomically): one line with the counts, then the newest
 * @max change points (by their first session, newest first; ties by object key and metric)
 * with function, object (binary), commit, change and interval, and the verdict, those at the
 * newest commit marked. 0 or -errno, logged.
 */
int pg_hchanges_write_markdown(const struct pg_hchanges *sets, size_t n, size_t max,
			       const char *path);

#endif
