// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_cpcache.c - the change points' cache of history changes
 * (history/cpcache.c), on SQLite files: a scan stores its weak change points per branch and
 * metric, the next one resumes from them and agrees with a full scan; a cache is read (one
 * planted without the real weak change point hides it) and ignored when it does not apply
 * (other options, sessions inserted before the ones it saw, a blob not of its format).
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
#include "../../history/analysis.h"
#include "../../history/codec.h"

/* windows of 16 sessions: a scan resumed after 48 sessions searches from the 16th on (the
 * last 2 windows of old ones), after the step */
#define WINDOW 16
#define STEP 8
#define OLD 48

static struct pg_cp_opts opts(uint64_t seed)
{
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;

	o.window = WINDOW;
	o.seed = seed;
	return o;
}

/* The cache row of @branch ("*": all) and self time: *@b (malloc'd) and *@len; 0 if none. */
static int get_cache(const char *path, const char *branch, uint8_t **b, size_t *len)
{
	struct hdb *d = hdb_open(path, false);
	struct hstmt *st;
	int rc;

	assert_non_null(d);
	assert_int_equal(hstmt_prepare(d, "SELECT data FROM changes_cache WHERE branch = ? AND "
				       "metric_id = 1", &st), 0);
	assert_int_equal(hstmt_bind_text(st, 1, branch), 0);
	rc = hstmt_step(st);
	assert_true(rc >= 0);
	if (rc) {
		const void *p = hstmt_blob(st, 0, len);

		*b = malloc(*len);
		assert_non_null(*b);
		memcpy(*b, p, *len);
	}
	hstmt_free(st);
	hdb_close(d);
	return rc;
}

static void set_cache(const char *path, const uint8_t *b, size_t len)
{
	struct hdb *d = hdb_open(path, false);
	struct hstmt *st;

	assert_non_null(d);
	assert_int_equal(hstmt_prepare(d, "UPDATE changes_cache SET data = ? WHERE branch = '*' "
				       "AND metric_id = 1", &st), 0);
	assert_int_equal(hstmt_bind_blob(st, 1, b, len), 0);
	assert_int_equal(hstmt_step(st), 0);
	hstmt_free(st);
	hdb_close(d);
}

/* The end of the blob's header (options and sessions) and the count of its sessions. */
static size_t header_end(const uint8_t *b, size_t len, uint64_t *nsessions)
{
	size_t at = 2;
	uint64_t x;
	double d;

	assert_true(len > 2 && b[0] == 'C' && b[1] == 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pg_hcodec_get_varint(b, len, &at, &x), 0);
	assert_int_equal(pg_hcodec_get_double(b, len, &at, &d), 0);
	assert_int_equal(pg_hcodec_get_varint(b, len, &at, nsessions), 0);
	for (uint64_t i = 0; i < *nsessions; i++)
		assert_int_equal(pg_hcodec_get_varint(b, len, &at, &x), 0);
	return at;
}

static uint64_t cached_sessions(const char *path, const char *branch)
{
	uint8_t *b;
	size_t len;
	uint64_t n;

	assert_int_equal(get_cache(path, branch, &b, &len), 1);
	header_end(b, len, &n);
	free(b);
	return n;
}

/* The cache of the current one, its weak change points replaced: f's one at session @pos. */
static void plant(const char *path, int64_t f_id, uint64_t pos)
{
	uint8_t *b, *p;
	size_t len, k;
	uint64_t n;

	assert_int_equal(get_cache(path, "*", &b, &len), 1);
	k = header_end(b, len, &n);
	p = malloc(k + 64);
	assert_non_null(p);
	memcpy(p, b, k);
	k += pg_hcodec_put_varint(p + k, 1);
	k += pg_hcodec_put_varint(p + k, (uint64_t)f_id);
	k += pg_hcodec_put_varint(p + k, 1);
	k += pg_hcodec_put_varint(p + k, pos);
	k += pg_hcodec_put_double(p + k, 0.001);
	k += pg_hcodec_put_double(p + k, 50);
	set_cache(path, p, k);
	free(p);
	free(b);
}

static void assert_same(const struct pg_hchange *a, size_t na, const struct pg_hchange *b,
			size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].object, b[i].object);
		assert_int_equal(a[i].session, b[i].session);
		assert_int_equal(a[i].cp.index, b[i].cp.index);
		assert_true(a[i].cp.perm_p == b[i].cp.perm_p);
		assert_true(a[i].cp.qhat == b[i].cp.qhat);
	}
}

/* Is there a change point of object @o at session @s? */
static bool has(const struct pg_hchange *c, size_t n, size_t o, size_t s)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].object == o && c[i].session == s)
			return true;
	return false;
}

/*
 * The cached scan of @branch's sessions with @seed, checked against a full scan: whether it
 * found f's step at session @at (a full scan always does; when the cached one does too, the
 * two agree in every change point). The count of sessions into *@nsessions.
 */
