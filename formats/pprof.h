/* SPDX-License-Identifier: MIT */
/*
 * formats/pprof.h - the sampled profile of a run as a pprof profile.proto (writer only).
 *
 * pprof's format is the protobuf message `perftools.profiles.Profile` of
 * github.com/google/pprof/blob/main/proto/profile.proto; go tool pprof, Parca, Grafana
 * Pyroscope and speedscope read it gzipped. This file writes it with a small encoder of its
 * own (varints and length-delimited fields, the only wire types the message needs) and zlib
 * for the gzip member: no code generator, no copy of the schema (docs/sampling.md says why).
 *
 * What one profile holds, for the stacks given (folded, root first, see core/run.h):
 *  - sample types "samples"/"count" and, when the run has a sampling rate, "cpu"/"nanoseconds"
 *    (count x 1e9 / sample_hz, rounded: the mean period of the frequency-mode event, an
 *    estimate), which is the default sample type, with period_type and period set to match;
 *  - one sample per stack, its locations leaf first, as profile.proto wants;
 *  - one function and one location per distinct frame name (both with the same id, ids in
 *    strcmp order of the names from 1): the function's name is the frame name, its
 *    system_name the ELF symbol for traced functions (mangled C++), else the frame name; its
 *    filename and start_line and the location's line come from the run's frame_sources (the
 *    declaration: frames carry no line of the sample);
 *  - a mapping per binary that frames can be placed in: the binary of a traced function
 *    whose display name is the frame, the module of a `module+0xADDR` frame (the location's
 *    address is then ADDR), "[kernel.kallsyms]" for `name [k]` frames. Other frames (untraced
 *    libc functions, `[unknown]`, ...) have no mapping. Every mapping says it has functions,
 *    file names and line numbers so that readers do not try to symbolize again;
 *  - time_nanos from meta.start_time, duration_nanos the wall time of all repetitions.
 * An off-CPU profile (the stacks of pg_run_offcpu_as_stacks(), counts in nanoseconds) has one
 * sample type instead, "offcpu"/"nanoseconds" (the count itself), its period type and default.
 * Inlined functions are frames of their own in run files, not marked as inlined, so each
 * gets its own location; nothing is written as inlined. Tracing's exact per-function times
 * are not in the profile (docs/sampling.md says why). The output is deterministic.
 *
 *	struct pg_stack *v; size_t n;
 *	pg_stacks_merge(&run, -1, &v, &n);
 *	err = pg_pprof_write("run.pb.gz", &run, v, n);	// gzipped; 0 or -errno, logged
 */
#ifndef PG_PPROF_H
#define PG_PPROF_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/run.h"

/*
 * Encode the profile of stacks @v[0..n) of @run (its funcs, sources and meta) as
 * uncompressed profile.proto bytes: *out (malloc'd, the caller frees it) of *len bytes.
 * 0, -ENOMEM, or -EOVERFLOW (a value past int64), logged.
 */
int pg_pprof_encode(const struct pg_run *run, const struct pg_stack *v, size_t n,
		    unsigned char **out, size_t *len);
/* The same; @offcpu: the counts of @v are off-CPU nanoseconds (see above). */
int pg_pprof_encode_as(const struct pg_run *run, const struct pg_stack *v, size_t n,
		       bool offcpu, unsigned char **out, size_t *len);

/* Encode as above (@offcpu: pg_pprof_encode_as()), gzip (one gzip member) and write to @path
 * atomically (core/atomic.h: the old file or the complete new one, never a part). 0 or
 * -errno, logged. */
int pg_pprof_write(const char *path, const struct pg_run *run, const struct pg_stack *v,
		   size_t n, bool offcpu);

#endif
