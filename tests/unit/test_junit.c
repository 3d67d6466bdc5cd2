// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_junit.c - the compare writers (reporters/compare_out.h): JUnit XML validated
 * against the Ant JUnit schema, the JSON result read back strictly, the text table, and the
 * shared formatting helpers (reporters/fmt.h).
 *
 * Comparisons are built by hand (pg_comparison_init/release, no pg_compare()). The schema is
 * found at $PERFGATE_SRCDIR/tests/data/JUnit.xsd, PERFGATE_SRCDIR defaulting to "." (the
 * repository root).
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

#include <json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include "../../core/log.h"
#include "../../reporters/compare_out.h"
#include "../../reporters/fmt.h"

#define LONG_NAME_REPEAT 12

struct fixture {
	struct pg_comparison c;
	struct pg_run base, new;
	char dir[64];
	char xml[128], json[128];
	char long_name[1024];
};

static const char special[] = "operator<<(std::ostream&, Foo const&) \"q\" 'x'";
static const char bad_binary[] = "lib\xff\xfe\x01" "bad\xc0\xaf.so";

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	assert_true(!s || d);
	return d;
}

static struct pg_fcmp *add_f(struct pg_comparison *c, const char *bin, const char *name,
			     const char *display, enum pg_verdict v)
{
	struct pg_fcmp *f;

	c->f = realloc(c->f, (c->n + 1) * sizeof(*c->f));
	assert_non_null(c->f);
	f = &c->f[c->n++];
	memset(f, 0, sizeof(*f));
	f->binary = xstrdup(bin);
	f->name = xstrdup(name);
	f->display = xstrdup(display ? display : name);
	f->n_base = f->n_new = 10;
	f->base_ns = f->new_ns = 1000;
	f->base_calls = f->new_calls = 100;
	f->change = 0.001;
	f->ci_lo = -0.01;
	f->ci_hi = 0.012;
	f->p = 0.5;
	f->q = 0.8;
	f->verdict = v;
	return f;
}

static void set_meta(struct pg_run *run, const char *host, const char *commit, const char *start)
{
	static const char *const argv[] = { "./bench", "--size", "big input" };
	struct pg_meta *m = &run->meta;

	pg_run_init(run);
	m->perfgate_version = xstrdup("0.1.0");
	m->argc = 3;
	m->argv = calloc(3, sizeof(char *));
	assert_non_null(m->argv);
	for (int i = 0; i < 3; i++)
		m->argv[i] = xstrdup(argv[i]);
	m->host = xstrdup(host);
	m->git_commit = xstrdup(commit);
	m->start_time = xstrdup(start);
	m->kernel = xstrdup("6.18.0");
	m->repetitions = 10;
	for (int r = 0; r < 10; r++) {
		struct pg_rep *rep = pg_run_add_rep(run);

		assert_non_null(rep);
		rep->wall_ns = 2500000000ull;
	}
}

