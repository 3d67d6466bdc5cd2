// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_compare_text.c - the text compare writer (reporters/compare_text.c): the
 * table compare prints, its layout (printable ASCII, at most 120 columns) and its lines.
 *
 * The comparison is the hand-built one of tests/unit/fixtures.h (struct pg_fx_compare).
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
#include <unistd.h>

#include "../../core/gbench.h"
#include "../../reporters/compare_out.h"
#include "fixtures.h"

static char *text(struct pg_fx_compare *fx, int verbose)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	assert_non_null(m);
	assert_int_equal(pg_compare_write_text(&fx->c, &fx->base, &fx->new, verbose, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* Printable ASCII lines of at most 120 characters. */
static void assert_layout(const char *s)
{
	size_t col = 0;

	for (const char *p = s; *p; p++) {
		if (*p == '\n') {
			col = 0;
			continue;
		}
		if (*p < 0x20 || *p > 0x7e)
			fail_msg("non-printable byte 0x%02x in:\n%s", (unsigned char)*p, s);
		if (++col > 120)
			fail_msg("line longer than 120 characters in:\n%s", s);
	}
}

/* The line of @s containing @needle (caller frees). */
static char *line_with(const char *s, const char *needle)
{
	const char *p = strstr(s, needle), *b, *e;

	if (!p)
		fail_msg("\"%s\" not in:\n%s", needle, s);
	for (b = p; b > s && b[-1] != '\n'; b--)
		;
	e = strchrnul(p, '\n');
	return strndup(b, e - b);
}

/* The number of lines in @s after the one holding @needle */
static int lines_after(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);
	int n = 0;

	if (!p)
		fail_msg("\"%s\" not in:\n%s", needle, s);
	for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		n++;
	return n;
}

static void test_text(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s = text(fx, 0), *l;

	assert_layout(s);
	assert_non_null(strstr(s, "./bench --size 'big input'"));
	assert_non_null(strstr(s, "commit 0123456789ab,"));
	assert_non_null(strstr(s, "commit fedcba987654,"));

	/* the name loses its middle to fit the row; the calls note goes to the next line */
	l = line_with(s, "REGRESSION  q=");
	assert_non_null(strstr(l, "operator<<(std::"));
	assert_non_null(strstr(l, "const&) \"q\" 'x'"));
	assert_non_null(strstr(l, "1.23 us"));
	assert_non_null(strstr(l, "1.38 us"));
	assert_non_null(strstr(l, "+12.3%"));
	assert_non_null(strstr(l, "[+9.8%, +14.0%]"));
	assert_non_null(strstr(l, "q=0.0021"));
	free(l);
	assert_non_null(strstr(s, "REGRESSION  q=0.0021\n    calls 100->120\n"));
	/* the inconclusive function is counted with its cause, listed with --all */
	assert_null(strstr(s, "tiny"));
	assert_non_null(strstr(s, "\n1 inconclusive function not shown: too few repetitions with "
				  "calls (--all lists them)\n"));
	l = line_with(s, "added");
	assert_non_null(strstr(l, "new_func"));
	assert_null(strstr(l, "calls"));
	free(l);
	assert_non_null(strstr(s, "improvement"));
	assert_non_null(strstr(s, "removed"));
	/* reasons the columns already give are not repeated */
	assert_null(strstr(s, "called only"));
	assert_null(strstr(s, "regression reason"));

	/* the unchanged function is counted, not shown */
	assert_null(strstr(s, "ns::Tmpl"));
	assert_non_null(strstr(s, "1 unchanged function not shown"));
	l = line_with(s, "wall time");
	assert_non_null(strstr(l, "2.50 s -> 2.55 s"));
	free(l);
	assert_non_null(strstr(s, "warning: the runs come from different hosts"));
	l = line_with(s, "perfgate: REGRESSION");
	assert_string_equal(l, "perfgate: REGRESSION in 1 function: operator<<(std::ostream&, "
			    "Foo const&) \"q\" 'x'");
	free(l);
	/* the verdict line is the last one */
	assert_non_null(strstr(s, "'x'\n"));
	assert_string_equal(strstr(s, "'x'\n"), "'x'\n");
	free(s);
}

static void test_text_verbose(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s = text(fx, 1), *l;

	assert_layout(s);
	/* the long name loses its middle; the binary column shows the bad bytes as '?' */
	l = line_with(s, "ns::Tmpl<");
	assert_non_null(strstr(l, "..."));
	assert_non_null(strstr(l, "run(int) const"));
	assert_non_null(strstr(l, "unchanged"));
	assert_non_null(strstr(l, "lib???bad??.so"));
	free(l);
	assert_null(strstr(s, "not shown"));
	/* inconclusive functions with their reason */
	assert_non_null(strstr(s, "inconclusive\n    too few repetitions with calls: 3 < 5\n"));
	l = line_with(s, "inconclusive");
	assert_non_null(strstr(l, "[-inf, +inf]"));
	free(l);
	assert_non_null(strstr(s, "too few repetitions with calls: 3 < 5"));
	free(s);
}

static void test_text_verdicts(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s, *l;

	fx->c.overall = PG_OVERALL_PASS;
	s = text(fx, 0);
	l = line_with(s, "perfgate: PASS");
	assert_string_equal(l, "perfgate: PASS (6 functions compared, 1 unchanged, "
			    "1 inconclusive)");
	free(l);
	free(s);

	fx->c.overall = PG_OVERALL_INCONCLUSIVE;
	snprintf(fx->c.overall_reason, sizeof(fx->c.overall_reason),
		 "1 function could not be decided: tiny");
	s = text(fx, 0);
	l = line_with(s, "perfgate: INCONCLUSIVE");
	assert_string_equal(l, "perfgate: INCONCLUSIVE: 1 function could not be decided: tiny");
	free(l);
	free(s);

	/* more regressions than the verdict line holds: the names go on, on lines of their own */
	fx->c.overall = PG_OVERALL_REGRESSION;
	for (size_t i = 0; i < fx->c.n; i++)
		fx->c.f[i].verdict = PG_VERDICT_REGRESSION;
	fx->c.nregressions = fx->c.n;
	s = text(fx, 0);
	assert_layout(s);
	l = line_with(s, "perfgate: REGRESSION");
	assert_non_null(strstr(l, "perfgate: REGRESSION in 6 functions: operator<<"));
	assert_true(l[strlen(l) - 1] == ',');
	free(l);
	l = line_with(s, "  new_func, old_func");
	assert_true(!strncmp(l, "  new_func", 10));
	assert_null(strstr(s, "more)"));
	free(l);
	free(s);

	/* many: at most two lines more, and how many were left out */
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "function_number_%d", i);
		pg_fx_fcmp(&fx->c, "prog", name, NULL, PG_VERDICT_REGRESSION);
	}
	fx->c.nregressions = fx->c.n;
	s = text(fx, 0);
	assert_layout(s);
	l = line_with(s, "more)");
	assert_non_null(strstr(l, ", ... ("));
	assert_true(!strncmp(l, "  ", 2));
	free(l);
	l = line_with(s, "perfgate: REGRESSION in 46 functions: ");
	free(l);
	assert_int_equal(lines_after(s, "perfgate: REGRESSION"), 2);
	free(s);
}

