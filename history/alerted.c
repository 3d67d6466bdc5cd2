// SPDX-License-Identifier: MIT
/*
 * history/alerted.c - the change points already alerted on (alerted.h), in the
 * changes_alerted table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "alerted.h"
#include "db.h"
#include "schema.h"

/* "*" stands for all sessions, as in the change points' cache: no branch is named so */
#define ALL_BRANCHES "*"

/* Position of session @id in @m, or -1 (a pruned session, or one of another branch). */
static long session_pos(const struct pg_hmatrix *m, int64_t id)
{
	for (size_t i = 0; i < m->nsessions; i++)
		if (m->sessions[i].id == id)
			return (long)i;
	return -1;
}

/* Is change point @c of @h within PG_HALERT_SHIFT sessions of a row that @sel returns? */
static int known(struct hstmt *sel, const struct pg_hchanges *h, const struct pg_hchange *c,
		 const char *branch, bool *yes)
{
	int err = hstmt_bind_text(sel, 1, branch) ?: hstmt_bind_int(sel, 2, h->m->metric) ?:
		  hstmt_bind_int(sel, 3, h->m->ids[c->object]);

	*yes = false;
	while (!err && (err = hstmt_step(sel)) == 1) {
		long pos = session_pos(h->m, hstmt_int(sel, 0));

		err = 0;
		if (pos >= 0 && labs(pos - (long)c->session) <= PG_HALERT_SHIFT)
			*yes = true;
	}
	hstmt_reset(sel);
	return err;
}

static int mark(struct hdb *d, const char *branch, const struct pg_hchanges *sets, size_t n,
		bool **fresh, size_t *nfresh)
{
	struct hstmt *sel = NULL, *ins = NULL;
	int err = hstmt_prepare(d, "SELECT session_id FROM changes_alerted WHERE branch = ? AND "
				"metric_id = ? AND object_id = ?", &sel) ?:
		  hstmt_prepare(d, "INSERT INTO changes_alerted VALUES(?, ?, ?, ?) ON CONFLICT DO "
				"NOTHING", &ins);

	for (size_t s = 0; !err && s < n; s++) {
		for (size_t i = 0; !err && i < sets[s].n; i++) {
			const struct pg_hchange *c = &sets[s].c[i];
			bool yes = false;

			if (!pg_hchange_regression(&sets[s], c))
				continue;
			err = known(sel, &sets[s], c, branch, &yes);
			if (err || yes)
				continue;
			err = hstmt_bind_text(ins, 1, branch) ?:
			      hstmt_bind_int(ins, 2, sets[s].m->metric) ?:
			      hstmt_bind_int(ins, 3, sets[s].m->ids[c->object]) ?:
			      hstmt_bind_int(ins, 4, sets[s].m->sessions[c->session].id) ?:
			      hstmt_step(ins);
			hstmt_reset(ins);
			err = err < 0 ? err : 0;
			fresh[s][i] = !err;
			*nfresh += !err;
		}
	}
	hstmt_free(sel);
	hstmt_free(ins);
	return err;
}

int pg_halerted_mark(struct pg_hstore *st, const char *branch, const struct pg_hchanges *sets,
		     size_t n, bool **fresh, size_t *nfresh)
{
	struct hdb *d = pg_hstore_db(st);
	int err = hdb_begin(d, true);

	/* two scans at once on PostgreSQL: one at a time, the second sees the first's rows */
	if (!err && hdb_postgres(d))
		err = hdb_exec(d, "SELECT pg_advisory_xact_lock(" PG_HSCHEMA_LOCK ")");
	*nfresh = 0;
	err = err ?: mark(d, branch ? branch : ALL_BRANCHES, sets, n, fresh, nfresh);
	err = err ?: hdb_commit(d);
	if (err) {
		hdb_rollback(d);
		for (size_t s = 0; s < n; s++)
			memset(fresh[s], 0, sets[s].n * sizeof(**fresh));
		*nfresh = 0;
		pg_err("history: %s: the change points alerted on could not be recorded",
		       hdb_name(d));
	}
	return err;
}
