/* SPDX-License-Identifier: MIT */
/*
 * diff/kshare.h - how much of a function's judged time is the kernel's. Pure computation: no
 * I/O, no logging. docs/statistics.md, "Two recordings against their own noise".
 *
 * Why: between two separate recordings, a function whose time is mostly the kernel's work
 * (reading and writing files, opening them, waking and waiting for threads) moves far more
 * than one whose time is its own code: the kernel's state differs from one recording to the
 * next (the page cache, the files the last run left, the threads' timing), and its
 * repetitions within one recording do not show it. On five real programs (zstd, lz4, leveldb,
 * jq and jq-interp, 86 A/A pairs of two recordings), such functions' z spread with a tail
 * twice as heavy as their code's: 5.1% beyond 3 standard errors against 0.6%. diff/rnull.h
 * judges them against a null of their own.
 *
 * What: of a function's time, both runs together,
 *  - the part blocked (off-CPU, not waiting for a CPU: f->blocked_share, diff/cpusplit.h),
 *    unless its time is judged on-CPU (f->by_cpu, --metric cpu);
 *  - of the rest, the share of its samples whose innermost frame is the kernel's. A traced
 *    function's samples are those whose innermost traced frame is its own (self time; with
 *    --metric total, every stack its frame is on); a sampled function's, those whose
 *    innermost frame of the program is its own (the kernel frames above it are its time).
 *    Frames of perfgate's probes are not the program's (diff/probeframes.h).
 * f->kernel_share = blocked + (1 - blocked) * kernel samples / samples; with fewer than
 * PG_KSHARE_MIN_SAMPLES samples, the blocked part alone when it is PG_KSHARE_CLASS or more,
 * else NAN (not known).
 *
 *	err = pg_kshare(c, base, new);	// after the split of each change (pg_cpusplit())
 *	if (pg_kshare_kernel(f))
 *		...	// judged against the kernel's null
 */
#ifndef PG_KSHARE_H
#define PG_KSHARE_H

#include <stdbool.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* The samples a function's kernel share needs, both runs together */
#define PG_KSHARE_MIN_SAMPLES 4
/* The kernel share from which a function's time counts as the kernel's */
#define PG_KSHARE_CLASS 0.5

/* Set f->kernel_share of every exact and sampled entry of @c from @base and @new (the runs
 * it compared). 0 or -ENOMEM. */
int pg_kshare(struct pg_comparison *c, const struct pg_run *base, const struct pg_run *new);

/* Is @f's time mostly the kernel's (kernel_share known and at least PG_KSHARE_CLASS)? */
bool pg_kshare_kernel(const struct pg_fcmp *f);

#endif
