// SPDX-License-Identifier: MIT
/*
 * A benchmark in two phases whose hot tiny functions differ, like a program that loads and
 * then queries, or an interpreter that sorts through a callback: phase one calls mid() 300
 * times (~100 us each) and tick() a million times; phase two sorts 200,000 numbers with
 * qsort() and the comparison callback cmp_u32() (~3.5 million calls). Traced in full, each
 * phase's tiny functions cost many times the program's own time (~70 ms untraced); a
 * selection that keeps a budget must find both.
 */
#include <stdint.h>
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void mid(unsigned long k)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i ^ k;
}

__attribute__((noinline)) void tick(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) void load(void)
{
	for (unsigned long k = 0; k < 300; k++)
		mid(k);
	for (unsigned long i = 0; i < 1000000; i++)
		tick(i);
}

__attribute__((noinline)) void query(void)
{
	size_t n = 200000;
	uint32_t *v = malloc(n * sizeof(*v)), x = 2463534242u;

	if (!v)
		abort();
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		v[i] = x;
	}
	qsort(v, n, sizeof(*v), cmp_u32);
	sink += v[n / 2];
	free(v);
}

int main(void)
{
	load();
	query();
	return 0;
}
