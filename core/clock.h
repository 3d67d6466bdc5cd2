/* SPDX-License-Identifier: MIT */
/*
 * core/clock.h - the one clock perfgate times things with in user space: CLOCK_MONOTONIC, the
 * clock bpf_ktime_get_ns() reads too, in ns.
 */
#ifndef PG_CLOCK_H
#define PG_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