static void build(struct fixture *fx)
{
	struct pg_comparison *c = &fx->c;
	struct pg_fcmp *f;
	size_t len = 0;

	pg_comparison_init(c);
	c->base_reps = c->new_reps = 10;

	f = add_f(c, "prog", "_ZlsRSoRK3Foo", special, PG_VERDICT_REGRESSION);
	f->base_ns = 1230;
	f->new_ns = 1381;
	f->new_calls = 120;
	f->calls_changed = true;
	f->change = 0.123;
	f->ci_lo = 0.098;
	f->ci_hi = 0.140;
	f->p = 0.0004;
	f->q = 0.0021;
	snprintf(f->reason, sizeof(f->reason), "regression reason, in the JUnit failure only");

	f = add_f(c, "prog", "fast_path", NULL, PG_VERDICT_IMPROVEMENT);
	f->base_ns = 5e6;
	f->new_ns = 4e6;
	f->change = -0.2;
	f->ci_lo = -0.25;
	f->ci_hi = -0.15;
	f->p = 0.0002;
	f->q = 0.001;

	f = add_f(c, "libfoo.so", "tiny", NULL, PG_VERDICT_INCONCLUSIVE);
	f->n_base = f->n_new = 3;
	f->change = 0.02;
	f->ci_lo = -INFINITY;
	f->ci_hi = INFINITY;
	f->p = 0.4;
	f->q = NAN;
	snprintf(f->reason, sizeof(f->reason), "too few repetitions with calls: 3 < 5");

	f = add_f(c, "prog", "new_func", NULL, PG_VERDICT_ADDED);
	f->n_base = 0;
	f->base_ns = NAN;
	f->base_calls = 0;
	f->calls_changed = true;
	f->change = f->ci_lo = f->ci_hi = f->p = f->q = NAN;
	snprintf(f->reason, sizeof(f->reason), "called only in the new run");

	f = add_f(c, "prog", "old_func", NULL, PG_VERDICT_REMOVED);
	f->n_new = 0;
	f->new_ns = NAN;
	f->new_calls = 0;
	f->calls_changed = true;
	f->change = f->ci_lo = f->ci_hi = f->p = f->q = NAN;

	/* a long C++ name, with runs of whitespace to collapse for xs:token */
	len += snprintf(fx->long_name, sizeof(fx->long_name), "ns::Tmpl<\tstd::map<int,  int> ");
	for (int i = 0; i < LONG_NAME_REPEAT; i++)
		len += snprintf(fx->long_name + len, sizeof(fx->long_name) - len,
				", std::vector<long>");
	snprintf(fx->long_name + len, sizeof(fx->long_name) - len, ">::run(int) const");
	add_f(c, bad_binary, "_ZN2ns4TmplIJEE3runEi", fx->long_name, PG_VERDICT_UNCHANGED);

	c->ntested = 4;
	c->nregressions = c->nimprovements = c->ninconclusive = 1;
	c->nadded = c->nremoved = c->nunchanged = 1;
	c->overall = PG_OVERALL_REGRESSION;

	c->wall.binary = xstrdup("[wall]");
	c->wall.name = xstrdup("[wall]");
	c->wall.display = xstrdup("[wall]");
	c->wall.n_base = c->wall.n_new = 10;
	c->wall.base_ns = 2.5e9;
	c->wall.new_ns = 2.55e9;
	c->wall.change = 0.02;
	c->wall.ci_lo = -0.01;
	c->wall.ci_hi = 0.05;
	c->wall.p = 0.3;
	c->wall.q = NAN;

	c->nwarnings = 1;
	c->warnings = calloc(1, sizeof(char *));
	assert_non_null(c->warnings);
	c->warnings[0] = xstrdup("the runs come from different hosts: ci-1 and ci-2 <&>");

	set_meta(&fx->base, "ci-1", "0123456789abcdef0123456789abcdef01234567",
		 "2026-11-20T09:00:00Z");
	set_meta(&fx->new, "ci-2", "fedcba9876543210fedcba9876543210fedcba98",
		 "2026-11-21T10:22:22Z");
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	build(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/pg_test_junit.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->xml, sizeof(fx->xml), "%s/report.xml", fx->dir);
	snprintf(fx->json, sizeof(fx->json), "%s/compare.json", fx->dir);
	pg_log_set_level(PG_LOG_ERROR);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->xml);
	unlink(fx->json);
	/* fails (and the test with it) if a writer left a temporary file behind */
	if (rmdir(fx->dir))
		return -1;
	pg_comparison_release(&fx->c);
	pg_run_release(&fx->base);
	pg_run_release(&fx->new);
	free(fx);
	return 0;
}

/* ---- JUnit ---- */

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

static void test_junit_valid(void **state)
{
	struct fixture *fx = *state;
	const char *x = fx->xml;
	char *s;

	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, x), 0);
	validate(x);

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
	assert_xpath(x, "string(/testsuite/testcase[1]/@name)", special);
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
			 "perfgate: REGRESSION in 1 function(s)");
	assert_xpath_has(x, "string(/testsuite/system-err)", "ci-1 and ci-2 <&>");
}

