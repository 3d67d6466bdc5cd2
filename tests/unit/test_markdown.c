// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_markdown.c - the pull-request summary and the GitHub annotations
 * (reporters/markdown.h) on comparisons built by hand.
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

#include "../../core/gbench.h"
#include "../../reporters/markdown.h"

static struct pg_fcmp *add_f(struct pg_comparison *c, const char *name, enum pg_verdict v,
			     double change)
{
	struct pg_fcmp *f;

	c->f = realloc(c->f, (c->n + 1) * sizeof(*c->f));
	assert_non_null(c->f);
	f = &c->f[c->n++];
	memset(f, 0, sizeof(*f));
	f->binary = strdup("prog");
	f->name = strdup(name);
	f->display = strdup(name);
	f->n_base = f->n_new = 10;
	f->base_ns = 1000;
	f->new_ns = 1000 * (1 + change);
	f->base_calls = f->new_calls = 100;
	f->change = change;
	f->ci_lo = change - 0.02;
	f->ci_hi = change + 0.02;
	f->p = f->q = 0.001;
	f->verdict = v;
	if (v == PG_VERDICT_REGRESSION)
		c->nregressions++;
	else if (v == PG_VERDICT_IMPROVEMENT)
		c->nimprovements++;
	else if (v == PG_VERDICT_UNCHANGED)
		c->nunchanged++;
	else if (v == PG_VERDICT_NOTABLE)
		c->nnotable++;
	return f;
}

static void setup_cmp(struct pg_comparison *c, size_t nreg)
{
	pg_comparison_init(c);
	c->base_reps = c->new_reps = 10;
	for (size_t i = 0; i < nreg; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow_%02zu", i);
		add_f(c, name, PG_VERDICT_REGRESSION, 0.5 - 0.01 * (double)i);
	}
	add_f(c, "faster", PG_VERDICT_IMPROVEMENT, -0.3);
	add_f(c, "same", PG_VERDICT_UNCHANGED, 0.001);
	c->overall = nreg ? PG_OVERALL_REGRESSION : PG_OVERALL_PASS;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_pass(void **state)
{
	struct pg_comparison c;
	const char *arts[] = { "out/junit.xml", "flame.svg" };
	struct pg_md_opts o = { 0, 2, arts };
	char *md;

	setup_cmp(&c, 0);
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, "### :white_check_mark: perfgate: pass\n"));
	assert_non_null(strstr(md, "| :green_circle: improvement | `faster` | prog | 1.00 us | "
				   "700 ns | -30.0% [-32.0%, -28.0%] | 100 |"));
	assert_null(strstr(md, "`same`"));	/* unchanged functions are only counted */
	assert_non_null(strstr(md, "Artifacts: `junit.xml`, `flame.svg`."));
	free(md);
	md = pg_compare_gh_annotations(&c, PG_GH_MAX_ANNOTATIONS, NULL);
	assert_string_equal(md, "");
	free(md);
	pg_comparison_release(&c);
}

/* The hot functions nothing judged are named after what was judged, largest share first */
static void test_unjudged(void **state)
{
	struct pg_comparison c;
	struct pg_md_opts o = { 0, 0, NULL };
	char *md;

	(void)state;
	setup_cmp(&c, 1);
	c.judged_share = 0.93;
	assert_int_equal(pg_comparison_add_unjudged(&c, "prog", "small_xyz", 5, 0.012, 2.5), 0);
	assert_int_equal(pg_comparison_add_unjudged(&c, "prog", "blur_row", 8, 0.05, 8.7), 0);
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, " Not judged (not traced, and under 10 samples a "
				   "repetition: too rare for a verdict): `blur_row` 5.0% of the "
				   "samples (~8.7 a repetition), `small` 1.2% of the samples "
				   "(~2.5 a repetition).\n"));
	free(md);
	pg_comparison_release(&c);
}

