/* SPDX-License-Identifier: MIT */
/*
 * core/gbench.h - Google Benchmark's own figures in a run (docs/gbench.md): what one process
 * (a repetition) reported for each of its benchmarks, kept beside the traced functions in
 * struct pg_rep (bench, nbench), and how a compare result names a benchmark.
 *
 * A benchmark is identified by its name as Google Benchmark reports it ("run_name":
 * "BM_parse/64", "BM_copy/threads:2"). Its value in a process is its time per iteration, the
 * figure its users read; with --benchmark_repetitions=K inside the process, the median of its K
 * iteration runs (inproc_reps = K), so that one process stays one value.
 *
 * Invariants (pg_gb_check()): a repetition's benchmarks are sorted by name (strcmp), unique,
 * each name non-empty; state < PG_GB_STATE_COUNT; for PG_GB_OK, real_ns and cpu_ns are finite
 * and >= 0 and iterations >= 1; inproc_reps >= 1; counters sorted by name, unique, each value
 * finite. message is NULL or non-empty.
 *
 * Ownership: a struct pg_rep owns its benchmarks (pg_gb_values_free() frees them, as
 * pg_rep_release() does), each value its name, message and counters.
 */
#ifndef PG_GBENCH_H
#define PG_GBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pg_gb_state {
	PG_GB_OK = 0,
	PG_GB_ERROR,		/* the benchmark called state.SkipWithError() */
	PG_GB_SKIPPED,		/* skipped (Google Benchmark 1.8's SkipWithMessage) */
};
#define PG_GB_STATE_COUNT (PG_GB_SKIPPED + 1)

/* "ok", "error", "skipped"; pg_gb_state_parse() takes them back (0, or -EINVAL) */
const char *pg_gb_state_name(int s);

/* A user counter (state.counters["name"]) as Google Benchmark reported it: rates already
 * divided by time, as in its own JSON. */
struct pg_gb_counter {
	char *name;
	double value;
};

struct pg_gb_value {
	char *name;		/* the benchmark's run name */
	enum pg_gb_state state;
	char *message;		/* the error or skip message, or NULL */
	double real_ns;		/* wall time per iteration, ns (Google Benchmark's real_time) */
	double cpu_ns;		/* CPU time per iteration, ns (its cpu_time) */
	uint64_t iterations;	/* iterations it ran (the median run's, with inproc_reps > 1) */
	uint32_t inproc_reps;	/* its runs in this process (--benchmark_repetitions); the
				 * values are their medians when > 1 */
	uint32_t threads;	/* threads it ran on (1 unless ->Threads()) */
	size_t ncounters;
	struct pg_gb_counter *counters;	/* sorted by name */
};

/* Free @n values at @v and the array. */
void pg_gb_values_free(struct pg_gb_value *v, size_t n);
/* Free what @v owns, leaving it zeroed. */
void pg_gb_value_release(struct pg_gb_value *v);
/* Deep copy of @n values into *dst (NULL when n is 0). 0 or -ENOMEM (nothing left). */
int pg_gb_values_dup(struct pg_gb_value **dst, size_t *ndst, const struct pg_gb_value *src,
		     size_t n);
/* The benchmark @name among @v[0..n) (sorted), or NULL. */
const struct pg_gb_value *pg_gb_find(const struct pg_gb_value *v, size_t n, const char *name);
/* Sort @v[0..n) by name, and each value's counters. */
void pg_gb_sort(struct pg_gb_value *v, size_t n);
/* The invariants above: 0, or -EINVAL with the reason in @why (@whylen bytes). */
int pg_gb_check(const struct pg_gb_value *v, size_t n, char *why, size_t whylen);

/*
 * Is symbol @name (mangled "_ZN9benchmark..." or demangled "benchmark::...") part of Google
 * Benchmark's harness, an instance of a template over its types (a mangled name that names
 * one: "...N9benchmark7CounterE..."), or a benchmark's body (pg_gb_body())? They run every
 * benchmark, timed by Google Benchmark itself, and never explain one: they are no candidates
 * for tracing.
 */
bool pg_gb_harness(const char *name);
/* Is @name (mangled or demangled) a benchmark's body: a function taking a benchmark::State& first
 * ("BM_x(benchmark::State&)", "bench(benchmark::State&, std::string)")?
 * (pg_gb_harness() says yes to these too: Google Benchmark times them itself.) */
bool pg_gb_body(const char *name);

/*
 * In a compare result (core/comparison.h), a benchmark is an entry of the function list
 * whose binary is PG_GB_BINARY, name and display its name; its values are times per
 * iteration (diff/gbench.h).
 */
#define PG_GB_BINARY "[benchmark]"
struct pg_fcmp;
bool pg_gb_is_bench(const struct pg_fcmp *f);

#endif
