/* SPDX-License-Identifier: MIT */
/*
 * history/record.h - one session as the history stores it: who and what it was (commit,
 * branch, time, host, command) and, per object (a traced function, or the whole program) and
 * metric, one value per repetition. Built from a run (pg_hrecord_from_run()), written by
 * history/store.h, and what history check tests a new run by.
 *
 * The values are what perfgate compare tests per repetition (diff/repvalues.h): a function's
 * mean time per call of the metric in each repetition in which it was called, compensated for
 * probe overhead with the run's own calibration, its slowest calls left out for a leaf; its
 * calls per repetition; the program's wall time per repetition and, for runs recorded with
 * off-CPU time, its CPU time (the threads' on-CPU time added up).
 *
 * Ownership: a struct pg_hrecord owns every string and array in it; pg_hrecord_release()
 * frees them and leaves it empty (pg_hrecord_init()ed).
 */
#ifndef PG_HISTORY_RECORD_H
#define PG_HISTORY_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "../core/run.h"

/*
 * The kinds of series. Their numbers are stored (the metric table of the schema): never
 * renumber one; a new kind (sampled values, say) takes the next number.
 */
enum pg_hmetric {
	PG_HM_SELF = 1,		/* function: self time per call, ns */
	PG_HM_TOTAL = 2,	/* function: inclusive time per call, ns */
	PG_HM_CPU = 3,		/* function: on-CPU self time per call, ns (off-CPU runs) */
	PG_HM_CALLS = 4,	/* function: calls per repetition */
	PG_HM_WALL = 5,		/* program: wall time per repetition, ns */
	PG_HM_PCPU = 6,		/* program: CPU time per repetition, ns (off-CPU runs) */
};
#define PG_HM_MAX PG_HM_PCPU

/* "self", "total", "cpu", "calls", "wall", "program-cpu"; NULL for others. */
const char *pg_hmetric_name(int m);

/* The name and binary of the whole program's object */
#define PG_HPROGRAM "[program]"

struct pg_hobject {
	char *binary;		/* basename of the ELF file (the program's, for PG_HPROGRAM) */
	char *name;		/* symbol name, or PG_HPROGRAM */
	char *scope;		/* "" when none (never NULL) */
	char *display;
};

/* Objects in key order: (binary, name, scope) with strcmp (qsort and bsearch style). */
int pg_hobject_cmp(const void *a, const void *b);

struct pg_hseries {
	uint32_t object;	/* index in pg_hrecord.objects */
	int metric;		/* enum pg_hmetric */
	size_t n;		/* values */
	double *v;		/* one per repetition with a value, in repetition order */
	double summary;		/* median of v (mean for PG_HM_CALLS, over all repetitions) */
};

struct pg_hrecord {
	char *commit, *branch, *time, *host, *command;	/* commit and branch may be NULL */
	uint32_t reps;
	size_t nobjects;
	struct pg_hobject *objects;	/* sorted by (binary, name, scope), unique */
	size_t nseries;
	struct pg_hseries *series;	/* sorted by (object, metric) */
	/*
	 * The environment the session was recorded in: "KEY=VALUE" strings sorted by KEY
	 * (pg_env_valid(), core/run.h), "kernel" and "cpu_model" and the run's meta.environment
	 * entries (core/env.h); none when the run knew nothing.
	 */
	size_t nenv;
	char **env;
};

void pg_hrecord_init(struct pg_hrecord *r);
void pg_hrecord_release(struct pg_hrecord *r);

/*
 * @r := the session of @run; @commit, @branch and @time (ISO 8601) override the run's
 * metadata when not NULL. 0, or -EINVAL (the run has no time and none is given), -ENOMEM,
 * after logging.
 */
int pg_hrecord_from_run(struct pg_hrecord *r, const struct pg_run *run, const char *commit,
			const char *branch, const char *time);

/* The series of object @obj and @metric in @r, or NULL (binary search). */
const struct pg_hseries *pg_hrecord_find(const struct pg_hrecord *r, uint32_t obj, int metric);

#endif
