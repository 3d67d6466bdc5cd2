// SPDX-License-Identifier: MIT
/*
 * reporters/gbench_text.c - the benchmarks section that leads `perfgate compare`'s table for a
 * Google Benchmark program, in the style of Google Benchmark's compare.py: every benchmark,
 * its CPU time per iteration on each side, the change, its interval and the verdict; and the
 * benchmarks' table of `perfgate report` (see reporters/gbench_text.h, docs/gbench.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/gbench.h"
#include "../core/numfmt.h"
#include "../diff/stats.h"
#include "fmt.h"
#include "gbench_text.h"

#define NAME_MAX_W 60

size_t pg_gb_count(const struct pg_comparison *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += pg_gb_is_bench(&c->f[i]);
	return n;
}

/* The columns of benchmark @f: base, new, change, interval, verdict */
static void cells(const struct pg_fcmp *f, char col[5][2 * PG_FMT_LEN])
{
	bool one_side = f->verdict == PG_VERDICT_ADDED || f->verdict == PG_VERDICT_REMOVED;

	pg_fmt_ns(col[0], sizeof(col[0]), f->base_ns);
	pg_fmt_ns(col[1], sizeof(col[1]), f->new_ns);
	if (one_side || isnan(f->change)) {
		strcpy(col[2], "-");
		strcpy(col[3], "-");
	} else {
		pg_fmt_pct(col[2], sizeof(col[2]), f->change);
		pg_fmt_interval(col[3], sizeof(col[3]), f->ci_lo, f->ci_hi);
	}
	snprintf(col[4], sizeof(col[4]), "%s", pg_verdict_name(f->verdict));
	if (f->verdict == PG_VERDICT_REGRESSION)
		snprintf(col[4], sizeof(col[4]), "REGRESSION");
	if (!isnan(f->q))
		snprintf(col[4] + strlen(col[4]), sizeof(col[4]) - strlen(col[4]), "  q=%.2g",
			 f->q);
}

void pg_gb_write_text(const struct pg_comparison *c, FILE *out)
{
	size_t w[6] = { strlen("benchmark"), 4, 3, 6, 8, 7 };
	char col[5][2 * PG_FMT_LEN];

	if (!pg_gb_count(c))
		return;
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];
		size_t l = strlen(f->name);

		if (!pg_gb_is_bench(f))
			continue;
		cells(f, col);
		w[0] = l > w[0] ? (l > NAME_MAX_W ? NAME_MAX_W : l) : w[0];
		for (int k = 0; k < 5; k++)
			if (strlen(col[k]) > w[k + 1])
				w[k + 1] = strlen(col[k]);
	}
	fprintf(out, "%-*s  %*s  %*s  %*s  %-*s  verdict\n", (int)w[0], "benchmark", (int)w[1],
		"base", (int)w[2], "new", (int)w[3], "change", (int)w[4], "interval");
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];
		char *name;

		if (!pg_gb_is_bench(f) || !(name = pg_fmt_ascii(f->name)))
			continue;
		pg_fmt_ellipsize(name, w[0]);
		cells(f, col);
		fprintf(out, "%-*s  %*s  %*s  %*s  %-*s  %s\n", (int)w[0], name, (int)w[1], col[0],
			(int)w[2], col[1], (int)w[3], col[2], (int)w[4], col[3], col[4]);
		if (f->verdict == PG_VERDICT_INCONCLUSIVE && f->reason[0]) {
			char *r = pg_fmt_ascii(f->reason);

			if (r) {
				pg_fmt_truncate(r, 116);
				fprintf(out, "    %s\n", r);
			}
			free(r);
		}
		free(name);
	}
	fprintf(out, "(Google Benchmark's CPU time per iteration, one value per process; the "
		"functions below are compared per call)\n\n");
}

/* The median over @run's repetitions of figure @cpu (else real) of benchmark @name; *ok the
 * repetitions it ran in; @tmp has room for one value a repetition */
static double median_of(const struct pg_run *run, const char *name, bool cpu, double *tmp,
			size_t *ok, const char **msg)
{
	size_t n = 0;

	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_gb_value *v = pg_gb_find(run->reps[r].bench, run->reps[r].nbench,
							 name);

		if (v && v->state != PG_GB_OK && !*msg)
			*msg = v->message ? v->message : pg_gb_state_name(v->state);
		if (v && v->state == PG_GB_OK)
			tmp[n++] = cpu ? v->cpu_ns : v->real_ns;
	}
	*ok = n;
	return n ? pg_median(tmp, n) : NAN;
}

void pg_gb_write_report(const struct pg_run *run, FILE *out)
{
	double *tmp = malloc((run->nreps ? run->nreps : 1) * sizeof(*tmp));
	const struct pg_rep *first = NULL;
	size_t w = strlen("benchmark");

	for (size_t r = 0; r < run->nreps && !first; r++)
		if (run->reps[r].nbench)
			first = &run->reps[r];
	if (!first || !tmp) {
		free(tmp);
		return;
	}
	for (size_t i = 0; i < first->nbench; i++)
		if (strlen(first->bench[i].name) > w)
			w = strlen(first->bench[i].name);
	if (w > NAME_MAX_W)
		w = NAME_MAX_W;
	fprintf(out, "\nGoogle Benchmark's figures per iteration (median over the repetitions; "
		"docs/gbench.md):\n%-*s  %10s  %10s  %s\n", (int)w, "benchmark", "cpu", "real",
		"repetitions");
	for (size_t i = 0; i < first->nbench; i++) {
		const char *msg = NULL;
		char c[PG_FMT_LEN], rl[PG_FMT_LEN], *name = pg_fmt_ascii(first->bench[i].name);
		size_t ok;

		if (!name)
			continue;
		pg_fmt_ellipsize(name, w);
		pg_fmt_ns(c, sizeof(c), median_of(run, first->bench[i].name, true, tmp, &ok, &msg));
		pg_fmt_ns(rl, sizeof(rl), median_of(run, first->bench[i].name, false, tmp, &ok,
						    &msg));
		fprintf(out, "%-*s  %10s  %10s  %zu of %zu", (int)w, name, c, rl, ok, run->nreps);
		if (msg)
			fprintf(out, " (%.60s)", msg);
		fputc('\n', out);
		free(name);
	}
	free(tmp);
}
