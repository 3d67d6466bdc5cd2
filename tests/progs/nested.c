// SPDX-License-Identifier: MIT
/*
 * Self versus total: outer() spins ~2x as long as inner() and calls it once; main calls
 * outer 50 times. So inner's self == its total, and outer's total - self == inner's total.
 * fib() is recursive: fib(15) makes 1973 calls.
 */
volatile unsigned long sink;

__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void inner(void) { spin(20000); }

__attribute__((noinline)) void outer(void)
{
	spin(40000);
	inner();
}

__attribute__((noinline)) unsigned long fib(unsigned long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	for (int i = 0; i < 50; i++)
		outer();
	sink += fib(15);
	return 0;
}