/* Nothing to compare, no run metadata: still valid, with the schema's fallbacks. */
static void test_junit_empty(void **state)
{
	struct fixture *fx = *state;
	struct pg_comparison c;
	char *ts;

	pg_comparison_init(&c);
	c.overall = PG_OVERALL_INCONCLUSIVE;
	assert_int_equal(pg_compare_write_junit(&c, NULL, NULL, fx->xml), 0);
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
	struct fixture *fx = *state;
	char *ts;

	free(fx->new.meta.start_time);
	fx->new.meta.start_time = xstrdup("2026-11-21T12:22:22.123+02:00");
	free(fx->new.meta.host);
	fx->new.meta.host = xstrdup("  \t ");
	assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, fx->xml), 0);
	validate(fx->xml);
	assert_xpath(fx->xml, "string(/testsuite/@timestamp)", "2026-11-21T10:22:22");
	assert_xpath(fx->xml, "string(/testsuite/@hostname)", "localhost");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		free(fx->new.meta.start_time);
		fx->new.meta.start_time = xstrdup(bad[i]);
		assert_int_equal(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, fx->xml), 0);
		validate(fx->xml);
		ts = xpath_str(fx->xml, "string(/testsuite/@timestamp)");
		assert_int_equal(strlen(ts), 19);
		assert_string_not_equal(ts, "2026-03-02T10:00:00");
		free(ts);
	}
}

static void test_junit_unwritable(void **state)
{
	struct fixture *fx = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing/report.xml", fx->dir);
	assert_true(pg_compare_write_junit(&fx->c, &fx->base, &fx->new, path) < 0);
	snprintf(path, sizeof(path), "%s/missing/compare.json", fx->dir);
	assert_true(pg_result_write(&fx->c, &fx->base, &fx->new, path) < 0);
}

/* ---- JSON ---- */

static json_object *read_json(const char *path)
{
	json_tokener *tok = json_tokener_new();
	json_object *root;
	char *buf;
	long len;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(tok);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), len);
	buf[len] = '\0';
	fclose(f);
	assert_int_equal(buf[len - 1], '\n');
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, buf, (int)len);
	if (!root)
		fail_msg("%s: %s", path, json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	free(buf);
	return root;
}

/* The member at a dotted path ("counts.regressions", "functions.0.verdict"); must exist. */
static json_object *jget(json_object *o, const char *path)
{
	char buf[256], *save = NULL, *key;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array)) {
			o = json_object_array_get_idx(o, atoi(key));
			if (!o)
				fail_msg("%s: no element %s", path, key);
		} else if (!json_object_object_get_ex(o, key, &o)) {
			fail_msg("%s: no member %s", path, key);
		}
	}
	return o;
}

static void assert_jstr(json_object *root, const char *path, const char *want)
{
	json_object *o = jget(root, path);

	if (!json_object_is_type(o, json_type_string))
		fail_msg("%s: not a string", path);
	assert_string_equal(json_object_get_string(o), want);
}

static void assert_jnum(json_object *root, const char *path, double want)
{
	json_object *o = jget(root, path);

	if (!json_object_is_type(o, json_type_double) && !json_object_is_type(o, json_type_int))
		fail_msg("%s: not a number", path);
	if (fabs(json_object_get_double(o) - want) > 1e-12 * fabs(want))
		fail_msg("%s: got %.17g, want %.17g", path, json_object_get_double(o), want);
}

static void assert_jnull(json_object *root, const char *path)
{
	if (jget(root, path))
		fail_msg("%s: not null", path);
}

