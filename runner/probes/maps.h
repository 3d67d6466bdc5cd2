/* SPDX-License-Identifier: MIT */
/*
 * runner/probes/maps.h - clearing and reading the BPF maps of a recording (step 3 of
 * runner/session/recorder.h).
 *
 * The BPF programs (bpf/perfgate.bpf.c) count into per-CPU maps: `fstats` (one struct
 * pg_bpf_fstat per function id, per CPU), `hist` (a hash of (function, bucket) -> calls, for
 * all CPUs), `counters` (enum pg_counter events, per CPU), `stacks` and `traced` (the
 * benchmark's pids), `threads` (its threads' on-CPU, runnable and blocked time, when off-CPU
 * time is measured). A repetition starts from cleared maps and ends by reading them into one
 * struct pg_rep: the per-CPU values added up, the histogram buckets into each function's
 * struct pg_hist. Function ids are the run's (0 .. nfuncs-1), then the calibration targets'.
 *
 * Invariant: after pg_maps_read(), every function with calls has a histogram holding exactly
 * its calls; a histogram map too small to hold them all is an error (-ENOSPC), never a
 * silently partial result.
 *
 * Nothing here owns a map: they belong to struct pg_probes (runner/probes/probes.h), whose
 * pg_probes_map_fd() gives them by name.
 *
 *	__u64 counters[PG_CNT_MAX] = { 0 };
 *
 *	err = pg_maps_reset(&p, run->nfuncs, ncpu);
 *	...			// the benchmark runs (runner/launch/launch.h)
 *	err = err ?: pg_maps_read(&p, run->nfuncs, ncpu, rep, counters);
 *	...
 *	pg_maps_explain_counters(counters);
 */
#ifndef PG_MAPS_H
#define PG_MAPS_H

#include <stddef.h>
#include <linux/types.h>

#include "../../bpf/perfgate.h"
#include "../../core/run.h"
#include "probes.h"


/* Clear the maps for functions 0..nfuncs-1 and everything else they hold. 0 or -ENOMEM. */
int pg_maps_reset(const struct pg_probes *p, size_t nfuncs, int ncpu);

/*
 * Add up the per-CPU totals of function @id in the fstats map @fd into @s (zeroed by the
 * caller; its histogram is left alone), using @v (ncpu entries) as the buffer. @s stays as it
 * is when the lookup fails: an id outside the map, which reads as "not called".
 */
void pg_maps_read_fstat(int fd, __u32 id, int ncpu, struct pg_bpf_fstat *v,
			struct pg_fstat *s);

/*
 * Add the buckets of functions first..first + n - 1 in the histogram map @fd to s[id -
 * first].hist (one counter per bucket for all CPUs). 0 or -ENOMEM.
 */
int pg_maps_read_hists(int fd, __u32 first, size_t n, struct pg_fstat *s);

/*
 * Append the threads of the `threads` map @fd (runner/probes/probes.h: empty without off-CPU
 * time) to @rep, sorted by tid. 0 or -ENOMEM.
 */
int pg_maps_read_threads(int fd, struct pg_rep *rep);

/*
 * Read this repetition's maps into @rep (one stat per function called); add the event
 * counters to @counters. 0, -ENOSPC (the histogram map overflowed: logged) or -ENOMEM.
 */
int pg_maps_read(const struct pg_probes *p, size_t nfuncs, int ncpu, struct pg_rep *rep,
		 __u64 counters[PG_CNT_MAX]);

/* What the event counters of all repetitions say: calls not timed, never returned. */
void pg_maps_explain_counters(const __u64 counters[PG_CNT_MAX]);

#endif
