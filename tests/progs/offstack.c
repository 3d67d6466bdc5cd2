// SPDX-License-Identifier: MIT
/*
 * offstack: off-CPU stacks (tests/e2e/test_offstacks.sh). main calls sleeper() N times
 * (default 5), each sleeping 20 ms in nanosleep, then, with a second argument M, hands a token
 * M times between two threads through a mutex and a condition variable (handoff(): a
 * switch-heavy loop for the cost measurement in docs/sampling.md).
 *
 *	offstack [N [M]]
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long turn, rounds;

__attribute__((noinline)) void sleeper(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Wait for the token to be @me's, pass it on: each round is two context switches. */
__attribute__((noinline)) void handoff(long me)
{
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		while (turn % 2 != me)
			pthread_cond_wait(&cond, &lock);
		turn++;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
}

static void *other(void *arg)
{
	handoff(1);
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5;
	pthread_t t;

	for (long i = 0; i < n; i++)
		sleeper();
	rounds = argc > 2 ? atol(argv[2]) : 0;
	if (rounds) {
		if (pthread_create(&t, NULL, other, NULL))
			return 1;
		handoff(0);
		pthread_join(t, NULL);
	}
	return 0;
}
