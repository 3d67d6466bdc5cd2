// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_analysis.c - what history changes, check and plot compute from a
 * store (history/analysis.h), on SQLite files: the sessions x objects matrix of a metric
 * (values, holes, order, the window of --until and a maximum), the change points of a stepped
 * series, and history check's verdicts against the sessions since the last change point.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "fixtures.h"
#include "fixtures_history.h"
#include "../../history/analysis.h"
#include "../../history/changes_report.h"

/*
 * Five sessions, added out of time order, of f (1000 + 100 * day ns), g (300 ns; not called
 * on day 4), both exact, on days 1..5 of branch main, and one session of branch other.
 */
static struct pg_hstore *five_days(struct pg_fx_hdb *h)
{
	static const char *const names[] = { "f", "g" };
	static const int days[] = { 3, 1, 5, 2, 4 };
	struct pg_hstore *s;

	pg_fx_hdb_make(h);
	s = pg_hstore_open(h->path, true);
	assert_non_null(s);
	for (size_t i = 0; i < 5; i++) {
		const double t[] = { 1000 + 100 * days[i], days[i] == 4 ? NAN : 300 };
		char commit[8], time[32];

		snprintf(commit, sizeof(commit), "c%d", days[i]);
		snprintf(time, sizeof(time), "2026-11-0%dT12:00:00Z", days[i]);
		pg_fx_hadd(s, "main", commit, time, names, t, 2, 5, 0, 1);
	}
	pg_fx_hadd(s, "other", "x1", "2026-11-06T12:00:00Z", names, (double[]){ 7, 7 }, 2, 5, 0,
		   1);
	return s;
}

static double cell(const struct pg_hmatrix *m, long o, size_t s)
{
	assert_true(o >= 0 && (size_t)o < m->nobjects && s < m->nsessions);
	return m->v[(size_t)o * m->nsessions + s];
}

static void test_matrix(void **state)
{
	struct pg_fx_hdb h;
	struct pg_hstore *s = five_days(&h);
	struct pg_hmatrix m;
	long f, g, prog;

	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_SELF, NULL, 0), 0);
	assert_int_equal(m.nsessions, 5);
	assert_int_equal(m.nobjects, 3);
	assert_int_equal(m.metric, PG_HM_SELF);
	f = pg_hmatrix_find(&m, "prog", "f", NULL);
	g = pg_hmatrix_find(&m, "prog", "g", "");
	prog = pg_hmatrix_find(&m, "prog", PG_HPROGRAM, NULL);
	assert_true(f >= 0 && g >= 0 && prog >= 0);
	assert_int_equal(pg_hmatrix_find(&m, "prog", "h", NULL), -1);
	assert_int_equal(pg_hmatrix_find(&m, "other", "f", NULL), -1);
	for (size_t d = 0; d < 5; d++) {
		char commit[8];

		snprintf(commit, sizeof(commit), "c%zu", d + 1);
		/* oldest first, whatever order they were added in */
		assert_string_equal(m.sessions[d].commit, commit);
		assert_true(cell(&m, f, d) == 1000 + 100 * (double)(d + 1));
		if (d == 3)
			assert_true(isnan(cell(&m, g, d)));
		else
			assert_true(cell(&m, g, d) == 300);
		/* the program has wall time, no self time */
		assert_true(isnan(cell(&m, prog, d)));
	}
	pg_hmatrix_release(&m);
	assert_null(m.v);

	/* calls: the mean per repetition; wall: the program's */
	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_CALLS, NULL, 0), 0);
	assert_true(cell(&m, f, 0) == 10 && cell(&m, g, 0) == 11 && isnan(cell(&m, g, 3)));
	pg_hmatrix_release(&m);
	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_WALL, NULL, 0), 0);
	assert_true(cell(&m, prog, 4) == 1000000 && isnan(cell(&m, f, 4)));
	pg_hmatrix_release(&m);

	/* all branches: the other one's session last */
	assert_int_equal(pg_hmatrix_load(&m, s, NULL, PG_HM_SELF, NULL, 0), 0);
	assert_int_equal(m.nsessions, 6);
	assert_true(cell(&m, f, 5) == 7);
	pg_hmatrix_release(&m);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/* --until (a commit's prefix: up to its newest session) and the last @max sessions */
static void test_window(void **state)
{
	struct pg_fx_hdb h;
	struct pg_hstore *s = five_days(&h);
	struct pg_hmatrix m;

	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_SELF, "c3", 0), 0);
	assert_int_equal(m.nsessions, 3);
	assert_string_equal(m.sessions[2].commit, "c3");
	pg_hmatrix_release(&m);
	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_SELF, NULL, 2), 0);
	assert_int_equal(m.nsessions, 2);
	assert_string_equal(m.sessions[0].commit, "c4");
	assert_true(cell(&m, pg_hmatrix_find(&m, "prog", "f", NULL), 0) == 1400);
	pg_hmatrix_release(&m);
	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_SELF, "c4", 2), 0);
	assert_int_equal(m.nsessions, 2);
	assert_string_equal(m.sessions[0].commit, "c3");
	assert_string_equal(m.sessions[1].commit, "c4");
	pg_hmatrix_release(&m);
	assert_int_equal(pg_hmatrix_load(&m, s, "main", PG_HM_SELF, "x1", 0), -ENOENT);
	assert_null(m.sessions);
	assert_int_equal(pg_hmatrix_load(&m, s, "none", PG_HM_SELF, NULL, 0), -ENOENT);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/*
 * The environment either side of f's change point (at c12): nothing printed while the sessions
 * have none (stored before schema 6) or the same; then libc's upgrade at c12, once although
 * two change points start there (f's, and another set's).
 */