/* An unchanged function's cause line: in the heading's count, the list and its annotation */
static void test_cause(void **state)
{
	struct pg_comparison c;
	struct pg_md_opts o = { 10, 0, NULL };
	struct pg_fcmp *f;
	char *md;

	(void)state;
	setup_cmp(&c, 1);
	c.f[0].code = PG_CODE_CHANGED;
	c.ncode_changed = 1;
	f = add_f(&c, "lookup", PG_VERDICT_REGRESSION, 0.3);
	f->code = PG_CODE_SAME;
	snprintf(f->why, sizeof(f->why), "called from slow_00 (changed): its time under slow_00 "
		 "+40%%");
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, "### :x: perfgate: regression in 1 changed function; 1 "
				   "unchanged function slower through it\n"));
	assert_non_null(strstr(md, "- `lookup`: its code did not change; called from slow\\_00 "
				   "(changed): its time under slow\\_00 +40%\n"));
	free(md);
	md = pg_compare_gh_annotations(&c, PG_GH_MAX_ANNOTATIONS, NULL);
	assert_non_null(strstr(md, "; cause: called from slow_00 (changed)"));
	free(md);
	pg_comparison_release(&c);
}

/* A paired comparison says so in the context line. */
static void test_paired(void **state)
{
	struct pg_comparison c;
	struct pg_md_opts o = { 0, 0, NULL };
	char *md;

	setup_cmp(&c, 0);
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_null(strstr(md, "paired"));
	free(md);
	c.paired = true;
	c.npairs = 12;
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(strstr(md, "; paired (12 pairs of one interleaved session)"));
	free(md);
	pg_comparison_release(&c);
}

/* A notable change: in the table after the improvements, with its share; the build passes. */
static void test_notable(void **state)
{
	struct pg_comparison c;
	struct pg_fcmp *f;
	char *md;

	setup_cmp(&c, 0);
	f = add_f(&c, "once_small", PG_VERDICT_NOTABLE, 2);
	f->impact = 0.0002;
	md = pg_compare_markdown(&c, NULL, NULL, NULL);
	assert_non_null(md);
	assert_non_null(strstr(md, "### :white_check_mark: perfgate: pass\n"));
	assert_non_null(strstr(md, "1 notable change too small for the run to count"));
	assert_non_null(strstr(md, "| :white_circle: notable, slower | `once_small` | prog | "
				   "1.00 us | 3.00 us | +200.0% [+198.0%, +202.0%] | 100 | "
				   "+0.02% |"));
	assert_true(strstr(md, "`faster`") < strstr(md, "`once_small`"));
	assert_non_null(strstr(md, "less than 0.1% of a repetition's wall time: they do not "
				   "fail"));
	assert_non_null(strstr(md, "0 regressed, 1 improved, 1 notable, 1 unchanged,"));
	free(md);
	md = pg_compare_gh_annotations(&c, PG_GH_MAX_ANNOTATIONS, NULL);
	assert_string_equal(md, "");	/* no error annotation */
	free(md);
	pg_comparison_release(&c);
}

static void test_regression_top(void **state)
{
	struct pg_comparison c;
	struct pg_md_opts o = { 3, 0, NULL };
	char *md;

	setup_cmp(&c, 5);
	c.f[0].src_file = strdup("/ws/src/slow.c");
	c.f[0].src_line = 42;
	c.f[0].calls_changed = true;
	c.f[0].new_calls = 150;
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, "### :x: perfgate: regression in 5 functions\n"));
	assert_int_equal(count(md, ":red_circle: regression"), 3);
	assert_non_null(strstr(md, "`slow_00` (slow.c:42)"));
	assert_non_null(strstr(md, "| 100 &rarr; 150 (+50.0%) |"));
	assert_non_null(strstr(md, "and 2 more regressions and 1 more improvement"));
	free(md);
	pg_comparison_release(&c);
}

