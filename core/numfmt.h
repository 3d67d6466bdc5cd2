/* SPDX-License-Identifier: MIT */
/*
 * core/numfmt.h - how perfgate writes its numbers for people: per-call times, relative
 * changes and their intervals, call counts. The one place these formats live, so that a
 * change reads the same in a compare reason (diff/), the text table, JUnit, Markdown and the
 * vote message (reporters/).
 *
 * Every helper writes a NUL-terminated string into the caller's buffer and returns it;
 * PG_FMT_LEN bytes are always enough for one number, 2 * PG_FMT_LEN for an interval. A smaller
 * buffer truncates (snprintf). No allocation, no I/O, no locale: ASCII, '.' as the decimal
 * point.
 *
 *	char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];
 *
 *	printf("%s %s\n", pg_fmt_pct(ch, sizeof(ch), 0.121),
 *	       pg_fmt_interval(in, sizeof(in), 0.098, 0.14));	// "+12.1% [+9.8%, +14.0%]"
 */
#ifndef PG_NUMFMT_H
#define PG_NUMFMT_H

#include <stddef.h>

#define PG_FMT_LEN 48

/* The plural ending of a count of @n things: "s", or "" for one ("1 function", "2 functions"). */
static inline const char *pg_plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* Per-call time in human units, 3 significant digits: "812 ns", "1.23 us", "45.6 ms", "2.00 s";
 * "-" for NAN (absent) or a negative value, "inf". ASCII only (us, not the micro sign). */
const char *pg_fmt_ns(char *buf, size_t len, double ns);

/*
 * Relative change as a percentage with its sign: 0.123 -> "+12.3%", -0.3 -> "-30.0%"; a change
 * that rounds to zero is "+0.0%" (never "-0.0%"); from 10000% on without decimals ("+12345%"),
 * from 1e9% on in exponent form; "+inf" / "-inf"; "n/a" for NAN.
 */
const char *pg_fmt_pct(char *buf, size_t len, double x);

/* Interval of a relative change: "[+9.8%, +14.0%]", "[-inf, +inf]"; "n/a" if both are NAN. */
const char *pg_fmt_interval(char *buf, size_t len, double lo, double hi);

/* A mean count: "120", "12.5", "1.23M"; "-" for NAN or a negative value, "inf". */
const char *pg_fmt_count(char *buf, size_t len, double n);

#endif
