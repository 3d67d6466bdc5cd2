/* SPDX-License-Identifier: MIT */
/*
 * formats/gbench.h - Google Benchmark's figures on disk: its own JSON output
 * (--benchmark_out_format=json, read into core/gbench.h's values), and the optional "gbench"
 * table of a run file's repetitions (docs/run-format.md, written and read here for
 * formats/runfile_write.c and runfile_read.c).
 *
 * Errors: every function that fails has logged one line naming the input (core/log.h) and
 * returns a negative errno (-EINVAL for bad input, -ENOMEM).
 */
#ifndef PG_FORMATS_GBENCH_H
#define PG_FORMATS_GBENCH_H

#include <stddef.h>

#include <json-c/json.h>

#include "../core/run.h"
#include "json_read.h"

/* The most benchmarks one process may report (a bound on what one output is read into) */
#define PG_GB_MAX_BENCHMARKS 100000

/*
 * Google Benchmark's JSON output @buf[0..len) (buf[len] must be '\0'; @name names it in
 * messages) into *v, *n (sorted by name; the caller frees them with pg_gb_values_free()):
 * one value per benchmark, from its "iteration" runs (aggregates are left out); a benchmark
 * run K times in the process (--benchmark_repetitions) gets the median of each figure over its
 * K runs (inproc_reps = K). Times are converted from their "time_unit" to ns; members that are
 * not Google Benchmark's own and hold numbers are the user counters.
 */
int pg_gb_parse_output(const char *buf, size_t len, const char *name, struct pg_gb_value **v,
		       size_t *n);

/* Put @rep's benchmarks into the repetition object @o as "gbench" (nothing when none). 0 or
 * -ENOMEM. */
int pg_gb_put_rep(struct json_object *o, const struct pg_rep *rep);

/* Read the optional "gbench" of the repetition object @o (at @where) into @rep. */
int pg_gb_read_rep(const struct pg_jr *rd, struct json_object *o, const char *where,
		   struct pg_rep *rep);

#endif
