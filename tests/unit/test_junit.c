// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_junit.c - the JUnit writer (reporters/junit.c): the XML validated against
 * the Ant JUnit schema and read back with XPath. The schema is found at
 * $PERFGATE_SRCDIR/tests/data/JUnit.xsd, PERFGATE_SRCDIR defaulting to "." (the repository
 * root).
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

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include "../../reporters/compare_out.h"
#include "fixtures.h"

static void validate(const char *path)
{
	const char *srcdir = getenv("PERFGATE_SRCDIR");
	char xsd[4096];
	xmlSchemaParserCtxtPtr pctx;
	xmlSchemaValidCtxtPtr vctx;
	xmlSchemaPtr schema;
	xmlDocPtr doc;

	snprintf(xsd, sizeof(xsd), "%s/tests/data/JUnit.xsd", srcdir && *srcdir ? srcdir : ".");
	pctx = xmlSchemaNewParserCtxt(xsd);
	assert_non_null(pctx);
	schema = xmlSchemaParse(pctx);
	if (!schema)
		fail_msg("cannot load %s (run from the repository root or set PERFGATE_SRCDIR)",
			 xsd);
	vctx = xmlSchemaNewValidCtxt(schema);
	assert_non_null(vctx);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	assert_int_equal(xmlSchemaValidateDoc(vctx, doc), 0);
	xmlFreeDoc(doc);
	xmlSchemaFreeValidCtxt(vctx);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pctx);
}

/* The string value of an XPath expression on the document at @path (caller frees). */
static char *xpath_str(const char *path, const char *expr)
{
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	xmlXPathContextPtr ctx;
	xmlXPathObjectPtr obj;
	xmlChar *s;
	char *out;

	assert_non_null(doc);
	ctx = xmlXPathNewContext(doc);
	assert_non_null(ctx);
	obj = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	assert_non_null(obj);
	s = xmlXPathCastToString(obj);
	out = strdup((const char *)s);
	xmlFree(s);
	xmlXPathFreeObject(obj);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	assert_non_null(out);
	return out;
}

static void assert_xpath(const char *path, const char *expr, const char *want)
{
	char *got = xpath_str(path, expr);

	if (strcmp(got, want))
		fail_msg("%s: got \"%s\", want \"%s\"", expr, got, want);
	free(got);
}

static void assert_xpath_has(const char *path, const char *expr, const char *needle)
{
	char *got = xpath_str(path, expr);

	if (!strstr(got, needle))
		fail_msg("%s: \"%s\" does not contain \"%s\"", expr, got, needle);
	free(got);
}

/* A regression whose code did not change: its cause line in the failure's message and text */
static void test_junit_cause(void **state)
{
	struct pg_fx_compare *fx = *state;
	const char *x = fx->xml;

	fx->c.f[0].code = PG_CODE_SAME;
	snprintf(fx->c.f[0].why, sizeof(fx->c.f[0].why), "as often, each call +12%%");
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, x), 0);
	validate(x);
	assert_xpath_has(x, "string(//failure/@message)", "q=0.0021; cause: as often, each call "
			 "+12%");
	assert_xpath_has(x, "string(//failure)", "\ncause: as often, each call +12%\n");
}

