/* SPDX-License-Identifier: MIT */
/*
 * runner/session/spin.h - the reference spin: a fixed workload perfgate runs in its own process
 * just before each repetition of perfgate record, a witness of the machine's speed at that
 * moment (struct pg_meta.spin; docs/run-format.md, docs/statistics.md "The reference spin").
 *
 * Why: two recordings are put on one speed scale by their reference functions (diff/rspeed.h),
 * and a recording of few traced functions has too few. The spin is a reference every recording
 * has: the same work, of known length, timed as the repetitions are (CLOCK_MONOTONIC for the
 * wall, CLOCK_THREAD_CPUTIME_ID for the CPU time).
 *
 * What: PG_SPIN_ITERS steps of a dependent integer chain (a 64-bit multiply and add, each
 * step needing the last: no two overlap, nothing to vectorise), about 10 ms on a current CPU.
 * It runs once on each CPU perfgate may use (pinned in turn, then the affinity is restored;
 * the benchmark inherits it), when they are 2 to PG_SPIN_MAX_CPUS, and once unpinned
 * otherwise. One CPU of a virtual machine can run at half speed for milliseconds to seconds
 * while the other runs at full (a neighbour on its host core), and one unpinned spin may land
 * on the other one: a recording of a process on the slow CPU then reads as a slower program.
 * After the repetition, the recorder counts its samples on each CPU (the sampler's
 * per-CPU count) and pg_spin_combine() weights the per-CPU times by them: the spin's time
 * on the mix of CPUs the benchmark ran on. Without sampling, their mean stands, and
 * diff/rspeed.h widens by how far the CPUs disagreed. The time
 * it waited in a run queue (/proc/thread-self/schedstat) is kept apart: a 10 ms spin on a
 * busy machine waits for a CPU in most runs, a call of microseconds in few, so the speed
 * compare takes from it is its time on a CPU (diff/rspeed.h).
 * PG_SPIN_WORKLOAD names it; a change of the loop or of its count must change the name, so
 * that spins of two perfgate versions are never compared.
 */
#ifndef PG_RUNNER_SPIN_H
#define PG_RUNNER_SPIN_H

#include "../../core/run.h"

/* Steps of the chain a spin runs */
#define PG_SPIN_ITERS 10000000
/* The workload's name and version, stored in each run file */
#define PG_SPIN_WORKLOAD "mul-add-chain-v1 10000000"

/* Run the spin once on each CPU (or once, unpinned: above) and time it into *@out, its
 * samples 0 and its times their mean. 0, or -errno when a clock cannot be read. */
int pg_spin_run(struct pg_spin *out);

/* Spin before repetition @i of @run and keep its times (spin[i]; nspin becomes i + 1, also when
 * a --budget narrowing started the repetitions again). 0 or a negative errno (logged). */
int pg_spin_record(struct pg_meta *m, uint32_t i);

#endif
