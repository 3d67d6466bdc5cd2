/* SPDX-License-Identifier: MIT */
/*
 * diff/gbench.h - Google Benchmark's benchmarks in a comparison (docs/gbench.md): each judged
 * as a function is, on its own figure, and the functions whose change sits on a benchmark's
 * sampled stacks attributed to it. Pure computation: no I/O, no logging.
 *
 * A benchmark's value in a repetition (a process) is its CPU time per iteration as Google
 * Benchmark reported it (core/gbench.h; the median of its in-process repetitions). Its entry
 * in out->f has binary PG_GB_BINARY, name and display the benchmark's name, base_ns and
 * new_ns the medians over repetitions of that time, base_calls and new_calls the mean
 * iterations per repetition (they differ by design: never "calls changed"). It is tested with
 * the functions' tests (paired under perfgate ab, Mann-Whitney otherwise: pg_analyse()), in
 * the same Benjamini-Hochberg family, with the same min_effect; a benchmark is its own
 * program, so its impact is its change (impact_ns = change * base_ns, impact = change).
 * Repetitions where a benchmark errored or was skipped give it no value; a benchmark with no
 * value on a side is inconclusive, saying why; one reported by one run only is added or
 * removed, never a failure.
 */
#ifndef PG_DIFF_GBENCH_H
#define PG_DIFF_GBENCH_H

#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"
#include "stats.h"

/*
 * Append an entry per benchmark of @base or @new to out->f (growing it), analysed with @o (the
 * look's options) and @ws; those tested are appended to the Benjamini-Hochberg family
 * (*tested)[0..*ntested) (indices into out->f) and (*p) (their p-values), which grow too;
 * *ncommon counts the benchmarks with values on both sides. Nothing when neither run has
 * benchmarks. 0 or -ENOMEM.
 */
int pg_gb_compare(const struct pg_run *base, const struct pg_run *new,
		  const struct pg_compare_opts *o, struct pg_stats_ws *ws,
		  struct pg_comparison *out, size_t **tested, double **p, size_t *ntested,
		  size_t *ncommon);

/*
 * Once the verdicts are made and out->f is sorted: each function of @out judged a regression,
 * an improvement or notable whose frame sits, in @new's sampled stacks (@base's when @new has
 * none), inside a benchmark's body (pg_gb_body()) gets the benchmarks whose bodies hold most
 * of its samples named in its reason ("; on the stacks of BM_parse (90%)"); then the
 * benchmarks are moved before the functions, each part keeping its order, so that every
 * report lists them first. 0 or -ENOMEM.
 */
int pg_gb_finish(const struct pg_run *base, const struct pg_run *new, struct pg_comparison *out);

#endif
