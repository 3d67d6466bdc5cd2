// SPDX-License-Identifier: MIT
/* core/numfmt.c - numbers for people (see numfmt.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "numfmt.h"

/* @v (>= 0) with 3 significant digits, then @unit. */
static void fmt_sig3(char *buf, size_t len, double v, const char *unit)
{
	int prec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f %s", prec, v, unit);
}

const char *pg_fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns) || ns < 0)
		snprintf(buf, len, "-");
	else if (isinf(ns))
		snprintf(buf, len, "inf");
	else if (ns < 999.5)
		fmt_sig3(buf, len, ns, "ns");
	else if (ns < 999.5e3)
		fmt_sig3(buf, len, ns / 1e3, "us");
	else if (ns < 999.5e6)
		fmt_sig3(buf, len, ns / 1e6, "ms");
	else
		fmt_sig3(buf, len, ns / 1e9, "s");
	return buf;
}

const char *pg_fmt_pct(char *buf, size_t len, double x)
{
	double pct = x * 100;

	if (isnan(x))
		snprintf(buf, len, "n/a");
	else if (isinf(x))
		snprintf(buf, len, "%s", x > 0 ? "+inf" : "-inf");
	else if (fabs(pct) < 0.05)
		snprintf(buf, len, "+0.0%%");
	else if (fabs(pct) < 9999.95)
		snprintf(buf, len, "%+.1f%%", pct);
	else if (fabs(pct) < 1e9)
		snprintf(buf, len, "%+.0f%%", pct);
	else
		snprintf(buf, len, "%+.2g%%", pct);
	return buf;
}

const char *pg_fmt_interval(char *buf, size_t len, double lo, double hi)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN];

	if (isnan(lo) && isnan(hi))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "[%s, %s]", pg_fmt_pct(a, sizeof(a), lo),
			 pg_fmt_pct(b, sizeof(b), hi));
	return buf;
}

const char *pg_fmt_count(char *buf, size_t len, double n)
{
	static const char *const units[] = { "k", "M", "G", "T", "P", "E" };
	size_t u = 0;
	char *sp;

	if (isnan(n) || n < 0) {
		snprintf(buf, len, "-");
	} else if (isinf(n)) {
		snprintf(buf, len, "inf");
	} else if (n < 99999.5) {
		if (fabs(n - round(n)) < 0.05)
			snprintf(buf, len, "%.0f", n);
		else
			snprintf(buf, len, "%.1f", n);
	} else {
		n /= 1e3;
		while (n >= 999.5 && u + 1 < sizeof(units) / sizeof(units[0])) {
			n /= 1e3;
			u++;
		}
		fmt_sig3(buf, len, n, units[u]);
		/* "1.23 M" -> "1.23M" */
		sp = strchr(buf, ' ');
		if (sp)
			memmove(sp, sp + 1, strlen(sp));
	}
	return buf;
}