/* The verdict line of @fx's table holds @want */
static void verdict_line_has(struct pg_fx_compare *fx, const char *want)
{
	char *s = text(fx, 0), *l = line_with(s, "perfgate: REGRESSION");

	assert_non_null(strstr(l, want));
	free(l);
	free(s);
}

/*
 * A regression whose code did not change beside one whose code did: its cause line as notes,
 * a clause a line; the verdict line says which changed; without digests as before
 */
static void test_text_cause(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_fcmp *f = pg_fx_fcmp(&fx->c, "prog", "lookup", NULL, PG_VERDICT_REGRESSION);
	char *s;

	f->change = 0.3;
	f->ci_lo = 0.2;
	f->ci_hi = 0.4;
	f->code = PG_CODE_SAME;
	snprintf(f->why, sizeof(f->why), "called from parse (changed): its time under parse +40%%; "
		 "called 40%% more often, each call +0%%");
	fx->c.f[0].code = PG_CODE_CHANGED;
	fx->c.nregressions = 2;
	fx->c.ncode_changed = 1;
	s = text(fx, 0);
	assert_layout(s);
	assert_non_null(strstr(s, "\n    cause: called from parse (changed): its time under parse "
				  "+40%\n           called 40% more often, each call +0%\n"));
	free(s);
	verdict_line_has(fx, "perfgate: REGRESSION in 1 changed function; 1 unchanged function "
			 "slower through it:");
	/* every regressed function's code the same */
	fx->c.f[0].code = PG_CODE_SAME;
	verdict_line_has(fx, "perfgate: REGRESSION in 2 functions whose code did not change");
	/* two runs of one build: nothing to say of code */
	fx->c.ncode_changed = 0;
	verdict_line_has(fx, "perfgate: REGRESSION in 2 functions: ");
	/* no digests: today's wording */
	fx->c.f[0].code = f->code = PG_CODE_UNKNOWN;
	verdict_line_has(fx, "perfgate: REGRESSION in 2 functions: ");
}

/* The regressed benchmarks of a Google Benchmark program whose names take the verdict line's
 * room (spdlog's formatter-bench): each named in full on the lines after it */
