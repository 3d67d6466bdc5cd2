// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_compare_json.c - the JSON compare writer (reporters/compare_json.c): the
 * result read back strictly (json-c, strict mode, valid UTF-8) and checked member by member.
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

#include <json.h>

#include "../../reporters/compare_out.h"
#include "../../reporters/fmt.h"
#include "fixtures.h"

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
	struct pg_fx_compare *fx = *state;
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
	assert_jstr(root, "functions.0.display", PG_FX_SPECIAL);
	assert_jstr(root, "functions.0.verdict", "regression");
	assert_jnum(root, "functions.0.n_base", 10);
	assert_jnum(root, "functions.0.base_ns", 1230);
	assert_jnum(root, "functions.0.new_ns", 1381);
	assert_jnull(root, "functions.0.judged_on");	/* not blocked: self time only */
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

/* A notable change, the impact fields and the cause: written, and read back the same. */
static void test_json_notable(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_comparison back;
	struct pg_run rb, rn;
	json_object *root;

	pg_fx_compare_notable(fx);
	fx->c.f[1].waker = (struct pg_waker_move){ PG_WOKEN_OTHER, "redis-server", 2e6, 1e7 };
	assert_int_equal(pg_result_write(&fx->c, &fx->base, &fx->new, fx->json), 0);
	root = read_json(fx->json);
	assert_jstr(root, "functions.1.waker.kind", "other");
	assert_jstr(root, "functions.1.waker.comm", "redis-server");
	assert_jnum(root, "functions.1.waker.new_ns", 1e7);
	assert_jnull(root, "functions.2.waker");
	assert_jnum(root, "options.min_impact", 0.001);
	assert_jnum(root, "counts.notable", 1);
	assert_jnum(root, "counts.improvements", 0);
	assert_jstr(root, "functions.1.verdict", "notable");
	assert_jnum(root, "functions.1.impact_ns", -1000);
	assert_jnum(root, "functions.1.impact", -4e-7);
	assert_jnull(root, "functions.1.cause");
	assert_jstr(root, "functions.2.cause", "repetitions");
	json_object_put(root);

	pg_comparison_init(&back);
	pg_run_init(&rb);
	pg_run_init(&rn);
	assert_int_equal(pg_result_read(fx->json, false, &back, &rb, &rn), 0);
	assert_int_equal(back.f[1].verdict, PG_VERDICT_NOTABLE);
	assert_true(back.f[1].impact_ns == -1000 && back.f[1].impact == -4e-7);
	assert_int_equal(back.f[1].waker.kind, PG_WOKEN_OTHER);
	assert_string_equal(back.f[1].waker.comm, "redis-server");
	assert_true(back.f[1].waker.base_ns == 2e6 && back.f[1].waker.new_ns == 1e7);
	assert_int_equal(back.f[2].waker.kind, 0);
	assert_int_equal(back.f[1].cause, PG_CAUSE_NONE);
	assert_int_equal(back.f[2].cause, PG_CAUSE_REPS);
	assert_true(isnan(back.f[3].impact));	/* added: not estimated */
	assert_int_equal(back.nnotable, 1);
	assert_true(back.opts.min_impact == 0.001);
	pg_comparison_release(&back);
	pg_run_release(&rb);
	pg_run_release(&rn);
}

/*
 * The calibration's widening of an interval, written and read back: a number, null when it
 * left an end unbounded (infinite when read), 0 when none.
 */
static void test_json_calib_unc(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_comparison back;
	struct pg_run rb, rn;
	json_object *root;

	fx->c.f[0].calib_unc = 0.25;
	fx->c.f[1].calib_unc = INFINITY;
	assert_int_equal(pg_result_write(&fx->c, &fx->base, &fx->new, fx->json), 0);
	root = read_json(fx->json);
	assert_jnum(root, "functions.0.calib_unc", 0.25);
	assert_jnull(root, "functions.1.calib_unc");
	assert_jnum(root, "functions.2.calib_unc", 0);
	json_object_put(root);

	pg_comparison_init(&back);
	pg_run_init(&rb);
	pg_run_init(&rn);
	assert_int_equal(pg_result_read(fx->json, false, &back, &rb, &rn), 0);
	assert_true(back.f[0].calib_unc == 0.25);
	assert_true(isinf(back.f[1].calib_unc));
	assert_true(back.f[2].calib_unc == 0);
	pg_comparison_release(&back);
	pg_run_release(&rb);
	pg_run_release(&rn);
}

