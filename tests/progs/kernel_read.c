// SPDX-License-Identifier: MIT
/*
 * A function whose time is the kernel's beside ten whose time is their own code: read_zero()
 * reads 24 MiB from /dev/zero in 64 KiB reads (the kernel clears the buffer: its on-CPU time
 * is nearly all in kernel frames), work0() .. work9() spin ~1 ms each. main calls each 10
 * times. The first argument P makes read_zero() read P% more a call (default 0).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHUNK (64 << 10)

volatile unsigned long sink;
static char buf[CHUNK];
static size_t bytes = 24 << 20;

static unsigned long spin(unsigned long x, unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long read_zero(int fd)
{
	unsigned long got = 0;

	for (size_t left = bytes; left > 0;) {
		ssize_t n = read(fd, buf, left < CHUNK ? left : CHUNK);

		if (n <= 0)
			exit(1);
		got += (unsigned long)n + (unsigned char)buf[n - 1];
		left -= (size_t)n;
	}
	return got;
}

#define WORK(n) \
	__attribute__((noinline)) unsigned long work##n(unsigned long x) \
	{ return spin(x + n, 400000); }
WORK(0) WORK(1) WORK(2) WORK(3) WORK(4) WORK(5) WORK(6) WORK(7) WORK(8) WORK(9)

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	if (argc > 1)
		bytes = (size_t)((double)bytes * (1 + strtod(argv[1], NULL) / 100));
	for (unsigned long i = 0; i < 10; i++)
		sink += read_zero(fd) + work0(i) + work1(i) + work2(i) + work3(i) + work4(i) +
			work5(i) + work6(i) + work7(i) + work8(i) + work9(i);
	close(fd);
	return 0;
}
