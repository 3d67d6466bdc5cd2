// SPDX-License-Identifier: MIT
/*
 * Functions whose time is known to be on-CPU or off-CPU (tests/e2e/test_offcpu.sh):
 *   sleeper()   sleeps 20 ms: off-CPU, blocked ~20 ms, on-CPU ~0
 *   spinner()   spins until its thread has run 20 ms: on-CPU 20 ms (off-CPU only if preempted)
 *   waiter()    locks a mutex another thread holds for HOLD_MS: blocked ~HOLD_MS
 *   piper()     reads a pipe a child process writes to 20 ms after it was started: blocked
 *
 *	[PG_HOLD_MS=HOLD_MS] offcpu [mutex]
 *
 * HOLD_MS is 20 by default (an environment variable, so that a compare of two hold times is a
 * compare of one command). With PG_SLEEP_LOG=FILE, the process appends to FILE one line, the
 * mean time sleeper()'s calls took by CLOCK_MONOTONIC, in ns: a timer that wakes the thread late
 * (a virtual machine's) makes a sleep of 20 ms longer, and all of it blocked. Without "mutex":
 * the main thread and two workers each call sleeper() and spinner() once, at the same time;
 * then main calls waiter() and piper() once.
 * With "mutex": main calls waiter() WAITS times, nothing else (a benchmark whose one function
 * waits on a lock). Call counts are exact and independent of timing.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 2
#define WAITS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t held;
static long hold_ms = 20;
static long long slept_ns;
static int sleeps;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void sleeper(void)
{
	long long t0 = clock_ns(CLOCK_MONOTONIC);

	sleep_ms(20);
	__atomic_add_fetch(&slept_ns, clock_ns(CLOCK_MONOTONIC) - t0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sleeps, 1, __ATOMIC_RELAXED);
}

static long long thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

volatile unsigned long sink;

__attribute__((noinline)) void spinner(void)
{
	long long end = thread_cpu_ns() + 20000000LL;

	while (thread_cpu_ns() < end)
		sink++;
}

__attribute__((noinline)) void waiter(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) char piper(int fd)
{
	char c = 0;

	if (read(fd, &c, 1) != 1)
		exit(1);
	return c;
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&lock);
	sem_post(&held);
	sleep_ms(hold_ms);
	pthread_mutex_unlock(&lock);
	return arg;
}

/* waiter() while another thread holds the lock for hold_ms */
static void contend(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, holder, NULL))
		exit(1);
	sem_wait(&held);
	waiter();
	pthread_join(t, NULL);
}

static void *worker(void *arg)
{
	sleeper();
	spinner();
	return arg;
}

static void log_sleeps(void)
{
	const char *path = getenv("PG_SLEEP_LOG");
	FILE *f;

	if (!path || !sleeps)
		return;
	f = fopen(path, "a");
	if (!f)
		exit(1);
	fprintf(f, "%lld\n", slept_ns / sleeps);
	fclose(f);
}

static void pipe_from_child(void)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		close(fd[0]);
		sleep_ms(20);
		if (write(fd[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	piper(fd[0]);
	close(fd[0]);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	pthread_t t[WORKERS];

	if (getenv("PG_HOLD_MS"))
		hold_ms = atol(getenv("PG_HOLD_MS"));
	sem_init(&held, 0, 0);
	if (argc > 1 && !strcmp(argv[1], "mutex")) {
		for (int i = 0; i < WAITS; i++)
			contend();
		return 0;
	}
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	worker(NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	contend();
	pipe_from_child();
	log_sleeps();
	return 0;
}
