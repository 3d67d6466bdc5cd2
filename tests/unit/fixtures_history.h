/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/fixtures_history.h - builders for the history store's cmocka tests
 * (test_history_*.c); include it after fixtures.h. Every builder fails the test with a cmocka
 * assertion instead of returning an error.
 *
 *   struct pg_fx_hdb      a temporary directory and the SQLite file path in it;
 *                         pg_fx_hdb_make() and pg_fx_hdb_remove() (which fails the test when
 *                         something else was left in the directory)
 *   pg_fx_hrun()          a run of /bin/prog whose functions are callers (not leaves: their
 *                         values are exact) of known self times, with noise
 *   pg_fx_hadd()          that run stored as a session; its id
 *   pg_fx_hsteps()        sessions of a function whose level steps up, beside a flat one
 *   pg_fx_hsql()          SQL run on the file, outside any store
 *   pg_fx_hint()          one integer a query returns (-1: no row)
 */
#ifndef PG_TEST_FIXTURES_HISTORY_H
#define PG_TEST_FIXTURES_HISTORY_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../history/db.h"
#include "../../history/record.h"
#include "../../history/store.h"

struct pg_fx_hdb {
	char dir[64];
	char path[128];
};

static inline void pg_fx_hdb_make(struct pg_fx_hdb *h)
{
	snprintf(h->dir, sizeof(h->dir), "/tmp/pg_test_history.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	snprintf(h->path, sizeof(h->path), "%s/h.db", h->dir);
}

static inline void pg_fx_hdb_remove(struct pg_fx_hdb *h)
{
	unlink(h->path);
	assert_int_equal(rmdir(h->dir), 0);
}

/* Run @sql (statements, no rows wanted) on the SQLite file @path, created if missing. */
static inline void pg_fx_hsql(const char *path, const char *sql)
{
	struct hdb *d = hdb_open(path, true);

	assert_non_null(d);
	assert_int_equal(hdb_exec(d, sql), 0);
	hdb_close(d);
}

/* The integer in the first column of the first row of @sql on @path; -1 when no row. */
static inline int64_t pg_fx_hint(const char *path, const char *sql)
{
	struct hdb *d = hdb_open(path, false);
	struct hstmt *st;
	int64_t v = -1;
	int rc;

	assert_non_null(d);
	assert_int_equal(hstmt_prepare(d, sql, &st), 0);
	rc = hstmt_step(st);
	assert_true(rc >= 0);
	if (rc == 1)
		v = hstmt_int(st, 0);
	hstmt_free(st);
	hdb_close(d);
	return v;
}

/*
 * A run of /bin/prog on host "ci-1", commit @commit (may be NULL), started at @time, with
 * @reps repetitions of 1 ms wall time: function names[f] (of /bin/prog) takes self_ns[f] ns of
 * self time a call, twice that inclusive, 10 + f calls a repetition, each repetition's times
 * times about 1 + @noise * N(0, 1) (xorshift from @seed, not 0); NAN: listed, never called.
 * Each has descendants, so its values are exact (no leaf's slowest calls left out).
 */
static inline struct pg_run *pg_fx_hrun(const char *commit, const char *time,
					const char *const *names, const double *self_ns, size_t n,
					size_t reps, double noise, uint64_t seed)
{
	struct pg_run *run = pg_fx_prog_run(names, n, 0);

	run->meta.host = pg_fx_strdup("ci-1");
	run->meta.git_commit = pg_fx_strdup(commit);
	run->meta.start_time = pg_fx_strdup(time);
	run->meta.repetitions = (uint32_t)reps;
	for (size_t r = 0; r < reps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 1000000);

		for (size_t f = 0; f < n; f++) {
			double x = self_ns[f] * (noise ? pg_fx_noise(&seed, noise) : 1);
			struct pg_fstat *st;

			if (isnan(self_ns[f]))
				continue;
			st = pg_fx_stat_each(rep, (uint32_t)f, 10 + f, x, 2 * x);
			st->desc[PG_SITE_NOP5] = st->calls;
		}
	}
	return run;
}

/* pg_fx_hrun()'s run stored in @s as a session of @branch (may be NULL); its id. */
static inline int64_t pg_fx_hadd(struct pg_hstore *s, const char *branch, const char *commit,
				 const char *time, const char *const *names,
				 const double *self_ns, size_t n, size_t reps, double noise,
				 uint64_t seed)
{
	struct pg_run *run = pg_fx_hrun(commit, time, names, self_ns, n, reps, noise, seed);
	struct pg_hrecord rec;
	int64_t id = -1;

	pg_hrecord_init(&rec);
	assert_int_equal(pg_hrecord_from_run(&rec, run, NULL, branch, NULL), 0);
	assert_int_equal(pg_hstore_add(s, &rec, &id), 0);
	assert_true(id > 0);
	pg_hrecord_release(&rec);
	pg_run_free(run);
	return id;
}

/*
 * Sessions @from..@to (exclusive) of branch @branch: commit "cNN" at NN minutes past 10:00 of
 * one day, 6 repetitions of functions f (1000 ns of self time a call before session @at, 1500
 * from it) and g (500 ns), each repetition within about 1% of its level: the step is about a
 * hundred times the spread of a session's median, and g has none.
 */
static inline void pg_fx_hsteps(struct pg_hstore *s, const char *branch, int from, int to,
				int at)
{
	static const char *const names[] = { "f", "g" };

	for (int i = from; i < to; i++) {
		const double t[] = { i < at ? 1000 : 1500, 500 };
		char commit[16], time[32];

		snprintf(commit, sizeof(commit), "c%02d", i);
		snprintf(time, sizeof(time), "2026-11-20T%02d:%02d:00Z", 10 + i / 60, i % 60);
		pg_fx_hadd(s, branch, commit, time, names, t, 2, 6, 0.01, 1000 + (uint64_t)i);
	}
}

#endif
