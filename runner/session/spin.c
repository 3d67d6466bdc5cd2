// SPDX-License-Identifier: MIT
/*
 * runner/session/spin.c - the reference spin (spin.h).
 */
#include "spin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/log.h"

static int now(clockid_t id, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

/* The calling thread's time waiting in a run queue so far (schedstat's second field), or 0
 * when the kernel does not keep it (CONFIG_SCHED_INFO off): then no part of a spin is taken
 * as waiting. */
static uint64_t run_delay(void)
{
	unsigned long long cpu, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &cpu, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

/* The chain: each step needs the last one's result; the empty asm keeps the compiler from
 * folding or unrolling it into anything shorter. */
static uint64_t chain(uint64_t x, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int pg_spin_run(struct pg_spin *out)
{
	uint64_t w0 = 0, c0 = 0, w1 = 0, c1 = 0, q0 = run_delay(), q1;
	int err;

	err = now(CLOCK_MONOTONIC, &w0) ?: now(CLOCK_THREAD_CPUTIME_ID, &c0);
	if (err)
		return err;
	chain(w0, PG_SPIN_ITERS);
	err = now(CLOCK_THREAD_CPUTIME_ID, &c1) ?: now(CLOCK_MONOTONIC, &w1);
	if (err)
		return err;
	q1 = run_delay();
	out->wall_ns = w1 > w0 ? w1 - w0 : 1;
	out->cpu_ns = c1 > c0 ? c1 - c0 : 1;
	/* read outside the timed part, the wait is rounded to the scheduler's clock: at most
	 * the wall time, less 1 ns */
	out->runq_ns = q1 > q0 ? q1 - q0 : 0;
	if (out->runq_ns >= out->wall_ns)
		out->runq_ns = out->wall_ns - 1;
	return 0;
}

int pg_spin_record(struct pg_meta *m, uint32_t i)
{
	struct pg_spin *s;
	int err;

	if (!m->spin_workload && !(m->spin_workload = strdup(PG_SPIN_WORKLOAD)))
		goto oom;
	if (i >= m->nspin) {
		s = realloc(m->spin, ((size_t)i + 1) * sizeof(*s));
		if (!s)
			goto oom;
		m->spin = s;
	}
	err = pg_spin_run(&m->spin[i]);
	if (err) {
		pg_err("the reference spin: cannot read a clock: %s", strerror(-err));
		return err;
	}
	m->nspin = (size_t)i + 1;
	return 0;
oom:
	pg_err("the reference spin: out of memory");
	return -ENOMEM;
}
