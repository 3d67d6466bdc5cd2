// SPDX-License-Identifier: MIT
/*
 * longjmp over traced frames. Per run:
 *  - 100 times, escape(20) recurses 20 deep and longjmps back to main: escape never returns
 *    (0 calls), and when only escape* is traced the outermost traced frame is the one that jumps
 *    away; after_jump() is then called once per round (100 calls);
 *  - 50 times, guarded() sets its own jump buffer, calls escape_local(10), which longjmps back
 *    into guarded(); guarded() then calls leaf() and returns (50 calls each);
 *  - tail_a() tail-calls tail_b() 30 times (a tail call is not a longjmp: both are counted).
 * Prints a checksum; the output is the same with and without perfgate.
 */
#include <setjmp.h>
#include <stdio.h>

volatile unsigned long sink;
static jmp_buf top, local;

__attribute__((noinline)) void escape(int d)
{
	sink += (unsigned long)d;
	if (!d)
		longjmp(top, 1);
	escape(d - 1);
	sink++;
}

__attribute__((noinline)) void escape_local(int d)
{
	sink += (unsigned long)d;
	if (!d)
		longjmp(local, 1);
	escape_local(d - 1);
	sink++;
}

__attribute__((noinline)) void after_jump(void) { sink += 3; }
__attribute__((noinline)) void leaf(void) { sink += 5; }

__attribute__((noinline)) void guarded(void)
{
	if (!setjmp(local))
		escape_local(10);
	leaf();
}

__attribute__((noinline)) unsigned long tail_b(unsigned long x) { return x * 3 + sink; }
__attribute__((noinline, optimize("O2", "optimize-sibling-calls")))
unsigned long tail_a(unsigned long x)
{
	return tail_b(x + 1);	/* compiled to a jmp */
}

int main(void)
{
	unsigned long t = 0;

	for (int i = 0; i < 100; i++) {
		if (!setjmp(top))
			escape(20);
		after_jump();
	}
	for (int i = 0; i < 50; i++)
		guarded();
	for (unsigned long i = 0; i < 30; i++)
		t += tail_a(i) - sink;
	printf("longjmp %lu %lu\n", sink, t);
	return 0;
}
