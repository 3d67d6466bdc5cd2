// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_history_store.c - the history store (history/store.h) on a SQLite file: a
 * session from a run stored and read back equal (its metadata, objects, every series and
 * summary), objects shared between sessions, sessions by branch and time, a failed add rolled
 * back; and the series row's blob (history/seriesrow.h) on its own.
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
#include "../../history/codec.h"
#include "../../history/seriesrow.h"

/*
 * A run with a caller and its leaf (total time = self time: stored as an alias), a function
 * called in 4 of its 6 repetitions, calls that vary, the program's wall times; noisy times.
 */
static struct pg_run *mixed_run(void)
{
	static const char *const names[] = { "caller", "leaf", "sometimes" };
	struct pg_run *run = pg_fx_prog_run(names, 3, 0);
	uint64_t seed = 42;

	run->meta.host = pg_fx_strdup("ci-7");
	run->meta.git_commit = pg_fx_strdup("0123456789abcdef0123456789abcdef01234567");
	run->meta.start_time = pg_fx_strdup("2026-11-20T09:00:00Z");
	for (int r = 0; r < 6; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 2000000 + 1000 * (uint64_t)r);
		double t = 1000 * pg_fx_noise(&seed, 0.02);
		struct pg_fstat *st = pg_fx_stat_each(rep, 0, 100 + (uint64_t)r, t, 3 * t);

		st->desc[PG_SITE_NOP5] = st->calls;
		t = 400 * pg_fx_noise(&seed, 0.02);
		pg_fx_stat_each(rep, 1, 50, t, t);
		t = 250 * pg_fx_noise(&seed, 0.02);
		if (r % 3)
			pg_fx_stat_each(rep, 2, 7, t, t);
	}
	return run;
}

/* the values a series comes back as: its blob's, exactly */
static void assert_stored(const double *got, size_t n, const struct pg_hseries *x)
{
	uint8_t *b;
	size_t len, m;
	double *want;

	assert_int_equal(pg_hcodec_encode(x->v, x->n, x->metric == PG_HM_CALLS, &b, &len), 0);
	assert_int_equal(pg_hcodec_decode(b, len, &want, &m), 0);
	assert_int_equal(n, m);
	for (size_t i = 0; i < n; i++) {
		assert_true(got[i] == want[i]);
		/* and within half a step of the value written (codec.h) */
		assert_true(fabs(got[i] / x->v[i] - 1) <= 0.000245);
	}
	free(want);
	free(b);
}

struct summaries {
	int64_t session;
	size_t calls, n;
	int64_t ids[8];
	double v[8];
};

static int take_summary(void *ctx, int64_t session, const int64_t *objects,
			const double *values, size_t n)
{
	struct summaries *s = ctx;

	s->calls++;
	s->session = session;
	assert_true(n <= 8);
	memcpy(s->ids, objects, n * sizeof(*objects));
	memcpy(s->v, values, n * sizeof(*values));
	s->n = n;
	return 0;
}

/* every series and summary of @rec, stored as session @id, read back */
static void assert_series(struct pg_hstore *s, const struct pg_hrecord *rec, int64_t id,
			  const int64_t *ids)
{
	for (size_t i = 0; i < rec->nseries; i++) {
		const struct pg_hseries *x = &rec->series[i];
		double *v;
		size_t n;

		assert_int_equal(pg_hstore_series(s, id, ids[x->object], x->metric, &v, &n), 0);
		assert_int_equal(n, x->n);
		assert_stored(v, n, x);
		free(v);
	}
	for (int m = PG_HM_SELF; m <= PG_HM_MAX; m++) {
		struct summaries got = { 0 };
		size_t k = 0;

		assert_int_equal(pg_hstore_summaries(s, m, take_summary, &got), 0);
		for (size_t i = 0; i < rec->nseries; i++) {
			const struct pg_hseries *x = &rec->series[i];

			if (x->metric != m)
				continue;
			/* sorted by id, as the objects were inserted: in the record's order */
			assert_true(k < got.n);
			assert_int_equal(got.ids[k], ids[x->object]);
			assert_true(got.v[k] == (double)(float)x->summary);
			k++;
		}
		assert_int_equal(got.n, k);
		assert_int_equal(got.calls, k ? 1 : 0);
		if (k)
			assert_int_equal(got.session, id);
	}
}

