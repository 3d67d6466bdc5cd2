// SPDX-License-Identifier: MIT
/*
 * 64 threads run at once (a barrier releases them together): each calls tb_body() once, which
 * calls tb_work() 100 times, which calls tb_leaf() once. One thread leaves through
 * pthread_exit() from inside tb_exit_early(): that call never returns (not counted).
 * Expected per run: tb_body 63, tb_work 6400, tb_leaf 6400, tb_exit_early 0.
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 64

static pthread_barrier_t barrier;
static unsigned long results[NTHREADS];

__attribute__((noinline)) unsigned long tb_leaf(unsigned long x) { return x * 2654435761UL; }

__attribute__((noinline)) unsigned long tb_work(unsigned long i)
{
	unsigned long x = i;

	for (int k = 0; k < 50; k++)
		x += (unsigned long)k * i;
	return tb_leaf(x);
}

__attribute__((noinline)) unsigned long tb_body(long id)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < 100; i++)
		s += tb_work(i + (unsigned long)id);
	return s;
}

__attribute__((noinline)) void tb_exit_early(long id)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < 100; i++)
		s += tb_work(i + (unsigned long)id);
	results[id] = s;
	pthread_exit(NULL);
}

static void *thread_main(void *arg)
{
	long id = (long)arg;

	pthread_barrier_wait(&barrier);
	if (id == NTHREADS - 1)
		tb_exit_early(id);
	results[id] = tb_body(id);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	unsigned long sum = 0;

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)i))
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++)
		sum += results[i];
	printf("threads %lu\n", sum);
	return 0;
}
