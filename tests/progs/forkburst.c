// SPDX-License-Identifier: MIT
/*
 * A bounded burst of forks: 50 children started at once, each calls fb_child() 10 times and
 * exits with status i % 7; the parent calls fb_parent() once, reaps them all and prints the
 * sum of their exit statuses. Expected per run: fb_child 500, fb_parent 1.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCHILDREN 50

volatile unsigned long sink;

__attribute__((noinline)) void fb_child(int i) { sink += (unsigned long)i; }
__attribute__((noinline)) void fb_parent(void) { sink++; }

int main(void)
{
	int sum = 0, st;

	for (int i = 0; i < NCHILDREN; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			for (int k = 0; k < 10; k++)
				fb_child(k);
			_exit(i % 7);
		}
	}
	fb_parent();
	while (wait(&st) > 0)
		if (WIFEXITED(st))
			sum += WEXITSTATUS(st);
	printf("forks %d\n", sum);
	return 0;
}