static void test_text_bench_names(void **state)
{
	static const char *const names[] = {
		"[%Y-%m-%d %H:%M:%S.%e] [%l] [%n] %v/iterations:2500000",
		"[%Y-%m-%d %H:%M:%S.%e] [%l] [%n] [%t] %v/iterations:2500000" };
	struct pg_fx_compare *fx = *state;
	struct pg_fcmp *f;
	char *s, *l;

	for (size_t i = 0; i < fx->c.n; i++)
		fx->c.f[i].verdict = PG_VERDICT_UNCHANGED;
	for (size_t i = 0; i < 2; i++)
		pg_fx_fcmp(&fx->c, PG_GB_BINARY, names[i], NULL, PG_VERDICT_REGRESSION);
	f = pg_fx_fcmp(&fx->c, "prog", "main", NULL, PG_VERDICT_REGRESSION);
	f = pg_fx_fcmp(&fx->c, "prog", "the program: CPU time", NULL, PG_VERDICT_REGRESSION);
	f->origin = PG_ORIGIN_PROGRAM;
	fx->c.overall = PG_OVERALL_REGRESSION;
	fx->c.nregressions = 4;
	s = text(fx, 0);
	assert_layout(s);
	l = line_with(s, "perfgate: REGRESSION");
	assert_string_equal(l, "perfgate: REGRESSION of the whole program and in 2 benchmarks and "
			    "in 1 function:");
	free(l);
	assert_int_equal(lines_after(s, "perfgate: REGRESSION"), 2);
	for (size_t i = 0; i < 2; i++) {
		char want[80];

		snprintf(want, sizeof(want), "  %s", names[i]);
		l = line_with(s, want);
		assert_true(!strncmp(l, want, strlen(want)));
		free(l);
	}
	assert_non_null(strstr(s, ", main\n"));
	free(s);

	/* passed: the benchmarks counted apart from the functions */
	for (size_t i = 0; i < fx->c.n; i++)
		fx->c.f[i].verdict = PG_VERDICT_UNCHANGED;
	fx->c.overall = PG_OVERALL_PASS;
	fx->c.nregressions = 0;
	s = text(fx, 0);
	l = line_with(s, "perfgate: PASS");
	assert_non_null(strstr(l, "perfgate: PASS (2 benchmarks and "));
	free(l);
	free(s);
}

/* One binary: no binary column (the header names it), and room for the calls note in the row. */
static void test_text_one_binary(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s, *l;

	for (size_t i = 0; i < fx->c.n; i++) {
		free(fx->c.f[i].binary);
		fx->c.f[i].binary = pg_fx_strdup("prog");
		free(fx->c.f[i].display);
		fx->c.f[i].display = pg_fx_strdup(fx->c.f[i].name);
	}
	s = text(fx, 1);
	assert_layout(s);
	assert_non_null(strstr(s, "\n  binary  prog\n"));
	assert_null(strstr(s, "binary  function"));
	l = line_with(s, "REGRESSION");
	assert_true(!strncmp(l, "_ZlsRSoRK3Foo ", 14));
	assert_non_null(strstr(l, "REGRESSION  q=0.0021  calls 100->120"));
	free(l);
	free(s);
}

/* A notable change: a row with what it costs the run, counted on the PASS line. */
static void test_text_notable(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s, *l;

	pg_fx_compare_notable(fx);
	s = text(fx, 0);
	assert_layout(s);
	l = line_with(s, "fast_path");
	assert_non_null(strstr(l, "notable  q=0.001"));
	free(l);
	assert_non_null(strstr(s, "notable  q=0.001\n    -1.00 us in a 2.50 s repetition (4e-05%): "
				  "too little of the run to count\n"));
	assert_non_null(strstr(s, "\n  min impact 0.1%: a change counts"));
	free(s);
	fx->c.overall = PG_OVERALL_PASS;
	s = text(fx, 0);
	l = line_with(s, "perfgate: PASS");
	assert_string_equal(l, "perfgate: PASS (6 functions compared, 1 unchanged, 1 notable (too "
			    "little of the run to fail), 1 inconclusive)");
	free(l);
	free(s);
}

/* The hot functions nothing judged: one line of why, then one line each, within the width. */
static void test_text_unjudged(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s, *line;

	s = text(fx, 0);
	assert_null(strstr(s, "not judged"));
	free(s);
	assert_int_equal(pg_comparison_add_unjudged(&fx->c, "prog", "blur_row", 8, 0.05, 8.7), 0);
	assert_int_equal(pg_comparison_add_unjudged(&fx->c, "prog", fx->long_name,
						    strlen(fx->long_name), 0.02, 3), 0);
	s = text(fx, 0);
	assert_layout(s);
	assert_non_null(strstr(s, "\nnot judged (not traced, and under 10 samples a repetition: "
				  "too rare for a verdict):\n    blur_row  5.0% of the samples, "
				  "~8.7 a repetition\n    "));
	line = line_with(s, "2.0% of the samples, ~3.0 a repetition");
	assert_non_null(strstr(line, "..."));	/* the long name, shortened */
	free(line);
	free(s);
}

/* A paired comparison says so under the header, with its pairs. */
static void test_text_paired(void **state)
{
	struct pg_fx_compare *fx = *state;
	char *s;

	s = text(fx, 0);
	assert_null(strstr(s, "paired"));
	free(s);
	fx->c.paired = true;
	fx->c.npairs = 12;
	s = text(fx, 0);
	assert_layout(s);
	assert_non_null(strstr(s, "\n  paired: 12 pairs of one interleaved session, compared pair "
				  "by pair\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_verbose, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_verdicts, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_cause, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_bench_names, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_one_binary, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_notable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_unjudged, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_text_paired, pg_fx_compare_setup,
						pg_fx_compare_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
