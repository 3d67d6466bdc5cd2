// SPDX-License-Identifier: MIT
/*
 * A small Google Benchmark suite (Debian's libbenchmark-dev): BM_hash, BM_mix and BM_sum.
 * PG_SLOW=P, or a first argument --pg-slow=P, makes leaf_hash() (BM_hash's work) do P% more
 * (default 0). A first argument "noargv" hands Google Benchmark no arguments at all (as a
 * program that takes its own arguments does): its flags then come from the environment only.
 */
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <cstring>

static unsigned long hash_iters = 2000;

__attribute__((noinline)) unsigned long leaf_hash(unsigned long x)
{
	for (unsigned long i = 0; i < hash_iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_mix(unsigned long x)
{
	for (unsigned long i = 0; i < 2000; i++)
		x ^= x >> 13, x *= 0x9e3779b97f4a7c15UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_sum(unsigned long x)
{
	for (unsigned long i = 0; i < 2000; i++)
		x += i * (x | 1);
	return x;
}

static void BM_hash(benchmark::State &state)
{
	unsigned long x = 1;

	for (auto _ : state)
		benchmark::DoNotOptimize(x = leaf_hash(x));
	state.counters["items"] = benchmark::Counter((double)state.iterations(),
						     benchmark::Counter::kIsRate);
}
BENCHMARK(BM_hash);

static void BM_mix(benchmark::State &state)
{
	unsigned long x = 1;

	for (auto _ : state)
		benchmark::DoNotOptimize(x = leaf_mix(x));
}
BENCHMARK(BM_mix);

static void BM_sum(benchmark::State &state)
{
	unsigned long x = 1;

	for (auto _ : state)
		benchmark::DoNotOptimize(x = leaf_sum(x));
}
BENCHMARK(BM_sum);

int main(int argc, char **argv)
{
	const char *slow = getenv("PG_SLOW");
	char *none[] = { argv[0], nullptr };
	int nargs = 1;

	if (argc > 1 && !strncmp(argv[1], "--pg-slow=", 10)) {
		slow = argv[1] + 10;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (slow)
		hash_iters += hash_iters * strtoul(slow, nullptr, 10) / 100;
	if (argc > 1 && !strcmp(argv[1], "noargv"))
		argv = none;
	else
		nargs = argc;
	benchmark::Initialize(&nargs, argv);
	if (benchmark::ReportUnrecognizedArguments(nargs, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
