// SPDX-License-Identifier: MIT
/*
 * Tail calls (`jmp`) between traced functions: built with gcc -O2 -foptimize-sibling-calls
 * (Makefile), top() ends with `jmp middle` and middle() with `jmp leaf`, so the three return
 * probes of one top() call run in one trip into the kernel. main calls top 20 times: per call
 * of top, one tail-called child (middle) and two tail-called descendants (middle, the second
 * leaf); per call of middle, one tail-called child (leaf) of its two.
 */
volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void middle(unsigned long n)
{
	leaf(n);
	leaf(n);	/* the tail call */
}

__attribute__((noinline)) void top(unsigned long n)
{
	sink++;
	middle(n);	/* the tail call */
}

int main(void)
{
	for (int i = 0; i < 20; i++)
		top(2000);
	return 0;
}
