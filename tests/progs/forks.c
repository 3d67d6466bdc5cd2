// SPDX-License-Identifier: MIT
/*
 * in_parent() 10 times in the parent; a forked child calls in_child() 20 times, and a
 * grandchild that outlives its parent calls in_child() 5 more times: 25 in all.
 */
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void in_parent(int i) { sink += (unsigned long)i; }
__attribute__((noinline)) void in_child(int i) { sink ^= (unsigned long)i; }

int main(void)
{
	pid_t pid;

	for (int i = 0; i < 10; i++)
		in_parent(i);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 20; i++)
			in_child(i);
		if (fork() == 0) {	/* orphaned: perfgate must still wait for it */
			usleep(100000);
			for (int i = 0; i < 5; i++)
				in_child(i);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
