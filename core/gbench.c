// SPDX-License-Identifier: MIT
/*
 * core/gbench.c - Google Benchmark's figures in a run: ownership, order, checks. See gbench.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison.h"
#include "gbench.h"

const char *pg_gb_state_name(int s)
{
	static const char *const names[PG_GB_STATE_COUNT] = { "ok", "error", "skipped" };

	return s >= 0 && s < PG_GB_STATE_COUNT ? names[s] : "?";
}

void pg_gb_value_release(struct pg_gb_value *v)
{
	free(v->name);
	free(v->message);
	for (size_t i = 0; i < v->ncounters; i++)
		free(v->counters[i].name);
	free(v->counters);
	memset(v, 0, sizeof(*v));
}

void pg_gb_values_free(struct pg_gb_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pg_gb_value_release(&v[i]);
	free(v);
}

static int dup_value(struct pg_gb_value *d, const struct pg_gb_value *s)
{
	*d = *s;
	d->name = strdup(s->name);
	d->message = s->message ? strdup(s->message) : NULL;
	d->counters = s->ncounters ? calloc(s->ncounters, sizeof(*d->counters)) : NULL;
	d->ncounters = 0;
	if (!d->name || (s->message && !d->message) || (s->ncounters && !d->counters))
		return -ENOMEM;
	for (size_t i = 0; i < s->ncounters; i++) {
		d->counters[i].value = s->counters[i].value;
		d->counters[i].name = strdup(s->counters[i].name);
		if (!d->counters[i].name)
			return -ENOMEM;
		d->ncounters = i + 1;
	}
	return 0;
}

int pg_gb_values_dup(struct pg_gb_value **dst, size_t *ndst, const struct pg_gb_value *src,
		     size_t n)
{
	struct pg_gb_value *v = n ? calloc(n, sizeof(*v)) : NULL;

	*dst = NULL;
	*ndst = 0;
	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (dup_value(&v[i], &src[i])) {
			pg_gb_values_free(v, i + 1);
			return -ENOMEM;
		}
	}
	*dst = v;
	*ndst = n;
	return 0;
}

static int cmp_value(const void *a, const void *b)
{
	return strcmp(((const struct pg_gb_value *)a)->name, ((const struct pg_gb_value *)b)->name);
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct pg_gb_counter *)a)->name,
		      ((const struct pg_gb_counter *)b)->name);
}

void pg_gb_sort(struct pg_gb_value *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_value);
	for (size_t i = 0; i < n; i++)
		if (v[i].ncounters > 1)
			qsort(v[i].counters, v[i].ncounters, sizeof(*v[i].counters), cmp_counter);
}

const struct pg_gb_value *pg_gb_find(const struct pg_gb_value *v, size_t n, const char *name)
{
	struct pg_gb_value key = { .name = (char *)name };

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_value) : NULL;
}

static int check_value(const struct pg_gb_value *v, char *why, size_t whylen)
{
	if (!v->name || !*v->name) {
		snprintf(why, whylen, "a benchmark without a name");
		return -EINVAL;
	}
	if ((unsigned int)v->state >= PG_GB_STATE_COUNT || !v->inproc_reps ||
	    (v->message && !*v->message)) {
		snprintf(why, whylen, "benchmark %s: invalid state, repetitions or message",
			 v->name);
		return -EINVAL;
	}
	if (v->state == PG_GB_OK &&
	    (!isfinite(v->real_ns) || !isfinite(v->cpu_ns) || v->real_ns < 0 || v->cpu_ns < 0 ||
	     !v->iterations)) {
		snprintf(why, whylen, "benchmark %s: times must be finite and >= 0, iterations "
			 ">= 1", v->name);
		return -EINVAL;
	}
	for (size_t k = 0; k < v->ncounters; k++) {
		if (!v->counters[k].name || !*v->counters[k].name ||
		    !isfinite(v->counters[k].value) ||
		    (k && strcmp(v->counters[k - 1].name, v->counters[k].name) >= 0)) {
			snprintf(why, whylen, "benchmark %s: counters must be named, finite, "
				 "sorted and unique", v->name);
			return -EINVAL;
		}
	}
	return 0;
}

int pg_gb_check(const struct pg_gb_value *v, size_t n, char *why, size_t whylen)
{
	for (size_t i = 0; i < n; i++) {
		int err = check_value(&v[i], why, whylen);

		if (err)
			return err;
		if (i && strcmp(v[i - 1].name, v[i].name) >= 0) {
			snprintf(why, whylen, "benchmarks must be sorted by name and unique (%s)",
				 v[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

bool pg_gb_harness(const char *name)
{
	static const char *const prefixes[] = { "benchmark::", "_ZN9benchmark", "_ZNK9benchmark",
						"_ZZN9benchmark" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	/*
	 * Code of Google Benchmark's templates compiled into the program (its counters' map,
	 * std::map<std::string, benchmark::Counter>::_M_insert_node) names its types in its
	 * template arguments; a benchmark's body, BM_x(benchmark::State&), in its parameters:
	 * Google Benchmark times those itself
	 */
	return strstr(name, "N9benchmark") || strstr(name, "K9benchmark") || pg_gb_body(name);
}

bool pg_gb_body(const char *name)
{
	/* the State first, alone or with arguments of the benchmark's own (BENCHMARK_CAPTURE,
	 * RegisterBenchmark with a function of more parameters) */
	const char *st = strstr(name, "(benchmark::State&");

	if (strstr(name, "RN9benchmark5StateE"))
		return true;
	/* not the harness frames that name a body's type: LambdaBenchmark<...>::Run(State&),
	 * RegisterBenchmark<void (*)(State&, ...)> */
	if (!strncmp(name, "benchmark::", 11) || strstr(name, "benchmark::internal::") ||
	    strstr(name, "benchmark::RegisterBenchmark"))
		return false;
	return st && (st[18] == ')' || st[18] == ',');
}

bool pg_gb_is_bench(const struct pg_fcmp *f)
{
	return f->binary && !strcmp(f->binary, PG_GB_BINARY);
}
