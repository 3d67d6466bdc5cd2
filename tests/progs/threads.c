// SPDX-License-Identifier: MIT
/* Four threads call work() 250 times each: 1000 calls; main calls main_only() once. */
#include <pthread.h>

volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	for (unsigned long k = 0; k < 200; k++)
		sink += i * k;
}

__attribute__((noinline)) void main_only(void) { sink++; }

static void *thread_main(void *arg)
{
	for (unsigned long i = 0; i < 250; i++)
		work(i);
	return arg;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	main_only();
	return 0;
}
