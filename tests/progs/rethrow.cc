// SPDX-License-Identifier: MIT
/*
 * C++ exceptions rethrown, thrown inside a handler, and unwinding through destructors, across
 * traced functions (perfgate's exception fix, docs/recording.md). 100 rounds: rx_outer(i)
 * calls rx_inner(i), which calls rx_thrower(5, i % 2), a recursion 5 deep in which every level
 * holds an rx_guard whose destructor calls rx_dtor_work(); every other round it throws from
 * the bottom. rx_inner catches everything, calls rx_handler_work() and rx_nested() (which
 * calls rx_nested_throw(), catches the logic_error it throws and returns), then rethrows
 * (`throw;`) to rx_outer, which catches it. rx_after() runs once per round. Last, a thread
 * calls rx_exit_outer(), which holds an rx_farewell and calls rx_exit_inner(), which calls
 * pthread_exit(): the thread's unwinding runs the destructor, which prints a line.
 * Expected per run: rx_outer 100, rx_after 100, rx_inner 50 returns (the throwing rounds leave
 * it by the rethrow), rx_thrower 6 x 50 = 300 returns, rx_dtor_work 6 x 100 = 600 (it runs
 * while unwinding too), rx_handler_work 50, rx_nested 50, rx_nested_throw 0 returns,
 * rx_exit_outer and rx_exit_inner 0, rx_farewell::~rx_farewell 1.
 * Traced calls that never return: 6 x 50 rx_thrower + 50 rx_inner + 50 rx_nested_throw + 2 =
 * 402. Prints "farewell" and "caught 50 nested 50 sum 300".
 */
#include <cstdio>
#include <pthread.h>
#include <stdexcept>

volatile unsigned long sink;
static int nested;

__attribute__((noinline)) void rx_dtor_work(void) { sink += 7; }
__attribute__((noinline)) void rx_handler_work(void) { sink += 11; }
__attribute__((noinline)) void rx_after(void) { sink++; }

struct rx_guard {
	~rx_guard() { rx_dtor_work(); }
};

__attribute__((noinline)) int rx_thrower(int d, bool do_throw)
{
	rx_guard g;

	sink += (unsigned long)d;
	if (d == 0) {
		if (do_throw)
			throw std::runtime_error("boom");
		return 1;
	}
	return rx_thrower(d - 1, do_throw) + 1;
}

__attribute__((noinline)) void rx_nested_throw(void)
{
	sink++;
	throw std::logic_error("inner");
}

__attribute__((noinline)) int rx_nested(void)
{
	try {
		rx_nested_throw();
	} catch (const std::logic_error &e) {
		nested++;
	}
	return 1;
}

__attribute__((noinline)) int rx_inner(int i)
{
	try {
		return rx_thrower(5, i % 2);
	} catch (...) {
		rx_handler_work();
		rx_nested();
		throw;
	}
}

__attribute__((noinline)) int rx_outer(int i)
{
	try {
		return rx_inner(i);
	} catch (const std::runtime_error &e) {
		return -1;
	}
}

struct rx_farewell {
	~rx_farewell() { printf("farewell\n"); }
};

__attribute__((noinline)) void rx_exit_inner(void)
{
	sink++;
	pthread_exit(nullptr);
}

__attribute__((noinline)) void rx_exit_outer(void)
{
	rx_farewell f;

	rx_exit_inner();
	sink++;
}

static void *exiting_thread(void *)
{
	rx_exit_outer();
	return nullptr;
}

int main()
{
	pthread_t t;
	int caught = 0, sum = 0;

	for (int i = 0; i < 100; i++) {
		int r = rx_outer(i);

		if (r < 0)
			caught++;
		else
			sum += r;
		rx_after();
	}
	pthread_create(&t, nullptr, exiting_thread, nullptr);
	pthread_join(t, nullptr);
	printf("caught %d nested %d sum %d\n", caught, nested, sum);
	return 0;
}
