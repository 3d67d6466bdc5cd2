// SPDX-License-Identifier: MIT
/*
 * A switch-heavy program (perfgate's cost per context switch, bench/offcpu.py): two threads
 * hand a token back and forth N times through a mutex and a condition variable, so that each
 * handoff blocks one thread and wakes the other. handoffs() runs the whole exchange (trace it
 * alone: one probe pair, so that what perfgate adds is its context-switch hooks). Prints the
 * mean ns per handoff it measured and the context switches of the process (getrusage).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long turn, n;

static void play(long me)
{
	pthread_mutex_lock(&lock);
	for (;;) {
		while (turn < n && (turn & 1) != me)
			pthread_cond_wait(&cond, &lock);
		if (turn >= n)
			break;
		turn++;
		pthread_cond_signal(&cond);
	}
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

static void *other(void *arg)
{
	play(1);
	return arg;
}

__attribute__((noinline)) void handoffs(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, other, NULL))
		exit(1);
	play(0);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;

	n = argc > 1 ? atol(argv[1]) : 100000;
	clock_gettime(CLOCK_MONOTONIC, &a);
	handoffs();
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &ru);
	printf("%.1f %ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n,
	       ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}
