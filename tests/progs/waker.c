// SPDX-License-Identifier: MIT
/*
 * A process that waits for another (tests/e2e/test_waker.sh). main() forks a child, which
 * names itself "pgwake_child" (prctl: a process's name is its comm) and then, ROUNDS times,
 * works WORK_MS ms of its own CPU time in child_work() and writes a byte into a pipe; the
 * parent blocks in wait_child()'s read of each byte, woken by the child's write. Built twice:
 * waker (WORK_MS 8) and waker_slow (-DSLOW: WORK_MS 16): the constant is in child_work's
 * instructions, so its machine code differs between the builds, while wait_child's is the
 * same. CPU time rather than wall time: the child's work doubles however busy the machine.
 * Built with -O1 -g -fno-inline and frame pointers (the Makefile's rule for tests/progs).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SLOW
#define WORK_MS 16
#else
#define WORK_MS 8
#endif
#define ROUNDS 5

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Spin WORK_MS ms of this thread's CPU time (an integer: an immediate of its code). */
__attribute__((noinline)) unsigned long child_work(void)
{
	long end = cpu_ns() + WORK_MS * 1000000L;
	volatile unsigned long x = 0;

	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i * 2654435761UL;
	return x;
}

/* Block until the child has written a byte. */
__attribute__((noinline)) int wait_child(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/*
 * A connected loopback TCP pair into @fds (the parent's end first): a listener on an
 * ephemeral port, connected to and accepted. 0 or -1.
 */
static int tcp_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &len))
		return -1;
	fds[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[1] < 0 || connect(fds[1], (struct sockaddr *)&a, sizeof(a)))
		return -1;
	fds[0] = accept(ls, NULL, NULL);
	close(ls);
	return fds[0] < 0 ||
	       setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int fds[2], status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "tcp") ? tcp_pair(fds) : pipe(fds)) {
		perror("waker: pipe or loopback connection");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		close(fds[0]);
		prctl(PR_SET_NAME, "pgwake_child", 0, 0, 0);
		for (int r = 0; r < ROUNDS; r++)
			if (child_work() == 1 || write(fds[1], "x", 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	for (int r = 0; r < ROUNDS; r++)
		if (wait_child(fds[0])) {
			fprintf(stderr, "waker: the child did not write\n");
			return 1;
		}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
