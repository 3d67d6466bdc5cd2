// SPDX-License-Identifier: MIT
/*
 * A benchmark that does not end by itself, for the signal and timeout tests. argv[1]:
 *   sleep        sleep for a minute
 *   ignore-term  ignore SIGTERM, then sleep for a minute
 *   stop         stop itself with SIGSTOP
 *   escape       fork a child that leaves the process group (setsid), both sleep a minute
 * Further arguments are ignored (the tests use one to find the processes). It prints "ready"
 * once it is set up, and calls traced() first.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void traced(void) { sink++; }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sleep";

	traced();
	if (!strcmp(mode, "ignore-term")) {
		signal(SIGTERM, SIG_IGN);
	} else if (!strcmp(mode, "stop")) {
		printf("ready\n");
		fflush(stdout);
		raise(SIGSTOP);
		return 0;
	} else if (!strcmp(mode, "escape")) {
		if (fork() == 0) {
			setsid();
			sleep(60);
			_exit(0);
		}
	}
	printf("ready\n");
	fflush(stdout);
	sleep(60);
	return 0;
}