/* A Google Benchmark program: its benchmarks counted apart from the functions */
static void test_regression_benchmarks(void **state)
{
	struct pg_md_opts o = { 3, 0, NULL };
	struct pg_comparison c;
	char *md;

	setup_cmp(&c, 3);
	for (size_t i = 0; i < 2; i++) {
		free(c.f[i].binary);
		c.f[i].binary = strdup(PG_GB_BINARY);
	}
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, "### :x: perfgate: regression in 2 benchmarks and in 1 "
				   "function\n"));
	assert_non_null(strstr(md, "2 of 2 benchmarks and 1 of 3 functions compared got slower"));
	free(md);
	for (size_t i = 0; i < 3; i++)
		c.f[i].verdict = PG_VERDICT_UNCHANGED;
	c.overall = PG_OVERALL_PASS;
	md = pg_compare_markdown(&c, NULL, NULL, &o);
	assert_non_null(md);
	assert_non_null(strstr(md, "No regression in 2 benchmarks and 3 functions compared ("));
	free(md);
	pg_comparison_release(&c);
}

static void test_annotations(void **state)
{
	struct pg_comparison c;
	char *a;

	setup_cmp(&c, 12);
	c.f[0].src_file = strdup("/ws/src/slow.c");
	c.f[0].src_line = 42;
	c.f[1].src_file = strdup("rel/x.c");
	c.f[1].src_line = 7;
	a = pg_compare_gh_annotations(&c, PG_GH_MAX_ANNOTATIONS, "/ws/");
	assert_non_null(a);
	/* ten in all: nine regressions and one that counts the three others */
	assert_int_equal(count(a, "::error "), 10);
	assert_int_equal(count(a, "\n"), 10);
	assert_non_null(strstr(a, "::error file=src/slow.c,line=42,title=perfgate%3A slow_00 "
				  "+50.0%25 slower per call::slow_00 (prog) per-call self time "
				  "1.00 us -> 1.50 us, +50.0%25 with 95%25 interval "
				  "[+48.0%25, +52.0%25], q=0.001; calls per repetition "
				  "100 -> 100\n"));
	assert_non_null(strstr(a, "::error file=rel/x.c,line=7,title=perfgate%3A slow_01"));
	assert_non_null(strstr(a, "::error title=perfgate%3A slow_02 "));
	assert_non_null(strstr(a, "::error title=perfgate%3A more regressions::3 more functions "
				  "regressed: see the job summary\n"));
	free(a);
	pg_comparison_release(&c);
}

static void test_inconclusive_and_escaping(void **state)
{
	struct pg_comparison c;
	char *md, *a;

	setup_cmp(&c, 0);
	c.overall = PG_OVERALL_INCONCLUSIVE;
	snprintf(c.overall_reason, sizeof(c.overall_reason), "too few <b>reps</b> | 50%%\nok");
	free(c.f[0].display);
	c.f[0].display = strdup("operator|`x`");
	c.warnings = calloc(1, sizeof(char *));
	c.warnings[0] = strdup("hosts *a* and _b_");
	c.nwarnings = 1;
	md = pg_compare_markdown(&c, NULL, NULL, NULL);
	assert_non_null(md);
	assert_non_null(strstr(md, "too few &lt;b&gt;reps&lt;/b&gt; \\| 50%?ok."));
	assert_non_null(strstr(md, "`operator\\|'x'`"));
	assert_non_null(strstr(md, "> :warning: hosts \\*a\\* and \\_b\\_\n"));
	assert_null(strstr(md, "<b>"));
	free(md);
	a = pg_compare_gh_annotations(&c, PG_GH_MAX_ANNOTATIONS, NULL);
	assert_string_equal(a, "::warning title=perfgate%3A inconclusive::too few <b>reps</b> | "
			    "50%25%0Aok\n");
	free(a);
	a = pg_gh_escape("a:b,c%d\r\ne", true);
	assert_string_equal(a, "a%3Ab%2Cc%25d%0D%0Ae");
	free(a);
	a = pg_gh_escape("a:b,c%d\r\ne", false);
	assert_string_equal(a, "a:b,c%25d%0D%0Ae");
	free(a);
	pg_comparison_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_unjudged),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_cause),
		cmocka_unit_test(test_notable),
		cmocka_unit_test(test_regression_top),
		cmocka_unit_test(test_regression_benchmarks),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_inconclusive_and_escaping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
