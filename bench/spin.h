/* SPDX-License-Identifier: MIT */
/*
 * bench/spin.h - the benchmark programs' unit of work: spin(k), k iterations of one load, add
 * and store on the volatile `sink` (which the including file defines).
 *
 * Twins of one program spin in the same function: the speed of a loop on a volatile depends on
 * where the loop lands in memory (by 2x here), so twins must share their loops. In assembly so
 * that every compiler builds the same loop: clang -O2 turned `sink += i` into four
 * memory-destination adds per iteration, whose speed on the project machine (AMD EPYC) flipped
 * between calls by 2-5x (a 20 us leaf: mean 23 us, median 7 us), which no per-process mean of
 * 3000 calls could check a 3% target against.
 */
#ifndef PG_BENCH_SPIN_H
#define PG_BENCH_SPIN_H

extern volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long k)
{
	for (unsigned long i = 0; i < k; i++) {
		unsigned long s;

		__asm__ volatile("mov %1,%0\n\tadd %2,%0\n\tmov %0,%1"
				 : "=&r"(s), "+m"(sink) : "r"(i));
	}
}

#endif