static void test_json(void **state)
{
	struct fixture *fx = *state;
	json_object *root, *fn;

	assert_int_equal(pg_result_write(&fx->c, &fx->base, &fx->new, fx->json), 0);
	root = read_json(fx->json);

	assert_jstr(root, "format", "perfgate-compare");
	assert_jnum(root, "version", 1);
	assert_jstr(root, "overall", "regression");
	assert_jstr(root, "overall_reason", "");
	assert_jnum(root, "options.alpha", 0.05);
	assert_jnum(root, "options.min_effect", 0.05);
	assert_jstr(root, "options.metric", "self");
	assert_jnum(root, "options.min_reps", 5);

	assert_jstr(root, "base.command.0", "./bench");
	assert_jstr(root, "base.command.2", "big input");
	assert_jstr(root, "base.host", "ci-1");
	assert_jstr(root, "new.host", "ci-2");
	assert_jstr(root, "new.commit", "fedcba9876543210fedcba9876543210fedcba98");
	assert_jnum(root, "new.repetitions", 10);
	assert_jstr(root, "new.start_time", "2026-11-21T10:22:22Z");

	assert_jnum(root, "counts.functions", 6);
	assert_jnum(root, "counts.tested", 4);
	assert_jnum(root, "counts.regressions", 1);
	assert_jnum(root, "counts.improvements", 1);
	assert_jnum(root, "counts.unchanged", 1);
	assert_jnum(root, "counts.inconclusive", 1);
	assert_jnum(root, "counts.added", 1);
	assert_jnum(root, "counts.removed", 1);
	assert_int_equal(json_object_array_length(jget(root, "warnings")), 1);
	assert_jstr(root, "warnings.0", "the runs come from different hosts: ci-1 and ci-2 <&>");

	assert_jstr(root, "wall.name", "[wall]");
	assert_jnum(root, "wall.new_ns", 2.55e9);
	assert_jnull(root, "wall.q");

	fn = jget(root, "functions");
	assert_int_equal(json_object_array_length(fn), 6);
	assert_jstr(root, "functions.0.binary", "prog");
	assert_jstr(root, "functions.0.name", "_ZlsRSoRK3Foo");
	assert_jstr(root, "functions.0.display", special);
	assert_jstr(root, "functions.0.verdict", "regression");
	assert_jnum(root, "functions.0.n_base", 10);
	assert_jnum(root, "functions.0.base_ns", 1230);
	assert_jnum(root, "functions.0.new_ns", 1381);
	assert_jnum(root, "functions.0.base_calls", 100);
	assert_jnum(root, "functions.0.new_calls", 120);
	assert_true(json_object_get_boolean(jget(root, "functions.0.calls_changed")));
	assert_jnum(root, "functions.0.change", 0.123);
	assert_jnum(root, "functions.0.ci_lo", 0.098);
	assert_jnum(root, "functions.0.ci_hi", 0.140);
	assert_jnum(root, "functions.0.p", 0.0004);
	assert_jnum(root, "functions.0.q", 0.0021);
	assert_jstr(root, "functions.0.reason", "regression reason, in the JUnit failure only");
	assert_jstr(root, "functions.1.verdict", "improvement");

	/* infinities and NAN are null */
	assert_jstr(root, "functions.2.verdict", "inconclusive");
	assert_jnull(root, "functions.2.ci_lo");
	assert_jnull(root, "functions.2.ci_hi");
	assert_jnull(root, "functions.2.q");
	assert_jnum(root, "functions.2.p", 0.4);
	assert_jstr(root, "functions.2.reason", "too few repetitions with calls: 3 < 5");
	assert_jstr(root, "functions.3.verdict", "added");
	assert_jnull(root, "functions.3.base_ns");
	assert_jnull(root, "functions.3.change");
	assert_jnum(root, "functions.3.base_calls", 0);
	assert_jstr(root, "functions.4.verdict", "removed");
	assert_jnull(root, "functions.4.new_ns");

	/* invalid UTF-8 replaced; control characters kept (json-c escapes them) */
	assert_jstr(root, "functions.5.binary", "lib\xef\xbf\xbd\xef\xbf\xbd\x01"
		    "bad\xef\xbf\xbd\xef\xbf\xbd.so");
	assert_jstr(root, "functions.5.display", fx->long_name);
	assert_jstr(root, "functions.5.verdict", "unchanged");
	json_object_put(root);
}

static void test_json_empty(void **state)
{
	struct fixture *fx = *state;
	struct pg_comparison c;
	json_object *root;

	pg_comparison_init(&c);
	c.overall = PG_OVERALL_PASS;
	assert_int_equal(pg_result_write(&c, NULL, NULL, fx->json), 0);
	root = read_json(fx->json);
	assert_jstr(root, "overall", "pass");
	assert_jnull(root, "base.command");
	assert_jnull(root, "new.host");
	assert_jnum(root, "new.repetitions", 0);
	assert_jnull(root, "wall.binary");
	assert_jnull(root, "wall.base_ns");
	assert_int_equal(json_object_array_length(jget(root, "functions")), 0);
	assert_int_equal(json_object_array_length(jget(root, "warnings")), 0);
	json_object_put(root);
	pg_comparison_release(&c);
}

/* ---- text ---- */

static char *text(struct fixture *fx, int verbose)
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

