// SPDX-License-Identifier: MIT
/*
 * history/prune.c - removing old sessions, every row of them, in one transaction (store.h,
 * pg_hstore_prune()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "db.h"
#include "store.h"

/* The tables that hold a session's rows, the session itself last */
static const char *const session_tables[] = { "series", "point", "summary", "session_env",
						"session" };
#define NTABLES (sizeof(session_tables) / sizeof(session_tables[0]))

void pg_hpruned_release(struct pg_hpruned *p)
{
	pg_hsessions_free(p->removed, p->nremoved);
	memset(p, 0, sizeof(*p));
}

/*
 * Which of v[0..n) (oldest first) go: go[i]. Per branch, from its newest session back: the
 * first @keep stay; the others go when older than @before (or no time limit is set).
 * branch[] and seen[] (n each) are scratch: the branches met so far (few) and how many of
 * each one's sessions.
 */
static size_t decide(const struct pg_hprune *p, const struct pg_hsession *v, size_t n,
		     bool *go, const char **branch, size_t *seen)
{
	size_t k = 0, nb = 0;

	for (size_t i = n; i-- > 0;) {
		size_t b = 0;

		while (b < nb && strcmp(branch[b], v[i].branch))
			b++;
		if (b == nb) {
			branch[nb++] = v[i].branch;
			seen[b] = 0;
		}
		go[i] = (p->keep || p->before) && seen[b] >= p->keep &&
			(!p->before || strcmp(v[i].time, p->before) < 0);
		seen[b]++;
		k += go[i];
	}
	return k;
}

/* Delete session @id's rows from every table. */
static int delete_session(struct hstmt **del, int64_t id)
{
	int err = 0;

	for (size_t t = 0; !err && t < NTABLES; t++) {
		err = hstmt_bind_int(del[t], 1, id) ?: hstmt_step(del[t]);
		hstmt_reset(del[t]);
	}
	return err < 0 ? err : 0;
}

/* The count of rows a statement without parameters returns (its first column's sum). */
static int count_rows(struct hdb *d, const char *sql, int64_t *n)
{
	struct hstmt *st;
	int err = hstmt_prepare(d, sql, &st);

	*n = 0;
	while (!err && (err = hstmt_step(st)) == 1) {
		(*n)++;
		err = 0;
	}
	hstmt_free(st);
	return err;
}

static int remove_all(struct pg_hstore *s, const struct pg_hsession *v, size_t n,
		      const bool *go, struct pg_hpruned *out)
{
	struct hdb *d = pg_hstore_db(s);
	struct hstmt *del[NTABLES] = { NULL }, *cnt = NULL;
	/* objects no series row names any more; SQLite reads series once for NOT IN, PostgreSQL
	 * makes NOT EXISTS an anti-join */
	const char *orphans = hdb_postgres(d) ?
		"DELETE FROM object o WHERE NOT EXISTS (SELECT 1 FROM series x WHERE "
		"x.object_id = o.id) RETURNING id" :
		"DELETE FROM object WHERE id NOT IN (SELECT object_id FROM series) RETURNING id";
	int err = hstmt_prepare(d, "SELECT count(*) FROM series WHERE session_id = ?", &cnt);
	char sql[80];

	for (size_t t = 0; !err && t < NTABLES; t++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s = ?", session_tables[t],
			 t == NTABLES - 1 ? "id" : "session_id");
		err = hstmt_prepare(d, sql, &del[t]);
	}
	for (size_t i = 0; !err && i < n; i++) {
		if (!go[i])
			continue;
		err = hstmt_bind_int(cnt, 1, v[i].id) ?: hstmt_step(cnt);
		out->series_rows += err == 1 ? hstmt_int(cnt, 0) : 0;
		hstmt_reset(cnt);
		err = err < 0 ? err : delete_session(del, v[i].id);
	}
	err = err ?: count_rows(d, orphans, &out->objects);
	err = err ?: hdb_exec(d, "DELETE FROM changes_cache");
	err = err ?: hdb_exec(d, "DELETE FROM changes_alerted WHERE session_id NOT IN "
			      "(SELECT id FROM session)");
	for (size_t t = 0; t < NTABLES; t++)
		hstmt_free(del[t]);
	hstmt_free(cnt);
	return err;
}

/* The removed sessions of v[0..n) into out->removed, moved out of @v (left to be freed). */
static void take_removed(struct pg_hsession *v, size_t n, const bool *go,
			 struct pg_hpruned *out)
{
	for (size_t i = 0; i < n; i++) {
		if (go[i]) {
			out->removed[out->nremoved++] = v[i];
			memset(&v[i], 0, sizeof(v[i]));
		} else {
			out->kept++;
		}
	}
}

int pg_hstore_prune(struct pg_hstore *s, const struct pg_hprune *p, int64_t expect,
		    struct pg_hpruned *out)
{
	struct pg_hsession *v = NULL;
	size_t n = 0, k, *seen = NULL;
	const char **branch = NULL;
	bool *go = NULL;
	int err = pg_hstore_write_begin(s, expect);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	err = pg_hstore_sessions(s, p->branch, &v, &n);
	go = calloc(n + 1, sizeof(*go));
	seen = calloc(n + 1, sizeof(*seen));
	branch = calloc(n + 1, sizeof(*branch));
	out->removed = calloc(n + 1, sizeof(*out->removed));
	if (!err && (!go || !seen || !branch || !out->removed)) {
		pg_err("history: out of memory");
		err = -ENOMEM;
	}
	k = err ? 0 : decide(p, v, n, go, branch, seen);
	/* a dry run removes too, for its counts, then rolls back */
	if (!err && k)
		err = remove_all(s, v, n, go, out);
	if (!err)
		take_removed(v, n, go, out);
	/* a dry run, or nothing to remove: the generation stays as it was */
	if (!err && (p->dry_run || !k))
		hdb_rollback(pg_hstore_db(s));
	else if (!err)
		err = hdb_commit(pg_hstore_db(s));
	if (err) {
		hdb_rollback(pg_hstore_db(s));
		pg_hpruned_release(out);
	}
	pg_hsessions_free(v, n);
	free(go);
	free(seen);
	free(branch);
	return err;
}
