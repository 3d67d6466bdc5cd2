/* SPDX-License-Identifier: MIT */
/*
 * reporters/gbench_text.h - the benchmarks of a Google Benchmark program in compare's reports
 * (core/gbench.h says how a comparison holds them: entries whose binary is PG_GB_BINARY).
 */
#ifndef PG_GBENCH_TEXT_H
#define PG_GBENCH_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* How many entries of @c are benchmarks */
size_t pg_gb_count(const struct pg_comparison *c);
/*
 * The benchmarks section that leads compare's table: every benchmark (whatever its verdict),
 * compare.py's columns, an inconclusive one's reason under it, a blank line after. Nothing
 * when @c has none.
 */
void pg_gb_write_text(const struct pg_comparison *c, FILE *out);
/*
 * perfgate report's table of a run's benchmarks (those of its first repetition that has any):
 * the medians over the repetitions of CPU and real time per iteration, in how many
 * repetitions each ran, and the message of one that errored or was skipped. Nothing without.
 */
void pg_gb_write_report(const struct pg_run *run, FILE *out);

#endif
