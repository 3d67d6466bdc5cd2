// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_prune.c - pg_hstore_prune() (history/prune.c) on a SQLite file:
 * each branch's newest sessions kept, every row of the others removed from every table with
 * the objects no session holds and the change points' cache, in one write that counts one
 * generation; a dry run and a stale generation change nothing; a time limit alone, and with
 * a count (both must agree).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "fixtures_history.h"

static int64_t generation(const char *path)
{
	return pg_fx_hint(path, "SELECT CAST(value AS INTEGER) FROM perfgate_history WHERE "
			  "key = 'generation'");
}

/* Rows of a session's tables whose session is gone (none after a prune) */
static int64_t orphan_rows(const char *path)
{
	return pg_fx_hint(path, "SELECT (SELECT count(*) FROM series WHERE session_id NOT IN"
			  " (SELECT id FROM session)) + (SELECT count(*) FROM point WHERE"
			  " session_id NOT IN (SELECT id FROM session)) + (SELECT count(*) FROM"
			  " summary WHERE session_id NOT IN (SELECT id FROM session))");
}

/* main: c00..c07 (f and g); dev: c00..c02; old: one earlier session with function "gone" */
static void fill(struct pg_fx_hdb *h)
{
	static const char *const names[] = { "gone" };
	static const double t[] = { 300 };
	struct pg_hstore *s;

	pg_fx_hdb_make(h);
	s = pg_hstore_open(h->path, true);
	assert_non_null(s);
	pg_fx_hsteps(s, "main", 0, 8, 100);
	pg_fx_hsteps(s, "dev", 0, 3, 100);
	pg_fx_hadd(s, "old", "c99", "2026-11-19T00:00:00Z", names, t, 1, 3, 0, 1);
	pg_hstore_close(s);
	pg_fx_hsql(h->path, "INSERT INTO changes_cache VALUES('main', 1, x'00')");
	assert_int_equal(generation(h->path), 12);
}

static void test_keep(void **state)
{
	struct pg_hprune p = { .keep = 2, .dry_run = true };
	struct pg_hsession *v;
	struct pg_hpruned r;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	int64_t series;
	size_t n;

	fill(&h);
	series = pg_fx_hint(h.path, "SELECT count(*) FROM series");
	pg_fx_hsql(h.path, "INSERT INTO session_env SELECT id, 'kernel', '6.1.0' FROM session");
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	/* dry: the counts, nothing removed, no generation counted */
	assert_int_equal(pg_hstore_prune(s, &p, -1, &r), 0);
	assert_int_equal(r.nremoved, 7);
	assert_int_equal(r.kept, 5);
	assert_int_equal(r.series_rows, 7 * 3);
	assert_int_equal(r.objects, 0);
	assert_string_equal(r.removed[0].commit, "c00");
	pg_hpruned_release(&r);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), series);
	assert_int_equal(generation(h.path), 12);
	/* another writer came between: nothing */
	p.dry_run = false;
	assert_int_equal(pg_hstore_prune(s, &p, 11, &r), -ESTALE);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session"), 12);
	assert_int_equal(pg_hstore_prune(s, &p, 12, &r), 0);
	assert_int_equal(r.nremoved, 7);
	pg_hpruned_release(&r);
	assert_int_equal(generation(h.path), 13);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session"), 5);
	assert_int_equal(orphan_rows(h.path), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session_env"), 5);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), series - 7 * 3);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM point"), 4 * 3 + 2);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM changes_cache"), 0);
	/* each branch's newest: main's c06 and c07 */
	assert_int_equal(pg_hstore_sessions(s, "main", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].commit, "c06");
	assert_string_equal(v[1].commit, "c07");
	pg_hsessions_free(v, n);
	/* nothing left to remove: no write */
	assert_int_equal(pg_hstore_prune(s, &p, -1, &r), 0);
	assert_int_equal(r.nremoved, 0);
	pg_hpruned_release(&r);
	assert_int_equal(generation(h.path), 13);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

static void test_time(void **state)
{
	struct pg_hprune p = { .before = "2026-11-20T10:05:00Z" };
	struct pg_hpruned r;
	struct pg_fx_hdb h;
	struct pg_hstore *s;

	fill(&h);
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	/* one branch, both limits: dev's c00..c02 are older, but two are its newest */
	p.branch = "dev";
	p.keep = 2;
	assert_int_equal(pg_hstore_prune(s, &p, -1, &r), 0);
	assert_int_equal(r.nremoved, 1);
	assert_int_equal(r.kept, 2);
	assert_string_equal(r.removed[0].branch, "dev");
	pg_hpruned_release(&r);
	/* the time alone, every branch: main's c00..c04, dev's other two, old's, and "gone" */
	p.branch = NULL;
	p.keep = 0;
	assert_int_equal(pg_hstore_prune(s, &p, -1, &r), 0);
	assert_int_equal(r.nremoved, 5 + 2 + 1);
	assert_int_equal(r.objects, 1);
	pg_hpruned_release(&r);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM object WHERE name = 'gone'"), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session WHERE branch = 'main' "
				    "AND commit_id >= 'c05'"), 3);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session"), 3);
	assert_int_equal(orphan_rows(h.path), 0);
	assert_int_equal(generation(h.path), 14);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
