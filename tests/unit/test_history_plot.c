// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_plot.c - a change point's trend for a CI job (history/changes_plot.c):
 * the Mermaid chart and the sparkline of a matrix made here, over the last 30 sessions with
 * values (a session without a value left out), or from 5 before an older change point; the
 * levels' line steps exactly at the change point's first session.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../history/changes_report.h"

#define N 40

static struct pg_hsession sessions[N];
static char commits[N][48];
static double v[N];
static struct pg_hobject obj = { "bin", "leaf", "", "leaf" };
static int64_t id = 1;
static struct pg_hmatrix m = { sessions, N, &obj, &id, 1, PG_HM_SELF, v };

/* sessions c00..c39 at 100 ns, 150 ns from @step on; @hole has no value (-1: none) */
static struct pg_hchange setup(size_t step, int hole)
{
	struct pg_hchange c = { 0, step, { .before = 100, .after = 150, .change = 0.5 } };

	for (size_t i = 0; i < N; i++) {
		snprintf(commits[i], sizeof(commits[i]), "c%02zu%038d", i, 0);
		sessions[i].commit = commits[i];
		v[i] = (int)i == hole ? NAN : i < step ? 100 : 150;
	}
	return c;
}

/* The text @fn writes for @c. */
static char *text(int (*fn)(FILE *, const struct pg_hchanges *, const struct pg_hchange *),
		  const struct pg_hchange *c)
{
	struct pg_hchanges h = { &m, c, 1, NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, &h, c), 0);
	fclose(f);
	return buf;
}

/* The count of ", "-separated values in the @nth "line [...]" of @md, and the index of the
 * first value of the second line that differs from the one before (-1: none). */
static int line_values(const char *md, int nth, int *step)
{
	const char *p = md;
	int n = 1;
	double prev = NAN;

	for (int i = 0; i <= nth; i++) {
		p = strstr(p, "line [");
		assert_non_null(p);
		p += 6;
	}
	*step = -1;
	for (int i = 0; *p != ']'; i++) {
		char *end;
		double x = strtod(p, &end);

		if (i && x != prev && *step < 0)
			*step = i;
		prev = x;
		p = end;
		if (*p == ',') {
			n++;
			p += 2;
		}
	}
	return n;
}

static void test_newest(void **state)
{
	struct pg_hchange c = setup(35, 20);
	char *md = text(pg_hchange_mermaid, &c), *sp = text(pg_hchange_sparkline, &c);
	int step;

	/* the last 30 sessions with values: c09..c39 without c20; c35 is the 25th of them */
	assert_int_equal(line_values(md, 0, &step), 30);
	assert_int_equal(line_values(md, 1, &step), 30);
	assert_int_equal(step, 25);
	assert_non_null(strstr(md, "x-axis [\"c090000\", "));
	assert_null(strstr(md, "\"c200000\""));
	assert_non_null(strstr(md, "\"c350000 ▲\""));
	assert_non_null(strstr(md, "title \"leaf: +50.0% from c350000\""));
	assert_string_equal(sp, "leaf ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁|█████ +50.0% from c35000000000 "
			    "(30 sessions, 100..150 ns)");
	free(md);
	free(sp);
}

static void test_units(void **state)
{
	/* a program's wall time, 2 s then 3 s a repetition: in ms, plain decimals */
	struct pg_hchange c = setup(35, -1);
	char *md, *sp;

	obj.name = PG_HPROGRAM;
	for (size_t i = 0; i < N; i++)
		v[i] *= 2e7;
	c.cp.before = 2e9;
	c.cp.after = 3e9;
	md = text(pg_hchange_mermaid, &c);
	sp = text(pg_hchange_sparkline, &c);
	obj.name = "leaf";
	assert_non_null(strstr(md, "y-axis \"self per repetition, ms\""));
	assert_non_null(strstr(md, "line [2000.000, "));
	assert_non_null(strstr(md, ", 3000.000]"));
	assert_null(strstr(md, "e+"));
	assert_non_null(strstr(sp, "(30 sessions, 2000..3000 ms)"));
	free(md);
	free(sp);
}

static void test_older(void **state)
{
	/* a change point older than the last 30 sessions: from 5 sessions before it */
	struct pg_hchange c = setup(6, -1);
	char *md = text(pg_hchange_mermaid, &c);
	int step;

	assert_int_equal(line_values(md, 1, &step), N - 1);
	assert_int_equal(step, 5);
	assert_non_null(strstr(md, "x-axis [\"c010000\", "));
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_older),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
