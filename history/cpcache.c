// SPDX-License-Identifier: MIT
/*
 * history/cpcache.c - the change points' cache of history changes (analysis.h): the weak
 * change points of the last scan of a branch and metric (a row of changes_cache each), so that
 * the next scan, after a session was added, searches the new sessions' windows only
 * (pg_changepoints_resume()). The cache is replaced in its own transaction.
 *
 * The blob (changes_cache.data): 'C', 1 (its version); the options the weak change points
 * depend on (window, permutations, stop_after, seed as varints, max_p as a double); the count
 * of sessions and their ids in order (zigzag varint deltas); the count of objects with weak
 * change points, and for each its id, its count, and per change point the session's position
 * (varint), its permutation p and Q-hat (doubles). Anything else is no cache: a full scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "analysis.h"
#include "codec.h"
#include "db.h"

#define CACHE_VERSION 1

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static int encode(const struct pg_hcpcache *c, const struct pg_hmatrix *m,
		  const struct pg_cp_opts *o, uint8_t **blob, size_t *len)
{
	size_t cap = 64 + 10 * m->nsessions, k = 0, nobj = 0;
	uint8_t *b;
	int64_t prev = 0;

	for (size_t i = 0; i < c->nobjects; i++) {
		cap += 20 + 26 * c->obj[i].n;
		nobj += c->obj[i].n > 0;
	}
	b = malloc(cap);
	if (!b)
		return -ENOMEM;
	b[k++] = 'C';
	b[k++] = CACHE_VERSION;
	k += pg_hcodec_put_varint(b + k, o->window);
	k += pg_hcodec_put_varint(b + k, o->max_perms);
	k += pg_hcodec_put_varint(b + k, o->stop_after);
	k += pg_hcodec_put_varint(b + k, o->seed);
	k += pg_hcodec_put_double(b + k, o->max_p);
	k += pg_hcodec_put_varint(b + k, c->nsessions);
	for (size_t i = 0; i < c->nsessions; i++) {
		k += pg_hcodec_put_varint(b + k, zigzag(m->sessions[i].id - prev));
		prev = m->sessions[i].id;
	}
	k += pg_hcodec_put_varint(b + k, nobj);
	for (size_t i = 0; i < c->nobjects; i++) {
		if (!c->obj[i].n)
			continue;
		k += pg_hcodec_put_varint(b + k, (uint64_t)m->ids[i]);
		k += pg_hcodec_put_varint(b + k, c->obj[i].n);
		for (size_t j = 0; j < c->obj[i].n; j++) {
			k += pg_hcodec_put_varint(b + k, c->obj[i].cp[j].index);
			k += pg_hcodec_put_double(b + k, c->obj[i].cp[j].perm_p);
			k += pg_hcodec_put_double(b + k, c->obj[i].cp[j].qhat);
		}
	}
	*blob = b;
	*len = k;
	return 0;
}

void pg_hcpcache_release(struct pg_hcpcache *c)
{
	for (size_t i = 0; c->obj && i < c->nobjects; i++)
		free(c->obj[i].cp);
	free(c->obj);
	memset(c, 0, sizeof(*c));
}

/* The header: the same options, and sessions that are still the first of @m's, in order. */
static int header(const uint8_t *b, size_t len, size_t *at, const struct pg_hmatrix *m,
		  const struct pg_cp_opts *o, size_t *nsessions)
{
	uint64_t w, perms, stop, seed, n, d;
	double max_p;
	int64_t id = 0;

	if (len < 2 || b[0] != 'C' || b[1] != CACHE_VERSION)
		return -EINVAL;
	*at = 2;
	if (pg_hcodec_get_varint(b, len, at, &w) || pg_hcodec_get_varint(b, len, at, &perms) ||
	    pg_hcodec_get_varint(b, len, at, &stop) || pg_hcodec_get_varint(b, len, at, &seed) ||
	    pg_hcodec_get_double(b, len, at, &max_p) || pg_hcodec_get_varint(b, len, at, &n))
		return -EINVAL;
	if (w != o->window || perms != o->max_perms || stop != o->stop_after || seed != o->seed ||
	    max_p != o->max_p || n > m->nsessions)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (pg_hcodec_get_varint(b, len, at, &d))
			return -EINVAL;
		id += unzigzag(d);
		if (id != m->sessions[i].id)
			return -EINVAL;
	}
	*nsessions = n;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The row of object @id in @m, or -1 (@rows: m's ids with their rows, sorted by id). */
static long row_of(const int64_t (*rows)[2], size_t n, int64_t id)
{
	const int64_t (*r)[2] = bsearch(&id, rows, n, sizeof(*rows), cmp_id);

	return r ? (long)(*r)[1] : -1;
}

static int objects(const uint8_t *b, size_t len, size_t at, const struct pg_hmatrix *m,
		   struct pg_hcpcache *c)
{
	int64_t (*rows)[2] = malloc((m->nobjects + 1) * sizeof(*rows));
	uint64_t nobj, id, k, pos;
	int err = rows ? 0 : -ENOMEM;

	for (size_t i = 0; rows && i < m->nobjects; i++) {
		rows[i][0] = m->ids[i];
		rows[i][1] = (int64_t)i;
	}
	if (rows)
		qsort(rows, m->nobjects, sizeof(*rows), cmp_id);
	err = err ?: pg_hcodec_get_varint(b, len, &at, &nobj);
	for (uint64_t i = 0; !err && i < nobj; i++) {
		struct pg_hcpweak *w;
		long r;

		err = pg_hcodec_get_varint(b, len, &at, &id) ?:
		      pg_hcodec_get_varint(b, len, &at, &k);
		r = err ? -1 : row_of((const int64_t (*)[2])rows, m->nobjects, (int64_t)id);
		if (r < 0 || k > c->nsessions || c->obj[r].cp) {
			err = -EINVAL;
			break;
		}
		w = &c->obj[r];
		w->cp = calloc(k + 1, sizeof(*w->cp));
		if (!w->cp) {
			err = -ENOMEM;
			break;
		}
		for (w->n = 0; !err && w->n < k; w->n++) {
			struct pg_cp *cp = &w->cp[w->n];

			err = pg_hcodec_get_varint(b, len, &at, &pos) ?:
			      pg_hcodec_get_double(b, len, &at, &cp->perm_p) ?:
			      pg_hcodec_get_double(b, len, &at, &cp->qhat);
			cp->index = (size_t)pos;
			if (!err && (pos >= c->nsessions || (w->n && pos <= w->cp[w->n - 1].index)))
				err = -EINVAL;
		}
	}
	free(rows);
	return !err && at != len ? -EINVAL : err;
}

/* @c := the cache in the blob, if it applies to @m and @o; else an empty one. */
static int decode(struct pg_hcpcache *c, const uint8_t *b, size_t len,
		  const struct pg_hmatrix *m, const struct pg_cp_opts *o)
{
	size_t at, n;
	int err;

	memset(c, 0, sizeof(*c));
	if (!b || header(b, len, &at, m, o, &n) || !n)
		return 0;
	c->nobjects = m->nobjects;
	c->nsessions = n;
	c->obj = calloc(m->nobjects + 1, sizeof(*c->obj));
	err = c->obj ? objects(b, len, at, m, c) : -ENOMEM;
	if (err)
		pg_hcpcache_release(c);
	return err == -ENOMEM ? err : 0;
}

/* "*" stands for all sessions: no branch is named so (git refuses '*') */
#define ALL_BRANCHES "*"

/* The cache of @branch (NULL: all) and @metric: *@blob (malloc'd; NULL and 0 when none). */
static int cache_get(struct hdb *d, const char *branch, int metric, uint8_t **blob,
		     size_t *len)
{
	struct hstmt *st;
	int err = hstmt_prepare(d, "SELECT data FROM changes_cache WHERE branch = ? AND "
				"metric_id = ?", &st);

	*blob = NULL;
	*len = 0;
	err = err ?: hstmt_bind_text(st, 1, branch ? branch : ALL_BRANCHES) ?:
	      hstmt_bind_int(st, 2, metric);
	err = err ?: hstmt_step(st);
	if (err == 1) {
		size_t n;
		const void *b = hstmt_blob(st, 0, &n);

		*blob = malloc(n + 1);
		if (*blob) {
			memcpy(*blob, b, n);
			*len = n;
		}
		err = 0;
		if (!*blob) {
			pg_err("history: out of memory");
			err = -ENOMEM;
		}
	}
	hstmt_free(st);
	return err;
}

/* The cache of @branch and @metric replaced by b[0..len), in its own transaction. */
static int cache_put(struct hdb *d, const char *branch, int metric, const uint8_t *blob,
		     size_t len)
{
	struct hstmt *st = NULL;
	int err = hdb_begin(d, true);

	err = err ?: hstmt_prepare(d, "INSERT INTO changes_cache VALUES(?, ?, ?) ON CONFLICT"
				   "(branch, metric_id) DO UPDATE SET data = excluded.data", &st);
	err = err ?: hstmt_bind_text(st, 1, branch ? branch : ALL_BRANCHES) ?:
	      hstmt_bind_int(st, 2, metric) ?: hstmt_bind_blob(st, 3, blob, len);
	err = err ?: hstmt_step(st);
	hstmt_free(st);
	err = err < 0 ? err : hdb_commit(d);
	if (err)
		hdb_rollback(d);
	return err;
}

int pg_hmatrix_changes_cached(const struct pg_hmatrix *m, struct pg_hstore *s,
			      const char *branch, const struct pg_cp_opts *o,
			      struct pg_hchange **out, size_t *n)
{
	struct pg_hcpcache prev, next = { 0 };
	uint8_t *blob = NULL;
	size_t len = 0;
	int err = cache_get(pg_hstore_db(s), branch, m->metric, &blob, &len);

	err = err ?: decode(&prev, blob, len, m, o);
	free(blob);
	blob = NULL;
	if (err)
		return err;
	if (prev.nsessions)
		pg_debug("history: %s: resuming from %zu of %zu sessions",
			 pg_hmetric_name(m->metric), prev.nsessions, m->nsessions);
	err = pg_hmatrix_changes(m, o, NULL, &prev, &next, out, n);
	if (!err && encode(&next, m, o, &blob, &len))
		err = -ENOMEM;
	if (!err && cache_put(pg_hstore_db(s), branch, m->metric, blob, len))
		pg_warn("history: the change points' cache could not be stored: the next "
			"history changes computes everything again");
	free(blob);
	pg_hcpcache_release(&prev);
	pg_hcpcache_release(&next);
	return err;
}
