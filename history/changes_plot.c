// SPDX-License-Identifier: MIT
/*
 * history/changes_plot.c - a change point's trend for a CI job: a Mermaid xychart of its
 * object's per-session medians with the two levels of the change point as a second line, for
 * the Markdown summary, and a one-line sparkline for a job log (changes_report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes_report.h"

/* The sessions of the plot: where the object has a value, the last PG_HPLOT_SESSIONS of
 * them, or from PG_HPLOT_BEFORE before the change point when it is older. Their count. */
static size_t window(const struct pg_hchanges *h, const struct pg_hchange *c, size_t *at)
{
	const struct pg_hmatrix *m = h->m;
	size_t k = 0, from, before = 0, want;

	for (size_t s = 0; s < m->nsessions; s++) {
		double v = m->v[c->object * m->nsessions + s];

		if (v >= 0 && isfinite(v)) {
			at[k++] = s;
			before += s < c->session;
		}
	}
	from = k > PG_HPLOT_SESSIONS ? k - PG_HPLOT_SESSIONS : 0;
	want = before > PG_HPLOT_BEFORE ? before - PG_HPLOT_BEFORE : 0;
	from = from < want ? from : want;
	memmove(at, at + from, (k - from) * sizeof(*at));
	return k - from;
}

static double value(const struct pg_hchanges *h, const struct pg_hchange *c, size_t s)
{
	return h->m->v[c->object * h->m->nsessions + s];
}

/* The unit of values up to @max ns in which they are under 10,000 (Mermaid reads plain
 * decimals, not exponents): its name, and *@div its size in ns. */
static const char *unit_of(double max, double *div)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && max >= 1e4 * units[u].ns)
		u++;
	*div = units[u].ns;
	return units[u].name;
}

/* The largest of the values at[0..n) and of @c's levels. */
static double max_value(const struct pg_hchanges *h, const struct pg_hchange *c,
			const size_t *at, size_t n)
{
	double max = fmax(c->cp.before, c->cp.after);

	for (size_t i = 0; i < n; i++)
		max = fmax(max, value(h, c, at[i]));
	return max;
}

/* The object's name for a title, without the characters Mermaid's quotes cannot hold. */
static void title_name(char *buf, size_t len, const struct pg_hchanges *h,
		       const struct pg_hchange *c)
{
	const struct pg_hobject *o = &h->m->objects[c->object];
	bool program = !strcmp(o->name, PG_HPROGRAM);

	snprintf(buf, len, "%s%s%s", o->display, program ? " " : "",
		 program ? pg_hmetric_name(h->m->metric) : "");
	for (char *p = buf; *p; p++)
		if (*p == '"' || *p == '`' || *p == '\n')
			*p = '\'';
}

/* What both pictures of change point @c show: its sessions, their unit and its name. */
struct trend {
	size_t *at, n;		/* the sessions of window() */
	const char *unit;	/* unit_of() their values, of size div ns */
	double div;
	char name[200];		/* title_name() */
};

/* Fill @t for @c of @h; 0 or -ENOMEM. Free t->at after. */
static int trend_init(struct trend *t, const struct pg_hchanges *h, const struct pg_hchange *c)
{
	t->at = calloc(h->m->nsessions + 1, sizeof(*t->at));
	if (!t->at)
		return -ENOMEM;
	t->n = window(h, c, t->at);
	t->unit = unit_of(max_value(h, c, t->at, t->n), &t->div);
	title_name(t->name, sizeof(t->name), h, c);
	return 0;
}

int pg_hchange_mermaid(FILE *out, const struct pg_hchanges *h, const struct pg_hchange *c)
{
	const struct pg_hmatrix *m = h->m;
	const char *commit = m->sessions[c->session].commit;
	struct trend t;

	if (trend_init(&t, h, c))
		return -ENOMEM;
	fprintf(out, "```mermaid\nxychart-beta\n    title \"%s: %+.1f%% from %.7s\"\n", t.name,
		c->cp.change * 100, commit ? commit : "?");
	fprintf(out, "    x-axis [");
	for (size_t i = 0; i < t.n; i++) {
		const char *sc = m->sessions[t.at[i]].commit;

		fprintf(out, "%s\"%.7s%s\"", i ? ", " : "", sc ? sc : "?",
			t.at[i] == c->session ? " ▲" : "");
	}
	fprintf(out, "]\n    y-axis \"%s per %s, %s\"\n    line [", pg_hmetric_name(m->metric),
		strcmp(m->objects[c->object].name, PG_HPROGRAM) ? "call" : "repetition", t.unit);
	for (size_t i = 0; i < t.n; i++)
		fprintf(out, "%s%.3f", i ? ", " : "", value(h, c, t.at[i]) / t.div);
	/* the change point: its two levels, stepping at its first session */
	fprintf(out, "]\n    line [");
	for (size_t i = 0; i < t.n; i++)
		fprintf(out, "%s%.3f", i ? ", " : "",
			(t.at[i] < c->session ? c->cp.before : c->cp.after) / t.div);
	fprintf(out, "]\n```\n");
	free(t.at);
	return 0;
}

int pg_hchange_sparkline(FILE *out, const struct pg_hchanges *h, const struct pg_hchange *c)
{
	static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	const struct pg_hmatrix *m = h->m;
	double lo = INFINITY, hi = -INFINITY;
	const char *commit = m->sessions[c->session].commit;
	struct trend t;

	if (trend_init(&t, h, c))
		return -ENOMEM;
	for (size_t i = 0; i < t.n; i++) {
		lo = fmin(lo, value(h, c, t.at[i]));
		hi = fmax(hi, value(h, c, t.at[i]));
	}
	fprintf(out, "%s ", t.name);
	for (size_t i = 0; i < t.n; i++) {
		double f = hi > lo ? (value(h, c, t.at[i]) - lo) / (hi - lo) : 0;
		long b = lrint(f * 7);

		b = b < 0 ? 0 : b > 7 ? 7 : b;
		fprintf(out, "%s%s", t.at[i] == c->session ? "|" : "", bars[b]);
	}
	fprintf(out, " %+.1f%% from %.12s (%zu sessions, %.4g..%.4g %s)", c->cp.change * 100,
		commit ? commit : "?", t.n, t.n ? lo / t.div : 0, t.n ? hi / t.div : 0, t.unit);
	free(t.at);
	return 0;
}