static void test_junit_valid(void **state)
{
	struct pg_fx_compare *fx = *state;
	const char *x = fx->xml;
	char *s;

	/* the regression's and the inconclusive function's declarations (compare.json's file
	 * and line): file and line attributes of their testcases (the schema's extension) */
	fx->c.f[0].src_file = strdup("/repo/src/parse.c");
	fx->c.f[0].src_line = 42;
	fx->c.f[2].src_file = strdup("lib/tiny.c");
	fx->c.f[2].src_line = 7;
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, "/repo/", x), 0);
	validate(x);
	assert_xpath(x, "string(/testsuite/testcase[1]/@file)", "src/parse.c");
	assert_xpath(x, "string(/testsuite/testcase[1]/@line)", "42");
	assert_xpath(x, "string(/testsuite/testcase[3]/@file)", "lib/tiny.c");
	assert_xpath(x, "string(/testsuite/testcase[3]/@line)", "7");
	assert_xpath(x, "count(/testsuite/testcase[@file])", "2");
	assert_xpath(x, "count(/testsuite/testcase[@line])", "2");

	assert_xpath(x, "string(/testsuite/@name)", "perfgate");
	assert_xpath(x, "string(/testsuite/@tests)", "6");
	assert_xpath(x, "string(/testsuite/@failures)", "1");
	assert_xpath(x, "string(/testsuite/@errors)", "0");
	assert_xpath(x, "string(/testsuite/@skipped)", "1");
	assert_xpath(x, "string(/testsuite/@hostname)", "ci-2");
	assert_xpath(x, "string(/testsuite/@timestamp)", "2026-11-21T10:22:22");
	assert_xpath(x, "string(/testsuite/@time)", "25.000");
	assert_xpath(x, "count(/testsuite/testcase)", "6");
	assert_xpath(x, "count(//failure)", "1");
	assert_xpath(x, "count(//skipped)", "1");

	/* the regression: special characters survive the round trip */
	assert_xpath(x, "string(/testsuite/testcase[1]/@name)", PG_FX_SPECIAL);
	assert_xpath(x, "string(/testsuite/testcase[1]/@classname)", "prog");
	assert_xpath(x, "string(/testsuite/testcase[1]/@time)", "0.000001381");
	assert_xpath(x, "string(/testsuite/testcase[1]/failure/@type)", "regression");
	assert_xpath_has(x, "string(//failure/@message)", "+12.3%");
	assert_xpath_has(x, "string(//failure/@message)", "[+9.8%, +14.0%]");
	assert_xpath_has(x, "string(//failure/@message)", "q=0.0021");
	assert_xpath_has(x, "string(//failure)", "base: 1.23 us per call");
	assert_xpath_has(x, "string(//failure)", "new: 1.38 us per call");
	assert_xpath_has(x, "string(//failure)", "100 -> 120");
	assert_xpath_has(x, "string(//failure)", "repetitions: base 10, new 10");
	assert_xpath_has(x, "string(//failure)", "regression reason, in the JUnit failure only");

	/* (the properties and texts keep the path as the run has it) */
	assert_xpath_has(x, "string(//failure)", "source: /repo/src/parse.c:42");
	/* (the name holds both quotes: no XPath literal can) */
	assert_xpath(x, "string(//property[starts-with(@name, 'file:prog/operator<<')]/@value)",
		     "/repo/src/parse.c:42");
	assert_xpath(x, "string-length(//property[starts-with(@name, 'file:prog/')]/@name)",
		     "55");
	assert_xpath(x, "string(//property[@name='file:libfoo.so/tiny']/@value)", "lib/tiny.c:7");
	assert_xpath(x, "count(//property[starts-with(@name, 'file:')])", "2");
	assert_xpath_has(x, "string(//skipped/@message)", "(lib/tiny.c:7)");

	/* without a root, or outside it, the path as the run has it */
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, x), 0);
	validate(x);
	assert_xpath(x, "string(/testsuite/testcase[1]/@file)", "/repo/src/parse.c");
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, "/rep", x), 0);
	assert_xpath(x, "string(/testsuite/testcase[1]/@file)", "/repo/src/parse.c");

	/* inconclusive: skipped; the others pass */
	assert_xpath(x, "string(/testsuite/testcase[3]/@name)", "tiny");
	assert_xpath(x, "string(/testsuite/testcase[3]/@classname)", "libfoo.so");
	assert_xpath(x, "count(/testsuite/testcase[3]/skipped)", "1");
	assert_xpath_has(x, "string(//skipped/@message)", "too few repetitions");
	assert_xpath(x, "count(/testsuite/testcase[4]/*)", "0");
	assert_xpath(x, "string(/testsuite/testcase[4]/@time)", "0.000001000");
	assert_xpath(x, "string(/testsuite/testcase[5]/@name)", "old_func");

	/* whitespace collapsed, invalid bytes and the control character replaced */
	s = xpath_str(x, "string(/testsuite/testcase[6]/@name)");
	assert_null(strstr(s, "  "));
	assert_null(strchr(s, '\t'));
	assert_non_null(strstr(s, "ns::Tmpl< std::map<int, int> , std::vector<long>"));
	free(s);
	assert_xpath(x, "string(/testsuite/testcase[6]/@classname)",
		     "lib\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "bad\xef\xbf\xbd\xef\xbf\xbd.so");

	/* properties */
	assert_xpath(x, "string(//property[@name='overall']/@value)", "regression");
	assert_xpath(x, "string(//property[@name='alpha']/@value)", "0.05");
	assert_xpath(x, "string(//property[@name='min_effect']/@value)", "0.05");
	assert_xpath(x, "string(//property[@name='metric']/@value)", "self");
	assert_xpath(x, "string(//property[@name='base.repetitions']/@value)", "10");
	assert_xpath(x, "string(//property[@name='new.repetitions']/@value)", "10");
	assert_xpath(x, "string(//property[@name='base.commit']/@value)",
		     "0123456789abcdef0123456789abcdef01234567");
	assert_xpath(x, "string(//property[@name='new.host']/@value)", "ci-2");
	assert_xpath(x, "string(//property[@name='base.command']/@value)",
		     "./bench --size 'big input'");

	/* the table in system-out, warnings in system-err */
	assert_xpath_has(x, "string(/testsuite/system-out)",
			 "perfgate: REGRESSION in 1 function");
	assert_xpath_has(x, "string(/testsuite/system-err)", "ci-1 and ci-2 <&>");
}