static void test_text(void **state)
{
	struct fixture *fx = *state;
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
	assert_non_null(strstr(s, "inconclusive\n    too few repetitions with calls: 3 < 5\n"));
	l = line_with(s, "inconclusive");
	assert_non_null(strstr(l, "[-inf, +inf]"));
	free(l);
	assert_non_null(strstr(s, "too few repetitions with calls: 3 < 5"));
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
	assert_string_equal(l, "perfgate: REGRESSION in 1 function(s): operator<<(std::ostream&, "
			    "Foo const&) \"q\" 'x'");
	free(l);
	/* the verdict line is the last one */
	assert_non_null(strstr(s, "'x'\n"));
	assert_string_equal(strstr(s, "'x'\n"), "'x'\n");
	free(s);
}

static void test_text_verbose(void **state)
{
	struct fixture *fx = *state;
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
	free(s);
}

static void test_text_verdicts(void **state)
{
	struct fixture *fx = *state;
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

	/* many regressions: the verdict line stays short and says how many it left out */
	fx->c.overall = PG_OVERALL_REGRESSION;
	for (size_t i = 0; i < fx->c.n; i++)
		fx->c.f[i].verdict = PG_VERDICT_REGRESSION;
	fx->c.nregressions = fx->c.n;
	s = text(fx, 0);
	assert_layout(s);
	l = line_with(s, "perfgate: REGRESSION");
	assert_non_null(strstr(l, "perfgate: REGRESSION in 6 function(s): operator<<"));
	assert_non_null(strstr(l, "more)"));
	free(l);
	free(s);
}

/* One binary: no binary column (the header names it), and room for the calls note in the row. */
static void test_text_one_binary(void **state)
{
	struct fixture *fx = *state;
	char *s, *l;

	for (size_t i = 0; i < fx->c.n; i++) {
		free(fx->c.f[i].binary);
		fx->c.f[i].binary = xstrdup("prog");
		free(fx->c.f[i].display);
		fx->c.f[i].display = xstrdup(fx->c.f[i].name);
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

/* ---- formatting helpers ---- */

static void test_fmt(void **state)
{
	char b[PG_FMT_LEN], *s;
	struct pg_meta m = { 0 };
	char *argv[] = { "./a", "it's", "", "x=1" };

	(void)state;
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 3.456), "3.46 ns");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 812.4), "812 ns");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 999.7), "1.00 us");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 45600), "45.6 us");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 2.5e6), "2.50 ms");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 1.2e10), "12.0 s");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), NAN), "-");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), 0.123), "+12.3%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), -0.0001), "+0.0%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), -0.2), "-20.0%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), INFINITY), "+inf");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), NAN), "n/a");
	assert_string_equal(pg_fmt_interval(b, sizeof(b), -INFINITY, 0.5), "[-inf, +50.0%]");
	assert_string_equal(pg_fmt_interval(b, sizeof(b), NAN, NAN), "n/a");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 120), "120");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 12.5), "12.5");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 1234567), "1.23M");
	assert_string_equal(pg_fmt_commit(b, sizeof(b), NULL), "?");

	s = strdup("abcdefghijklmnopqrstuvwxyz");
	pg_fmt_ellipsize(s, 11);
	assert_string_equal(s, "abcd...wxyz");
	pg_fmt_truncate(s, 6);
	assert_string_equal(s, "abc...");
	free(s);

	s = pg_fmt_utf8("a\xc3\xa9\xed\xa0\x80\xf4\x90\x80\x80\x01z\xef\xbf\xbe", true);
	assert_string_equal(s, "a\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "z\xef\xbf\xbd");
	free(s);
	s = pg_fmt_token(" \t a \n\n b  ", "x");
	assert_string_equal(s, "a b");
	free(s);
	s = pg_fmt_token(" \r ", "x");
	assert_string_equal(s, "x");
	free(s);
	s = pg_fmt_ascii("a\xc3\xa9\tb\xff");
	assert_string_equal(s, "a? b?");
	free(s);

	m.argc = 4;
	m.argv = argv;
	s = pg_fmt_command(&m);
	assert_string_equal(s, "./a 'it'\\''s' '' x=1");
	free(s);
	s = pg_fmt_command(NULL);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_junit_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_timestamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_unwritable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_verbose, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_one_binary, setup, teardown),
		cmocka_unit_test(test_fmt),
	};
	int ret;

	xmlInitParser();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	return ret;
}