static void changes_env(struct pg_hstore *s, const char *path)
{
	const struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	struct pg_hmatrix m;
	struct pg_hchange *ch;
	struct pg_hchanges sets[2];
	char *text = NULL, json[512];
	struct json_object *root, *env;
	size_t n, len;
	FILE *out;

	assert_int_equal(pg_hmatrix_load(&m, s, NULL, PG_HM_SELF, NULL, 0), 0);
	assert_int_equal(pg_hmatrix_changes(&m, &o, NULL, NULL, NULL, &ch, &n), 0);
	sets[0] = (struct pg_hchanges){ .m = &m, .c = ch, .n = n };
	sets[1] = sets[0];
	for (int step = 0; step < 3; step++) {
		if (step == 1)
			pg_fx_hsql(path, "INSERT INTO session_env SELECT id, 'kernel', '6.1.0' "
				   "FROM session");
		if (step == 2)
			pg_fx_hsql(path, "INSERT INTO session_env SELECT id, 'lib.libc.so.6', "
				   "CASE WHEN commit_id < 'c12' "
				   "THEN 'libc6 2.36-9 aa /l/libc.so.6' "
				   "ELSE 'libc6 2.36-10 bb /l/libc.so.6' END FROM session");
		out = open_memstream(&text, &len);
		assert_non_null(out);
		assert_int_equal(pg_hchanges_print_env(sets, 2, s, out), 0);
		assert_int_equal(fclose(out), 0);
		assert_string_equal(text, step < 2 ? "" : "perfgate: the environment changed at "
				    "c12 (after c11): libc.so.6 2.36-9 -> 2.36-10\n");
		free(text);
	}
	/* the JSON: each change point's differences */
	snprintf(json, sizeof(json), "%s.json", path);
	assert_int_equal(pg_hchanges_write_json(sets, 1, &o, s, json), 0);
	root = json_object_from_file(json);
	assert_non_null(root);
	env = json_object_object_get(json_object_array_get_idx(json_object_object_get(root,
				     "changes"), 0), "environment");
	assert_int_equal(json_object_array_length(env), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(env, 0)),
			    "libc.so.6 2.36-9 -> 2.36-10");
	json_object_put(root);
	unlink(json);
	free(ch);
	pg_hmatrix_release(&m);
}

static void test_changes(void **state)
{
	const struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	struct pg_hmatrix m;
	struct pg_hchange *ch;
	size_t n;
	long f;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	pg_fx_hsteps(s, NULL, 0, 20, 12);
	assert_int_equal(pg_hmatrix_load(&m, s, NULL, PG_HM_SELF, NULL, 0), 0);
	f = pg_hmatrix_find(&m, "prog", "f", NULL);
	assert_int_equal(pg_hmatrix_changes(&m, &o, NULL, NULL, NULL, &ch, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ch[0].object, f);
	assert_int_equal(ch[0].session, 12);
	assert_string_equal(m.sessions[ch[0].session].commit, "c12");
	assert_int_equal(ch[0].cp.index, 12);
	assert_true(ch[0].cp.perm_p <= o.max_p);
	free(ch);
	/* only the objects the glob names, by display or symbol name */
	assert_int_equal(pg_hmatrix_changes(&m, &o, "g", NULL, NULL, &ch, &n), 0);
	assert_int_equal(n, 0);
	free(ch);
	assert_int_equal(pg_hmatrix_changes(&m, &o, "[f]", NULL, NULL, &ch, &n), 0);
	assert_int_equal(n, 1);
	free(ch);
	pg_hmatrix_release(&m);
	changes_env(s, h.path);

	/* the step's first session gone: no change point is left */
	assert_int_equal(pg_hmatrix_load(&m, s, NULL, PG_HM_SELF, "c11", 0), 0);
	assert_int_equal(pg_hmatrix_changes(&m, &o, NULL, NULL, NULL, &ch, &n), 0);
	assert_int_equal(n, 0);
	free(ch);
	pg_hmatrix_release(&m);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/* A new session against the sessions since f's change point: f slower, g not. */
static void test_check(void **state)
{
	static const char *const names[] = { "f", "g" };
	const struct pg_cp_opts cpo = PG_CP_OPTS_DEFAULT;
	const struct pg_compare_opts opts = PG_COMPARE_OPTS_DEFAULT;
	struct pg_hbaseline b;
	struct pg_comparison c;
	struct pg_hrecord rec;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	struct pg_run *run;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	pg_fx_hsteps(s, NULL, 0, 20, 12);
	assert_int_equal(pg_hbaseline_load(&b, s, NULL, PG_HM_SELF, NULL), 0);
	assert_int_equal(b.m.nsessions, 20);
	assert_int_equal(b.calls.metric, PG_HM_CALLS);

	/* f 20% slower than its level since c12 (1500), g as it was */
	run = pg_fx_hrun("new", "2026-11-21T00:00:00Z", names, (double[]){ 1800, 500 }, 2, 6,
			 0.01, 77);
	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, NULL, NULL), 0);
	pg_comparison_init(&c);
	assert_int_equal(pg_hcheck(&b, &rec, PG_HM_SELF, &cpo, &opts, &c), 0);
	assert_int_equal(pg_fx_find(&c, "f")->verdict, PG_VERDICT_REGRESSION);
	/* against the 8 sessions since the change, not the 20 */
	assert_true(fabs(pg_fx_find(&c, "f")->change - 0.2) < 0.03);
	assert_true(pg_fx_find(&c, "g")->verdict != PG_VERDICT_REGRESSION &&
		    pg_fx_find(&c, "g")->verdict != PG_VERDICT_IMPROVEMENT);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	pg_comparison_release(&c);
	pg_hrecord_release(&rec);
	pg_run_free(run);
	pg_hbaseline_release(&b);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
