// SPDX-License-Identifier: MIT
/*
 * runner/session/spin.c - the reference spin (spin.h).
 */
#include "spin.h"

#include <errno.h>
#include <sched.h>
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

/* One spin on the CPU the calling thread is on: its wall, CPU and run-queue times. */
static int spin_once(uint64_t *wall, uint64_t *cpu, uint64_t *runq)
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
	*wall = w1 > w0 ? w1 - w0 : 1;
	*cpu = c1 > c0 ? c1 - c0 : 1;
	/* read outside the timed part, the wait is rounded to the scheduler's clock: at most
	 * the wall time, less 1 ns */
	*runq = q1 > q0 ? q1 - q0 : 0;
	if (*runq >= *wall)
		*runq = *wall - 1;
	return 0;
}

/* One spin on each CPU of @all, pinned in turn, into @out->cpus (ncpu of them; the caller
 * restores the thread's affinity). 0, -errno of a clock, or 1 when a CPU refused the thread
 * (a cpuset that changed: the caller spins unpinned instead). */
static int spin_each_cpu(struct pg_spin *out, const cpu_set_t *all)
{
	cpu_set_t one;
	int err = 0;

	out->ncpu = 0;
	for (int c = 0; c < CPU_SETSIZE && !err; c++) {
		struct pg_spin_cpu *p = &out->cpus[out->ncpu];

		if (!CPU_ISSET(c, all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return 1;
		*p = (struct pg_spin_cpu){ .cpu = (uint32_t)c };
		err = spin_once(&p->wall_ns, &p->cpu_ns, &p->runq_ns);
		out->ncpu += !err;
	}
	pg_spin_combine(out);
	return err;
}

int pg_spin_run(struct pg_spin *out)
{
	cpu_set_t all;
	int n, err;

	*out = (struct pg_spin){ 0 };
	n = sched_getaffinity(0, sizeof(all), &all) ? 0 : CPU_COUNT(&all);
	if (n < 2 || n > PG_SPIN_MAX_CPUS)
		return spin_once(&out->wall_ns, &out->cpu_ns, &out->runq_ns);
	err = spin_each_cpu(out, &all);
	if (sched_setaffinity(0, sizeof(all), &all) && !err)
		err = -errno;
	if (err == 1) {
		pg_debug("the reference spin: cannot pin to a CPU: %s; spinning unpinned",
			 strerror(errno));
		*out = (struct pg_spin){ 0 };
		return spin_once(&out->wall_ns, &out->cpu_ns, &out->runq_ns);
	}
	return err;
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
