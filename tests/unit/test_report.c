// SPDX-License-Identifier: MIT
/* Unit tests of reporters/report.c: aggregation over repetitions, sorting, CSV/text/JSON. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../../reporters/report.h"
#include "fixtures.h"

static const uint64_t foo_r0[] = { 100, 200 };
static const uint64_t foo_r1[] = { 10, 20, 30 };
static const uint64_t af_r0[] = { 1000 };
static const uint64_t say_r1[] = { 5000 };
static const uint64_t nl_r1[] = { 7 };

/*
 * foo()          5 calls over both repetitions, total 360, self 260
 * A::f(int, int) 1 call, total 1000 (a comma: quoted in CSV)
 * say "hi"       1 call, total 5000 (quotes), in a binary whose path has a comma
 * two\nlines     1 call, total 7
 * unused         never called: no row
 */
static void make_run(struct pg_run *run)
{
	struct pg_rep *rep;

	pg_run_init(run);
	run->meta.argc = 3;
	run->meta.argv = calloc(3, sizeof(char *));
	assert_non_null(run->meta.argv);
	run->meta.argv[0] = strdup("./bench");
	run->meta.argv[1] = strdup("-n");
	run->meta.argv[2] = strdup("3");
	run->meta.host = strdup("box");
	run->meta.git_commit = strdup("0123456789abcdef0123456789abcdef01234567");
	pg_fx_func(run, "/bin/b", "foo", "foo()", PG_SITE_NOP5);
	pg_fx_func(run, "/bin/b", "_ZN1A1fEii", "A::f(int, int)", PG_SITE_EMULATED);
	pg_fx_func(run, "/opt/a,b/lib.so", "say", "say \"hi\"", PG_SITE_SSTEP);
	pg_fx_func(run, "/bin/b", "unused", NULL, PG_SITE_NOP5);
	pg_fx_func(run, "/bin/b", "nl", "two\nlines", PG_SITE_UNKNOWN);

	rep = pg_run_add_rep(run);
	assert_non_null(rep);
	rep->wall_ns = 2000000;
	rep->exit_code = 0;
	pg_fx_stat(rep, 0, foo_r0, 2)->self_ns -= 100;
	pg_fx_stat(rep, 1, af_r0, 1);

	rep = pg_run_add_rep(run);
	assert_non_null(rep);
	rep->wall_ns = 4000000;
	rep->exit_code = 0;
	pg_fx_stat(rep, 0, foo_r1, 3);
	pg_fx_stat(rep, 2, say_r1, 1);
	pg_fx_stat(rep, 4, nl_r1, 1);
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

/* The report as a new string. */
static char *report(const struct pg_run *run, enum pg_report_format fmt)
{
	static char *buf;	/* static: open_memstream() keeps their addresses */
	static size_t size;
	FILE *f = open_memstream(&buf, &size);
	char *s;

	assert_non_null(f);
	assert_int_equal(pg_report_write(run, fmt, f), 0);
	assert_int_equal(fclose(f), 0);
	s = buf;
	buf = NULL;
	return s;
}

/* Quantile @q of @n values as the report should print it ("%.1f" of the histogram's). */
static const char *quantile(const uint64_t *v, size_t n, double q)
{
	static char buf[8][32];
	static int next;
	struct pg_hist h = PG_HIST_INIT;
	char *s = buf[next++ % 8];

	for (size_t i = 0; i < n; i++)
		assert_int_equal(pg_hist_record(&h, v[i]), 0);
	snprintf(s, 32, "%.1f", pg_hist_quantile(&h, q));
	pg_hist_release(&h);
	return s;
}

static void test_format_parse(void **state)
{
	enum pg_report_format f = PG_REPORT_JSON;

	assert_int_equal(pg_report_format_parse("text", &f), 0);
	assert_int_equal(f, PG_REPORT_TEXT);
	assert_int_equal(pg_report_format_parse("csv", &f), 0);
	assert_int_equal(f, PG_REPORT_CSV);
	assert_int_equal(pg_report_format_parse("json", &f), 0);
	assert_int_equal(f, PG_REPORT_JSON);
	assert_int_equal(pg_report_format_parse("xml", &f), -EINVAL);
	assert_int_equal(pg_report_format_parse("CSV", &f), -EINVAL);
	assert_int_equal(pg_report_format_parse("", &f), -EINVAL);
	assert_int_equal(pg_report_format_parse(NULL, &f), -EINVAL);
	assert_int_equal(f, PG_REPORT_JSON);
}

static void test_csv(void **state)
{
	static const uint64_t foo_all[] = { 100, 200, 10, 20, 30 };
	struct pg_run run;
	char *out, *want;

	make_run(&run);
	out = report(&run, PG_REPORT_CSV);
	/* sorted by total: say 5000, A::f 1000, foo 360, two lines 7 */
	assert_true(asprintf(&want,
		"function,binary,calls,total_ns,self_ns,mean_ns,p50_ns,p90_ns,p99_ns,min_ns,max_ns,"
		"site,raw_total_ns,raw_self_ns,overhead_ns\n"
		"\"say \"\"hi\"\"\",\"/opt/a,b/lib.so\",1,5000,5000,5000.0,%s,%s,%s,5000,5000,"
		"sstep,5000,5000,0\n"
		"\"A::f(int, int)\",/bin/b,1,1000,1000,1000.0,%s,%s,%s,1000,1000,emulated,"
		"1000,1000,0\n"
		"foo(),/bin/b,5,360,260,72.0,30.0,%s,%s,10,200,nop5,360,260,0\n"
		"\"two\nlines\",/bin/b,1,7,7,7.0,7.0,7.0,7.0,7,7,unknown,7,7,0\n",
		quantile(say_r1, 1, 0.5), quantile(say_r1, 1, 0.9), quantile(say_r1, 1, 0.99),
		quantile(af_r0, 1, 0.5), quantile(af_r0, 1, 0.9), quantile(af_r0, 1, 0.99),
		quantile(foo_all, 5, 0.9), quantile(foo_all, 5, 0.99)) > 0);
	assert_string_equal(out, want);
	/* percentiles from the merged histograms, within a bucket of the true values */
	assert_string_equal(quantile(foo_all, 5, 0.5), "30.0");
	assert_true(atof(quantile(say_r1, 1, 0.5)) >= 4992 &&
		    atof(quantile(say_r1, 1, 0.5)) < 5056);
	free(out);
	free(want);
	pg_run_release(&run);
}

static void test_csv_ties_and_empty(void **state)
{
	struct pg_run run;
	struct pg_rep *rep;
	static const uint64_t v[] = { 50 };
	char *out;

	/* no repetitions: the header only */
	pg_run_init(&run);
	run.meta.argc = 1;
	run.meta.argv = calloc(1, sizeof(char *));
	run.meta.argv[0] = strdup("true");
	pg_fx_func(&run, "/bin/b", "zed", NULL, PG_SITE_NOP5);
	pg_fx_func(&run, "/bin/b", "alpha", NULL, PG_SITE_NOP5);
	out = report(&run, PG_REPORT_CSV);
	assert_string_equal(out, "function,binary,calls,total_ns,self_ns,mean_ns,p50_ns,p90_ns,"
			    "p99_ns,min_ns,max_ns,site,raw_total_ns,raw_self_ns,overhead_ns\n");
	free(out);
	out = report(&run, PG_REPORT_TEXT);
	assert_non_null(strstr(out, "0 repetitions"));
	assert_non_null(strstr(out, "no traced function was called"));
	free(out);

	/* equal totals: by name */
	rep = pg_run_add_rep(&run);
	assert_non_null(rep);
	pg_fx_stat(rep, 0, v, 1);
	pg_fx_stat(rep, 1, v, 1);
	out = report(&run, PG_REPORT_CSV);
	assert_non_null(strstr(out, "\nalpha,"));
	assert_true(strstr(out, "\nalpha,") < strstr(out, "\nzed,"));
	free(out);
	pg_run_release(&run);
}

/* Terminal columns from the start of the line that holds @needle up to it. */
static long columns_before(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *p;
	long n = 0;

	assert_non_null(at);
	for (p = at; p > text && p[-1] != '\n'; p--)
		;
	for (; p < at; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	return n;
}

static void test_text(void **state)
{
	struct pg_run run;
	char *out, *say, *af, *foo, *nl;

	make_run(&run);
	out = report(&run, PG_REPORT_TEXT);
	assert_true(!strncmp(out, "perfgate report: ./bench -n 3\n2 repetitions, mean wall time "
			     "3.00 ms on box at commit 0123456789ab\n\n", 97));
	assert_non_null(strstr(out, "calls"));
	assert_non_null(strstr(out, "p99     probes  site      function\n"));
	say = strstr(out, "say \"hi\" [lib.so]\n");	/* several binaries: named */
	af = strstr(out, "A::f(int, int) [b]\n");
	foo = strstr(out, "foo() [b]\n");
	nl = strstr(out, "two?lines [b]\n");		/* control characters made harmless */
	assert_non_null(say);
	assert_non_null(af);
	assert_non_null(foo);
	assert_non_null(nl);
	assert_true(say < af && af < foo && foo < nl);
	assert_null(strstr(out, "unused"));
	/* human units */
	assert_non_null(strstr(out, "5.00 us"));	/* total of say */
	assert_non_null(strstr(out, "360 ns"));			/* total of foo */
	assert_non_null(strstr(out, "72.0 ns"));		/* mean of foo */
	/* aligned: the function column starts at the same display column on every line */
	assert_int_equal(columns_before(out, "function\n"), columns_before(out, "say \"hi\""));
	assert_int_equal(columns_before(out, "function\n"), columns_before(out, "A::f("));
	assert_int_equal(columns_before(out, "function\n"), columns_before(out, "foo()"));
	assert_int_equal(columns_before(out, "function\n"), columns_before(out, "two?lines"));
	free(out);
	pg_run_release(&run);
}

static void test_json(void **state)
{
	struct pg_run run;
	struct json_object *root, *funcs, *f, *v;
	char *out;

	make_run(&run);
	out = report(&run, PG_REPORT_JSON);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "repetitions", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	assert_true(json_object_object_get_ex(root, "functions", &funcs));
	assert_int_equal(json_object_array_length(funcs), 4);
	f = json_object_array_get_idx(funcs, 0);
	assert_true(json_object_object_get_ex(f, "function", &v));
	assert_string_equal(json_object_get_string(v), "say \"hi\"");
	assert_true(json_object_object_get_ex(f, "binary", &v));
	assert_string_equal(json_object_get_string(v), "/opt/a,b/lib.so");
	f = json_object_array_get_idx(funcs, 2);
	assert_true(json_object_object_get_ex(f, "function", &v));
	assert_string_equal(json_object_get_string(v), "foo()");
	assert_true(json_object_object_get_ex(f, "calls", &v));
	assert_int_equal(json_object_get_int64(v), 5);
	assert_true(json_object_object_get_ex(f, "total_ns", &v));
	assert_int_equal(json_object_get_int64(v), 360);
	assert_true(json_object_object_get_ex(f, "self_ns", &v));
	assert_int_equal(json_object_get_int64(v), 260);
	assert_true(json_object_object_get_ex(f, "mean_ns", &v));
	assert_true(json_object_get_double(v) == 72.0);
	assert_true(json_object_object_get_ex(f, "p50_ns", &v));
	assert_true(json_object_get_double(v) == 30.0);
	assert_true(json_object_object_get_ex(f, "p90_ns", &v));
	assert_true(json_object_object_get_ex(f, "p99_ns", &v));
	assert_true(json_object_object_get_ex(f, "min_ns", &v));
	assert_int_equal(json_object_get_int64(v), 10);
	assert_true(json_object_object_get_ex(f, "max_ns", &v));
	assert_int_equal(json_object_get_int64(v), 200);
	assert_true(json_object_object_get_ex(f, "site", &v));
	assert_string_equal(json_object_get_string(v), "nop5");
	json_object_put(root);
	free(out);
	pg_run_release(&run);
}

/*
 * Percentiles of a calibrated run: from raw histograms they are shifted by in_ns of the
 * function's site; compensated histograms (the BPF programs subtracted each call's probe costs)
 * are taken as they are. min and max stay raw, shifted either way.
 */
static void test_percentiles_compensated(void **state)
{
	static const uint64_t all[] = { 100, 200, 10, 20, 30 };	/* foo's, both repetitions */
	struct pg_run run;
	struct json_object *root, *funcs, *f, *v;
	char *out;

	make_run(&run);
	run.calib = (struct pg_calib){ .valid = true, .measured = true,
				       .in_ns = { 0, 4, 0, 0 }, .out_ns = { 0, 1, 0, 0 } };
	for (int comp = 0; comp < 2; comp++) {
		run.hist_compensated = comp;
		out = report(&run, PG_REPORT_JSON);
		root = json_tokener_parse(out);
		assert_non_null(root);
		assert_true(json_object_object_get_ex(root, "functions", &funcs));
		f = json_object_array_get_idx(funcs, 2);
		assert_true(json_object_object_get_ex(f, "function", &v));
		assert_string_equal(json_object_get_string(v), "foo()");	/* nop5: in 4 */
		assert_true(json_object_object_get_ex(f, "p50_ns", &v));
		assert_true(json_object_get_double(v) == (comp ? 30.0 : 26.0));
		assert_true(json_object_object_get_ex(f, "p99_ns", &v));
		assert_true(fabs(json_object_get_double(v) - (atof(quantile(all, 5, 0.99)) -
							     (comp ? 0 : 4))) < 0.051);
		assert_true(json_object_object_get_ex(f, "min_ns", &v));
		assert_int_equal(json_object_get_int64(v), 6);
		assert_true(json_object_object_get_ex(f, "max_ns", &v));
		assert_int_equal(json_object_get_int64(v), 196);
		json_object_put(root);
		free(out);
	}
	pg_run_release(&run);
}

/* @key of the JSON report row of foo(), or NULL when it is null. */
static struct json_object *foo_field(struct json_object *root, const char *key)
{
	struct json_object *funcs, *f = NULL, *v;

	assert_true(json_object_object_get_ex(root, "functions", &funcs));
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		f = json_object_array_get_idx(funcs, i);
		assert_true(json_object_object_get_ex(f, "function", &v));
		if (!strcmp(json_object_get_string(v), "foo()"))
			break;
		f = NULL;
	}
	assert_non_null(f);
	assert_true(json_object_object_get_ex(f, key, &v));
	return v;
}

/*
 * Values compensation took to 0 from measured values above 0 are not printed as 0: "n/a*" with
 * a note in text, empty in CSV, null in JSON. foo() (nop5 site, raw total 360 and self 260 over
 * 5 calls of 10..200 ns in two repetitions) with in_ns 100 per call: total 300 - 200 and
 * 60 - 300 (at least 0) = 100, self 200 - 200 and 0 (unresolved), p50 30 - 100 (unresolved),
 * p99 resolved, min 10 - 100 (unresolved), max 100. With in_ns 1000 nothing is
 * left. Without calibration 0 is a measured 0.
 */
static void test_unresolved(void **state)
{
	static const char *const gone[] = { "total_ns", "self_ns", "mean_ns", "p50_ns", "p90_ns",
					    "p99_ns", "min_ns", "max_ns" };
	struct pg_run run;
	struct json_object *root;
	char *out, *line;

	make_run(&run);
	run.calib = (struct pg_calib){ .valid = true, .in_ns = { 0, 100, 0, 0 } };
	out = report(&run, PG_REPORT_JSON);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_int_equal(json_object_get_int64(foo_field(root, "total_ns")), 100);
	assert_null(foo_field(root, "self_ns"));
	assert_true(json_object_get_double(foo_field(root, "mean_ns")) == 20.0);
	assert_null(foo_field(root, "p50_ns"));
	assert_true(json_object_get_double(foo_field(root, "p99_ns")) > 0);
	assert_null(foo_field(root, "min_ns"));
	assert_int_equal(json_object_get_int64(foo_field(root, "max_ns")), 100);
	assert_int_equal(json_object_get_int64(foo_field(root, "raw_self_ns")), 260);
	json_object_put(root);
	free(out);

	out = report(&run, PG_REPORT_CSV);
	line = strstr(out, "\nfoo(),");
	assert_non_null(line);
	assert_true(!strncmp(line, "\nfoo(),/bin/b,5,100,,20.0,,", 27));
	assert_non_null(strstr(line, ",,100,nop5,360,260,"));
	free(out);

	out = report(&run, PG_REPORT_TEXT);
	line = strstr(out, "foo() [b]\n");
	assert_non_null(line);
	while (line > out && line[-1] != '\n')
		line--;
	assert_true(!strncmp(line, "    5     100 ns       n/a*    20.0 ns       n/a*", 49));
	assert_non_null(strstr(out, "\nn/a*: the probe costs subtracted were as large as what was "
				    "measured or larger"));
	free(out);

	run.calib.in_ns[PG_SITE_NOP5] = 1000;
	out = report(&run, PG_REPORT_JSON);
	root = json_tokener_parse(out);
	assert_non_null(root);
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		assert_null(foo_field(root, gone[i]));
	json_object_put(root);
	free(out);
	out = report(&run, PG_REPORT_TEXT);
	/* every compensated column of foo(); the probes' cost stays (a real estimate) */
	assert_non_null(strstr(out, "    5       n/a*       n/a*       n/a*       n/a*       n/a*"
				    "       n/a*    5.00 us  nop5      foo() [b]\n"));
	free(out);

	/* uncalibrated: what was measured, no note */
	run.calib.valid = false;
	out = report(&run, PG_REPORT_TEXT);
	assert_null(strstr(out, "n/a*"));
	free(out);
	pg_run_release(&run);
}

/* A run that breaks the invariants is refused, not read out of bounds. */
static void test_bad_run(void **state)
{
	struct pg_run run;
	FILE *f = fopen("/dev/null", "w");

	make_run(&run);
	run.reps[1].stats[0].func = 99;
	assert_non_null(f);
	assert_int_equal(pg_report_write(&run, PG_REPORT_CSV, f), -EINVAL);
	fclose(f);
	pg_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_ties_and_empty),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_percentiles_compensated),
		cmocka_unit_test(test_unresolved),
		cmocka_unit_test(test_bad_run),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
