/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/sampler.h - sampled CPU profiles of the benchmark's process tree (perfgate record
 * -F).
 *
 * A cpu-clock perf event (PERF_COUNT_SW_CPU_CLOCK: no hardware PMU needed) is opened for the
 * benchmark's first process before it execs, with inherit=1 so that every thread and fork of
 * the tree carries it, and bpf/sample.bpf.c is attached to it. Each sample leaves through a BPF
 * ring buffer (the kernel refuses to mmap a perf buffer for inherited events) with the kernel
 * stack, the frame-pointer user stack, the user registers and a stack snapshot.
 *
 * Per repetition:
 *	pg_sampler_start(s, pid);		// before the child is released to exec
 *	while (...) pg_sampler_poll(s, ms);	// drain while the tree runs: maps are read
 *						// from /proc/PID/maps while processes live
 *	pg_sampler_stop(s, rep);		// detach, unwind (libdw), symbolize, fold
 * and once at the end pg_sampler_finish(s, run) (frame declaration sites).
 *
 * Files of runner/profile/ (sampled stacks, from the kernel's samples to named frames):
 *   sampler.c/.h     the perf event and bpf/sample.bpf.c per repetition; samples in, folded
 *                    stacks out
 *   unwind.c/.h      a sample's user stack: DWARF unwinding of its stack snapshot (libdw)
 *   symbolize.c/.h   where a sample's address becomes a frame name (function, inlined
 *                    functions, module+offset, kernel symbol)
 *   framecode.c/.h   which function of which object each sampled frame name is
 *   ownsamples.c/.h  each sample's own time by function symbol, object and program
 *   codesum.c/.h     a function's machine code digested (Capstone), to tell two builds'
 *                    code apart
 *
 * Unwinding and symbolizing happen in pg_sampler_stop(), after the repetition, so that they
 * do not compete with the benchmark for the CPUs - unless the kept stack snapshots exceed
 * PG_SAMPLER_KEEP_BYTES (a long benchmark): then the samples so far are unwound at once.
 */
#ifndef PG_SAMPLER_H
#define PG_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../core/run.h"

#define PG_DEFAULT_SAMPLE_HZ 199	/* docs/sampling.md, "Choosing -F" */
#define PG_SAMPLER_KEEP_BYTES (64u << 20)
#define PG_MAX_SAMPLE_HZ 20000

struct pg_sampler;

/*
 * Load the sampling program. @traced_fd is the runner's map of traced processes (reused, so
 * both BPF objects see the same set). With @offcpu, also the off-CPU stacks of the traced
 * threads (sched_switch, sched_waking: docs/sampling.md, "Off-CPU stacks"), into
 * pg_rep.offcpu, and who woke them into pg_rep.woken; they are taken from the open on, for the
 * processes in the traced set.
 * NULL on failure (logged).
 */
#define PG_OFFCPU_QUANTUM_NS 1000000	/* blocked intervals shorter than this are sampled */
struct pg_sampler *pg_sampler_open(uint32_t hz, int traced_fd, bool offcpu);
void pg_sampler_free(struct pg_sampler *s);

/* Start sampling process @pid (not yet exec'd) and its future children. 0 or -errno. */
int pg_sampler_start(struct pg_sampler *s, pid_t pid);

/* Wait up to @timeout_ms (at most PG_SAMPLER_DRAIN_MS: the BPF program wakes perfgate only for
 * the first sample of a process and when the ring buffer fills) for samples or for the exit of
 * the process given to start (it returns at once when that process has exited and not been
 * reaped), and take in what arrived. Once
 * that process has exited (orphans may still run), it waits at most PG_SAMPLER_ORPHAN_MS, so
 * that the caller notices their exit soon. 0 or -errno. */
#define PG_SAMPLER_ORPHAN_MS 2
#define PG_SAMPLER_DRAIN_MS 10	/* longest wait while the root process runs */
int pg_sampler_poll(struct pg_sampler *s, int timeout_ms);

/* Stop sampling, take in the rest, and store the repetition's folded stacks and sample
 * counts in @rep, and its off-CPU stacks (rep->offcpu, count = nanoseconds blocked) when
 * opened with @offcpu. 0 or -errno. */
int pg_sampler_stop(struct pg_sampler *s, struct pg_rep *rep);

/* Move the declaration sites of every frame seen into @run, and report truncated samples.
 * 0 or -ENOMEM. */
int pg_sampler_finish(struct pg_sampler *s, struct pg_run *run);

/* The repetitions from now on are of side @side (perfgate ab: 0 base, 1 new; else 0). */
void pg_sampler_set_side(struct pg_sampler *s, int side);

/* The code digests of the functions side @side's samples fell in so far, in place of
 * @run->codes (runner/profile/framecode.h), and the objects its repetitions' own samples
 * (pg_rep.own) index, in place of @run->objects (runner/profile/ownsamples.h). 0 or -ENOMEM. */
struct pg_codesums;
int pg_sampler_codes(struct pg_sampler *s, int side, struct pg_codesums *cs, struct pg_run *run);

/*
 * The objects the sampled processes mapped so far (runner/select/objects.h), over every repetition
 * this sampler ran; each mapped in repetition pg_sampler_reps() has that as its last_rep.
 * Only processes that were sampled at least once are seen. Borrowed: valid until the next
 * pg_sampler_start() or pg_sampler_free().
 */
struct pg_objects;
const struct pg_objects *pg_sampler_objects(const struct pg_sampler *s);
uint32_t pg_sampler_reps(const struct pg_sampler *s);

/* The samples taken so far on CPU @cpu, over every repetition this sampler ran (0 for a CPU
 * beyond what is counted). The difference over a repetition is its CPU time there. */
uint64_t pg_sampler_cpu_samples(const struct pg_sampler *s, uint32_t cpu);

#endif
