// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_codequality.c - the GitLab Code Quality writer (reporters/codequality.c):
 * the file written for the comparison of tests/unit/fixtures.h (struct pg_fx_compare), parsed
 * back with json-c and checked field by field: a finding per regressed and notable function
 * declared under the repository root, at its path relative to the root and its line, with
 * GitLab's required keys and a fingerprint that follows the function, not its numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reporters/compare_out.h"
#include "fixtures.h"

/* The report written to fx->json (a JSON array), parsed. */
static struct json_object *write_read(struct pg_fx_compare *fx, const char *root)
{
	struct json_object *arr;

	assert_int_equal(pg_compare_write_codequality(&fx->c, root, fx->json), 0);
	arr = json_object_from_file(fx->json);
	assert_non_null(arr);
	assert_true(json_object_is_type(arr, json_type_array));
	return arr;
}

static const char *str_at(struct json_object *o, const char *a, const char *b, const char *c)
{
	struct json_object *v = o;

	if (!json_object_object_get_ex(v, a, &v) || (b && !json_object_object_get_ex(v, b, &v)) ||
	    (c && !json_object_object_get_ex(v, c, &v)))
		fail_msg("no %s%s%s%s%s", a, b ? "." : "", b ? b : "", c ? "." : "", c ? c : "");
	return json_object_get_string(v);
}

/* Every finding has exactly GitLab's keys, of their types. */
static void check_shape(struct json_object *f)
{
	static const char *const keys[] = { "description", "check_name", "fingerprint", "severity",
					    "location" };
	struct json_object *loc, *lines, *begin;
	const char *fp = str_at(f, "fingerprint", NULL, NULL);

	assert_int_equal(json_object_object_length(f), 5);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(json_object_object_get_ex(f, keys[i], NULL));
	assert_int_equal(strlen(fp), 32);
	assert_int_equal(strspn(fp, "0123456789abcdef"), 32);
	assert_true(json_object_object_get_ex(f, "location", &loc));
	assert_int_equal(json_object_object_length(loc), 2);
	assert_true(json_object_object_get_ex(loc, "lines", &lines));
	assert_true(json_object_object_get_ex(lines, "begin", &begin));
	assert_true(json_object_is_type(begin, json_type_int));
	assert_true(json_object_get_int(begin) > 0);
}

static void test_codequality_findings(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct json_object *arr, *f;
	char fp[33];

	pg_fx_compare_notable(fx);	/* f[1] fast_path: notable */
	fx->c.f[0].src_file = pg_fx_strdup("/repo/src/parse.c");
	fx->c.f[0].src_line = 42;
	fx->c.f[1].src_file = pg_fx_strdup("/repo/./src/fast.c");
	fx->c.f[1].src_line = 7;
	/* inconclusive: no finding, even with a source line */
	fx->c.f[2].src_file = pg_fx_strdup("/repo/lib/tiny.c");
	fx->c.f[2].src_line = 3;

	arr = write_read(fx, "/repo");
	assert_int_equal(json_object_array_length(arr), 2);
	for (size_t i = 0; i < 2; i++)
		check_shape(json_object_array_get_idx(arr, i));

	/* the regression first: major, at its file relative to the root */
	f = json_object_array_get_idx(arr, 0);
	assert_string_equal(str_at(f, "check_name", NULL, NULL), "perfgate-regression");
	assert_string_equal(str_at(f, "severity", NULL, NULL), "major");
	assert_string_equal(str_at(f, "location", "path", NULL), "src/parse.c");
	assert_string_equal(str_at(f, "location", "lines", "begin"), "42");
	assert_non_null(strstr(str_at(f, "description", NULL, NULL), PG_FX_SPECIAL));
	assert_non_null(strstr(str_at(f, "description", NULL, NULL), "regressed: +12.3% per call"));
	assert_non_null(strstr(str_at(f, "description", NULL, NULL), "[+9.8%, +14.0%]"));
	snprintf(fp, sizeof(fp), "%s", str_at(f, "fingerprint", NULL, NULL));

	/* the notable one: minor, its "./" dropped, says it does not fail */
	f = json_object_array_get_idx(arr, 1);
	assert_string_equal(str_at(f, "check_name", NULL, NULL), "perfgate-notable");
	assert_string_equal(str_at(f, "severity", NULL, NULL), "minor");
	assert_string_equal(str_at(f, "location", "path", NULL), "src/fast.c");
	assert_string_equal(str_at(f, "location", "lines", "begin"), "7");
	assert_non_null(strstr(str_at(f, "description", NULL, NULL), "notable: -20.0% per call"));
	assert_non_null(strstr(str_at(f, "description", NULL, NULL), "does not fail"));
	assert_string_not_equal(str_at(f, "fingerprint", NULL, NULL), fp);
	json_object_put(arr);

	/* the same function, other numbers and another line: the same fingerprint */
	fx->c.f[0].change = 0.5;
	fx->c.f[0].src_line = 50;
	arr = write_read(fx, "/repo/");
	assert_string_equal(str_at(json_object_array_get_idx(arr, 0), "fingerprint", NULL, NULL),
			    fp);
	json_object_put(arr);

	/* declared outside the root (or not known): no finding */
	arr = write_read(fx, "/elsewhere");
	assert_int_equal(json_object_array_length(arr), 0);
	json_object_put(arr);
}

/* No regression and nothing notable: an empty array, still a valid report. */
static void test_codequality_empty(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct json_object *arr;
	char *text = NULL;

	fx->c.f[0].verdict = PG_VERDICT_UNCHANGED;
	arr = write_read(fx, "/");
	assert_int_equal(json_object_array_length(arr), 0);
	json_object_put(arr);
	assert_int_equal(pg_compare_codequality(&fx->c, NULL, &text), 0);
	assert_string_equal(text, "[\n]\n");
	free(text);
}

static void test_codequality_unwritable(void **state)
{
	struct pg_fx_compare *fx = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing/cq.json", fx->dir);
	assert_true(pg_compare_write_codequality(&fx->c, "/", path) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_codequality_findings, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_codequality_empty, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_codequality_unwritable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
