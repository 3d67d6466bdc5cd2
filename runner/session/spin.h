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
 * step needing the last: no two overlap, nothing to vectorise), about 10 ms on a current CPU. It
 * is not pinned: perfgate does not know which CPU the benchmark will run on, and the spin
 * measures the machine (frequency, a neighbour's share of the cores), not one core. The time
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

/* Run the spin once and time it into *@out. 0, or -errno when a clock cannot be read. */
int pg_spin_run(struct pg_spin *out);

/* Spin before repetition @i of @run and keep its times (spin[i]; nspin becomes i + 1, also when
 * a --budget narrowing started the repetitions again). 0 or a negative errno (logged). */
int pg_spin_record(struct pg_meta *m, uint32_t i);

#endif
