/* SPDX-License-Identifier: MIT */
/*
 * history/analysis.h - what perfgate history changes, check and plot compute from the store:
 * the per-session summaries of a metric as a matrix of objects by sessions, the change points
 * of each object's series (diff/changepoint.h), and a new session against the baseline the
 * change points leave (diff/hcheck.h). docs/history.md describes the method.
 *
 * Ownership: a struct pg_hmatrix owns its sessions, objects and values; pg_hmatrix_release()
 * frees them and leaves it zeroed. Functions log where they fail and return a negative errno.
 */
#ifndef PG_HISTORY_ANALYSIS_H
#define PG_HISTORY_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/comparison.h"
#include "../diff/changepoint.h"
#include "record.h"
#include "store.h"

/* history check: at most this many sessions before the new one are searched for change
 * points (the baseline starts at the last one) */
#define PG_HCHECK_LOOKBACK 100

struct pg_hmatrix {
	struct pg_hsession *sessions;	/* the sessions, oldest first */
	size_t nsessions;
	struct pg_hobject *objects;	/* every stored object, sorted by key */
	int64_t *ids;
	size_t nobjects;
	int metric;
	double *v;		/* v[o * nsessions + s]: object o's summary in session s, or NAN */
};

/*
 * Load @metric's summaries of the sessions of @branch (NULL: all) into @m: of those up to and
 * including the newest one of commit @until (NULL: the newest session), the last @max (0: all).
 * -ENOENT (logged) when @until is no stored session's commit, or nothing is stored.
 */
int pg_hmatrix_load(struct pg_hmatrix *m, struct pg_hstore *s, const char *branch, int metric,
		    const char *until, size_t max);
void pg_hmatrix_release(struct pg_hmatrix *m);

/* The row of object (binary, name, scope) in @m, or -1. */
long pg_hmatrix_find(const struct pg_hmatrix *m, const char *binary, const char *name,
		     const char *scope);

/* One change point of object @object's series: at session @session (the first of the new
 * level, an index into m->sessions). */
struct pg_hchange {
	size_t object;
	size_t session;
	struct pg_cp cp;
};

/*
 * The weak change points (diff/changepoint.h) of each object of a matrix, from one scan for
 * the next: cp[].index is a position in the matrix's sessions, and the scan was of the first
 * nsessions of them. Owns obj[0..nobjects) and their arrays.
 */
struct pg_hcpcache {
	size_t nsessions;	/* 0: nothing to resume from */
	size_t nobjects;
	struct pg_hcpweak {
		struct pg_cp *cp;
		size_t n;
	} *obj;			/* by matrix object; NULL when nsessions is 0 */
};
void pg_hcpcache_release(struct pg_hcpcache *c);

/*
 * The change points of each object of @m whose display or symbol name matches @glob (NULL:
 * all; fnmatch) into *@out (malloc'd, by object then session) and *@n; objects with values in
 * fewer than 4 sessions have none. Objects are spread over the CPUs. With @prev, each object's
 * search resumes from its weak change points there (pg_changepoints_resume()); with @next,
 * the weak change points of this scan go there (for all of @m's objects; @glob must be NULL).
 */
int pg_hmatrix_changes(const struct pg_hmatrix *m, const struct pg_cp_opts *o,
		       const char *glob, const struct pg_hcpcache *prev,
		       struct pg_hcpcache *next, struct pg_hchange **out, size_t *n);

/*
 * pg_hmatrix_changes() of all of @m's objects, resumed from the store's cache of @branch and
 * m->metric when it applies (the same options, and the sessions it was of still the first of
 * @m's, in order), and the cache replaced by this scan's (history/cpcache.c). A cache that
 * cannot be read is ignored, one that cannot be written only warned about.
 */
int pg_hmatrix_changes_cached(const struct pg_hmatrix *m, struct pg_hstore *s,
			      const char *branch, const struct pg_cp_opts *o,
			      struct pg_hchange **out, size_t *n);

/*
 * What history check reads of the store: the metric judged (@m) and the matrices of the same
 * sessions it needs beside it, on-CPU time the machine's speed of self time (diff/hspeed.h;
 * loaded for PG_HM_SELF only) and the program's times. pg_hbaseline_load() fills them (a store
 * without off-CPU times leaves cpu and pcpu without values) and logs what failed;
 * pg_hbaseline_release() frees them.
 */
struct pg_hbaseline {
	struct pg_hmatrix m, calls, wall, cpu, pcpu;
};

int pg_hbaseline_load(struct pg_hbaseline *b, struct pg_hstore *s, const char *branch,
		      int metric, const char *until);
void pg_hbaseline_release(struct pg_hbaseline *b);

/*
 * The new session @rec against the baseline @b: per function, the sessions since its last
 * change point (found with @cpo), into @out as diff/hcheck.h fills it. @metric: PG_HM_SELF,
 * _TOTAL or _CPU (b->m's); on-CPU and self times are corrected for the machine's speed the
 * on-CPU times show (diff/hspeed.h), inclusive ones are not; the program's CPU time is judged
 * as measured. 0, or a negative errno after logging.
 */
int pg_hcheck(const struct pg_hbaseline *b, const struct pg_hrecord *rec, int metric,
	      const struct pg_cp_opts *cpo, const struct pg_compare_opts *opts,
	      struct pg_comparison *out);

#endif