/* A notable change passes (no failure, not skipped); a regression's failure gives its impact. */
static void test_junit_notable(void **state)
{
	struct pg_fx_compare *fx = *state;
	const char *x = fx->xml;

	pg_fx_compare_notable(fx);
	fx->c.f[0].impact_ns = 15100;
	fx->c.f[0].impact = 15100 / 2.5e9;
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, x), 0);
	validate(x);
	assert_xpath(x, "string(/testsuite/@failures)", "1");
	assert_xpath(x, "string(/testsuite/testcase[2]/@name)", "fast_path");
	assert_xpath(x, "count(/testsuite/testcase[2]/*)", "0");
	assert_xpath(x, "string(//property[@name='min_impact']/@value)", "0.001");
	assert_xpath_has(x, "string(//failure)", "per repetition: +15.1 us, 0.000604% of the "
			 "median repetition's wall time (min impact 0.1%)");
	assert_xpath_has(x, "string(/testsuite/system-out)", "too little of the run to count");
}

/* A paired comparison: its pairs as a property, still valid; none when unpaired. */
static void test_junit_paired(void **state)
{
	struct pg_fx_compare *fx = *state;
	const char *x = fx->xml;

	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, x), 0);
	assert_xpath(x, "count(//property[@name='pairs'])", "0");
	fx->c.paired = true;
	fx->c.npairs = 12;
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, x), 0);
	validate(x);
	assert_xpath(x, "string(//property[@name='pairs']/@value)", "12");
}

/* Nothing to compare, no run metadata: still valid, with the schema's fallbacks. */
static void test_junit_empty(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_comparison c;
	char *ts;

	pg_comparison_init(&c);
	c.overall = PG_OVERALL_INCONCLUSIVE;
	assert_int_equal(pg_compare_write_junit(&c, NULL, NULL, NULL, fx->xml), 0);
	validate(fx->xml);
	assert_xpath(fx->xml, "string(/testsuite/@tests)", "0");
	assert_xpath(fx->xml, "string(/testsuite/@hostname)", "localhost");
	assert_xpath(fx->xml, "string(/testsuite/@time)", "0.000");
	assert_xpath(fx->xml, "count(//testcase)", "0");
	ts = xpath_str(fx->xml, "string(/testsuite/@timestamp)");
	assert_int_equal(strlen(ts), 19);
	free(ts);
	pg_comparison_release(&c);
}

/* The start time is normalised to UTC without a zone, or replaced by the current time. */
static void test_junit_timestamp(void **state)
{
	static const char *const bad[] = { "garbage", "2026-02-30T10:00:00Z", "2026-11-21 10:22:22",
					   "2026-11-21T10:22:22+2", "" };
	struct pg_fx_compare *fx = *state;
	char *ts;

	free(fx->new.meta.start_time);
	fx->new.meta.start_time = pg_fx_strdup("2026-11-21T12:22:22.123+02:00");
	free(fx->new.meta.host);
	fx->new.meta.host = pg_fx_strdup("  \t ");
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, fx->xml), 0);
	validate(fx->xml);
	assert_xpath(fx->xml, "string(/testsuite/@timestamp)", "2026-11-21T10:22:22");
	assert_xpath(fx->xml, "string(/testsuite/@hostname)", "localhost");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		free(fx->new.meta.start_time);
		fx->new.meta.start_time = pg_fx_strdup(bad[i]);
		assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL,
							fx->xml), 0);
		validate(fx->xml);
		ts = xpath_str(fx->xml, "string(/testsuite/@timestamp)");
		assert_int_equal(strlen(ts), 19);
		assert_string_not_equal(ts, "2026-03-02T10:00:00");
		free(ts);
	}
}

static void test_junit_unwritable(void **state)
{
	struct pg_fx_compare *fx = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing/report.xml", fx->dir);
	assert_true(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, NULL, path) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_junit_valid, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_cause, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_notable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_paired, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_empty, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_timestamp, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_junit_unwritable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
	};
	int ret;

	xmlInitParser();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	return ret;
}
