/* SPDX-License-Identifier: MIT */
/*
 * formats/merge.h - combine runs of the same benchmark into one (perfgate merge): repetitions
 * recorded by several CI shards, or on several days, pooled into one baseline.
 *
 * Rules (docs/ci.md#merging-baselines):
 *  - Every run must be of the same benchmark (pg_meta_same_benchmark(), core/comparison.h: the
 *    same arguments, argv[0] by base name, as compare and vote decide it) and have the same
 *    -f/-x options: runs of different commands or function selections are refused. The
 *    merged command is the newest run's.
 *    When either was recorded with --budget (meta.budget_pct), their function tables must list
 *    the same functions as well: --budget chooses anew each time, and a callee traced in some
 *    repetitions only would mix caller self times (record --functions-of makes such runs).
 *  - Functions are matched by (basename of the binary, symbol name), as compare matches them;
 *    the merged table lists them in order of first appearance (ids renumbered); a function's
 *    path, address, probe site and source position come from the first run that has it. Runs
 *    whose tables differ (the code changed between them) are merged, with a warning: a
 *    function absent from a run is simply not called in its repetitions.
 *  - Repetitions are concatenated in the order of the runs, each kept whole (stats, sampled
 *    stacks); meta.options.repetitions becomes the total.
 *  - The rest of the metadata (start time, host, kernel, CPU, commit, perfgate version, cwd,
 *    sampling frequency) and the probe calibration are the newest run's: the one with the
 *    latest start time (the last one given among equals or unknown). Different hosts are
 *    merged with a warning.
 *  - The sides of a perfgate ab session (meta.ab_session) merge like any run, but the merged
 *    run is an ordinary one: no session, side, pair or seq (pooled repetitions of several
 *    sessions, or of one side, pair with nothing); a warning says so.
 *  - Runs with compensated histograms (pg_run.hist_compensated) are not merged with runs with
 *    raw ones; a repetition's histogram stays compensated by its own recording's calibration
 *    (compare's leaf trimming assumes the merged calibration: off by ~5% of the difference).
 *    Likewise every repetition's probe run times are scaled against the merged calibration's
 *    measured_ns (pg_calib_scale()), not their own recording's.
 */
#ifndef PG_MERGE_H
#define PG_MERGE_H

#include <stddef.h>

#include "../core/run.h"

/*
 * Merge @runs[0..n) (n >= 1; @names[i] is how messages call run i, e.g. its file) into @out
 * (initialised, empty). Returns 0; -EINVAL when the runs cannot be merged (logged: which runs
 * and why); -ENOMEM. On failure @out is released.
 */
int pg_run_merge(const struct pg_run *const *runs, const char *const *names, size_t n,
		 struct pg_run *out);

#endif