static void test_roundtrip(void **state)
{
	struct pg_run *run = mixed_run();
	struct pg_hrecord rec;
	struct pg_hsession *ses;
	struct pg_hobject *obj;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	int64_t id, *ids;
	size_t nses, nobj, n;
	double *v, *self;

	pg_fx_hdb_make(&h);
	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, "main", NULL), 0);
	/* the program ('[' sorts before lower case): wall; caller: self, total, calls; leaf: self,
	 * total, calls; sometimes: the same */
	assert_int_equal(rec.nobjects, 4);
	assert_int_equal(rec.nseries, 10);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	assert_int_equal(pg_hstore_add(s, &rec, &id), 0);

	assert_int_equal(pg_hstore_sessions(s, NULL, &ses, &nses), 0);
	assert_int_equal(nses, 1);
	assert_int_equal(ses[0].id, id);
	assert_string_equal(ses[0].commit, rec.commit);
	assert_string_equal(ses[0].branch, "main");
	assert_string_equal(ses[0].time, "2026-11-20T09:00:00Z");
	assert_string_equal(ses[0].host, "ci-7");
	assert_string_equal(ses[0].command, rec.command);
	assert_string_equal(ses[0].command, "/bin/prog");
	assert_int_equal(ses[0].reps, 6);
	pg_hsessions_free(ses, nses);

	assert_int_equal(pg_hstore_objects(s, &obj, &ids, &nobj), 0);
	assert_int_equal(nobj, rec.nobjects);
	for (size_t i = 0; i < nobj; i++) {
		assert_string_equal(obj[i].binary, rec.objects[i].binary);
		assert_string_equal(obj[i].name, rec.objects[i].name);
		assert_string_equal(obj[i].scope, rec.objects[i].scope);
		assert_string_equal(obj[i].display, rec.objects[i].display);
	}
	assert_string_equal(obj[0].name, PG_HPROGRAM);
	assert_series(s, &rec, id, ids);

	/* the leaf's total time is its self time's, stored once */
	assert_int_equal(pg_hstore_series(s, id, ids[2], PG_HM_TOTAL, &v, &n), 0);
	assert_int_equal(pg_hstore_series(s, id, ids[2], PG_HM_SELF, &self, &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(v, self, n * sizeof(*v));
	free(v);
	free(self);
	assert_int_equal(pg_hstore_series(s, id, ids[3], PG_HM_SELF, &v, &n), 0);
	assert_int_equal(n, 4);
	free(v);
	/* what was not stored: no values, no error */
	assert_int_equal(pg_hstore_series(s, id, ids[1], PG_HM_CPU, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(pg_hstore_series(s, id + 1, ids[1], PG_HM_SELF, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), 4);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM summary"), 4);

	pg_hobjects_free(obj, ids, nobj);
	pg_hstore_close(s);
	pg_hrecord_release(&rec);
	pg_run_free(run);
	pg_fx_hdb_remove(&h);
}

/* Sessions of two branches, added out of time order, sharing objects. */
static void test_sessions(void **state)
{
	static const char *const ab[] = { "a", "b" }, *const bc[] = { "b", "c" };
	static const double t[] = { 100, 200 };
	struct pg_hsession *ses;
	struct pg_hobject *obj;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	int64_t s1, s2, s3, *ids, b_id;
	size_t n, nobj;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	s1 = pg_fx_hadd(s, "main", "c2", "2026-11-21T00:00:00Z", ab, t, 2, 3, 0, 1);
	assert_int_equal(pg_hstore_objects(s, &obj, &ids, &nobj), 0);
	assert_int_equal(nobj, 3);
	assert_string_equal(obj[2].name, "b");
	b_id = ids[2];
	pg_hobjects_free(obj, ids, nobj);
	s2 = pg_fx_hadd(s, "main", "c1", "2026-11-20T00:00:00Z", bc, t, 2, 3, 0, 1);
	s3 = pg_fx_hadd(s, NULL, NULL, "2026-11-22T00:00:00Z", ab, t, 2, 3, 0, 1);

	/* a, b, c and the program once each; b keeps its id */
	assert_int_equal(pg_hstore_objects(s, &obj, &ids, &nobj), 0);
	assert_int_equal(nobj, 4);
	assert_string_equal(obj[0].name, PG_HPROGRAM);
	assert_string_equal(obj[1].name, "a");
	assert_string_equal(obj[2].name, "b");
	assert_string_equal(obj[3].name, "c");
	assert_int_equal(ids[2], b_id);
	pg_hobjects_free(obj, ids, nobj);

	/* by time, not as added */
	assert_int_equal(pg_hstore_sessions(s, NULL, &ses, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ses[0].id, s2);
	assert_int_equal(ses[1].id, s1);
	assert_int_equal(ses[2].id, s3);
	assert_null(ses[2].commit);
	assert_string_equal(ses[2].branch, "");
	pg_hsessions_free(ses, n);
	assert_int_equal(pg_hstore_sessions(s, "main", &ses, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ses[0].commit, "c1");
	assert_string_equal(ses[1].commit, "c2");
	pg_hsessions_free(ses, n);
	assert_int_equal(pg_hstore_sessions(s, "none", &ses, &n), 0);
	assert_int_equal(n, 0);
	pg_hstore_close(s);

	/* reopened without create: the same history */
	s = pg_hstore_open(h.path, false);
	assert_non_null(s);
	assert_int_equal(pg_hstore_sessions(s, NULL, &ses, &n), 0);
	assert_int_equal(n, 3);
	pg_hsessions_free(ses, n);
	pg_hstore_close(s);
	pg_fx_hdb_remove(&h);
}

/* An add that fails half-way (an object the schema refuses) leaves nothing behind. */
static void test_rollback(void **state)
{
	static const char *const names[] = { "a", "b" };
	static const double t[] = { 100, 200 };
	struct pg_run *run = pg_fx_hrun("c1", "2026-11-20T00:00:00Z", names, t, 2, 3, 0, 1);
	struct pg_hrecord rec;
	struct pg_hsession *ses;
	struct pg_fx_hdb h;
	struct pg_hstore *s;
	char *display;
	size_t n;

	pg_fx_hdb_make(&h);
	s = pg_hstore_open(h.path, true);
	assert_non_null(s);
	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, NULL, NULL), 0);
	display = rec.objects[2].display;
	rec.objects[2].display = NULL;
	assert_int_equal(pg_hstore_add(s, &rec, NULL), -EIO);
	rec.objects[2].display = display;
	assert_int_equal(pg_hstore_sessions(s, NULL, &ses, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM object"), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), 0);
	/* and the next add lands */
	assert_int_equal(pg_hstore_add(s, &rec, NULL), 0);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM session"), 1);
	assert_int_equal(pg_fx_hint(h.path, "SELECT count(*) FROM series"), 3);
	pg_hstore_close(s);
	pg_hrecord_release(&rec);
	pg_run_free(run);
	pg_fx_hdb_remove(&h);
}

/* The series row's blob: each metric's blob in metric order; an alias followed; corrupt. */
static void test_row(void **state)
{
	struct pg_run *run = mixed_run();
	struct pg_hrecord rec;
	uint8_t *row, *blob;
	size_t at = 0, len, n, blen;
	double *v;

	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, NULL, NULL), 0);
	/* the leaf: self, total, calls (after the program's wall and the caller's three) */
	at = 4;
	assert_int_equal(rec.series[4].object, 2);
	assert_int_equal(pg_hrow_encode(&rec, &at, &row, &len), 0);
	assert_int_equal(at, 7);
	assert_int_equal(row[0], PG_HM_SELF);
	assert_int_equal(pg_hcodec_encode(rec.series[4].v, 6, 0, &blob, &blen), 0);
	assert_int_equal(row[1], blen);
	assert_memory_equal(row + 2, blob, blen);
	free(blob);
	/* total: the alias, two bytes */
	assert_int_equal(row[2 + blen], PG_HM_TOTAL);
	assert_int_equal(row[3 + blen], 2);
	assert_int_equal(row[4 + blen], PG_HCODEC_ALIAS);
	assert_int_equal(row[5 + blen], PG_HM_SELF);
	assert_int_equal(row[6 + blen], PG_HM_CALLS);
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_CALLS, &v, &n), 0);
	assert_int_equal(n, 6);
	assert_true(v[0] == 50);
	free(v);
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_TOTAL, &v, &n), 0);
	assert_int_equal(n, 6);
	assert_stored(v, n, &rec.series[5]);
	free(v);
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_WALL, &v, &n), 0);
	assert_int_equal(n, 0);

	/* an alias to a metric that does not exist, to itself, or to an alias */
	row[5 + blen] = 77;
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_TOTAL, &v, &n), -EINVAL);
	row[5 + blen] = PG_HM_TOTAL;
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_TOTAL, &v, &n), -EINVAL);
	row[5 + blen] = PG_HM_SELF;
	/* a length past the end */
	assert_int_equal(pg_hrow_decode(row, 2 + blen - 1, PG_HM_CALLS, &v, &n), -EINVAL);
	/* a zero length */
	row[1] = 0;
	assert_int_equal(pg_hrow_decode(row, len, PG_HM_CALLS, &v, &n), -EINVAL);
	free(row);
	pg_hrecord_release(&rec);
	pg_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_rollback),
		cmocka_unit_test(test_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