/* A paired comparison: paired, npairs and each function's pairs, written and read back. */
static void test_json_paired(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_comparison back;
	struct pg_run rb, rn;
	json_object *root;

	fx->c.paired = true;
	fx->c.npairs = 12;
	fx->c.f[0].pairs = 10;
	fx->c.wall.pairs = 12;
	fx->c.speed_applied = true;
	fx->c.speed_refs = 7;
	fx->c.speed_spread = 0.04;
	fx->c.speed_shift = -0.01;
	fx->c.speed_p = 0.5;
	assert_int_equal(pg_result_write(&fx->c, &fx->base, &fx->new, fx->json), 0);
	root = read_json(fx->json);
	assert_true(json_object_get_boolean(jget(root, "paired")));
	assert_jnum(root, "npairs", 12);
	assert_true(json_object_get_boolean(jget(root, "speed.applied")));
	assert_jnum(root, "speed.refs", 7);
	assert_jnum(root, "functions.0.pairs", 10);
	assert_jnum(root, "functions.1.pairs", 0);
	assert_jnum(root, "wall.pairs", 12);
	json_object_put(root);

	pg_comparison_init(&back);
	pg_run_init(&rb);
	pg_run_init(&rn);
	assert_int_equal(pg_result_read(fx->json, false, &back, &rb, &rn), 0);
	assert_true(back.paired);
	assert_int_equal(back.npairs, 12);
	assert_true(back.speed_applied);
	assert_int_equal(back.speed_refs, 7);
	assert_true(fabs(back.speed_spread - 0.04) < 1e-12);
	assert_true(fabs(back.speed_shift + 0.01) < 1e-12);
	assert_true(fabs(back.speed_p - 0.5) < 1e-12);
	assert_int_equal(back.f[0].pairs, 10);
	assert_int_equal(back.wall.pairs, 12);
	pg_comparison_release(&back);
	pg_run_release(&rb);
	pg_run_release(&rn);
}

/*
 * The environment object: both sides' entries (the libraries' among them) and what differs,
 * read back into the runs' metadata; a library of the same version on both sides is no
 * difference.
 */
static void test_json_environment(void **state)
{
	struct pg_fx_compare *fx = *state;
	struct pg_comparison back;
	struct pg_run rb, rn;
	json_object *root, *side, *v;
	char *d;

	assert_int_equal(pg_env_set(&fx->base.meta, "lib.libc.so.6",
				    "libc6:amd64 2.36-9+deb12u4 aa11 /lib/libc.so.6"), 0);
	assert_int_equal(pg_env_set(&fx->new.meta, "lib.libc.so.6",
				    "libc6:amd64 2.36-9+deb12u7 bb22 /lib/libc.so.6"), 0);
	assert_int_equal(pg_env_set(&fx->base.meta, "lib.libm.so.6", "- 1.0 cc33 /lib/libm.so.6"),
			 0);
	assert_int_equal(pg_env_set(&fx->new.meta, "lib.libm.so.6", "- 1.0 cc33 /lib/libm.so.6"),
			 0);
	assert_int_equal(pg_env_set(&fx->base.meta, "os", "Debian 12"), 0);
	assert_int_equal(pg_env_set(&fx->new.meta, "os", "Debian 12"), 0);
	free(fx->new.meta.cpu_model);
	fx->new.meta.cpu_model = strdup("CPU Y");
	free(fx->base.meta.cpu_model);
	fx->base.meta.cpu_model = strdup("CPU X");
	assert_int_equal(pg_result_write(&fx->c, &fx->base, &fx->new, fx->json), 0);
	root = read_json(fx->json);
	side = jget(root, "environment.new");
	assert_true(json_object_object_get_ex(side, "lib.libc.so.6", &v));
	assert_string_equal(json_object_get_string(v), "libc6:amd64 2.36-9+deb12u7 bb22 "
			    "/lib/libc.so.6");
	assert_jstr(root, "environment.base.cpu_model", "CPU X");
	assert_jstr(root, "environment.differences.0", "CPU CPU X -> CPU Y");
	assert_jstr(root, "environment.differences.1",
		    "libc.so.6 2.36-9+deb12u4 -> 2.36-9+deb12u7");
	assert_int_equal(json_object_array_length(jget(root, "environment.differences")), 2);
	json_object_put(root);

	pg_comparison_init(&back);
	pg_run_init(&rb);
	pg_run_init(&rn);
	assert_int_equal(pg_result_read(fx->json, false, &back, &rb, &rn), 0);
	assert_string_equal(pg_env_get(&rn.meta, "lib.libc.so.6"),
			    "libc6:amd64 2.36-9+deb12u7 bb22 /lib/libc.so.6");
	assert_string_equal(rb.meta.cpu_model, "CPU X");
	assert_true(pg_env_valid(rn.meta.env, rn.meta.nenv));
	d = pg_fmt_env_diff(&rb.meta, &rn.meta);
	assert_string_equal(d, "the two sides differ: CPU CPU X -> CPU Y; libc.so.6 "
			    "2.36-9+deb12u4 -> 2.36-9+deb12u7");
	free(d);
	pg_comparison_release(&back);
	pg_run_release(&rb);
	pg_run_release(&rn);
}

static void test_json_empty(void **state)
{
	struct pg_fx_compare *fx = *state;
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

static void test_json_unwritable(void **state)
{
	struct pg_fx_compare *fx = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing/compare.json", fx->dir);
	assert_true(pg_result_write(&fx->c, &fx->base, &fx->new, path) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_notable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_calib_unc, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_paired, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_environment, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_empty, pg_fx_compare_setup,
						pg_fx_compare_teardown),
		cmocka_unit_test_setup_teardown(test_json_unwritable, pg_fx_compare_setup,
						pg_fx_compare_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
