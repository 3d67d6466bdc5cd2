/* SPDX-License-Identifier: MIT */
/*
 * runner/budget/cover_summary.h - what a choice of functions covers of the sampled first pass's CPU
 * time: each sample goes to the innermost candidate function on its stack. When that function is
 * traced, its measured self time holds the sample (exact); when it was left out, the sample
 * is in no traced function's own time as that function's (unprobed); with no candidate on
 * the stack at all, it is elsewhere.
 *
 * Life cycle: pg_covered_count() against a map of the candidates (runner/budget/stack_gain.h) and
 * the choice, pg_covered_say(), pg_covered_release(). The struct owns leaf[].
 */
#ifndef PG_COVERED_H
#define PG_COVERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"
#include "stack_gain.h"

struct pg_covered {
	uint64_t samples, exact, unprobed, elsewhere;
	uint64_t *leaf;		/* per function: samples whose innermost candidate it is */
	uint32_t nfuncs;
};

#define PG_COVERED_NAMES 5	/* the left-out functions named, most sampled first */
#define PG_COVERED_NAME_MAX 100	/* a longer name is cut at its end */

/* Count @m's samples by @keep (m->nfuncs entries). 0 or -ENOMEM. */
int pg_covered_count(const struct pg_cov_map *m, const bool *keep, struct pg_covered *c);
void pg_covered_release(struct pg_covered *c);

/* Say it in one block (stderr), naming @run's functions (the candidates, as mapped). */
void pg_covered_say(const struct pg_covered *c, const struct pg_run *run, const bool *keep,
		    size_t nkept);

#endif