static bool scan(struct pg_hstore *s, const char *branch, uint64_t seed, size_t at,
		 size_t *nsessions)
{
	const struct pg_cp_opts o = opts(seed);
	struct pg_hchange *c, *full;
	struct pg_hmatrix m;
	size_t n, nfull;
	bool step;
	long f;

	assert_int_equal(pg_hmatrix_load(&m, s, branch, PG_HM_SELF, NULL, 0), 0);
	f = pg_hmatrix_find(&m, "prog", "f", NULL);
	assert_int_equal(pg_hmatrix_changes_cached(&m, s, branch, &o, &c, &n), 0);
	assert_int_equal(pg_hmatrix_changes(&m, &o, NULL, NULL, NULL, &full, &nfull), 0);
	assert_true(has(full, nfull, (size_t)f, at));
	step = has(c, n, (size_t)f, at);
	if (step)
		assert_same(c, n, full, nfull);
	*nsessions = m.nsessions;
	free(c);
	free(full);
	pg_hmatrix_release(&m);
	return step;
}

static struct pg_hstore *old_sessions(struct pg_fx_hdb *h, int64_t *f_id)
{
	struct pg_hstore *s;
	struct pg_hobject *obj;
	int64_t *ids;
	size_t n;

	pg_fx_hdb_make(h);
	s = pg_hstore_open(h->path, true);
	assert_non_null(s);
	pg_fx_hsteps(s, NULL, 0, OLD, STEP);
	assert_int_equal(pg_hstore_objects(s, &obj, &ids, &n), 0);
	assert_string_equal(obj[1].name, "f");
	*f_id = ids[1];
	pg_hobjects_free(obj, ids, n);
	return s;
}

/*
 * Scanned with seed 1 (the step at session @at), then f's weak change points in the cache
 * replaced by a false one at session 12: after the step, before the resumed windows.
 */
static void scan_and_plant(struct pg_hstore *s, const char *path, int64_t f_id, size_t at)
{
	size_t n;

	assert_true(scan(s, NULL, 1, at, &n));
	plant(path, f_id, 12);
}

/* Stored per branch and metric, resumed after an add, agreeing with a full scan. */
static void test_kept(void **state)
{
	struct pg_fx_hdb h;
	int64_t f_id;
	struct pg_hstore *s = old_sessions(&h, &f_id);
	uint8_t *b;
	size_t len, n;

	assert_int_equal(get_cache(h.path, "*", &b, &len), 0);
	assert_true(scan(s, NULL, 1, STEP, &n));
	assert_int_equal(cached_sessions(h.path, "*"), OLD);
	pg_fx_hsteps(s, NULL, OLD, OLD + 2, STEP);
	assert_true(scan(s, NULL, 1, STEP, &n));
	assert_int_equal(n, OLD + 2);
	assert_int_equal(cached_sessions(h.path, "*"), OLD + 2);
	/* a branch's own row beside it: main's 12 sessions step at their 7th */
	pg_fx_hsteps(s, "main", 44, 56, 50);
	assert_int_equal(get_cache(h.path, "main", &b, &len), 0);
	assert_true(scan(s, "main", 1, 6, &n));
	assert_int_equal(n, 12);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM changes_cache"), 2);
	assert_int_equal(cached_sessions(h.path, "main"), 12);
	assert_int_equal(cached_sessions(h.path, "*"), OLD + 2);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/*
 * A cache is read: one whose only weak change point of f is a false one, far from the new
 * sessions, hides the step from the resumed scan, which searches only the new windows; then it
 * is replaced by the resumed scan's.
 */
static void test_used(void **state)
{
	struct pg_fx_hdb h;
	int64_t f_id;
	struct pg_hstore *s = old_sessions(&h, &f_id);
	size_t n;

	scan_and_plant(s, h.path, f_id, STEP);
	pg_fx_hsteps(s, NULL, OLD, OLD + 1, STEP);
	assert_false(scan(s, NULL, 1, STEP, &n));
	assert_int_equal(cached_sessions(h.path, "*"), OLD + 1);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/* The same planted cache ignored where it does not apply: the step is found. */
static void test_invalidated(void **state)
{
	static const char *const names[] = { "f", "g" };
	struct pg_fx_hdb h;
	int64_t f_id;
	struct pg_hstore *s = old_sessions(&h, &f_id);
	size_t n;

	/* other options */
	scan_and_plant(s, h.path, f_id, STEP);
	pg_fx_hsteps(s, NULL, OLD, OLD + 1, STEP);
	assert_true(scan(s, NULL, 2, STEP, &n));

	/* a session older than those the cache saw: the step moves one session on */
	scan_and_plant(s, h.path, f_id, STEP);
	pg_fx_hadd(s, NULL, "old", "2026-11-19T00:00:00Z", names, (double[]){ 1000, 500 }, 2, 6,
		   0.01, 5);
	assert_true(scan(s, NULL, 1, STEP + 1, &n));
	assert_int_equal(n, OLD + 2);
	assert_int_equal(cached_sessions(h.path, "*"), OLD + 2);

	/* a blob of another format: ignored, then replaced */
	set_cache(h.path, (const uint8_t *)"X", 1);
	pg_fx_hsteps(s, NULL, OLD + 1, OLD + 2, STEP);
	assert_true(scan(s, NULL, 1, STEP + 1, &n));
	assert_int_equal(cached_sessions(h.path, "*"), OLD + 3);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_used),
		cmocka_unit_test(test_invalidated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
