/* SPDX-License-Identifier: MIT */
/*
 * reporters/trend.h - perfgate history plot: one panel per series, one point per session with
 * its interval, the change points marked, the session's commit, time and value in a tooltip
 * (<title>, which browsers show on hover). A self-contained SVG, or an HTML page holding it
 * (no script, no external resources). Written atomically; 0 or -errno after logging.
 */
#ifndef PG_TREND_H
#define PG_TREND_H

#include <stdbool.h>
#include <stddef.h>

struct pg_trend_point {
	const char *commit;	/* may be NULL */
	const char *time;
	double value;		/* > 0 */
	double lo, hi;		/* its interval; NAN: none */
};

struct pg_trend_change {
	size_t at;		/* index of the first point of the new level */
	double change;		/* relative, +0.08 = 8% slower */
	double ci_lo, ci_hi;
};

struct pg_trend {
	const char *title;	/* the function and metric */
	const char *unit;	/* "ns" (formatted as times) or another unit, printed as is */
	size_t n;
	const struct pg_trend_point *p;
	size_t nchanges;
	const struct pg_trend_change *changes;
};

/* Write t[0..n) to @path: an HTML page with @html, else an SVG document. */
int pg_trend_write(const struct pg_trend *t, size_t n, const char *path, bool html);

#endif
